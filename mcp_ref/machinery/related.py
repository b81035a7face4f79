"""Which request the current thread is handling: so a transport can keep a request's messages together.

Not a spec section. The Streamable HTTP transport (streamable_http.py) answers each request on
the HTTP response of the POST that carried it, and may put there, before the answer, the
notifications and requests the server sends *while handling it* (a tool's progress, its log
lines, its sampling request). The engine's messages do not say which request they belong to;
the thread that sends them does: a handler runs on one thread from start to end, and whatever
it sends, it sends from that thread. So:

1. The session engine marks, around each handler it runs, "this thread is handling request
   ``request_id`` that arrived on ``channel``" (``handling``/``done``; ``channel`` is the
   transport object, so a handler of one session that sends to another session, a broadcast
   of ``list_changed`` say, is not mistaken for a related message there).
2. A transport asks ``current(self)`` when it sends: the id of the request being handled on
   this thread for that transport, or None (a message that belongs to no request, or one sent
   from a thread the handler started itself: those take the transport's general path).

It is a ``contextvars.ContextVar``, so it is per thread (and per asyncio task, should anyone
ever run the engine under one).
"""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..messages import RequestId

_HANDLING: contextvars.ContextVar[tuple[object, RequestId | None] | None] = contextvars.ContextVar(
    "mcp_ref_handling", default=None)

Token = contextvars.Token


def handling(channel: object, request_id: RequestId | None) -> Token[Any]:
    """This thread now handles ``request_id`` from ``channel``; pass the token to ``done``."""
    return _HANDLING.set((channel, request_id))


def done(token: Token[Any]) -> None:
    """The handler has returned: the thread handles what it handled before (usually nothing)."""
    _HANDLING.reset(token)


def current(channel: object) -> RequestId | None:
    """The id of the request this thread is handling for ``channel``, or None."""
    value = _HANDLING.get()
    if value is None or value[0] is not channel:
        return None
    return value[1]
