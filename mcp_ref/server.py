"""Server: the server side of MCP, composed from the section modules, with ONE dispatch table.

Spec page: server (overview), and basic/lifecycle for the server's part of initialization
https://modelcontextprotocol.io/specification/2024-11-05/server

In short:

1. A ``Server`` holds what its author registered and serves any number of sessions (one per
   connected client), over stdio (``serve_stdio``) or any other transport (``open_session``).
2. Every request a client can send is listed in ``Server.request_handlers``: method string ->
   handler. That table *is* the server's protocol; a method missing from it is answered -32601
   in every phase.
3. Before a handler runs, the lifecycle gate checks the session's phase (lifecycle.py).
4. The capabilities sent in the ``initialize`` result are computed from what is registered, so
   the server never advertises what it cannot do, nor does what it did not advertise (AR-02).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from . import lifecycle, stdio
from .jsonrpc import MethodNotFound
from .session import DEFAULT_MAX_WORKERS, RequestContext, Session, TraceCallback, Transport

Handler = Callable[[RequestContext], dict[str, Any]]


def _ping(ctx: RequestContext) -> dict[str, Any]:
    return {}  # PING-01: an empty result, at once


class Server:
    """An MCP server. ``Server("name", version="1.0", instructions="...")``."""

    def __init__(self, name: str, version: str = "0.1.0", instructions: str | None = None, *,
                 max_workers: int = DEFAULT_MAX_WORKERS):
        self.name = name
        self.version = version
        self.instructions = instructions
        self.max_workers = max_workers
        self._sessions: set[Session] = set()
        self._sessions_lock = threading.Lock()
        # The whole protocol a client can speak to this server. (Cancellation and progress
        # notifications are handled by the session engine itself, see session.py.)
        self.request_handlers: dict[str, Handler] = {
            "initialize": self._initialize,  # basic/lifecycle
            "ping": _ping,  # basic/utilities/ping
        }
        self.notification_handlers: dict[str, Callable[[Session, dict[str, Any]], None]] = {
            "notifications/initialized": lambda session, params: lifecycle.accept_initialized(session.lifecycle),
        }

    # --- capabilities and lifecycle -----------------------------------------------------------

    def capabilities(self) -> dict[str, Any]:
        """The ``capabilities`` object of the initialize result, from what is registered (AR-02)."""
        return {}

    def _initialize(self, ctx: RequestContext) -> dict[str, Any]:
        version = lifecycle.accept_initialize(ctx.session.lifecycle, ctx.params)
        return lifecycle.initialize_result(  # LC-07
            version, self.capabilities(), {"name": self.name, "version": self.version}, self.instructions
        )

    # --- dispatch -----------------------------------------------------------------------------

    def _handle_request(self, ctx: RequestContext) -> dict[str, Any]:
        handler = self.request_handlers.get(ctx.method)
        if handler is None:  # in every phase, so probes such as server/discover fail fast
            raise MethodNotFound(f"Method not found: {ctx.method}")
        ctx.session.lifecycle.gate(ctx.method)  # LC-01, LC-08
        return handler(ctx)

    def _handle_notification(self, session: Session, method: str, params: dict[str, Any]) -> None:
        handler = self.notification_handlers.get(method)
        if handler is not None:  # unknown notifications are ignored, as JSON-RPC expects
            handler(session, params)

    # --- sessions -----------------------------------------------------------------------------

    def open_session(self, transport: Transport, *, trace: TraceCallback | None = None) -> Session:
        """A new session of this server on ``transport``; call ``.start()`` or ``.run()`` on it."""
        session = Session(
            transport,
            on_request=self._handle_request,
            on_notification=self._handle_notification,
            # Lifecycle messages and ping run on the reader thread, in the order they arrived,
            # so the phase machine sees initialize before initialized whatever the scheduling.
            inline_methods=frozenset({"initialize", "ping"}),
            max_workers=self.max_workers,
            trace=trace,
            name=f"{self.name}-session",
        )
        with self._sessions_lock:
            self._sessions.add(session)
        session.on_close(self._forget_session)
        return session

    def _forget_session(self, session: Session) -> None:
        with self._sessions_lock:
            self._sessions.discard(session)

    @property
    def sessions(self) -> list[Session]:
        """The sessions currently open, in no particular order."""
        with self._sessions_lock:
            return list(self._sessions)

    def serve_stdio(self, *, max_line_bytes: int = stdio.MAX_LINE_BYTES) -> None:
        """Serve one client on this process's stdin/stdout; returns when stdin closes (LC-19).

        A line longer than ``max_line_bytes`` is discarded and answered -32600.
        """
        stdio.serve(self.open_session, max_line_bytes=max_line_bytes)
