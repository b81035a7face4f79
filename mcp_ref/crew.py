"""How a session uses its threads: one reads and runs what it reads; a standby takes over the
reading when that takes long.

Not a spec section: the machinery under session.py ("threads at the edges").

The rules:

1. A session has a small *crew* of threads (at most ``max_threads``). Exactly one of them, the
   *reader*, reads messages from the transport, one after another.
2. When the reader meets a request that may take a while (a tool call, say), it runs it itself,
   at once. Handing it to another thread would cost a thread wake-up on every round trip, and
   for the many requests that take microseconds that hand-off was the largest cost we could
   remove: measured side by side, a stdio round trip took 26% less time than with a worker
   pool, and the server a third less CPU per call (benchmarks/RESULTS.md).
3. So that a long request never stops the reading (a ping must still be answered, a
   cancellation seen, the answer to the handler's own request to the peer read), one other
   member waits on *standby*. If the reader is still busy with the same request after
   ``STANDBY_DELAY`` seconds, the standby becomes the reader. When the old reader finishes its
   request it becomes the standby, or leaves the crew if there is one already.
4. If no member can stand by (all are busy with long requests), the reader queues a request
   instead of running it (at most ``max_queued``), and a member that finishes takes the next.
   Work handed in from outside (``submit``) waits in the same queue.
5. ``stop()`` ends the crew: the reader leaves after the message it is on, the standby at once,
   busy members when their request ends. Members are daemon threads: a stuck handler never
   keeps the process alive.

Every decision about who does what is taken in ``_next_task`` under one lock, so exactly one
member reads at any time: the transport's ``receive`` is called by one thread at a time.

The standby is not woken for every request (that would put back the wake-up rule 2 saved):
while requests keep coming it checks the reader every ``STANDBY_DELAY``, and it sleeps without
a timeout only after ``IDLE_AFTER`` seconds without one.
"""

from __future__ import annotations

import collections
import enum
import logging
import threading
import time
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger("mcp_ref.crew")

STANDBY_DELAY = 0.005  # seconds a request may hold the reader before the standby takes over
IDLE_AFTER = 0.1  # seconds without a request after which the standby sleeps until woken
DEFAULT_MAX_QUEUED = 1024  # requests and jobs waiting for a free member; beyond it, refused

Job = Callable[[], None]


class Request(Protocol):
    """A request the reader found: run it by calling it; ``refuse(reason)`` answers it instead
    when the crew cannot take it (every member busy, the queue full)."""

    def __call__(self) -> None: ...

    def refuse(self, reason: str) -> None: ...


class Task(enum.Enum):
    """What a member does next (decided by ``Crew._next_task``)."""

    READ = "read the next message"
    WORK = "run a queued job"
    LEAVE = "leave the crew"


class CrewFull(RuntimeError):
    """Every member is busy and the queue is full: the request cannot be taken now."""


class Crew:
    """The threads of one session.

    ``read()`` is called by the reader, one message per call: it handles what is quick itself
    and returns a ``Request`` that may take long, or None. ``on_error(exc)`` hears of an
    exception that escaped a job or ``read()`` (both should handle their own)."""

    def __init__(self, name: str, read: Callable[[], Request | None], *, max_threads: int,
                 max_queued: int = DEFAULT_MAX_QUEUED, on_error: Callable[[BaseException], None] | None = None):
        if max_threads < 2:
            raise ValueError("a crew needs at least two threads: a reader and a standby")
        self.name = name
        self._read = read
        self._max_threads = max_threads
        self._max_queued = max_queued
        self._on_error = on_error
        # Guards every field below. Notified when the sleeping standby must look again: a request
        # started, a job was queued, or the crew stopped.
        self._state = threading.Condition()
        self._reader: threading.Thread | None = None
        self._standby: threading.Thread | None = None
        self._standby_sleeping = False  # in a wait without timeout: must be woken by notify
        self._busy_since: float | None = None  # when the reader started the request it runs
        self._last_start = 0.0  # when the reader last started a request
        self._members = 0
        self._queue: collections.deque[Job] = collections.deque()
        self._stopped = False

    # --- starting and stopping --------------------------------------------------------------------

    def start(self) -> None:
        """Start the first member, the reader, on a thread of its own."""
        with self._state:
            self._reader = self._new_member_locked("reader")
        self._reader.start()

    def stop(self) -> None:
        with self._state:
            self._stopped = True
            self._queue.clear()
            self._state.notify_all()

    def is_reader(self) -> bool:
        """Whether the calling thread is the one reading messages now."""
        return self._reader is threading.current_thread()

    def submit(self, job: Job) -> None:
        """Queue ``job`` for a free member (rule 4); CrewFull if the queue is full."""
        with self._state:
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
                    try:
                        request = self._read()
                    except BaseException as exc:  # read() handles its own errors: this is a bug of ours
                        self._report(exc)
                        self.stop()
                        return
                    if request is not None:
                        self._run_as_reader(request)
        finally:
            with self._state:
                self._members -= 1
                if self._reader is me:
                    self._reader = None
                if self._standby is me:
                    self._standby = None

    def _next_task(self, me: threading.Thread) -> tuple[Task, Job]:
        """Decide, under the lock, what ``me`` does next (rules 1, 3, 4, 5). One invariant is
        kept: while the reader runs a request, some member stands by (unless the crew is full)."""
        with self._state:
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
                if busy_since is not None and now - busy_since >= STANDBY_DELAY:
                    # The reader has been on one request too long: take over the reading.
                    self._reader, self._standby, self._busy_since = me, None, None
                    return Task.READ, _nothing
                if self._queue and (busy_since is None or self._members < self._max_threads):
                    # Take the waiting job; if the reader is busy, a new member stands by instead.
                    self._standby = None
                    if busy_since is not None:
                        self._new_member_locked("standby").start()
                    return Task.WORK, self._queue.popleft()
                if busy_since is not None:
                    self._state.wait(busy_since + STANDBY_DELAY - now)
                elif now - self._last_start < IDLE_AFTER:
                    self._state.wait(STANDBY_DELAY)  # requests keep coming: check again soon
                else:
                    self._standby_sleeping = True
                    self._state.wait()
                    self._standby_sleeping = False
            return Task.LEAVE, _nothing

    def _run_as_reader(self, request: Request) -> None:
        """Rule 2: run the request here, with a standby ready to take over the reading."""
        me = threading.current_thread()
        refusal = None
        with self._state:
            run_here = self._standby is not None or self._members < self._max_threads
            if run_here:
                if self._standby is None:
                    self._new_member_locked("standby").start()
                self._busy_since = self._last_start = time.monotonic()
                if self._standby_sleeping:
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
            with self._state:
                if self._reader is me:
                    self._busy_since = None

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
        else:
            log.error("%s: %s escaped a job", self.name, type(exc).__name__, exc_info=exc)


def _nothing() -> None:
    """The job of a task that has none."""
