"""The Streamable HTTP transport: one MCP endpoint; each client message a POST, answered on its response.

Spec page: basic/transports of revision 2025-03-26, section Streamable HTTP
https://modelcontextprotocol.io/specification/2025-03-26/basic/transports

This transport came with revision 2025-03-26 and replaces HTTP with SSE (sse.py). It does not
depend on the revision negotiated inside it: the messages it carries here are those of
2024-11-05, exactly as over stdio or HTTP with SSE. The IDs cited below (SHTTP-01...) are those
of that page, indexed in tooling/requirements_2025_03_26.py. In short:

1. The server offers one path, the *MCP endpoint* (here ``/mcp``), taking POST, GET and DELETE
   (SHTTP-05). The Origin and Host checks, the localhost binding and the advice to authenticate
   of HTTP with SSE hold here too (SHTTP-06..08).
2. Every message from the client is the body of a POST of its own (SHTTP-09), whose ``Accept``
   lists both ``application/json`` and ``text/event-stream`` (SHTTP-10). A body holding a
   notification or a response is answered ``202 Accepted`` with no body (SHTTP-12); one the
   server cannot take gets an HTTP error, with a JSON-RPC error (id null) as its body (SHTTP-13).
3. A body holding a request is answered on that POST's own response (SHTTP-14): either one JSON
   object, the JSON-RPC response, or an event stream carrying first what the server sends while
   handling that request (its progress, its log lines, its own requests to the client such as
   sampling or roots: SHTTP-17), then the response (SHTTP-16), and ending there (SHTTP-19).
   We answer with JSON when the response is ready within a tenth of a second and nothing came
   before it, and open an event stream otherwise. A client that leaves does not cancel its
   request (SHTTP-20); it cancels by sending ``notifications/cancelled``, which also ends that
   request's stream.
4. A GET opens a stream for what belongs to no request: ``list_changed``, a resource update, a
   request the server makes outside any request of the client (SHTTP-23..28). Never a response
   (SHTTP-27). Each message goes on one stream only (SHTTP-30): a second GET replaces the first.
   While no GET stream is open, up to ``max_queued`` such messages (``max_queued_bytes`` in all)
   wait for one.
5. Sessions: the response to ``initialize`` carries ``Mcp-Session-Id``, 128 random bits in hex
   (SHTTP-34..36); every later request must carry it (SHTTP-37): without it, 400 (SHTTP-38; a
   ``ping`` alone is answered without a session, as one may be sent at any time); for
   a session that ended or never was, 404 (SHTTP-39), and the client must start anew
   (SHTTP-40). ``DELETE`` with the header ends the session (SHTTP-41). A session nobody has
   used for ``idle_timeout`` seconds (no POST, no request running, no GET stream open) ends too.
6. Backwards compatibility: the same WSGI application serves the old transport's ``/sse`` and
   ``/messages/`` beside ``/mcp`` (SHTTP-42; sse.py hands ``/mcp`` to this module), so clients of
   either kind reach one server; the client's side of it is in streamable_http_client.py.

Not implemented, all optional: resuming a broken stream (``Last-Event-ID``, SHTTP-31..33; our
events carry no ``id``), and JSON-RPC batches (a JSON array: a 2025-03-26 message shape, not a
2024-11-05 one; answered 400, see SHTTP-11).

Status codes: 200 (``application/json`` or ``text/event-stream``); 202; 400 malformed or
unreadable body, a batch, no ``Mcp-Session-Id``, or an ``MCP-Protocol-Version`` we do not speak;
403 disallowed ``Origin``; 404 unknown session (or another path); 405 another method (with
``Allow``); 406 an ``Accept`` without the needed types; 408 a body that did not arrive whole;
413 a body over ``max_body_bytes``; 415 a content type other than ``application/json``; 421
disallowed ``Host``; 503 (``Retry-After``) too many sessions, too many requests in flight in one
session, or the relay cannot reach the session's process. Each error's body is a JSON-RPC error
saying why.

Several processes or hosts (``relay=``, machinery/relay.py): a POST, GET or DELETE that arrives
at a process other than the one holding its session is carried there; what the holder sends in
answer comes back through the relay to the process that took the POST, which writes it on that
POST's response (or on the GET stream). Every check is made where the request arrives.

Server (this module): ``StreamableHttpApp``, a WSGI application (``Server.wsgi_app()`` serves it
at ``/mcp`` inside the HTTP with SSE application). Client: streamable_http_client.py.
"""

from __future__ import annotations

import collections
import json
import logging
import queue
import secrets
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from werkzeug.exceptions import ClientDisconnected
from werkzeug.wrappers import Request, Response

from . import messages
from .machinery import related
from .machinery.http_streams import (
    OPENING,
    SSE_HEADERS,
    SseStreamWriter,
    client_socket,
    pollable,
    sse_event,
)
from .machinery.memory import put_end_marker
from .machinery.redis_relay import relay_from
from .machinery.relay import Relay, RelayUnavailable, UnknownSession
from .messages import CONNECTION_CLOSED, INVALID_REQUEST, PARSE_ERROR, McpError, RequestId

log = logging.getLogger("mcp_ref.streamable_http")

# The headers of this transport (HTTP header names are case-insensitive).
SESSION_HEADER = "Mcp-Session-Id"
VERSION_HEADER = "MCP-Protocol-Version"
# The revisions whose messages this server speaks: an MCP-Protocol-Version header naming another
# is refused (the header is a later revision's, 2025-06-18; clients of 2024-11-05 may send it).
SPOKEN_VERSIONS = ("2024-11-05",)

# --- limits (each a keyword of StreamableHttpApp; the README's "Limits" lists them) ---------------

DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024  # one POST body
DEFAULT_MAX_SESSIONS = 100  # each holds a session (its threads); idle ones end after idle_timeout
DEFAULT_MAX_IN_FLIGHT = 100  # requests of one session answered on open POST responses at once
DEFAULT_MAX_QUEUED = 1000  # messages waiting for one stream's writer (or for a GET stream)
DEFAULT_MAX_QUEUED_BYTES = 4 * 1024 * 1024  # and their bytes (one larger message goes alone)
KEEPALIVE_SECONDS = 15.0  # silence on a stream before a comment line
DEFAULT_IDLE_TIMEOUT = 30 * 60.0  # seconds a session may go unused before it ends
# Seconds the response to a request waits for the answer before it opens an event stream: a
# quick answer then goes back as plain JSON.
QUICK_ANSWER_SECONDS = 0.1
RETRY_AFTER_SECONDS = 5  # told to a client refused for too many sessions or requests
RELAY_RETRY_AFTER_SECONDS = 2  # told to a client whose session's process cannot be reached now
SWEEP_SECONDS = 30.0  # how often idle sessions are looked for (at most)

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")

# Relay keys: Streamable HTTP sessions in a namespace of their own, so that a session id of the
# other transport (sse.py shares the relay) never reaches one of ours, nor the reverse.
_RELAY_KEY = "mcp:"


def _relay_key(session_id: str) -> str:
    return _RELAY_KEY + session_id


class _Opened(Protocol):
    """What this module needs of the session the opener returns (session.Session)."""

    def start(self) -> None: ...

    def close(self, reason: str = ...) -> None: ...

    def on_close(self, callback: Callable[[Any], None]) -> None: ...


SessionOpener = Callable[[Any], _Opened]  # open_session(transport) -> a session not yet started


# --- where the engine's messages go: streams ------------------------------------------------------


class _Stream(Protocol):
    """One HTTP response being written, as the session sees it: ``put`` a message on it (within
    ``timeout``: ``TimeoutError`` if its writer took nothing; ``OSError`` if its client or
    writer is gone), ``end`` it."""

    def put(self, data: bytes, timeout: float | None) -> None: ...

    def end(self) -> None: ...


class _LocalStream:
    """A response this process writes: a bounded queue its writer drains.

    At most ``max_queued`` messages of at most ``max_queued_bytes`` in all wait (a larger message
    goes in alone, when nothing else waits). A sender that finds no room waits for it up to its
    timeout; if none comes, the client is not reading: the stream is given up and its socket
    shut down, so the stuck writer lets go at once.
    """

    def __init__(self, max_queued: int, sock: Any, max_queued_bytes: int = DEFAULT_MAX_QUEUED_BYTES) -> None:
        self.queue: queue.Queue[bytes | None] = queue.Queue(max_queued)
        self.gone = False
        self._socket = sock
        self._max_bytes = max_queued_bytes
        self._bytes = 0  # of the messages in the queue; changed only under _room
        self._room = threading.Condition()

    def put(self, data: bytes, timeout: float | None) -> None:
        if self.gone:
            raise OSError("the client left this stream")
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._room:  # the byte bound: room for these bytes, or an empty queue
            if not self._room.wait_for(lambda: self.gone or not self._bytes
                                       or self._bytes + len(data) <= self._max_bytes, timeout):
                self._give_up(f"{self._bytes} bytes unread")
            if self.gone:
                raise OSError("the client left this stream")
            self._bytes += len(data)
        try:  # the count bound
            self.queue.put(data, timeout=None if deadline is None else max(0.0, deadline - time.monotonic()))
        except queue.Full:
            self._taken(data)
            self._give_up(f"{self.queue.maxsize} messages unread")

    def _give_up(self, unread: str) -> None:
        self.gone = True
        if self._socket is not None:
            try:
                self._socket.shutdown(2)  # SHUT_RDWR: fails the write the writer is stuck in
            except OSError:
                pass
        raise TimeoutError(f"the client took nothing from its stream in time, with {unread}; giving the stream up")

    def _taken(self, data: bytes) -> None:
        with self._room:
            self._bytes -= len(data)
            self._room.notify_all()

    def end(self) -> None:
        put_end_marker(self.queue)

    def get(self, timeout: float | None = None) -> bytes | None:
        data = self.queue.get(timeout=timeout)
        if data is not None:
            self._taken(data)
        return data

    def abandon(self) -> None:
        """The response is over: nothing more goes in, and a sender waiting for room gives up."""
        with self._room:
            self.gone = True
            self._room.notify_all()


class _RelayedStream:
    """A response another process writes: each message goes back to it through the relay, into
    the mailbox named when the request was relayed (machinery/relay.py, point 5)."""

    def __init__(self, relay: Relay, address: str) -> None:
        self.relay = relay
        self.address = address
        self.gone = False

    def put(self, data: bytes, timeout: float | None) -> None:
        if self.gone:
            raise OSError("the process writing this stream is gone")
        try:
            heard = self.relay.post(self.address, data)  # type: ignore[attr-defined]
        except RelayUnavailable as exc:
            raise TimeoutError(f"the relay could not carry the message: {exc}") from None
        if not heard:
            self.gone = True
            raise OSError("the process writing this stream is gone")

    def end(self) -> None:
        if not self.gone:
            try:
                self.relay.post(self.address, b"")  # type: ignore[attr-defined]
            except RelayUnavailable:
                pass


class _Route:
    """A request of the client in flight: the stream its answer goes on."""

    __slots__ = ("stream", "method")

    def __init__(self, stream: _Stream, method: str) -> None:
        self.stream = stream
        self.method = method


# --- the session's transport ----------------------------------------------------------------------


class _SessionTransport:
    """The engine's transport for one session: what POSTs bring goes into ``inbox``; each message
    the engine sends goes on one stream (SHTTP-30), chosen by what it is:

    - a response: on the stream of the POST that carried its request (SHTTP-14, 16);
    - anything sent while the engine handles one of this session's requests (machinery/related.py):
      on that request's stream (SHTTP-17), or nowhere if that stream is gone;
    - anything else: on the GET stream (SHTTP-26); while there is none, into a backlog of at most
      ``max_queued`` messages (the oldest dropped beyond it) that the next GET stream receives.
    """

    def __init__(self, session_id: str, max_queued: int, max_in_flight: int,
                 max_queued_bytes: int = DEFAULT_MAX_QUEUED_BYTES) -> None:
        self.session_id = session_id
        self.inbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.session: _Opened | None = None
        self.last_seen = time.monotonic()
        self._max_in_flight = max_in_flight
        self._lock = threading.Lock()
        self._routes: dict[RequestId, _Route] = {}
        self._listener: _Stream | None = None
        self._backlog: collections.deque[bytes] = collections.deque(maxlen=max_queued)
        self._backlog_bytes = 0
        self._max_backlog_bytes = max_queued_bytes
        self._closed = False

    # --- what the client sent (from the HTTP side) ---

    def take(self, body: bytes, msg: dict[str, Any], kind: str, stream: _Stream | None) -> McpError | None:
        """Queue one message for the engine; a request's answer will go on ``stream``. Returns the
        error to answer instead when the request cannot be taken (its id is in use, or too many
        requests are in flight)."""
        with self._lock:
            self.last_seen = time.monotonic()
            if self._closed:
                return McpError("Session not found: it has ended", code=CONNECTION_CLOSED)
            if kind is messages.REQUEST:
                request_id = msg["id"]
                if request_id in self._routes:  # MSG-04, broken by the client: the first keeps its stream
                    return McpError(f"Invalid Request: id {request_id!r} is already in use by a request in "
                                    "progress", code=INVALID_REQUEST)
                if len(self._routes) >= self._max_in_flight:
                    return _Busy(f"this session already has {self._max_in_flight} requests in progress")
                assert stream is not None
                self._routes[request_id] = _Route(stream, msg["method"])
            elif kind is messages.NOTIFICATION and msg["method"] == "notifications/cancelled":
                self._cancelled(msg.get("params"))
            self.inbox.put(body)
        return None

    def _cancelled(self, params: Any) -> None:
        """The client cancelled a request: its stream ends now, since no answer will follow
        (the engine sends none, CAN-06). ``initialize`` is never cancelled (CAN-03): its stream
        stays for its answer. (Called with the lock held.)"""
        request_id = params.get("requestId") if isinstance(params, dict) else None
        route = self._routes.get(request_id) if messages.is_valid_id(request_id) else None
        if route is not None and route.method != "initialize":
            del self._routes[request_id]  # type: ignore[arg-type]  # a valid id
            route.stream.end()

    def listen(self, stream: _Stream) -> None:
        """A GET stream opened (SHTTP-23): it takes the place of any other (SHTTP-30) and first
        receives what waited for it."""
        with self._lock:
            self.last_seen = time.monotonic()
            previous, self._listener = self._listener, stream
            waiting = list(self._backlog)
            self._backlog.clear()
            self._backlog_bytes = 0
            if previous is not None:
                previous.end()  # SHTTP-28, SHTTP-30: the older stream ends, so no message goes on two
            for data in waiting:
                try:
                    stream.put(data, 0)
                except (OSError, TimeoutError):
                    break

    def unlisten(self, stream: _Stream | None = None, address: str | None = None) -> None:
        """The GET stream ended (or the one relayed to ``address``)."""
        with self._lock:
            self.last_seen = time.monotonic()
            current = self._listener
            if current is None:
                return
            if current is stream or (address is not None and getattr(current, "address", None) == address):
                self._listener = None

    def idle_since(self) -> float | None:
        """Since when nothing has used this session (None: in use: a request, or a GET stream)."""
        with self._lock:
            return None if self._routes or self._listener is not None else self.last_seen

    # --- the engine's side (session.Transport) ---

    def receive(self, timeout: float | None = None) -> bytes | None:
        try:
            return self.inbox.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError("no message within the timeout") from None

    def send(self, data: bytes, timeout: float | None = None) -> None:
        if self._closed:
            raise OSError("the session has ended")
        msg = json.loads(data)  # our own engine's strict JSON
        is_response = "method" not in msg
        with self._lock:
            if is_response:  # SHTTP-14, SHTTP-16: the answer goes where its request came from
                request_id = msg.get("id")
                route = self._routes.pop(request_id, None) if messages.is_valid_id(request_id) else None
                stream = route.stream if route is not None else None
            else:
                request_id = related.current(self)
                if request_id is not None:  # SHTTP-17: sent while handling that request
                    route = self._routes.get(request_id)
                    stream = route.stream if route is not None else None
                else:  # SHTTP-26: belongs to no request
                    stream = self._listener
                    if stream is None:
                        self._keep_for_later(data)
                        return
        if stream is None:  # its request's stream is gone (the client left or cancelled): SHTTP-27
            log.debug("dropped a message whose request's stream is gone: %.200r", data)
            return
        try:
            stream.put(data, timeout)  # SHTTP-30: on exactly one stream
        except OSError:
            self._stream_failed(stream)
            log.debug("dropped a message: its stream is gone: %.200r", data)
        except TimeoutError:
            self._stream_failed(stream)
            raise

    def _keep_for_later(self, data: bytes) -> None:
        """Into the backlog for the next GET stream: at most ``max_queued`` messages and
        ``max_queued_bytes``, the oldest dropped first (the newest stays, whatever its size).
        (Called with the lock held.)"""
        if len(self._backlog) == self._backlog.maxlen:
            self._backlog_bytes -= len(self._backlog[0])  # the deque drops it as this one goes in
        self._backlog.append(data)
        self._backlog_bytes += len(data)
        while len(self._backlog) > 1 and self._backlog_bytes > self._max_backlog_bytes:
            self._backlog_bytes -= len(self._backlog.popleft())

    def _stream_failed(self, stream: _Stream) -> None:
        with self._lock:
            if self._listener is stream:
                self._listener = None

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            streams = [route.stream for route in self._routes.values()]
            if self._listener is not None:
                streams.append(self._listener)
            self._routes.clear()
            self._listener = None
        self.inbox.put(None)
        for stream in streams:  # SHTTP-18: they end now, answered or not, as the session has
            stream.end()

    def describe_close(self) -> str:
        return "the Streamable HTTP session ended"


class _Busy(McpError):
    """Too many requests of one session in flight: HTTP 503 with Retry-After."""

    code = INVALID_REQUEST


# --- the WSGI application -------------------------------------------------------------------------


class StreamableHttpApp:
    """The MCP endpoint as a WSGI application: ``POST``, ``GET`` and ``DELETE`` at ``path``.

    ``open_session(transport)`` makes the session for each new client (``Server.open_session``,
    with its trace bound); the app starts it. ``allowed_hosts`` are host names accepted in the
    ``Host`` header; ``allowed_origins`` are origins accepted in an ``Origin`` header; both default
    to localhost only, and ``["*"]`` accepts any. A request without ``Origin`` (not from a
    browser) is accepted. The limits are the module's ``DEFAULT_*`` constants; ``relay`` reaches
    sessions held by other processes (see relay.py; a ``Relay`` given here is not closed with
    the app, one made from a URL is).
    """

    def __init__(self, open_session: SessionOpener, *, path: str = "/mcp", allowed_hosts: Iterable[str] = LOCAL_HOSTS,
                 allowed_origins: Iterable[str] | None = None, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
                 max_sessions: int = DEFAULT_MAX_SESSIONS, max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
                 max_queued: int = DEFAULT_MAX_QUEUED, max_queued_bytes: int = DEFAULT_MAX_QUEUED_BYTES,
                 keepalive: float = KEEPALIVE_SECONDS, idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
                 quick_answer: float = QUICK_ANSWER_SECONDS, relay: Relay | str | None = None):
        self.open_session = open_session
        self.path = path
        self.allowed_hosts = frozenset(allowed_hosts)
        self.allowed_origins = frozenset(allowed_origins) if allowed_origins is not None else None
        self.max_body_bytes = max_body_bytes
        self.max_sessions = max_sessions
        self.max_in_flight = max_in_flight
        self.max_queued = max_queued
        self.max_queued_bytes = max_queued_bytes
        self.keepalive = keepalive
        self.idle_timeout = idle_timeout
        self.quick_answer = quick_answer
        self.relay, self._owns_relay = relay_from(relay)
        self._sessions: dict[str, _SessionTransport] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._sweeper: threading.Thread | None = None

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        return self.dispatch(Request(environ))(environ, start_response)

    @property
    def session_count(self) -> int:
        with self._lock:
            return len(self._sessions)

    def close(self) -> None:
        """End every session (their streams end), stop the sweeper, and the relay if the app made it."""
        self._stopping.set()
        with self._lock:
            transports = list(self._sessions.values())
        for transport in transports:
            if transport.session is not None:
                transport.session.close("the server is shutting down")
        if self._owns_relay:
            self.relay.close()

    # --- every request ---------------------------------------------------------------------------

    def dispatch(self, request: Request) -> Response:
        if "*" not in self.allowed_hosts and _hostname(request.host) not in self.allowed_hosts:
            return _error(421, f"Host {request.host!r} is not allowed (DNS rebinding protection)")
        if not self._origin_allowed(request.headers.get("Origin")):  # SHTTP-06
            return _error(403, f"Origin {request.headers.get('Origin')!r} is not allowed")
        if request.path != self.path:
            return _error(404, f"not found; the MCP endpoint is {self.path}")
        # SHTTP-05: the one MCP endpoint takes POST and GET (and DELETE, SHTTP-41)
        if request.method == "POST":
            return self._post(request)
        if request.method == "GET":
            return self._get(request)
        if request.method == "DELETE":
            return self._delete(request)
        return _error(405, "use POST, GET or DELETE", headers={"Allow": "GET, POST, DELETE"})

    def _origin_allowed(self, origin: str | None) -> bool:
        if origin is None:
            return True  # not a browser: Origin is what browsers send, and what rebinding abuses
        if self.allowed_origins is not None:
            return "*" in self.allowed_origins or origin in self.allowed_origins
        parts = urllib.parse.urlsplit(origin)
        return parts.scheme in ("http", "https") and parts.hostname in LOCAL_HOSTS

    def _version_refused(self, request: Request) -> Response | None:
        version = request.headers.get(VERSION_HEADER)
        if version is not None and version not in SPOKEN_VERSIONS:
            return _error(400, f"unsupported {VERSION_HEADER} {version[:40]!r}; this server speaks "
                               f"{', '.join(SPOKEN_VERSIONS)}")
        return None

    # --- POST: one message from the client -------------------------------------------------------

    def _post(self, request: Request) -> Response:
        accept = request.accept_mimetypes
        if not (accept["application/json"] and accept["text/event-stream"]):  # SHTTP-10
            return _error(406, "the Accept header must list both application/json and text/event-stream")
        if request.mimetype != "application/json":
            return _error(415, "the body must be application/json")
        refused = self._version_refused(request)
        if refused is not None:
            return refused
        if request.content_length is not None and request.content_length > self.max_body_bytes:
            return _error(413, f"the body is larger than {self.max_body_bytes} bytes")
        try:
            body = request.stream.read(self.max_body_bytes + 1)
        except ClientDisconnected:  # it stopped coming: the server's request_timeout, or the client left
            return _error(408, "the body did not arrive whole in time")
        if len(body) > self.max_body_bytes:
            return _error(413, f"the body is larger than {self.max_body_bytes} bytes")
        try:  # SHTTP-13: what we cannot take is an HTTP error with a JSON-RPC error as its body
            msg = messages.decode(body)  # SHTTP-01: the session's own test: strict UTF-8 JSON, not too deep
        except messages.ParseError as exc:
            return _error(400, exc.message, code=PARSE_ERROR)
        if isinstance(msg, list):  # SHTTP-11: batches are a 2025-03-26 message shape, not one of 2024-11-05
            return _error(400, "Invalid Request: JSON-RPC batches are not part of MCP 2024-11-05; "
                               "send one message per POST")
        try:
            kind = messages.classify(msg)
        except McpError as exc:
            return _error(400, exc.message)
        session_id = request.headers.get(SESSION_HEADER)
        if not session_id:
            if kind is messages.REQUEST and msg["method"] == "initialize":
                return self._initialize(request, body, msg)  # SHTTP-34: a new session
            if kind is messages.REQUEST and msg["method"] == "ping":  # PING-01: a ping needs no session
                return _json(200, messages.encode(messages.result_response(msg["id"], {})))
            return _error(400, f"Bad Request: no {SESSION_HEADER} header; a session starts with an "  # SHTTP-38
                               "initialize request", request_id=msg["id"] if kind is messages.REQUEST else None)
        with self._lock:
            transport = self._sessions.get(session_id)
        if transport is None:
            return self._relay_post(request, session_id, body, msg, kind)
        if kind is not messages.REQUEST:
            refusal = transport.take(body, msg, kind, None)
            return _error(404, _GONE) if refusal is not None else _accepted()  # SHTTP-12
        stream = _LocalStream(self.max_queued, client_socket(request.environ), self.max_queued_bytes)
        refusal = transport.take(body, msg, kind, stream)
        if refusal is not None:
            return self._refusal(refusal, msg["id"])
        return self._answer(request, stream, msg["id"], lambda: _abandon(stream))

    def _initialize(self, request: Request, body: bytes, msg: dict[str, Any]) -> Response:
        """A new session for an ``initialize`` that came without a session id (SHTTP-34..36)."""
        session_id = secrets.token_hex(16)  # SHTTP-35, SHTTP-36: 128 random bits, as hex: visible ASCII only
        transport = _SessionTransport(session_id, self.max_queued, self.max_in_flight, self.max_queued_bytes)
        with self._lock:
            if len(self._sessions) >= self.max_sessions:
                self._sweep_locked()
            if len(self._sessions) >= self.max_sessions:
                return _error(503, f"this server already has {self.max_sessions} sessions; try again later",
                              headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
            self._sessions[session_id] = transport
        self._start_sweeper()
        # Reachable from every process (through the relay) before the client learns the id.
        self.relay.hold(_relay_key(session_id), lambda payload: self._relayed(transport, payload))
        session = self.open_session(transport)
        transport.session = session
        session.on_close(lambda s: self._forget(session_id))
        session.start()
        stream = _LocalStream(self.max_queued, client_socket(request.environ), self.max_queued_bytes)
        transport.take(body, msg, messages.REQUEST, stream)

        def answered(answer: dict[str, Any]) -> None:
            if "error" in answer:  # initialization failed: the session is of no use
                session.close("initialize failed")

        return self._answer(request, stream, msg["id"], lambda: _abandon(stream),
                            headers={SESSION_HEADER: session_id}, answered=answered)

    def _refusal(self, refusal: McpError, request_id: RequestId) -> Response:
        if isinstance(refusal, _Busy):
            return _error(503, refusal.message, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
        if refusal.code == CONNECTION_CLOSED:
            return _error(404, _GONE)
        # the request is answered here, as the session would have answered it (MSG-04)
        return _json(200, messages.encode(messages.error_response(request_id, refusal)))

    # --- the answer to a request: JSON or an event stream ----------------------------------------

    def _answer(self, request: Request, source: Any, request_id: RequestId, finished: Callable[[], None], *,
                headers: dict[str, str] | None = None, still_wanted: Callable[[], bool] | None = None,
                answered: Callable[[dict[str, Any]], None] | None = None) -> Response:
        """The response to a POST carrying a request: the answer as JSON if it comes first and
        quickly, else an event stream of everything for that request, ending with the answer
        (SHTTP-14..19). ``finished()`` runs once the response is over, however it ends."""
        writer = SseStreamWriter(pollable(client_socket(request.environ)), self.keepalive, still_wanted)

        def is_answer(data: bytes) -> bool:
            msg = json.loads(data)
            if "method" in msg or msg.get("id") != request_id or type(msg.get("id")) is not type(request_id):
                return False
            if answered is not None:
                answered(msg)
            return True

        try:
            first = writer.next_message(source, time.monotonic() + self.quick_answer)
        except queue.Empty:
            first = None
            waited = False
        else:
            waited = True
        if waited and first is not None and is_answer(first):  # SHTTP-14: one JSON object
            finished()
            return _json(200, first, headers)

        def stream() -> Iterable[bytes]:
            try:
                if first is not None:
                    yield sse_event("message", first)  # SHTTP-17: what came before the answer
                else:
                    yield OPENING  # the headers go now: the client waits for them
                if waited and first is None:
                    return  # the stream ended (the request was cancelled, or the session ended)
                yield from writer.events(source, is_answer)  # SHTTP-16, SHTTP-19: ends with the answer
            finally:  # SHTTP-20: the client leaving does not cancel the request
                finished()

        return Response(stream(), status=200, mimetype="text/event-stream", headers={**SSE_HEADERS, **(headers or {})})

    # --- GET: the stream for what belongs to no request ------------------------------------------

    def _get(self, request: Request) -> Response:
        if not request.accept_mimetypes["text/event-stream"]:  # SHTTP-24
            return _error(406, "the Accept header must list text/event-stream")
        refused = self._version_refused(request)
        if refused is not None:
            return refused
        session_id = request.headers.get(SESSION_HEADER)
        if not session_id:
            return _error(400, f"Bad Request: no {SESSION_HEADER} header")  # SHTTP-38
        with self._lock:
            transport = self._sessions.get(session_id)
        if transport is None:
            return self._relay_get(request, session_id)
        stream = _LocalStream(self.max_queued, client_socket(request.environ), self.max_queued_bytes)
        transport.listen(stream)  # SHTTP-25: a stream, or 405 where a server offers none
        writer = SseStreamWriter(pollable(client_socket(request.environ)), self.keepalive)

        def events() -> Iterable[bytes]:
            try:
                yield OPENING
                yield from writer.events(stream)  # SHTTP-26, SHTTP-27: requests and notifications only
            finally:
                stream.abandon()
                transport.unlisten(stream)

        return Response(events(), status=200, mimetype="text/event-stream", headers=SSE_HEADERS)

    # --- DELETE: the client ends its session -----------------------------------------------------

    def _delete(self, request: Request) -> Response:
        session_id = request.headers.get(SESSION_HEADER)
        if not session_id:
            return _error(400, f"Bad Request: no {SESSION_HEADER} header")
        with self._lock:
            transport = self._sessions.get(session_id)
        if transport is None:
            return self._relay_simple(session_id, "delete")
        if transport.session is not None:
            transport.session.close("the client ended the session (HTTP DELETE)")  # SHTTP-41
        return Response(status=200)

    # --- sessions held by other processes: through the relay -------------------------------------

    def _publish(self, session_id: str, kind: str, body: bytes = b"", reply: str | None = None) -> Response | None:
        """Carry a message to the process holding ``session_id``; an error Response if it cannot."""
        envelope = json.dumps({"kind": kind, "reply": reply}).encode() + b"\n" + body
        try:
            self.relay.publish(_relay_key(session_id), envelope)
        except UnknownSession:
            return _error(404, _GONE)  # SHTTP-39
        except RelayUnavailable as exc:
            return _error(503, f"cannot reach the session now: {exc}; try again shortly",
                          headers={"Retry-After": str(RELAY_RETRY_AFTER_SECONDS)})
        return None

    def _relay_simple(self, session_id: str, kind: str, body: bytes = b"") -> Response:
        failed = self._publish(session_id, kind, body)
        if failed is not None:
            return failed
        return _accepted() if kind == "post" else Response(status=200)

    def _open_mailbox(self) -> Any:
        open_mailbox = getattr(self.relay, "open_mailbox", None)
        return open_mailbox(self.max_queued) if open_mailbox is not None else None

    def _relay_post(self, request: Request, session_id: str, body: bytes, msg: dict[str, Any], kind: str) -> Response:
        if kind is not messages.REQUEST:
            return self._relay_simple(session_id, "post", body)
        mailbox = self._open_mailbox()
        if mailbox is None:  # a relay of another kind: it cannot bring answers back
            return _error(503, "this server's relay cannot carry answers back; ask its operator")
        failed = self._publish(session_id, "post", body, mailbox.address)
        if failed is not None:
            mailbox.close()
            return failed
        return self._answer(request, mailbox, msg["id"], mailbox.close,
                            still_wanted=lambda: self._still_held(session_id))

    def _relay_get(self, request: Request, session_id: str) -> Response:
        mailbox = self._open_mailbox()
        if mailbox is None:  # a relay of another kind: it cannot bring messages back
            return _error(405, "no GET stream here", headers={"Allow": "POST, DELETE"})
        failed = self._publish(session_id, "listen", reply=mailbox.address)
        if failed is not None:
            mailbox.close()
            return failed
        writer = SseStreamWriter(pollable(client_socket(request.environ)), self.keepalive,
                                 lambda: self._still_held(session_id))

        def events() -> Iterable[bytes]:
            try:
                yield OPENING
                yield from writer.events(mailbox)
            finally:
                mailbox.close()
                self._publish(session_id, "unlisten", reply=mailbox.address)  # best effort

        return Response(events(), status=200, mimetype="text/event-stream", headers=SSE_HEADERS)

    def _still_held(self, session_id: str) -> bool:
        try:
            return self.relay.is_live(_relay_key(session_id))
        except RelayUnavailable:
            return True  # cannot tell now: keep waiting

    def _relayed(self, transport: _SessionTransport, payload: bytes) -> None:
        """A message for a session of ours, relayed from the process where it arrived (called
        on the relay's thread: it must not block)."""
        header, _, body = payload.partition(b"\n")
        try:
            meta = json.loads(header)
            kind, reply = meta["kind"], meta["reply"]
        except (ValueError, KeyError, TypeError):
            log.warning("relay: dropped a relayed message that was not ours")
            return
        if kind == "post":
            try:
                msg = messages.decode(body)
                message_kind = messages.classify(msg)  # checked where it arrived: this cannot fail
            except McpError:
                return
            stream = _RelayedStream(self.relay, reply) if message_kind is messages.REQUEST else None
            refusal = transport.take(body, msg, message_kind, stream)
            if refusal is not None and stream is not None:
                error = refusal if refusal.code != CONNECTION_CLOSED else McpError(_GONE, code=CONNECTION_CLOSED)
                try:
                    stream.put(messages.encode(messages.error_response(msg["id"], error)), 1.0)
                except (OSError, TimeoutError):
                    pass
        elif kind == "listen" and isinstance(reply, str):
            transport.listen(_RelayedStream(self.relay, reply))
        elif kind == "unlisten" and isinstance(reply, str):
            transport.unlisten(address=reply)
        elif kind == "delete" and transport.session is not None:  # closing may take a second: not here
            threading.Thread(target=transport.session.close, args=("the client ended the session (HTTP DELETE)",),
                             name="mcp_ref-http-delete", daemon=True).start()

    # --- ending sessions ---------------------------------------------------------------------------

    def _forget(self, session_id: str) -> None:
        self.relay.release(_relay_key(session_id))
        with self._lock:
            transport = self._sessions.pop(session_id, None)
        if transport is not None:
            transport.close()

    def _start_sweeper(self) -> None:
        if self._sweeper is None:
            with self._lock:
                if self._sweeper is None and not self._stopping.is_set():
                    self._sweeper = threading.Thread(target=self._sweep_forever, name="mcp_ref-http-sweeper",
                                                     daemon=True)
                    self._sweeper.start()

    def _sweep_forever(self) -> None:
        while not self._stopping.wait(min(SWEEP_SECONDS, max(0.05, self.idle_timeout / 4))):
            with self._lock:
                idle = self._idle_sessions()
            for transport in idle:
                if transport.session is not None:
                    transport.session.close(f"unused for {self.idle_timeout:g} s")

    def _idle_sessions(self) -> list[_SessionTransport]:
        now = time.monotonic()
        idle = []
        for transport in self._sessions.values():
            since = transport.idle_since()
            if since is not None and now - since >= self.idle_timeout:
                idle.append(transport)
        return idle

    def _sweep_locked(self) -> None:
        """Make room for a new session by ending idle ones (called with ``_lock`` held)."""
        for transport in self._idle_sessions():
            del self._sessions[transport.session_id]
            if transport.session is not None:
                threading.Thread(target=transport.session.close, args=(f"unused for {self.idle_timeout:g} s",),
                                 daemon=True).start()


_GONE = "Session not found: it ended or the server restarted; start a new session with initialize"


def _abandon(stream: _LocalStream) -> None:
    """The response is over: nothing more goes into its queue."""
    stream.abandon()


def _accepted() -> Response:
    return Response(status=202)  # SHTTP-12: accepted, no body


def _json(status: int, body: bytes, headers: dict[str, str] | None = None) -> Response:
    return Response(body, status=status, mimetype="application/json", headers=headers)


def _error(status: int, text: str, *, code: int = INVALID_REQUEST, headers: dict[str, str] | None = None,
           request_id: RequestId | None = None) -> Response:
    """An HTTP error whose body is a JSON-RPC error (SHTTP-13): every client can show it. Its id is
    null, or the refused request's own when one was read, so the client knows which failed."""
    if status == 404 and text == _GONE:
        code = CONNECTION_CLOSED
    body = messages.encode(messages.error_response(request_id, McpError(text, code=code)))
    return _json(status, body, headers)


def _hostname(host: str) -> str:
    """``example.com:8000`` -> ``example.com``; ``[::1]:8000`` -> ``::1``."""
    return urllib.parse.urlsplit(f"//{host}").hostname or ""
