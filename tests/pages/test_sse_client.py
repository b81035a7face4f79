"""HTTP with SSE under load and abuse: every wait of the client bounded, the server's limits,
and nothing left behind when a session ends.

https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse
Real sockets throughout: a port that accepts and says nothing, a real server that freezes, our
werkzeug server on 127.0.0.1 port 0, and raw sockets for clients that misbehave.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import requests

from mcp_ref import Client, ConnectionClosed, HttpError, RequestContext, RequestTimeout, Server
from mcp_ref.sse import SseHttpServer

from .test_sse import INIT, RawStream, make_server, post

# --- helpers -----------------------------------------------------------------------------------


def bounded(seconds: float, call: Callable[[], Any]) -> tuple[Any, float]:
    """Run ``call`` on a thread; return what it returned or raised, and the seconds it took.
    Fails (instead of hanging the suite) if it is still running after ``seconds``."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(call())
        except BaseException as exc:
            outcome.append(exc)

    start = time.monotonic()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still waiting after {seconds} s: the wait is not bounded"
    return outcome[0], time.monotonic() - start


@contextmanager
def wsgi(app: Callable[..., Any]) -> Iterator[str]:
    """Any WSGI app on werkzeug's threaded server, 127.0.0.1, a free port; yields the base URL."""
    from werkzeug.serving import make_server as werkzeug_server

    server = werkzeug_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


class Freezer:
    """WSGI middleware that freezes a real server's POST endpoint on demand: once frozen, each
    POST body is read and recorded, and the request then hangs unanswered until ``thaw()``."""

    def __init__(self, app: Callable[..., Any]) -> None:
        self.app = app
        self.frozen = threading.Event()
        self.thawed = threading.Event()
        self.held: list[Any] = []

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if self.frozen.is_set() and environ["REQUEST_METHOD"] == "POST":
            body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
            self.held.append(json.loads(body))
            self.thawed.wait(15)
            start_response("503 Service Unavailable", [("Content-Type", "text/plain")])
            return [b"thawed"]
        return self.app(environ, start_response)

    def thaw(self) -> None:
        self.thawed.set()


def wait_until(condition: Callable[[], bool], seconds: float = 5) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def endpoint_of(stream: RawStream, http: SseHttpServer) -> str:
    event, path = stream.next_event()
    assert event == "endpoint"
    return http.url.rsplit("/sse", 1)[0] + path


# --- the client: every wait bounded ------------------------------------------------------------


def test_a_port_that_accepts_and_says_nothing_fails_within_the_timeout() -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:  # the kernel accepts; nobody ever answers
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/sse"
        outcome, took = bounded(5, lambda: Client.sse(url, timeout=1))
    assert isinstance(outcome, ConnectionClosed), outcome
    assert "no answer within 1 s" in str(outcome) and took < 2


def test_a_stream_that_never_names_its_endpoint_fails_within_the_timeout() -> None:
    def no_endpoint(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterator[bytes]:
        start_response("200 OK", [("Content-Type", "text/event-stream")])
        for _ in range(50):  # comments keep arriving, an endpoint never does
            yield b": still here\n\n"
            time.sleep(0.1)

    with wsgi(no_endpoint) as base:
        outcome, took = bounded(5, lambda: Client.sse(base + "/sse", timeout=1))
    assert isinstance(outcome, ConnectionClosed), outcome
    assert "no endpoint event" in str(outcome) and took < 2


@pytest.fixture
def frozen() -> Iterator[tuple[str, Freezer]]:
    app = make_server().wsgi_app()
    freezer = Freezer(app)
    with wsgi(freezer) as base:
        yield base + "/sse", freezer
        freezer.thaw()
        app.close()


def test_requests_to_a_frozen_server_time_out_on_their_own_timeouts(frozen: tuple[str, Freezer],
                                                                     new_tap: Callable[[], Any]) -> None:
    url, freezer = frozen
    client = Client.sse(url, timeout=10, trace=new_tap())
    freezer.frozen.set()
    outcome, took = bounded(5, lambda: client.ping(timeout=1))
    assert isinstance(outcome, RequestTimeout) and took < 1.5, (outcome, took)
    outcome, took = bounded(8, lambda: client.call_tool("echo", {"text": "x"}, timeout=2))
    assert isinstance(outcome, RequestTimeout) and took < 3, (outcome, took)
    # Each request was followed by its notifications/cancelled (CAN-01), sent from a worker with
    # its own bound: the frozen server holds those POSTs too, and nobody was held up by them.
    assert wait_until(lambda: len(freezer.held) == 4, 4), freezer.held
    requests_sent = [m for m in freezer.held if "id" in m]
    notices = [m for m in freezer.held if m.get("method") == "notifications/cancelled"]
    assert [m["method"] for m in requests_sent] == ["ping", "tools/call"]
    assert sorted(n["params"]["requestId"] for n in notices) == sorted(m["id"] for m in requests_sent)
    _, took = bounded(5, client.close)
    assert took < 1.5


def test_connecting_to_a_frozen_server_times_out(frozen: tuple[str, Freezer]) -> None:
    url, freezer = frozen
    freezer.frozen.set()  # the stream opens and names its endpoint; the initialize POST hangs
    outcome, took = bounded(5, lambda: Client.sse(url, timeout=1))
    # 1 s for initialize, up to 0.25 s for its cancellation notice (also held), then the close:
    # 2.1 s once with two suites at once on two CPUs, so the bound leaves room for a loaded machine.
    assert isinstance(outcome, RequestTimeout) and took < 3, (outcome, took)


def test_an_open_stream_may_stay_idle_longer_than_the_connect_timeout(new_tap: Callable[[], Any]) -> None:
    with make_server().sse_server(keepalive=60) as http:  # no keepalive comments during the test
        with Client.sse(http.url, timeout=1, trace=new_tap()) as client:
            (session,) = http.app.server.sessions
            assert not session.closed.wait(1.5)  # silence on the stream, longer than the timeout
            client.ping()  # its answer comes on the stream: a read timeout would have ended it


# --- the server: limits ------------------------------------------------------------------------


@contextmanager
def descriptors(at_least: int) -> Iterator[None]:
    """Raise this process's soft limit on open files to ``at_least`` (if it is lower), for a while."""
    resource = pytest.importorskip("resource")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= at_least:
        yield
        return
    if hard != resource.RLIM_INFINITY and hard < at_least:
        pytest.skip(f"the hard limit on open files is {hard}, below {at_least}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (at_least, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_thousand_idle_connections_do_not_cut_off_new_clients(new_tap: Callable[[], Any]) -> None:
    with descriptors(4096), make_server().sse_server(keepalive=60) as http:
        idle: list[socket.socket] = []
        threads = threading.active_count()
        try:
            for _ in range(11):  # each also costs the server a descriptor: new ones are numbered past 2,000
                idle.extend(socket.create_connection(("127.0.0.1", http.port)) for _ in range(100))
                # in batches the listen queue can hold, each accepted (a thread apiece) before the next
                assert wait_until(lambda: threading.active_count() >= threads + len(idle))
            assert max(s.fileno() for s in idle) > 1024
            client = Client.sse(http.url, timeout=5, trace=new_tap())
            (session,) = http.app.server.sessions
            assert not session.closed.wait(1.2)  # two checks for a departed client have passed
            client.ping()
            client.close()
            assert session.closed.wait(3)  # and a client that really left is still noticed
        finally:
            for s in idle:
                s.close()


def drip(sock: socket.socket, data: bytes, interval: float, stop: threading.Event) -> None:
    for i in range(len(data)):
        if stop.wait(interval):
            return
        try:
            sock.send(data[i:i + 1])
        except OSError:
            return


def test_requests_that_never_arrive_whole_are_cut_off() -> None:
    with make_server().sse_server(request_timeout=0.5) as http:
        address = ("127.0.0.1", http.port)
        # Headers that never end.
        with socket.create_connection(address) as half:
            half.sendall(b"GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            outcome, took = bounded(5, lambda: half.recv(1))
            assert outcome == b"" and took < 1.5, (outcome, took)
        # Headers sent a byte every 0.1 s: each read is quick, the whole request is not.
        stop = threading.Event()
        with socket.create_connection(address) as slow:
            sender = threading.Thread(target=drip, args=(slow, b"GET /sse HTTP/1.1\r\nX-Padding: " + b"a" * 200, 0.1, stop))
            sender.start()
            try:
                outcome, took = bounded(5, lambda: slow.recv(1))
                assert outcome == b"" and took < 1.5, (outcome, took)
            finally:
                stop.set()
                sender.join()
        # A POST whose body stops halfway is answered 408.
        stream = RawStream(http.url)
        path = endpoint_of(stream, http).split("/", 3)[3]
        with socket.create_connection(address) as body:
            body.sendall(f"POST /{path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         "Content-Length: 100\r\n\r\n".encode() + b'{"jsonrpc":')
            outcome, took = bounded(5, lambda: body.recv(4096))
            assert outcome.startswith(b"HTTP/1.1 408") and took < 1.5, (outcome, took)
        stream.close()


def test_event_streams_beyond_max_streams_are_told_to_retry_later() -> None:
    with make_server().sse_server(max_streams=2) as http:
        first, second = RawStream(http.url), RawStream(http.url)
        endpoint_of(first, http)
        endpoint_of(second, http)
        refused = requests.get(http.url, timeout=5)
        assert refused.status_code == 503 and int(refused.headers["Retry-After"]) > 0
        assert "2 open event streams" in refused.text
        with pytest.raises(HttpError) as info:
            Client.sse(http.url, timeout=5)
        assert info.value.status == 503
        first.close()  # a stream that ends frees its place
        assert wait_until(lambda: http.app.session_count == 1)
        third = RawStream(http.url)
        endpoint_of(third, http)
        third.close()
        second.close()


def lazy_client(http: SseHttpServer) -> tuple[socket.socket, str]:
    """A client that opens its event stream, reads up to the endpoint, and never reads again."""
    lazy = socket.socket()
    lazy.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a small window fills fast
    lazy.connect(("127.0.0.1", http.port))
    lazy.sendall(b"GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    lazy.settimeout(10)  # every wait bounded: the endpoint event comes at once
    received = b""
    # The endpoint's data line, complete. (Not "the bytes end with a blank line": werkzeug frames
    # the stream in HTTP chunks, and a read that also takes a chunk's closing CRLF ends otherwise;
    # the loop then waited for bytes that never came.)
    while (found := re.search(rb"data: (\S*session_id=\S+)\r?\n", received)) is None:
        chunk = lazy.recv(4096)
        assert chunk, f"the server closed the stream before its endpoint event: {received!r}"
        received += chunk
    lazy.settimeout(None)
    path = found.group(1).decode()
    endpoint = http.url.rsplit("/sse", 1)[0] + path
    assert post(endpoint, INIT).status_code == 202
    assert post(endpoint, {"jsonrpc": "2.0", "method": "notifications/initialized"}).status_code == 202
    return lazy, endpoint


def connection_ends(sock: socket.socket) -> bool:
    """Read what the server had sent until it hangs up; False if it does not within 5 s."""
    sock.settimeout(5)
    try:
        while sock.recv(1024 * 1024):
            pass
    except ConnectionResetError:
        pass
    except TimeoutError:
        return False
    finally:
        sock.close()
    return True


def test_a_client_that_never_reads_its_stream_is_disconnected_when_its_queue_is_full() -> None:
    server = make_server()

    @server.tool()
    def flood(ctx: RequestContext) -> str:
        while True:  # until the session closes under it; each message may wait 0.3 s for room
            ctx.session.notify("notifications/message", {"level": "info", "data": "x" * 10_000}, timeout=0.3)

    with server.sse_server(max_queued=4, write_timeout=60) as http:  # not the write timeout: the queue
        before = set(threading.enumerate())
        lazy, endpoint = lazy_client(http)
        (session,) = server.sessions
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "flood"}}
        assert post(endpoint, call).status_code == 202
        assert session.closed.wait(10)
        assert "took nothing from its event stream for 0.3 s, with 4 messages unread" in (session.close_reason or "")
        assert post(endpoint, {"jsonrpc": "2.0", "id": "p", "method": "ping"}).status_code == 404
        assert http.app.session_count == 0
        # Every thread this client cost ends, the one stuck writing to its stream included: it
        # is let go at once, not after write_timeout, and without the client reading a byte.
        threads = set(threading.enumerate()) - before
        assert wait_until(lambda: not any(t.is_alive() for t in threads), 3), threads
        lazy.close()


def test_a_client_that_stops_taking_a_write_is_disconnected_after_write_timeout() -> None:
    server = make_server()

    @server.tool()
    def big() -> str:
        return "x" * 16 * 1024 * 1024  # more than any socket buffer holds

    with server.sse_server(write_timeout=0.5) as http:
        lazy, endpoint = lazy_client(http)
        (session,) = server.sessions
        assert post(endpoint, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "big"}}).status_code == 202
        assert session.closed.wait(5)
        assert session.close_reason == "the client's event stream closed"
        assert connection_ends(lazy)


def test_a_burst_of_messages_reaches_a_client_that_reads() -> None:
    server = make_server()

    @server.tool()
    def chatty(ctx: RequestContext, count: int) -> str:
        for n in range(count):  # faster than the stream writes: the queue slows this loop instead
            ctx.log("info", n)
        return "done"

    logged: list[Any] = []
    with server.sse_server(max_queued=10) as http:
        with Client.sse(http.url, timeout=10, on_log_message=lambda params: logged.append(params["data"])) as client:
            client.set_logging_level("debug")
            assert client.call_tool("chatty", {"count": 3000})["content"][0]["text"] == "done"
    assert logged == list(range(3000))


MIB = 1024 * 1024


def large_resources(size: int) -> Server:
    """A server whose resources ``big://N`` are each ``size`` characters of text."""
    server = make_server()

    @server.resource_template("big://{n}")
    def big(n: str) -> str:
        return n[0] * size

    return server


def test_the_bytes_waiting_for_a_client_that_never_reads_are_bounded() -> None:
    server = large_resources(MIB)
    high_water = []
    with server.sse_server(max_queued_bytes=3 * MIB, write_timeout=60) as http:  # bytes, not the count
        lazy, endpoint = lazy_client(http)
        (session,) = server.sessions
        session.default_timeout = 1.0  # how long an answer may wait for room before the client is cut off
        (stream,) = http.app._streams.values()
        for n in range(30):  # 30 MiB of answers, had they all been queued
            read = {"jsonrpc": "2.0", "id": 10 + n, "method": "resources/read", "params": {"uri": f"big://{n % 10}"}}
            assert post(endpoint, read).status_code == 202
            high_water.append(stream.outbox.queued_bytes)
        assert session.closed.wait(10)
        high_water.append(stream.outbox.queued_bytes)
        # Cut off as a client that stops reading is: for the bytes, the reason says so.
        assert "bytes unread (the bound is 3145728)" in (session.close_reason or ""), session.close_reason
        assert max(high_water) <= 3 * MIB
        assert post(endpoint, {"jsonrpc": "2.0", "id": "p", "method": "ping"}).status_code == 404
        assert connection_ends(lazy)


def test_a_client_that_reads_gets_large_answers_past_the_byte_bound() -> None:
    server = large_resources(MIB)
    with server.sse_server(max_queued_bytes=2 * MIB) as http:
        with Client.sse(http.url, timeout=10) as client:
            answers: list[Any] = []
            threads = [threading.Thread(target=lambda n=n: answers.append(client.read_resource(f"big://{n}")))
                       for n in range(12)]  # answered at once, faster than the stream writes them
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(30)
            assert len(answers) == 12
            assert all(len(answer["contents"][0]["text"]) == MIB for answer in answers)


def test_one_message_larger_than_the_byte_bound_still_goes_out() -> None:
    server = large_resources(3 * MIB)
    with server.sse_server(max_queued_bytes=MIB) as http:
        with Client.sse(http.url, timeout=10) as client:
            assert len(client.read_resource("big://x")["contents"][0]["text"]) == 3 * MIB


# --- the server: what a session leaves behind, and hostile bodies -------------------------------


def test_a_session_leaves_no_subscriptions_behind(new_tap: Callable[[], Any]) -> None:
    server = Server("subscriptions")

    @server.resource_template("item://{n}")
    def item(n: str) -> str:
        return n

    with server.sse_server() as http:
        client = Client.sse(http.url, timeout=10, trace=new_tap())
        for n in range(300):
            client.subscribe_resource(f"item://{n}")
        subscriptions = server.resources._subscribers
        assert len(subscriptions) == 300
        client.unsubscribe_resource("item://0")
        assert "item://0" not in subscriptions  # unsubscribing frees the URI's entry
        (session,) = server.sessions
        client.close()
        assert session.closed.wait(3)
        assert subscriptions == {}  # the session's end frees every entry it made
        assert wait_until(lambda: not server.sessions and http.app.session_count == 0)


@pytest.fixture
def sse_stream() -> Iterator[tuple[RawStream, str]]:
    with make_server().sse_server() as http:
        stream = RawStream(http.url)
        yield stream, endpoint_of(stream, http)
        stream.close()


@pytest.mark.parametrize("body, says", [
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    (b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":NaN}}', "NaN is not a JSON value"),
    ('{"jsonrpc":"2.0","id":1,"method":"ping"}'.encode("utf-16"), "not UTF-8"),
    (b'{"jsonrpc":"2.0","id":1,"method":"\xed\xa0\x80"}', "not UTF-8"),  # a lone surrogate's bytes
], ids=["deep", "nan", "utf-16", "surrogate-bytes"])
def test_a_body_that_is_not_strict_json_is_answered_400(sse_stream: tuple[RawStream, str], body: bytes,
                                                        says: str) -> None:
    """The same test as the session's own (messages.decode), made before the 202."""
    stream, endpoint = sse_stream
    response = post(endpoint, body)
    assert response.status_code == 400 and says in response.text, response.text
    assert post(endpoint, {"jsonrpc": "2.0", "id": "p", "method": "ping"}).status_code == 202
    assert stream.next_event() == ("message", '{"jsonrpc":"2.0","id":"p","result":{}}')


def test_lone_surrogates_are_answered_and_the_session_goes_on(sse_stream: tuple[RawStream, str]) -> None:
    stream, endpoint = sse_stream
    assert post(endpoint, INIT).status_code == 202
    assert "result" in json.loads(stream.next_event()[1])
    post(endpoint, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    hostile = [  # "\ud800" is a JSON escape for half a UTF-16 pair: valid JSON, no UTF-8 form
        b'{"jsonrpc":"2.0","id":2,"method":"\\ud800"}',
        b'{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}',
        b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"\\ud800"}}}',
    ]
    for body in hostile:
        assert post(endpoint, body).status_code == 202
    answers = {}
    for _ in hostile:
        event, data = stream.next_event()
        assert event == "message"
        answer = json.loads(data)  # strict UTF-8 JSON: RawStream decodes strictly
        answers[answer["id"]] = answer
    assert answers[2]["error"]["code"] == -32601 and "\\ud800" in answers[2]["error"]["message"]
    assert answers[None]["error"]["code"] == -32603  # that id cannot be echoed
    assert answers[4]["error"]["code"] == -32603
    assert post(endpoint, {"jsonrpc": "2.0", "id": 5, "method": "ping"}).status_code == 202
    assert stream.next_event() == ("message", '{"jsonrpc":"2.0","id":5,"result":{}}')
