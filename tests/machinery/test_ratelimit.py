"""The token bucket behind the rate limits the spec asks of servers (machinery/ratelimit.py), on its own.

Not a spec page: the machinery of TOOL-10, CMP-03, CMP-09 (and LOG-05, LOG-16). Its promises:
``RateLimit(per_second, burst)`` lets a burst of ``burst`` requests through at once (by default
``per_second``, at least 1), then refuses with ``RateLimited`` (-32010) whose ``data.retryAfter``
says in seconds when a token will be there; tokens come back at ``per_second``, never more than
``burst`` saved up; ``take_token`` keeps one bucket per method in a session's state, made on first
use. A server's limits over a whole session (each session its own bucket) are in
tests/pages/test_tools.py::test_rate_limits_per_session. No test here asserts how long anything took.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from mcp_ref.machinery.ratelimit import RateLimit, take_token
from mcp_ref.messages import RateLimited

from ..conftest import wait_until


def taken(bucket: RateLimit) -> bool:
    try:
        bucket.take("tools/call")
        return True
    except RateLimited:
        return False


def test_a_burst_goes_through_then_the_next_is_refused_with_retry_after() -> None:
    bucket = RateLimit(per_second=0.5, burst=3)  # one token every 2 s: none comes back during the test
    assert [taken(bucket) for _ in range(3)] == [True, True, True]
    with pytest.raises(RateLimited) as caught:
        bucket.take("tools/call")
    error = caught.value
    assert error.code == -32010
    assert 0 < error.data["retryAfter"] <= 2.0
    assert error.message.startswith("Rate limit exceeded for tools/call: at most 0.5 per second; retry in ")


def test_tokens_come_back_at_the_rate() -> None:
    bucket = RateLimit(per_second=20, burst=1)
    assert taken(bucket) and not taken(bucket)
    wait_until(lambda: taken(bucket), timeout=5.0)  # one comes back after about 1/20 s


def test_no_more_than_burst_tokens_are_saved_up() -> None:
    bucket = RateLimit(per_second=1000, burst=2)
    assert taken(bucket) and taken(bucket)
    time.sleep(0.05)  # enough for 50 tokens at this rate: only 2 are kept
    assert taken(bucket)  # the bucket counts what came back (2 at most), and one goes
    bucket.per_second = 0.001  # from here on, none comes back within the test
    assert [taken(bucket) for _ in range(2)] == [True, False]


def test_the_default_burst_is_the_rate_and_at_least_one_and_the_rate_must_be_positive() -> None:
    assert RateLimit(5).burst == 5 and RateLimit(0.2).burst == 1 and RateLimit(2.5, burst=7).burst == 7
    for rate in (0, -1):
        with pytest.raises(ValueError, match="per_second must be positive"):
            RateLimit(rate)


def test_take_token_keeps_one_bucket_per_method_in_each_sessions_state() -> None:
    limits = {"tools/call": (0.01, 1), "completion/complete": (0.01, 2)}
    first: dict[str, Any] = {}
    second: dict[str, Any] = {}
    take_token(first, "tools/call", limits)
    assert set(first["rate_limits"]) == {"tools/call"}, "a bucket is made on first use, for that method only"
    with pytest.raises(RateLimited, match="tools/call"):
        take_token(first, "tools/call", limits)
    take_token(first, "completion/complete", limits)  # another method: another bucket
    take_token(first, "completion/complete", limits)
    with pytest.raises(RateLimited, match="completion/complete"):
        take_token(first, "completion/complete", limits)
    take_token(second, "tools/call", limits)  # another session: buckets of its own
