"""Carrying each POSTed message to the process that holds its session's event stream.

Not a spec section. HTTP with SSE (basic/transports, see sse.py) gives a session two halves:
one long GET (the event stream) and a POST per client message. The stream lives in the one
process that answered the GET; a POST may arrive at any process behind the same address
(several gunicorn workers, several hosts behind a load balancer). A *relay* carries the POSTed
message from where it arrived to the process holding the stream. In short:

1. Opening a stream, a process *holds* its session: ``hold(session_id, deliver)``, where
   ``deliver`` puts a message into that session's inbox.
2. A POST is checked where it arrives (Host, Origin, content type, size, JSON), then
   ``publish(session_id, body)``: if this process holds the session, the body goes straight
   into its inbox (no Redis, no other thread); otherwise the relay carries it to the holder,
   and returns once the holder has queued it, so a client that waits for each 202 keeps its
   order. ``UnknownSession`` (HTTP 404) when nobody holds it, ``RelayUnavailable`` (503) when
   the way to the holder is down.
3. ``is_live(session_id)`` says whether any process holds the session.
4. ``LocalRelay`` (the default) knows only this process. ``RedisRelay`` (redis_relay.py) uses
   Redis pub/sub. Another broker fits by implementing ``Relay``.
5. Streamable HTTP (streamable_http/server_app.py) answers a request on the response of the POST that
   carried it, so what the holder sends must come back to the process the POST arrived at.
   That process opens a *mailbox* (``open_mailbox()``: an address and a bounded queue) and
   sends its address along with the message; the holder ``post``s each answer to that
   address. Through Redis the mailbox is the relaying process's own acknowledgement channel
   (redis_relay.py), so it costs no subscription; ``post`` says whether any process heard it
   (False: the relaying process is gone, stop sending). A relay without mailboxes still
   serves HTTP with SSE; Streamable HTTP then answers only the requests of its own process.

The Redis relay, its diagram and its bounds: redis_relay.py.
"""

from __future__ import annotations

import hashlib
import logging
import queue
import secrets
import threading
from collections.abc import Callable
from typing import Protocol, runtime_checkable

log = logging.getLogger("mcp_ref.scaleout.relay")

Deliver = Callable[[bytes], None]

# Where messages for a mailbox of this very process are addressed, with no broker in between.
LOCAL_MAILBOXES = "local"


class Mailbox:
    """Messages sent back to this process for one relayed POST or stream: ``address`` names it for
    the holder, ``get(timeout)`` takes the next (None: the sender said it is done, or the mailbox
    overflowed: ``overflowed`` then says so). At most ``max_queued`` wait; the relay's thread,
    which puts them in, never blocks: one more than that and the mailbox is given up."""

    def __init__(self, address: str, max_queued: int, on_close: Callable[[Mailbox], None]) -> None:
        self.address = address
        self.token = address.rpartition(" ")[2]
        self.overflowed = False
        self._ended = False
        self._lock = threading.Lock()
        self._queue: queue.Queue[bytes | None] = queue.Queue(max_queued + 1)  # room for the end marker
        self._max = max_queued
        self._on_close = on_close

    def put(self, data: bytes) -> None:
        """A message arrived (``b""``: the sender is done). Never blocks."""
        with self._lock:
            if self._ended:
                return
            if data and self._queue.qsize() < self._max:
                self._queue.put_nowait(data)
                return
            self._ended = True
            if data:
                self.overflowed = True
                log.warning("relay: a mailbox overflowed (%d messages unread); its stream ends", self._max)
            self._queue.put_nowait(None)

    def get(self, timeout: float | None = None) -> bytes | None:
        """The next message, waiting at most ``timeout``; ``queue.Empty`` if none came."""
        return self._queue.get(timeout=timeout)

    def close(self) -> None:
        self._on_close(self)

    def __enter__(self) -> Mailbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class UnknownSession(LookupError):
    """No process holds this session (it ended, or never was): HTTP 404."""


class RelayUnavailable(RuntimeError):
    """The way to the session's process is down (Redis away, or no acknowledgement in time):
    HTTP 503 with ``Retry-After``. The message says why, for any client to read: it names no
    address and no credentials (the logs give the address)."""


def session_hash(session_id: str) -> str:
    """What the relay's broker sees instead of the session id (which grants the session)."""
    return hashlib.sha256(session_id.encode()).hexdigest()


@runtime_checkable
class Relay(Protocol):
    """What ``SseApp`` needs from a relay. Every method may be called from many threads at once.

    ``hold(session_id, deliver)``: this process holds the session's stream; a message for it
    that arrives anywhere is passed to ``deliver`` (from any thread; it must not block).
    Returns once other processes can reach the session (or, when the broker is away, at once:
    it becomes reachable when the broker is back). ``release(session_id)`` undoes it.
    ``publish(session_id, body)`` hands the body to the session's ``deliver`` and returns once
    that has happened, or raises ``UnknownSession`` or ``RelayUnavailable``.
    ``is_live(session_id)``: whether any process holds the session (``RelayUnavailable`` if
    that cannot be known now). ``close()`` stops the relay's threads and connections.
    """

    def hold(self, session_id: str, deliver: Deliver) -> None: ...

    def release(self, session_id: str) -> None: ...

    def publish(self, session_id: str, body: bytes) -> None: ...

    def is_live(self, session_id: str) -> bool: ...

    def close(self) -> None: ...


class LocalRelay:
    """The sessions of this process are all there are: the default, and what ``RedisRelay``
    checks first. A POST for a session held here is delivered on the POST's own thread."""

    def __init__(self) -> None:
        self._local: dict[str, Deliver] = {}
        self._local_lock = threading.Lock()
        self._mailboxes: dict[str, Mailbox] = {}

    def hold(self, session_id: str, deliver: Deliver) -> None:
        with self._local_lock:
            self._local[session_id] = deliver

    def release(self, session_id: str) -> None:
        with self._local_lock:
            self._local.pop(session_id, None)

    def publish(self, session_id: str, body: bytes) -> None:
        if not self._deliver_here(session_id, body):
            raise UnknownSession(session_id)

    def is_live(self, session_id: str) -> bool:
        with self._local_lock:
            return session_id in self._local

    def close(self) -> None:
        pass

    def __enter__(self) -> LocalRelay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _deliver_here(self, session_id: str, body: bytes) -> bool:
        with self._local_lock:
            deliver = self._local.get(session_id)
        if deliver is None:
            return False
        deliver(body)
        return True

    # --- mailboxes (point 5 of the module docstring) -------------------------------------------

    def _mailbox_channel(self) -> str:
        return LOCAL_MAILBOXES

    def open_mailbox(self, max_queued: int) -> Mailbox:
        """A mailbox of this process for messages sent back by a session's holder; close it
        when done (a ``with`` block does)."""
        address = f"{self._mailbox_channel()} {secrets.token_hex(8)}"
        mailbox = Mailbox(address, max_queued, self._close_mailbox)
        with self._local_lock:
            self._mailboxes[mailbox.token] = mailbox
        return mailbox

    def _close_mailbox(self, mailbox: Mailbox) -> None:
        with self._local_lock:
            if self._mailboxes.get(mailbox.token) is mailbox:
                del self._mailboxes[mailbox.token]

    def post(self, address: str, data: bytes) -> bool:
        """Send ``data`` to the mailbox at ``address`` (``b""`` says "done"); whether it is there."""
        channel, _, token = address.partition(" ")
        if channel not in (LOCAL_MAILBOXES, self._mailbox_channel()):
            return False
        return self._into_mailbox(token, data)

    def _into_mailbox(self, token: str, data: bytes) -> bool:
        with self._local_lock:
            mailbox = self._mailboxes.get(token)
        if mailbox is None:
            return False
        mailbox.put(data)
        return True
