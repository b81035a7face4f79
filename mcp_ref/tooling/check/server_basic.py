"""Server cases for the base protocol: lifecycle and messages (the utilities are in
server_basic_utilities.py).

Not a spec section: cases of the conformance checker (see __init__.py). The spec pages they
check (each case names its own):
  https://modelcontextprotocol.io/specification/2024-11-05/basic/lifecycle
  https://modelcontextprotocol.io/specification/2024-11-05/basic/messages

What these pages ask of a server, in short:

1. Answer ``initialize`` with the version (the client's if supported, else one of its own), its
   capabilities and its name and version; serve nothing else before it; after it, send no
   request but ping until the client says ``initialized``.
2. Speak JSON-RPC 2.0: every request gets exactly one response with the request's id (same type)
   and exactly one of result and error; error codes are integers; notifications are never
   answered; unparseable input gets -32700, an invalid envelope -32600, an unknown method -32601.

Several cases judge the whole run's traffic (``audit=True``): they run last, over every
connection the kit opened.
"""

from __future__ import annotations

import time
from typing import Any

from . import shapes
from .helpers import refused_by_http, settle, some_list_method, still_serving
from .model import server_case
from .peer import waited
from .server_check import ServerCheck
from .wire import Incoming, shown

LIFECYCLE = "basic/lifecycle"
MESSAGES = "basic/messages"


# --- basic/lifecycle -----------------------------------------------------------------------------


@server_case(LIFECYCLE, "LC-07", "LC-03")
def initialize_result_is_well_formed(t: ServerCheck) -> None:
    """The initialize result has a protocolVersion string, a capabilities object and serverInfo
    with name and version strings; instructions, if present, is a string."""
    reply = t.session().init
    assert reply is not None
    t.shape(shapes.initialize_result(reply.result), "LC-07", "the initialize result", reply)


@server_case(LIFECYCLE, "LC-07", "LC-02")
def capabilities_are_well_formed(t: ServerCheck) -> None:
    """Each capability the server declares is an object, and its flags (listChanged, subscribe)
    are booleans. Capabilities the kit does not know are allowed (the set is open)."""
    reply = t.session().init
    assert reply is not None
    t.shape(shapes.server_capabilities(t.info.capabilities), "LC-07", "the declared capabilities", reply)


@server_case(LIFECYCLE, "LC-12", "VER-01")
def answers_with_the_requested_version(t: ServerCheck) -> None:
    """Asked for 2024-11-05, the server answers with exactly "2024-11-05": a server that supports
    the client's version must use it."""
    reply = t.session().init
    assert reply is not None
    version = t.info.init.get("protocolVersion")
    t.check(version == "2024-11-05", "LC-12", f"proposed 2024-11-05, the server chose {version!r}", reply.sent, reply.got)


@server_case(LIFECYCLE, "LC-12", fresh=True)
def answers_an_unknown_version_with_its_own(t: ServerCheck) -> None:
    """Proposed a version nobody defined (1999-01-01), the server answers with a version it does
    support, not an echo of the proposal. Decision (the spec leaves this open): the page's example
    error -32602 with the supported versions is accepted too, as the page itself shows it."""
    peer = t.connect()
    reply = peer.initialize(version="1999-01-01")
    t.answered(reply, "initialize with protocolVersion 1999-01-01")
    if reply.is_error:
        t.check(reply.code == -32602, "LC-12", f"an unsupported version was refused with {reply.code!r}; "
                "the page's example uses -32602, and the rule asks for a version instead", reply.sent, reply.got)
        t.note("refused the unknown version with an error (the page's example) instead of offering its own")
        return
    result = reply.result if isinstance(reply.result, dict) else {}
    version = result.get("protocolVersion")
    t.check(isinstance(version, str) and version != "1999-01-01", "LC-12",
            f"proposed 1999-01-01, the server answered {version!r}: it must answer with a version it supports",
            reply.sent, reply.got)


@server_case(LIFECYCLE, "MSG-01", "LC-07", fresh=True)
def survives_a_request_before_initialize(t: ServerCheck) -> None:
    """A request other than ping sent before initialize gets an answer (JSON-RPC answers every
    request), and the server can be initialized afterwards. How it answers is its choice: keeping
    the initialization first binds the client, which starts the conversation (LC-01), so a server
    that serves the early request is only noted."""
    peer = t.connect()
    method = some_list_method(t)
    if method == "ping":
        method = "tools/list"
    early = peer.request(method)
    t.answered(early, f"{method} before initialize")
    if early.is_result:
        t.note(f"{method} was served before initialize (LC-01 binds the client, which sent it; no 2024-11-05 "
               "rule says how a server answers it)")
    init = peer.initialize()
    t.answered(init, "initialize after an early request")
    t.check(init.is_result, "LC-07", "after an early request, initialize was refused", init.sent, init.got)


@server_case(LIFECYCLE, "LC-10", fresh=True)
def sends_no_request_before_initialized(t: ServerCheck) -> None:
    """Between its initialize result and the client's initialized notification, the server sends
    no request other than ping (log notifications are allowed). The kit declares roots and
    sampling here, so a request is judged on its timing alone."""
    peer = t.connect()
    init = peer.initialize(initialized=False, capabilities={"roots": {}, "sampling": {}})
    if not init.is_result:
        t.fail("LC-07", "initialize was not answered with a result", init.sent, init.got_text(), knock_on=not init.answered)
    peer.collect(settle(t))
    early = [r for r in peer.server_requests if r.get("method") != "ping"]
    t.check(not early, "LC-10", f"sent {', '.join(str(r.get('method')) for r in early)} before notifications/initialized",
            got=shown(str(early[0])) if early else None)
    peer.notify("notifications/initialized")


# The requests a 2024-11-05 server may send a client, and the client capability each needs.
SERVER_REQUESTS = {"ping": None, "roots/list": "roots", "sampling/createMessage": "sampling"}


@server_case(LIFECYCLE, "LC-15", "ROOT-17", "LC-14", audit=True)
def uses_only_client_capabilities(t: ServerCheck) -> None:
    """Every request the server sent, on any connection of the run, is one a 2024-11-05 client
    has and the kit declared on that connection: the kit declares no client capability (but on
    one connection of lifecycle.sends-no-request-before-initialized), so roots/list (ROOT-17),
    sampling/createMessage (LC-15) and methods of later revisions such as elicitation/create
    (LC-14: the negotiated version) are each reported, with how often they came."""
    seen: dict[str, tuple[int, dict[str, Any]]] = {}
    for peer in t.run.peers:
        for request in peer.server_requests:
            method = str(request.get("method"))
            needs = SERVER_REQUESTS.get(method)
            if method != "ping" and not (needs is not None and needs in peer.declared):
                count, first = seen.get(method, (0, request))
                seen[method] = (count + 1, first)
    for method, (count, first) in seen.items():
        times = f" ({count} times)" if count > 1 else ""
        if method == "roots/list":
            t.check(False, "ROOT-17", f"sent roots/list to a client that did not declare roots{times}", got=shown(str(first)))
        elif method == "sampling/createMessage":
            t.check(False, "LC-15", f"sent sampling/createMessage to a client that did not declare sampling{times}",
                    got=shown(str(first)))
        else:
            t.check(False, "LC-14", f"sent {method}{times}, which is no request of 2024-11-05, the negotiated "
                    "version (a client of that version has no such method)", got=shown(str(first)))


@server_case(LIFECYCLE, "LC-15", audit=True)
def list_changed_only_when_promised(t: ServerCheck) -> None:
    """notifications/{tools,resources,prompts}/list_changed arrive only when the server declared
    that capability with listChanged: true (a capability used without being negotiated); each
    kind sent without it is reported."""
    seen: dict[str, tuple[int, dict[str, Any]]] = {}
    for peer in t.run.peers:
        for note in peer.notifications:
            method = str(note.get("method"))
            for feature in ("tools", "resources", "prompts"):
                if method == f"notifications/{feature}/list_changed" and not t.info.declares(feature, "listChanged"):
                    count, first = seen.get(method, (0, note))
                    seen[method] = (count + 1, first)
    for method, (count, first) in seen.items():
        feature = method.split("/")[1]
        t.check(False, "LC-15", f"sent {method} without declaring {feature}.listChanged"
                + (f" ({count} times)" if count > 1 else ""), got=shown(str(first)))


@server_case(LIFECYCLE, "MSG-01", "PING-01", audit=True)
def keeps_answering(t: ServerCheck) -> None:
    """The server stays for the whole run: it neither exits nor stops answering while the kit
    still has requests for it. If it goes away, this is the one finding that says how and when
    (the cases it kept from running are SKIP, not failures)."""
    if t.run.gone is not None:
        t.fail(t.run.gone_id, t.run.gone)


# --- basic/messages ------------------------------------------------------------------------------


@server_case(MESSAGES, "MSG-05")
def responses_keep_the_request_id(t: ServerCheck) -> None:
    """A response carries exactly the id of its request, type included: a numeric string stays a
    string, and negative, large and non-ASCII ids come back unchanged."""
    peer = t.session()
    for request_id in ("12345678", -1, 9007199254740991, "mcp-ref-check-é✓😀", ""):
        reply = peer.request("ping", request_id=request_id)
        t.answered(reply, f"ping with id {request_id!r}")
        t.check(not reply.id_mismatch, "MSG-05",
                f"ping with id {request_id!r} was answered with id {reply.msg and reply.msg.get('id')!r}",
                reply.sent, reply.got)


NULL_ID_CONFLICT = ("JSON-RPC 2.0 (MSG-01) answers unparseable input with error -32700 and \"id\": null, but the "
                    "2024-11-05 schema has no null id (JSONRPCError.id is a string or an integer; MSG-03 forbids "
                    "null ids), so no valid 2024-11-05 message can answer it")


@server_case(MESSAGES, "MSG-01", "MSG-03", conflict=NULL_ID_CONFLICT)
def answers_unparseable_input_with_32700(t: ServerCheck) -> None:
    """A line that is not JSON gets error -32700 with id null (JSON-RPC's rule when no id can be
    read), and the server keeps serving. The 2024-11-05 schema has no null id, so the two rules
    conflict: a server that stays silent is warned, not failed."""
    peer = t.rough_session()
    sent = '{"jsonrpc": "2.0", "id": 1, "method": "ping"'
    peer.wire.send_raw(sent.encode())
    got = None if refused_by_http(t, peer) else peer.next_response()
    if got is None and refused_by_http(t, peer):
        pass
    elif got is None:
        t.check(False, "MSG-01", f"no answer to unparseable input: {NULL_ID_CONFLICT}; the JSON-RPC answer is "
                "still the one clients expect", sent, f"(nothing within {waited(t.timeout)})")
    else:
        msg = shapes.as_dict(got.msg)
        error = shapes.as_dict(msg.get("error"))
        t.check(error.get("code") == -32700, "MSG-01", f"expected error -32700, got {shown(got.raw)}", sent, got.raw)
        if not ("id" in msg and msg.get("id") is None):
            t.note(f"the parse error's id is {msg.get('id')!r}; JSON-RPC asks for null ({NULL_ID_CONFLICT})")
    still_serving(t, peer, "MSG-01", "unparseable input")


@server_case(MESSAGES, "MSG-01")
def answers_invalid_envelopes_with_32600(t: ServerCheck) -> None:
    """Valid JSON that is not a valid JSON-RPC message (no method, or "jsonrpc": "1.0") gets error
    -32600, and the server keeps serving. Both are sent at once; the answers may come in any order."""
    peer = t.rough_session()
    bad = {"a message with neither method nor result": {"jsonrpc": "2.0", "id": "mcp-ref-check-bad"},
           'a request with "jsonrpc": "1.0"': {"jsonrpc": "1.0", "id": "mcp-ref-check-v1", "method": "ping"}}
    sent = {}
    for label, msg in bad.items():
        text = peer.wire.send(msg)
        if not refused_by_http(t, peer):  # over SSE, an HTTP 4xx is the answer
            sent[label] = text
    deadline = time.monotonic() + t.timeout
    answers: list[Incoming] = []
    while len(answers) < len(sent) and time.monotonic() < deadline:
        got = peer.next_response(deadline - time.monotonic())
        if got is None:
            break
        answers.append(got)
    for label, text in sent.items():
        rid = bad[label]["id"]
        mine = [a for a in answers if isinstance(a.msg, dict) and a.msg.get("id") in (rid, None)]
        if not mine:
            t.check(False, "MSG-01", f"no error response to {label}", text, f"(nothing within {t.timeout:g} s)")
            continue
        answers.remove(mine[0])
        error = shapes.as_dict(shapes.as_dict(mine[0].msg).get("error"))
        t.check(error.get("code") == -32600, "MSG-01", f"{label}: expected error -32600, got {shown(mine[0].raw)}",
                text, mine[0].raw)
    still_serving(t, peer, "MSG-01", "invalid envelopes")


@server_case(MESSAGES, "MSG-01")
def unknown_method_is_32601(t: ServerCheck) -> None:
    """A request for a method the server does not have gets error -32601 (Method not found)."""
    peer = t.session()
    reply = peer.request("mcp-ref-check/no-such-method", {})
    t.expect_error(reply, "MSG-01", "an unknown method", (-32601,))


@server_case(MESSAGES, "MSG-01", "MSG-08")
def notifications_are_not_answered(t: ServerCheck) -> None:
    """A notification (here an unknown one) gets no response of any kind; the next request is
    answered normally. (A line on stdout that is not a message is not an answer: the stdio cases
    judge it.)"""
    peer = t.session()
    sent = peer.notify("notifications/mcp-ref-check/unknown", {"note": "ignore me"})
    before = len(peer.stray)
    reply = peer.request("ping")
    t.answered(reply, "ping after an unknown notification")
    answers = peer.responses_since(before)  # lines that are not messages are TR-04's, not answers
    t.check(not answers, "MSG-01", "the server answered a notification", sent, answers[0].raw if answers else None)


@server_case(MESSAGES, "MSG-01", audit=True)
def every_message_is_json_rpc_2(t: ServerCheck) -> None:
    """Every message the server sent in the whole run is a JSON object with "jsonrpc": "2.0" that
    is a request, a response or a notification. (Lines that are not JSON at all are judged by the
    stdio cases.)"""
    for wire in t.run.wires:
        for entry in wire.sent_and_received():
            if entry.direction != "got" or entry.event == "endpoint" or entry.msg is None:
                continue
            problem = shapes.envelope_problem(entry.msg)
            if problem:
                t.fail("MSG-01", f"a message {problem}", got=shown(entry.data))


def _responses(t: ServerCheck) -> list[tuple[Any, dict[str, Any], str]]:
    """(wire, response, raw) for every response-shaped message of the run."""
    out = []
    for wire in t.run.wires:
        for entry in wire.sent_and_received():
            msg = entry.msg
            if entry.direction == "got" and isinstance(msg, dict) and "method" not in msg and (
                    "result" in msg or "error" in msg):
                out.append((wire, msg, entry.data))
    return out


@server_case(MESSAGES, "MSG-06", audit=True)
def responses_have_result_or_error(t: ServerCheck) -> None:
    """Every response of the run sets exactly one of result and error, never both."""
    for _, msg, raw in _responses(t):
        if ("result" in msg) == ("error" in msg):
            t.fail("MSG-06", "a response sets both result and error", got=shown(raw))


@server_case(MESSAGES, "MSG-07", "MSG-09", audit=True)
def errors_have_integer_codes_and_short_messages(t: ServerCheck) -> None:
    """Every error of the run has an integer code and a string message; the message should be one
    short sentence (one line, at most 300 characters)."""
    for _, msg, raw in _responses(t):
        error = msg.get("error")
        if "error" not in msg:
            continue
        if not isinstance(error, dict) or not shapes.is_int(error.get("code")):
            t.fail("MSG-07", "an error's code is not an integer", got=shown(raw))
        message = error.get("message")
        if not isinstance(message, str):
            t.fail("MSG-07", "an error has no string message", got=shown(raw))
        if "\n" in message or len(message) > 300:
            t.check(False, "MSG-09", f"an error message is not one short sentence ({len(message)} characters)",
                    got=shown(raw))
            return


@server_case(MESSAGES, "MSG-05", "MSG-01", audit=True)
def each_request_gets_exactly_one_response(t: ServerCheck) -> None:
    """Every response of the run answers a request the kit sent on that connection (or a message
    it could not read, with id null), and no request is answered twice."""
    for wire in t.run.wires:
        sent_ids: list[Any] = []
        answered: list[Any] = []
        for entry in wire.sent_and_received():
            msg = entry.msg
            if not isinstance(msg, dict):
                continue
            if entry.direction == "sent" and "id" in msg:  # requests, and the kit's deliberately bad messages
                sent_ids.append(msg["id"])
            elif entry.direction == "got" and "method" not in msg and ("result" in msg or "error" in msg):
                rid = msg.get("id")
                if rid is None:
                    continue  # a parse error or an invalid message of ours
                if not any(type(rid) is type(s) and rid == s for s in sent_ids):
                    t.fail("MSG-05", f"a response carries id {rid!r}, which the kit never sent", got=shown(entry.data))
                if any(type(rid) is type(a) and rid == a for a in answered):
                    t.fail("MSG-01", f"request {rid!r} was answered twice", got=shown(entry.data))
                answered.append(rid)


@server_case(MESSAGES, "MSG-08", "MSG-02", "MSG-03", "MSG-04", audit=True)
def server_ids_are_valid(t: ServerCheck) -> None:
    """Requests the server sent have string or integer ids, never null, never reused on one
    connection; its notifications (notifications/...) carry no id."""
    for peer in t.run.peers:
        seen: list[Any] = []
        for request in peer.server_requests:
            rid = request.get("id")
            method = str(request.get("method"))
            if method.startswith("notifications/"):
                t.fail("MSG-08", f"the notification {method} carries an id", got=shown(str(request)))
            if rid is None:
                t.fail("MSG-03", f"the request {method} has id null", got=shown(str(request)))
            if not (isinstance(rid, str) or shapes.is_int(rid)):
                t.fail("MSG-02", f"the request {method} has id {rid!r}, not a string or integer", got=shown(str(request)))
            if any(type(rid) is type(s) and rid == s for s in seen):
                t.fail("MSG-04", f"the server reused request id {rid!r}", got=shown(str(request)))
            seen.append(rid)
