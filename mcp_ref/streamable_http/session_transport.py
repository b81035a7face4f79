"""One Streamable HTTP session as the engine sees it: its inbox, and the streams its messages go out on.

Not a spec section: the session's side of streamable_http/server_app.py (the transport of revision
2025-03-26), whose ``StreamableHttpApp`` makes one ``SessionTransport`` per session and hands it
the streams of the HTTP responses it writes. The page's rules of where each message goes (its
points 3 and 4) are kept here, each ID at its line; what this module adds is the bookkeeping and
the bounds. In short:

1. What a POST brings goes into ``inbox`` (``take``), which the engine reads (``receive``). A
   request gets a *route*: the stream its answer will go on, the response of the POST that
   carried it. At most ``max_in_flight`` routes at once (one more is ``Busy``: HTTP 503); an id
   already in flight is refused, and the first request keeps its stream (MSG-04).
2. Each message the engine sends goes on exactly one stream (``send``): a response on its
   request's, which is then done; a message sent while a handler of this session runs
   on that request's; anything else on the GET stream. A message whose
   stream is gone is dropped, never sent elsewhere. Which request a message is sent for, the
   engine does not say; the thread that sends it does. A handler runs on one thread from start to
   end, and the engine enters ``SessionTransport.handling(request_id)`` around it (the app
   installs it as the session's ``around_request``), which marks that thread as handling that
   request of this transport (a ``contextvars.ContextVar``: per thread). So a message sent from
   a handler's thread belongs to its request; one sent from a thread the handler started itself,
   or by a handler of another session (a broadcast of ``list_changed``), belongs to none.
3. While no GET stream is open, what belongs on it waits in a backlog of at most ``max_queued``
   messages and ``max_queued_bytes`` in all, the oldest dropped first; the next GET stream gets
   them. A newer GET stream replaces the older one, which ends.
4. A stream this process writes (``LocalStream``) is a bounded queue that the response's writer
   drains (machinery/http/event_streams.py): at most ``max_queued`` messages of at most
   ``max_queued_bytes`` in all. A sender that finds no room waits up to its timeout; then the
   stream is given up and its socket shut down. A stream that another process writes is
   reached through the relay (``RelayedStream``, streamable_http/relayed.py).
5. ``notifications/cancelled`` ends the stream of the request it cancels (no answer follows,
   CAN-06); the end of the session ends every stream, answered or not.
"""

from __future__ import annotations

import collections
import contextlib
import contextvars
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from .. import messages
from ..machinery.http.queues import Full, Inbox, Outbox
from ..messages import CONNECTION_CLOSED, INVALID_REQUEST, McpError, RequestId

log = logging.getLogger("mcp_ref.streamable_http")  # the transport's own logger, as before the split


class OpenedSession(Protocol):
    """The session a ``SessionTransport`` serves (session.Session), as the app uses it: started
    once opened, closed on DELETE, when unused, or when the server shuts down; its
    ``around_request`` hook is the transport's ``handling``; its ``lifecycle`` says which revision
    it agreed on (a batch is taken only in one of 2025-03-26: revisions/http_transport.py)."""

    around_request: Callable[[Any], contextlib.AbstractContextManager[Any]]
    lifecycle: Any

    def start(self) -> None: ...

    def close(self, reason: str = ...) -> None: ...

    def on_close(self, callback: Callable[[Any], None]) -> None: ...


# --- where the engine's messages go: streams ------------------------------------------------------


class Stream(Protocol):
    """One HTTP response being written, as the session sees it: ``put`` a message on it (within
    ``timeout``: ``TimeoutError`` if its writer took nothing; ``OSError`` if its client or
    writer is gone), ``end`` it."""

    def put(self, data: bytes, timeout: float | None) -> None: ...

    def end(self) -> None: ...


class LocalStream:
    """A response this process writes: an outbox (http/queues.py) its writer drains, bounded in
    messages and bytes. A sender that finds no room in time gives the stream up: the client is
    not reading, and its socket is shut down, so the stuck writer lets go at once."""

    def __init__(self, max_queued: int, sock: Any, max_queued_bytes: int) -> None:
        self.outbox = Outbox(max_queued, max_queued_bytes)
        self.gone = False
        self._socket = sock

    def put(self, data: bytes, timeout: float | None) -> None:
        if self.gone:
            raise OSError("the client left this stream")
        try:
            self.outbox.put(data, timeout)
        except Full as unread:
            self.gone = True
            if self._socket is not None:
                try:
                    self._socket.shutdown(2)  # SHUT_RDWR: fails the write the writer is stuck in
                except OSError:
                    pass
            raise TimeoutError(f"the client took nothing from its stream in time, with {unread}; "
                               "giving the stream up") from None
        except OSError:
            raise OSError("the client left this stream") from None

    def end(self) -> None:
        self.outbox.end()

    def get(self, timeout: float | None = None) -> bytes | None:
        return self.outbox.get(timeout)

    def abandon(self) -> None:
        """The response is over: nothing more goes in, and a sender waiting for room gives up."""
        self.gone = True
        self.outbox.close()


class Route:
    """A request of the client in flight: the stream its answer goes on."""

    __slots__ = ("stream", "method")

    def __init__(self, stream: Stream, method: str) -> None:
        self.stream = stream
        self.method = method


# --- the session's transport ----------------------------------------------------------------------


# Which request of which session the current thread is handling (point 2): set by ``handling``.
_HANDLING: contextvars.ContextVar[tuple[object, RequestId] | None] = contextvars.ContextVar(
    "mcp_ref_handling", default=None)


class SessionTransport(Inbox):
    """The engine's transport for one session: what POSTs bring is delivered to its inbox
    (http/queues.py's ``Inbox``, which the session's reader reads); each message
    the engine sends goes on one stream (SHTTP-30), chosen by what it is:

    - a response: on the stream of the POST that carried its request (SHTTP-14, 16);
    - anything sent while the engine handles one of this session's requests (``handling``):
      on that request's stream (SHTTP-17), or nowhere if that stream is gone;
    - anything else: on the GET stream (SHTTP-26); while there is none, into a backlog of at most
      ``max_queued`` messages (the oldest dropped beyond it) that the next GET stream receives.
    """

    def __init__(self, session_id: str, max_queued: int, max_in_flight: int, max_queued_bytes: int) -> None:
        super().__init__()
        self.session_id = session_id
        self.session: OpenedSession | None = None
        self.last_seen = time.monotonic()
        self._max_in_flight = max_in_flight
        self._lock = threading.Lock()
        self._routes: dict[RequestId, Route] = {}
        self._listener: Stream | None = None
        self._backlog: collections.deque[bytes] = collections.deque(maxlen=max_queued)
        self._backlog_bytes = 0
        self._max_backlog_bytes = max_queued_bytes
        self._closed = False

    # --- what the client sent (from the HTTP side) ---

    def take(self, body: bytes, msg: dict[str, Any], kind: str, stream: Stream | None) -> McpError | None:
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
                    return Busy(f"this session already has {self._max_in_flight} requests in progress")
                assert stream is not None
                self._routes[request_id] = Route(stream, msg["method"])
            elif kind is messages.NOTIFICATION and msg["method"] == "notifications/cancelled":
                self._cancelled(msg.get("params"))
            self.deliver(body)  # under the lock: the order of messages and routes is the client's
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

    def listen(self, stream: Stream) -> None:
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

    def unlisten(self, stream: Stream | None = None, address: str | None = None) -> None:
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

    # --- the engine's side (transport.Transport, and the session's around_request hook) ---

    @contextlib.contextmanager
    def handling(self, request_id: RequestId) -> Iterator[None]:
        """Around a handler, on its thread: what it sends belongs to ``request_id`` (point 2)."""
        token = _HANDLING.set((self, request_id))
        try:
            yield
        finally:
            _HANDLING.reset(token)

    def _handled_here(self) -> RequestId | None:
        """The id of the request of this session the current thread is handling, or None."""
        value = _HANDLING.get()
        return value[1] if value is not None and value[0] is self else None

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
                request_id = self._handled_here()
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

    def _stream_failed(self, stream: Stream) -> None:
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
        self.deliver(None)
        for stream in streams:  # SHTTP-18: they end now, answered or not, as the session has
            stream.end()

    def describe_close(self) -> str:
        return "the Streamable HTTP session ended"

    def stats(self) -> dict[str, Any]:
        """What it holds (transport.py): its open streams (each request's, the GET stream), and the
        messages and bytes waiting on those this process writes, and in the GET stream's backlog."""
        with self._lock:
            streams = [route.stream for route in self._routes.values()] + ([self._listener] if self._listener else [])
            outboxes = [stream.outbox for stream in streams if isinstance(stream, LocalStream)]
            return {"kind": "streamable_http", "streams": len(streams),
                    "queued_messages": len(self._backlog) + sum(box.count for box in outboxes),
                    "queued_bytes": self._backlog_bytes + sum(box.queued_bytes for box in outboxes)}


class Busy(McpError):
    """Too many requests of one session in flight: HTTP 503 with Retry-After."""

    code = INVALID_REQUEST
