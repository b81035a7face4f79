"""An in-memory transport: two linked ends in one process, for tests and embedding.

Not a spec section. The spec allows custom transports as long as they carry JSON-RPC messages
unchanged and keep the lifecycle (TR-12, TR-13); this one passes whole messages through a pair
of queues, so protocol code can be exercised without pipes or sockets. Closing either end is
end of input for the other. Each direction holds at most ``max_queued`` unread messages: a
sender that finds the queue full waits up to its timeout, then gets ``TimeoutError``, as it
would from a pipe the peer stopped reading.
"""

from __future__ import annotations

import queue
import threading
from typing import Any

DEFAULT_MAX_QUEUED = 10_000


class MemoryTransport:
    """One end of an in-memory link. Make both with ``MemoryTransport.pair()``."""

    def __init__(self, inbox: queue.Queue[bytes | None], outbox: queue.Queue[bytes | None]):
        self._inbox = inbox
        self._outbox = outbox
        self._closed = threading.Event()

    @classmethod
    def pair(cls, max_queued: int = DEFAULT_MAX_QUEUED) -> tuple[MemoryTransport, MemoryTransport]:
        a_to_b: queue.Queue[bytes | None] = queue.Queue(max_queued)
        b_to_a: queue.Queue[bytes | None] = queue.Queue(max_queued)
        return cls(b_to_a, a_to_b), cls(a_to_b, b_to_a)

    def receive(self, timeout: float | None = None) -> bytes | None:
        try:
            return self._inbox.get(timeout=timeout)  # None: this end or the other was closed
        except queue.Empty:
            raise TimeoutError("no message within the timeout") from None

    def send(self, data: bytes, timeout: float | None = None) -> None:
        if self._closed.is_set():
            raise OSError("memory transport is closed")
        try:
            self._outbox.put(data, timeout=timeout)  # TR-12, TR-13: the message passes whole, unchanged
        except queue.Full:
            raise TimeoutError(f"the peer left {self._outbox.maxsize} messages unread for {timeout:g} s") from None

    def close(self) -> None:
        if not self._closed.is_set():
            self._closed.set()
            put_end_marker(self._outbox)  # end of input for the peer
            put_end_marker(self._inbox)  # and for our own reader

    def describe_close(self) -> str:
        return "the in-memory link was closed"

    def stats(self) -> dict[str, Any]:  # (transport.py: what waits for the peer to read it)
        return {"kind": "memory", "streams": 0, "queued_messages": self._outbox.qsize(), "queued_bytes": 0}


def put_end_marker(box: queue.Queue[bytes | None]) -> None:
    """Queue the end-of-input marker (None) after what is queued, even into a full queue: closing
    never waits for a reader. A full queue belongs to a reader that is not reading, so messages
    are dropped to make room (the SSE server's stream queues use it too)."""
    while True:
        try:
            box.put_nowait(None)
            return
        except queue.Full:
            try:
                box.get_nowait()
            except queue.Empty:
                pass
