"""Reading a session's transport: one message at a time, on whichever thread the crew says.

Not a spec section: the machinery between a transport and the engine (session.py). The crew
(crew.py) decides *who* reads; this module is *what* a reading thread does, and what it hands on:

1. A crew member reads one message and hands it to the engine (``handle``), which deals with it
   and may return a request that takes long, for the crew to run: a ``RefusableJob`` (the engine
   makes an ``Errand``), which the crew may refuse when it has no thread for it.
2. A caller reading for its own answer (crew.py, rule 6) gives the engine only answers
   (``take_answer``), which run no code of the user's. Anything else (a notification, a request
   of the peer, a line it cannot parse, the end of input, a broken channel) it leaves, with the
   reading, to the crew: the message is kept and handled next, in order, by the member that
   takes the reading up. So a user's callback, and the end of a session, never hold a caller past
   its timeout.
3. A framing error the transport recovered from (a line too long) goes to ``framing_error``, and
   reading goes on; the end of input goes to ``ended``; a broken channel to ``broken``.
4. ``Countdown`` lets the end of input wait, briefly, for requests still running to answer.
5. ``Inbox`` is the receiving half of a transport whose messages arrive through a queue (the
   server sessions of SSE and Streamable HTTP, which POST threads fill): ``deliver`` queues a
   message and tells the session's crew (crew.py, rule 3: a nudged crew); where the deliverer
   is free to read, it then reads, through ``read_here`` (crew.py, rule 8).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Protocol

from .. import messages
from ..messages import McpError, Message

Job = Callable[[], None]  # work for a member: run it by calling it


class RefusableJob(Protocol):
    """A job the reader found (a request of the peer, say): run it by calling it; ``refuse(reason)``
    deals with it instead when the crew cannot take it (every member busy, the queue full)."""

    def __call__(self) -> None: ...

    def refuse(self, reason: str) -> None: ...


class Errand:
    """A ``RefusableJob`` made of two functions: what to do, and what to do instead if refused."""

    __slots__ = ("_run", "_refuse")

    def __init__(self, run: Job, refuse: Callable[[str], None]):
        self._run = run
        self._refuse = refuse

    def __call__(self) -> None:
        self._run()

    def refuse(self, reason: str) -> None:
        self._refuse(reason)


class Transport(Protocol):
    """What the engine (session.py) calls on a transport: whole messages in, whole messages out.
    A transport knows no MCP method (DESIGN principle 6); stdio.py and sse.py hold the real ones.

    ``receive(timeout=None)`` blocks until one message (the bytes of one JSON text) arrives, and
    returns None at end of stream; one thread calls it at a time. It raises ``McpError`` for a
    framing error it recovered from (the session answers it and reads on), ``OSError`` when the
    channel broke. Only a transport that sets ``timed_receive = True`` is given a ``timeout``, and
    raises ``TimeoutError`` when nothing came in time (a caller reading for itself, crew.py rule 6).
    ``send(data, timeout)`` writes one message whole within ``timeout`` seconds, from any thread,
    never interleaving two; ``TimeoutError`` if the peer did not take it in time, ``OSError`` if the
    channel is closed or broken. ``close()`` returns promptly whatever the peer does;
    ``describe_close()`` says why the stream ended ("server process exited with code 1").
    """

    def receive(self, timeout: float | None = None) -> bytes | None: ...

    def send(self, data: bytes, timeout: float | None = None) -> None: ...

    def close(self) -> None: ...

    def describe_close(self) -> str: ...


class Reading:
    """Reads ``transport`` for a session; ``read`` is the crew's ``read`` function."""

    def __init__(self, transport: Transport, *, handle: Callable[[bytes], RefusableJob | None],
                 take_answer: Callable[[bytes, Message], None], framing_error: Callable[[McpError], None],
                 ended: Callable[[], None], broken: Callable[[Exception], None], hand_over: Callable[[], None]):
        self._transport = transport
        self._handle = handle
        self._take_answer = take_answer
        self._framing_error = framing_error
        self._ended = ended
        self._broken = broken
        self._hand_over = hand_over
        self._left_over: bytes | None = None  # read by a caller, for the crew to handle next

    def read(self, timeout: float | None = None) -> RefusableJob | None:
        """Read one message and hand it on. ``timeout`` None: a crew member, which waits as long as
        it takes; a number: a caller with that many seconds left (rule 2 above)."""
        caller = timeout is not None
        data, self._left_over = self._left_over, None
        if data is None:
            try:
                data = self._transport.receive(timeout) if caller else self._transport.receive()
            except TimeoutError:  # nothing came in time: the caller's own timeout will say so
                return None
            except McpError as exc:  # a framing error the transport recovered from: answer it, read on
                self._framing_error(exc)
                return None
            except Exception as exc:  # OSError or worse: the channel is unusable
                if caller:
                    self._hand_over()  # the member taking over meets it too, and ends the session
                else:
                    self._broken(exc)
                return None
            if data is None:  # end of input: ending may take seconds (a child to stop), a member's job
                if caller:
                    self._hand_over()
                else:
                    self._ended()
                return None
        if not caller:
            return self._handle(data)
        answer = _as_answer(data)
        if answer is None:
            self._left_over = data
            self._hand_over()
        else:
            self._take_answer(data, answer)
        return None


def _as_answer(data: bytes) -> Message | None:
    """``data`` decoded, if it is an answer (a response); None for anything else."""
    try:
        msg = messages.decode(data)
        return msg if messages.classify(msg) is messages.RESPONSE else None
    except McpError:
        return None


class Countdown:
    """How many requests are taken in and not yet answered; ``wait_for_zero`` waits, bounded.

    Counting takes a plain lock, twice per request; only a thread waiting for zero (the end of
    input, once per session) makes an Event to be woken by. (A Condition notified on every
    answer cost a measured share of the server's work per request: benchmarks/RESULTS.md.)"""

    def __init__(self) -> None:
        self._count = 0
        self._lock = threading.Lock()
        self._zero: threading.Event | None = None  # set when the count reaches zero, while waited for

    def add(self) -> None:
        with self._lock:
            self._count += 1

    def done(self) -> None:
        with self._lock:
            self._count -= 1
            if self._count == 0 and self._zero is not None:
                self._zero.set()
                self._zero = None

    def wait_for_zero(self, timeout: float) -> bool:
        with self._lock:
            if not self._count:
                return True
            if self._zero is None:
                self._zero = threading.Event()
            zero = self._zero
        return zero.wait(timeout)


class Inbox:
    """What a queue-fed transport receives: ``deliver`` puts a message (None: the end of input)
    and then tells the crew (``message_arrived``, hooked by the session with ``on_arrival``);
    ``waiting`` says whether one waits unread; ``receive`` takes the next, as the Transport
    protocol asks. Where a deliverer is free to read what it delivered (``deliverers_read``,
    crew.py rule 8), it calls ``deliver(data, then_read=True)`` and then, always, ``read_here()``."""

    deliverers_read = False  # set by the transport where its deliverers may call read_here

    def __init__(self) -> None:
        self._messages: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._arrived: Callable[[bool], None] = _no_one  # the session's crew's message_arrived, once hooked
        self._read_here: Callable[[], None] = _no_one_reads  # and its read_here

    def deliver(self, data: bytes | None, *, then_read: bool = False) -> None:
        self._messages.put(data)
        self._arrived(then_read)

    def read_here(self) -> None:
        """Read what waits on this thread, if nobody is reading (crew.py rule 8)."""
        self._read_here()

    def waiting(self) -> bool:
        return not self._messages.empty()

    def on_arrival(self, arrived: Callable[[bool], None], read_here: Callable[[], None]) -> None:
        self._arrived = arrived
        self._read_here = read_here

    def receive(self, timeout: float | None = None) -> bytes | None:
        try:
            return self._messages.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError("no message within the timeout") from None


def _no_one(deliverer_reads: bool) -> None:
    """Who hears of a message before the session hooks its crew: nobody needs to."""


def _no_one_reads() -> None:
    """Who reads for a deliverer before the session hooks its crew: nobody; the crew reads it once
    it starts."""
