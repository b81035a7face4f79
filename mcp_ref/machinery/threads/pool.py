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
   gives running requests their grace with it (once per session, so it looks every
   ``IDLE_POLL_INTERVAL`` seconds rather than have every job tell it).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger("mcp_ref.machinery.threads.pool")

DEFAULT_MAX_QUEUED = 1024  # jobs waiting for a free thread; one more is refused
IDLE_POLL_INTERVAL = 0.01  # seconds wait_idle sleeps between looks

Job = Callable[[], None]


def checked_max_running(value: Any) -> int:
    """``value`` if it is a number of requests that may run at once (1 or more), else ValueError."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"max_running must be a whole number of requests, 1 or more, not {value!r}")
    return value


class PoolFull(RuntimeError):
    """Every thread is busy and the queue is full (or the pool has stopped): the job was not taken."""


class Pool:
    """At most ``max_running`` daemon threads named ``name``, running the jobs given to ``submit``."""

    def __init__(self, name: str, max_running: int, max_queued: int = DEFAULT_MAX_QUEUED):
        checked_max_running(max_running)
        self.name = name
        self.max_running = max_running
        self.max_queued = max_queued
        self._jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()  # None: a thread's sign to leave
        self._lock = threading.Lock()  # guards the counts below
        self._threads = 0  # threads started and not yet left
        self._idle = 0  # threads that will take the next job from the queue, no job promised to them yet
        self._unfinished = 0  # jobs taken and not yet returned (waiting or running)
        self._stopped = False

    def submit(self, job: Job) -> None:
        """Run ``job`` on a thread of the pool, now or when one is free; ``PoolFull`` if it cannot."""
        with self._lock:  # (the job is queued under it too, so that stop()'s signals to leave come after it)
            if self._stopped:
                raise PoolFull("the pool has stopped: its session ended")
            if self._unfinished >= self.max_running + self.max_queued:
                raise PoolFull(f"{self.max_running} requests are running and {self.max_queued} more are waiting")
            if self._idle:  # a thread is free: the job is its own
                self._idle -= 1
            elif self._threads < self.max_running:  # every thread is busy, and the bound allows one more
                try:
                    threading.Thread(target=self._work, name=self.name, daemon=True).start()
                except RuntimeError as exc:  # the process has no thread to spare: refuse, do not queue
                    raise PoolFull(f"no thread could be started ({exc})") from None
                self._threads += 1
            self._unfinished += 1  # (else every thread is busy: the job waits its turn)
            self._jobs.put(job)

    def _work(self) -> None:
        """One thread's life: take the next job, run it, and again, until the pool stops."""
        while (job := self._jobs.get()) is not None:
            if not self._stopped:  # (after stop(), what still waits is dropped, not run)
                try:
                    job()
                except BaseException:  # a job handles its own errors: this is a bug of ours, not the end of a thread
                    log.exception("%s: a job failed", self.name)
            with self._lock:
                self._unfinished -= 1
                self._idle += 1
        with self._lock:
            self._threads -= 1
            self._idle -= 1

    def stop(self) -> None:
        """Take no more jobs and drop those waiting; every thread leaves once its job returns."""
        with self._lock:
            self._stopped = True
            for _ in range(self._threads):
                self._jobs.put(None)  # behind the jobs still waiting, which the threads drop as they pass

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no job runs or waits, at most ``timeout`` seconds; whether that came."""
        deadline = time.monotonic() + timeout
        while self._unfinished and time.monotonic() < deadline:
            time.sleep(IDLE_POLL_INTERVAL)
        return not self._unfinished

    @property
    def threads(self) -> int:
        """How many threads the pool holds now (each either running a job or waiting for one)."""
        return self._threads
