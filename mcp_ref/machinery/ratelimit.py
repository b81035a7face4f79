"""Rate limiting of the requests the spec says a server must rate limit.

Not a spec section of its own. server/tools requires servers to rate limit tool invocations
(TOOL-10), server/utilities/completion requires it for completions (CMP-03, CMP-09), and
server/utilities/logging asks for it (LOG-05, LOG-16):
https://modelcontextprotocol.io/specification/2024-11-05/server/tools#security-considerations

``RateLimit(per_second, burst)`` is a token bucket kept per session: each request takes a token,
tokens come back at ``per_second``, at most ``burst`` are saved up. A request without a token is
answered with error ``RATE_LIMITED`` (-32010, in JSON-RPC's range for implementation-defined
server errors; 2024-11-05 defines no code for this) and ``data.retryAfter`` in seconds.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from ..messages import RateLimited


class RateLimit:
    """A token bucket: ``per_second`` requests on average, bursts of up to ``burst``."""

    def __init__(self, per_second: float, burst: int | None = None):
        if per_second <= 0:
            raise ValueError("per_second must be positive")
        self.per_second = per_second
        self.burst = burst if burst is not None else max(1, int(per_second))
        self._tokens = float(self.burst)
        self._stamp = time.monotonic()
        self._lock = threading.Lock()

    def take(self, what: str) -> None:
        """Take one token, or raise RateLimited saying when one will be there."""
        with self._lock:
            now = time.monotonic()
            self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.per_second)
            self._stamp = now
            # TOOL-10, CMP-03
            if self._tokens >= 1:  # CMP-09: within the rate, or refused below
                self._tokens -= 1
                return
            wait = (1 - self._tokens) / self.per_second
        raise RateLimited(f"Rate limit exceeded for {what}: at most {self.per_second:g} per second; "
                          f"retry in {wait:.2f} s", {"retryAfter": round(wait, 3)})


def take_token(state: dict[str, Any], method: str, limits: dict[str, tuple[float, int]]) -> None:
    """A token from the session's bucket for ``method`` (made on first use from ``limits`` and kept in
    the session's ``state``), or RateLimited."""
    buckets = state.setdefault("rate_limits", {})
    if method not in buckets:
        buckets[method] = RateLimit(*limits[method])
    buckets[method].take(method)
