"""The checker over Streamable HTTP (revision 2025-03-26's transport): a recording client wire and a link.

Not a spec section: the kit's transport layer for ``mcp-ref check server --http URL`` and
``mcp-ref check client --http``, beside stdio_wire.py, sse_wire.py and client_links.py. Like
those, it does not use mcp_ref's own transport: a case must be able to send what a good client
never would, and see exactly what came back.
https://modelcontextprotocol.io/specification/2025-03-26/basic/transports

1. ``StreamableHttpWire`` (a server under test): every message is POSTed to the URL with
   ``Accept: application/json, text/event-stream`` and, once the server gave one, its
   ``Mcp-Session-Id`` (and ``MCP-Protocol-Version`` once negotiated). The POST is made before
   ``send`` returns (so messages reach the server in order); its answer, one JSON object or an
   event stream, is read on a thread of its own and delivered like any message. An HTTP error
   whose body is a JSON-RPC error is delivered too (it is the server's answer), with the status
   noted. After ``notifications/initialized`` the wire opens the GET stream; closing DELETEs the
   session.
2. ``StreamableHttpLink`` (a client under test): a small HTTP server on 127.0.0.1 speaking the
   server's half for one client at ``/mcp``: the answer to ``initialize`` carries a session id,
   later requests must carry it (404 otherwise); a request is answered on its POST's response
   as an event stream (what the checking server sends meanwhile outside any request goes there
   too while the client has no GET stream open); notifications and responses get 202; GET opens
   the stream for the rest; DELETE ends the session.
"""

from __future__ import annotations

import http.server
import itertools
import json
import queue
import secrets
import socket
import threading
import urllib.parse
from typing import Any

from .sse_wire import SseEventParser, http_request, open_connection, request_target
from .wire import ConnectFailed, Wire, local_http_server, parse

ACCEPT_BOTH = "application/json, text/event-stream"
SESSION_HEADER = "Mcp-Session-Id"
VERSION_HEADER = "MCP-Protocol-Version"
MAX_BODY = 4 * 1024 * 1024


class StreamableHttpWire(Wire):
    """A connection to a Streamable HTTP server: a POST per message (see the module docstring).

    ``post_statuses`` holds the status of every POST; ``session_id`` the server's session id.
    """

    kind = "http"

    def __init__(self, url: str, timeout: float, headers: dict[str, str] | None = None) -> None:
        super().__init__(timeout)
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConnectFailed(f"not an http(s) URL: {url!r}")
        self.url = url
        self.headers = dict(headers or {})
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self.post_statuses: list[int] = []
        self._sessionless_refusals: list[tuple[Any, int]] = []  # (request id, status): SHTTP-38's 400s
        self._posts = itertools.count(1)  # names each POST's stream
        self.status = 200  # as SseWire's: there is no stream to open before the first message
        self._init_id: Any = None
        self._open: list[Any] = []  # connections still being read, for close()
        self._closing = False

    def _headers(self, accept: str = ACCEPT_BOTH) -> dict[str, str]:
        headers = {"Accept": accept, **self.headers}
        if self.session_id is not None:
            headers[SESSION_HEADER] = self.session_id
        if self.protocol_version is not None:
            headers[VERSION_HEADER] = self.protocol_version
        return headers

    def send_raw(self, data: bytes) -> None:
        text, msg, _ = parse(data)
        self._record("sent", text, msg)
        is_request = isinstance(msg, dict) and "method" in msg and "id" in msg
        if is_request and msg.get("method") == "initialize":
            self._init_id = msg["id"]
        conn = open_connection(self.url, self.timeout)
        sent_headers = {"Content-Type": "application/json", **self._headers()}
        try:
            conn.request("POST", request_target(self.url), body=data, headers=sent_headers)
            response = conn.getresponse()
        except OSError as exc:
            conn.close()
            self.note(f"POST {self.url} failed: {exc}")
            if not self._closing and isinstance(exc, ConnectionRefusedError):
                self.closed_by_peer = True
                self._incoming.put(None)
            return
        status = response.status
        self.post_statuses.append(status)
        stream = f"POST {next(self._posts)}"  # the answer's stream, for what depends on order
        if is_request and 400 <= status < 500 and SESSION_HEADER not in sent_headers:
            self._sessionless_refusals.append((msg["id"], status))
        kind = (response.getheader("Content-Type", "") or "").split(";")[0].strip().lower()
        self.note(f"POST {request_target(self.url)} -> HTTP {status} ({kind or 'no content type'})")
        if is_request and msg.get("method") == "initialize" and response.getheader(SESSION_HEADER):
            self.session_id = response.getheader(SESSION_HEADER)
        if kind == "text/event-stream" and status == 200:
            with self._lock:
                self._open.append(conn)
            threading.Thread(target=self._read_stream, args=(conn, response, stream), name="check-http-post",
                             daemon=True).start()
        else:
            try:
                body = response.read(MAX_BODY)
            except OSError as exc:
                self.note(f"the answer to a POST could not be read: {exc}")
                body = b""
            conn.close()
            if body and kind == "application/json":
                self._take(body, stream)  # the answer, or (at an HTTP error) the server's JSON-RPC error
            elif body and status >= 400:
                self.note(f"HTTP {status} body: {body[:200].decode('utf-8', 'replace')!r}")
        if isinstance(msg, dict) and msg.get("method") == "notifications/initialized" and 200 <= status < 300:
            threading.Thread(target=self._listen, name="check-http-get", daemon=True).start()

    def refused_without_session(self, request_id: Any) -> int | None:
        return next((status for rid, status in self._sessionless_refusals
                     if type(rid) is type(request_id) and rid == request_id), None)

    def _take(self, raw: bytes, stream: str) -> None:
        _, msg, _ = parse(raw)
        if self.protocol_version is None and isinstance(msg, dict) and msg.get("id") == self._init_id:
            version = (msg.get("result") or {}).get("protocolVersion") if isinstance(msg.get("result"), dict) else None
            if isinstance(version, str) and version.isascii() and version.isprintable() and len(version) < 40:
                self.protocol_version = version
        self._deliver(raw, stream=stream)

    def _read_stream(self, conn: Any, response: Any, stream: str) -> None:
        """Every message of one event stream (a POST's, or "GET"), recorded with that stream's
        name: two streams are read by two threads, so only within one is the order the server's."""
        parser = SseEventParser()
        try:
            if conn.sock is not None:
                conn.sock.settimeout(None)  # close() wakes it
            while chunk := response.read1(65536):
                for name, data in parser.feed(chunk):
                    if name == "message":
                        self._take(data.encode("utf-8"), stream)
        except Exception:  # closed under our feet, or the stream broke
            pass
        finally:
            with self._lock:
                if conn in self._open:
                    self._open.remove(conn)
            conn.close()
        if stream == "GET" and not self._closing:
            self.note("the server closed the GET stream")

    def _listen(self) -> None:
        conn = open_connection(self.url, self.timeout)
        try:
            conn.request("GET", request_target(self.url), headers=self._headers("text/event-stream"))
            response = conn.getresponse()
        except OSError as exc:
            conn.close()
            self.note(f"GET {self.url} failed: {exc}")
            return
        self.note(f"GET {request_target(self.url)} -> HTTP {response.status}")
        if response.status != 200:
            conn.close()
            return
        with self._lock:
            if self._closing:
                conn.close()
                return
            self._open.append(conn)
        self._read_stream(conn, response, "GET")

    def close(self) -> None:
        self._closing = True
        with self._lock:
            conns = list(self._open)
        for conn in conns:
            sock = conn.sock
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            conn.close()
        if self.session_id is not None:
            try:
                answer = http_request(self.url, "DELETE", None, self._headers(), min(self.timeout, 2.0))
                self.note(f"DELETE {request_target(self.url)} -> HTTP {answer.status}")
            except OSError as exc:
                self.note(f"DELETE {self.url} failed: {exc}")
        self._incoming.put(None)


NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}  # what Mcp-Name repeats (2026-07-28)


def mcp_name(value: str) -> str:
    """An Mcp-Name header value (2026-07-28): the name itself when it is plain visible ASCII,
    else its UTF-8 in base64 between the sentinels ``=?base64?`` and ``?=`` (HTTPX-19)."""
    import base64

    if value.isascii() and value.isprintable() and value == value.strip() and value:
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


def mirrored_headers(msg: Any, version: str | None = None) -> dict[str, str]:
    """The headers a client of 2026-07-28 sends with a message (HTTPX-03, HTTPX-13, HTTPX-18):
    MCP-Protocol-Version as the body's ``_meta`` names it (``version`` when the body names none:
    a notification, or input that is no request), Mcp-Method, and Mcp-Name for the methods that
    name something."""
    headers: dict[str, str] = {VERSION_HEADER: version} if version is not None else {}
    if not isinstance(msg, dict):
        return headers
    params: dict[str, Any] = msg["params"] if isinstance(msg.get("params"), dict) else {}
    meta: dict[str, Any] = params["_meta"] if isinstance(params.get("_meta"), dict) else {}
    version = meta.get("io.modelcontextprotocol/protocolVersion")
    if isinstance(version, str) and version.isascii() and version.isprintable():
        headers[VERSION_HEADER] = version
    method = msg.get("method")
    if isinstance(method, str) and method.isascii() and method.isprintable():
        headers["Mcp-Method"] = method
        name = params.get(NAMED.get(method, ""))
        if isinstance(name, str):
            headers["Mcp-Name"] = mcp_name(name)
    return headers


class StatelessHttpWire(StreamableHttpWire):
    """Streamable HTTP as revision 2026-07-28 speaks it: no session, no GET stream; each POST
    carries the headers that mirror its body (``mirrored_headers``). A 4xx is an answer of this
    revision like any other (its body is the JSON-RPC error), not a refusal for want of a session."""

    def __init__(self, url: str, timeout: float, headers: dict[str, str] | None = None,
                 version: str = "2026-07-28") -> None:
        super().__init__(url, timeout, headers)
        self.version = version  # the run's revision: the MCP-Protocol-Version of a body naming none
        self._mirror = threading.local()

    def _headers(self, accept: str = ACCEPT_BOTH) -> dict[str, str]:
        return {**super()._headers(accept), **getattr(self._mirror, "headers", {})}

    def send_raw(self, data: bytes) -> None:
        _, msg, _ = parse(data)
        self._mirror.headers = mirrored_headers(msg, self.version)
        try:
            super().send_raw(data)
        finally:
            self._mirror.headers = {}

    def refused_without_session(self, request_id: Any) -> int | None:
        return None


class StreamableHttpLink(Wire):
    """An HTTP server on 127.0.0.1 speaking the server's half of Streamable HTTP, for one client."""

    kind = "http"

    def __init__(self, timeout: float) -> None:
        super().__init__(timeout)
        self.events: list[tuple[str, int]] = []
        self.requests: list[tuple[str, int, dict[str, str]]] = []  # (method, status, headers) of each
        self.initialize_at: int | None = None  # the index in ``requests`` of the (first) initialize POST
        self.session_id = secrets.token_hex(16)
        self.connected = threading.Event()
        self._waiting: dict[str, queue.Queue[bytes | None]] = {}  # a request's id -> its POST's stream
        self._outbox: queue.Queue[bytes | None] = queue.Queue()  # what belongs to no request
        self._listening = threading.Event()  # a GET stream is open
        self._closed = threading.Event()
        self._http = local_http_server(self, "check-http-link")  # HTTP/1.0: one response per connection

    @property
    def server_argument(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}/mcp"

    def event(self, name: str) -> None:
        with self._lock:
            self.events.append((name, len(self.transcript)))
        self.note(f"event: {name}")

    def _refuse(self, request: http.server.BaseHTTPRequestHandler, status: int, why: str) -> None:
        self.note(f"{request.command} {request.path} refused ({status}): {why}")
        body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": why}}).encode()
        request.send_response(status)
        request.send_header("Content-Type", "application/json")
        request.end_headers()
        request.wfile.write(body)

    def _seen(self, request: http.server.BaseHTTPRequestHandler, status: int) -> None:
        headers = {k.lower(): v for k, v in request.headers.items()}
        self.requests.append((request.command, status, headers))

    def handle_post(self, request: http.server.BaseHTTPRequestHandler) -> None:
        if urllib.parse.urlsplit(request.path).path != "/mcp":
            self._seen(request, 404)
            self._refuse(request, 404, "the MCP endpoint is /mcp")
            return
        length = int(request.headers.get("Content-Length") or 0)
        body = request.rfile.read(min(length, MAX_BODY))
        _, msg, _ = parse(body)
        is_request = isinstance(msg, dict) and isinstance(msg.get("method"), str) and "id" in msg
        initializing = is_request and msg.get("method") == "initialize"
        if not initializing and request.headers.get(SESSION_HEADER) != self.session_id:
            self._seen(request, 404)
            self._deliver(body)  # recorded as the client sent it, then refused
            self._refuse(request, 404, "unknown or missing Mcp-Session-Id")
            return
        if initializing and self.initialize_at is None:
            self.initialize_at = len(self.requests)
        self._seen(request, 200 if is_request else 202)
        if not is_request:
            self._deliver(body)
            request.send_response(202)
            request.end_headers()
            return
        answers: queue.Queue[bytes | None] = queue.Queue()
        key = repr(msg["id"])
        with self._lock:
            self._waiting[key] = answers
        self.connected.set()
        self._deliver(body)
        request.send_response(200)
        request.send_header("Content-Type", "text/event-stream")
        request.send_header("Cache-Control", "no-cache")
        if initializing:
            request.send_header(SESSION_HEADER, self.session_id)
        request.end_headers()
        try:
            self._stream_until_answered(request, answers)
        finally:
            with self._lock:
                self._waiting.pop(key, None)

    def _stream_until_answered(self, request: http.server.BaseHTTPRequestHandler,
                               answers: queue.Queue[bytes | None]) -> None:
        """The POST's event stream: what else the checking server sends while no GET stream is
        open, then the answer. Bounded: the checking server answers within its probes' time."""
        waited = 0.0
        while waited < self.timeout * 10 and not self._closed.is_set():
            if not self._listening.is_set():
                try:
                    other = self._outbox.get_nowait()
                    if other is None:
                        return
                    request.wfile.write(b"event: message\ndata: " + other + b"\n\n")
                    request.wfile.flush()
                    continue
                except queue.Empty:
                    pass
                except OSError:
                    return
            try:
                answer = answers.get(timeout=0.1)
            except queue.Empty:
                waited += 0.1
                continue
            if answer is None:
                return
            try:
                request.wfile.write(b"event: message\ndata: " + answer + b"\n\n")
                request.wfile.flush()
            except OSError:
                pass
            return

    def handle_get(self, request: http.server.BaseHTTPRequestHandler) -> None:
        if request.headers.get(SESSION_HEADER) != self.session_id or self._listening.is_set():
            self._seen(request, 409 if self._listening.is_set() else 404)
            self._refuse(request, 409 if self._listening.is_set() else 404, "one GET stream per session, with its id")
            return
        self._seen(request, 200)
        self._listening.set()
        self.event("get-opened")
        request.send_response(200)
        request.send_header("Content-Type", "text/event-stream")
        request.send_header("Cache-Control", "no-cache")
        request.end_headers()
        try:
            request.wfile.write(b": stream open\n\n")
            request.wfile.flush()
            while not self._closed.is_set():
                try:
                    data = self._outbox.get(timeout=0.2)
                except queue.Empty:
                    continue
                if data is None:
                    break
                request.wfile.write(b"event: message\ndata: " + data + b"\n\n")
                request.wfile.flush()
        except OSError:
            pass
        finally:
            self._listening.clear()
            self.event("get-closed")

    def handle_delete(self, request: http.server.BaseHTTPRequestHandler) -> None:
        self._seen(request, 200)
        self.event("delete")
        request.send_response(200)
        request.end_headers()
        self.closed_by_peer = True
        self._incoming.put(None)

    def send_raw(self, data: bytes) -> None:
        self.send_recorded(data)

    def send_recorded(self, data: bytes) -> int:
        """Record, then route, one message: an answer to its request's POST, the rest to the GET
        stream (or the next POST's stream); return its place in the transcript."""
        _, msg, _ = parse(data)
        seq = self._record("sent", data.decode("utf-8", "replace"), msg)
        if isinstance(msg, dict) and "method" not in msg:  # an answer goes on its request's POST, or nowhere
            with self._lock:
                waiting = self._waiting.get(repr(msg.get("id")))
            if waiting is None:
                self.note("an answer whose request's POST is over (refused, or its client left) was dropped")
            else:
                waiting.put(data)
            return seq
        self._outbox.put(data)
        return seq

    def close(self) -> None:
        self._closed.set()
        self._outbox.put(None)
        with self._lock:
            for answers in self._waiting.values():
                answers.put(None)
        self._http.shutdown()
        self._http.server_close()
        self._incoming.put(None)
