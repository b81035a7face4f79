"""Server cases of revision 2026-07-28 for its two patterns beyond request and response: multi
round-trip requests (a tool asks the client for input in its result) and subscriptions.

Not a spec section: cases of the conformance checker (see __init__.py), run only with
``mcp-ref check server --protocol-version 2026-07-28`` (``era="stateless"``), beside those of
server_stateless.py. The spec pages they check:
  https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
  https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions

The round-trip cases call the server's tools (``--call-tools``) and answer what a tool asks as a
plausible client would (stateless_helpers.py); the subscription case opens ``subscriptions/listen``.
"""

from __future__ import annotations

import time
from typing import Any

from .model import server_case
from .peer import Peer, Reply, as_params
from .server_check import ServerCheck
from .server_stateless import meta_of
from .shapes import json_text
from .stateless_helpers import (
    EVERY_CAPABILITY,
    MAX_ROUNDS,
    SUBSCRIPTION_KEY,
    Called,
    answer_input,
    askers,
    call_tool,
    input_required_problems,
    stateless_peer,
)
from .wire import WaitTimeout, shown

BASIC = "basic"
TOOLS = "server/tools"
STATELESS = "stateless"

# --- multi round-trip requests (MRTR) ---------------------------------------------------------------


def rounds(t: ServerCheck, peer: Peer, called: Called) -> list[Reply]:
    """Call a tool that asks for input and go through its rounds as a client would: answer what is
    asked, send the same request again under a new id with inputResponses and the requestState
    unchanged, until a result that is not input_required (MAX_ROUNDS at most)."""
    replies: list[Reply] = []
    extra: dict[str, Any] | None = None
    for _ in range(MAX_ROUNDS):
        reply, _ = call_tool(t, peer, called.tool, called.arguments, extra)
        replies.append(reply)
        result = reply.result
        if not reply.is_result or not isinstance(result, dict) or result.get("resultType") != "input_required":
            break
        requests: dict[str, Any] = result["inputRequests"] if isinstance(result.get("inputRequests"), dict) else {}
        extra = {"inputResponses": {key: answer_input(request) for key, request in requests.items()}}
        if "requestState" in result:
            extra["requestState"] = result["requestState"]
    return replies


@server_case(TOOLS, "MRTR-05", "MRTR-10", call_tools=True, fresh=True, era=STATELESS)
def input_required_is_well_formed(t: ServerCheck) -> None:
    """Each input_required result a tool gives (every round, the kit answering as a client would)
    holds inputRequests, requestState or both (MRTR-10); inputRequests maps the server's keys
    to elicitation/create, sampling/createMessage or roots/list requests with params objects, and
    requestState is a string (MRTR-05)."""
    peer = stateless_peer(t, EVERY_CAPABILITY)
    for called in askers(t)[:3]:
        for number, reply in enumerate(rounds(t, peer, called), 1):
            result = reply.result
            if not reply.is_result or not isinstance(result, dict) or result.get("resultType") != "input_required":
                continue
            problems, _ = input_required_problems(result, EVERY_CAPABILITY)
            req_id = "MRTR-10" if any("neither" in p for p in problems) else "MRTR-05"
            t.shape(problems, req_id, f"tool {called.tool!r}'s input_required result (round {number})", reply,
                    rule="An input_required result holds inputRequests (each an elicitation, sampling or roots "
                         "request) or a requestState string, or both (MRTR-05, MRTR-10)")


@server_case(TOOLS, "MRTR-21", call_tools=True, fresh=True, era=STATELESS)
def answered_input_completes_the_call(t: ServerCheck) -> None:
    """A tool that asked for input, retried as the spec says (a new id, inputResponses answering
    every key asked, the requestState unchanged), is served: after at most a few rounds its
    result is complete (MRTR-21). An error for a proper retry is a finding; a server that keeps
    asking is noted (it may ask again, MRTR-12)."""
    peer = stateless_peer(t, EVERY_CAPABILITY)
    for called in askers(t)[:3]:
        replies = rounds(t, peer, called)
        last = replies[-1]
        t.answered(last, f"tools/call {called.tool} (round {len(replies)})")
        if len(replies) == 1:
            t.note(f"tool {called.tool!r} did not ask for input this time: {shown(last.got)[:100]}")
            continue
        if last.is_error:
            t.check(False, "MRTR-21", f"tool {called.tool!r}: the retry of round {len(replies)}, with the answers "
                    "to what it asked and its requestState unchanged, was refused", last.sent, shown(last.got))
            continue
        result = last.result
        kind = result.get("resultType") if isinstance(result, dict) else None
        if kind == "input_required":
            t.note(f"tool {called.tool!r} still asked for input after {MAX_ROUNDS} rounds")
        else:
            t.note(f"tool {called.tool!r}: complete after {len(replies)} round(s)")


def tampered(state: str) -> str:
    """``state`` with one character in its middle changed (the kit never reads a state: it only
    sees whether the server notices)."""
    middle = len(state) // 2
    if not state:
        return "x"
    swap = "A" if state[middle] != "A" else "B"
    return state[:middle] + swap + state[middle + 1:]


@server_case(TOOLS, "MRTR-07", call_tools=True, fresh=True, era=STATELESS)
def tampered_request_state_is_refused(t: ServerCheck) -> None:
    """A retry whose requestState was altered (one character in its middle changed), with proper
    answers, is not served as if nothing happened: the server refuses it (an error) or asks
    again (input_required), never completes it (MRTR-07: a state that comes back through the
    client is checked for tampering)."""
    peer = stateless_peer(t, EVERY_CAPABILITY)
    judged = 0
    for called in askers(t)[:3]:
        first, _ = call_tool(t, peer, called.tool, called.arguments)
        result = first.result
        if not isinstance(result, dict) or result.get("resultType") != "input_required":
            continue
        state = result.get("requestState")
        if not isinstance(state, str):
            t.note(f"tool {called.tool!r} asked with no requestState: nothing to tamper with")
            continue
        requests: dict[str, Any] = result["inputRequests"] if isinstance(result.get("inputRequests"), dict) else {}
        answers = {key: answer_input(request) for key, request in requests.items()}
        reply, _ = call_tool(t, peer, called.tool, called.arguments,
                             {"inputResponses": answers, "requestState": tampered(state)})
        t.answered(reply, f"tools/call {called.tool} with a tampered requestState")
        judged += 1
        done = reply.is_result and isinstance(reply.result, dict) and reply.result.get("resultType") != "input_required"
        t.check(not done, "MRTR-07", f"tool {called.tool!r} completed a retry whose requestState had been altered "
                "(one character changed): the state is not checked for tampering", reply.sent, shown(reply.got))
    if not judged:
        t.skip("no tool asked for input with a requestState")


@server_case(TOOLS, "MRTR-11", call_tools=True, fresh=True, era=STATELESS)
def asks_only_for_declared_capabilities(t: ServerCheck) -> None:
    """A tool that asked for input when the request declared every client capability is called
    again with clientCapabilities empty: its answer (an error such as -32021, a result, or
    input_required) asks for nothing the request did not declare (MRTR-11)."""
    peer = stateless_peer(t, {})
    for called in askers(t)[:3]:
        reply, _ = call_tool(t, peer, called.tool, called.arguments)
        t.answered(reply, f"tools/call {called.tool} with no client capability")
        result = reply.result
        if reply.is_result and isinstance(result, dict) and result.get("resultType") == "input_required":
            _, undeclared = input_required_problems(result, {})
            t.check(not undeclared, "MRTR-11", f"tool {called.tool!r} asked for {', '.join(undeclared)} of a request "
                    "that declared no client capability", reply.sent, shown(reply.got))
        else:
            t.note(f"tool {called.tool!r} without capabilities: {shown(reply.got)[:100]}")


# --- subscriptions/listen ---------------------------------------------------------------------------

LISTEN_ID = "mcp-ref-check-listen"
ASKED_FILTER = {"toolsListChanged": True, "promptsListChanged": True, "resourcesListChanged": True}
CHANGES = ("notifications/tools/list_changed", "notifications/prompts/list_changed",
           "notifications/resources/list_changed", "notifications/resources/updated")


def _next(peer: Peer, deadline: float) -> Any:
    """The next message on ``peer`` before ``deadline`` (filed as usual), or None."""
    try:
        incoming = peer.wire.receive(max(0.0, deadline - time.monotonic()))
    except WaitTimeout:
        return None
    if incoming is None:
        return None
    peer._file(incoming)
    return incoming


@server_case(BASIC, "SUBS-02", "SUBS-10", fresh=True, era=STATELESS)
def listen_is_acknowledged_first(t: ServerCheck) -> None:
    """subscriptions/listen (every list change asked for) is first acknowledged with
    notifications/subscriptions/acknowledged, tagged with the request's id in _meta
    (io.modelcontextprotocol/subscriptionId) and holding a subset of the filter asked, before any
    other notification of the subscription (SUBS-02). With --call-tools the tools are then
    called once each, and every change notification that comes carries that tag (SUBS-10). SKIP
    when the server answers -32601 (it offers no subscriptions)."""
    peer = stateless_peer(t, {})
    sent = peer.send_request("subscriptions/listen", {"notifications": dict(ASKED_FILTER)}, request_id=LISTEN_ID)
    deadline = time.monotonic() + max(t.timeout, peer.startup)
    ack = None
    while ack is None:
        incoming = _next(peer, deadline)
        if incoming is None:
            t.fail("SUBS-02", "subscriptions/listen got no notifications/subscriptions/acknowledged (nor an answer) "
                   f"within {t.timeout:g} s", sent.sent, "(nothing)")
        msg = incoming.msg
        if isinstance(msg, dict) and "method" not in msg and msg.get("id") == LISTEN_ID:
            error = msg.get("error")
            if isinstance(error, dict) and error.get("code") == -32601:
                t.skip("the server answers subscriptions/listen with -32601: it offers no subscriptions")
            t.fail("SUBS-02", "subscriptions/listen was answered before any acknowledgment", sent.sent,
                   shown(incoming.raw))
        if not isinstance(msg, dict) or not isinstance(msg.get("method"), str):
            continue
        if msg["method"] == "notifications/subscriptions/acknowledged":
            ack = msg
        elif msg["method"] in CHANGES:
            t.fail("SUBS-02", f"{msg['method']} came before the subscription was acknowledged", sent.sent,
                   shown(incoming.raw))
    params = as_params(ack)
    tag = meta_of(params).get(SUBSCRIPTION_KEY)
    t.check(tag == LISTEN_ID, "SUBS-02", f"the acknowledgment's _meta {SUBSCRIPTION_KEY} is {json_text(tag)}, not "
            f"the listen request's id {json_text(LISTEN_ID)}", sent.sent, json_text(ack))
    honoured = params.get("notifications")
    if isinstance(honoured, dict):
        extra = [key for key, value in honoured.items() if value and key not in ASKED_FILTER]
        t.check(not extra, "SUBS-02", f"the acknowledgment honours {', '.join(extra)}, which was not asked for",
                sent.sent, json_text(ack))
    else:
        t.check(False, "SUBS-02", "the acknowledgment holds no notifications object (the filter it honours)",
                sent.sent, json_text(ack))
    if t.call_tools and t.info.declares("tools"):
        from .tool_arguments import arguments_for

        for tool in (t.info.tools or [])[:20]:
            arguments = arguments_for(tool.get("inputSchema"))
            if isinstance(tool.get("name"), str) and arguments is not None:
                call_tool(t, peer, tool["name"], arguments)
        end = time.monotonic() + min(t.timeout, 1.0)
        while _next(peer, end) is not None:
            pass
        changes = [n for n in peer.notifications if n.get("method") in CHANGES]
        untagged = [n for n in changes if meta_of(as_params(n)).get(SUBSCRIPTION_KEY) != LISTEN_ID]
        t.check(not untagged, "SUBS-10", f"{len(untagged)} of {len(changes)} change notification(s) of the "
                f"subscription lack _meta {SUBSCRIPTION_KEY} {json_text(LISTEN_ID)}",
                got=json_text(untagged[0]) if untagged else None)
        t.note(f"{len(changes)} change notification(s) came while the tools were called")
    peer.notify("notifications/cancelled", {"requestId": LISTEN_ID, "reason": "the checker is done"})
