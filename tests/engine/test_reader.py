"""The session engine's reader thread and pool (session.py, machinery/threads/pool.py), seen from a user.

Not one spec page: the engine's promises under every transport. One reader reads the peer's
messages in order; answers settle our requests, notifications run on the reader in arrival order,
the peer's requests run on a bounded pool (``initialize`` and ``ping`` inline). So a tool that
blocks never stops the reading: a ping is answered, a quick call runs, a cancellation is heard.
Real peers: in memory, a stdio subprocess, and werkzeug on 127.0.0.1 (HTTP with SSE and
Streamable HTTP). Bounds here are for liveness only ("it happened before the tool was released"),
never claims about speed.
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_ref import Client, ConnectionClosed, InternalError, RequestCancelled, RequestContext, Server
from mcp_ref.machinery.memory import MemoryTransport
from mcp_ref.session import END_OF_INPUT_GRACE, Session
from mcp_ref.sse import _StreamTransport

from ..conftest import ROOT, TEST_SERVER, server_command, wait_until
from ..pages.test_sse import INIT, RawStream, post

INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
KINDS = ["memory", "stdio", "sse", "http"]  # http: Streamable HTTP
WAIT = 5.0  # seconds: a liveness bound, for what must happen and does in milliseconds
PROMPTLY = 2.0  # seconds: "while the blocked tool still holds", with room for a loaded machine
HOLD = 10.0  # seconds the blocking tool holds at most, unless released or cancelled


class Blocking:
    """A server whose tool ``block`` holds until released (``.release``, or the ``release`` tool)
    or cancelled, counting how many hold at once; ``quick`` says which thread ran it; ``status``
    says how many hold, the most that ever did, which were cancelled and why, and on which threads
    ``initialize`` and ``ping`` ran. The same in this process and, started by CHILD, over stdio."""

    def __init__(self, name: str, max_running: int = 16) -> None:
        self.server = server = Server(name, max_running=max_running)
        self.release = threading.Event()
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0
        self.started = 0
        self.cancelled: list[list[Any]] = []  # [request id, reason], for each block that heard it
        self.ran_on: dict[str, list[str]] = {"initialize": [], "ping": []}  # method -> thread names

        for method in self.ran_on:
            server.request_handlers[method] = self._recording(method, server.request_handlers[method])

        @server.tool()
        def block(ctx: RequestContext) -> str:
            with self.lock:
                self.running += 1
                self.started += 1
                self.most = max(self.most, self.running)
            try:
                deadline = time.monotonic() + HOLD
                while not self.release.is_set() and time.monotonic() < deadline:
                    if ctx.cancelled.wait(0.01):
                        with self.lock:
                            self.cancelled.append([ctx.request_id, ctx.cancel_reason])
                        return "cancelled"
                return "released" if self.release.is_set() else "held too long"
            finally:
                with self.lock:
                    self.running -= 1

        @server.tool()
        def quick() -> str:
            return threading.current_thread().name

        @server.tool()
        def release() -> str:
            self.release.set()
            return "released"

        @server.tool()
        def status() -> str:
            with self.lock:
                return json.dumps({"running": self.running, "most": self.most, "started": self.started,
                                   "cancelled": self.cancelled, "ran_on": self.ran_on})

        @server.tool()
        def log_many(ctx: RequestContext, start: int, count: int) -> str:
            for n in range(start, start + count):
                ctx.log("info", n)
            return "logged"

        @server.tool()
        def ping_client(ctx: RequestContext, times: int) -> str:
            for _ in range(times):
                ctx.request("ping", timeout=WAIT)
            return "pinged"

        @server.tool()
        def roots(ctx: RequestContext) -> str:
            return json.dumps(ctx.list_roots(timeout=WAIT))

    def _recording(self, method: str, handler: Callable[[Any], dict[str, Any]]) -> Callable[[Any], dict[str, Any]]:
        def record(ctx: Any) -> dict[str, Any]:
            with self.lock:
                self.ran_on[method].append(threading.current_thread().name)
            return handler(ctx)
        return record


# The Blocking server over stdio; argv: name, max_running, and a file to write, once the session has
# ended, the names of the threads still alive (after waiting for the session's own to end).
CHILD = """
import json, os, sys, threading, time
from tests.engine.test_reader import Blocking
name, max_running, report = sys.argv[1], int(sys.argv[2]), sys.argv[3]
Blocking(name, max_running).server.serve_stdio()
if report:
    deadline = time.monotonic() + 5
    while any(t.name.startswith(name + "-session") for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.01)
    with open(report + ".part", "w") as f:
        json.dump([t.name for t in threading.enumerate()], f)
    os.replace(report + ".part", report)
"""

Peers = Callable[..., tuple[Client, "Blocking | None"]]


@pytest.fixture
def peers(tap: Any) -> Iterator[Peers]:
    """Factory: ``peers(kind, name=..., max_running=..., report=..., **client_options)`` serves a
    Blocking server over ``kind`` and returns a connected, schema-tapped client, with the Blocking
    object when it lives in this process (None over stdio)."""
    clients: list[Client] = []
    https: list[Any] = []
    blockings: list[Blocking] = []

    def make(kind: str, name: str = "reader", max_running: int = 16, report: str = "",
             **options: Any) -> tuple[Client, Blocking | None]:
        options.setdefault("timeout", 10.0)
        blocking: Blocking | None = None
        if kind == "stdio":
            command = [sys.executable, "-c", CHILD, name, str(max_running), report]
            client = Client.stdio(command, cwd=str(ROOT), trace=tap, **options)
        else:
            blocking = Blocking(name, max_running)
            blockings.append(blocking)
            if kind == "memory":
                server_end, client_end = MemoryTransport.pair()
                blocking.server.open_session(server_end).start()
                client = Client(client_end, trace=tap, **options).connect()
            else:
                http = blocking.server.sse_server(keepalive=0.3)
                https.append(http)
                if kind == "sse":
                    client = Client.sse(http.url, trace=tap, **options)
                else:
                    client = Client.http(http.mcp_url, trace=tap, fallback=False, **options)
        clients.append(client)
        return client, blocking

    yield make
    for blocking in blockings:
        blocking.release.set()
    for client in clients:
        client.close()
    for http in https:
        http.close()


def text(result: dict[str, Any]) -> str:
    return result["content"][0]["text"]  # type: ignore[no-any-return]


def status(client: Client) -> dict[str, Any]:
    return json.loads(text(client.call_tool("status", timeout=PROMPTLY)))  # type: ignore[no-any-return]


def call(request_id: Any, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments or {}}}


def threads_named(prefix: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(prefix)]


# --- a tool that blocks stops nothing else ---------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_a_blocked_tool_stops_neither_pings_nor_quick_calls_nor_its_cancellation(peers: Peers, kind: str) -> None:
    """While one tool blocks, its session still answers pings and quick calls, and the tool hears its cancellation."""
    client, _ = peers(kind)
    held = client.session.start_request("tools/call", {"name": "block", "arguments": {}})
    wait_until(lambda: status(client)["running"] == 1, WAIT)
    for _ in range(5):
        client.ping(timeout=PROMPTLY)
        assert text(client.call_tool("quick", timeout=PROMPTLY)) == "reader-session-worker"
    assert held.cancel("the user pressed stop") is True
    with pytest.raises(RequestCancelled):
        held.result()
    cancelled = wait_until(lambda: status(client)["cancelled"], PROMPTLY)  # heard long before its 10 s hold ended
    assert cancelled == [[held.id, "the user pressed stop"]]
    assert status(client)["running"] == 0


@pytest.mark.parametrize("kind", KINDS)
def test_tools_run_on_pool_threads_while_initialize_and_ping_run_on_the_reader(peers: Peers, kind: str) -> None:
    """A handler never runs on the reader (it could stop the reading); initialize and ping never wait for the pool."""
    client_threads: dict[str, list[str]] = {"ping": [], "roots/list": []}
    client, _ = peers(kind, roots=[{"uri": "file:///project"}])
    for method, names in client_threads.items():
        def recording(ctx: RequestContext, handler: Any = client.request_handlers[method],
                      names: list[str] = names) -> dict[str, Any]:
            names.append(threading.current_thread().name)
            return handler(ctx)  # type: ignore[no-any-return]
        client.request_handlers[method] = recording
    client.ping()
    assert {text(client.call_tool("quick")) for _ in range(10)} == {"reader-session-worker"}
    assert text(client.call_tool("ping_client", {"times": 2})) == "pinged"
    assert json.loads(text(client.call_tool("roots"))) == [{"uri": "file:///project"}]
    assert status(client)["ran_on"] == {"initialize": ["reader-session-reader"], "ping": ["reader-session-reader"]}
    # The client's side alike: the server's pings are answered inline, its roots/list on a pool thread.
    assert client_threads == {"ping": ["mcp_ref-client-reader"] * 2, "roots/list": ["mcp_ref-client-worker"]}


@pytest.mark.parametrize("kind", ["memory", "sse", "http"])
def test_max_running_bounds_how_many_run_at_once_and_the_rest_wait_their_turn(peers: Peers, kind: str) -> None:
    """``Server(max_running=3)``: eight blocking calls at once, never more than three running; all eight answered."""
    name = f"bounded-{kind}"
    client, blocking = peers(kind, name=name, max_running=3)
    assert blocking is not None
    calls = [client.session.start_request("tools/call", {"name": "block", "arguments": {}}) for _ in range(8)]
    client.ping(timeout=PROMPTLY)  # read after the eight: all are in the pool (running or waiting); reading goes on
    wait_until(lambda: blocking.running == 3, WAIT)
    time.sleep(0.2)  # room for a fourth to start, were the bound broken
    assert blocking.running == 3 and blocking.started == 3
    assert len(threads_named(f"{name}-session-worker")) == 3
    blocking.release.set()
    assert [text(c.result(WAIT)) for c in calls] == ["released"] * 8
    assert blocking.most == 3 and blocking.started == 8


def test_a_request_beyond_the_queue_bound_is_answered_server_busy_at_once_and_the_queued_ones_in_order() -> None:
    """A peer that floods a session gets "Server busy" for the excess, at once; what was queued still runs, in order."""
    ours, theirs = MemoryTransport.pair()
    started = threading.Semaphore(0)
    release = threading.Event()
    ran: list[Any] = []

    def on_request(ctx: Any) -> dict[str, Any]:
        ran.append(ctx.request_id)
        started.release()
        if ctx.method == "block":
            assert release.wait(HOLD)
        return {"n": ctx.request_id}

    session = Session(ours, on_request=on_request, on_notification=lambda s, m, p: None, max_running=1,
                      max_queued=2, name="queue-bound")
    session.start()

    def send(request_id: int, method: str = "block") -> None:
        theirs.send(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method}).encode())

    def answer() -> Any:
        data = theirs.receive(WAIT)
        assert data is not None
        return json.loads(data)

    try:
        send(1)
        assert started.acquire(timeout=WAIT)  # 1 runs: the one thread is busy
        for request_id in (2, 3, 4):  # 2 and 3 wait; 4 is one too many
            send(request_id)
        busy = answer()  # at once, while 1 still holds
        assert busy["id"] == 4 and busy["error"]["code"] == -32603
        assert busy["error"]["message"] == "Server busy: 1 requests are running and 2 more are waiting"
        release.set()
        assert [answer() for _ in range(3)] == [{"jsonrpc": "2.0", "id": n, "result": {"n": n}} for n in (1, 2, 3)]
        assert ran == [1, 2, 3]
        send(5, "quick")  # the session goes on
        assert answer() == {"jsonrpc": "2.0", "id": 5, "result": {"n": 5}}
        assert not session.is_closed
    finally:
        release.set()
        session.close()


# --- asking the peer from handlers, background work and callbacks ----------------------------------


def test_background_work_and_a_tool_both_asking_the_client_at_once_both_complete(
        memory_client: Callable[..., Client]) -> None:
    """A roots-changed callback (background work) and a tool each wait on the client at once: neither starves."""
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
        assert "file:///r" in text(client.call_tool("roots", timeout=WAIT))  # ...while this does too
    wait_until(lambda: len(heard) == 20, WAIT)


def test_a_request_from_a_notification_callback_raises_saying_to_use_another_thread(
        memory_client: Callable[..., Client]) -> None:
    """Sending from ``on_log_message`` fails at once with advice (it would deadlock); the advice works."""
    box: list[Client] = []
    errors: list[BaseException] = []
    handed_off: list[Any] = []

    def on_log_message(params: dict[str, Any]) -> None:
        try:
            box[0].ping(timeout=PROMPTLY)
        except RuntimeError as exc:
            errors.append(exc)
        worker = threading.Thread(target=lambda: handed_off.append(box[0].request("ping", timeout=PROMPTLY)))
        worker.start()  # what the message says to do

    client = memory_client(Blocking("callback").server, on_log_message=on_log_message)
    box.append(client)
    assert text(client.call_tool("log_many", {"start": 0, "count": 1}, timeout=PROMPTLY)) == "logged"
    assert len(errors) == 1
    message = str(errors[0])
    assert "notification callback" in message and "Hand the work to another thread" in message
    wait_until(lambda: handed_off == [{}], WAIT)
    client.ping(timeout=PROMPTLY)  # the session is unharmed


@pytest.mark.parametrize("kind", KINDS)
def test_notifications_are_delivered_in_the_order_sent(peers: Peers, kind: str) -> None:
    """Log messages reach ``on_log_message`` in the order sent, each before the answer that follows it."""
    received: list[Any] = []
    client, _ = peers(kind, on_log_message=lambda params: received.append(params["data"]))
    for k in range(20):
        assert text(client.call_tool("log_many", {"start": 10 * k, "count": 10})) == "logged"
        assert received == list(range(10 * (k + 1)))


# --- the end of input, and threads that end ---------------------------------------------------------


@pytest.mark.parametrize("kind", ["memory", "sse-inbox"])
def test_the_end_of_input_while_a_call_runs_closes_the_session_a_grace_later_and_tells_the_handler(kind: str) -> None:
    """The peer goes away mid-call: the handler gets END_OF_INPUT_GRACE to answer, then is told; the session ends."""
    blocking = Blocking(f"ended-{kind}")
    if kind == "memory":
        server_end, client_end = MemoryTransport.pair()
        transport: Any = server_end
        deliver: Callable[[bytes], None] = client_end.send
        end: Callable[[], None] = client_end.close
    else:  # the server's end of an HTTP with SSE session, as SseApp feeds it and ends it
        transport = _StreamTransport(100, None)
        deliver, end = transport.deliver, transport.close
    session = blocking.server.open_session(transport)
    session.start()
    try:
        for message in (INIT, INITIALIZED, call(2, "block")):
            deliver(json.dumps(message).encode())
        wait_until(lambda: blocking.running == 1, WAIT)
        start = time.monotonic()
        end()
        assert session.closed.wait(END_OF_INPUT_GRACE + WAIT), "the session never ended"
        took = time.monotonic() - start
        assert took >= END_OF_INPUT_GRACE - 0.05, f"the running call got {took:.2f} s, not its grace"
        assert wait_until(lambda: blocking.cancelled, WAIT)[0][0] == 2  # its ctx.cancelled was set
        assert blocking.cancelled[0][1].startswith("connection closed")
        assert session.is_closed and blocking.running == 0
    finally:
        blocking.release.set()
        session.close()


def test_a_call_that_ends_within_the_grace_is_answered_and_the_session_closes_then() -> None:
    """``printf '...' | serve``: input ends mid-call; the call's answer still goes out, and the session ends with it."""
    blocking = Blocking("answered-in-grace")
    server_end, client_end = MemoryTransport.pair()
    session = blocking.server.open_session(server_end)
    session.start()
    release = threading.Timer(0.2, blocking.release.set)
    try:
        for message in (INIT, INITIALIZED, call(2, "block")):
            client_end.send(json.dumps(message).encode())
        wait_until(lambda: blocking.running == 1, WAIT)
        start = time.monotonic()
        client_end.close()  # the end of input (the client's end also queues its own end marker, skipped below)
        release.start()
        assert session.closed.wait(WAIT), "the session never ended"
        assert time.monotonic() - start < END_OF_INPUT_GRACE, "the session waited out the grace after the call ended"
        answers: list[Any] = []
        while not answers or answers[-1]["id"] != 2:  # (TimeoutError if it never comes)
            data = client_end.receive(WAIT)
            if data is not None:
                answers.append(json.loads(data))
        assert [a["id"] for a in answers] == [1, 2] and text(answers[-1]["result"]) == "released"
    finally:
        release.cancel()
        blocking.release.set()
        session.close()


def test_messages_delivered_without_a_post_are_read_and_an_idle_end_of_input_ends_the_session_at_once() -> None:
    """What the relay delivers into an SSE session is answered in order; ended while idle, it closes with no grace."""
    blocking = Blocking("relayed")
    transport = _StreamTransport(100, None)
    session = blocking.server.open_session(transport)
    session.start()
    try:
        for message in (INIT, INITIALIZED, {"jsonrpc": "2.0", "id": 2, "method": "ping"}, call(3, "quick")):
            transport.deliver(json.dumps(message).encode())  # as the relay delivers: no POST thread behind it
        answers = []
        for _ in range(3):
            data = transport.outbox.get(timeout=WAIT)
            assert data is not None
            answers.append(json.loads(data))
        assert [a["id"] for a in answers] == [1, 2, 3]
        start = time.monotonic()
        transport.close()
        assert session.closed.wait(WAIT), "the session never ended"
        assert time.monotonic() - start < END_OF_INPUT_GRACE, "an idle session waited out the grace"
    finally:
        session.close()


@pytest.mark.parametrize("kind", ["memory", "stdio"])
def test_every_thread_a_session_started_ends_once_it_closes_on_both_sides(peers: Peers, kind: str,
                                                                          tmp_path: Path) -> None:
    """Closing a connection (even with a call still running) leaves no reader or pool thread behind, on either side."""
    before = set(threading.enumerate())
    report = tmp_path / "threads.json"
    client, _ = peers(kind, name="ending", report=str(report) if kind == "stdio" else "", roots=[])
    for _ in range(3):
        assert text(client.call_tool("quick")) == "ending-session-worker"
    assert text(client.call_tool("roots")) == "[]"  # the client's pool runs roots/list
    held = [client.session.start_request("tools/call", {"name": "block", "arguments": {}}) for _ in range(3)]
    wait_until(lambda: status(client)["running"] == 3, WAIT)  # still running when the client closes
    ours = set(threading.enumerate()) - before
    assert {t.name for t in ours} >= {"mcp_ref-client-reader", "mcp_ref-client-worker"}
    if kind == "memory":
        assert {t.name for t in ours} >= {"ending-session-reader", "ending-session-worker"}
    client.close()
    for call_ in held:
        with pytest.raises(ConnectionClosed):
            call_.result(WAIT)
    wait_until(lambda: not any(t.is_alive() for t in ours), WAIT)
    if kind == "memory":
        assert threads_named("ending-session") == []
    else:  # the server's threads, as the child saw them once its session had ended
        wait_until(report.exists, WAIT)
        assert json.loads(report.read_text()) == ["MainThread"]


def test_two_hundred_sessions_opened_and_closed_leave_the_thread_count_where_it_was() -> None:
    """A long-running server that serves many short connections does not grow its threads."""
    blocking = Blocking("churn")
    before = threading.active_count()
    for _ in range(200):
        server_end, client_end = MemoryTransport.pair()
        blocking.server.open_session(server_end).start()
        client = Client(client_end, timeout=WAIT).connect()
        assert text(client.call_tool("quick")) == "churn-session-worker"
        client.close()
    wait_until(lambda: threading.active_count() <= before and not blocking.server.sessions, WAIT)
    assert threads_named("churn-session") == []


@pytest.mark.parametrize("kind", ["SystemExit", "KeyboardInterrupt"])
def test_a_handler_raising_systemexit_or_keyboardinterrupt_gets_one_answer_and_its_thread_runs_on(
        memory_client: Callable[..., Client], tap: Any, kind: str) -> None:
    """A handler that calls sys.exit() costs its caller one -32603 answer, and the server nothing else."""
    server = Server(f"stopping-{kind}", max_running=1)
    ran_on: list[threading.Thread] = []
    error = {"SystemExit": SystemExit, "KeyboardInterrupt": KeyboardInterrupt}[kind]

    def stop(ctx: RequestContext) -> dict[str, Any]:
        ran_on.append(threading.current_thread())
        raise error()

    def after(ctx: RequestContext) -> dict[str, Any]:
        ran_on.append(threading.current_thread())
        return {"after": True}

    server.request_handlers.update({"test/stop": stop, "test/after": after})
    client = memory_client(server)
    stopped = client.session.start_request("test/stop")
    with pytest.raises(InternalError, match=f"was stopped \\({kind}\\)") as info:
        stopped.result(WAIT)
    assert info.value.code == -32603
    assert client.request("test/after", timeout=WAIT) == {"after": True}
    assert len(ran_on) == 2 and ran_on[0] is ran_on[1] and ran_on[0].is_alive()  # the one pool thread survived
    client.ping()  # anything else sent for test/stop would have arrived by now
    assert len([m for d, m in tap.messages if d == "<-" and m.get("id") == stopped.id]) == 1


# --- HTTP with SSE under our own server: a POST is over once its message is queued -----------------


@contextlib.contextmanager
def sse_session(url: str) -> Iterator[tuple[RawStream, str]]:
    """An initialized SSE session: its stream, and the endpoint to POST to."""
    stream = RawStream(url)
    try:
        event, endpoint = stream.next_event()
        assert event == "endpoint"
        endpoint = url.rsplit("/sse", 1)[0] + endpoint
        assert post(endpoint, INIT).status_code == 202
        assert next_message(stream)["id"] == 1
        assert post(endpoint, INITIALIZED).status_code == 202
        yield stream, endpoint
    finally:
        stream.close()


def next_message(stream: RawStream) -> dict[str, Any]:
    """The next message on an event stream, keep-alive comments passed over."""
    _, data = stream.next_message(WAIT)
    return json.loads(data)  # type: ignore[no-any-return]


def raw_post(url: str, body: dict[str, Any]) -> bytes:
    """POST ``body`` on a socket of our own and read until the server closes the connection."""
    parts = urllib.parse.urlsplit(url)
    data = json.dumps(body).encode()
    head = (f"POST {parts.path}?{parts.query} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n")
    received = b""
    with socket.create_connection((parts.hostname, parts.port), timeout=WAIT) as sock:
        sock.sendall(head.encode() + data)
        while chunk := sock.recv(65536):
            received += chunk
    return received


def test_an_sse_post_carrying_a_long_call_is_answered_202_and_its_connection_closed_at_once() -> None:
    """A POST is over at its 202: the connection closes while the tool still runs, and the session reads on."""
    blocking = Blocking("post-closed")
    timer = threading.Timer(3.0, blocking.release.set)  # the tool holds about 3 s, unless the test releases it
    with blocking.server.sse_server(keepalive=0.3) as http, sse_session(http.url) as (stream, endpoint):
        timer.start()
        try:
            reply = raw_post(endpoint, call(2, "block"))  # returns at the server's end of the connection
            assert not blocking.release.is_set(), "the POST's connection stayed open until the tool ended"
            assert reply.split(b"\r\n", 1)[0].endswith(b" 202 Accepted"), reply
            wait_until(lambda: blocking.running == 1, WAIT)
            assert post(endpoint, {"jsonrpc": "2.0", "id": 3, "method": "ping"}).status_code == 202
            assert next_message(stream) == {"jsonrpc": "2.0", "id": 3, "result": {}}  # before the long call's answer
            assert not blocking.release.is_set()
            blocking.release.set()
            assert next_message(stream)["id"] == 2
        finally:
            timer.cancel()
            blocking.release.set()


def test_twenty_sse_sessions_each_with_a_held_call_all_get_their_202() -> None:
    """Many clients each with a long call in flight: every POST is accepted while all the calls still hold."""
    blocking = Blocking("many-posts")
    with blocking.server.sse_server(keepalive=0.3) as http, contextlib.ExitStack() as stack:
        try:
            sessions = [stack.enter_context(sse_session(http.url)) for _ in range(20)]
            for _, endpoint in sessions:
                assert post(endpoint, call(2, "block")).status_code == 202
            assert not blocking.release.is_set()
            wait_until(lambda: blocking.running == 20, WAIT)  # each session's call runs on its own session's pool
            blocking.release.set()
            for stream, _ in sessions:
                assert next_message(stream)["result"]["content"][0]["text"] == "released"
        finally:
            blocking.release.set()


def test_messages_of_one_sse_client_are_handled_in_the_order_it_sent_them() -> None:
    """Forty pings POSTed one after another are answered in the order sent."""
    blocking = Blocking("ordered")
    with blocking.server.sse_server(keepalive=0.3) as http, sse_session(http.url) as (stream, endpoint):
        for n in range(2, 42):
            assert post(endpoint, {"jsonrpc": "2.0", "id": n, "method": "ping"}).status_code == 202
        assert [next_message(stream)["id"] for _ in range(40)] == list(range(2, 42))


# --- stdio: a lone caller, an idle program, a close from elsewhere ---------------------------------


def test_the_server_is_still_read_while_the_program_makes_no_calls() -> None:
    """A notification the server sends while nobody waits on a call still reaches its callback."""
    heard = threading.Event()
    with Client.stdio(server_command(TEST_SERVER), timeout=10, cwd=str(ROOT),
                      on_list_changed=lambda what: heard.set()) as client:
        client.request("test/notify_later", {"delay": 0.1})
        assert heard.wait(WAIT), "a notification sent while no call was waiting was never read"


def test_closing_from_another_thread_ends_a_call_the_main_thread_waits_on() -> None:
    """A call waiting on the main thread fails with ConnectionClosed when another thread closes the client."""
    client = Client.stdio(server_command(TEST_SERVER), timeout=30, cwd=str(ROOT))
    client.request("test/echo")
    closer = threading.Timer(0.3, client.close)
    closer.start()
    try:
        with pytest.raises(ConnectionClosed):
            client.request("test/sleep", {"seconds": 20})  # long before its 20 s or its 30 s timeout
    finally:
        closer.join(WAIT)
        client.close()
