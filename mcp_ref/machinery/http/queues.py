"""The two queues of a session on either HTTP transport: its inbox, and the outbox of each stream.

Not a spec section: the queues behind both HTTP transports' server ends (sse.py, and
streamable_http/server_app.py with streamable_http/session_transport.py). What a client POSTs goes into the
session's ``Inbox``, which the session's reader reads as it reads a pipe (transport.py says what
it must offer). What goes to a client waits in the ``Outbox`` of its stream, bounded in number
and in bytes: a client that stops reading must not be able to grow the server's memory, so:

1. At most ``max_count`` messages of at most ``max_bytes`` in all wait; one message larger than
   ``max_bytes`` goes in alone, when nothing else waits, so it still goes out.
2. A sender that finds no room waits for it, up to its timeout: a burst is slowed to the pace of
   the client. If none comes, ``put`` raises ``Full`` saying what was left unread, and the
   transport gives the client up.
3. The writer ``get``s each message; taking it makes room for a waiting sender. ``close`` makes a
   waiting sender give up at once, whichever bound it waits at; ``end`` puts the end marker
   (None) after what waits, even into a full outbox, whose oldest message makes way for it:
   closing never waits for a reader.
"""

from __future__ import annotations

import queue
import threading


class Inbox:
    """Messages delivered by other threads (``deliver``; ``None`` for the end of input), taken in
    order by the session's reader (``receive``). The queue has no bound of its own: the reader
    takes each message as it comes (a request goes on to the pool, which refuses what it cannot
    hold), so messages wait here only while the reader runs a notification callback or writes an
    answer to a client slow to take it, which the write's timeout bounds."""

    def __init__(self) -> None:
        self._messages: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()

    def deliver(self, data: bytes | None) -> None:
        self._messages.put(data)

    def receive(self, timeout: float | None = None) -> bytes | None:
        try:
            return self._messages.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError("no message within the timeout") from None


class Full(Exception):
    """No room came in time: the client is not reading. The message says what it left unread."""


class Outbox:
    def __init__(self, max_count: int, max_bytes: int) -> None:
        self._queue: queue.Queue[bytes | None] = queue.Queue(max_count)
        self.max_bytes = max_bytes
        self.queued_bytes = 0  # of the messages waiting; changed only under _room
        self._room = threading.Condition()  # signalled when a message is taken, or at close
        self._closed = False

    def put(self, data: bytes, timeout: float | None) -> None:
        """Queue ``data`` within ``timeout`` seconds; ``Full`` if no room came, ``OSError`` if closed."""
        with self._room:  # both bounds at once, so that close() ends every wait for room
            if not self._room.wait_for(lambda: self._closed or self._room_for(len(data)), timeout):
                raise Full(self._unread())
            if self._closed:
                raise OSError("the stream is closed")
            try:
                self._queue.put_nowait(data)
            except queue.Full:  # end() took the last place meanwhile: nothing goes after the end anyway
                raise Full(self._unread()) from None
            self.queued_bytes += len(data)

    def _room_for(self, size: int) -> bool:
        """Room for one more message and for its bytes (a message over the byte bound goes in alone)."""
        return not self._full() and (
            not self.queued_bytes or self.queued_bytes + size <= self.max_bytes)

    def _full(self) -> bool:
        return 0 < self._queue.maxsize <= self._queue.qsize()

    def _unread(self) -> str:
        if self._full():
            return f"{self._queue.maxsize} messages unread"
        return f"{self.queued_bytes} bytes unread (the bound is {self.max_bytes})"

    def get(self, timeout: float | None = None) -> bytes | None:
        """The next message (None: the end); ``queue.Empty`` when none came within ``timeout``."""
        data = self._queue.get(timeout=timeout)
        if data is not None:
            self._taken(data)
        return data

    def _taken(self, data: bytes) -> None:
        with self._room:
            self.queued_bytes -= len(data)
            self._room.notify_all()

    def close(self) -> None:
        """Nothing more goes in; a sender waiting for room gives up at once."""
        with self._room:
            self._closed = True
            self._room.notify_all()

    def end(self) -> None:
        """The end marker (None) after what waits, even into a full outbox, whose oldest message
        then makes way (and leaves the byte count): closing never waits for a reader."""
        with self._room:
            while True:
                try:
                    self._queue.put_nowait(None)
                    return
                except queue.Full:
                    try:
                        dropped = self._queue.get_nowait()
                    except queue.Empty:
                        continue
                    if dropped is not None:
                        self.queued_bytes -= len(dropped)

    @property
    def count(self) -> int:
        """How many messages wait (the end marker among them, once put)."""
        return self._queue.qsize()
