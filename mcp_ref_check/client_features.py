"""The client cases of the client features of 2024-11-05: client/roots and client/sampling.

Not a spec section: cases of ``mcp-ref check client``, beside client_cases.py (the base protocol's
and the transports'), registered after them so that a report keeps its order. The spec pages:
  https://modelcontextprotocol.io/specification/2024-11-05/client/roots
  https://modelcontextprotocol.io/specification/2024-11-05/client/sampling
The checking server sends ``roots/list`` and ``sampling/createMessage`` (client_check.py's probes)
to a client that declared the capability; these cases judge the answers.
"""

from __future__ import annotations

from typing import Any

from . import result_shapes
from .client_cases import messages, method_of, probe
from .client_check import ClientCheck, Probe
from .model import client_case
from .wire import shown

ROOTS = "client/roots"
SAMPLING = "client/sampling"


# --- client/roots and client/sampling ------------------------------------------------------------


def answered(t: ClientCheck, capability: str, method: str, requirement: str) -> tuple[Probe, Any] | None:
    """The probe of ``capability`` (our ``method``) and the client's result, for its shape to be
    judged; a skip when the client did not declare it, a failure of ``requirement`` when nothing
    came back, None (and a note) when the client refused it, which it may."""
    if not isinstance(t.s.client_capabilities.get(capability), dict):
        t.skip(f"the client does not declare {capability}")
    found = probe(t, capability)
    if found.reply is None:
        t.fail(requirement, f"no response to {method}", found.sent, f"(nothing within {t.timeout:g} s)")
    if "error" in found.reply:
        t.note(f"{method} was refused: {shown(found.got)}")
        return None
    return found, found.reply.get("result")


@client_case(ROOTS, "ROOT-01", "ROOT-03")
def roots_list_is_answered(t: ClientCheck) -> None:
    """A client that declared roots answers roots/list with a roots array of file:// URIs (each
    with an optional name)."""
    answer = answered(t, "roots", "roots/list", "ROOT-01")
    if answer is None:
        return
    found, result = answer
    problems = result_shapes.list_result(result, "roots", result_shapes.root)
    t.shape_problems([p for p in problems if "file://" in p], "ROOT-03", "the roots", found)
    t.shape_problems([p for p in problems if "file://" not in p], "ROOT-01", "the roots/list result", found)


@client_case(ROOTS, "LC-15")
def roots_changes_only_when_declared(t: ClientCheck) -> None:
    """notifications/roots/list_changed comes only from a client that declared roots.listChanged."""
    roots = t.s.client_capabilities.get("roots")
    promised = isinstance(roots, dict) and roots.get("listChanged") is True
    for incoming in messages(t):
        if method_of(incoming) == "notifications/roots/list_changed" and not promised:
            t.fail("LC-15", "sent roots/list_changed without declaring roots.listChanged", got=shown(incoming.raw))


@client_case(SAMPLING, "SAMP-05", "SAMP-07")
def sampling_request_is_answered(t: ClientCheck) -> None:
    """A client that declared sampling answers sampling/createMessage with a result (role, text or
    image content, model, optional stopReason) or an error (the user may refuse)."""
    answer = answered(t, "sampling", "sampling/createMessage", "SAMP-05")
    if answer is None:
        return
    found, result = answer
    t.shape_problems(result_shapes.create_message_result(result), "SAMP-05",
                     "the sampling/createMessage result", found)
