"""client/roots: declaring, listing, changing roots; the server's side and its callback.

https://modelcontextprotocol.io/specification/2024-11-05/client/roots
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any

import pytest

from mcp_ref import Client, McpError, MethodNotFound, RequestContext, Server

from ..conftest import ROOT

ROOTS = [{"uri": "file:///home/user/project", "name": "project"}, {"uri": "file:///tmp"}]


def test_roots_capability_list_and_change(connect: Callable[..., Client], tap: Any) -> None:
    logs: list[dict[str, Any]] = []
    got_log = threading.Event()

    def on_log(params: dict[str, Any]) -> None:
        logs.append(params)
        got_log.set()

    client = connect(roots=ROOTS, on_log_message=on_log)
    assert tap.messages[0][1]["params"]["capabilities"] == {"roots": {"listChanged": True}}  # ROOT-01
    text = client.call_tool("list_client_roots")["content"][0]["text"]
    assert text == "project: file:///home/user/project\n(unnamed): file:///tmp"
    client.set_roots([{"uri": "file:///only/one"}])  # ROOT-02
    assert got_log.wait(3)  # the demo server asked again (ROOT-22) and logged the count
    assert logs[-1]["data"] == {"roots": 1}
    assert "notifications/roots/list_changed" in tap.methods("->")


def test_roots_as_a_callable_are_asked_each_time(memory_client: Callable[..., Client]) -> None:
    server = Server("r")
    server.tool()(lambda ctx: [r["uri"] for r in ctx.list_roots()])
    current = [{"uri": "file:///a"}]
    client = memory_client(server, roots=lambda: current)
    assert client.call_tool("<lambda>")["content"] == [{"type": "text", "text": "file:///a"}]
    current.append({"uri": "file:///b"})
    assert [c["text"] for c in client.call_tool("<lambda>")["content"]] == ["file:///a", "file:///b"]


def test_invalid_roots_are_refused(memory_client: Callable[..., Client]) -> None:
    for bad in ([{"uri": "https://example.com"}], [{"uri": "file:///a/../etc"}], [{"name": "no uri"}], ["file:///x"]):
        with pytest.raises(ValueError):
            Client(None, roots=bad)  # type: ignore[arg-type]  # ROOT-03, ROOT-07
    server = Server("r")
    server.tool()(lambda ctx: ctx.list_roots())
    client = memory_client(server, roots=lambda: [{"uri": "ftp://nope"}])
    result = client.call_tool("<lambda>")
    assert result["isError"] is True and "could not list roots" in result["content"][0]["text"]  # ROOT-05


def test_client_without_roots(memory_client: Callable[..., Client]) -> None:
    server = Server("r")
    server.request_handlers["test/raw_roots"] = lambda ctx: ctx.request("roots/list")
    server.tool()(lambda ctx: ctx.list_roots())
    client = memory_client(server)
    with pytest.raises(MethodNotFound):
        client.request("test/raw_roots")  # ROOT-04: -32601 from the client
    assert "did not declare the 'roots'" in client.call_tool("<lambda>")["content"][0]["text"]  # ROOT-17
    with pytest.raises(ValueError):
        client.set_roots([{"uri": "file:///x"}])


def test_server_asks_for_roots_right_after_initialization(tmp_path: Any, tap: Any) -> None:
    """A server that sends roots/list as soon as notifications/initialized arrives, before the
    client's first request: the client must answer it, and nothing may deadlock."""
    script = tmp_path / "eager.py"
    script.write_text(
        f"import sys, json; sys.path.insert(0, {str(ROOT)!r})\n"
        "from mcp_ref import Server, RequestContext, lifecycle\n"
        "server = Server('eager')\n"
        "seen = {}\n"
        "def fetch(ctx):\n"
        "    seen['roots'] = ctx.list_roots()\n"
        "def on_initialized(session, params):\n"
        "    lifecycle.accept_initialized(session.lifecycle)\n"
        "    session.run_in_background(fetch, RequestContext(session, None, 'eager', {}))\n"
        "server.notification_handlers['notifications/initialized'] = on_initialized\n"
        "server.request_handlers['test/seen'] = lambda ctx: seen\n"
        "server.serve_stdio()\n"
    )
    with Client.stdio([sys.executable, str(script)], roots=ROOTS, timeout=5, trace=tap) as client:
        for _ in range(50):
            seen = client.request("test/seen")
            if seen:
                break
            threading.Event().wait(0.05)
    assert seen == {"roots": ROOTS}


def test_on_roots_changed_runs_on_a_worker_and_may_ask(memory_client: Callable[..., Client]) -> None:
    server = Server("watcher")
    fetched: list[Any] = []
    done = threading.Event()

    @server.on_roots_changed
    def changed(ctx: RequestContext) -> None:
        fetched.append(ctx.list_roots())
        done.set()

    client = memory_client(server, roots=[{"uri": "file:///a"}])
    client.set_roots([{"uri": "file:///b", "name": "b"}])
    assert done.wait(3) and fetched == [[{"uri": "file:///b", "name": "b"}]]


def test_a_failing_roots_callable_is_an_internal_error(memory_client: Callable[..., Client]) -> None:
    """ROOT-05: the server hears -32603 saying the roots could not be listed, and why."""
    server = Server("asker")
    seen: dict[str, McpError] = {}

    @server.tool()
    def ask(ctx: RequestContext) -> str:
        try:
            ctx.list_roots()
        except McpError as exc:
            seen["error"] = exc
        return "asked"

    def broken() -> list[dict[str, Any]]:
        raise OSError("the projects disk is gone")

    client = memory_client(server, roots=broken)
    assert client.call_tool("ask")["content"][0]["text"] == "asked"
    assert seen["error"].code == -32603
    assert seen["error"].message == "could not list roots: the projects disk is gone"
    assert client.list_tools()  # the session goes on
