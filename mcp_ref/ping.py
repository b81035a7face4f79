"""Ping: is the other side still there?

Spec page: basic/utilities/ping
https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/ping

In short:

1. Either side may send the request ``ping``, with no params, at any time. The receiver answers
   at once with an empty result, ``{}`` (PING-01, PING-12).
2. A sender that gets no answer in reasonable time may treat the connection as stale, end it,
   or try to connect again (PING-02..04).
3. Implementations should ping now and then to notice a dead connection, how often should be a
   setting, and not so often that pings become the traffic (PING-05, PING-06, PING-08); the
   timeout should suit the network (PING-07). A ping that times out counts as a failed
   connection, and is worth logging (PING-09, PING-11); several may trigger a reset (PING-10).

Here: ``answer`` is the handler both faces put in their dispatch table; they run it on the
reading thread, before anything else, so a ping is never stuck behind busy handlers (PING-12).
``keep_alive`` is the periodic ping: ``Client(ping_interval=N)`` starts it, and a server may
call ``ping.keep_alive(session, N)`` on a session of its own. We do not reconnect by ourselves
(PING-04, PING-10): a new connection is the application's call.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from .messages import McpError, RequestTimeout
from .session import RequestContext, Session

log = logging.getLogger("mcp_ref.ping")

METHOD = "ping"


def answer(ctx: RequestContext) -> dict[str, Any]:
    """The answer to the peer's ping: an empty result, at once."""
    return {}  # PING-01, PING-12: the faces run it inline, before anything else


def keep_alive(session: Session, interval: float, timeout: float | None = None, *, method: str = METHOD,
               params: dict[str, Any] | None = None) -> threading.Thread:
    """Ping the peer every ``interval`` seconds until the session closes (PING-05, PING-06). A ping
    with no answer within ``timeout`` (default: ``interval``) means the connection is dead: it is
    logged and the session closed, failing every pending call (PING-02, PING-03, PING-09, PING-11).
    Returns the pinging thread, which belongs to the session and ends when it closes. (``method``
    and ``params``: what a ping is where the revision has none, revisions/client_subscriptions.py.)"""
    wait = timeout or interval  # PING-06, PING-07: how often, and how long to wait, are the caller's
    what = "a ping" if method == METHOD else method

    def keep_pinging() -> None:
        while not session.closed.wait(interval):
            try:
                session.request(method, params, timeout=wait)
            except RequestTimeout:
                # PING-03, PING-09
                # PING-11: an unanswered ping is logged and ends the connection
                log.warning("%s: no answer to %s within %g s; closing the connection", session.name, what, wait)
                session.close(f"the peer did not answer {what} within {wait:g} s")
                return
            except McpError:
                return  # the session closed meanwhile

    thread = threading.Thread(target=keep_pinging, name=f"{session.name}-keepalive", daemon=True)
    thread.start()
    return thread
