"""basic/transports of revision 2025-03-26, Streamable HTTP: the MCP endpoint, its answers, sessions, the client.

https://modelcontextprotocol.io/specification/2025-03-26/basic/transports
Our werkzeug server on 127.0.0.1, port 0, in the test process (the same app serves /sse and
/messages/ beside /mcp); requests as the raw client, and our own Client.http. The messages are
those of 2024-11-05; every message our client sees is checked against its schema by the tap.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import requests

from mcp_ref import Client, ConnectionClosed, HttpError, McpError, RequestCancelled, RequestContext, RequestTimeout, Server
from mcp_ref.machinery.http.werkzeug_server import SseHttpServer
from mcp_ref.scaleout.relay import LocalRelay

from ..conftest import Waiters
from ..peers import running

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
BOTH = "application/json, text/event-stream"


def make_server() -> Server:
    server = Server("http-test")
    server.state = {"finished": threading.Event(), "headers": []}  # type: ignore[attr-defined]

    @server.tool()
    def echo(text: str) -> str:
        return text

    @server.tool()
    def steps(ctx: RequestContext, count: int = 3) -> str:
        for n in range(count):
            ctx.report_progress(n + 1, count)
            ctx.log("info", f"step {n + 1}")
        return "stepped"

    @server.tool()
    def wait(ctx: RequestContext, seconds: float) -> str:
        ctx.cancelled.wait(seconds)
        if not ctx.is_cancelled:
            server.state["finished"].set()  # type: ignore[attr-defined]
        return "waited"

    @server.tool()
    def ask(ctx: RequestContext, question: str) -> str:
        reply = ctx.create_message([question], 10, timeout=5)
        roots = ctx.list_roots(timeout=5)
        return f"{reply['content']['text']} {roots[0]['uri']}"

    return server


@pytest.fixture
def http() -> Iterator[SseHttpServer]:
    with make_server().sse_server(keepalive=0.3) as running:
        yield running


def url_of(http: SseHttpServer) -> str:
    assert http.mcp_url is not None
    return http.mcp_url


def post(url: str, body: Any, session: str | None = None, *, accept: str = BOTH, stream: bool = False,
         **headers: str) -> requests.Response:
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    sent = {"Content-Type": "application/json", "Accept": accept, **headers}
    if session is not None:
        sent["Mcp-Session-Id"] = session
    response = requests.post(url, data=data, headers=sent, timeout=5, stream=True)
    if not stream:  # the whole body, within 10 s: a stream's keepalives would keep a plain read going
        deadline, body = time.monotonic() + 10, b""
        for chunk in response.iter_content(chunk_size=65536):
            body += chunk
            assert time.monotonic() < deadline, f"the answer to {data[:100]!r} did not end within 10 s"
        response._content, response._content_consumed = body, True  # type: ignore[attr-defined]
    return response


def events(response: requests.Response) -> Iterator[tuple[str, str]]:
    """The events of an event stream, as they arrive: (event, data); comments as ("", text)."""
    event, data = "", ""
    for raw in response.iter_lines(chunk_size=1):
        line = raw.decode()
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: "):
            data = line[6:]
        elif line.startswith(":"):
            yield "", line
        elif line == "" and data:
            yield event, data
            event, data = "", ""


def ends_within(stream: Iterator[tuple[str, str]], seconds: float) -> bool:
    """Whether an event stream ends within ``seconds``, taking nothing but comments from it
    (keepalive comments come every 0.3 s, so each read returns in time)."""
    deadline = time.monotonic() + seconds
    for event, _ in stream:
        if event or time.monotonic() > deadline:
            return False
    return True


def messages_of(response: requests.Response, seconds: float = 10) -> list[Any]:
    """Every message of an event stream, which must end within ``seconds`` (keepalive comments,
    every 0.3 s in these tests, let the loop look at the clock)."""
    deadline, found = time.monotonic() + seconds, []
    for event, data in events(response):
        assert time.monotonic() < deadline, f"the stream did not end within {seconds:g} s"
        if event == "message":
            found.append(json.loads(data))
    return found


def start_session(url: str) -> str:
    answer = post(url, INIT)
    assert answer.status_code == 200, answer.text
    session = answer.headers["Mcp-Session-Id"]
    assert post(url, INITIALIZED, session).status_code == 202
    # answered in order after initialized: from here on the session is in operation
    assert post(url, {"jsonrpc": "2.0", "id": "ready", "method": "ping"}, session).json()["id"] == "ready"
    return session


def call(request_id: Any, name: str, arguments: dict[str, Any], **meta: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if meta:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def get_stream(url: str, session: str) -> requests.Response:
    return requests.get(url, headers={"Accept": "text/event-stream", "Mcp-Session-Id": session}, stream=True,
                        timeout=5)


# --- the server: the MCP endpoint ------------------------------------------------------------------


def test_initialize_is_answered_as_json_with_a_session_id(http: SseHttpServer) -> None:
    answer = post(url_of(http), INIT)
    assert answer.status_code == 200 and answer.headers["Content-Type"] == "application/json"
    assert answer.json()["result"]["protocolVersion"] == "2024-11-05"  # 2024-11-05 messages, 2025-03-26 transport
    session = answer.headers["Mcp-Session-Id"]  # SHTTP-34
    assert len(session) == 32 and int(session, 16) >= 0  # SHTTP-35, 36: 128 random bits, hex
    other = post(url_of(http), INIT).headers["Mcp-Session-Id"]
    assert other != session and http.app.streamable is not None and http.app.streamable.session_count == 2


def test_notifications_and_responses_are_accepted_with_202_and_no_body(http: SseHttpServer) -> None:
    session = start_session(url_of(http))  # notifications/initialized: 202
    answer = post(url_of(http), {"jsonrpc": "2.0", "id": "no-such-request", "result": {}}, session)
    assert answer.status_code == 202 and answer.content == b""  # SHTTP-12


def test_what_the_endpoint_refuses_and_how(http: SseHttpServer) -> None:
    url = url_of(http)
    session = start_session(url)
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    assert post(url, ping).json() == {"jsonrpc": "2.0", "id": 2, "result": {}}  # PING-01: a ping needs no session
    sessionless = post(url, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
    assert sessionless.status_code == 400 and sessionless.json()["id"] == 3  # SHTTP-38: its own id, to tell
    assert "no Mcp-Session-Id" in sessionless.json()["error"]["message"]
    checks = [
        (post(url, {"jsonrpc": "2.0", "method": "notifications/x"}), 400, "no Mcp-Session-Id"),  # SHTTP-38
        (post(url, ping, "0" * 32), 404, "Session not found"),  # SHTTP-39
        (post(url, ping, session, accept="application/json"), 406, "Accept"),  # SHTTP-10
        (post(url, ping, session, accept="text/event-stream"), 406, "Accept"),
        (post(url, ping, session, **{"Content-Type": "text/plain"}), 415, "application/json"),
        (post(url, b"{not json", session), 400, "Parse error"),  # SHTTP-13
        (post(url, b'{"jsonrpc":"2.0","id":4,"method":"ping","params":{"a":"\xff"}}', session), 400, "not UTF-8"),  # SHTTP-01
        (post(url, [ping], session), 400, "batch"),  # SHTTP-11
        (post(url, {"jsonrpc": "2.0", "id": 3}, session), 400, "Invalid Request"),
        (post(url, b"[" + b"1," * (3 * 1024 * 1024) + b"1]", session), 413, "4194304"),
        (post(url, ping, session, Origin="http://evil.example"), 403, "Origin"),  # SHTTP-06
        (post(url, ping, session, Host="evil.example"), 421, "Host"),
        (post(url, ping, session, **{"MCP-Protocol-Version": "1999-01-01"}), 400, "1999-01-01"),
        (requests.put(url, data="{}", timeout=5), 405, "POST, GET or DELETE"),  # SHTTP-05
        (requests.get(url, headers={"Accept": "text/event-stream"}, timeout=5), 400, "no Mcp-Session-Id"),
        (requests.get(url, headers={"Accept": "application/json", "Mcp-Session-Id": session}, timeout=5), 406, ""),
        (requests.delete(url, headers={"Mcp-Session-Id": "0" * 32}, timeout=5), 404, "Session not found"),
    ]
    for response, status, says in checks:
        assert response.status_code == status, (response.request.method, response.text)
        error = response.json()  # SHTTP-13: every refusal is a JSON-RPC error, id null
        assert error["id"] is None and says in error["error"]["message"], error
    assert checks[12][0].headers.get("Allow") is None and checks[13][0].headers["Allow"] == "GET, POST, DELETE"
    for origin in ("http://localhost:3000", "http://127.0.0.1", "https://[::1]:8443"):
        assert post(url, ping, session, Origin=origin).json() == {"jsonrpc": "2.0", "id": 2, "result": {}}
    # after all that, the session serves as before
    assert post(url, ping, session, **{"MCP-Protocol-Version": "2024-11-05"}).json()["id"] == 2


def test_a_quick_answer_is_plain_json(http: SseHttpServer) -> None:
    session = start_session(url_of(http))
    answer = post(url_of(http), call(7, "echo", {"text": "hi"}), session)  # SHTTP-14
    assert answer.status_code == 200 and answer.headers["Content-Type"] == "application/json"
    assert answer.json() == {"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "hi"}]}}


def test_what_a_request_sends_before_its_answer_comes_first_on_its_own_stream(http: SseHttpServer) -> None:
    url = url_of(http)
    session = start_session(url)
    assert post(url, {"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "info"}},
                session).status_code == 200
    answer = post(url, call("s", "steps", {"count": 2}, progressToken="tok"), session, stream=True)
    assert answer.headers["Content-Type"].startswith("text/event-stream")  # SHTTP-16
    assert answer.headers["Cache-Control"] == "no-cache"
    got = messages_of(answer)  # the stream ends after the answer (SHTTP-19): this returns
    assert [m.get("method", "answer") for m in got] == [  # SHTTP-17: the request's own messages first
        "notifications/progress", "notifications/message", "notifications/progress", "notifications/message",
        "answer"]
    assert got[0]["params"] == {"progressToken": "tok", "progress": 1, "total": 2}
    assert got[-1] == {"jsonrpc": "2.0", "id": "s", "result": {"content": [{"type": "text", "text": "stepped"}]}}


def test_the_get_stream_carries_what_belongs_to_no_request_and_never_an_answer(http: SseHttpServer) -> None:
    url = url_of(http)
    session = start_session(url)
    listening = get_stream(url, session)  # SHTTP-23, 24
    assert listening.status_code == 200 and listening.headers["Content-Type"].startswith("text/event-stream")
    received = events(listening)
    assert next(received)[0] == ""  # the opening comment: the headers came at once
    server = http.app.server

    @server.tool()
    def added() -> str:  # list_changed, to every session: SHTTP-26
        return "x"

    assert next(received) == ("message", '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}')
    assert post(url, call(9, "echo", {"text": "on the POST"}), session).json()["id"] == 9  # SHTTP-27
    assert next(received) == ("", ": keepalive")  # nothing else came on the GET stream
    listening.close()


def test_each_message_goes_on_one_stream_only(http: SseHttpServer) -> None:
    url = url_of(http)
    session = start_session(url)
    first = events(get_stream(url, session))
    assert next(first)[0] == ""
    second_response = get_stream(url, session)
    second = events(second_response)
    assert next(second)[0] == ""
    assert ends_within(first, 3)  # SHTTP-30: the newer GET stream took the place of the older, which ended
    http.app.server.tools.remove("echo")
    assert next(second) == ("message", '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}')
    second_response.close()


def test_what_comes_while_no_get_stream_is_open_waits_for_one(http: SseHttpServer) -> None:
    url = url_of(http)
    session = start_session(url)
    http.app.server.tools.remove("echo")  # no GET stream yet: it waits
    received = events(get_stream(url, session))
    assert next(received)[0] == ""
    assert next(received) == ("message", '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}')


def test_cancelling_a_request_ends_its_stream_and_leaving_does_not_cancel(http: SseHttpServer) -> None:
    url = url_of(http)
    session = start_session(url)
    waiting = post(url, call(5, "wait", {"seconds": 30}), session, stream=True)
    assert waiting.headers["Content-Type"].startswith("text/event-stream")
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5, "reason": "stop"}}
    assert post(url, cancel, session).status_code == 202
    assert messages_of(waiting) == []  # the stream ended, with no answer (CAN-06)
    # SHTTP-20: a client that goes away does not cancel its request
    server_state = http.app.server.state  # type: ignore[attr-defined]
    gone = post(url, call(6, "wait", {"seconds": 0.5}), session, stream=True)
    gone.close()
    assert server_state["finished"].wait(5)


def test_delete_ends_the_session(http: SseHttpServer) -> None:
    url = url_of(http)
    session = start_session(url)
    assert http.app.streamable is not None and http.app.streamable.session_count == 1
    assert requests.delete(url, headers={"Mcp-Session-Id": session}, timeout=5).status_code == 200  # SHTTP-41
    assert http.app.streamable.session_count == 0
    assert post(url, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, session).status_code == 404  # SHTTP-39


def test_unused_sessions_end_and_sessions_are_bounded() -> None:
    server = make_server()
    with server.sse_server(streamable_options={"idle_timeout": 0.3, "max_sessions": 2}) as http:
        url = url_of(http)
        app = http.app.streamable
        assert app is not None
        first, _ = start_session(url), start_session(url)
        refused = post(url, INIT)
        assert refused.status_code == 503 and refused.headers["Retry-After"] == "5"
        deadline = time.monotonic() + 5
        while app.session_count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert app.session_count == 0  # both went unused for idle_timeout
        assert post(url, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, first).status_code == 404
        start_session(url)


def test_a_request_whose_id_is_in_use_is_refused_and_the_first_keeps_its_stream(http: SseHttpServer) -> None:
    url = url_of(http)
    session = start_session(url)
    first = post(url, call(5, "wait", {"seconds": 0.5}), session, stream=True)
    second = post(url, call(5, "echo", {"text": "again"}), session)
    assert second.json()["error"]["code"] == -32600 and "already in use" in second.json()["error"]["message"]
    assert messages_of(first)[-1]["result"]["content"][0]["text"] == "waited"


def test_a_failed_initialize_leaves_no_session(http: SseHttpServer) -> None:
    bad = {**INIT, "params": {"capabilities": {}}}  # no protocolVersion
    answer = post(url_of(http), bad)
    assert "error" in answer.json()
    deadline = time.monotonic() + 3
    while http.app.streamable.session_count and time.monotonic() < deadline:  # type: ignore[union-attr]
        time.sleep(0.05)
    assert http.app.streamable.session_count == 0  # type: ignore[union-attr]


def test_one_app_serves_both_transports(http: SseHttpServer, new_tap: Callable[[], Any]) -> None:
    # SHTTP-42: clients of HTTP with SSE reach the same server, at /sse, at the same time
    with Client.sse(http.url, trace=new_tap(), timeout=5) as old, Client.http(url_of(http), trace=new_tap(), timeout=5) as new:
        assert old.call_tool("echo", {"text": "old"})["content"][0]["text"] == "old"
        assert new.call_tool("echo", {"text": "new"})["content"][0]["text"] == "new"
        assert type(new.session._transport).__name__ == "StreamableHttpClientTransport"


# --- the client ---------------------------------------------------------------------------------------


class Recorder:
    """WSGI middleware that keeps (method, headers) of every request to the MCP endpoint."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.seen: list[tuple[str, dict[str, str]]] = []

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if environ["PATH_INFO"] == "/mcp":
            headers = {k[5:].replace("_", "-").lower(): v for k, v in environ.items() if k.startswith("HTTP_")}
            headers["content-type"] = environ.get("CONTENT_TYPE", "")
            self.seen.append((environ["REQUEST_METHOD"], headers))
        return self.app(environ, start_response)


@pytest.fixture
def recorded() -> Iterator[tuple[str, Recorder, Server]]:
    from werkzeug.serving import make_server as werkzeug_server

    server = make_server()
    app = server.wsgi_app(keepalive=0.3)
    recorder = Recorder(app)
    wsgi = werkzeug_server("127.0.0.1", 0, recorder, threaded=True)
    thread = threading.Thread(target=wsgi.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{wsgi.server_port}/mcp", recorder, server
    finally:
        app.close()
        wsgi.shutdown()
        wsgi.server_close()


def test_the_client_posts_each_message_with_its_headers_and_deletes_the_session_on_close(
        recorded: tuple[str, Recorder, Server], tap: Any) -> None:
    url, recorder, _ = recorded
    with Client.http(url, trace=tap, timeout=5, headers={"Authorization": "Bearer t0ken"}) as client:
        assert client.protocol_version == "2025-11-25"
        assert client.call_tool("echo", {"text": "hi"})["content"][0]["text"] == "hi"
        session = client.session._transport.session_id  # type: ignore[attr-defined]
    posts = [headers for method, headers in recorder.seen if method == "POST"]
    assert len(posts) == 3  # initialize, initialized, tools/call: one POST each (SHTTP-09)
    for headers in posts:
        assert headers["accept"] == "application/json, text/event-stream"  # SHTTP-10
        assert headers["content-type"] == "application/json"
        assert headers["authorization"] == "Bearer t0ken"  # headers=: SHTTP-08's authentication
    assert "mcp-session-id" not in posts[0] and "mcp-protocol-version" not in posts[0]
    assert all(h["mcp-session-id"] == session and h["mcp-protocol-version"] == "2025-11-25" for h in posts[1:])  # SHTTP-37
    gets = [headers for method, headers in recorder.seen if method == "GET"]
    assert gets and gets[0]["accept"] == "text/event-stream" and gets[0]["mcp-session-id"] == session  # SHTTP-23, 24
    assert recorder.seen[-1][0] == "DELETE" and recorder.seen[-1][1]["mcp-session-id"] == session  # SHTTP-41


def test_the_client_takes_json_and_event_stream_answers_and_server_requests_on_them(
        recorded: tuple[str, Recorder, Server], tap: Any) -> None:
    url, _, server = recorded
    logs: list[Any] = []
    progress: list[Any] = []
    changes: list[str] = []
    with Client.http(url, trace=tap, timeout=5, on_log_message=logs.append, on_list_changed=changes.append,
                     sampling_handler=lambda params: "sampled", roots=[{"uri": "file:///r"}]) as client:
        client.set_logging_level("info")
        result = client.call_tool("steps", {"count": 2}, on_progress=progress.append)  # SHTTP-15: a stream
        assert result["content"][0]["text"] == "stepped"
        assert [p["progress"] for p in progress] == [1, 2] and [entry["data"] for entry in logs] == ["step 1", "step 2"]
        assert client.call_tool("ask", {"question": "q"})["content"][0]["text"] == "sampled file:///r"

        @server.tool()
        def added() -> str:  # list_changed arrives on the GET stream
            return "x"

        deadline = time.monotonic() + 5
        while not changes and time.monotonic() < deadline:
            time.sleep(0.02)
        assert changes == ["tools"]
    assert tap.methods("<-").count("sampling/createMessage") == 1 and "roots/list" in tap.methods("<-")


def test_a_request_times_out_and_is_cancelled_and_cancel_works_from_another_thread(
        recorded: tuple[str, Recorder, Server], tap: Any) -> None:
    url, _, server = recorded
    with Client.http(url, trace=tap, timeout=5) as client:
        started = time.monotonic()
        with pytest.raises(RequestTimeout):
            client.call_tool("wait", {"seconds": 10}, timeout=0.3)
        assert time.monotonic() - started < 3
        pending = client.session.start_request("tools/call", {"name": "wait", "arguments": {"seconds": 10}})
        threading.Timer(0.2, pending.cancel, args=("the user pressed stop",)).start()
        with pytest.raises(RequestCancelled):
            pending.result(5)
        assert client.ping() is None  # the session carries on
    cancels = [m for d, m in tap.messages if d == "->" and m.get("method") == "notifications/cancelled"]
    assert [c["params"]["reason"] for c in cancels] == ["timed out after 0.3 s", "the user pressed stop"]
    assert not server.state["finished"].is_set()  # type: ignore[attr-defined]  # both were cancelled


def test_when_the_server_forgets_the_session_waiting_calls_fail_saying_it_expired(
        http: SseHttpServer, new_tap: Callable[[], Any]) -> None:
    client = Client.http(url_of(http), trace=new_tap(), timeout=10)
    app = http.app.streamable
    assert app is not None
    waiters = Waiters(lambda: client.call_tool("wait", {"seconds": 10}), 2)
    time.sleep(0.3)
    with app._table._lock:  # the server restarts, as far as this session knows: it is forgotten
        app._table._sessions.clear()
        app.relay = LocalRelay()
    started = time.monotonic()
    with pytest.raises(ConnectionClosed, match="session expired"):  # SHTTP-39, 40
        client.ping()
    failures = waiters.join(5)
    assert len(failures) == 2 and all(isinstance(e, McpError) and e.code == -32000 for e in failures)
    assert time.monotonic() - started < 4
    with pytest.raises(ConnectionClosed, match="session expired"):
        client.ping()
    client.close()


def test_a_server_that_goes_away_fails_every_waiting_call_at_once(new_tap: Callable[[], Any]) -> None:
    running = make_server().sse_server()
    assert running.mcp_url is not None
    client = Client.http(running.mcp_url, trace=new_tap(), timeout=30)
    waiters = Waiters(lambda: client.call_tool("wait", {"seconds": 30}), 3)
    time.sleep(0.3)
    started = time.monotonic()
    running.close()
    failures = waiters.join(5)
    assert time.monotonic() - started < 4
    assert len(failures) == 3 and all(isinstance(e, McpError) and e.code == -32000 for e in failures), failures
    with pytest.raises(ConnectionClosed):
        client.ping()
    client.close()


def test_client_http_falls_back_to_http_with_sse_on_a_4xx(http: SseHttpServer, new_tap: Callable[[], Any]) -> None:
    # SHTTP-43: the old transport's URL answers the initialize POST with 405
    with Client.http(http.url, trace=new_tap(), timeout=5) as client:
        assert type(client.session._transport).__name__ == "SseClientTransport"
        assert client.call_tool("echo", {"text": "old"})["content"][0]["text"] == "old"
    with pytest.raises(HttpError) as info:
        Client.http(http.url, timeout=5, fallback=False)
    assert info.value.status == 405


def test_401_and_403_are_not_an_older_server(new_tap: Callable[[], Any]) -> None:
    from werkzeug.serving import make_server as werkzeug_server

    app = make_server().wsgi_app()

    def guarded(environ: dict[str, Any], start_response: Any) -> Any:
        if environ.get("HTTP_AUTHORIZATION") != "Bearer right":
            start_response("401 Unauthorized", [("Content-Type", "text/plain"), ("WWW-Authenticate", "Bearer")])
            return [b"who are you?"]
        return app(environ, start_response)

    wsgi = werkzeug_server("127.0.0.1", 0, guarded, threaded=True)
    threading.Thread(target=wsgi.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{wsgi.server_port}/mcp"
    try:
        with pytest.raises(HttpError) as info:
            Client.http(url, timeout=5)
        assert info.value.status == 401 and "who are you?" in info.value.message  # no fallback tried
        with Client.http(url, trace=new_tap(), timeout=5, headers={"Authorization": "Bearer right"}) as client:
            client.ping()
    finally:
        app.close()
        wsgi.shutdown()
        wsgi.server_close()


def test_ping_interval_hangs_up_on_a_server_that_stops_answering(
        recorded: tuple[str, Recorder, Server], tap: Any) -> None:
    url, recorder, _ = recorded
    client = Client.http(url, trace=tap, timeout=5, ping_interval=0.2)
    original = recorder.app

    def frozen(environ: dict[str, Any], start_response: Any) -> Any:
        if environ["REQUEST_METHOD"] == "POST":
            time.sleep(2)  # never in time for a ping
        return original(environ, start_response)

    recorder.app = frozen
    assert client.session.closed.wait(5)  # PING-09 over this transport too
    assert "ping" in (client.session.close_reason or "")
    client.close()


# --- hostile servers: what our client does with them ----------------------------------------------------


class FakePeer:
    """A Streamable HTTP "server" that answers initialize properly and everything else as
    ``behave(method, body, start_response)`` says: a WSGI app on werkzeug, 127.0.0.1, port 0."""

    def __init__(self, behave: Callable[[str, dict[str, Any], Any], Any], session_id: str = "s-1") -> None:
        from werkzeug.serving import make_server as werkzeug_server

        self.behave = behave
        self.session_id = session_id
        self.wsgi = werkzeug_server("127.0.0.1", 0, self, threaded=True)
        threading.Thread(target=self.wsgi.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.wsgi.server_port}/mcp"

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        method = environ["REQUEST_METHOD"]
        if method != "POST":
            start_response("405 Method Not Allowed", [("Allow", "POST")])
            return [b""]
        body = json.loads(environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0)))
        if body.get("method") == "initialize":
            result = {"protocolVersion": "2024-11-05", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "fake", "version": "0"}}
            start_response("200 OK", [("Content-Type", "application/json"), ("Mcp-Session-Id", self.session_id)])
            return [json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": result}).encode()]
        if "id" not in body or "method" not in body:
            start_response("202 Accepted", [])
            return [b""]
        return self.behave(body["method"], body, start_response)

    def close(self) -> None:
        self.wsgi.shutdown()
        self.wsgi.server_close()


def test_a_session_id_that_is_not_visible_ascii_is_refused() -> None:
    peer = FakePeer(lambda method, body, start: None, session_id="bad id")  # a space: not 0x21..0x7E
    try:
        with pytest.raises(ConnectionClosed, match="visible ASCII"):  # SHTTP-36
            Client.http(peer.url, timeout=5, fallback=False)
    finally:
        peer.close()


def test_requests_to_a_frozen_server_time_out_on_their_own_timeouts(new_tap: Callable[[], Any]) -> None:
    release = threading.Event()

    def frozen(method: str, body: dict[str, Any], start: Any) -> Any:
        release.wait(10)  # never answers in time: not even the headers
        start("500 Internal Server Error", [])
        return [b""]

    peer = FakePeer(frozen)
    try:
        with Client.http(peer.url, trace=new_tap(), timeout=5, fallback=False) as client:
            started = time.monotonic()
            with pytest.raises(RequestTimeout):  # LC-24: the POST is bounded by the request's own timeout
                client.call_tool("anything", timeout=0.5)
            assert time.monotonic() - started < 3
    finally:
        release.set()
        peer.close()


def test_what_a_misbehaving_server_sends_fails_the_call_and_says_why(new_tap: Callable[[], Any]) -> None:
    def misbehave(method: str, body: dict[str, Any], start: Any) -> Any:
        name = body["params"]["name"]
        if name == "accepted":  # a request answered 202: no answer will ever come
            start("202 Accepted", [])
            return [b""]
        if name == "html":
            start("200 OK", [("Content-Type", "text/html")])
            return [b"<html>hello</html>"]
        if name == "huge":  # one event over the limit
            start("200 OK", [("Content-Type", "text/event-stream")])
            return [b"event: message\ndata: " + b"x" * (2 * 1024 * 1024) + b"\n\n"]
        if name == "cut":  # the stream ends before the answer
            start("200 OK", [("Content-Type", "text/event-stream")])
            log = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}}
            return [b"event: message\ndata: " + json.dumps(log).encode() + b"\n\n"]
        start("500 Internal Server Error", [("Content-Type", "application/json")])
        return [json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32603, "message": "boom inside"}}).encode()]

    peer = FakePeer(misbehave)
    try:
        client = Client.http(peer.url, trace=new_tap(), timeout=5, fallback=False)
        client.session._transport.max_message_bytes = 1024 * 1024  # type: ignore[attr-defined]
        with client:
            for name, says in (("accepted", "HTTP 202"), ("huge", "larger than"), ("cut", "ended the stream")):
                started = time.monotonic()
                with pytest.raises(McpError, match=says) as info:
                    client.call_tool(name)
                assert info.value.code == -32000 and time.monotonic() - started < 4  # at once, not at the timeout
            with pytest.raises(HttpError, match="text/html"):
                client.call_tool("html")
            with pytest.raises(HttpError, match="boom inside") as failed:  # the JSON-RPC error's own words
                client.call_tool("other")
            assert failed.value.status == 500
    finally:
        peer.close()


def test_mcp_ref_serve_transport_http_serves_both_on_localhost(new_tap: Callable[[], Any]) -> None:
    from ..conftest import SseServerProcess

    server = SseServerProcess("mcp_ref.demo_server:server", "--transport", "http")
    try:
        assert server.url.startswith("http://127.0.0.1:") and server.url.endswith("/mcp")  # SHTTP-07
        second = server.proc.stdout.readline() if server.proc.stdout is not None else ""
        assert second.strip().endswith(server.url.replace("/mcp", "/sse"))  # SHTTP-42: the same app
        with Client.http(server.url, trace=new_tap(), timeout=10, fallback=False) as client:
            assert client.call_tool("add", {"a": 2, "b": 3})["content"][0]["text"] == "5"
    finally:
        server.close()


def test_no_session_id_reaches_any_log(caplog: pytest.LogCaptureFixture) -> None:
    """Every logger at DEBUG, the request log on: a whole Streamable HTTP session (the GET stream,
    DELETE), a refused body, an ended session's POST; no record holds a session id (SHTTP-35:
    the id grants the session)."""
    import logging
    import re

    try:
        with caplog.at_level(logging.DEBUG):
            http = SseHttpServer(make_server().wsgi_app(keepalive=0.3), "127.0.0.1", 0, log_requests=True).start()
            try:
                url = url_of(http)
                with Client.http(url, timeout=10, fallback=False) as client:
                    client.call_tool("echo", {"text": "hi"})
                    session = client.session._transport.session_id  # type: ignore[attr-defined]
                    assert post(url, b"{not json", session).status_code == 400
                assert post(url, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, session).status_code == 404
            finally:
                http.close()
    finally:
        logging.getLogger("mcp_ref.http").setLevel(logging.NOTSET)  # as it was before this test
    logged = [record.getMessage() for record in caplog.records]
    assert session and not [text for text in logged if session in text or re.search(r"[0-9a-f]{32}", text)]


def test_what_waits_for_a_stream_is_bounded_in_messages_and_bytes() -> None:
    """The per-stream bound (max_queued, max_queued_bytes) and the backlog's, on the objects
    themselves: a sender finds no room and gives the stream up after its timeout; one message
    larger than the byte bound still goes alone; the backlog drops its oldest."""
    from mcp_ref.streamable_http.session_transport import LocalStream, SessionTransport

    stream = LocalStream(max_queued=100, sock=None, max_queued_bytes=1000)
    stream.put(b"x" * 600, 0.1)
    started = time.monotonic()
    with pytest.raises(TimeoutError, match="600 bytes unread"):  # 600 + 600 > 1000, and nobody reads
        stream.put(b"y" * 600, 0.2)
    assert 0.2 <= time.monotonic() - started < 2 and stream.gone
    alone = LocalStream(max_queued=100, sock=None, max_queued_bytes=1000)
    alone.put(b"z" * 5000, 0.1)  # larger than the bound, but nothing else waits: it goes
    assert alone.get(0) == b"z" * 5000
    counted = LocalStream(max_queued=2, sock=None, max_queued_bytes=10**6)
    counted.put(b"1", 0.1)
    counted.put(b"2", 0.1)
    with pytest.raises(TimeoutError, match="2 messages unread"):
        counted.put(b"3", 0.1)
    transport = SessionTransport("s", max_queued=3, max_in_flight=1, max_queued_bytes=1000)
    for n in range(5):  # no GET stream open: they wait, the oldest dropped beyond the bounds
        transport.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/x", "params": {"n": n, "pad": "p" * 300}}).encode())
    kept = [json.loads(data)["params"]["n"] for data in transport._backlog]
    assert kept == [3, 4] and transport._backlog_bytes <= 1000  # 3 of ~340 bytes would pass 1000


@pytest.mark.parametrize("mode", ["drops-a-kept-alive-connection", "resets-a-kept-alive-connection"])
def test_a_request_crossing_the_close_of_an_idle_connection_is_sent_once_more(mode: str) -> None:
    """A server that closes kept-alive connections when idle (Node and uvicorn after 5 s) may
    close one just as our next POST goes out on it: the POST fails with no byte of an answer,
    the server having closed the connection cleanly (the client reads its end) or with a reset.
    Either way the server never answered it, so the client sends it once more, on a fresh
    connection, and the call succeeds (tests/peers/unruly_http_server.py, its drops- and
    resets- modes, closes one connection under the request that follows a ping)."""
    with running("unruly_http_server.py", mode) as (url, said), Client.http(url, timeout=10, fallback=False) as client:
        client.ping()
        client.ping()  # the server closes the connection under this one, then answers its resend
        assert said.readline().strip() == "dropped"  # (so the resend was needed)


@pytest.mark.parametrize("method", ["get", "delete"])
def test_a_get_or_delete_crossing_the_close_of_an_idle_connection_is_sent_once_more(method: str) -> None:
    """The same for the other requests a client sends on a kept-alive connection: the GET that
    opens the stream takes the connection the initialize POST left idle (had it failed, the
    whole connection would end, as a server that cannot be reached does: the conformance
    suite's Node server did that to a loaded run), and the DELETE at close may take the last
    POST's. The server closes the connection under the first GET, or DELETE; the client sends it
    once more on a fresh connection: the session works on, and the DELETE reaches the server."""
    with running("unruly_http_server.py", f"drops-the-{method}-on-a-kept-alive-connection") as (url, said):
        with Client.http(url, timeout=10, fallback=False) as client:
            client.ping()
            client.ping()
        lines = threading.Thread(target=lambda: heard.extend([said.readline(), said.readline()]), daemon=True)
        heard: list[str] = []
        lines.start()  # (read on a thread: a DELETE that never came must not hang the test)
        lines.join(10)
        assert [line.strip() for line in heard] == ["dropped", "deleted"]  # resent, and the session ended
