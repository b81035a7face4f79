"""Deliverers read (crew.py, rule 8): under mcp_ref's own HTTP server, the thread of a POST reads
and runs the message it delivered once its 202 has gone out; under any other WSGI server a
member of the session's crew does, as before.

Not one spec page: the engine's promises (every request answered once, in order; a long
request never stops the reading; no more than ``max_workers`` requests at once) kept on a new
path. Real servers on 127.0.0.1 (ours, and the standard library's threaded ``wsgiref`` for
"any other WSGI server"), raw HTTP as the client. The first test fails if rule 8 is removed;
the others fail if it breaks a promise.
"""

from __future__ import annotations

import contextlib
import json
import socketserver
import threading
import time
from collections.abc import Iterator
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import pytest

from mcp_ref import RequestContext, Server

from .test_crew_nudged import INITIALIZED, next_message
from .test_transports_sse import INIT, RawStream, post

PROMPTLY = 1.0  # seconds: "at once" on a loaded machine, and far below HOLD
HOLD = 5.0  # seconds a held call runs unless released


class Quiet(WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


class ThreadedWsgiref(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True


@contextlib.contextmanager
def served(server: Server, kind: str) -> Iterator[str]:
    """The SSE URL of ``server`` served by ``kind``: "ours" (SseHttpServer, werkzeug underneath)
    or "wsgiref" (a WSGI server that does not promise WORK_AFTER_RESPONSE)."""
    if kind == "ours":
        with server.sse_server(keepalive=0.3) as http:
            yield http.url
        return
    app = server.wsgi_app(keepalive=0.3)
    http = make_server("127.0.0.1", 0, app, server_class=ThreadedWsgiref, handler_class=Quiet)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{http.server_port}/sse"
    finally:
        app.close()
        http.shutdown()
        http.server_close()


@contextlib.contextmanager
def session(url: str) -> Iterator[tuple[RawStream, str]]:
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


def call(request_id: int, name: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": name, "arguments": {}}}


class Watched:
    """A server whose tools say which thread ran them, and hold until released, counting how
    many run at once."""

    def __init__(self, max_workers: int = 16) -> None:
        self.server = Server("deliverers", max_workers=max_workers)
        self.release = threading.Event()
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0
        self.started = threading.Semaphore(0)

        @self.server.tool()
        def where() -> str:
            return threading.current_thread().name

        @self.server.tool()
        def hold(ctx: RequestContext) -> str:
            with self.lock:
                self.running += 1
                self.most = max(self.most, self.running)
            self.started.release()
            try:
                self.release.wait(HOLD)
            finally:
                with self.lock:
                    self.running -= 1
            return "held"


@pytest.mark.parametrize("kind, on_post_thread", [("ours", True), ("wsgiref", False)])
def test_who_runs_a_request_depends_on_what_the_server_promises(kind: str, on_post_thread: bool) -> None:
    """Under our server a quick request runs on the thread of its POST (not a crew member, whose
    names start with the session's name); under another server, on a member."""
    watched = Watched()
    with served(watched.server, kind) as url, session(url) as (stream, endpoint):
        names = []
        for n in range(2, 12):
            assert post(endpoint, call(n, "where")).status_code == 202
            answer = next_message(stream)
            assert answer["id"] == n
            names.append(answer["result"]["content"][0]["text"])
    members = [name for name in names if name.startswith("deliverers-")]
    if on_post_thread:
        assert not members, names  # (rule 8 removed: every request would run on "deliverers-reader-1")
    else:
        assert len(members) == len(names), names


def test_a_long_request_on_a_post_s_thread_is_acknowledged_at_once_and_does_not_stop_the_reading() -> None:
    """The 202 goes out before the request runs; while it runs, a ping is answered at once (the
    standby takes the reading over, rule 3), and the answers come in the order they were made."""
    watched = Watched()
    with served(watched.server, "ours") as url, session(url) as (stream, endpoint):
        start = time.monotonic()
        assert post(endpoint, call(2, "hold")).status_code == 202
        assert time.monotonic() - start < PROMPTLY, "the 202 waited for the request to end"
        assert watched.started.acquire(timeout=HOLD)
        start = time.monotonic()
        assert post(endpoint, {"jsonrpc": "2.0", "id": 3, "method": "ping"}).status_code == 202
        assert next_message(stream) == {"jsonrpc": "2.0", "id": 3, "result": {}}
        assert time.monotonic() - start < PROMPTLY, "the ping waited for the long request"
        watched.release.set()
        assert next_message(stream)["id"] == 2


@pytest.mark.parametrize("kind", ["ours", "wsgiref"])
def test_many_long_requests_at_once_never_run_more_than_max_workers(kind: str) -> None:
    """Eight held calls POSTed together, with ``max_workers=3``: never more than three run at
    once (a POST's thread counts while it reads and runs), and every call is answered once,
    either when released or refused with an error."""
    watched = Watched(max_workers=3)
    with served(watched.server, kind) as url, session(url) as (stream, endpoint):
        posts = [threading.Thread(target=post, args=(endpoint, call(n, "hold"))) for n in range(2, 10)]
        for thread in posts:
            thread.start()
        for thread in posts:
            thread.join(PROMPTLY * 5)
        time.sleep(0.3)  # what can start has started
        assert watched.most <= 3, f"{watched.most} requests ran at once"
        watched.release.set()
        answered = sorted(next_message(stream)["id"] for _ in range(8))
    assert answered == list(range(2, 10))
    assert watched.most <= 3, f"{watched.most} requests ran at once"


def test_messages_of_one_client_are_handled_in_the_order_it_sent_them() -> None:
    """Forty pings POSTed one after another, each read by whichever thread finds the reading
    free (its own POST's, or one still reading the last): answered in the order sent."""
    watched = Watched()
    with served(watched.server, "ours") as url, session(url) as (stream, endpoint):
        for n in range(2, 42):
            assert post(endpoint, {"jsonrpc": "2.0", "id": n, "method": "ping"}).status_code == 202
        assert [next_message(stream)["id"] for _ in range(40)] == list(range(2, 42))


def test_a_message_with_no_deliverer_to_read_it_is_read_by_the_crew() -> None:
    """Rule 8's other half, on the transport's own class: while the reading rests, a message
    queued with nobody to read after it (one from the relay, the end of input) makes a member
    take the reading up at once."""
    from mcp_ref.sse import _StreamTransport

    watched = Watched()
    transport = _StreamTransport(100, None)
    transport.deliverers_read = True
    session = watched.server.open_session(transport)
    session.start()
    try:
        for message in (INIT, INITIALIZED, {"jsonrpc": "2.0", "id": 2, "method": "ping"}):
            time.sleep(0.05)  # the reading rests before each: nothing waits
            transport.deliver(json.dumps(message).encode())  # as the relay delivers: no read_here
        answers = [json.loads(transport.outbox.get(timeout=PROMPTLY)) for _ in range(2)]
        assert [a["id"] for a in answers] == [1, 2]
        start = time.monotonic()
        transport.close()  # the end of input, with the reading resting
        assert session.closed.wait(PROMPTLY * 3), "the session never ended"
        assert time.monotonic() - start < PROMPTLY * 3
    finally:
        session.close()
