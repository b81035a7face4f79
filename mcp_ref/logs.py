"""Logging: the server sends structured log messages, the client chooses the minimum level.

Spec page: server/utilities/logging
https://modelcontextprotocol.io/specification/2024-11-05/server/utilities/logging

In short:

1. A server that sends log messages declares the ``logging`` capability (LOG-01).
2. The client may send ``logging/setLevel`` with a ``level`` (LOG-02); from then on the server
   sends messages at that level and above (LOG-20). Before that, the server decides (LOG-21):
   mcp_ref sends every level. An unknown level is -32602 (LOG-03).
3. A message is the notification ``notifications/message`` with ``level``, optional
   ``logger`` (a name) and ``data`` (any JSON value).
4. Levels are the eight of syslog (RFC 5424), from least to most severe: debug, info, notice,
   warning, error, critical, alert, emergency.
5. Log messages must not carry secrets, personal data or internals (LOG-13..15): what a
   handler logs is its author's responsibility; mcp_ref itself never logs to the client.

Server side: ``set_level`` and ``send_log`` (what ``ctx.log`` calls), and ``ClientLogHandler``,
a standard ``logging.Handler`` that forwards Python log records to connected clients.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from typing import Any

from . import messages
from .messages import InvalidParams

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
SEVERITY = {level: rank for rank, level in enumerate(LEVELS)}
STATE_KEY = "log_level"  # where a session keeps the client's chosen level


def set_level(session: Any, params: dict[str, Any]) -> dict[str, Any]:
    """``logging/setLevel``: remember the minimum level for this session."""
    level = messages.param(params, "level", "string")
    if level not in SEVERITY:  # LOG-03
        raise InvalidParams(f"Invalid params: unknown log level {messages.printable(level)!r}; use one of "
                            f"{', '.join(LEVELS)}", {"field": "level"})
    session.state[STATE_KEY] = level  # LOG-02: this session's minimum, from now on
    return {}


def send_log(session: Any, level: str, data: Any, logger: str | None = None) -> bool:
    """Send ``notifications/message`` if ``level`` passes the session's threshold. True if sent.

    Nothing is sent on a session where this server did not declare ``logging`` (LOG-01), nor
    before that session's ``initialize`` was answered (the capabilities are not known yet)."""
    if level not in SEVERITY:
        raise ValueError(f"unknown log level {level!r}; use one of {', '.join(LEVELS)}")
    if "logging" not in session.lifecycle.capabilities:  # LOG-01: never for an undeclared capability
        return False
    threshold = session.state.get(STATE_KEY)  # LOG-21: None until the client sets one; then all go
    if threshold is not None and SEVERITY[level] < SEVERITY[threshold]:  # LOG-20
        return False
    params: dict[str, Any] = {"level": level, "data": data}
    if logger is not None:
        params["logger"] = logger
    session.notify("notifications/message", params)
    return True


def level_for_record(levelno: int) -> str:
    """Python's logging levels mapped onto syslog's."""
    if levelno >= logging.CRITICAL:
        return "critical"
    if levelno >= logging.ERROR:
        return "error"
    if levelno >= logging.WARNING:
        return "warning"
    if levelno >= logging.INFO:
        return "info"
    return "debug"


class ClientLogHandler(logging.Handler):
    """Forwards Python log records to every open session of a server, as ``notifications/message``.

    ``logging.getLogger("myapp").addHandler(server.log_handler())``. Records of mcp_ref's own
    loggers are never forwarded (they could recurse), nor records emitted while forwarding.
    """

    def __init__(self, sessions: Callable[[], Iterable[Any]], level: int = logging.NOTSET):
        super().__init__(level)
        self._sessions = sessions
        self._busy = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        # LOG-08, LOG-15: records of mcp_ref's own loggers (its internals) never reach a client
        if record.name.startswith("mcp_ref") or getattr(self._busy, "active", False):
            return
        self._busy.active = True
        try:
            message = self.format(record)
            for session in self._sessions():
                try:
                    # LOG-06, LOG-07: the formatted record, under its logger's own name
                    send_log(session, level_for_record(record.levelno), message, record.name)
                except Exception:
                    pass  # a closed session; the others still get it
        finally:
            self._busy.active = False
