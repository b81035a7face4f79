"""An in-memory transport: two linked ends in one process, for tests and embedding.

Not a spec section. The spec allows custom transports as long as they carry JSON-RPC messages
unchanged and keep the lifecycle (TR-12, TR-13); this one passes whole messages through a pair
of queues, so protocol code can be exercised without pipes or sockets. Closing either end is
end of input for the other.
"""

from __future__ import annotations

import queue
import threading


class MemoryTransport:
    """One end of an in-memory link. Make both with ``MemoryTransport.pair()``."""

    def __init__(self, inbox: queue.SimpleQueue[bytes | None], outbox: queue.SimpleQueue[bytes | None]):
        self._inbox = inbox
        self._outbox = outbox
        self._closed = threading.Event()

    @classmethod
    def pair(cls) -> tuple[MemoryTransport, MemoryTransport]:
        a_to_b: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        b_to_a: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        return cls(b_to_a, a_to_b), cls(a_to_b, b_to_a)

    def receive(self) -> bytes | None:
        return self._inbox.get()  # None: this end or the other was closed

    def send(self, data: bytes) -> None:
        if self._closed.is_set():
            raise OSError("memory transport is closed")
        self._outbox.put(data)

    def close(self) -> None:
        if not self._closed.is_set():
            self._closed.set()
            self._outbox.put(None)  # end of input for the peer
            self._inbox.put(None)  # and for our own reader

    def describe_close(self) -> str:
        return "the in-memory link was closed"
