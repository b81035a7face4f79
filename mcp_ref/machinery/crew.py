"""How a session uses its threads: one reads and runs what it reads; a standby takes over the
reading when that takes long.

Not a spec section: the machinery under session.py ("threads at the edges").

The rules:

1. A session has a small *crew* of threads (at most ``max_threads``). Exactly one of them, the
   *reader*, reads messages from the transport, one after another.
2. When the reader meets a request that may take a while (a tool call, say), it runs it itself,
   at once. Handing it to another thread would cost a thread wake-up on every round trip, and
   for the many requests that take microseconds that hand-off was the largest cost we could
   remove: measured side by side against a worker pool, both the round trip and the server's CPU
   per call fell (the figures: benchmarks/RESULTS.md).
3. So that a long request never stops the reading (a ping must still be answered, a
   cancellation seen, the answer to the handler's own request to the peer read), one other
   member waits on *standby*. If the reader is still busy with the same request after
   ``STANDBY_DELAY`` seconds, the standby becomes the reader. A crew whose transport tells when
   a message waits unread (``waiting``, and ``message_arrived`` called after each message put
   in its queue: the sessions of SSE and Streamable HTTP) is *nudged* instead: its standby
   becomes the reader as soon as a message waits while the reader is busy, and not otherwise.
   When the old reader finishes its request it becomes the standby, or leaves the crew if there
   is one already.
4. If no member can stand by (all are busy with long requests), the reader queues a request
   instead of running it (at most ``max_queued``), and a member that finishes takes the next.
   Work handed in from outside (``submit``) waits in the same queue.
5. ``stop()`` ends the crew: the reader leaves after the message it is on, the standby at once,
   busy members when their request ends. Members are daemon threads: a stuck handler never
   keeps the process alive.
6. A caller waiting for the answer to its own request reads for itself (``read_until``) when
   nobody else is reading, until its answer is in: the answer then reaches it without waking
   another thread, the mirror image of rule 2 on the side that asks. A caller takes answers
   only: when it meets anything else (a notification and its callback, a request of the peer,
   the end of input), it hands that over with the reading (``hand_over``) and the standby takes
   the reading up at once, so the user's callbacks and the session's end run on crew threads,
   in order, and never hold a caller past its timeout. It reads ``CALLER_LOOKS_UP`` at a time,
   so an answer another thread sets (``cancel()``, ``close()``) ends its wait at once. Only a
   crew told whether answers are ``awaited`` does this (the stdio client: its transport can
   bound a read by the caller's own timeout). Measured side by side (benchmarks/history.py):
   the client's CPU per round trip fell, and the round trip too while the machine wakes threads
   quickly (the figures: benchmarks/RESULTS.md).
7. So that callers find the reading free, the member reading puts it down when the last awaited
   answer has come in (``answered_all``): the reading *rests*. A caller takes it up; if none
   does within ``STANDBY_DELAY``, the standby does (so the peer's notifications and requests are
   still read while the program makes no calls), and at once if a caller put it down while
   other answers were still awaited. Many threads sharing one client keep their throughput:
   while answers are awaited, a member keeps reading and hands them out as before.
8. On a nudged crew whose *deliverers read* (an SSE session on our own HTTP server, where a
   POST's thread is free once its 202 is out), the thread that delivered a message reads it
   itself (``read_here``) when nobody reads: rule 6's mirror, saving a member's wake-up per
   message. So that it finds the reading free, a member puts the reading down whenever no
   message waits, and takes it up only for one queued with no deliverer to read it (the end of
   input, a message from the relay). A deliverer reads what waits, in order, runs a request as
   a reader does (rules 2 and 3), and counts as a member while it reads (``max_threads`` holds).

Every decision about who does what is taken under one lock (``_next_task`` for members,
``read_until`` for callers), so exactly one thread reads at any time: the transport's
``receive`` is called by one thread at a time.

The standby is not woken for every request (that would put back the wake-up rule 2 saved):
while requests keep coming (one started within the last ``STANDBY_DELAY``), or a caller reads,
it checks the reader every ``STANDBY_DELAY``; when a check finds no request started since then,
it sleeps without a timeout, and the next request wakes it. So a busy session pays one check
every ``STANDBY_DELAY``, not one per request, and a quiet one (a request now and then) pays
about two per request, not a check every ``STANDBY_DELAY`` for as long as it is open (a
measured gain: benchmarks/RESULTS.md). A nudged crew pays none of these: its standby sleeps
without a timeout, through requests too, and is woken only when a message waits while the
reader is busy (many quiet SSE clients on one server: a measured gain, benchmarks/RESULTS.md).
No message is missed, because every decision is taken under the lock: the reader, as it starts
a request, asks ``waiting()`` (a message queued before that is seen then); ``message_arrived``,
called after the message is queued, sees the reader busy (a message queued after that is
nudged then); a nudge is forgotten when the request ends (the reader reads the message
itself) or when the standby takes over. The end of input comes through the same queue, so it
is nudged too, and ``stop()`` wakes every member as before.
"""

from __future__ import annotations

import collections
import enum
import logging
import threading
import time
from collections.abc import Callable

from ..messages import ConnectionClosed
from .reading import Job, RefusableJob

log = logging.getLogger("mcp_ref.machinery.crew")

STANDBY_DELAY = 0.005  # seconds a request may hold the reader before the standby takes over
DEFAULT_MAX_QUEUED = 1024  # requests and jobs waiting for a free member; beyond it, refused
CALLER_LOOKS_UP = 0.1  # seconds a caller reading for itself reads before it checks whether its answer was
                       # set by another thread (cancel(), close()): then it stops at once, not at its deadline

class Task(enum.Enum):
    """What a member does next (decided by ``Crew._next_task``)."""

    READ = "read the next message"
    WORK = "run a queued job"
    LEAVE = "leave the crew"


class CrewFull(RuntimeError):
    """Every member is busy and the queue is full: the request cannot be taken now."""


class Crew:
    """The threads of one session.

    ``read(timeout)`` is called by the reader, one message per call: it handles what is quick
    itself and returns a ``RefusableJob`` that may take long, or None; members pass ``timeout=None``
    (wait for a message as long as it takes), callers the time they have left (rule 6).
    ``on_error(exc)`` hears of an exception that escaped a job or ``read()`` (both should handle
    their own). ``awaited()``, if given, says whether any request of ours still waits for its
    answer, and turns rule 6 on. ``waiting()``, if given, says whether a message waits unread
    in the transport's queue, and makes the crew nudged (rule 3): the transport must then call
    ``message_arrived()`` after each message (or end of input) it queues. ``deliverers_read``
    (a nudged crew only) turns rule 8 on: the transport's deliverers then call ``read_here()``
    after ``message_arrived(deliverer_reads=True)``."""

    def __init__(self, name: str, read: Callable[[float | None], RefusableJob | None], *, max_threads: int,
                 max_queued: int = DEFAULT_MAX_QUEUED, on_error: Callable[[BaseException], None] | None = None,
                 awaited: Callable[[], bool] | None = None, waiting: Callable[[], bool] | None = None,
                 deliverers_read: bool = False):
        if max_threads < 2:
            raise ValueError("a crew needs at least two threads: a reader and a standby")
        self.name = name
        self._read = read
        self._max_threads = max_threads
        self._max_queued = max_queued
        self._on_error = on_error
        self._awaited = awaited
        self._waiting = waiting  # None: the standby checks a busy reader after STANDBY_DELAY (rule 3)
        self._deliverers_read = deliverers_read and waiting is not None  # rule 8
        # _lock guards every field below; _state, a condition on it, is notified when the sleeping
        # standby must look again: a request started (on a nudged crew: a message waits while the
        # reader is busy), a job was queued, or the crew stopped. (Taken as ``with self._lock``, a
        # plain lock costs less than the condition's own ``with``, on every request and every
        # caller's read: a measured gain, benchmarks/RESULTS.md. It is not re-entrant: nothing done
        # under it takes it again; ``waiting()``, called under it, must not take it either.)
        self._lock = threading.Lock()
        self._state = threading.Condition(self._lock)
        self._reader: threading.Thread | None = None  # None: the reading rests (rule 7)
        self._caller_reads = False  # the reader is a caller, not a member (rule 6)
        self._handing_over = False  # the caller reading met what only the crew handles
        self._resting_since = 0.0  # when the reading was last put down
        self._take_up_now = False  # put down while answers were still awaited
        self._put_down_after_this = False  # the last awaited answer came in (rule 7)
        self._standby: threading.Thread | None = None
        self._standby_sleeping = False  # in a wait without timeout: must be woken by notify
        self._busy_since: float | None = None  # when the reader started the request it runs
        self._take_over_now = False  # nudged crew: a message waits while the reader is busy (rule 3)
        self._last_start = 0.0  # when the reader last started a request
        self._members = 0
        self._queue: collections.deque[Job] = collections.deque()
        self._stopped = False

    # --- starting and stopping --------------------------------------------------------------------

    def start(self) -> None:
        """Start the first member, the reader, on a thread of its own."""
        with self._lock:
            self._reader = self._new_member_locked("reader")
        self._reader.start()

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            self._queue.clear()
            self._state.notify_all()

    def is_reader(self) -> bool:
        """Whether the calling thread is the one reading messages now."""
        return self._reader is threading.current_thread()

    def submit(self, job: Job) -> None:
        """Queue ``job`` for a free member (rule 4); CrewFull if the queue is full."""
        with self._lock:
            if self._stopped:
                return
            self._enqueue_locked(job)
            if self._standby is None and self._members < self._max_threads:
                self._new_member_locked("standby").start()

    # --- a member's life ---------------------------------------------------------------------------

    def _serve(self) -> None:
        me = threading.current_thread()
        try:
            while True:
                task, job = self._next_task(me)
                if task is Task.LEAVE:
                    return
                if task is Task.WORK:
                    self._run(job)
                    continue
                # The reader reads on without the lock: it stops being the reader only while it
                # runs a request (a standby took over, rule 3), or when the crew stops.
                while self._reader is me and not self._stopped:
                    if self._deliverers_read and self._put_down_if_idle(me):
                        break  # rule 8: the reading rests until a message comes
                    try:
                        request = self._read(None)
                    except BaseException as exc:  # read() handles its own errors: this is a bug of ours
                        self._report(exc)
                        self.stop()
                        return
                    if request is not None:
                        self._run_as_reader(request)
                    elif self._put_down_after_this:
                        self._put_down_reading(me)
        finally:
            with self._lock:
                self._members -= 1
                if self._reader is me:
                    self._reader = None
                if self._standby is me:
                    self._standby = None

    def _next_task(self, me: threading.Thread) -> tuple[Task, Job]:
        """Decide, under the lock, what ``me`` does next (rules 1, 3, 4, 5, 7). One invariant is
        kept: while the reader runs a request, a caller reads, or the reading rests, some member
        stands by (unless the crew is full)."""
        with self._lock:
            while not self._stopped:
                if self._reader is me:
                    return Task.READ, _nothing
                if self._standby not in (None, me):  # someone else stands by: work or leave
                    if self._queue:
                        return Task.WORK, self._queue.popleft()
                    return Task.LEAVE, _nothing
                self._standby = me
                now = time.monotonic()
                busy_since = self._busy_since
                resting = self._reader is None
                if resting and (self._take_up_now or (not self._deliverers_read
                                                      and now - self._resting_since >= STANDBY_DELAY)):
                    # Rule 7: no caller took the reading up: take it up again (rule 8: a message
                    # came with no deliverer to read it).
                    self._reader, self._standby, self._take_up_now = me, None, False
                    return Task.READ, _nothing
                if busy_since is not None and (self._take_over_now or now - busy_since >= STANDBY_DELAY):
                    # The reader has been on one request too long, or a message waits: take over the reading.
                    self._reader, self._standby, self._busy_since, self._take_over_now = me, None, None, False
                    return Task.READ, _nothing
                needed = resting or self._caller_reads or busy_since is not None  # the invariant
                if self._queue and (not needed or self._members < self._max_threads):
                    # Take the waiting job; if a standby is needed, a new member is it.
                    self._standby = None
                    if needed:
                        self._new_member_locked("standby").start()
                    return Task.WORK, self._queue.popleft()
                nudged = self._waiting is not None  # then a message that waits wakes it (message_arrived)
                if resting and not self._deliverers_read:
                    self._state.wait(self._resting_since + STANDBY_DELAY - now)
                elif busy_since is not None and not nudged:
                    self._state.wait(busy_since + STANDBY_DELAY - now)
                elif self._caller_reads or (not nudged and now - self._last_start < STANDBY_DELAY):
                    self._state.wait(STANDBY_DELAY)  # requests keep coming: check again soon
                else:
                    self._standby_sleeping = True
                    self._state.wait()
                    self._standby_sleeping = False
            return Task.LEAVE, _nothing

    def _run_as_reader(self, request: RefusableJob) -> None:
        """Rule 2: run the request here, with a standby ready to take over the reading."""
        me = threading.current_thread()
        refusal = None
        with self._lock:
            run_here = self._standby is not None or self._members < self._max_threads
            if run_here:
                if self._standby is None:
                    self._new_member_locked("standby").start()
                self._busy_since = self._last_start = time.monotonic()
                if self._waiting is None:
                    if self._standby_sleeping:
                        self._state.notify_all()
                elif self._waiting():  # queued before we became busy: message_arrived saw us idle
                    self._take_over_now = True
                    self._state.notify_all()
            else:  # rule 4: nobody could take over the reading; queue it, do not block reading
                try:
                    self._enqueue_locked(request)
                except CrewFull as exc:
                    refusal = f"all {self._max_threads} threads are busy and {exc}; try again later"
        if not run_here:
            if refusal is not None:
                request.refuse(refusal)  # outside the lock: it sends the answer
            return
        try:
            self._run(request)
        finally:
            with self._lock:
                if self._reader is me:
                    self._busy_since = None
                    self._take_over_now = False  # a late nudge: this reader reads the message itself

    def message_arrived(self, deliverer_reads: bool = False) -> None:
        """Called by a nudged crew's transport right after it queued a message (or the end of
        input): if the reader is busy with a request, the standby takes the reading over now (rule 3);
        if the reading rests and no deliverer will read (rule 8), the standby takes it up now."""
        with self._lock:
            if self._busy_since is not None and not self._take_over_now:
                self._take_over_now = True
                self._state.notify_all()
            elif self._reader is None and not deliverer_reads and not self._take_up_now:
                self._take_up_now = True
                self._state.notify_all()

    # --- rule 8: a deliverer reads what it delivered ---------------------------------------------

    def read_here(self) -> None:
        """Read, on the calling thread, what waits in the transport's queue, if nobody is reading
        (rule 8); run each request as a reader does; put the reading down when nothing waits. If
        the reading is taken, return at once: the reader reads the message (or, busy, was nudged).
        If there is no room for one more thread, a member takes the reading up instead."""
        me = threading.current_thread()
        with self._lock:
            if self._reader is not None or self._stopped or not self._members:  # (none: the first member reads it)
                return
            if self._members >= self._max_threads:
                self._take_up_now = True
                self._state.notify_all()
                return
            self._reader, self._take_up_now = me, False
            self._members += 1  # counted as one while it reads and runs (max_threads holds)
        try:
            while not self._put_down_if_idle(me) and not self._stopped:
                request = self._read(None)  # does not block: a message waits, and only we read
                if request is not None:
                    self._run_as_reader(request)  # (a standby may take the reading over: the loop ends)
        except BaseException as exc:  # read() handles its own errors: this is a bug of ours
            self._report(exc)
            self.stop()
        finally:
            with self._lock:
                self._members -= 1
                if self._reader is me:
                    self._reader = None

    def _put_down_if_idle(self, me: threading.Thread) -> bool:
        """Rule 8: if no message waits, the reader ``me`` puts the reading down; whether it did.
        Decided under the lock, with ``message_arrived`` and ``read_here``: a message queued before
        is seen here, one queued after finds the reading resting."""
        with self._lock:
            if self._reader is not me:
                return True
            assert self._waiting is not None
            if self._waiting():
                return False
            self._reader = None
            self._resting_since = time.monotonic()
            return True

    # --- rules 6 and 7: a caller reads its own answer ---------------------------------------------

    def read_until(self, answered: Callable[[], bool], deadline: float) -> None:
        """Read messages on the calling thread until ``answered()`` or the ``deadline`` (on the
        time.monotonic clock), if nobody else is reading; else return at once: whoever reads
        will hand the answer over. Rule 6; does nothing unless the crew knows what is awaited."""
        if self._awaited is None:
            return
        me = threading.current_thread()
        with self._lock:
            if self._reader is not None or self._stopped:
                return
            self._reader, self._caller_reads, self._take_up_now = me, True, False
        try:
            while not answered() and not self._stopped and not self._handing_over:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._read(min(left, CALLER_LOOKS_UP))  # answers only: anything else is handed over (hand_over)
        finally:
            with self._lock:
                self._reader, self._caller_reads = None, False
                self._resting_since = time.monotonic()
                # Other callers wait for answers that nobody reads now, or the caller met what
                # only the crew handles: the standby must not wait.
                self._take_up_now = self._handing_over or self._awaited()
                self._handing_over = False
                if self._take_up_now or self._standby_sleeping:
                    self._state.notify_all()

    def hand_over(self) -> None:
        """Called by ``read`` on a caller's thread (rule 6): the caller met something that is not
        its answer (or the end of input); it stops reading, and the standby takes the reading up
        at once, to handle that first."""
        self._handing_over = True

    def answered_all(self) -> None:
        """The last awaited answer has come in: the member reading puts the reading down after
        this message (rule 7), so that the next caller reads its own answer. Called by ``read``."""
        if self._awaited is not None and not self._caller_reads:
            self._put_down_after_this = True

    def _put_down_reading(self, me: threading.Thread) -> None:
        with self._lock:
            self._put_down_after_this = False
            if self._reader is me and self._awaited is not None and not self._awaited():
                self._reader, self._take_up_now = None, False
                self._resting_since = time.monotonic()
                if self._standby_sleeping:  # it must take the reading up in STANDBY_DELAY
                    self._state.notify_all()

    def _run(self, job: Job) -> None:
        try:
            job()
        except BaseException as exc:  # a member survives anything a job does
            self._report(exc)

    # --- helpers -------------------------------------------------------------------------------

    def _new_member_locked(self, role: str) -> threading.Thread:
        """A new member (not started yet); as a standby it holds that role from now on, so that no
        second one is started before it runs."""
        self._members += 1
        thread = threading.Thread(target=self._serve, name=f"{self.name}-{role}-{self._members}", daemon=True)
        if role == "standby":
            self._standby = thread
        return thread

    def _enqueue_locked(self, job: Job) -> None:
        if len(self._queue) >= self._max_queued:
            raise CrewFull(f"{self._max_queued} requests are already waiting for a free thread")
        self._queue.append(job)
        self._state.notify_all()

    def _report(self, exc: BaseException) -> None:
        if self._on_error is not None:
            self._on_error(exc)
        elif isinstance(exc, ConnectionClosed):  # background work whose peer left: nothing went wrong here
            log.debug("%s: a job ended with the connection: %s", self.name, exc)
        else:
            log.error("%s: %s escaped a job", self.name, type(exc).__name__, exc_info=exc)


def _nothing() -> None:
    """The job of a task that has none."""
