"""The session engine both sides share, and the base utilities: ping, cancellation, progress.

Spec pages:
  https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/ping
  https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/cancellation
  https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/progress

An MCP connection is symmetric: each side sends requests, answers the other's requests, and
sends notifications. This module is the machinery for that, with no knowledge of tools or
resources. In short:

1. One thread at a time, the *reader*, reads whole messages from the transport and classifies them
   (see messages.py). Responses resolve the ``Reply`` of the waiting caller; the table of
   pending requests is guarded by a lock, and whoever removes an entry from it is the one who
   resolves its Reply, so each Reply is resolved exactly once.
2. The reader runs each incoming request itself; if one runs longer than a few milliseconds, a
   standby thread takes over the reading (crew.py). So a handler may block, and may itself send
   a request to the peer (a tool asking the client for sampling) without deadlock: the answer to
   that nested request is read by the new reader. Notifications run on the reader, in order.
   On a client over stdio, a caller waiting for its answer is itself the reader when nobody
   else is reading, so its answer needs no hand-off between threads (crew.py, rule 6).
3. Ping: either side may send ``ping`` at any time; the other answers ``{}`` promptly (PING-01).
4. Cancellation: a side that gives up on a request sends ``notifications/cancelled`` with the
   request's id (CAN-01, CAN-20); ``request()`` does so by itself when its timeout runs out.
   The receiver flags the handler's context and sends no response (CAN-04, CAN-06); a late
   response to a cancelled request is dropped quietly (CAN-10). ``initialize`` is never
   cancelled (CAN-03).
5. Progress: a requester that wants progress puts ``_meta.progressToken`` in the params
   (PROG-01, PROG-02; we use the request id, unique among active requests). The receiver may
   send ``notifications/progress`` with that token and an increasing ``progress`` value until
   it answers (PROG-06, PROG-15).
6. When the transport ends (EOF, peer gone, close()), every pending request fails at once with
   ``ConnectionClosed``, running handlers are flagged as cancelled, and the crew stops.

Thread-safety contract of a transport (see ``Transport``): ``receive`` is called by one thread
at a time; ``send`` may be called from any thread, must write each message whole, and is bounded
by a timeout.
"""

from __future__ import annotations

import functools
import itertools
import logging
import math
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from . import messages
from .lifecycle import LifecycleState
from .machinery import related
from .machinery.crew import Crew, CrewFull, Request
from .messages import (
    ConnectionClosed,
    InternalError,
    InvalidParams,
    InvalidRequest,
    McpError,
    Message,
    RequestId,
    RequestTimeout,
)

log = logging.getLogger("mcp_ref.session")

DEFAULT_TIMEOUT = 30.0  # seconds; LC-24: every request has a timeout
DEFAULT_MAX_WORKERS = 16
# Seconds we give the peer to take a notifications/cancelled; after that it is dropped (a peer
# that does not read is often why we cancel).
CANCEL_NOTICE_TIMEOUT = 2.0
# Seconds all the cancellation notices sent by close() may take together.
CLOSE_NOTICE_BUDGET = 1.0
# Seconds a request still running at the end of input has to send its answer (less than a
# client waits after closing our stdin before it sends SIGTERM, stdio.STDIN_CLOSE_GRACE).
END_OF_INPUT_GRACE = 1.5

RequestHandler = Callable[["RequestContext"], dict[str, Any]]
NotificationHandler = Callable[["Session", str, dict[str, Any]], None]
ProgressCallback = Callable[[dict[str, Any]], None]
TraceCallback = Callable[[str, bytes], None]


class Transport(Protocol):
    """What a session needs from a transport: whole messages in, whole messages out.

    ``receive()`` blocks until one message (bytes of one JSON text) arrives and returns it, or
    returns None at end of stream. It may raise ``McpError`` for a framing error it recovered
    from (the session answers it and keeps reading), or ``OSError`` when the channel broke.
    ``send(data, timeout)`` writes one message whole, within ``timeout`` seconds; it is called
    from many threads and must not interleave messages. When the peer does not take the message
    in time it raises ``TimeoutError`` (if it had to cut a message short, the channel is broken
    from then on); when the channel is closed or broken it raises ``OSError``, and the session
    closes.
    ``close()`` releases the channel and must return promptly whatever the peer does (it must
    not wait for a send that is stuck); ``describe_close()`` says why the stream ended, for
    error messages (e.g. "server process exited with code 1").
    A transport that can also bound a read sets ``timed_receive = True`` and accepts
    ``receive(timeout)``, raising ``TimeoutError`` when no message came in time; a client's
    callers may then read their own answers (crew.py, rule 6).
    """

    def receive(self) -> bytes | None: ...

    def send(self, data: bytes, timeout: float | None = None) -> None: ...

    def close(self) -> None: ...

    def describe_close(self) -> str: ...


class RequestCancelled(McpError):
    """Local: this side cancelled its own request (``OutgoingRequest.cancel``)."""

    code = -32800


_EVENT_LOCK = threading.Lock()  # makes each RequestContext's cancellation Event exactly once


class RequestContext:
    """What a request handler knows about the request it is answering.

    ``request_id``, ``method`` and ``params`` are as on the wire (params is ``{}`` when the
    request had none). ``cancelled`` is an Event set when the peer cancels the request or the
    connection ends; long handlers should check ``ctx.is_cancelled`` or wait on it.
    ``session`` is the connection, so a handler can send its own requests to the peer.
    (``request_id`` is None for the context handed to a notification callback.)
    """

    def __init__(self, session: Session, request_id: RequestId | None, method: str, params: dict[str, Any]):
        self.session = session
        self.request_id = request_id
        self.method = method
        self.params = params
        meta = params.get("_meta")
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        # PROG-02: a token is a string or an integer; anything else (1e400 is a float, infinity)
        # is no token, so we never echo a value that is not JSON.
        self.progress_token: str | int | None = token if messages.is_valid_id(token) else None
        self._cancelled = False
        self._cancelled_event: threading.Event | None = None  # made when someone waits on it
        self.cancel_reason: str | None = None
        self._last_progress: float | None = None
        self._done = False

    @property
    def is_cancelled(self) -> bool:
        return self._cancelled

    @property
    def cancelled(self) -> threading.Event:
        """An Event set when the request is cancelled: ``ctx.cancelled.wait(0.1)`` sleeps a
        tenth of a second unless cancelled first. (Made on first use: most requests never
        need one.)"""
        with _EVENT_LOCK:
            if self._cancelled_event is None:
                self._cancelled_event = threading.Event()
                if self._cancelled:
                    self._cancelled_event.set()
            return self._cancelled_event

    def _cancel(self, reason: str | None) -> None:
        self.cancel_reason = reason
        with _EVENT_LOCK:
            self._cancelled = True
            if self._cancelled_event is not None:
                self._cancelled_event.set()

    def report_progress(self, progress: float, total: float | None = None) -> None:
        """Send ``notifications/progress`` for this request, if the requester asked for it.

        Does nothing when the request carried no progress token (PROG-10) or has already been
        answered (PROG-15). ``progress`` must grow with every call (PROG-06); floats are fine
        (PROG-07); ``total`` may be left out when unknown (PROG-12).
        """
        for name, value in (("progress", progress), ("total", total)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or not math.isfinite(value)):
                raise ValueError(f"{name} must be a finite number, got {value!r}")
        # PROG-10, PROG-11, PROG-17: whether and how often to report is the handler's choice
        if self.progress_token is None or self._done:  # PROG-08, PROG-09, PROG-15
            return
        # PROG-16: each value larger than the last, whether or not total is known
        if self._last_progress is not None and progress <= self._last_progress:  # PROG-06
            raise ValueError(
                f"progress must increase with each notification: {progress} after {self._last_progress}"
            )
        self._last_progress = progress
        # PROG-03, PROG-04, PROG-07: the request's own token and the work done so far (a float is fine)
        params: dict[str, Any] = {"progressToken": self.progress_token, "progress": progress}
        # PROG-05, PROG-12: total only when it is known
        if total is not None:
            params["total"] = total
        try:
            self.session.notify("notifications/progress", params)
        except messages.NotJson:  # the peer's token is a string with no UTF-8 form: drop it
            log.debug("progress token %r cannot be sent back; progress not reported", self.progress_token)

    def log(self, level: str, data: Any, logger: str | None = None) -> bool:
        """Server side: send the client a log message (server/utilities/logging), if ``level``
        passes the threshold the client set. Returns whether it was sent."""
        from .logs import send_log

        return send_log(self.session, level, data, logger)

    def create_message(
        self, messages: list[Any], max_tokens: int, *, system_prompt: str | None = None,
        include_context: str | None = None, temperature: float | None = None,
        stop_sequences: list[str] | None = None, model_preferences: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None, timeout: float | None = None,
    ) -> dict[str, Any]:
        """Server side: ask the client's model (client/sampling) and return its result dict.
        ``messages`` items are message dicts or plain strings (user text); options left as None
        are not sent. Raises ``McpError`` without sending anything if the client did not declare
        ``sampling``."""
        from .sampling import create_message

        return create_message(
            self.session, messages, max_tokens, timeout=timeout, system_prompt=system_prompt,
            include_context=include_context, temperature=temperature, stop_sequences=stop_sequences,
            model_preferences=model_preferences, metadata=metadata)

    def list_roots(self, *, timeout: float | None = None) -> list[dict[str, Any]]:
        """Server side: the client's roots (client/roots), or ``McpError`` if it declared none."""
        from .roots import list_roots

        return list_roots(self.session, timeout=timeout)

    def request(
        self, method: str, params: dict[str, Any] | None = None, *,
        timeout: float | None = None, on_progress: ProgressCallback | None = None,
    ) -> dict[str, Any]:
        """Send a request to the peer from inside this handler and wait for its result."""
        return self.session.request(method, params, timeout=timeout, on_progress=on_progress)

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send a notification to the peer."""
        self.session.notify(method, params)


class Reply:
    """The one answer to a request we sent: set once (result or error), waited for by its caller.

    It is a lock taken when the request is made and released when the answer arrives: the same
    promise as a ``concurrent.futures.Future`` (which this engine used at first) for a fraction
    of its cost: measured side by side, the client's CPU per round trip fell by 28% when the
    Future's condition, waiter list and callbacks went (benchmarks/RESULTS.md). Whoever removes
    the request from the pending table is the one who sets it, so it is set exactly once.
    """

    __slots__ = ("_arrived", "_result", "_error")

    def __init__(self) -> None:
        self._arrived = threading.Lock()
        self._arrived.acquire()  # held until the answer is here
        self._result: dict[str, Any] | None = None
        self._error: BaseException | None = None

    def is_set(self) -> bool:
        """Whether the answer is here (without waiting)."""
        return self._result is not None or self._error is not None

    def set_result(self, result: dict[str, Any]) -> None:
        self._result = result
        self._arrived.release()

    def set_exception(self, error: BaseException) -> None:
        self._error = error
        self._arrived.release()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the answer is here; False if it did not come within ``timeout`` seconds."""
        if not self._arrived.acquire(timeout=-1 if timeout is None else timeout):
            return False
        self._arrived.release()  # it stays "here" for whoever looks next
        return True

    def result(self) -> dict[str, Any]:
        """The answer that arrived: its result, or its error raised."""
        if self._error is not None:
            raise self._error
        assert self._result is not None, "Reply.result() before the answer arrived"
        return self._result


class OutgoingRequest:
    """A request this side sent and has not yet had answered. ``result()`` waits for it.

    ``timeout`` is the request's budget in seconds and ``deadline`` the moment (on the
    ``time.monotonic`` clock) it runs out: sending the request and waiting for its answer
    both come out of that one budget.
    """

    def __init__(self, session: Session, request_id: RequestId, method: str, timeout: float):
        self.session = session
        self.id = request_id
        self.method = method
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        self.future = Reply()

    def result(self, timeout: float | None = None) -> dict[str, Any]:
        """Wait for the result; raise ``McpError`` on an error response or a closed connection,
        and ``RequestTimeout`` (a ``TimeoutError``) when the request's time is up (LC-24).
        ``timeout`` overrides what is left of the budget given when the request was sent."""
        if timeout is None:
            timeout = self.timeout
            deadline = self.deadline
        else:
            deadline = time.monotonic() + timeout
        # LC-22, LC-24, PING-02: no request, initialize included, waits past its timeout
        if self.session._callers_read:  # read the answer ourselves if nobody is reading (crew.py, rule 6)
            self.session._crew.read_until(self.future.is_set, deadline)
        if not self.future.wait(max(0.0, deadline - time.monotonic())):
            raise self._timed_out(timeout)
        try:
            return self.future.result()
        except McpError as error:
            error.failed_request = self.method
            raise

    def _timed_out(self, timeout: float) -> RequestTimeout:
        """Give up: forget the request, tell the peer, return the error. The notice may take at
        most a quarter of the request's own timeout (and never more than CANCEL_NOTICE_TIMEOUT),
        so the caller hears of the timeout at about the time it asked for."""
        self.cancel(f"timed out after {timeout:g} s", notice_timeout=min(CANCEL_NOTICE_TIMEOUT, max(0.1, timeout / 4)))
        error = RequestTimeout(
            f"{self.method} (id {self.id!r}) got no response within {timeout:g} s; "
            "the request was cancelled. Pass a larger timeout if the peer is just slow."
        )
        error.failed_request = self.method
        return error

    def cancel(self, reason: str | None = None, *, notice_timeout: float = CANCEL_NOTICE_TIMEOUT) -> bool:
        """Give up on this request and tell the peer (CAN-01). False if it was already answered.

        The notice is sent within ``notice_timeout`` seconds, or dropped: the peer may be the
        reason we gave up."""
        # CAN-01, CAN-13, CAN-17: only our own request, only while pending; the caller learns which
        if not self.session._forget(self.id):
            return False  # CAN-02: already answered or failed, nothing to cancel
        if self.method != "initialize":  # CAN-03, CAN-19
            params: dict[str, Any] = {"requestId": self.id}  # CAN-20: same direction, same id
            if reason:
                params["reason"] = reason
            self.session._notify_quietly("notifications/cancelled", params, notice_timeout)
        self.future.set_exception(RequestCancelled(f"{self.method} was cancelled: {reason or 'no reason given'}"))
        return True


class Session:
    """One MCP connection over one transport, seen from one side.

    ``on_request(ctx)`` answers the peer's requests (return the result dict, or raise
    ``McpError``). The reading thread runs each request itself; a request still running after a
    few milliseconds has the reading taken over by a standby thread, so it may block or ask the
    peer something (see crew.py). Methods in ``inline_methods`` (the lifecycle messages and
    ping) always finish before the next message is read, in arrival order.
    ``on_notification(session, method, params)`` runs on the reading thread, in arrival order,
    for every notification except cancellation and progress, which the session handles itself.
    ``trace(direction, data)`` sees every message ("->" sent, "<-" received). At most
    ``max_workers`` requests run at once; more wait in a bounded queue. ``knows_method(method)``
    says whether ``on_request`` serves a method, so that a request for another one is -32601
    whatever its params; without it every method counts as known. With ``callers_read`` (and a
    transport with ``timed_receive``), a thread waiting for its answer reads it itself when
    nobody else is reading (crew.py, rule 6): the client sets it.
    """

    def __init__(
        self,
        transport: Transport,
        *,
        on_request: RequestHandler,
        on_notification: NotificationHandler,
        inline_methods: frozenset[str] = frozenset(),
        knows_method: Callable[[str], bool] | None = None,
        default_timeout: float = DEFAULT_TIMEOUT,
        max_workers: int = DEFAULT_MAX_WORKERS,
            trace: TraceCallback | None = None,
        name: str = "mcp_ref",
        callers_read: bool = False,
    ):
        self._transport = transport
        self._on_request = on_request
        self._on_notification = on_notification
        self._inline_methods = inline_methods
        self._knows_method = knows_method
        self.default_timeout = default_timeout
        self._trace = trace
        self.name = name
        self.lifecycle = LifecycleState()
        # Per-session data owned by the layer above: a server keeps the client's log level here.
        self.state: dict[str, Any] = {}
        self._lock = threading.Lock()  # guards the four tables below and _closed
        self._pending: dict[RequestId, OutgoingRequest] = {}
        self._progress: dict[RequestId, ProgressCallback] = {}
        self._incoming: dict[RequestId, RequestContext] = {}
        self._ids = itertools.count(1)  # MSG-04: ids are never reused within a session
        self._unanswered = 0  # requests taken in and not yet answered
        self._answered = threading.Condition(self._lock)  # notified, once draining, when one is answered
        self._draining = False  # end of input: running requests are being given time to answer
        self._closed = False
        self.close_reason: str | None = None
        self.closed = threading.Event()  # set once, when the session has fully closed
        self._close_callbacks: list[Callable[[Session], None]] = []
        self._callers_read = bool(callers_read and getattr(transport, "timed_receive", False))
        self._crew = Crew(name, self._read_one, max_threads=max_workers + 1, on_error=self._job_failed,
                          awaited=(lambda: bool(self._pending)) if self._callers_read else None)
        self._dispatching = False  # the reader is handling a message that must finish first
        self._left_over: bytes | None = None  # read by a caller, for the crew to handle (_take_answer)

    # --- running -----------------------------------------------------------------------------

    def start(self) -> None:
        """Start reading, on a thread of the session's crew (it ends with the session)."""
        self._crew.start()

    def run(self) -> None:
        """Start reading, and return when the session has closed (at end of stream, say)."""
        self.start()
        self.closed.wait()

    def _read_one(self, timeout: float | None = None) -> Request | None:
        """The reader's step (crew.py): read one message and handle it; return a request that may
        take long, for the crew to run; None for everything else. At end of stream, close.

        A ``timeout`` means a caller is reading for its own answer (crew.py, rule 6; only
        transports with ``timed_receive``): it handles answers only (see ``_take_answer``)."""
        caller = timeout is not None
        if self._left_over is not None:  # a message a caller read and left to the crew
            data: bytes | None
            data, self._left_over = self._left_over, None
        else:
            try:
                data = self._transport.receive(timeout) if caller else self._transport.receive()  # type: ignore[call-arg]
            except TimeoutError:  # nothing came in time: the caller's own timeout will say so
                return None
            except McpError as exc:  # a framing error the transport recovered from
                self._answer(None, exc)
                return None
            except Exception as exc:  # OSError or worse: the channel is unusable
                if caller:  # the crew will meet it too, and end the session without holding a caller
                    self._crew.hand_over()
                    return None
                if not self._closed:
                    log.debug("transport failed", exc_info=True)
                self._shutdown(f"transport failed: {exc}")
                return None
        if data is None:
            if caller:  # ending the session may take seconds (a child process to stop): the crew's job
                self._crew.hand_over()
                return None
            self._let_running_requests_answer()
            self._shutdown(self._transport.describe_close())
            return None
        if caller:
            self._take_answer(data)
            return None
        self._dispatching = True
        try:
            return self._dispatch(data)
        except Exception:  # a bug of ours must not end the session: drop this one message
            log.exception("%s: could not dispatch a message; it was dropped", self.name)
            return None
        finally:
            self._dispatching = False

    def _take_answer(self, data: bytes) -> None:
        """A caller reading for itself (crew.py, rule 6) takes answers, which resolve a Reply and
        run no code of the user's. Anything else (a notification with its callback, a request of
        the peer, a line it cannot parse) is left, with the reading, to the crew, which handles
        it next, in order, as it handles every message: a callback that blocks then holds a crew
        thread, never a caller past its timeout."""
        try:
            msg = messages.decode(data)
            answer = messages.classify(msg) is messages.RESPONSE
        except McpError:
            answer = False
        if not answer:
            self._left_over = data
            self._crew.hand_over()
            return
        if self._trace is not None:
            self._trace("<-", data)
        self._on_response(msg)

    def _let_running_requests_answer(self) -> None:
        """End of input: a request still running gets up to ``END_OF_INPUT_GRACE`` seconds to
        send its answer before the session closes (``printf '...' | mcp-ref serve`` shows every
        answer; a client that closed its end stops listening anyway, LC-19)."""
        deadline = time.monotonic() + END_OF_INPUT_GRACE
        with self._answered:
            self._draining = True
            while self._unanswered and time.monotonic() < deadline:
                self._answered.wait(deadline - time.monotonic())

    def _job_failed(self, exc: BaseException) -> None:
        if isinstance(exc, ConnectionClosed):  # background work whose peer left: nothing went wrong here
            log.debug("%s: background work ended: %s", self.name, exc)
        else:
            log.error("%s: unexpected error in a session thread", self.name, exc_info=exc)

    def start_keepalive(self, interval: float, timeout: float | None = None) -> None:
        """Ping the peer every ``interval`` seconds (PING-05, PING-06). A ping with no answer
        within ``timeout`` (default: ``interval``) means the connection is dead: it is logged and
        the session closed, failing every pending call (PING-02, PING-03, PING-09, PING-11).
        The pinging thread belongs to this session and ends when it closes."""
        # PING-06, PING-07: how often, and how long to wait for an answer, are the caller's
        def keep_pinging() -> None:
            while not self.closed.wait(interval):
                try:
                    self.request("ping", timeout=timeout or interval)
                except RequestTimeout:
                    # PING-03, PING-09, PING-11: an unanswered ping is logged and ends the connection
                    log.warning("%s: no answer to ping within %g s; closing the connection", self.name, timeout or interval)
                    self.close(f"the peer did not answer a ping within {timeout or interval:g} s")
                    return
                except McpError:
                    return  # the session closed meanwhile

        threading.Thread(target=keep_pinging, name=f"{self.name}-keepalive", daemon=True).start()

    def run_in_worker(self, fn: Callable[..., None], *args: Any) -> None:
        """Run ``fn(*args)`` on another thread of the session: for work, started by a
        notification, that needs to send requests (the reader must never wait for an answer).
        Dropped, with a warning, when the session is overloaded."""
        try:
            self._crew.submit(functools.partial(fn, *args))
        except CrewFull as exc:
            log.warning("%s: dropped background work %r: %s", self.name, fn, exc)

    def on_close(self, callback: Callable[[Session], None]) -> None:
        """Call ``callback(session)`` once the session has closed (at once if it already has)."""
        with self._lock:
            if not self._closed:
                self._close_callbacks.append(callback)
                return
        callback(self)

    def close(self, reason: str = "closed by this side") -> None:
        """Close the connection: fail pending requests, flag running handlers, stop workers.

        Requests still waiting for an answer are cancelled first (CAN-01): the peer is told
        with ``notifications/cancelled``, within ``CLOSE_NOTICE_BUDGET`` seconds in all, so a
        script interrupted with Ctrl-C does not leave the peer working for nobody."""
        with self._lock:
            pending = [] if self._closed else [out for out in self._pending.values() if out.method != "initialize"]
        deadline = time.monotonic() + CLOSE_NOTICE_BUDGET
        for out in pending:
            left = deadline - time.monotonic()
            if left <= 0 or not self._forget(out.id):
                continue
            self._notify_quietly("notifications/cancelled", {"requestId": out.id, "reason": reason}, left)
            out.future.set_exception(ConnectionClosed(f"Connection closed: {reason} (while waiting for {out.method})"))
        self._shutdown(reason)

    def _shutdown(self, reason: str, *, wait: bool = True) -> None:
        """End the session: everything waiting fails at once, then the transport is released.
        With ``wait=False`` the release (which for a child process may take seconds, LC-16..18)
        happens on a thread of its own, so the thread that found the channel broken is not held."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self.close_reason = reason
            pending = list(self._pending.values())
            self._pending.clear()
            self._progress.clear()
            running = list(self._incoming.values())
        for out in pending:
            out.future.set_exception(ConnectionClosed(f"Connection closed: {reason} (while waiting for {out.method})"))
        for ctx in running:
            ctx._cancel(f"connection closed: {reason}")
        self._crew.stop()
        if wait:
            self._release(reason)
        else:
            threading.Thread(target=self._release, args=(reason,), name=f"{self.name}-closing", daemon=True).start()

    def _release(self, reason: str) -> None:
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

    # --- sending -----------------------------------------------------------------------------

    def _write(self, data: bytes, timeout: float | None = None) -> None:
        """Hand one encoded message to the transport, within ``timeout`` seconds (default: the
        session's ``default_timeout``). Raises ``TimeoutError`` if the peer did not take it in
        time, and ``ConnectionClosed`` (closing the session) if the channel broke."""
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
        """Send the one response a request gets: its result, or its error.

        Whatever the handler produced, something is sent: a result that is not strict JSON
        becomes -32603 saying so; an error message quoting text with no UTF-8 form is escaped;
        an id with no UTF-8 form is answered with id null. A peer that is gone or not reading
        simply does not get it (logged)."""
        # MSG-05: the response carries the id of the request it answers, unchanged
        if isinstance(outcome, McpError):
            msg = messages.error_response(request_id, outcome)
        else:
            msg = messages.result_response(request_id, outcome)  # type: ignore[arg-type]  # a request's id
        try:
            data = messages.encode(msg)
        except messages.NotJson as exc:
            data = self._encodable_error(request_id, outcome, method, exc)
        try:
            self._write(data)
        except (McpError, TimeoutError) as exc:
            log.debug("%s: dropped a response: %s", self.name, exc)

    @staticmethod
    def _encodable_error(request_id: RequestId | None, outcome: dict[str, Any] | McpError, method: str,
                         problem: messages.NotJson) -> bytes:
        if isinstance(outcome, McpError):
            error = McpError(messages.printable(outcome.message), code=outcome.code)
        else:
            error = InternalError(f"Internal error: the result of {messages.printable(method)} cannot be sent "
                                  f"as JSON: {problem}")
        try:
            return messages.encode(messages.error_response(request_id, error))
        except messages.NotJson:  # the id itself has no UTF-8 form: it cannot be echoed
            return messages.encode(messages.error_response(None, error))

    def _notify_quietly(self, method: str, params: dict[str, Any] | None, timeout: float | None = None) -> None:
        """Send a notification nobody must wait for; if it cannot go out, log and move on."""
        try:
            self.notify(method, params, timeout=timeout)
        except (McpError, TimeoutError, messages.NotJson) as exc:
            log.debug("%s: dropped %s: %s", self.name, method, exc)

    def start_request(
        self, method: str, params: dict[str, Any] | None = None, *,
        on_progress: ProgressCallback | None = None, timeout: float | None = None,
    ) -> OutgoingRequest:
        """Send a request and return at once; ``.result()`` waits for the answer.

        ``timeout`` (default: the session's) is the whole budget of the request: sending it
        counts too, so a peer that does not read makes it fail with ``RequestTimeout`` in time.
        Params that are not strict JSON raise ``InvalidParams`` before anything is sent."""
        if self._dispatching and self._crew.is_reader():
            # A request made here could never be answered: its response would have to be read
            # by this very thread, which must finish this message first. Fail loudly instead.
            raise RuntimeError(
                f"cannot send {method!r} from a notification callback: it runs on the session's reader "
                "thread, which must stay free to read the answer. Hand the work to another thread."
            )
        if timeout is None:
            timeout = self.default_timeout
        request_id = next(self._ids)  # MSG-04: never reused within the session
        if on_progress is not None:  # PROG-01, PROG-02: the request id is a unique token
            params = dict(params or {})
            meta = params.get("_meta")
            params["_meta"] = {**(meta if isinstance(meta, dict) else {}), "progressToken": request_id}
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
            raise out._timed_out(timeout) from None
        except McpError:
            self._forget(request_id)
            raise
        return out

    def request(
        self, method: str, params: dict[str, Any] | None = None, *,
        timeout: float | None = None, on_progress: ProgressCallback | None = None,
    ) -> dict[str, Any]:
        """Send a request and wait for its result (see ``start_request``, ``OutgoingRequest.result``)."""
        return self.start_request(method, params, on_progress=on_progress, timeout=timeout).result()

    def notify(self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None) -> None:
        """Send a notification (no answer is expected), within ``timeout`` seconds (default: the
        session's). Raises ``messages.NotJson`` if the params are not strict JSON."""
        if self._closed:
            raise ConnectionClosed(f"Connection closed: {self.close_reason}; cannot send {method}")
        self._write(messages.encode(messages.notification(method, params)), timeout)

    def _forget(self, request_id: RequestId) -> bool:
        """Remove a pending request; True if it was still pending (the caller now owns its Reply)."""
        with self._lock:
            self._progress.pop(request_id, None)
            return self._pending.pop(request_id, None) is not None

    # --- receiving ---------------------------------------------------------------------------

    def _dispatch(self, data: bytes) -> Request | None:
        if self._trace is not None:
            self._trace("<-", data)
        try:
            msg = messages.decode(data)
            kind = messages.classify(msg)
        except InvalidRequest as exc:
            self._answer(exc.request_id, exc)
            return None
        except McpError as exc:  # ParseError: the id cannot be known, so it is null
            self._answer(None, exc)
            return None
        if kind is messages.REQUEST:
            return self._on_incoming_request(msg)
        if kind is messages.RESPONSE:
            self._on_response(msg)
        else:
            self._on_incoming_notification(msg)
        return None

    def _on_response(self, msg: Message) -> None:
        request_id = msg.get("id")
        out = None
        last = False
        # CAN-11: whoever takes the entry out of the pending table resolves it; a late one finds nothing
        if messages.is_valid_id(request_id):
            with self._lock:
                out = self._pending.pop(request_id, None)
                self._progress.pop(request_id, None)
                last = not self._pending
            if last and self._callers_read:  # crew.py, rule 7
                self._crew.answered_all()
        if out is None:
            # CAN-10: a late answer to a request we cancelled or timed out; or the peer's error
            # about a message of ours it could not parse (id null). Nothing is waiting for it.
            log.debug("dropping response with no pending request: %r", msg)
            return
        if msg.get("jsonrpc") != messages.JSONRPC_VERSION:  # MSG-01
            out.future.set_exception(InvalidRequest(f'peer answered {out.method} with a message whose "jsonrpc" is not "2.0"'))
        elif "result" in msg and "error" not in msg:  # MSG-06
            result = msg["result"]
            if isinstance(result, dict):
                out.future.set_result(result)
            else:
                out.future.set_exception(InvalidRequest(f"peer answered {out.method} with a non-object result: {result!r}"))
        elif "error" in msg and "result" not in msg:
            out.future.set_exception(McpError.from_error(msg["error"]))
        else:
            out.future.set_exception(InvalidRequest(f"peer answered {out.method} with both result and error"))

    def _on_incoming_request(self, msg: Message) -> Request | None:
        request_id = msg["id"]
        params = msg.get("params")
        ctx = RequestContext(self, request_id, msg["method"], params if isinstance(params, dict) else {})
        with self._lock:
            if request_id in self._incoming:  # MSG-04, broken by the peer
                duplicate = True
            else:
                duplicate = False
                self._incoming[request_id] = ctx
                self._unanswered += 1  # until _finish has sent its answer
        if duplicate:
            self._answer(request_id, InvalidRequest(
                f"Invalid Request: id {request_id!r} is already in use by a request in progress"))
        elif params is not None and not isinstance(params, dict) and self._serves(ctx.method):
            # (for a method it does not serve, on_request answers -32601 first: JSON-RPC order)
            self._finish(ctx, InvalidParams("Invalid params: MCP params must be an object"))
        elif ctx.method in self._inline_methods:
            self._run_request(ctx)
        else:
            return _IncomingRequest(self, ctx)  # the crew runs it (crew.py, rule 2)
        return None

    def _serves(self, method: str) -> bool:
        return self._knows_method is None or self._knows_method(method)

    def _run_request(self, ctx: RequestContext) -> None:
        # CAN-05: a request cancelled before it started never runs
        if ctx.is_cancelled:  # cancelled while it waited for a free thread
            self._finish(ctx, None)
            return
        outcome: dict[str, Any] | McpError
        interrupted: BaseException | None = None
        handling = related.handling(self._transport, ctx.request_id)  # what the handler sends belongs to it
        try:
            outcome = self._on_request(ctx)
            if not isinstance(outcome, dict):  # a result is always a JSON object
                raise TypeError(f"the handler for {ctx.method} returned {type(outcome).__name__}, not a dict")
        except McpError as exc:
            outcome = exc
        except Exception:
            # MSG-09, LOG-04: a failure is -32603 with one short sentence
            # Log the details here; never send internals to the peer.
            log.exception("handler for %s failed", ctx.method)
            outcome = InternalError(f"Internal error while handling {messages.printable(ctx.method)}")
        except BaseException as exc:  # SystemExit, KeyboardInterrupt...: still one answer per request
            log.error("handler for %s raised %s", ctx.method, type(exc).__name__)
            outcome = InternalError(f"Internal error: the handler for {messages.printable(ctx.method)} "
                                    f"was stopped ({type(exc).__name__})")
            if isinstance(exc, KeyboardInterrupt) and threading.current_thread() is threading.main_thread():
                interrupted = exc  # Ctrl-C meant for the program: answer, then let it through
        finally:
            related.done(handling)
        self._finish(ctx, outcome)
        if interrupted is not None:
            raise interrupted

    def _finish(self, ctx: RequestContext, outcome: dict[str, Any] | McpError | None) -> None:
        with self._lock:
            self._incoming.pop(ctx.request_id, None)  # type: ignore[arg-type]  # a request's id
            ctx._done = True  # PROG-15: no progress after this point
        if outcome is not None and not ctx.is_cancelled:  # CAN-06
            self._answer(ctx.request_id, outcome, ctx.method)
        with self._lock:
            self._unanswered -= 1
            if self._draining:
                self._answered.notify_all()

    def _on_incoming_notification(self, msg: Message) -> None:
        method = msg["method"]
        params = msg.get("params")
        if not isinstance(params, dict):
            params = {}
        if method == "notifications/cancelled":
            self._on_cancelled(params)
        elif method == "notifications/progress":
            self._on_progress(params)
        else:
            try:
                self._on_notification(self, method, params)
            except Exception:
                log.exception("notification handler for %s failed", method)

    def _on_cancelled(self, params: dict[str, Any]) -> None:
        request_id = params.get("requestId")
        reason = params.get("reason")
        with self._lock:
            ctx = self._incoming.get(request_id) if messages.is_valid_id(request_id) else None
        if ctx is None:  # CAN-07, CAN-08, CAN-14, CAN-15, CAN-16: unknown, finished or malformed
            log.debug("ignoring cancellation of unknown request %r", request_id)
            return
        # CAN-09: a request that cannot be interrupted ignores the cancellation
        if ctx.method == "initialize":  # CAN-03: initialize cannot be cancelled
            return
        # CAN-21: the reason is logged, and kept for the handler in ctx.cancel_reason
        log.info("peer cancelled request %r (%s): %s", request_id, ctx.method, reason)  # CAN-12
        # CAN-05: the handler is told (ctx.cancelled), so it can stop and let go of what it holds
        ctx._cancel(reason if isinstance(reason, str) else None)  # CAN-04, CAN-18

    def _on_progress(self, params: dict[str, Any]) -> None:
        token = params.get("progressToken")
        with self._lock:
            callback = self._progress.get(token) if messages.is_valid_id(token) else None
        if callback is None:  # PROG-13: not a token of an active request of ours
            return
        try:
            callback(params)
        except Exception:
            log.exception("progress callback failed")


class _IncomingRequest:
    """A request for the crew to run (``crew.Request``): calling it runs the handler and sends
    the answer; ``refuse`` answers at once when the session is too busy to take it."""

    def __init__(self, session: Session, ctx: RequestContext):
        self._session = session
        self._ctx = ctx

    def __call__(self) -> None:
        self._session._run_request(self._ctx)

    def refuse(self, reason: str) -> None:
        self._session._finish(self._ctx, InternalError(f"Server busy: {reason}"))
