"""The bounded pool of threads the session runs the peer's requests on (machinery/threads/pool.py), on its own.

Not a spec page: the machinery under session.py. What the engine depends on: jobs run, never more
than ``max_running`` at once, threads only on demand, a bounded queue that refuses the job beyond
it (the engine answers "Server busy"), jobs that waited run in the order given, ``stop()`` ends
every thread, and a job that fails takes no thread with it. Events hold the jobs; no test here
makes a claim about speed.
"""

from __future__ import annotations

import functools
import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_ref.machinery.threads.pool import Pool, PoolFull

from ..conftest import wait_until

WAIT = 5.0  # seconds: a bound for liveness only (a held job never waits this long in a passing test)
_names = itertools.count()


def pool_name() -> str:
    """A thread name no other test of this process uses, so ``threading.enumerate()`` finds ours only."""
    return f"test-pool-{next(_names)}-worker"


def named(name: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == name]


class Held:
    """Jobs that record when they start and finish, and hold until their own Event is set;
    counts how many run at once, and the most that ever did."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0
        self.started: list[int] = []  # job numbers, in the order they started
        self.finished: list[int] = []
        self.threads: dict[int, threading.Thread] = {}  # job number -> the thread that ran it
        self.releases: dict[int, threading.Event] = {}

    def job(self, n: int, *, hold: bool = True) -> Callable[[], None]:
        release = self.releases.setdefault(n, threading.Event())
        if not hold:
            release.set()

        def run() -> None:
            with self.lock:
                self.running += 1
                self.most = max(self.most, self.running)
                self.started.append(n)
                self.threads[n] = threading.current_thread()
            try:
                release.wait(WAIT)
            finally:
                with self.lock:
                    self.running -= 1
                    self.finished.append(n)

        return run

    def release(self, *numbers: int) -> None:
        for n in numbers or list(self.releases):
            self.releases[n].set()

    def has_started(self, count: int) -> Callable[[], bool]:
        return lambda: len(self.started) >= count


@pytest.fixture
def held() -> Iterator[Held]:
    jobs = Held()
    yield jobs
    jobs.release()  # never leave a thread holding, whatever the test did


@pytest.fixture
def pools() -> Iterator[Callable[..., Pool]]:
    """Factory of pools, each with a name of its own; every one is stopped at teardown."""
    made: list[Pool] = []

    def make(max_running: int, max_queued: int = 1024) -> Pool:
        made.append(Pool(pool_name(), max_running, max_queued))
        return made[-1]

    yield make
    for pool in made:
        pool.stop()


def test_submitted_jobs_run(pools: Callable[..., Pool]) -> None:
    """The engine's only use of the pool: what is submitted runs."""
    pool = pools(4)
    done: list[int] = []
    lock = threading.Lock()

    def record(n: int) -> Callable[[], None]:
        def run() -> None:
            with lock:
                done.append(n)
        return run

    for n in range(50):
        pool.submit(record(n))
    assert pool.wait_idle(WAIT)
    assert sorted(done) == list(range(50))


def test_never_more_than_max_running_jobs_at_once(pools: Callable[..., Pool], held: Held) -> None:
    """A peer that pushes hard gets no more than ``max_running`` handlers running at once."""
    pool = pools(3)
    for n in range(10):
        pool.submit(held.job(n))
    wait_until(held.has_started(3), WAIT)
    time.sleep(0.1)  # room for a fourth to start, were the bound broken
    assert held.running == 3 and pool.threads == 3 and len(named(pool.name)) == 3
    held.release()
    assert pool.wait_idle(WAIT)
    assert sorted(held.finished) == list(range(10))
    assert held.most == 3
    assert pool.threads <= 3


def test_threads_start_on_demand_and_an_idle_one_is_reused(pools: Callable[..., Pool], held: Held) -> None:
    """A quiet session holds no thread; sequential requests reuse one thread instead of making new ones."""
    pool = pools(4)
    assert pool.threads == 0 and named(pool.name) == []
    pool.submit(held.job(0, hold=False))
    assert pool.wait_idle(WAIT)
    assert pool.threads == 1 and len(named(pool.name)) == 1
    for n in range(1, 6):
        pool.submit(held.job(n, hold=False))
        assert pool.wait_idle(WAIT)
    assert pool.threads == 1 and len(named(pool.name)) == 1
    assert len({held.threads[n] for n in range(6)}) == 1


def test_a_second_job_while_the_first_holds_gets_a_second_thread(pools: Callable[..., Pool], held: Held) -> None:
    """While there is room under ``max_running`` a job never waits behind a busy thread."""
    pool = pools(4)
    pool.submit(held.job(0))
    wait_until(held.has_started(1), WAIT)
    pool.submit(held.job(1))
    wait_until(held.has_started(2), WAIT)
    assert pool.threads == 2 and held.threads[0] is not held.threads[1]


def test_a_job_beyond_the_queue_bound_is_refused_saying_how_many_run_and_wait(
        pools: Callable[..., Pool], held: Held) -> None:
    """A flood costs bounded memory: the job beyond ``max_queued`` waiting is refused ("Server busy")."""
    pool = pools(2, max_queued=3)
    pool.submit(held.job(0))
    pool.submit(held.job(1))
    wait_until(held.has_started(2), WAIT)  # both threads busy: what comes next waits
    for n in range(2, 5):
        pool.submit(held.job(n))
    with pytest.raises(PoolFull, match=r"^2 requests are running and 3 more are waiting$"):
        pool.submit(held.job(99))
    held.release()
    assert pool.wait_idle(WAIT)
    assert sorted(held.finished) == [0, 1, 2, 3, 4]  # the refused one never ran
    pool.submit(held.job(5, hold=False))  # room again once the queue drained
    assert pool.wait_idle(WAIT) and 5 in held.finished


def test_jobs_that_waited_run_in_the_order_they_were_submitted(pools: Callable[..., Pool], held: Held) -> None:
    """Requests queued behind busy threads are taken first come, first served."""
    pool = pools(1)
    pool.submit(held.job(0))
    wait_until(held.has_started(1), WAIT)
    for n in range(1, 21):
        pool.submit(held.job(n, hold=False))
    held.release(0)
    assert pool.wait_idle(WAIT)
    assert held.started == list(range(21))


def test_stop_drops_waiting_jobs_and_busy_threads_leave_when_their_job_returns(
        pools: Callable[..., Pool], held: Held) -> None:
    """At the end of a session, queued requests are dropped and no thread outlives its job."""
    pool = pools(1)
    pool.submit(held.job(0))
    wait_until(held.has_started(1), WAIT)
    pool.submit(held.job(1, hold=False))
    pool.submit(held.job(2, hold=False))
    pool.stop()
    [worker] = named(pool.name)
    assert worker.is_alive()  # busy: it leaves when its job returns, not before
    held.release(0)
    assert pool.wait_idle(WAIT)
    worker.join(WAIT)
    assert not worker.is_alive() and named(pool.name) == [] and pool.threads == 0
    assert held.started == [0]  # the two that waited were dropped
    with pytest.raises(PoolFull):
        pool.submit(held.job(3, hold=False))
    assert held.started == [0]


def test_stop_lets_idle_threads_leave_at_once_while_busy_ones_finish(pools: Callable[..., Pool], held: Held) -> None:
    """Closing a session with a handler still running ends its idle threads now, the busy one later."""
    pool = pools(2)
    pool.submit(held.job(0))
    wait_until(held.has_started(1), WAIT)
    pool.submit(held.job(1, hold=False))  # a second thread, idle again once this returns
    wait_until(lambda: 1 in held.finished, WAIT)
    busy, idle = held.threads[0], held.threads[1]
    assert busy is not idle and pool.threads == 2
    pool.stop()
    idle.join(WAIT)
    assert not idle.is_alive() and busy.is_alive()
    assert named(pool.name) == [busy]
    held.release(0)
    busy.join(WAIT)
    assert not busy.is_alive() and pool.threads == 0 and named(pool.name) == []


def test_stop_on_a_pool_that_never_ran_a_job_and_twice(pools: Callable[..., Pool]) -> None:
    """A session closed before any request, or closed twice, is fine."""
    pool = pools(2)
    pool.stop()
    pool.stop()
    assert pool.threads == 0 and pool.wait_idle(0)
    with pytest.raises(PoolFull, match="ended"):
        pool.submit(lambda: None)


def test_wait_idle_says_whether_every_job_finished_in_time(pools: Callable[..., Pool], held: Held) -> None:
    """The end-of-input grace: True once all jobs are done, False while one still holds at the timeout."""
    pool = pools(2)
    assert pool.wait_idle(0)  # nothing ever ran
    pool.submit(held.job(0))
    pool.submit(held.job(1))
    pool.submit(held.job(2))  # waits for a thread: unfinished too
    wait_until(held.has_started(2), WAIT)
    held.release(0)
    assert pool.wait_idle(0.2) is False  # 1 still holds, 2 is yet to run
    held.release(1, 2)
    start = time.monotonic()
    assert pool.wait_idle(60) is True
    assert time.monotonic() - start < WAIT, "wait_idle returned at its timeout, not when the jobs were done"
    assert sorted(held.finished) == [0, 1, 2]


@pytest.mark.parametrize("error", [ValueError("a bug"), SystemExit(3), KeyboardInterrupt()],
                         ids=["Exception", "SystemExit", "KeyboardInterrupt"])
def test_a_job_that_raises_does_not_kill_its_thread_and_is_logged(
        pools: Callable[..., Pool], caplog: pytest.LogCaptureFixture, error: BaseException) -> None:
    """A job that fails (a bug of ours) costs the session neither its thread nor its next request."""
    pool = pools(1)
    ran_on: list[threading.Thread] = []

    def fail() -> None:
        ran_on.append(threading.current_thread())
        raise error

    with caplog.at_level(logging.ERROR, logger="mcp_ref.machinery.threads.pool"):
        pool.submit(fail)
        pool.submit(lambda: ran_on.append(threading.current_thread()))
        assert pool.wait_idle(WAIT)
    assert len(ran_on) == 2 and ran_on[0] is ran_on[1] and ran_on[0].is_alive()
    assert pool.threads == 1
    [record] = [r for r in caplog.records if r.name == "mcp_ref.machinery.threads.pool"]
    assert record.levelno == logging.ERROR and "a job failed" in record.getMessage()
    assert record.exc_info is not None and record.exc_info[1] is error


def test_pool_threads_are_daemon_threads_named_after_the_pool(pools: Callable[..., Pool]) -> None:
    """A handler stuck for ever never keeps the program from exiting."""
    pool = pools(1)
    seen: list[threading.Thread] = []
    pool.submit(lambda: seen.append(threading.current_thread()))
    assert pool.wait_idle(WAIT)
    assert seen[0].daemon and seen[0].name == pool.name


@pytest.mark.parametrize("max_running", [0, -1])
def test_a_pool_needs_at_least_one_thread(max_running: int) -> None:
    """A misconfigured ``max_workers`` fails when the server is made, not at the first request."""
    with pytest.raises(ValueError, match="1 or more"):
        Pool("x", max_running)


def test_max_queued_zero_means_nothing_waits_not_nothing_runs(pools: Callable[..., Pool], held: Held) -> None:
    """``max_queued=0``: a job runs while a thread is free, and is refused only when none is."""
    pool = pools(2, max_queued=0)
    pool.submit(held.job(0))
    pool.submit(held.job(1))
    wait_until(held.has_started(2), WAIT)
    with pytest.raises(PoolFull, match=r"^2 requests are running and 0 more are waiting$"):
        pool.submit(held.job(2))
    held.release()
    assert pool.wait_idle(WAIT) and sorted(held.finished) == [0, 1]


def try_submit(pool: Pool, job: Callable[[], None]) -> bool:
    try:
        pool.submit(job)
    except PoolFull:
        return False
    return True


# --- a property: random submits and releases ------------------------------------------------------

OPS = st.lists(st.one_of(st.just(("submit", 0)), st.tuples(st.just("release"), st.integers(0, 10**6))),
               max_size=25)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(max_running=st.integers(1, 3), max_queued=st.integers(1, 3), ops=OPS)
def test_random_submits_and_releases_keep_every_promise(max_running: int, max_queued: int,
                                                        ops: list[tuple[str, int]]) -> None:
    """Whatever the order of arrivals and endings: never more than ``max_running`` run, a job is
    refused only when ``max_queued`` already wait (and taken when fewer do), and every job accepted runs
    exactly once."""
    pool = Pool(pool_name(), max_running, max_queued)
    held = Held()
    accepted: list[int] = []
    refused: list[int] = []
    released: set[int] = set()

    def settle() -> None:
        """Wait until the pool has started all it can: min(outstanding, max_running) running."""
        def stable() -> bool:
            with held.lock:
                done = set(held.finished)
                running = held.running
            outstanding = len(accepted) - len(done)
            return done >= released and running == min(outstanding, max_running)
        wait_until(stable, WAIT)

    try:
        for number, (op, pick) in enumerate(ops):
            if op == "submit":
                with held.lock:
                    waiting = len(accepted) - len(held.started)
                job = held.job(number)
                if waiting < max_queued:
                    # Room: taken at once, or a moment later if a job that just returned is not yet
                    # counted out (its thread does that right after the job's last line ran).
                    wait_until(functools.partial(try_submit, pool, job), WAIT)
                    accepted.append(number)
                else:
                    assert waiting == max_queued
                    with pytest.raises(PoolFull):
                        pool.submit(job)
                    refused.append(number)
            else:
                with held.lock:
                    candidates = [n for n in held.started if n not in held.finished]
                if candidates:
                    chosen = candidates[pick % len(candidates)]
                    released.add(chosen)
                    held.release(chosen)
            settle()
            assert held.most <= max_running and pool.threads <= max_running
        held.release()
        assert pool.wait_idle(WAIT)
        assert sorted(held.started) == sorted(held.finished) == accepted  # each accepted job ran once
        assert not set(refused) & set(held.started)
        assert held.most <= max_running
    finally:
        held.release()
        pool.stop()
    wait_until(lambda: not named(pool.name), WAIT)
