"""A request we sent, on its own (machinery/threads/outgoing.py): its Future and how its caller waits.

Not a spec page: the engine's half of basic/messages that asks. What session.py depends on, with a
small pending table standing in for the engine (``Table``, an ``Asker`` like session.Session: it
takes a request out of the table to answer it or to give it up, and whoever takes it settles it):

1. the Future is settled once, with the answer or the error, and ``result()`` returns or raises it
   (an error answer names the request that failed);
2. ``result()`` waits no longer than the budget, then the request is given up (the peer told) and
   the caller gets ``RequestTimeout``, a ``TimeoutError``; ``result(timeout)`` replaces the budget;
3. taking the entry out of the table decides the race (CAN-11): an answer the reader took as the
   time ran out is returned, and no cancellation goes out for it; ``cancel()`` from another thread
   ends a wait at once, and tells whether the request was still pending;
4. a timeout says what came meanwhile that matched nothing (unmatched.py);
5. ``settled(future, deadline)``: whether the future was settled by the deadline.

The full engine's races (over stdio and in memory), and Ctrl-C in a waiting caller, are in
tests/pages/test_cancellation.py; here the module alone. Every wait is bounded; no test asserts
how long anything took.
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
from typing import Any

import pytest

from mcp_ref.machinery.threads.outgoing import OutgoingRequest, settled
from mcp_ref.machinery.threads.unmatched import Unmatched
from mcp_ref.messages import McpError, RequestCancelled, RequestTimeout

WAIT = 5.0  # seconds: a bound for liveness only


class Table:
    """The engine's pending table, reduced to what an ``OutgoingRequest`` needs of it: ``give_up``
    takes the request out (if still there), records the notice the peer would get, and settles it;
    ``take`` is the reader taking a request out to answer it."""

    def __init__(self) -> None:
        self.unmatched = Unmatched()
        self.pending: dict[Any, OutgoingRequest] = {}
        self.notices: list[tuple[Any, str | None]] = []
        self.gave_up = threading.Event()  # give_up was called (whether or not it found the request)
        self._lock = threading.Lock()

    def send(self, request_id: Any, method: str = "tools/call", timeout: float = 10.0) -> OutgoingRequest:
        out = OutgoingRequest(self, request_id, method, timeout)
        with self._lock:
            self.pending[request_id] = out
        return out

    def take(self, request_id: Any) -> OutgoingRequest | None:
        with self._lock:
            return self.pending.pop(request_id, None)

    def give_up(self, out: OutgoingRequest, reason: str | None, notice_timeout: float) -> bool:
        try:
            if self.take(out.id) is None:
                return False  # answered: the reader took it first
            self.notices.append((out.id, reason))
            out.future.set_exception(RequestCancelled(f"{out.method} was cancelled: {reason}"))
            return True
        finally:
            self.gave_up.set()


def later(action: Any) -> threading.Thread:
    thread = threading.Thread(target=action, daemon=True)
    thread.start()
    return thread


def test_the_caller_gets_the_answer_the_reader_settles_from_another_thread() -> None:
    table = Table()
    out = table.send(1)

    def reader() -> None:
        taken = table.take(1)
        assert taken is out
        taken.future.set_result({"content": [], "isError": False})

    later(reader)
    assert out.result() == {"content": [], "isError": False}
    assert table.notices == [] and table.pending == {}


def test_an_error_answer_is_raised_naming_the_request_that_failed() -> None:
    table = Table()
    out = table.send(7, method="resources/read")
    taken = table.take(7)
    assert taken is not None
    taken.future.set_exception(McpError("Resource not found", code=-32002))
    with pytest.raises(McpError) as caught:
        out.result()
    assert caught.value.code == -32002
    assert caught.value.failed_request == "resources/read"


def test_when_the_budget_runs_out_the_request_is_given_up_and_the_caller_gets_a_timeout_error() -> None:
    table = Table()
    out = table.send(3, method="tools/call", timeout=0.05)
    with pytest.raises(RequestTimeout) as caught:
        out.result()
    assert isinstance(caught.value, TimeoutError)
    assert table.pending == {}, "a request that timed out stays in the pending table"
    assert table.notices == [(3, "timed out after 0.05 s")], "the peer was not told"
    text = str(caught.value)
    assert "tools/call (id 3)" in text and "0.05 s" in text and "Pass a larger timeout" in text
    assert caught.value.failed_request == "tools/call"


def test_result_with_a_timeout_replaces_what_is_left_of_the_budget() -> None:
    table = Table()
    out = table.send(4, timeout=600.0)  # a budget no test waits out
    with pytest.raises(RequestTimeout, match=r"within 0\.05 s"):
        out.result(timeout=0.05)
    assert table.notices == [(4, "timed out after 0.05 s")]


def test_an_answer_the_reader_took_as_the_time_ran_out_is_returned_and_nothing_is_cancelled() -> None:
    """CAN-11, CAN-02: the reader took the request out of the table before the deadline, and
    settles it only after the caller's give_up found it gone: the caller waits for it and gets it."""
    table = Table()
    out = table.send(5, timeout=0.05)
    taken = table.take(5)  # the reader has it: the answer is on its way
    assert taken is out

    def reader_settles_after_the_deadline() -> None:
        assert table.gave_up.wait(WAIT)
        out.future.set_result({"late": "but ours"})

    later(reader_settles_after_the_deadline)
    assert out.result() == {"late": "but ours"}
    assert table.notices == [], "a cancellation went out for a request that was answered"


def test_cancel_from_another_thread_ends_the_wait_at_once() -> None:
    table = Table()
    out = table.send(6, timeout=600.0)  # only cancel() can end this wait within the test's bounds
    outcome: list[BaseException] = []

    def caller() -> None:
        try:
            out.result()
        except BaseException as exc:
            outcome.append(exc)

    waiting = later(caller)
    assert out.cancel("the user changed their mind") is True
    waiting.join(WAIT)
    assert not waiting.is_alive(), "cancel() did not end the wait"
    assert len(outcome) == 1 and isinstance(outcome[0], RequestCancelled)
    assert "the user changed their mind" in str(outcome[0])
    assert table.notices == [(6, "the user changed their mind")]
    assert out.cancel() is False, "a second cancel() says it was no longer pending"
    assert table.notices == [(6, "the user changed their mind")]


def test_cancel_after_the_answer_came_says_so_and_the_caller_keeps_the_answer() -> None:
    table = Table()
    out = table.send(8)
    taken = table.take(8)
    assert taken is not None
    taken.future.set_result({"ok": True})
    assert out.cancel() is False  # CAN-13: the caller learns no notice went out
    assert out.result() == {"ok": True} and table.notices == []


def test_a_timeout_says_what_came_meanwhile_that_matched_nothing() -> None:
    table = Table()
    out = table.send(2, timeout=0.05)
    table.unmatched.answer("2", table.pending)  # the peer answered, with our id as a string
    with pytest.raises(RequestTimeout) as caught:
        out.result()
    text = str(caught.value)
    assert 'Meanwhile the peer sent an answer with id "2", a string, where ours is the integer 2' in text
    assert "Pass a larger timeout" not in text


def test_settled_is_true_at_once_for_a_settled_future_and_false_at_a_past_deadline() -> None:
    done: concurrent.futures.Future[int] = concurrent.futures.Future()
    done.set_result(1)
    assert settled(done, time.monotonic() - 1) is True
    failed: concurrent.futures.Future[int] = concurrent.futures.Future()
    failed.set_exception(ValueError("an error settles it too"))
    assert settled(failed, time.monotonic() - 1) is True
    open_: concurrent.futures.Future[int] = concurrent.futures.Future()
    assert settled(open_, time.monotonic() - 1) is False
    assert settled(open_, time.monotonic() + 0.05) is False


@pytest.mark.parametrize("where", ["main thread", "another thread"])
def test_settled_returns_once_another_thread_settles_the_future(where: str) -> None:
    """On the main thread it waits in slices (MAIN_THREAD_WAIT_SLICE), elsewhere in one wait;
    either way it returns True once the future is settled, long before its deadline."""
    future: concurrent.futures.Future[int] = concurrent.futures.Future()
    result: list[bool] = []
    start = threading.Event()

    def settle() -> None:
        start.wait(WAIT)
        future.set_result(1)

    later(settle)
    if where == "main thread":
        start.set()
        result.append(settled(future, time.monotonic() + 600))
    else:
        waiter = later(lambda: result.append(settled(future, time.monotonic() + 600)))
        start.set()
        waiter.join(WAIT)
    assert result == [True]
