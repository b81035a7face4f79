"""The session's threads (crew.py): the reader runs requests itself, a standby takes over the
reading when one runs long, a stdio client's caller reads its own answer, and the crew stays
within its bounds.

Not one spec page: these keep the engine's promises of DESIGN principle 5 while it avoids a
thread hand-off per request. Each test is a behaviour the optimisation must not break.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from mcp_ref import Client, ConnectionClosed, InternalError, RequestContext, RequestTimeout, Server
from mcp_ref.machinery import crew
from mcp_ref.machinery.crew import STANDBY_DELAY, Crew
from mcp_ref.machinery.memory import MemoryTransport

from .conftest import TEST_SERVER, server_command


def crew_threads(prefix: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(prefix)]


def blocking_server(name: str, max_workers: int = 16) -> tuple[Server, threading.Event]:
    """A server with a tool that blocks until released, and a quick one."""
    server = Server(name, max_workers=max_workers)
    release = threading.Event()

    @server.tool()
    def block() -> str:
        assert release.wait(10)
        return "released"

    @server.tool()
    def quick() -> str:
        return "quick"

    return server, release


def test_a_quick_request_runs_on_the_reader_without_another_thread(memory_client: Callable[..., Client]) -> None:
    server, _ = blocking_server("inline")
    seen: list[str] = []

    @server.tool()
    def where() -> str:
        seen.append(threading.current_thread().name)
        return "ok"

    client = memory_client(server)
    for _ in range(20):
        client.call_tool("where")
    # No hand-off: the thread reading runs them. (A request that holds the reader past
    # STANDBY_DELAY, as one may on a loaded machine, lets the standby take the reading over and
    # run the next ones: a change of thread now and then, never one per request.)
    changes = sum(1 for before, after in zip(seen, seen[1:], strict=False) if before != after)
    assert "reader" in seen[0] and changes <= 3, seen


def test_pings_and_quick_calls_are_answered_while_a_tool_blocks(memory_client: Callable[..., Client]) -> None:
    server, release = blocking_server("blocking")
    client = memory_client(server)
    outcome: list[Any] = []
    caller = threading.Thread(target=lambda: outcome.append(client.call_tool("block")))
    caller.start()
    try:
        start = time.monotonic()
        for _ in range(10):
            client.ping(timeout=2)
            assert client.call_tool("quick", timeout=2)["content"][0]["text"] == "quick"
        assert time.monotonic() - start < 2.0  # the standby took over the reading within milliseconds
    finally:
        release.set()
        caller.join(5)
    assert outcome[0]["content"][0]["text"] == "released"


def test_a_request_that_blocks_can_be_cancelled(memory_client: Callable[..., Client]) -> None:
    server = Server("cancellable")
    stopped = threading.Event()

    @server.tool()
    def wait_for_cancel(ctx: RequestContext) -> str:
        if ctx.cancelled.wait(10):  # seen only if another thread reads the cancellation
            stopped.set()
        return "done"

    client = memory_client(server)
    with pytest.raises(TimeoutError):
        client.call_tool("wait_for_cancel", timeout=0.3)
    assert stopped.wait(5)


def test_requests_to_the_peer_from_a_busy_reader_and_from_background_work_both_complete(
        memory_client: Callable[..., Client]) -> None:
    """A tool run by the reader and a background job (started by a notification) each wait for
    an answer from the client at the same time: some member must always be left to read it."""
    server = Server("nested")
    heard: list[Any] = []

    @server.on_roots_changed
    def changed(ctx: RequestContext) -> None:
        heard.append(ctx.list_roots())

    @server.tool()
    def roots(ctx: RequestContext) -> str:
        return str(ctx.list_roots())

    client = memory_client(server, roots=[{"uri": "file:///a"}])
    for i in range(20):
        client.set_roots([{"uri": f"file:///r{i}"}])  # background work asks the client...
        assert "file:///r" in client.call_tool("roots", timeout=5)["content"][0]["text"]  # ...while this does too
    deadline = time.monotonic() + 5
    while len(heard) < 20 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(heard) == 20


def test_the_crew_never_grows_beyond_max_workers_and_queues_the_rest(memory_client: Callable[..., Client]) -> None:
    server, release = blocking_server("bounded", max_workers=3)
    client = memory_client(server)
    outcomes: list[Any] = []
    callers = [threading.Thread(target=lambda: outcomes.append(client.call_tool("block", timeout=10)))
               for _ in range(8)]
    for caller in callers:
        caller.start()
    time.sleep(20 * STANDBY_DELAY)
    assert len(crew_threads("bounded-session")) <= 4  # max_workers handlers, plus the reader
    client.ping(timeout=2)  # still reading: the queued requests do not block the reader
    release.set()
    for caller in callers:
        caller.join(10)
    assert [o["content"][0]["text"] for o in outcomes] == ["released"] * 8


def test_a_full_queue_answers_server_busy_instead_of_growing(memory_client: Callable[..., Client]) -> None:
    server, release = blocking_server("overloaded", max_workers=2)
    client = memory_client(server)
    session = server.sessions[-1]
    session._crew._max_queued = 2
    outcomes: list[Any] = []

    def call() -> None:
        try:
            outcomes.append(client.call_tool("block", timeout=10))
        except InternalError as exc:
            outcomes.append(exc)

    callers = [threading.Thread(target=call) for _ in range(8)]
    for caller in callers:
        caller.start()
    deadline = time.monotonic() + 5
    while sum(isinstance(o, InternalError) for o in outcomes) < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    release.set()
    for caller in callers:
        caller.join(10)
    refused = [o for o in outcomes if isinstance(o, InternalError)]
    assert len(outcomes) == 8 and len(refused) >= 4  # 2 running + 2 queued; the rest refused, each answered
    assert all("Server busy" in o.message for o in refused)


def test_every_crew_thread_ends_with_its_session() -> None:
    server, release = blocking_server("ending")
    server_end, client_end = MemoryTransport.pair()
    server.open_session(server_end).start()
    client = Client(client_end, timeout=5).connect()
    callers = [threading.Thread(target=lambda: client.call_tool("block")) for _ in range(4)]
    for caller in callers:
        caller.start()
    time.sleep(20 * STANDBY_DELAY)
    assert len(crew_threads("ending-session")) >= 4
    release.set()
    for caller in callers:
        caller.join(5)
    client.close()
    deadline = time.monotonic() + 5
    while (crew_threads("ending-session") or crew_threads("mcp_ref-client")) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert crew_threads("ending-session") == []


def test_a_crew_needs_a_reader_and_a_standby() -> None:
    with pytest.raises(ValueError, match="at least two"):
        Crew("x", lambda: None, max_threads=1)


# --- rules 6 and 7: over stdio, a caller reads its own answer ------------------------------------


def stdio_client_on_threads(readers: list[tuple[str, str | None]], **kwargs: Any) -> Client:
    """A stdio client whose trace records, for each message read, the reading thread's name and
    the method the message carries (None for a response)."""
    def trace(direction: str, data: bytes) -> None:
        if direction == "<-":
            readers.append((threading.current_thread().name, json.loads(data).get("method")))

    return Client.stdio(server_command(TEST_SERVER), trace=trace, timeout=10, **kwargs)


def test_a_caller_reads_its_own_answer_when_nobody_else_is_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    # The next call must find the reading still resting: under a loaded test run 5 ms between
    # two calls is not certain, so the standby waits half a second here.
    monkeypatch.setattr(crew, "STANDBY_DELAY", 0.5)
    readers: list[tuple[str, str | None]] = []
    with stdio_client_on_threads(readers) as client:
        readers.clear()
        for i in range(20):
            assert client.request("test/echo", {"i": i})["params"] == {"i": i}
    caller = threading.current_thread().name
    # The first answer after initialize may still be read by the crew; after that, every answer
    # is read by the thread that asked.
    assert [name for name, _ in readers[1:]] == [caller] * 19


def test_threads_sharing_a_stdio_client_each_get_their_own_answers() -> None:
    results: dict[int, list[Any]] = {}

    def work(n: int) -> None:
        results[n] = [client.request("test/echo", {"n": n, "i": i})["params"] for i in range(100)]

    with Client.stdio(server_command(TEST_SERVER), timeout=10) as client:
        threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    assert results == {n: [{"n": n, "i": i} for i in range(100)] for n in range(8)}


def test_the_peer_is_still_read_while_the_program_makes_no_calls() -> None:
    heard = threading.Event()
    with Client.stdio(server_command(TEST_SERVER), timeout=10, on_list_changed=lambda what: heard.set()) as client:
        client.request("test/echo")  # now the caller reads, and then puts the reading down
        client.request("test/notify_later", {"delay": 0.1})
        assert heard.wait(5), "a notification sent while no call was waiting was never read"


def test_what_is_not_its_answer_a_caller_leaves_to_the_crew() -> None:
    readers: list[tuple[str, str | None]] = []
    with stdio_client_on_threads(readers) as client:
        client.request("test/echo")
        readers.clear()
        for _ in range(3):  # the server pings us from inside the handler, while we read for our answer
            assert client.request("test/ping_client", {"times": 2}) == {"pinged": 2}
    caller = threading.current_thread().name
    pings = [name for name, method in readers if method == "ping"]
    assert len(pings) == 6 and caller not in pings  # handled, and answered, by the crew


def test_a_caller_reading_for_itself_still_times_out_and_the_session_goes_on() -> None:
    with Client.stdio(server_command(TEST_SERVER), timeout=10) as client:
        client.request("test/echo")
        start = time.monotonic()
        with pytest.raises(RequestTimeout):
            client.request("test/sleep", {"seconds": 5}, timeout=0.3)
        assert time.monotonic() - start < 2
        assert client.request("test/echo", {"after": 1})["params"] == {"after": 1}


def test_closing_from_another_thread_ends_a_call_that_reads_for_itself() -> None:
    client = Client.stdio(server_command(TEST_SERVER), timeout=30)
    client.request("test/echo")
    threading.Timer(0.3, client.close).start()
    start = time.monotonic()
    with pytest.raises(ConnectionClosed):
        client.request("test/sleep", {"seconds": 20})
    assert time.monotonic() - start < 5
