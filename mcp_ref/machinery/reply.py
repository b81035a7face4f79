"""Waiting for an answer: the request we sent, and the one-shot reply it waits on.

Not a spec section: the machinery under the engine (session.py), which keeps an
``OutgoingRequest`` for every request it has sent and not yet seen answered.

1. A ``Reply`` is set exactly once, with a result or an error, by whoever takes the request out of
   the engine's pending table; the caller waits on it. It is a lock taken when the request is made
   and released when the answer arrives: the promise of a ``concurrent.futures.Future`` (which the
   engine used at first) without the Future's condition, waiter list and callbacks, which cost a
   measured share of every round trip (benchmarks/RESULTS.md).
2. ``OutgoingRequest.result()`` waits no longer than the request's budget (LC-22, LC-24, PING-02):
   sending it and waiting for its answer share one budget of ``timeout`` seconds, which ends at
   ``deadline``. When it runs out, the engine gives the request up (``Asker.give_up``: the peer is
   told, cancellation.py) and the caller gets ``RequestTimeout``, a ``TimeoutError``.
3. The deadline and the answer race, and one step decides (CAN-11): taking the request out of the
   engine's pending table. ``give_up`` takes it out only if it is still there; if the reader took
   it first, the answer is ours and the caller gets it, though the time ran out as it came, and
   no cancellation goes out for a request that was answered (CAN-02). The same step decides when
   the wait ends any other way: ``close()`` from another thread, the connection ending, Ctrl-C in
   the caller (the request is given up before the interruption goes on, unless answered). The
   main thread waits in slices (``MAIN_THREAD_LOOKS_UP``): Ctrl-C's signal may reach any thread,
   and Python raises KeyboardInterrupt in the main thread only when it runs again.
4. Where the engine lets callers read (crew.py, rule 6), a caller with nobody else reading reads
   its own answer first (``Asker.read_until``), and so needs no other thread to hand it over.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from ..messages import McpError, RequestId, RequestTimeout

CANCEL_NOTICE_TIMEOUT = 2.0  # seconds the peer gets to take a notifications/cancelled of ours
INTERRUPTED_NOTICE_TIMEOUT = 0.5  # the same, when the caller was interrupted (Ctrl-C): it wants out
SETTLE_TIMEOUT = 1.0  # seconds; whoever takes a request out of the pending table sets its reply next
MAIN_THREAD_LOOKS_UP = 0.1  # seconds the main thread waits at a time, so that Ctrl-C is felt at once


class Reply:
    """The answer to one request: set once (result or error), waited for by its caller."""

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

    def settle(self, outcome: dict[str, Any] | BaseException) -> None:
        """Set the answer: a result, or the error its caller will get."""
        if isinstance(outcome, BaseException):
            self.set_exception(outcome)
        else:
            self.set_result(outcome)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the answer is here; False if it did not come within ``timeout`` seconds."""
        if not self.is_set() and threading.current_thread() is threading.main_thread():
            return self._wait_interruptibly(timeout)
        if not self._arrived.acquire(timeout=-1 if timeout is None else timeout):
            return False
        self._arrived.release()  # it stays "here" for whoever looks next
        return True

    def _wait_interruptibly(self, timeout: float | None) -> bool:
        """The main thread waits in slices of ``MAIN_THREAD_LOOKS_UP``: Ctrl-C's signal may reach
        another thread of the process, and Python raises KeyboardInterrupt in the main thread only
        when it runs again, so one long wait would hold a program past Ctrl-C until its timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = MAIN_THREAD_LOOKS_UP if deadline is None else min(MAIN_THREAD_LOOKS_UP, deadline - time.monotonic())
            if self._arrived.acquire(timeout=max(0.0, left)):
                self._arrived.release()
                return True
            if deadline is not None and time.monotonic() >= deadline:
                return False

    def result(self) -> dict[str, Any]:
        """The answer that arrived: its result, or its error raised."""
        if self._error is not None:
            raise self._error
        assert self._result is not None, "Reply.result() before the answer arrived"
        return self._result


class Asker(Protocol):
    """What an ``OutgoingRequest`` needs of the engine that sent it (session.Session)."""

    def give_up(self, out: OutgoingRequest, reason: str | None, notice_timeout: float) -> bool: ...

    def read_until(self, answered: Callable[[], bool], deadline: float) -> None: ...


class OutgoingRequest:
    """A request we sent, not yet answered: its ``id``, ``method``, ``timeout`` and ``deadline``
    (time.monotonic), and the ``reply`` its answer sets. ``result()`` waits for it."""

    def __init__(self, asker: Asker, request_id: RequestId, method: str, timeout: float):
        self._asker = asker
        self.id = request_id
        self.method = method
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        self.reply = Reply()

    def result(self, timeout: float | None = None) -> dict[str, Any]:
        """The result; ``McpError`` for an error answer or a closed connection, ``RequestTimeout``
        when the time is up. ``timeout`` replaces what is left of the budget."""
        budget = self.timeout if timeout is None else timeout
        deadline = self.deadline if timeout is None else time.monotonic() + timeout
        try:
            self._asker.read_until(self.reply.is_set, deadline)  # crew.py, rule 6, where the engine allows it
            arrived = self.reply.wait(max(0.0, deadline - time.monotonic()))  # LC-22, LC-24, PING-02
        except BaseException:  # Ctrl-C in the caller: give the request up (unless answered), then go on out
            self._asker.give_up(self, "the caller was interrupted", INTERRUPTED_NOTICE_TIMEOUT)
            raise
        if not arrived:
            self.time_out(budget)  # raises RequestTimeout, unless the answer came as the time ran out
        try:
            return self.reply.result()
        except McpError as error:
            error.failed_request = self.method
            raise

    def time_out(self, timeout: float) -> None:
        """The time ran out: give the request up and raise ``RequestTimeout``, if it is still
        pending. If it is not, return: the answer arrived as the time ran out (or ``close()``
        settled it) and its reply is set. Taking it out of the pending table decides (CAN-11,
        CAN-02), so an answered request is never cancelled. The notice to the peer may take a
        quarter of the timeout, so the caller hears of it at about the time it asked for."""
        if not self._asker.give_up(self, f"timed out after {timeout:g} s", min(CANCEL_NOTICE_TIMEOUT, max(0.1, timeout / 4))):
            if self.reply.wait(SETTLE_TIMEOUT):  # whoever took it out sets the reply right after
                return
        error = RequestTimeout(f"{self.method} (id {self.id!r}) got no response within {timeout:g} s; "
                               "the request was cancelled. Pass a larger timeout if the peer is just slow.")
        error.failed_request = self.method
        raise error from None  # (not "during handling of" the TimeoutError of a send)

    def cancel(self, reason: str | None = None, *, notice_timeout: float = CANCEL_NOTICE_TIMEOUT) -> bool:
        """Give up on this request and tell the peer; False if it was already answered."""
        return self._asker.give_up(self, reason, notice_timeout)  # CAN-13: the caller learns whether it went out

