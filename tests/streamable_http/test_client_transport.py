"""basic/transports of revision 2025-03-26: the client's GET stream is open before the server hears
``notifications/initialized``, so what the server sends the moment it is initialized arrives.

https://modelcontextprotocol.io/specification/2025-03-26/basic/transports (SHTTP-23..25)
The peer is a Streamable HTTP server in the standard library's http.server, on 127.0.0.1, port 0,
that behaves as the TypeScript SDK's does: a message that belongs to no request goes on the GET
stream if one is open, and is dropped if none is (the spec lets a server send there, and says
nothing of keeping it for later). The everything server sends ``notifications/tools/list_changed``
as soon as it is initialized; so does this one, from the handler of the initialized POST, before
answering it 202. A client that opens its GET stream only after that POST loses the notification
(every time, here); ours must get it every time. A server may also refuse the stream (405: it
offers none) or refuse it until it is initialized (400 here): the client goes on without it, or
asks again once initialized.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from mcp_ref import Client

LIST_CHANGED = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
LOGGED = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "on the stream"}}
RUNS = 40  # connections per test: the order must hold every time, not most times


class Peer(ThreadingHTTPServer):
    """The server: ``get`` is how it answers a GET for the stream: ``"stream"``, ``"405"`` (it
    offers none), or ``"400 until initialized"``. It records what happened to each session."""

    daemon_threads = True

    def __init__(self, get: str) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.get = get
        self.lock = threading.Lock()
        self.streams: dict[str, Any] = {}  # session id -> the open GET stream's socket file
        self.ended: dict[str, threading.Event] = {}
        self.initialized: set[str] = set()
        self.delivered: list[str] = []  # sessions whose list_changed went out on their stream
        self.dropped: list[str] = []  # sessions whose list_changed had no stream to go on
        self.gets: dict[str, list[int]] = {}  # session id -> the status of each GET, in order
        self.count = 0
        self.url = f"http://127.0.0.1:{self.server_address[1]}/mcp"
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def new_session(self) -> str:
        with self.lock:
            self.count += 1
            session = f"s-{self.count}"
            self.ended[session] = threading.Event()
            self.gets[session] = []
        return session

    def push(self, session: str, message: dict[str, Any]) -> bool:
        """Send ``message`` on the session's GET stream; False (dropped) if none is open."""
        with self.lock:
            stream = self.streams.get(session)
            if stream is None:
                return False
            stream.write(f"event: message\ndata: {json.dumps(message)}\n\n".encode())
            stream.flush()
            return True

    def stop(self) -> None:
        for ended in self.ended.values():
            ended.set()
        self.shutdown()
        self.server_close()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # kept-alive POSTs, as real servers allow
    server: Peer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def reply(self, status: int, body: dict[str, Any] | None = None, **headers: str) -> None:
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        method, session = message.get("method"), self.headers.get("Mcp-Session-Id")
        peer = self.server
        if method == "initialize":
            result = {"protocolVersion": "2024-11-05", "capabilities": {"tools": {"listChanged": True}, "logging": {}},
                      "serverInfo": {"name": "eager", "version": "1"}}
            self.reply(200, {"jsonrpc": "2.0", "id": message["id"], "result": result}, Mcp_Session_Id=peer.new_session())
        elif method == "notifications/initialized":
            with peer.lock:
                peer.initialized.add(session or "")
            # At once, before the 202, as the everything server does: on the GET stream, or lost.
            (peer.delivered if peer.push(session or "", LIST_CHANGED) else peer.dropped).append(session or "")
            self.reply(202)
        elif method == "ping":  # answered; and a log message goes out on the GET stream
            peer.push(session or "", LOGGED)
            self.reply(200, {"jsonrpc": "2.0", "id": message["id"], "result": {}})
        elif "id" in message and method is not None:
            self.reply(200, {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no"}})
        else:
            self.reply(202)

    def do_GET(self) -> None:
        peer, session = self.server, self.headers.get("Mcp-Session-Id") or ""
        refuse = peer.get == "405" or (peer.get == "400 until initialized" and session not in peer.initialized)
        status = 200 if not refuse else 405 if peer.get == "405" else 400
        with peer.lock:
            peer.gets.setdefault(session, []).append(status)
        if refuse:
            self.reply(status, Allow="POST, DELETE") if status == 405 else self.reply(status)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")  # the stream's end is the connection's end
        with peer.lock:  # the stream is the session's before the client can know it is open
            peer.streams[session] = self.wfile
            self.end_headers()
        peer.ended[session].wait(30)
        with peer.lock:
            peer.streams.pop(session, None)
        self.close_connection = True

    def do_DELETE(self) -> None:
        ended = self.server.ended.get(self.headers.get("Mcp-Session-Id") or "")
        if ended is not None:
            ended.set()
        self.reply(200)


@pytest.fixture
def peer(request: Any) -> Iterator[Peer]:
    running = Peer(request.param)
    yield running
    running.stop()


def wait_for(event: threading.Event, what: str) -> None:
    assert event.wait(10), f"{what} did not arrive within 10 s"


@pytest.mark.parametrize("peer", ["stream"], indirect=True)
def test_a_notification_sent_the_moment_the_server_is_initialized_arrives_every_time(peer: Peer) -> None:
    for run in range(RUNS):
        changed = threading.Event()
        with Client.http(peer.url, timeout=10, fallback=False,
                         on_list_changed=lambda kind, changed=changed: changed.set() if kind == "tools" else None) as client:
            wait_for(changed, f"list_changed (connection {run + 1})")  # SHTTP-23, SHTTP-26
            assert client.ping() is None  # and the session goes on
    assert peer.dropped == [] and len(peer.delivered) == RUNS
    assert all(statuses[0] == 200 for statuses in peer.gets.values())  # one stream, opened before initialized


@pytest.mark.parametrize("peer", ["405"], indirect=True)
def test_a_server_that_offers_no_stream_is_not_asked_again_and_serves_on(peer: Peer) -> None:
    for run in range(RUNS // 4):
        started = time.monotonic()
        with Client.http(peer.url, timeout=10, fallback=False) as client:
            assert client.ping() is None  # SHTTP-25: no stream, no harm
            assert f"s-{run + 1}" in peer.initialized
        assert time.monotonic() - started < 10  # a liveness bound: nothing waits out a timeout
    time.sleep(0.3)  # time for a second GET, were one (wrongly) sent
    assert list(peer.gets.values()) == [[405]] * (RUNS // 4)
    assert len(peer.dropped) == RUNS // 4  # the server had nowhere to send it: the client could not help that


@pytest.mark.parametrize("peer", ["400 until initialized"], indirect=True)
def test_a_stream_refused_until_initialized_is_asked_for_again_once_initialized(peer: Peer) -> None:
    for run in range(RUNS // 4):
        logged = threading.Event()
        with Client.http(peer.url, timeout=10, fallback=False,
                         on_log_message=lambda params, logged=logged: logged.set()) as client:
            session = f"s-{run + 1}"
            deadline = time.monotonic() + 10
            while peer.gets[session] != [400, 200] and time.monotonic() < deadline:  # asked again: a stream
                time.sleep(0.01)
            assert peer.gets[session] == [400, 200]
            while session not in peer.streams and time.monotonic() < deadline:
                time.sleep(0.01)
            client.ping()  # the server logs on its GET stream: the client hears it
            wait_for(logged, f"the log message (connection {run + 1})")
