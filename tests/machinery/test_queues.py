"""The two queues of a session on either HTTP transport (machinery/http/queues.py), on their own.

Not a spec page: the queues behind sse.py and streamable_http/. Their promises: the ``Inbox``
hands the session's reader what other threads deliver, in order, ``None`` for the end, and a
``receive`` with a timeout gives up with ``TimeoutError``; an ``Outbox`` holds at most
``max_count`` messages of at most ``max_bytes`` in all (one larger message goes in alone, when
nothing else waits); a sender finding no room waits for it up to its timeout, then gets ``Full``
saying what was left unread; ``get`` makes room for a waiting sender; ``close`` makes a waiting
sender give up at once; ``end`` puts the end marker after what waits, even into a full outbox.
What a server does with a client that stops reading is in tests/pages/test_sse_client.py and
tests/streamable_http/. Every wait here is bounded; no test asserts how long anything took.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

import pytest

from mcp_ref.machinery.http.queues import Full, Inbox, Outbox

WAIT = 5.0  # seconds: a bound for liveness only


def in_background(action: Callable[[], object]) -> tuple[threading.Thread, list[object]]:
    """Run ``action`` on a thread; the list gets what it returned or raised."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(action())
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def test_the_inbox_hands_on_messages_in_order_then_the_end() -> None:
    inbox = Inbox()
    for data in (b"1", b"2", None):
        inbox.deliver(data)
    assert [inbox.receive(WAIT), inbox.receive(WAIT), inbox.receive(WAIT)] == [b"1", b"2", None]
    with pytest.raises(TimeoutError):
        inbox.receive(timeout=0.01)


def test_the_count_bound_refuses_with_full_after_the_timeout_and_keeps_the_byte_count_right() -> None:
    box = Outbox(max_count=2, max_bytes=1000)
    box.put(b"one", timeout=0)
    box.put(b"two", timeout=0)
    with pytest.raises(Full, match="2 messages unread"):
        box.put(b"three", timeout=0.01)
    assert box.count == 2 and box.queued_bytes == 6, "a refused message still counts in the bytes waiting"


def test_the_byte_bound_refuses_with_full_saying_what_was_left_unread() -> None:
    box = Outbox(max_count=100, max_bytes=10)
    box.put(b"123456", timeout=0)
    with pytest.raises(Full, match=r"6 bytes unread \(the bound is 10\)"):
        box.put(b"abcdef", timeout=0.01)
    box.put(b"abcd", timeout=0)  # what fits goes in
    assert box.queued_bytes == 10


def test_one_message_larger_than_the_bound_goes_in_alone() -> None:
    box = Outbox(max_count=100, max_bytes=10)
    big = b"x" * 50
    box.put(big, timeout=0)  # nothing else waits: it goes, or it could never go out
    with pytest.raises(Full):
        box.put(b"y", timeout=0.01)
    assert box.get(WAIT) == big and box.queued_bytes == 0
    box.put(b"y", timeout=0)


@pytest.mark.parametrize("bound", ["bytes", "count"])
def test_a_sender_waiting_for_room_goes_in_when_the_writer_takes_a_message(bound: str) -> None:
    box = Outbox(max_count=1, max_bytes=1000) if bound == "count" else Outbox(max_count=100, max_bytes=4)
    box.put(b"abcd", timeout=0)
    sender, outcome = in_background(lambda: box.put(b"efgh", timeout=WAIT))
    assert box.get(WAIT) == b"abcd"  # room
    sender.join(WAIT)
    assert outcome == [None]
    assert box.get(WAIT) == b"efgh"


def test_close_makes_a_sender_waiting_for_byte_room_give_up_at_once() -> None:
    box = Outbox(max_count=100, max_bytes=4)
    box.put(b"abcd", timeout=0)
    sender, outcome = in_background(lambda: box.put(b"efgh", timeout=600))  # only close() ends this wait in time
    box.close()
    sender.join(WAIT)
    assert not sender.is_alive(), "close() left a sender waiting"
    assert len(outcome) == 1 and isinstance(outcome[0], OSError) and "closed" in str(outcome[0])
    with pytest.raises(OSError, match="closed"):
        box.put(b"later", timeout=0)


def test_close_makes_a_sender_waiting_at_the_count_bound_give_up_at_once() -> None:
    box = Outbox(max_count=1, max_bytes=1000)
    box.put(b"a", timeout=0)
    sender, outcome = in_background(lambda: box.put(b"b", timeout=2.0))
    box.close()
    sender.join(1.0)
    stuck = sender.is_alive()
    sender.join(WAIT)  # (let it end before the test does)
    assert not stuck, "close() left a sender waiting at the count bound"
    assert len(outcome) == 1 and isinstance(outcome[0], OSError)


def test_end_goes_after_what_waits_even_into_a_full_outbox() -> None:
    box = Outbox(max_count=3, max_bytes=1000)
    box.put(b"1", timeout=0)
    box.end()
    assert box.count == 2
    assert [box.get(WAIT), box.get(WAIT)] == [b"1", None]
    for data in (b"1", b"2", b"3"):
        box.put(data, timeout=0)
    box.end()  # full: closing never waits for a reader (the oldest message is dropped for the marker)
    assert [box.get(WAIT) for _ in range(box.count)][-1] is None
    with pytest.raises(queue.Empty):
        box.get(timeout=0.01)


def test_an_end_that_drops_the_oldest_message_counts_its_bytes_out() -> None:
    """A full outbox's end marker takes the oldest message's place: its bytes leave the count with
    it, so what ``queued_bytes`` says is what still waits (Server.stats() reports it)."""
    box = Outbox(max_count=2, max_bytes=1000)
    box.put(b"first", timeout=0)
    box.put(b"second", timeout=0)
    box.end()
    assert box.queued_bytes == len(b"second")
    assert [box.get(WAIT), box.get(WAIT)] == [b"second", None]
    assert box.queued_bytes == 0
