"""A request we sent: the Future its answer settles, and how its caller waits for it.

Not a spec section: the engine's half of basic/messages that asks (session.py keeps an
``OutgoingRequest`` in its pending table for every request it has sent and not yet seen answered).
https://modelcontextprotocol.io/specification/2024-11-05/basic/messages

1. Each request we send has a ``concurrent.futures.Future``, the standard library's one-shot
   result: settled exactly once, with the result or with the error to raise, by whoever takes
   the request out of the engine's pending table (the session's reader, with the answer; or the
   caller giving up).
2. ``OutgoingRequest.result()`` waits no longer than the request's budget (LC-22, LC-24,
   PING-02): sending it and waiting for its answer share one budget of ``timeout`` seconds,
   which ends at ``deadline``. When it runs out, the engine gives the request up
   (``Asker.give_up``: the peer is told, cancellation.py) and the caller gets ``RequestTimeout``,
   a ``TimeoutError``.
3. The deadline and the answer race, and one step decides (CAN-11): taking the request out of
   the pending table. ``give_up`` takes it out only if it is still there; if the reader took it
   first, the answer is ours and the caller gets it, though the time ran out as it came, and no
   cancellation goes out for a request that was answered (CAN-02). The same step decides when
   the wait ends any other way: ``cancel()`` or ``close()`` from another thread (the Future is
   settled then, so the wait ends at once), the connection ending, Ctrl-C in the caller (the
   request is given up before the interruption goes on, unless answered).
4. The main thread waits in slices (``MAIN_THREAD_WAIT_SLICE``): Ctrl-C's signal may reach any
   thread, and Python raises KeyboardInterrupt in the main thread only when it runs again.
5. A request that times out says what came while it waited and matched nothing
   (unmatched.py): a peer that answers with ``"id": "2"`` for our ``2`` did answer, and a longer
   timeout would not help.
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
from typing import Any, Protocol

from ...messages import McpError, RequestId, RequestTimeout
from .unmatched import Unmatched

CANCEL_NOTICE_TIMEOUT = 2.0  # seconds the peer gets to take a notifications/cancelled of ours
INTERRUPTED_NOTICE_TIMEOUT = 0.5  # the same, when the caller was interrupted (Ctrl-C): it wants out
SETTLE_TIMEOUT = 1.0  # seconds; whoever takes a request out of the pending table settles it right after
MAIN_THREAD_WAIT_SLICE = 0.1  # seconds the main thread waits at a time, so that Ctrl-C is felt at once


class Asker(Protocol):
    """What an ``OutgoingRequest`` needs of the engine that sent it (session.Session): to give it
    up, if it is still pending (False if it was answered), and what came that matched nothing."""

    unmatched: Unmatched

    def give_up(self, out: OutgoingRequest, reason: str | None, notice_timeout: float) -> bool: ...


class OutgoingRequest:
    """A request we sent and have not seen answered: its ``id``, ``method``, ``timeout`` and
    ``deadline`` (time.monotonic), and the ``future`` its answer settles. ``result()`` waits."""

    def __init__(self, session: Asker, request_id: RequestId, method: str, timeout: float):
        self._session = session
        self.id = request_id
        self.method = method
        self.timeout = timeout
        self.sent = time.monotonic()
        self.deadline = self.sent + timeout
        self.future: concurrent.futures.Future[dict[str, Any]] = concurrent.futures.Future()

    def result(self, timeout: float | None = None) -> dict[str, Any]:
        """The result; ``McpError`` for an error answer or a closed connection, ``RequestTimeout``
        when the time is up (LC-22, LC-24, PING-02). ``timeout`` replaces what is left of the budget.
        Interrupted (Ctrl-C), it gives the request up, unless answered, before the interruption goes on."""
        budget = self.timeout if timeout is None else timeout  # LC-22: every request, initialize too, has one
        deadline = self.deadline if timeout is None else time.monotonic() + timeout
        try:
            answered = settled(self.future, deadline)  # LC-24, PING-02: no longer than its budget
        except BaseException:
            self._session.give_up(self, "the caller was interrupted", INTERRUPTED_NOTICE_TIMEOUT)
            raise
        if not answered:
            self.time_out(budget)  # raises RequestTimeout, unless the answer came as the time ran out
        try:
            return self.future.result()
        except McpError as error:
            error.failed_request = self.method
            raise

    def time_out(self, timeout: float) -> None:
        """The time ran out: give the request up and raise ``RequestTimeout``, if it is still
        pending. If it is not, return: the answer arrived as the time ran out (or ``close()``
        settled it), and its Future is settled, or is about to be. Taking it out of the pending
        table decides (CAN-11, CAN-02), so an answered request is never cancelled. The notice to
        the peer may take a quarter of the timeout, so the caller hears at about the time it asked."""
        if not self._session.give_up(self, f"timed out after {timeout:g} s", min(CANCEL_NOTICE_TIMEOUT, max(0.1, timeout / 4))):
            if settled(self.future, time.monotonic() + SETTLE_TIMEOUT):  # whoever took it out settles it next
                return
        meanwhile = self._session.unmatched.since(self.sent)
        error = RequestTimeout(f"{self.method} (id {self.id!r}) got no response within {timeout:g} s; the request "
                               "was cancelled. " + (f"Meanwhile the peer sent {meanwhile}." if meanwhile else
                                                    "Pass a larger timeout if the peer is just slow."))
        error.failed_request = self.method
        raise error from None  # (not "during handling of" the TimeoutError of a send)

    def cancel(self, reason: str | None = None, *, notice_timeout: float = CANCEL_NOTICE_TIMEOUT) -> bool:
        """Give up on this request and tell the peer; False if it was already answered."""
        return self._session.give_up(self, reason, notice_timeout)  # CAN-13: the caller learns whether it went out


def settled(future: concurrent.futures.Future[Any], deadline: float) -> bool:
    """Wait until ``future`` is settled, or ``deadline`` (time.monotonic) passes; whether it was.
    The main thread waits in slices of ``MAIN_THREAD_WAIT_SLICE``: Ctrl-C's signal may reach any
    thread of the process, and Python raises KeyboardInterrupt in the main thread only when that
    thread runs again, so one long wait would hold a program past Ctrl-C until its deadline."""
    slice_ = MAIN_THREAD_WAIT_SLICE if threading.current_thread() is threading.main_thread() else None
    while True:
        left = deadline - time.monotonic()
        try:  # returns as soon as the future is settled, whether with a result or an error
            future.exception(max(0.0, left if slice_ is None else min(left, slice_)))
            return True
        except concurrent.futures.TimeoutError:  # not settled within this wait: look again, or give up
            if left <= 0:
                return False
