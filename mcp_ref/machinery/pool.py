"""A bounded pool of threads: the peer's requests run here, while the session's reader reads on.

Not a spec section: the machinery under session.py. The spec asks that reading goes on while a
handler runs (a ping answered, a cancellation seen, the answer to the handler's own request to the
peer read), so the reader hands each request of the peer to a pool and goes back to reading.

1. ``submit(job)`` queues the job for the next free thread. Threads start on demand, one at a
   time, up to ``max_running``: a quiet session holds no thread here, and no session holds more
   than ``max_running`` however hard its peer pushes.
2. While every thread is busy, jobs wait in order, at most ``max_queued`` of them. One more is
   refused with ``PoolFull`` (the engine answers that request "Server busy", -32603), so a peer
   that sends faster than its requests can run costs bounded memory.
3. The threads are daemon threads: a handler stuck for ever never keeps the program from exiting.
   (``concurrent.futures.ThreadPoolExecutor`` would: it joins its threads at exit. Its queue
   has no bound either; these two are why the pool is a class of its own.)
4. ``stop()`` drops the jobs still waiting; idle threads leave at once, busy ones when their job
   returns. ``wait_idle(timeout)`` waits, bounded, until no job runs or waits: the end of input
   gives running requests their grace with it.
"""

from __future__ import annotations

import collections
import logging
import threading
from collections.abc import Callable

log = logging.getLogger("mcp_ref.machinery.pool")

DEFAULT_MAX_QUEUED = 1024  # jobs waiting for a free thread; one more is refused

Job = Callable[[], None]


class PoolFull(RuntimeError):
    """Every thread is busy and the queue is full (or the pool has stopped): the job was not taken."""


class Pool:
    """At most ``max_running`` daemon threads named ``name``, running the jobs given to ``submit``."""

    def __init__(self, name: str, max_running: int, max_queued: int = DEFAULT_MAX_QUEUED):
        if max_running < 1:
            raise ValueError(f"max_running must be at least 1, not {max_running!r}")
        self.name = name
        self.max_running = max_running
        self.max_queued = max_queued
        self._jobs: collections.deque[Job] = collections.deque()
        self._lock = threading.Lock()  # guards every field below
        self._wake = threading.Condition(self._lock)  # an idle thread waits here for a job
        self._finished = threading.Condition(self._lock)  # notified when no job runs or waits
        self._threads = 0  # threads started and not yet left
        self._idle = 0  # threads waiting for a job that no submit has woken yet
        self._unfinished = 0  # jobs taken and not yet returned (waiting or running)
        self._stopped = False

    def submit(self, job: Job) -> None:
        """Run ``job`` on a thread of the pool, now or when one is free; ``PoolFull`` if it cannot."""
        with self._lock:
            if self._stopped:
                raise PoolFull("the session has ended")
            if len(self._jobs) >= self.max_queued:
                raise PoolFull(f"{self.max_running} requests are running and {self.max_queued} more are waiting")
            self._jobs.append(job)
            self._unfinished += 1
            if self._idle:  # a thread is waiting for work: wake exactly one
                self._idle -= 1
                self._wake.notify()
                return
            if self._threads >= self.max_running:  # every thread is busy: the job waits its turn
                return
            self._threads += 1
        threading.Thread(target=self._work, name=self.name, daemon=True).start()

    def _work(self) -> None:
        """One thread's life: take the next job, run it, and again, until the pool stops."""
        while True:
            with self._lock:
                while not self._jobs:
                    if self._stopped:
                        self._threads -= 1
                        return
                    self._idle += 1
                    self._wake.wait()
                job = self._jobs.popleft()
            try:
                job()
            except BaseException:  # a job handles its own errors: this is a bug of ours, not the end of a thread
                log.exception("%s: a job failed", self.name)
            with self._lock:
                self._unfinished -= 1
                if not self._unfinished:
                    self._finished.notify_all()

    def stop(self) -> None:
        """Take no more jobs and drop those waiting; every thread leaves once its job returns."""
        with self._lock:
            self._stopped = True
            self._unfinished -= len(self._jobs)
            self._jobs.clear()
            self._idle = 0
            self._wake.notify_all()
            if not self._unfinished:
                self._finished.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no job runs or waits, at most ``timeout`` seconds; whether that came."""
        with self._lock:
            return self._finished.wait_for(lambda: not self._unfinished, timeout)

    @property
    def threads(self) -> int:
        """How many threads the pool holds now (each either running a job or waiting for one)."""
        return self._threads
