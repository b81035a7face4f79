"""The HTTP with SSE transport: server-sent events down, HTTP POSTs up.

Spec page: basic/transports
Section: HTTP with SSE (the server's end; the client's is sse_client.py)
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
400 missing session id or a body that is not strict JSON in UTF-8 (the session's own test: NaN,
UTF-16 and nesting too deep to read included); 404 unknown
session; 405 wrong method; 413 body over ``max_body_bytes``; 415 content type other than
``application/json``; 403 disallowed ``Origin``; 421 disallowed ``Host``. Ours besides: 408 a
body that did not arrive whole in time; 503 (with ``Retry-After``) too many open streams, or the
relay cannot reach the process holding the session.

Several processes or hosts: ``relay="redis://HOST:PORT/DB"`` (see relay.py) carries a POST that
arrives at a process other than the one holding the session's stream to that process. Every
check above is made where the POST arrives, before anything is relayed.

Limits, each a keyword of ``SseApp`` (and of ``Server.wsgi_app``/``sse_server``/``serve_sse``):

- ``max_body_bytes`` = 4 MiB: a larger POST body is answered 413.
- ``max_streams`` = 100 open event streams (each holds a thread and a session): one more GET is
  answered 503 with ``Retry-After``.
- ``max_queued`` = 1,000 messages, and ``max_queued_bytes`` = 4 MiB, waiting to be written to
  one client's stream. A sender that finds either bound reached waits for room, up to its
  timeout; if none comes, the client is not reading: its session is closed and its connection
  cut. (A single message larger than ``max_queued_bytes`` is queued when nothing else waits, so
  it still goes out, alone.)
- ``keepalive`` = 15 s: a comment line on an idle stream, so proxies keep the connection.
- A client that hangs up is noticed within half a second (its socket, which werkzeug and
  gunicorn put in the WSGI environ, is polled), and its session ends. Where the socket cannot
  be polled (a server that does not give it, or TLS), an idle stream writes a comment every
  second instead, and the write to a departed client fails within a few seconds.
- Under ``SseHttpServer`` two more bounds hold, ``request_timeout`` = 10 s for a request to
  arrive whole and ``write_timeout`` = 30 s per write (see http/werkzeug_server.py).

Server (this module): ``SseApp`` is a plain WSGI application (``Server.wsgi_app``), so any
threaded WSGI server can run it; ``SseHttpServer`` (http/werkzeug_server.py) runs it on werkzeug's
threaded server. Client: ``SseClientTransport`` in sse_client.py.
"""

from __future__ import annotations

import logging
import secrets
import socket
import threading
import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from werkzeug.exceptions import ClientDisconnected
from werkzeug.wrappers import Request, Response

from . import messages
from .machinery.http.event_streams import LOCAL_HOSTS as LOCAL_HOSTS  # re-exported: mcp-ref serve widens it
from .machinery.http.event_streams import SseStreamWriter, client_socket, hostname, origin_allowed, pollable
from .machinery.http.event_streams import sse_event as sse_event
from .machinery.http.queues import Full, Inbox, Outbox
from .machinery.http.werkzeug_server import SseHttpServer as SseHttpServer  # re-exported: the server most users run
from .scaleout.redis_relay import relay_from
from .scaleout.relay import Relay, RelayUnavailable, UnknownSession

if TYPE_CHECKING:
    from .session import Session, TraceCallback


class SessionOpener(Protocol):
    """Whoever opens a session for each new event stream: a ``Server`` (server.py) is one."""

    def open_session(self, transport: _StreamTransport, *, trace: TraceCallback | None = None) -> Session: ...

log = logging.getLogger("mcp_ref.sse")

# What ``SseApp.dispatch`` returns: a WSGI application answering the one request (a werkzeug
# Response is one; so is ``_accepted``).
WsgiAnswer = Callable[[dict[str, Any], Any], Iterable[bytes]]

# --- limits (each a keyword of SseApp; the README's "Limits and failure behaviour" lists them) ---

# Bytes in one POST body: one message must not be able to exhaust the server's memory.
DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
# Open event streams: each holds a thread and a session, so there must be a ceiling.
DEFAULT_MAX_STREAMS = 100
# Seconds a client refused for too many streams is told to wait (Retry-After).
RETRY_AFTER_SECONDS = 5
# Messages waiting to be written to one client's stream, and their bytes: a client that does not
# read is disconnected, it does not get to grow the server's memory.
DEFAULT_MAX_QUEUED = 1000
DEFAULT_MAX_QUEUED_BYTES = 4 * 1024 * 1024
# Seconds of silence on a stream before a comment line, so proxies do not drop it.
KEEPALIVE_SECONDS = 15.0
# (How often an idle stream checks that its client is still there, and the shorter keep-alive
# of a stream whose socket cannot be polled: machinery/http/event_streams.py, shared with Streamable HTTP.)
# Seconds a client is told to wait when the relay cannot reach the session's process.
RELAY_RETRY_AFTER_SECONDS = 2



# --- the server side ---------------------------------------------------------------------------


class _StreamTransport(Inbox):
    """One SSE session: POST bodies are delivered to its inbox (machinery/http/queues.py's ``Inbox``,
    which the session's reader reads), the stream drains ``outbox`` (machinery/http/queues.py: at most
    ``max_queued`` messages of at most ``max_queued_bytes``).

    A sender that finds no room waits for it, up to its timeout. If none comes, the stream has
    taken nothing: its writer is stuck, the client is not reading. ``send`` then raises
    ``OSError``, which closes the session (the Transport contract), and the client's socket
    (``sock``, if the WSGI server gives it) is shut down, so the stuck writer lets go at once.
    """

    def __init__(self, max_queued: int, sock: socket.socket | None,
                 max_queued_bytes: int = DEFAULT_MAX_QUEUED_BYTES) -> None:
        super().__init__()
        self.outbox = Outbox(max_queued, max_queued_bytes)
        self._socket = sock
        self._closed = False
        self._stalled = False

    def send(self, data: bytes, timeout: float | None = None) -> None:
        if self._closed:
            raise OSError("the event stream is closed")
        try:
            self.outbox.put(data, timeout)
        except Full as unread:
            self._stalled = True
            raise OSError(f"the client took nothing from its event stream for {timeout:g} s, with {unread}; "
                          "disconnecting it") from None

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.outbox.close()  # a sender waiting for room gives up at once
            self.deliver(None)
            self.outbox.end()
            if self._stalled and self._socket is not None:
                try:
                    self._socket.shutdown(socket.SHUT_RDWR)  # fails the write it is stuck in
                except OSError:
                    pass

    def describe_close(self) -> str:
        return "the client's event stream closed"

    def stats(self) -> dict[str, Any]:  # (machinery/transport.py: one event stream, and what waits on it)
        return {"kind": "sse", "streams": 0 if self._closed else 1, "queued_messages": self.outbox.count,
                "queued_bytes": self.outbox.queued_bytes}


class SseApp:
    """The WSGI application: ``GET sse_path`` opens a session, ``POST message_path`` feeds it.

    ``allowed_hosts`` are host names accepted in the ``Host`` header; ``allowed_origins`` are
    origins (``https://app.example``) accepted in an ``Origin`` header. Both default to
    localhost only; ``["*"]`` accepts any. A request without ``Origin`` (not from a browser)
    is accepted. ``session_param`` names the query parameter carrying the session id.
    ``max_body_bytes``, ``max_streams``, ``max_queued``, ``max_queued_bytes`` and ``keepalive``
    are the limits listed in the module docstring. ``relay`` (relay.py) reaches sessions held by other processes: a
    ``redis://`` URL (the app then owns the relay and closes it with itself) or a ``Relay``
    object; None, the default, knows only the sessions of this process.
    """

    def __init__(self, server: SessionOpener, *, sse_path: str = "/sse", message_path: str = "/messages/",
                 session_param: str = "session_id", allowed_hosts: Iterable[str] = LOCAL_HOSTS,
                 allowed_origins: Iterable[str] | None = None, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
                 max_streams: int = DEFAULT_MAX_STREAMS, max_queued: int = DEFAULT_MAX_QUEUED,
                 max_queued_bytes: int = DEFAULT_MAX_QUEUED_BYTES, keepalive: float = KEEPALIVE_SECONDS,
                 trace: TraceCallback | None = None, relay: Relay | str | None = None):
        self.server = server
        self.sse_path = sse_path
        self.message_path = message_path
        self.session_param = session_param
        self.allowed_hosts = frozenset(allowed_hosts)
        self.allowed_origins = frozenset(allowed_origins) if allowed_origins is not None else None
        self.max_body_bytes = max_body_bytes
        self.max_streams = max_streams
        self.max_queued = max_queued
        self.max_queued_bytes = max_queued_bytes
        self.keepalive = keepalive
        self.trace = trace
        self.relay, self._owns_relay = relay_from(relay)
        self._streams: dict[str, _StreamTransport] = {}
        self._lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        response = self.dispatch(Request(environ))
        return response(environ, start_response)

    def dispatch(self, request: Request) -> WsgiAnswer:
        if "*" not in self.allowed_hosts and hostname(request.host) not in self.allowed_hosts:
            return _plain(421, f"Host {request.host!r} is not allowed (DNS rebinding protection)")
        if not self._origin_allowed(request.headers.get("Origin")):  # TR-06
            return _plain(403, f"Origin {request.headers.get('Origin')!r} is not allowed")
        # TR-09: GET on the SSE path opens a session's event stream
        if request.path == self.sse_path:
            return self._open_stream(request) if request.method == "GET" else _plain(405, "use GET", headers={"Allow": "GET"})
        # TR-10: POST on the message path carries the client's messages
        if request.path == self.message_path:
            return self._post(request) if request.method == "POST" else _plain(405, "use POST", headers={"Allow": "POST"})
        return _plain(404, f"not found; the event stream is at {self.sse_path}")

    def _origin_allowed(self, origin: str | None) -> bool:
        return origin_allowed(origin, self.allowed_origins)  # TR-06: no Origin, an allowed one, or localhost

    @property
    def session_count(self) -> int:
        with self._lock:
            return len(self._streams)

    def close(self) -> None:
        """End every session (their streams finish, their workers stop), and the relay if
        the app made it."""
        with self._lock:
            streams = list(self._streams.values())
        for transport in streams:
            transport.close()
        if self._owns_relay:
            self.relay.close()

    # --- GET: the event stream -----------------------------------------------------------------

    def _open_stream(self, request: Request) -> Response:
        session_id = secrets.token_hex(16)  # 128 random bits
        sock = client_socket(request.environ)
        transport = _StreamTransport(self.max_queued, sock, self.max_queued_bytes)
        with self._lock:
            if len(self._streams) >= self.max_streams:
                return _plain(503, f"this server already has {self.max_streams} open event streams; try again later",
                              headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
            self._streams[session_id] = transport  # the place is taken before the session exists
        # Reachable from every process (through the relay) before the client learns the endpoint.
        self.relay.hold(session_id, transport.deliver)
        session = self.server.open_session(transport, trace=self.trace)
        session.on_close(lambda s: self._forget(session_id))
        session.start()
        query = urllib.parse.urlencode({self.session_param: session_id})
        endpoint = f"{request.script_root}{self.message_path}?{query}".encode()  # TR-11, relative

        # A socket we can poll tells at once that its client left; otherwise a write must, so
        # a stream we cannot poll sends its keep-alive comments more often (machinery/http/event_streams.py).
        writer = SseStreamWriter(pollable(sock), self.keepalive)

        def stream() -> Iterator[bytes]:
            try:
                yield sse_event("endpoint", endpoint)
                yield from writer.events(transport.outbox)  # every message as a "message" event
            finally:  # the client went away, or the session ended: either way, end both
                session.close("the client's event stream closed")

        return Response(stream(), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    def _forget(self, session_id: str) -> None:
        self.relay.release(session_id)
        with self._lock:
            transport = self._streams.pop(session_id, None)
        if transport is not None:
            transport.close()

    # --- POST: one message from the client -----------------------------------------------------

    def _post(self, request: Request) -> WsgiAnswer:
        session_id = request.args.get(self.session_param)
        if not session_id:
            return _plain(400, f"missing the {self.session_param} query parameter")
        if request.mimetype != "application/json":
            return _plain(415, "the body must be application/json")
        length = request.content_length
        if length is not None and length > self.max_body_bytes:
            return _plain(413, f"the body is larger than {self.max_body_bytes} bytes")
        try:
            body = request.stream.read(self.max_body_bytes + 1)
        except ClientDisconnected:  # it stopped coming: the server's request_timeout, or the client left
            return _plain(408, "the body did not arrive whole in time")
        if len(body) > self.max_body_bytes:
            return _plain(413, f"the body is larger than {self.max_body_bytes} bytes")
        try:
            messages.decode(body)  # the session's own test: strict UTF-8 JSON, not nested too deeply
        except messages.ParseError as exc:
            return _plain(400, f"malformed JSON: {exc.message}")
        # Into the session's inbox before we answer, so the client's order is kept: here,
        # when this process holds the session; else through the relay, which returns once
        # the holding process has queued it.
        try:
            self.relay.publish(session_id, body)
        except UnknownSession:
            return _plain(404, "unknown session: it ended, or the server restarted; open a new event stream")
        except RelayUnavailable as exc:
            return _plain(503, f"cannot reach the session now: {exc}; try again shortly",
                          headers={"Retry-After": str(RELAY_RETRY_AFTER_SECONDS)})
        return _accepted


_ACCEPTED_HEADERS = [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", "8")]


def _accepted(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
    """The answer to a good POST, ``202 Accepted``, as a bare WSGI application: the same status,
    headers and body as ``_plain(202, "Accepted")``, without building a Response for each
    message (a measured gain: benchmarks/RESULTS.md)."""
    start_response("202 Accepted", _ACCEPTED_HEADERS)
    return [b"Accepted"]


def _plain(status: int, text: str, headers: dict[str, str] | None = None) -> Response:
    return Response(text, status=status, mimetype="text/plain", headers=headers)


__all__ = ["SseApp", "SseHttpServer", "sse_event"]  # the client's end: sse_client.py
