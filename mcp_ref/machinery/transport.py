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
5. Optionally, ``stats()``: what it holds now, for an operator (``Server.stats()``): a dict with
   its ``kind`` ("stdio", "sse", ...), the event ``streams`` it has open, and the messages and
   bytes queued for the peer (``queued_messages``, ``queued_bytes``). The engine never calls it.

(The server's ends of the HTTP transports receive through a queue rather than a pipe: each
POST's thread delivers the message it carried to the session's ``Inbox``, http/queues.py, and the
session's reader reads it as it reads a pipe.)
"""

from __future__ import annotations

from typing import Protocol


class Transport(Protocol):
    """A channel of whole messages between two peers (see the module docstring for each part)."""

    def receive(self, timeout: float | None = None) -> bytes | None: ...

    def send(self, data: bytes, timeout: float | None = None) -> None: ...

    def close(self) -> None: ...

    def describe_close(self) -> str: ...
