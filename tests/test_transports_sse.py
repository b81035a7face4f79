"""basic/transports#http-with-sse: the event stream, the POST endpoint, status codes, sessions.

https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse
A real werkzeug server on 127.0.0.1, port 0, in the test process; requests as the raw client.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import requests

from mcp_ref import Client, ConnectionClosed, RequestContext, Server
from mcp_ref.machinery.relay import LocalRelay
from mcp_ref.sse import HttpError, SseHttpServer

from .conftest import Waiters

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
    event, data = stream.next_event()
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
    assert stream.next_event() == ("message", '{"jsonrpc":"2.0","id":"p","result":{}}')


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
    http.app.relay = LocalRelay()  # the session vanishes server-side, as after a restart behind a balancer
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
    with pytest.raises(ConnectionClosed, match="could not open the event stream"):
        Client.sse("http://127.0.0.1:9/sse", trace=new_tap(), timeout=2)


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
