"""The HTTP with SSE transport: server-sent events down, HTTP POSTs up.

Spec page: basic/transports, section HTTP with SSE
https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse

In short:

1. The server offers two endpoints (TR-09, TR-10). A client opens the *SSE endpoint* with an
   HTTP GET and keeps the response open: it is a ``text/event-stream``.
2. The first event on that stream is ``endpoint``; its data is the URI the client must POST
   its messages to (TR-11). Here it is relative, ``/messages/?session_id=<id>``; the id has
   128 random bits, so nobody can guess another client's session.
3. Every message from the server (responses, requests, notifications) is an event named
   ``message`` whose data is one JSON-RPC message. Every message from the client is the body of
   one POST to the endpoint, answered ``202 Accepted``; its JSON-RPC answer, if any, comes on
   the stream.
4. Closing the stream ends the session.
5. Security (TR-06..08): the server checks ``Origin`` and ``Host`` on every request, so a web
   page cannot reach a local server through DNS rebinding, binds 127.0.0.1 by default, caps
   body size, and should sit behind authentication when exposed.

The POST status codes are not in the spec; we follow what the official SDKs do: 202 accepted;
400 missing session id or malformed JSON; 404 unknown session; 405 wrong method; 413 body over
``max_body_bytes`` (4 MiB by default); 415 content type other than ``application/json``; 403
disallowed ``Origin``; 421 disallowed ``Host``.

Server: ``SseApp`` is a plain WSGI application (``Server.wsgi_app``), so any threaded WSGI
server can run it; ``SseHttpServer`` runs it on werkzeug's threaded server. Client:
``SseClientTransport``, requests for HTTP and sseclient-py for the event stream, fed by short
reads so that each event is handled the moment it arrives.
"""

from __future__ import annotations

import json
import logging
import queue
import secrets
import select
import socket
import threading
import time
import urllib.parse
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from werkzeug.serving import make_server
from werkzeug.wrappers import Request, Response

from .jsonrpc import CONNECTION_CLOSED, ConnectionClosed, McpError

if TYPE_CHECKING:
    from .server import Server
    from .session import TraceCallback

log = logging.getLogger("mcp_ref.sse")

DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
KEEPALIVE_SECONDS = 15.0
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
_POLL_SECONDS = 0.5  # how often an idle stream checks whether its client went away


def sse_event(event: str, data: bytes) -> bytes:
    """One server-sent event. ``data`` must hold no newline (compact JSON never does)."""
    return b"event: " + event.encode() + b"\ndata: " + data + b"\n\n"


def _hostname(host: str) -> str:
    """``example.com:8000`` -> ``example.com``; ``[::1]:8000`` -> ``::1``."""
    return urllib.parse.urlsplit(f"//{host}").hostname or ""


# --- the server side ---------------------------------------------------------------------------


class _StreamTransport:
    """One SSE session: POST bodies go into ``inbox``, the stream drains ``outbox``."""

    def __init__(self) -> None:
        self.inbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._closed = False

    def receive(self) -> bytes | None:
        return self.inbox.get()

    def send(self, data: bytes, timeout: float | None = None) -> None:
        if self._closed:
            raise OSError("the event stream is closed")
        self.outbox.put(data)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.inbox.put(None)
            self.outbox.put(None)

    def describe_close(self) -> str:
        return "the client's event stream closed"


class SseApp:
    """The WSGI application: ``GET sse_path`` opens a session, ``POST message_path`` feeds it.

    ``allowed_hosts`` are host names accepted in the ``Host`` header; ``allowed_origins`` are
    origins (``https://app.example``) accepted in an ``Origin`` header. Both default to
    localhost only; ``["*"]`` accepts any. A request without ``Origin`` (not from a browser)
    is accepted. ``session_param`` names the query parameter carrying the session id.
    """

    def __init__(self, server: Server, *, sse_path: str = "/sse", message_path: str = "/messages/",
                 session_param: str = "session_id", allowed_hosts: Iterable[str] = LOCAL_HOSTS,
                 allowed_origins: Iterable[str] | None = None, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
                 keepalive: float = KEEPALIVE_SECONDS, trace: TraceCallback | None = None):
        self.server = server
        self.sse_path = sse_path
        self.message_path = message_path
        self.session_param = session_param
        self.allowed_hosts = frozenset(allowed_hosts)
        self.allowed_origins = frozenset(allowed_origins) if allowed_origins is not None else None
        self.max_body_bytes = max_body_bytes
        self.keepalive = keepalive
        self.trace = trace
        self._streams: dict[str, _StreamTransport] = {}
        self._lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        response = self.dispatch(Request(environ))
        return response(environ, start_response)

    def dispatch(self, request: Request) -> Response:
        if "*" not in self.allowed_hosts and _hostname(request.host) not in self.allowed_hosts:
            return _plain(421, f"Host {request.host!r} is not allowed (DNS rebinding protection)")
        if not self._origin_allowed(request.headers.get("Origin")):  # TR-06
            return _plain(403, f"Origin {request.headers.get('Origin')!r} is not allowed")
        if request.path == self.sse_path:
            return self._open_stream(request) if request.method == "GET" else _plain(405, "use GET", allow="GET")
        if request.path == self.message_path:
            return self._post(request) if request.method == "POST" else _plain(405, "use POST", allow="POST")
        return _plain(404, f"not found; the event stream is at {self.sse_path}")

    def _origin_allowed(self, origin: str | None) -> bool:
        if origin is None:
            return True  # not a browser: Origin is what browsers send, and what rebinding abuses
        if self.allowed_origins is not None:
            return "*" in self.allowed_origins or origin in self.allowed_origins
        parts = urllib.parse.urlsplit(origin)
        return parts.scheme in ("http", "https") and parts.hostname in LOCAL_HOSTS

    @property
    def session_count(self) -> int:
        with self._lock:
            return len(self._streams)

    def close(self) -> None:
        """End every session (their streams finish, their workers stop)."""
        with self._lock:
            streams = list(self._streams.values())
        for transport in streams:
            transport.close()

    # --- GET: the event stream -----------------------------------------------------------------

    def _open_stream(self, request: Request) -> Response:
        session_id = secrets.token_hex(16)  # 128 random bits
        transport = _StreamTransport()
        session = self.server.open_session(transport, trace=self.trace)
        with self._lock:
            self._streams[session_id] = transport
        session.on_close(lambda s: self._forget(session_id))
        session.start()
        query = urllib.parse.urlencode({self.session_param: session_id})
        endpoint = f"{request.script_root}{self.message_path}?{query}".encode()  # TR-11, relative
        client_socket = request.environ.get("werkzeug.socket")

        def stream() -> Iterator[bytes]:
            try:
                yield sse_event("endpoint", endpoint)
                last_write = time.monotonic()
                while True:
                    try:
                        data = transport.outbox.get(timeout=_POLL_SECONDS)
                    except queue.Empty:
                        if _peer_gone(client_socket):
                            return
                        if time.monotonic() - last_write >= self.keepalive:
                            last_write = time.monotonic()
                            yield b": keepalive\n\n"  # a comment: idle proxies keep the connection
                        continue
                    if data is None:
                        return
                    yield sse_event("message", data)
                    last_write = time.monotonic()
            finally:  # the client went away, or the session ended: either way, end both
                session.close("the client's event stream closed")

        return Response(stream(), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    def _forget(self, session_id: str) -> None:
        with self._lock:
            transport = self._streams.pop(session_id, None)
        if transport is not None:
            transport.close()

    # --- POST: one message from the client -----------------------------------------------------

    def _post(self, request: Request) -> Response:
        session_id = request.args.get(self.session_param)
        if not session_id:
            return _plain(400, f"missing the {self.session_param} query parameter")
        with self._lock:
            transport = self._streams.get(session_id)
        if transport is None:
            return _plain(404, "unknown session: it ended, or the server restarted; open a new event stream")
        if request.mimetype != "application/json":
            return _plain(415, "the body must be application/json")
        if request.content_length is not None and request.content_length > self.max_body_bytes:
            return _plain(413, f"the body is larger than {self.max_body_bytes} bytes")
        body = request.stream.read(self.max_body_bytes + 1)
        if len(body) > self.max_body_bytes:
            return _plain(413, f"the body is larger than {self.max_body_bytes} bytes")
        try:
            json.loads(body)
        except (ValueError, UnicodeDecodeError) as exc:
            return _plain(400, f"malformed JSON: {exc}")
        transport.inbox.put(body)  # queued before we answer, so the client's order is kept
        return _plain(202, "Accepted")


def _plain(status: int, text: str, *, allow: str | None = None) -> Response:
    response = Response(text, status=status, mimetype="text/plain")
    if allow:
        response.headers["Allow"] = allow
    return response


def _peer_gone(sock: Any) -> bool:
    """Whether the client closed its end: a GET sends nothing more, so readable means EOF."""
    if not isinstance(sock, socket.socket):
        return False  # another WSGI server: the next write (at the latest the keepalive) will tell
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable) and sock.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


class SseHttpServer:
    """An ``SseApp`` on werkzeug's threaded server (one thread per connection).

    ``with server.sse_server(port=0) as http: print(http.url)`` serves in the background until
    the block ends; ``serve_forever()`` serves on the calling thread.
    """

    def __init__(self, app: SseApp, host: str = "127.0.0.1", port: int = 8000, *, log_requests: bool = False):
        self.app = app
        if not log_requests:
            logging.getLogger("werkzeug").setLevel(logging.WARNING)
        self._wsgi = make_server(host, port, app, threaded=True)
        self.host = host
        self.port = self._wsgi.server_port
        shown = f"[{host}]" if ":" in host else host
        self.url = f"http://{shown}:{self.port}{app.sse_path}"
        self._thread: threading.Thread | None = None

    def serve_forever(self) -> None:
        try:
            self._wsgi.serve_forever()
        finally:
            self.app.close()

    def start(self) -> SseHttpServer:
        self._thread = threading.Thread(target=self.serve_forever, name="mcp_ref-sse-server", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop accepting, end every session, and release the port."""
        self.app.close()
        self._wsgi.shutdown()
        self._wsgi.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> SseHttpServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- the client side ---------------------------------------------------------------------------

READ_CHUNK = 64 * 1024


class HttpError(McpError):
    """Local: an HTTP request of the SSE transport failed; ``status`` is the HTTP status."""

    code = CONNECTION_CLOSED

    def __init__(self, message: str, status: int):
        super().__init__(message, {"status": status})
        self.status = status


class SseClientTransport:
    """The client's end: a GET for the event stream, a POST per message, one requests.Session.

    The constructor opens the stream (waiting at most ``timeout`` to connect). The ``endpoint``
    event is read by the session's reader thread like any other; ``send`` waits for it (at most
    ``timeout``), resolves it against ``url`` and refuses one on another origin.
    """

    def __init__(self, url: str, *, headers: dict[str, str] | None = None, timeout: float = 30.0):
        import requests
        import sseclient

        self.url = url
        self.timeout = timeout
        self._http = requests.Session()
        self._http.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=32))
        self._http.mount("https://", requests.adapters.HTTPAdapter(pool_maxsize=32))
        self._http.headers.update(headers or {})
        self._endpoint: str | None = None
        self._endpoint_error: str | None = None
        self._endpoint_ready = threading.Event()
        self._closing = False
        try:
            self._response = self._http.get(url, stream=True, timeout=(timeout, None),
                                            headers={"Accept": "text/event-stream", "Cache-Control": "no-cache"})
        except requests.RequestException as exc:
            self._http.close()
            raise ConnectionClosed(f"could not open the event stream at {url}: {exc}") from exc
        if self._response.status_code != 200:
            status, reason = self._response.status_code, self._response.reason
            why = _first_words(self._response, timeout)  # the server's own reason, e.g. for a 421
            self.close()
            raise HttpError(f"GET {url} answered HTTP {status} {reason}: " + (why or "is this an MCP SSE endpoint?"),
                            status)
        if not self._response.headers.get("Content-Type", "").startswith("text/event-stream"):
            self.close()
            raise ConnectionClosed(f"GET {url} did not answer with text/event-stream; is this an MCP SSE endpoint?")
        self._socket = _socket_of(self._response)
        self._events = sseclient.SSEClient(self._short_reads()).events()

    def _short_reads(self) -> Iterator[bytes]:
        """Whatever bytes have arrived, at once: iterating the response would hold events back."""
        while True:
            chunk = self._response.raw.read1(READ_CHUNK)
            if not chunk:
                return
            yield chunk

    def receive(self) -> bytes | None:
        while True:
            try:
                event = next(self._events)
            except StopIteration:
                return None
            except Exception:
                if self._closing:
                    return None  # we closed the stream ourselves
                raise
            if event.event == "message":
                return event.data.encode("utf-8")
            if event.event == "endpoint":
                self._accept_endpoint(event.data)
                if self._endpoint_error:
                    return None  # end the session; describe_close() says why
            # other event types (some servers send "ping") are ignored

    def _accept_endpoint(self, data: str) -> None:
        if self._endpoint_ready.is_set():
            return  # only the first one counts
        endpoint = urllib.parse.urljoin(self.url, data.strip())
        if _origin(endpoint) != _origin(self.url):
            self._endpoint_error = (f"refusing the endpoint {endpoint!r}: it is on another origin than "
                                    f"the event stream {self.url!r}")
        else:
            self._endpoint = endpoint
        self._endpoint_ready.set()

    def send(self, data: bytes, timeout: float | None = None) -> None:
        import requests

        if not self._endpoint_ready.wait(self.timeout):
            raise ConnectionClosed(f"no endpoint event from {self.url} within {self.timeout:g} s; "
                                   "is this an MCP SSE endpoint?")
        if self._endpoint is None:
            raise ConnectionClosed(self._endpoint_error or "no endpoint")
        try:
            response = self._http.post(self._endpoint, data=data, timeout=self.timeout,
                                       headers={"Content-Type": "application/json"})
        except requests.RequestException as exc:
            raise ConnectionClosed(f"POST to {self._endpoint} failed: {exc}") from exc
        if not 200 <= response.status_code < 300:
            raise HttpError(f"POST to {self._endpoint} answered HTTP {response.status_code} {response.reason}: "
                            f"{response.text[:200]}", response.status_code)

    def close(self) -> None:
        self._closing = True
        self._endpoint_ready.set()
        sock = getattr(self, "_socket", None)
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)  # wakes the reader thread blocked in a read
            except OSError:
                pass
        try:
            self._response.close()
        except Exception:
            pass
        self._http.close()

    def describe_close(self) -> str:
        if self._endpoint_error:
            return self._endpoint_error
        return "the server closed the event stream" if not self._closing else "the client closed the connection"


def _first_words(response: Any, timeout: float, limit: int = 200) -> str:
    """The start of an error response's body, for the exception's message: at most ``limit``
    characters, read within ``timeout`` (the stream itself was opened with no read timeout)."""
    sock = _socket_of(response)
    try:
        if sock is not None:
            sock.settimeout(timeout)
        body: bytes = response.raw.read(limit, decode_content=True) or b""
    except Exception:  # a broken or stalled body: the status line alone will have to do
        return ""
    return " ".join(body.decode("utf-8", "replace").split())[:limit]


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, (parts.hostname or ""), parts.port or default


def _socket_of(response: Any) -> socket.socket | None:
    """The socket under a streaming requests response, so that close() can wake a blocked reader.

    urllib3 does not expose it; we look along http.client's attributes and give up quietly if
    they change (close() then still works, the reader just wakes at the next byte or EOF).
    """
    try:
        sock = response.raw._fp.fp.raw._sock
        return sock if isinstance(sock, socket.socket) else None
    except AttributeError:
        return None
