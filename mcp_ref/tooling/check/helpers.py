"""What several server cases share: how long to listen for silence, "is it still serving?", and
which cheap request a server serves.

Not a spec section: helpers of the conformance checker's server cases (see __init__.py).
"""

from __future__ import annotations

from .peer import Peer
from .server_check import ServerCheck


def settle(t: ServerCheck) -> float:
    """How long to listen for something that should *not* arrive."""
    return min(0.5, t.timeout / 4)


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
