"""How a client under test reaches the checking server: a relayed stdio link, or HTTP with SSE.

Not a spec section: the transport side of ``mcp-ref check client`` (see client_check.py).

1. ``StdioLink``: a local socket on 127.0.0.1. The client spawns stdio_relay.py as its "server"; the
   relay connects back twice (data, then events, each with a secret token) and copies bytes.
   Every line the client wrote is recorded as is (``lines``), and the relay's events say how
   the client shut its server down (``stdin-eof``, ``sigterm``).
2. ``SseLink``: a small HTTP server on 127.0.0.1 speaking the server's half of HTTP with SSE:
   ``GET /sse`` opens the one event stream (its first event is ``endpoint``), ``POST`` to that
   endpoint delivers one message (202), a POST anywhere else is recorded and refused (404).
3. Both are wires (wire.py): the checking server reads what the client sent with
   ``receive()`` and sends with ``send_recorded()``, which records a message before it leaves,
   so the transcript's order is the order of events.
"""

from __future__ import annotations

import http.server
import json
import queue
import secrets
import select
import shlex
import socket
import sys
import threading
import urllib.parse
from pathlib import Path
from typing import Any

from .wire import Wire, local_http_server

RELAY = str(Path(__file__).with_name("stdio_relay.py"))
# What each event of the relay means, in the words a report uses (the names stay in the code).
EVENT_WORDS = {
    "stdin-eof": "the client closed the server's stdin",
    "sigterm": "the client sent the server SIGTERM",
    "sigterm-after-eof": "the client sent the server SIGTERM (its stdin closed by then)",
    "exiting": "the server exited by itself",
    "data-closed": "the server's stdin and stdout were closed",
    "relay-gone": "the server process ended",
    "stream-closed": "the client's event stream ended",
}


def in_words(events: list[str]) -> str:
    """Events of the relay, in order, as a sentence for a report."""
    return "; ".join(EVENT_WORDS.get(name, name) for name in events) or "nothing"


class StdioLink(Wire):
    """A local socket the relay connects back to; the relay is the client's "server" process."""

    kind = "stdio"

    def __init__(self, timeout: float) -> None:
        super().__init__(timeout)
        self.events: list[tuple[str, int]] = []  # (event, transcript length when it happened)
        self._token = secrets.token_hex(16)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._data: socket.socket | None = None
        self.connected = threading.Event()
        self.relay_gone = threading.Event()  # its events connection ended: every event is recorded
        self._send_lock = threading.Lock()
        threading.Thread(target=self._accept, name="check-link-accept", daemon=True).start()

    @property
    def server_argument(self) -> str:
        port = self._listener.getsockname()[1]
        return shlex.join([sys.executable, RELAY, "127.0.0.1", str(port), self._token])

    def _accept(self) -> None:
        roles = 0
        while roles < 2:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            conn.settimeout(self.timeout)
            try:
                hello = b""
                while not hello.endswith(b"\n") and len(hello) < 200:
                    byte = conn.recv(1)
                    if not byte:
                        break
                    hello += byte
            except OSError:
                conn.close()
                continue
            conn.settimeout(None)
            token, _, role = hello.decode("ascii", "replace").strip().partition(" ")
            if token != self._token:
                conn.close()
                continue
            roles += 1
            if role == "data":
                self._data = conn
                self.connected.set()
                threading.Thread(target=self._read_data, args=(conn,), name="check-link-data", daemon=True).start()
            else:
                threading.Thread(target=self._read_events, args=(conn,), name="check-link-events", daemon=True).start()

    def _read_data(self, conn: socket.socket) -> None:
        self._read_lines(conn.recv)
        try:
            conn.close()  # the server's stdin ended: the "server" (the relay) now exits
        except OSError:
            pass
        self.event("data-closed")
        self.closed_by_peer = True
        self._incoming.put(None)

    def _read_events(self, conn: socket.socket) -> None:
        try:
            for raw in conn.makefile("rb"):
                self.event(raw.decode("ascii", "replace").strip())
        except OSError:
            pass
        self.event("relay-gone")
        self.relay_gone.set()

    def event(self, name: str) -> None:
        with self._lock:
            self.events.append((name, len(self.transcript)))
        self.note(EVENT_WORDS.get(name, f"the server process reported {name!r}"))

    def send_raw(self, data: bytes) -> None:
        self.send_recorded(data)

    def send_recorded(self, data: bytes) -> int:
        """Record, then write, one message; return its place in the transcript."""
        line = data if data.endswith(b"\n") else data + b"\n"
        seq = self._record("sent", line.rstrip(b"\n").decode("utf-8", "replace"), _parsed(line))
        conn = self._data
        if conn is not None:
            with self._send_lock:
                try:
                    conn.sendall(line)
                except OSError:
                    pass
        return seq

    def close(self) -> None:
        for sock in (self._data, self._listener):
            if sock is not None:
                try:
                    sock.close()
                except OSError:
                    pass


def _parsed(line: bytes) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


class SseLink(Wire):
    """An HTTP server on 127.0.0.1 speaking the server's half of HTTP with SSE, for one client."""

    kind = "sse"

    def __init__(self, timeout: float) -> None:
        super().__init__(timeout)
        self.events: list[tuple[str, int]] = []
        self.posts: list[tuple[str, int]] = []  # (path, status) of every POST
        self.gets = 0
        self._session = secrets.token_hex(16)
        self._outbox: queue.Queue[bytes | None] = queue.Queue()
        self.connected = threading.Event()
        self.endpoint = f"/messages?session={self._session}"
        self._http = local_http_server(self, "check-sse-link")

    @property
    def server_argument(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}/sse"

    def event(self, name: str) -> None:
        with self._lock:
            self.events.append((name, len(self.transcript)))
        self.note(EVENT_WORDS.get(name, f"the server process reported {name!r}"))

    def handle_get(self, request: http.server.BaseHTTPRequestHandler) -> None:
        self.gets += 1
        if urllib.parse.urlsplit(request.path).path != "/sse" or self.connected.is_set():
            self.note(f"GET {request.path} refused (404): one event stream, at /sse")
            request.send_error(404)
            return
        self.connected.set()
        request.send_response(200)
        request.send_header("Content-Type", "text/event-stream")
        request.send_header("Cache-Control", "no-cache")
        request.end_headers()
        try:
            request.wfile.write(b"event: endpoint\ndata: " + self.endpoint.encode() + b"\n\n")
            request.wfile.flush()
            self._record("sent", self.endpoint, event="endpoint")
            while True:
                try:
                    data = self._outbox.get(timeout=0.2)
                except queue.Empty:
                    if _peer_gone(request.connection):
                        break
                    continue
                if data is None:
                    break
                request.wfile.write(b"event: message\ndata: " + data + b"\n\n")
                request.wfile.flush()
        except OSError:
            pass
        self.event("stream-closed")
        self.closed_by_peer = True
        self._incoming.put(None)

    def handle_post(self, request: http.server.BaseHTTPRequestHandler) -> None:
        length = int(request.headers.get("Content-Length") or 0)
        body = request.rfile.read(min(length, 4 * 1024 * 1024))
        parts = urllib.parse.urlsplit(request.path)
        session = urllib.parse.parse_qs(parts.query).get("session", [""])[0]
        status = 202 if parts.path == "/messages" and session == self._session else 404
        self.posts.append((request.path, status))
        if status == 202:
            self._deliver(body)
        else:
            self.note(f"POST {request.path} refused (404): not the endpoint this server announced")
        request.send_response(status)
        request.send_header("Content-Type", "text/plain")
        request.end_headers()
        request.wfile.write(b"Accepted" if status == 202 else b"unknown session")

    def send_raw(self, data: bytes) -> None:
        self.send_recorded(data)

    def send_recorded(self, data: bytes) -> int:
        """Record, then queue for the stream, one message; return its place in the transcript."""
        seq = self._record("sent", data.decode("utf-8", "replace"), _parsed(data))
        self._outbox.put(data)
        return seq

    def close(self) -> None:
        self._outbox.put(None)
        self._http.shutdown()
        self._http.server_close()


def _peer_gone(sock: Any) -> bool:
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable) and sock.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True
