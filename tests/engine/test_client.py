"""The client's face (client.py): every request it can send takes a timeout of its own.

Not one spec page: LC-24 asks that every request have a timeout; a caller who knows one call
may take longer (or must be quick) says so on that call, whichever method it is.
"""

from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from mcp_ref import Client, RequestContext, RequestTimeout, Server

# Each public method that sends a request, with arguments to call it with.
CALLS: dict[str, tuple[Any, ...]] = {
    "ping": (), "list_tools": (), "call_tool": ("slow",), "list_resources": (), "list_resource_templates": (),
    "read_resource": ("notes://a",), "subscribe_resource": ("notes://a",), "unsubscribe_resource": ("notes://a",),
    "list_prompts": (), "get_prompt": ("greet",), "set_logging_level": ("info",),
    "complete": ({"type": "ref/prompt", "name": "greet"}, {"name": "who", "value": "a"}),
    "request": ("tools/list",),
}


def test_every_method_that_sends_a_request_takes_a_timeout() -> None:
    """The family, not a list: any public method whose code sends a request has ``timeout``."""
    senders = {name for name, fn in inspect.getmembers(Client, inspect.isfunction)
               if not name.startswith("_") and any(call in inspect.getsource(fn) for call in
                                                   ("self.request(", "self._list(", "self._session.request("))}
    senders.discard("connect")  # its initialize is bounded by the client's own timeout, given when it is made
    assert senders <= set(CALLS), f"add these to CALLS: {sorted(senders - set(CALLS))}"
    missing = [name for name in CALLS if "timeout" not in inspect.signature(getattr(Client, name)).parameters]
    assert not missing, f"methods that send a request but take no timeout=: {missing}"


@pytest.fixture
def stalled(memory_client: Callable[..., Client]) -> Any:
    """A client whose server answers nothing until released (every feature declared)."""
    server = Server("stalled")
    release = threading.Event()

    @server.tool()
    def slow() -> str:
        return "slow"

    @server.resource("notes://a")
    def note() -> str:
        return "a"

    @server.prompt()
    def greet(who: str) -> str:
        return f"hello {who}"

    def stall(ctx: RequestContext) -> dict[str, Any]:
        release.wait(10)
        return {}

    for method in list(server.request_handlers):
        if method != "initialize":
            server.request_handlers[method] = stall
    client = memory_client(server, timeout=30)
    yield client
    release.set()


@pytest.mark.parametrize("name", sorted(CALLS))
def test_each_request_method_gives_up_at_its_own_timeout(stalled: Client, name: str) -> None:
    start = time.monotonic()
    with pytest.raises(RequestTimeout):
        getattr(stalled, name)(*CALLS[name], timeout=0.3)
    assert time.monotonic() - start < 3, "the call waited for the client's 30 s, not its own 0.3 s"


def test_a_client_in_memory_reaches_a_server_of_this_process_and_ends_its_session_on_close() -> None:
    """``Client.in_memory(server)``: the pytest way to test a server, with no process and no socket."""
    server = Server("in-memory")

    @server.tool()
    def add(a: int, b: int) -> int:
        return a + b

    with Client.in_memory(server, timeout=5) as client:
        assert client.server_info == {"name": "in-memory", "version": "0.1.0"}
        assert client.call_tool("add", {"a": 2, "b": 3})["content"] == [{"type": "text", "text": "5"}]
        assert len(server.sessions) == 1
    deadline = time.monotonic() + 5
    while server.sessions and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.sessions == []  # the client's close ended the server's session too
