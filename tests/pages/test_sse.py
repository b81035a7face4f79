"""basic/transports#http-with-sse: the event stream, the POST endpoint, status codes, sessions.

https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse
A real werkzeug server on 127.0.0.1, port 0, in the test process; requests as the raw client.
"""

from __future__ import annotations

import json
import logging
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.client import HTTPConnection
from typing import Any

import pytest
import requests

from mcp_ref import Client, ConnectionClosed, HttpError, RequestContext, Server
from mcp_ref.scaleout.relay import LocalRelay
from mcp_ref.sse import SseHttpServer
from mcp_ref.sse_client import SseClientTransport

from ..conftest import ROOT, Waiters, server_command
from ..peers import running

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}


def make_server() -> Server:
    server = Server("sse-test")

    @server.tool()
    def echo(text: str) -> str:
        return text

    @server.tool()
    def log_then_answer(ctx: RequestContext, text: str) -> str:
        ctx.log("info", text)
        return text

    @server.tool()
    def wait(ctx: RequestContext, seconds: float) -> str:
        ctx.cancelled.wait(seconds)
        return "waited"

    return server


@pytest.fixture
def http() -> Iterator[SseHttpServer]:
    with make_server().sse_server(keepalive=0.3) as running:
        yield running


class RawStream:
    """An event stream read with requests, event by event, for checking the wire itself."""

    def __init__(self, url: str, **headers: str) -> None:
        self.response = requests.get(url, stream=True, timeout=(5, 5), headers=headers)
        self._lines = self.response.iter_lines(chunk_size=1)

    def next_event(self) -> tuple[str | None, str]:
        event: str | None = None
        data = ""
        for raw in self._lines:
            line = raw.decode()
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data = line[6:]
            elif line == "" and (event or data):
                return event, data
            elif line.startswith(":"):
                return None, line
        raise AssertionError("stream ended")

    def next_message(self, timeout: float = 5) -> tuple[str | None, str]:
        """The next event, comments passed over: a server may write a comment (our keep-alive)
        anywhere in the stream, before an answer too when the answer is slow to come."""
        deadline = time.monotonic() + timeout
        while (found := self.next_event())[0] is None:
            assert time.monotonic() < deadline, f"only comments for {timeout} s"
        return found

    def close(self) -> None:
        self.response.close()


@pytest.fixture
def raw(http: SseHttpServer) -> Iterator[tuple[RawStream, str]]:
    stream = RawStream(http.url)
    event, endpoint = stream.next_event()
    assert event == "endpoint"
    yield stream, http.url.rsplit("/sse", 1)[0] + endpoint
    stream.close()


def post(url: str, body: Any, content_type: str = "application/json", **headers: str) -> requests.Response:
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return requests.post(url, data=data, headers={"Content-Type": content_type, **headers}, timeout=5)


def test_stream_headers_and_endpoint_event(http: SseHttpServer, new_tap: Callable[[], Any]) -> None:
    stream = RawStream(http.url)
    try:
        headers = stream.response.headers
        assert headers["Content-Type"].startswith("text/event-stream")
        assert headers["Cache-Control"] == "no-cache" and headers["X-Accel-Buffering"] == "no"
        event, endpoint = stream.next_event()  # TR-11
        assert event == "endpoint" and endpoint.startswith("/messages/?session_id=")
        session_id = endpoint.split("=", 1)[1]
        assert len(session_id) == 32 and int(session_id, 16) >= 0  # 128 random bits, hex
    finally:
        stream.close()


def test_messages_flow_and_status_codes(http: SseHttpServer, raw: tuple[RawStream, str]) -> None:
    stream, endpoint = raw
    assert post(endpoint, INIT).status_code == 202  # the answer comes on the stream
    # next_message: with keepalive=0.3, a comment comes first whenever the test is 0.5 s slow
    # (a loaded machine) between two messages; the stream may carry comments anywhere.
    event, data = stream.next_message()
    assert event == "message" and json.loads(data)["result"]["serverInfo"]["name"] == "sse-test"
    base = endpoint.split("?")[0]
    checks = [
        (post(endpoint, b"{not json"), 400),
        (post(base, INIT), 400),  # no session id
        (post(base + "?session_id=" + "0" * 32, INIT), 404),  # unknown session
        (post(endpoint, INIT, content_type="text/plain"), 415),
        (post(endpoint, b"[" + b"1," * (3 * 1024 * 1024) + b"1]"), 413),  # over the 4 MiB cap
        (post(endpoint, INIT, Origin="http://evil.example"), 403),  # TR-06
        (post(endpoint, INIT, Host="evil.example"), 421),
        (requests.put(endpoint, data="{}", timeout=5), 405),
        (requests.post(http.url, data="{}", timeout=5), 405),
        (requests.get(http.url.replace("/sse", "/nothing"), timeout=5), 404),
    ]
    for response, status in checks:
        assert response.status_code == status, (response.request.method, response.request.url, response.text)
    assert "unknown session" in checks[2][0].text and "4194304" in checks[4][0].text
    # after all that, the session still serves
    assert post(endpoint, {"jsonrpc": "2.0", "id": "p", "method": "ping"}).status_code == 202
    assert stream.next_message() == ("message", '{"jsonrpc":"2.0","id":"p","result":{}}')


def test_localhost_origins_pass_and_others_can_be_allowed(http: SseHttpServer, raw: tuple[RawStream, str]) -> None:
    _, endpoint = raw
    for origin in ("http://localhost:3000", "http://127.0.0.1", "https://[::1]:8443"):
        assert post(endpoint, {"jsonrpc": "2.0", "method": "x"}, Origin=origin).status_code == 202
    assert post(endpoint, {"jsonrpc": "2.0", "method": "x"}, Origin="null").status_code == 403
    with make_server().sse_server(allowed_origins=["https://app.example"]) as custom:
        stream = RawStream(custom.url)
        _, path = stream.next_event()
        url = custom.url.rsplit("/sse", 1)[0] + path
        assert post(url, {"jsonrpc": "2.0", "method": "x"}, Origin="https://app.example").status_code == 202
        assert post(url, {"jsonrpc": "2.0", "method": "x"}, Origin="http://localhost").status_code == 403
        stream.close()
    assert requests.get(http.url, headers={"Host": "attacker.example"}, timeout=5).status_code == 421


def test_keepalive_comments_on_an_idle_stream(http: SseHttpServer, new_tap: Callable[[], Any]) -> None:
    stream = RawStream(http.url)
    stream.next_event()
    assert stream.next_event() == (None, ": keepalive")
    stream.close()


def test_client_over_sse_basic(http: SseHttpServer, tap: Any) -> None:
    with Client.sse(http.url, trace=tap, timeout=5) as client:
        assert client.server_info == {"name": "sse-test", "version": "0.1.0"}
        assert client.call_tool("echo", {"text": "hi"})["content"][0]["text"] == "hi"


def test_two_sessions_interleave_without_crosstalk(http: SseHttpServer, new_tap: Callable[[], Any]) -> None:
    logs: dict[str, list[Any]] = {"a": [], "b": []}
    a = Client.sse(http.url, trace=new_tap(), timeout=5, on_log_message=lambda p: logs["a"].append(p["data"]))
    b = Client.sse(http.url, trace=new_tap(), timeout=5, on_log_message=lambda p: logs["b"].append(p["data"]))
    errors: list[str] = []

    def work(client: Client, name: str) -> None:
        for i in range(30):
            text = f"{name}-{i}"
            if client.call_tool("log_then_answer", {"text": text})["content"][0]["text"] != text:
                errors.append(text)

    threads = [threading.Thread(target=work, args=(c, n)) for c, n in ((a, "a"), (b, "b"), (a, "a"), (b, "b"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    a.close()
    b.close()
    assert not errors
    assert len(logs["a"]) == 60 and all(text.startswith("a-") for text in logs["a"])
    assert len(logs["b"]) == 60 and all(text.startswith("b-") for text in logs["b"])


def test_a_notification_sent_during_a_call_arrives_before_its_result(http: SseHttpServer, new_tap: Callable[[], Any]) -> None:
    order: list[str] = []
    with Client.sse(http.url, trace=new_tap(), timeout=5, on_log_message=lambda p: order.append("log")) as client:
        for _ in range(10):
            client.call_tool("log_then_answer", {"text": "x"})
            order.append("result")
    assert order == ["log", "result"] * 10


def test_client_disconnect_ends_the_server_session(http: SseHttpServer, new_tap: Callable[[], Any]) -> None:
    client = Client.sse(http.url, trace=new_tap(), timeout=5)
    client.ping()
    assert http.app.session_count == 1
    (session,) = http.app.server.sessions
    client.close()
    assert session.closed.wait(3)  # noticed within a poll interval, not at the next keepalive
    assert http.app.session_count == 0


def test_stream_end_fails_every_pending_call_at_once(new_tap: Callable[[], Any]) -> None:
    running = make_server().sse_server()
    client = Client.sse(running.url, trace=new_tap(), timeout=30)
    waiters = Waiters(lambda: client.call_tool("wait", {"seconds": 30}), 3)
    time.sleep(0.3)
    start = time.monotonic()
    running.close()  # the server goes away: its streams end
    failures = waiters.join(5)
    assert time.monotonic() - start < 3
    assert len(failures) == 3 and all(isinstance(e, ConnectionClosed) for e in failures)
    assert "event stream" in str(failures[0])
    client.close()


def test_a_failed_post_fails_the_waiting_call_with_its_status(http: SseHttpServer, new_tap: Callable[[], Any]) -> None:
    client = Client.sse(http.url, trace=new_tap(), timeout=5)
    # The session vanishes server-side, as after a restart behind a balancer: neither this
    # process's streams nor its relay know it any more.
    with http.app._lock:
        http.app._streams.clear()
    http.app.relay = LocalRelay()
    with pytest.raises(HttpError) as info:
        client.ping()
    assert info.value.status == 404 and "HTTP 404" in info.value.message and "unknown session" in info.value.message
    client.close()


def endpoint_app(endpoint: str) -> Callable[..., Any]:
    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        start_response("200 OK", [("Content-Type", "text/event-stream")])

        def stream() -> Iterator[bytes]:
            yield f"event: endpoint\ndata: {endpoint}\n\n".encode()
            time.sleep(2)  # keep the stream open a while, as a real server would

        return stream()
    return app


def test_an_endpoint_on_another_origin_is_refused(new_tap: Callable[[], Any]) -> None:
    from werkzeug.serving import make_server as werkzeug_server

    wsgi = werkzeug_server("127.0.0.1", 0, endpoint_app("http://evil.example/messages?session_id=1"), threaded=True)
    thread = threading.Thread(target=wsgi.serve_forever, daemon=True)
    thread.start()
    try:
        with pytest.raises(ConnectionClosed, match="another origin"):
            Client.sse(f"http://127.0.0.1:{wsgi.server_port}/sse", trace=new_tap(), timeout=3)
    finally:
        wsgi.shutdown()
        wsgi.server_close()


def test_typescript_style_endpoint_and_custom_headers(new_tap: Callable[[], Any]) -> None:
    seen: list[str | None] = []
    server = make_server()
    app = server.wsgi_app(message_path="/message", session_param="sessionId")

    def with_auth(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        seen.append(environ.get("HTTP_AUTHORIZATION"))
        return app(environ, start_response)

    from werkzeug.serving import make_server as werkzeug_server

    wsgi = werkzeug_server("127.0.0.1", 0, with_auth, threaded=True)
    thread = threading.Thread(target=wsgi.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{wsgi.server_port}/sse"
        stream = RawStream(url)
        assert stream.next_event()[1].startswith("/message?sessionId=")
        stream.close()
        with Client.sse(url, trace=new_tap(), timeout=5, headers={"Authorization": "Bearer t0ken"}) as client:
            assert client.call_tool("echo", {"text": "ts"})["content"][0]["text"] == "ts"
        assert seen[-1] == "Bearer t0ken" and seen.count("Bearer t0ken") >= 3  # the GET and every POST
    finally:
        app.close()
        wsgi.shutdown()
        wsgi.server_close()


def test_not_an_sse_endpoint_is_a_clear_error(http: SseHttpServer, new_tap: Callable[[], Any]) -> None:
    with pytest.raises(HttpError) as info:
        Client.sse(http.url.replace("/sse", "/elsewhere"), timeout=3)
    assert info.value.status == 404
    with socket.socket() as bound:  # bound, never listening: a connection to it is refused
        bound.bind(("127.0.0.1", 0))
        port = bound.getsockname()[1]
        with pytest.raises(ConnectionClosed, match=f"^could not connect to http://127.0.0.1:{port}/sse: nothing is "
                                                   f"listening at 127.0.0.1:{port} \\(connection refused\\); check"):
            Client.sse(f"http://127.0.0.1:{port}/sse", trace=new_tap(), timeout=2)


def test_many_clients_at_once(http: SseHttpServer, new_tap: Callable[[], Any]) -> None:
    errors: list[BaseException] = []

    def one(n: int) -> None:
        try:
            with Client.sse(http.url, trace=new_tap(), timeout=10) as client:
                for i in range(10):
                    assert client.call_tool("echo", {"text": f"{n}:{i}"})["content"][0]["text"] == f"{n}:{i}"
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(n,)) for n in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors
    deadline = time.monotonic() + 3
    while http.app.session_count and time.monotonic() < deadline:
        time.sleep(0.05)
    assert http.app.session_count == 0


# --- what a client is told when the server cannot be reached: one sentence, what to check ----------


class TcpPeer:
    """A TCP listener on 127.0.0.1 that is not an HTTP server: it closes each connection at once
    (``hang_up=True``), or holds it without a word until closed itself."""

    def __init__(self, hang_up: bool) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.held: list[socket.socket] = []
        self.hang_up = hang_up
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:  # closed
                return
            if self.hang_up:
                connection.close()
            else:
                self.held.append(connection)

    def close(self) -> None:
        self.listener.close()
        for connection in self.held:
            connection.close()


@pytest.mark.parametrize(("peer", "says"), [
    ("hangs up", "closed the connection without an HTTP answer; check that the port belongs to an HTTP server"),
    ("says nothing", "accepted the connection but sent no answer within 1 s; check that the URL is the server's "
                     "SSE endpoint"),
])
def test_a_peer_that_is_not_an_http_server_is_named_as_such(peer: str, says: str) -> None:
    tcp = TcpPeer(hang_up=peer == "hangs up")
    try:
        url = f"http://127.0.0.1:{tcp.port}/sse"
        with pytest.raises(ConnectionClosed) as caught:
            Client.sse(url, timeout=1)
        assert str(caught.value).startswith(f"could not connect to {url}: 127.0.0.1:{tcp.port} {says}")
    finally:
        tcp.close()


def test_https_to_a_plain_http_server_names_the_tls_handshake(http: SseHttpServer) -> None:
    url = http.url.replace("http://", "https://")
    with pytest.raises(ConnectionClosed) as caught:
        Client.sse(url, timeout=5)
    assert str(caught.value).startswith(f"could not connect to {url}: the TLS handshake with 127.0.0.1:{http.port} "
                                        "failed; check that the server speaks https (else write http://)")


def test_an_unknown_host_name_is_said_plainly() -> None:
    with pytest.raises(ConnectionClosed) as caught:
        Client.sse("http://no-such-host.invalid:8000/sse", timeout=5)  # .invalid never resolves (RFC 2606)
    assert str(caught.value) == ("could not connect to http://no-such-host.invalid:8000/sse: the host name "
                                 "'no-such-host.invalid' could not be resolved; check its spelling in the URL")


def test_a_post_to_a_server_that_went_away_is_one_sentence_without_the_session_id() -> None:
    http = make_server().sse_server()
    transport = SseClientTransport(http.url, timeout=5)
    try:
        endpoint = transport._endpoint
        session_id = endpoint.split("session_id=", 1)[1]
        http.close()  # the port is released: a new connection is refused
        with pytest.raises(ConnectionClosed) as caught:
            transport.send(json.dumps(INIT).encode(), timeout=5)
        message = str(caught.value)
        assert message.startswith(f"could not POST to {endpoint.split('?')[0]}: nothing is listening at 127.0.0.1:")
        assert session_id not in message and "session_id" not in message
    finally:
        transport.close()
        http.close()


# --- the HTTP server's request log -----------------------------------------------------------------


REQUEST_LINE = re.compile(r"^INFO mcp_ref\.http: 127\.0\.0\.1 (GET|POST) /\S* \d{3}$")


def serve_sse_logging_to(path: Any, *extra: str) -> tuple[subprocess.Popen[str], str]:
    """``mcp-ref serve --transport sse --port 0 EXTRA``, its stderr into the file ``path``
    (not a terminal: what a service manager or ``2> file`` gives it)."""
    with open(path, "w") as log_file:
        proc = subprocess.Popen(server_command() + ["--transport", "sse", "--port", "0", *extra],
                                stdout=subprocess.PIPE, stderr=log_file, text=True, cwd=ROOT)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert " at http" in line, line
    return proc, line.rsplit(" at ", 1)[1].strip()


def stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    proc.communicate(timeout=10)


def test_the_request_log_is_one_plain_line_per_request_without_the_session_id(tmp_path: Any) -> None:
    log_path = tmp_path / "stderr.log"
    proc, url = serve_sse_logging_to(log_path)
    try:
        stream = RawStream(url)
        event, endpoint = stream.next_event()
        session_id = endpoint.split("session_id=", 1)[1]
        messages = url.rsplit("/sse", 1)[0] + endpoint
        assert post(messages, INIT).status_code == 202
        assert post(messages, b"{not json").status_code == 400
        assert post(messages.replace(session_id, "0" * 32), INIT).status_code == 404
        with socket.create_connection(("127.0.0.1", int(url.split(":")[2].split("/")[0])), timeout=5) as raw:
            raw.sendall(f"GET /sse?session_id={session_id} junk HTTP/1.1\r\n\r\n".encode())  # malformed
            while raw.recv(4096):  # the server answers (an error page) and closes
                pass
        stream.close()
    finally:
        stop(proc)
    written = log_path.read_text()
    assert session_id not in written and "session_id" not in written and "\x1b" not in written
    requests_logged = [line for line in written.splitlines() if line.startswith("INFO mcp_ref.http")]
    assert [line.split(": ", 1)[1] for line in requests_logged[:4]] == [
        "127.0.0.1 GET /sse 200", "127.0.0.1 POST /messages/ 202", "127.0.0.1 POST /messages/ 400",
        "127.0.0.1 POST /messages/ 404"]
    assert all(REQUEST_LINE.match(line) for line in requests_logged[:4])
    assert "werkzeug" not in written
    assert "WARNING mcp_ref.http: 127.0.0.1 code 400, message Bad request syntax ('GET /sse?... junk HTTP/1.1')" in written


def test_serve_quiet_logs_no_request(tmp_path: Any) -> None:
    log_path = tmp_path / "stderr.log"
    proc, url = serve_sse_logging_to(log_path, "--quiet")
    try:
        with Client.sse(url, timeout=10) as client:
            client.ping()
    finally:
        stop(proc)
    assert "mcp_ref.http" not in log_path.read_text()


SERVE_SSE_SCRIPT = """
import sys
from mcp_ref.demo_server import server
server.serve_sse(port=0, on_ready=lambda url: print(url, flush=True), {options})
"""


@pytest.mark.parametrize("log_requests", [True, False])
def test_serve_sse_log_requests(log_requests: bool) -> None:
    """In a script that never configured logging: the lines are seen by default, and
    ``log_requests=False`` turns them off."""
    options = "" if log_requests else "log_requests=False"
    proc = subprocess.Popen([sys.executable, "-c", SERVE_SSE_SCRIPT.format(options=options)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        with Client.sse(url, timeout=10) as client:
            client.ping()
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    lines = err.splitlines()
    if log_requests:
        assert "INFO mcp_ref.http: 127.0.0.1 GET /sse 200" in lines and len(lines) >= 4  # GET, initialize...
        assert all(REQUEST_LINE.match(line) for line in lines)
    else:
        assert lines == []


def raw_post(port: int, target: str, body: bytes) -> int:
    """POST with http.client, which logs nothing itself (requests' urllib3 would log the URL:
    that would be this test's own log line, not the library's)."""
    connection = HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("POST", target, body, {"Content-Type": "application/json"})
        return connection.getresponse().status
    finally:
        connection.close()


def test_no_session_id_reaches_any_log(caplog: pytest.LogCaptureFixture) -> None:
    """Every logger at DEBUG, the request log on: a whole session, its errors, and a closed
    session's POST; no record holds a session id (32 hex digits)."""
    try:
        with caplog.at_level(logging.DEBUG):
            http = SseHttpServer(make_server().wsgi_app(), "127.0.0.1", 0, log_requests=True).start()
            try:
                with Client.sse(http.url, timeout=10) as client:
                    client.call_tool("echo", {"text": "hi"})
                    client.call_tool("log_then_answer", {"text": "logged"})
                stream = RawStream(http.url)
                _, endpoint = stream.next_event()
                assert raw_post(http.port, endpoint, b"{not json") == 400
                stream.close()
                deadline = time.monotonic() + 5
                while http.app.session_count and time.monotonic() < deadline:
                    time.sleep(0.02)
                assert raw_post(http.port, endpoint, json.dumps(INIT).encode()) == 404  # the session is over
            finally:
                http.close()
    finally:
        logging.getLogger("mcp_ref.http").setLevel(logging.NOTSET)  # as it was before this test
    logged = [record.getMessage() for record in caplog.records]
    assert any(record.name == "mcp_ref.http" for record in caplog.records)
    assert not [text for text in logged if re.search(r"[0-9a-f]{32}", text)]
    assert not [record for record in caplog.records if record.name.startswith("werkzeug")]


@pytest.mark.parametrize("mode", ["drops-a-kept-alive-connection", "resets-a-kept-alive-connection"])
def test_a_post_crossing_the_close_of_an_idle_connection_is_sent_once_more(mode: str) -> None:
    """A server that keeps connections alive and closes idle ones (uvicorn after 5 s) may close
    one just as our next POST goes out on it; the POST then fails with no byte of an answer
    (the server closed cleanly, or reset the connection). The server never answered it, so the
    client sends it once more, on a fresh connection, and the call succeeds
    (tests/peers/unruly_sse_server.py's drops- and resets- modes close one connection so)."""
    with running("unruly_sse_server.py", mode) as (url, said), Client.sse(url, timeout=10) as client:
        client.ping()
        client.ping()  # the server closes the connection under this POST; the resend is answered
        assert said.readline().strip() == "dropped"  # (so the resend was needed)
