"""What several server cases share: how long to listen for silence, "is it still serving?", which
cheap request a server serves, the first page of a list, the gating check, and the foreign Origin
and Host the transport cases of HTTP with SSE and of Streamable HTTP send.

Not a spec section: helpers of the conformance checker's server cases (see __init__.py).
"""

from __future__ import annotations

import re
from typing import Any

from . import shapes
from .peer import Peer, Reply
from .server_check import ServerCheck

MAX_ITEMS = 20  # resources read / prompts got / tools called per case
FILLER = "mcp-ref-check"  # the kit's name, in the made-up names and values it sends


def settle(t: ServerCheck) -> float:
    """How long to listen for something that should *not* arrive."""
    return min(0.5, t.timeout / 4)


CANCELLED = re.compile(r"cancell?ed", re.IGNORECASE)  # "Request cancelled", "canceled by the client"


def caused_by_cancellation(msg: Any) -> bool:
    """An error the cancellation itself produced (CAN-06): code -32800 (what later revisions and the
    official SDKs send for a cancelled request), or a message that says it was cancelled. No answer
    already on its way when the cancellation came says so, so no settling time excuses it."""
    error = shapes.as_dict(shapes.as_dict(msg).get("error"))
    return error.get("code") == -32800 or bool(CANCELLED.search(str(error.get("message", ""))))


def still_serving(t: ServerCheck, peer: Peer, req_id: str, after: str) -> bool:
    """Ping; record a finding against ``req_id`` unless the server still answers."""
    reply = peer.request("ping")
    return t.check(reply.is_result, req_id, f"after {after}, the server no longer answers ping",
                   reply.sent, reply.got_text(), knock_on=not reply.answered)


def refused_by_http(t: ServerCheck, peer: Peer) -> bool:
    """Over SSE, a POST answered 4xx is the transport's refusal: an answer of its own kind."""
    statuses = getattr(peer.wire, "post_statuses", None)
    if statuses and 400 <= statuses[-1] < 500:
        t.note(f"the POST was refused with HTTP {statuses[-1]}, which the client sees at once")
        return True
    return False


def some_list_method(t: ServerCheck) -> str:
    """A cheap, read-only request the server serves: a declared list, else ping."""
    for capability, method in (("tools", "tools/list"), ("prompts", "prompts/list"), ("resources", "resources/list")):
        if t.info.declares(capability):
            return method
    return "ping"


def first_page(t: ServerCheck, method: str, key: str, capability_id: str) -> tuple[Peer, Reply, Any]:
    """The first page of a list on the shared session (the case ends unless it is a result)."""
    peer = t.session()
    reply = peer.request(method)
    result = t.expect_result(reply, capability_id, method, peer=peer)
    return peer, reply, result


def refused(t: ServerCheck, method: str, params: dict[str, Any] | None, req_id: str, capability: str) -> None:
    """Gating: ``method`` of an undeclared capability must not succeed."""
    peer = t.session()
    reply = peer.request(method, params)
    t.answered(reply, f"{method} without the {capability} capability")
    t.check(not reply.is_result, req_id, f"{method} was served although {capability} was not declared",
            reply.sent, reply.got)
    if reply.is_error and reply.code != -32601:
        t.note(f"{method} was refused with {reply.code}; -32601 (Method not found) says it best")


# --- DNS rebinding: the foreign Origin and Host of the SSE and Streamable HTTP transport cases ---

FOREIGN_ORIGIN = "http://mcp-ref-check.invalid"
FOREIGN_HOST = "mcp-ref-check.invalid"
REBINDING = ("a page whose host name was made to resolve to this server (DNS rebinding) opens the stream with a "
             "GET that the browser sends with that name in Host and no Origin at all (it is the page's own "
             "origin), so an Origin check cannot stop it; refusing host names the server does not have can "
             "(mcp_ref answers 421)")


def one_cause(where: str, served: list[str], host: str) -> str:
    """The one finding for a server that checks neither Origin nor Host: one cause, said once
    (spec_notes/checker.md, "Issue 34"), not a failure and a warning that repeat each other."""
    return (f"{where} checks neither Origin nor Host, so nothing stops DNS rebinding: a foreign Origin "
            f"({FOREIGN_ORIGIN}) was served on {', '.join(served)}, and a foreign Host name ({host}) with no "
            "Origin was served too (the foreign-host case notes it rather than counting it again)")
