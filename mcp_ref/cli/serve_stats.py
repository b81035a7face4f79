"""``mcp-ref serve`` shows what the server holds: on SIGUSR1, and every N seconds with ``--stats N``.

Not a spec section: an operator's window into a running server. ``Server.stats()`` counts the
sessions by transport, the event streams open, the subscriptions, the messages and bytes
queued for clients, the requests running and the process's threads; this module prints it on
stderr (never stdout, which stdio's protocol owns: TR-04) as one line,
``mcp-ref: stats {...}``, whose JSON a script can read::

    kill -USR1 $(pgrep -f "mcp-ref serve")        # one line now
    mcp-ref serve --transport http --stats 60     # one line a minute, and on SIGUSR1

A signal handler may run in the middle of another write to stderr, so it only notes the wish;
the printing is done by one daemon thread of ours, which also keeps the period. Where there is
no SIGUSR1 (Windows) only ``--stats`` works.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
from typing import Any, TextIO

from ..server import Server

__all__ = ["StatsReporter"]

QUIET_WAIT = 1.0  # how long the printing thread sleeps at most when nothing is asked of it


class StatsReporter:
    """Around serving: print ``server.stats()`` on stderr when SIGUSR1 comes, and every
    ``every`` seconds if given. Its thread and its signal handler end with the ``with`` block."""

    def __init__(self, server: Server, every: float | None = None, stream: TextIO | None = None):
        if every is not None and every <= 0:
            raise ValueError(f"--stats needs a number of seconds above 0, not {every}")
        self.server, self.every = server, every
        self.stream = stream if stream is not None else sys.stderr
        self._wanted, self._stopped = threading.Event(), threading.Event()
        self._previous: Any = None
        self._thread = threading.Thread(target=self._print_when_asked, name="mcp-ref stats", daemon=True)

    def __enter__(self) -> StatsReporter:
        usr1 = getattr(signal, "SIGUSR1", None)
        if usr1 is not None and threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(usr1, self._asked)
        self._thread.start()
        return self

    def _asked(self, signum: int, frame: Any) -> None:
        self._wanted.set()  # nothing else here: the handler may interrupt a write to stderr

    def _print_when_asked(self) -> None:
        due = time.monotonic() + self.every if self.every else None
        while not self._stopped.is_set():
            wait = QUIET_WAIT if due is None else max(0.0, min(QUIET_WAIT, due - time.monotonic()))
            asked = self._wanted.wait(wait)
            if self._stopped.is_set():
                return
            if due is not None and time.monotonic() >= due:
                due += self.every or 0.0
                asked = True
            if asked:
                self._wanted.clear()
                self.print_once()

    def print_once(self) -> None:
        """One line: ``mcp-ref: stats`` and the server's stats as JSON."""
        try:
            line = json.dumps(self.server.stats(), sort_keys=True)
        except Exception as exc:  # a stats() that fails must say so, not end the thread silently
            line = json.dumps({"error": f"{type(exc).__name__}: {exc}"})
        print(f"mcp-ref: stats {line}", file=self.stream, flush=True)

    def __exit__(self, *exc: object) -> None:
        self._stopped.set()
        self._wanted.set()
        self._thread.join(timeout=QUIET_WAIT + 1.0)
        if self._previous is not None:
            signal.signal(signal.SIGUSR1, self._previous)
