"""The sessions of one Streamable HTTP endpoint, by id: how many there may be, and how long one may go unused.

Not a spec section: the session table of streamable_http/server_app.py (the transport of revision
2025-03-26), with its bounds. The page says a
server may end a session at any time, after which its id is answered 404 (SHTTP-39); this is
where it does, other than on DELETE. In short:

1. ``add(transport)`` takes a new session's place under its id; while the table holds
   ``max_sessions``, the sessions unused for ``idle_timeout`` seconds make room first (they
   end on a thread of their own), and if none is idle the new one is refused (``add`` says
   False: HTTP 503 with ``Retry-After``).
2. A session is unused while no POST has come for it, no request of it is in flight and no GET
   stream of it is open (``SessionTransport.idle_since``). A sweeper thread, started with the
   first session, ends the unused ones every ``SWEEP_SECONDS`` at most (sooner for a short
   ``idle_timeout``).
3. A session's end takes it out of the table (``pop``, from the session's ``on_close``), and
   ``close(reason)`` ends every session and stops the sweeper.
"""

from __future__ import annotations

import threading
import time

from .session_transport import SessionTransport

SWEEP_SECONDS = 30.0  # how often idle sessions are looked for (at most)


class SessionTable:
    """The sessions of one endpoint by id (point 1); every method may be called from any thread."""

    def __init__(self, max_sessions: int, idle_timeout: float) -> None:
        self.max_sessions = max_sessions
        self.idle_timeout = idle_timeout
        self._sessions: dict[str, SessionTransport] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._sweeper: threading.Thread | None = None

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)

    def get(self, session_id: str) -> SessionTransport | None:
        with self._lock:
            return self._sessions.get(session_id)

    def add(self, transport: SessionTransport) -> bool:
        """A new session's place, made by ending idle ones if need be; False if there is none."""
        with self._lock:
            if len(self._sessions) >= self.max_sessions:
                self._sweep_locked()
            if len(self._sessions) >= self.max_sessions:
                return False
            self._sessions[transport.session_id] = transport
        self._start_sweeper()
        return True

    def pop(self, session_id: str) -> SessionTransport | None:
        with self._lock:
            return self._sessions.pop(session_id, None)

    def close(self, reason: str) -> None:
        """End every session, and stop the sweeper."""
        self._stopping.set()
        with self._lock:
            transports = list(self._sessions.values())
        for transport in transports:
            if transport.session is not None:
                transport.session.close(reason)

    def _start_sweeper(self) -> None:
        if self._sweeper is None:
            with self._lock:
                if self._sweeper is None and not self._stopping.is_set():
                    self._sweeper = threading.Thread(target=self._sweep_forever, name="mcp_ref-http-sweeper",
                                                     daemon=True)
                    self._sweeper.start()

    def _sweep_forever(self) -> None:
        while not self._stopping.wait(min(SWEEP_SECONDS, max(0.05, self.idle_timeout / 4))):
            with self._lock:
                idle = self._idle_sessions()
            for transport in idle:
                if transport.session is not None:
                    transport.session.close(f"unused for {self.idle_timeout:g} s")

    def _idle_sessions(self) -> list[SessionTransport]:
        now = time.monotonic()
        idle = []
        for transport in self._sessions.values():
            since = transport.idle_since()
            if since is not None and now - since >= self.idle_timeout:
                idle.append(transport)
        return idle

    def _sweep_locked(self) -> None:
        """Make room for a new session by ending idle ones (called with ``_lock`` held)."""
        for transport in self._idle_sessions():
            del self._sessions[transport.session_id]
            if transport.session is not None:
                threading.Thread(target=transport.session.close, args=(f"unused for {self.idle_timeout:g} s",),
                                 daemon=True).start()
