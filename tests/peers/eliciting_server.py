"""A server whose tools ask the user through the client (client/elicitation, 2025-06-18 and
2025-11-25), served by ``mcp-ref serve tests/peers/eliciting_server.py:server`` or in process.

``sign_up`` asks for a form and returns the answer as JSON text; ``pay`` asks the user to open a
URL, then says the interaction is complete (``notifications/elicitation/complete``);
``needs_login`` fails with -32042, the URL elicitation it needs listed in the error.
"""

from __future__ import annotations

import json

from mcp_ref import RequestContext, Server
from mcp_ref.revisions import elicitation

server = Server("eliciting", title="Eliciting server")

SIGN_UP = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Your name", "minLength": 1},
        "age": {"type": "integer", "minimum": 0},
        "newsletter": {"type": "boolean", "default": False},
    },
    "required": ["name", "age"],
}


@server.tool()
def sign_up(ctx: RequestContext) -> str:
    """Ask the user for a name and an age."""
    return json.dumps(ctx.elicit("Please sign up", SIGN_UP, timeout=20))


@server.tool()
def pay(ctx: RequestContext) -> str:
    """Ask the user to pay at a URL, then say the payment is done."""
    answer = ctx.elicit_url("Pay for the order", "https://pay.example.com/order/7", elicitation_id="order-7")
    if answer["action"] == "accept":
        elicitation.notify_complete(ctx.session, "order-7")
    return json.dumps(answer)


@server.tool()
def needs_login(ctx: RequestContext) -> str:
    """Fail with -32042: the user must first log in at a URL."""
    raise elicitation.URLElicitationRequired([{"elicitationId": "login-1", "url": "https://login.example.com/",
                                               "message": "Log in to Example first"}])
