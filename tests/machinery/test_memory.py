"""The in-memory transport pair (machinery/memory.py), on its own.

Not a spec page: a custom transport of the kind basic/transports allows (TR-12, TR-13). Its
promises: the two ends of ``MemoryTransport.pair()`` pass whole messages, unchanged and in order,
each way; closing either end is end of input (``None``) for both readers, and a closed end
refuses to send (``OSError``); each direction holds at most ``max_queued`` unread messages and a
sender finding it full gets ``TimeoutError`` after its timeout; ``put_end_marker`` queues the end
even into a full queue, dropping what the reader left unread, so closing never waits. A Client
and a Server linked through it are in tests/engine/test_client.py.
"""

from __future__ import annotations

import queue
import threading

import pytest

from mcp_ref.machinery.memory import MemoryTransport, put_end_marker

WAIT = 5.0  # seconds: a bound for liveness only


def test_messages_pass_whole_unchanged_and_in_order_each_way() -> None:
    a, b = MemoryTransport.pair()
    sent = [b'{"jsonrpc":"2.0","id":1,"method":"ping"}', "\u2028 caf\u00e9".encode(), b"", b"\n\n"]
    for data in sent:
        a.send(data)
    assert [b.receive(WAIT) for _ in sent] == sent
    b.send(b"back")
    assert a.receive(WAIT) == b"back"


def test_receive_with_a_timeout_gives_up_with_timeout_error() -> None:
    a, _b = MemoryTransport.pair()
    with pytest.raises(TimeoutError):
        a.receive(timeout=0.01)


@pytest.mark.parametrize("closing", ["this end", "the other end"])
def test_closing_either_end_is_the_end_of_input_for_both(closing: str) -> None:
    a, b = MemoryTransport.pair()
    a.send(b"before")
    (a if closing == "this end" else b).close()
    assert b.receive(WAIT) == b"before", "what was sent before the close is still read"
    assert b.receive(WAIT) is None
    assert a.receive(WAIT) is None
    closed = a if closing == "this end" else b
    with pytest.raises(OSError, match="closed"):
        closed.send(b"after")
    closed.close()  # twice: harmless
    assert a.describe_close() == "the in-memory link was closed"


def test_a_reader_waiting_is_woken_by_close() -> None:
    a, b = MemoryTransport.pair()
    got: list[bytes | None] = []
    reader = threading.Thread(target=lambda: got.append(b.receive()), daemon=True)
    reader.start()
    a.close()
    reader.join(WAIT)
    assert got == [None]


def test_a_full_direction_makes_the_sender_wait_its_timeout_then_time_out() -> None:
    a, b = MemoryTransport.pair(max_queued=2)
    a.send(b"1")
    a.send(b"2")
    assert a.stats()["queued_messages"] == 2
    with pytest.raises(TimeoutError, match="the peer left 2 messages unread for 0.01 s"):
        a.send(b"3", timeout=0.01)
    assert b.receive(WAIT) == b"1"
    a.send(b"3", timeout=WAIT)  # room again
    assert [b.receive(WAIT), b.receive(WAIT)] == [b"2", b"3"]
    b.send(b"the other way is not full", timeout=0)


def test_closing_never_waits_for_a_reader_that_left_its_queue_full() -> None:
    a, b = MemoryTransport.pair(max_queued=2)
    a.send(b"1")
    a.send(b"2")
    a.close()  # the queue is full: a message is dropped to make room for the end marker
    received = [b.receive(WAIT), b.receive(WAIT)]
    assert received[-1] is None


def test_put_end_marker_goes_after_what_waits_even_into_a_full_queue() -> None:
    box: queue.Queue[bytes | None] = queue.Queue(3)
    box.put(b"a")
    put_end_marker(box)
    assert [box.get_nowait(), box.get_nowait()] == [b"a", None]
    for item in (b"a", b"b", b"c"):
        box.put(item)
    put_end_marker(box)
    left = [box.get_nowait() for _ in range(box.qsize())]
    assert left == [b"b", b"c", None]
