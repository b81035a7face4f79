"""What the engine needs of a transport, and the inbox of a transport fed through a queue.

Not a spec section: the contract between session.py and the transports of basic/transports
(stdio.py, sse.py, sse_client.py, and the Streamable HTTP pair of 2025-03-26). A transport moves
whole messages and knows nothing of methods (TR-12, TR-13: any channel will do that keeps them
whole and unchanged). It offers four things, and nothing else is asked of it:

1. ``receive()``: the next whole message, as bytes, waiting as long as it takes; ``None`` at the
   end of input (the peer closed its side, or ``close()`` was called). Only the session's reader
   thread calls it, one call at a time. ``receive(timeout)`` gives up after that many seconds
   with ``TimeoutError``, where the transport can wait with a bound (the engine never asks).
   It may raise an ``McpError`` for a message it had to discard (a line over the size cap): the
   engine answers that error and reads on. Any other exception means the channel is unusable.
2. ``send(data, timeout)``: one whole message out within ``timeout`` seconds, from any thread,
   never two interleaved: ``TimeoutError`` if the peer did not take it in time, ``OSError`` if
   the channel is closed or broken.
3. ``close()``: end the channel, promptly, whatever the peer does; a ``receive`` waiting then
   returns ``None`` (or the thread waiting in it is a daemon the program may leave behind).
4. ``describe_close()``: why the input ended, in words for an error message ("server process
   exited with code 1").

``Inbox`` is the receiving half of a transport whose messages arrive through a queue rather than
a pipe: the server's end of HTTP with SSE, where each POST's thread delivers the message it
carried, and of Streamable HTTP. The session's reader reads it as it reads a pipe.
"""

from __future__ import annotations

import queue
from typing import Protocol


class Transport(Protocol):
    """A channel of whole messages between two peers (see the module docstring for each part)."""

    def receive(self, timeout: float | None = None) -> bytes | None: ...

    def send(self, data: bytes, timeout: float | None = None) -> None: ...

    def close(self) -> None: ...

    def describe_close(self) -> str: ...


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
