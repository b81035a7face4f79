"""The session engine: one reader thread, a bounded pool, and a Future per request we send.

Not a spec page of its own: the engine under both faces (client.py, server.py). It does what
basic/messages asks of each party to the conversation, and knows no MCP method but the two base
notifications it must act on. https://modelcontextprotocol.io/specification/2024-11-05/basic/messages

1. A session is one connection, seen from one side; both sides ask, answer and notify alike.
2. One *reader thread* reads the peer's messages one after another and classifies each
   (messages.py). An answer settles the request of ours that has its id (MSG-05). A
   notification is handled at once, on the reader, so notifications are handled in the order
   they came: cancellation and progress here (their pages), any other by the face's
   ``on_notification``. A request goes to the session's *pool* (machinery/threads/pool.py), whose
   threads run the face's ``on_request`` and send its result or error back as the request's one
   answer; the reader goes back to reading at once. So while a handler runs, or blocks, or asks
   the peer something and waits (sampling, roots), a ping is still answered, a cancellation
   seen, and the answer to the handler's own request read. A few methods (the face names them:
   ``initialize``, ``ping``) run on the reader itself, before the next message is read.
3. Our request gets an id new to the session (MSG-04) and a ``concurrent.futures.Future``, kept
   in the *pending* table under that id until its answer comes; the caller waits on the Future,
   no longer than the request's timeout (LC-24). Whoever takes the entry out of the table
   settles the Future: the reader with the answer, or the caller giving up (its time ran out, it
   cancelled, it was interrupted, the session closed), who then tells the peer
   (cancellation.py). So a Future is settled exactly once, an answer that arrives late finds
   nothing (CAN-10, CAN-11), and a request that was answered is never cancelled.
4. At the end (end of input, ``close()``, a broken transport) every request still pending fails
   with ``ConnectionClosed``, and every running handler is told through its cancellation flag.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from . import cancellation, messages, progress
from .lifecycle import LifecycleState, since
from .machinery.threads.outgoing import CANCEL_NOTICE_TIMEOUT, OutgoingRequest
from .machinery.threads.pool import DEFAULT_MAX_QUEUED, Pool, PoolFull
from .machinery.threads.unmatched import Unmatched, meant_for
from .machinery.transport import Transport
from .messages import ConnectionClosed, InternalError, InvalidParams, InvalidRequest, McpError, Message, MessageTooLong, RequestId

log = logging.getLogger("mcp_ref.session")

DEFAULT_TIMEOUT = 30.0  # seconds; LC-24: every request has a timeout
DEFAULT_MAX_RUNNING = 16  # requests of the peer running at once
CLOSE_NOTICE_BUDGET = 1.0  # seconds all the cancellation notices sent by close() may take together
END_OF_INPUT_GRACE = 1.5  # seconds running requests get to answer at end of input (< stdio.STDIN_CLOSE_GRACE)

RequestHandler = Callable[["RequestContext"], dict[str, Any]]
NotificationHandler = Callable[["Session", str, dict[str, Any]], None]
ProgressCallback = progress.ProgressCallback
TraceCallback = Callable[[str, bytes], None]
RequestHook = Callable[[RequestId], contextlib.AbstractContextManager[Any]]


class RequestContext(cancellation.Cancellable, progress.ReportsProgress):
    """What a handler knows of the request it answers: ``request_id``, ``method``, ``params`` (``{}``
    when none), ``session``, and from the pages of basic/utilities ``ctx.cancelled`` and
    ``ctx.report_progress``. A server's handlers get server.RequestContext, which adds its helpers."""

    def __init__(self, session: Session, request_id: RequestId | None, method: str, params: dict[str, Any]):
        self.session = session
        self.request_id = request_id
        self.method, self.params = method, params
        self.cancellation = cancellation.Cancellation()  # the flag cancellation.receive sets
        self.progress = progress.Reporter(progress.token_of(params), session.notify,  # and since when a message goes:
                                          lambda: since(session.lifecycle.protocol_version, "2025-03-26"))

    def request(self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None,
                on_progress: ProgressCallback | None = None) -> dict[str, Any]:  # ask the peer, from a handler
        return self.session.request(method, params, timeout=timeout, on_progress=on_progress)

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        self.session.notify(method, params)


class Session:
    """One MCP connection over one transport, seen from one side.

    ``on_request(ctx)`` answers the peer's requests (a result dict, or raise ``McpError``), given a
    ``context(session, id, method, params)``; ``knows_method`` says which methods it serves (any
    other is -32601). ``inline_methods`` run on the reader thread, before the next message is
    read; the others on the pool, at most ``max_running`` at once with at most ``max_queued``
    waiting. ``on_notification`` runs on the reader thread, in order. ``trace(direction, data)``
    sees every message. ``around_request(request_id)``, a context manager, is entered around each
    handler, on the handler's thread (Streamable HTTP installs one to know which request a
    message belongs to). ``on_batch(session, array)``, when set, takes a JSON array the peer sent
    (revision 2025-03-26 has JSON-RPC batches: revisions/batches.py); otherwise an array is -32600."""

    def __init__(self, transport: Transport, *, on_request: RequestHandler, on_notification: NotificationHandler,
                 inline_methods: frozenset[str] = frozenset(), knows_method: Callable[[str], bool] | None = None,
                 context: type[RequestContext] = RequestContext, default_timeout: float = DEFAULT_TIMEOUT,
                 max_running: int = DEFAULT_MAX_RUNNING, max_queued: int = DEFAULT_MAX_QUEUED,
                 trace: TraceCallback | None = None, name: str = "mcp_ref"):
        self._transport = transport
        self._on_request = on_request
        self._on_notification = on_notification
        self._inline_methods = inline_methods
        self.knows_method = knows_method  # (public: the HTTP endpoint of 2026-07-28 asks it too)
        self._context = context
        self.default_timeout = default_timeout
        self._trace = trace
        self.name = name
        self.around_request: RequestHook = contextlib.nullcontext
        self.on_batch: Callable[[Session, list[Any]], None] | None = None  # set where a revision has batches
        self.lifecycle = LifecycleState()  # the phase, and what initialization agreed (lifecycle.py)
        self.state: dict[str, Any] = {}  # per-session data of the layers above (a log level, say)
        self._lock = threading.Lock()  # guards every change to the three tables, and _closed
        self._pending: dict[RequestId, OutgoingRequest] = {}  # ours, awaiting their answers
        self._progress: dict[RequestId, ProgressCallback] = {}  # progress token -> callback, for ours
        self._running: dict[RequestId, RequestContext] = {}  # the peer's, not yet answered
        self._ids = itertools.count(1)  # MSG-04: ids are never reused within a session
        self.unmatched = Unmatched()  # what the peer sent that matched no request of ours (unmatched.py)
        self._closed = False
        self.close_reason: str | None = None
        self.closed = threading.Event()  # set once, when the session has fully closed
        self._close_callbacks: list[Callable[[Session], None]] = []
        self._pool = Pool(f"{name}-worker", max_running, max_queued)
        self._reader = threading.Thread(target=self._read_all, name=f"{name}-reader", daemon=True)

    # --- running and ending ----------------------------------------------------------------------

    def start(self) -> None:
        """Start the reader thread (a daemon: it ends with the input, and never holds the program)."""
        self._reader.start()

    def _read_all(self) -> None:
        """The reader thread: every message the peer sends, in order, until the input ends."""
        while True:
            try:
                data = self._transport.receive()
            except McpError as exc:  # a message the transport discarded (a line too long): say so, read on
                self._discarded(exc)
                continue
            except Exception as exc:  # OSError or worse: the channel is unusable
                self._shutdown(f"transport failed: {exc}")
                return
            if data is None:
                self._input_ended()
                return
            try:
                self._dispatch(data)
            except Exception:  # a bug of ours must not end the session: drop this one message
                log.exception("%s: could not dispatch a message; it was dropped", self.name)

    def _discarded(self, exc: McpError) -> None:
        """A message the transport could not read whole (a line over its size limit). When it was
        the answer to a request of ours, that request fails now, saying why: waiting longer could
        not bring its answer. Anything else is answered as the bad message it is (-32600)."""
        if isinstance(exc, MessageTooLong):
            out = meant_for(exc.head, self._pending)
            if out is not None and self._forget(out.id):  # (answers are never answered: MSG-06)
                out.future.set_exception(InvalidRequest(
                    f"the answer to {out.method} (id {out.id}) was longer than the {exc.limit}-byte limit "
                    "and was discarded unread; max_line_bytes= raises the limit"))
                return
            self.unmatched.add("too long", f"a message over the {exc.limit}-byte limit")
        self._answer(None, exc)

    def _input_ended(self) -> None:
        """LC-19: the peer closed its side. Requests still running get a grace to answer, so
        ``printf '...' | mcp-ref serve`` still shows every answer; then the session ends."""
        if not self._closed:
            self._pool.wait_idle(END_OF_INPUT_GRACE)
        self._shutdown(self._transport.describe_close())

    def run_in_background(self, fn: Callable[..., None], *args: Any) -> None:
        """Run ``fn(*args)`` on the session's pool (work, started by a notification, that sends
        requests); dropped, with a warning, when the pool is full."""
        try:
            self._pool.submit(functools.partial(fn, *args))
        except PoolFull as exc:
            log.warning("%s: dropped background work %r: %s", self.name, fn, exc)

    def on_close(self, callback: Callable[[Session], None]) -> None:
        """Call ``callback(session)`` once the session has closed (at once if it already has)."""
        with self._lock:
            if not self._closed:
                self._close_callbacks.append(callback)
                return
        callback(self)

    def close(self, reason: str = "closed by this side") -> None:
        """Close the connection. Our requests still waiting are given up first, so the peer does not
        work on for nobody (CAN-01; the notices take ``CLOSE_NOTICE_BUDGET`` seconds in all)."""
        with self._lock:
            pending = [] if self._closed else list(self._pending.values())
        deadline = time.monotonic() + CLOSE_NOTICE_BUDGET
        for out in pending:
            self.give_up(out, reason, deadline - time.monotonic(),
                         ConnectionClosed(f"Connection closed: {reason} (while waiting for {out.method})"))
        self._shutdown(reason)

    def _shutdown(self, reason: str, *, wait: bool = True) -> None:
        """All waiting fail at once; the transport is released (``wait=False``: on a thread of its own)."""
        with self._lock:
            if self._closed:
                return
            self._closed, self.close_reason = True, reason
            pending = list(self._pending.values())
            self._pending.clear()
            self._progress.clear()
            running = list(self._running.values())
        for out in pending:
            out.future.set_exception(ConnectionClosed(f"Connection closed: {reason} (while waiting for {out.method})"))
        for ctx in running:
            ctx.cancellation.set(f"connection closed: {reason}")
        self._pool.stop()
        if wait:
            self._release()
        else:
            threading.Thread(target=self._release, name=f"{self.name}-closing", daemon=True).start()

    def _release(self) -> None:
        try:
            self._transport.close()
        except Exception:
            log.debug("error while closing transport", exc_info=True)
        self.closed.set()
        for callback in self._close_callbacks:
            try:
                callback(self)
            except Exception:
                log.exception("error in on_close callback")

    @property
    def is_closed(self) -> bool:
        return self._closed

    def stats(self) -> dict[str, Any]:
        """What this session holds now, for an operator: its transport's own figures, where it keeps
        any (machinery/transport.py, point 5), the peer's requests running or waiting for a thread,
        ours waiting for answers, and the threads it holds (its reader, and its pool's)."""
        held: dict[str, Any] = getattr(self._transport, "stats", dict)()  # (optional: the engine needs none)
        return {**held, "requests_running": len(self._running), "requests_waiting_for_answers": len(self._pending),
                "threads": self._pool.threads + self._reader.is_alive()}

    # --- sending ---------------------------------------------------------------------------------

    def _write(self, data: bytes, timeout: float | None = None) -> None:
        """One message to the transport in time (``TimeoutError``), or ``ConnectionClosed`` if it broke."""
        if self._trace is not None:
            self._trace("->", data)
        try:
            self._transport.send(data, self.default_timeout if timeout is None else timeout)
        except TimeoutError:
            raise
        except (OSError, ValueError) as exc:  # ValueError: write to a closed file
            self._shutdown(f"could not send: {exc}", wait=False)
            raise ConnectionClosed(f"Connection closed: could not send ({exc})") from exc

    def _answer(self, request_id: RequestId | None, outcome: dict[str, Any] | McpError, method: str = "") -> None:
        """Send a request's one answer, always strict JSON; a peer gone or not reading misses it."""
        try:
            self._write(messages.encode_answer(request_id, outcome, method))  # MSG-05
        except (McpError, TimeoutError) as exc:
            log.debug("%s: dropped a response: %s", self.name, exc)

    def start_request(self, method: str, params: dict[str, Any] | None = None, *,
                      on_progress: ProgressCallback | None = None, timeout: float | None = None) -> OutgoingRequest:
        """Send a request and return at once; ``.result()`` waits for its answer. ``timeout`` (default:
        the session's) covers sending too. Params that are not strict JSON: ``InvalidParams``, at once."""
        if threading.current_thread() is self._reader:  # its answer could never be read: fail loudly
            raise RuntimeError(f"cannot send {method!r} from the session's reader thread (a notification callback runs "
                               "there), which must stay free to read the answer. Hand the work to another thread.")
        timeout = self.default_timeout if timeout is None else timeout
        request_id = next(self._ids)  # MSG-04: never reused within the session
        if on_progress is not None:  # PROG-01, PROG-02: the request id is a unique token
            params = progress.ask_for_progress(params, request_id)
        try:
            data = messages.encode(messages.request(request_id, method, params))
        except messages.NotJson as exc:  # the caller's mistake: say so now, keep nothing pending
            raise InvalidParams(f"cannot send {messages.printable(method)}: its params are not strict JSON ({exc})") from None
        out = OutgoingRequest(self, request_id, method, timeout)
        with self._lock:
            if self._closed:
                raise ConnectionClosed(f"Connection closed: {self.close_reason}; cannot send {method}")
            self._pending[request_id] = out
            if on_progress is not None:
                self._progress[request_id] = on_progress
        try:
            self._write(data, timeout)
        except TimeoutError:
            out.time_out(timeout)  # raises RequestTimeout, unless it was answered all the same
        except McpError:
            self._forget(request_id)
            raise
        return out

    def request(self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None,
                on_progress: ProgressCallback | None = None) -> dict[str, Any]:
        """Send a request and wait for its result (``start_request``, ``OutgoingRequest.result``)."""
        return self.start_request(method, params, on_progress=on_progress, timeout=timeout).result()

    def notify(self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None) -> None:
        """Send a notification; ``messages.NotJson`` if its params are not strict JSON."""
        if self._closed:
            raise ConnectionClosed(f"Connection closed: {self.close_reason}; cannot send {method}")
        self._write(messages.encode(messages.notification(method, params)), timeout)  # MSG-08: no id

    def _forget(self, request_id: RequestId) -> bool:
        """Take our request out of the pending table; True if it was there (settling it is then ours)."""
        with self._lock:
            self._progress.pop(request_id, None)
            return self._pending.pop(request_id, None) is not None

    def give_up(self, out: OutgoingRequest, reason: str | None, notice_timeout: float = CANCEL_NOTICE_TIMEOUT,
                error: McpError | None = None) -> bool:
        """Stop waiting for ``out``, tell the peer, fail its caller (``RequestCancelled``); False if answered."""
        if not self._forget(out.id):  # CAN-02, CAN-17: only while it is still pending
            return False
        if notice_timeout > 0:
            cancellation.tell_peer(self.notify, out.id, out.method, reason, notice_timeout)  # CAN-01
        out.future.set_exception(error or messages.RequestCancelled(f"{out.method} was cancelled: {reason or 'no reason given'}"))
        return True

    # --- receiving (on the reader thread) --------------------------------------------------------

    def _dispatch(self, data: bytes) -> None:
        """One message the reader read: classify it and hand it on."""
        if self._trace is not None:
            self._trace("<-", data)
        try:
            msg = messages.decode(data)
            if type(msg) is list and self.on_batch is not None:  # a JSON array, in a revision with batches
                self.on_batch(self, msg)
                return
            kind = messages.classify(msg)
        except InvalidRequest as exc:
            self.unmatched.add("not JSON-RPC", f"a message that is not JSON-RPC ({exc.message})")
            self._answer(exc.request_id, exc)
            return
        except McpError as exc:  # ParseError: the id cannot be known, so it is null
            self.unmatched.add("not JSON", f"a line that is not JSON ({messages.printable(repr(data[:40]))[1:]})")
            self._answer(None, exc)
            return
        if kind is messages.RESPONSE:
            self._on_response(msg)
        elif kind is messages.REQUEST:
            self._on_incoming_request(msg)
        else:
            self._on_incoming_notification(msg)

    def _on_response(self, msg: Message) -> None:
        request_id = msg.get("id")
        out = None
        # CAN-11: whoever takes the entry out of the pending table settles it; a late one finds nothing
        if messages.is_valid_id(request_id):
            with self._lock:
                out = self._pending.pop(request_id, None)
                self._progress.pop(request_id, None)
        if out is None:  # CAN-10: late, after we gave up; or about a message of ours the peer could not parse
            self.unmatched.answer(request_id, self._pending)  # kept, to say so if a request times out
            return
        outcome = messages.outcome(msg, out.method)  # MSG-01, MSG-06: its result, or the error to raise
        if isinstance(outcome, BaseException):
            out.future.set_exception(outcome)
        else:
            out.future.set_result(outcome)

    def _on_incoming_request(self, msg: Message) -> None:
        request_id = msg["id"]
        params = msg.get("params")
        ctx = self._context(self, request_id, msg["method"], params if isinstance(params, dict) else {})
        with self._lock:
            duplicate = request_id in self._running  # MSG-04, broken by the peer
            if not duplicate:
                self._running[request_id] = ctx
        if duplicate:
            self._answer(request_id, InvalidRequest(f"Invalid Request: id {request_id!r} is already in use"))
        elif params is not None and not isinstance(params, dict) and (self.knows_method is None
                                                                      or self.knows_method(ctx.method)):
            # (for a method it does not serve, on_request answers -32601 first: JSON-RPC order)
            self._finish(ctx, InvalidParams("Invalid params: MCP params must be an object"))
        elif ctx.method in self._inline_methods:
            self._run_request(ctx)
        else:
            try:
                self._pool.submit(functools.partial(self._run_request, ctx))
            except PoolFull as exc:  # MSG-05: every thread busy and the queue full: refuse it now, still once
                self._finish(ctx, InternalError(f"Server busy: {exc}"))

    def _on_incoming_notification(self, msg: Message) -> None:
        method = msg["method"]
        params = msg["params"] if isinstance(msg.get("params"), dict) else {}
        if method == cancellation.METHOD:  # CAN-04: read while the handler runs on the pool, so it hears it
            cancellation.receive(params, self._running.get)
        elif method == progress.METHOD:
            progress.deliver(params, self._progress.get)
        else:
            try:
                self._on_notification(self, method, params)
            except Exception:
                log.exception("notification handler for %s failed", method)

    # --- running a request of the peer (on a thread of the pool) ---------------------------------

    def _run_request(self, ctx: RequestContext) -> None:
        if ctx.cancellation.is_set:  # CAN-05: cancelled while it waited for a free thread: it never runs
            self._finish(ctx, None)
            return
        outcome: dict[str, Any] | McpError
        try:
            with self.around_request(ctx.request_id):  # type: ignore[arg-type]  # a request's id
                outcome = self._on_request(ctx)
            if not isinstance(outcome, dict):  # a result is always a JSON object
                raise TypeError(f"the handler for {ctx.method} returned {type(outcome).__name__}, not a dict")
        except McpError as exc:
            outcome = exc
        except Exception:  # MSG-09, LOG-04: one short sentence; the details go to our log, not the peer
            log.exception("handler for %s failed", ctx.method)
            outcome = InternalError(f"Internal error while handling {messages.printable(ctx.method)}")
        except BaseException as exc:  # SystemExit and the like: still one answer per request
            log.error("handler for %s raised %s", ctx.method, type(exc).__name__)
            outcome = InternalError(f"Internal error: the handler for {messages.printable(ctx.method)} "
                                    f"was stopped ({type(exc).__name__})")
        self._finish(ctx, outcome)

    def _finish(self, ctx: RequestContext, outcome: dict[str, Any] | McpError | None) -> None:
        with self._lock:
            self._running.pop(ctx.request_id, None)  # type: ignore[arg-type]  # a request's id
            ctx.progress.finish()  # PROG-15: no progress after the answer
        if outcome is not None and not ctx.cancellation.is_set:  # CAN-06: no answer to a cancelled request
            self._answer(ctx.request_id, outcome, ctx.method)
