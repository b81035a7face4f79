"""Elicitation: a server asks the user, through the client, for information it needs.

Spec page: client/elicitation (new in revision 2025-06-18)
https://modelcontextprotocol.io/specification/2025-06-18/client/elicitation

In short:

1. A client that can ask its user declares the ``elicitation`` capability; a server asks only
   such clients, and only in a session of 2025-06-18 or later.
2. The server sends ``elicitation/create`` with a ``message`` for the user and a
   ``requestedSchema``: a flat JSON Schema object whose properties are primitive (string, number,
   integer, boolean, enum).
3. The client shows the message, lets the user answer, decline or dismiss, and answers with
   ``action`` (``accept``, ``decline`` or ``cancel``) and, for ``accept``, the ``content``.

Client side: ``Client(elicitation_handler=...)``; ``answer`` checks the request, hands its params to
the handler, and checks what it returns. Without a handler the client declares nothing and is
never asked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..lifecycle import since
from ..messages import InvalidParams, MethodNotFound

ElicitationHandler = Callable[[dict[str, Any]], dict[str, Any]]
ACTIONS = ("accept", "decline", "cancel")


def capability(version: str) -> dict[str, Any]:
    """What a client with a handler declares, for the revision it offers."""
    return {}


def answer(handler: ElicitationHandler | None, ctx: Any) -> dict[str, Any]:
    """Client side: answer ``elicitation/create`` with the handler's result."""
    if handler is None or not since(ctx.session.lifecycle.protocol_version, "2025-06-18"):
        raise MethodNotFound("Method not found: elicitation/create (this client declared no elicitation)")
    params = ctx.params
    if not isinstance(params.get("message"), str):
        raise InvalidParams('Invalid params: elicitation/create needs "message", a string')
    result = handler(params)
    if not isinstance(result, dict) or result.get("action") not in ACTIONS:
        raise TypeError(f"the elicitation handler must return {{'action': one of {ACTIONS}, ...}}, not {result!r}")
    return result
