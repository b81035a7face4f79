"""Server cases for the messages: JSON-RPC 2.0 as a 2024-11-05 server must speak it, good input and bad.

Not a spec section: cases of the conformance checker (see __init__.py). The spec page they
check: https://modelcontextprotocol.io/specification/2024-11-05/basic/messages (MSG-01 makes
JSON-RPC 2.0's own rules MCP's: https://www.jsonrpc.org/specification)

What this page asks of a server, in short:

1. Every request gets exactly one response, with the request's id (same type) and exactly one
   of result and error; error codes are integers; notifications, and responses, are never
   answered.
2. Input is classified in JSON-RPC's order, and the first failing step decides the answer: bytes
   that are not JSON (a line cut short, bytes that are not UTF-8) get -32700; JSON that is not a
   valid message gets -32600 (not an object, a batch, no jsonrpc "2.0", a method that is not a
   string, params that are not an object, an id that is neither a string nor an integer); an
   unknown method gets -32601.

Each piece of bad input is sent on its own, between two pings (``Peer.probe``), so a case judges
exactly what the server wrote in reply to it: an answer the server wrote to something earlier
(a notification, say) is never taken for this input's. The cases that judge the whole run's
traffic (``audit=True``) are in server_messages_audit.py.
"""

from __future__ import annotations

import time
from typing import Any

from . import shapes
from .model import server_case
from .peer import Peer, Probe, same_id, waited
from .revisions import ID
from .server_check import ServerCheck, code_words
from .wire import Incoming, encode

MESSAGES = "basic/messages"


# --- judging one probe -----------------------------------------------------------------------------


def answer_text(incoming: Incoming) -> str:
    """An answer in a few words: "error -32603", "a result", "a batch of 1 response"."""
    msg = incoming.msg
    if isinstance(msg, list):
        return f"a batch of {len(msg)} response(s), not one response"
    msg = shapes.as_dict(msg)
    if "error" in msg:
        return f"error {code_words(shapes.as_dict(msg.get('error')).get('code'))}"
    return "a result"


def silence(probe: Probe) -> str:
    """What came back when nothing did: the ping sent after the input was answered, but not the input."""
    return f"(nothing, and the ping sent right after it was answered within {waited(max(probe.barrier.waited, 0.1))})"


def served_after(t: ServerCheck, probe: Probe, what: str, peer: Peer | None = None) -> bool:
    """The barrier after ``what`` was answered: the server is still serving (else a knock-on finding)."""
    if probe.barrier.answered:
        return True
    ended = f": it {peer.wire.describe_end()}" if peer is not None and probe.barrier.closed else ""
    t.check(False, "MSG-01", f"after {what}, the server no longer answers ping{ended}", probe.sent,
            probe.barrier.got_text(), knock_on=True)
    return False


def one_answer(t: ServerCheck, probe: Probe, what: str) -> Incoming | None:
    """The one answer to ``probe`` (a finding if there were several), or None if none came."""
    if len(probe.answers) > 1:
        t.check(False, "MSG-01", f"{what} was answered {len(probe.answers)} times: one input, one answer at most",
                probe.sent, " | ".join(a.raw for a in probe.answers))
    return probe.answers[0] if probe.answers else None


UNWRITABLE_ANSWER = ("JSON-RPC 2.0 (MSG-01) answers it with an error whose id is null (or the id it could not "
                     "use), but the 2024-11-05 schema has no such id (MSG-02: an id is a string or an integer; "
                     "MSG-03: never null), so no valid 2024-11-05 message can answer it: silence is a warning, the "
                     "JSON-RPC answer is still the one clients expect")


def expect_code(t: ServerCheck, probe: Probe, what: str, codes: tuple[int, ...], why: str,
                readable_id: Any = None, level: str | None = None, peer: Peer | None = None,
                req_id: str = "MSG-01") -> Incoming | None:
    """``probe`` must be answered with an error of one of ``codes`` (``why``: the rule, in a
    sentence), whose id is ``readable_id`` when the message's id could be read (a string or an
    integer), else null (see ``judge_error_id``). Silence fails where that error can be written
    (the message's own id); where it would need id null, which the 2024-11-05 schema lacks, silence
    is a warning naming both rules (spec_notes/checker.md, "Issue 34: verdicts"). A wrong answer
    fails either way. ``level`` lowers the findings' strength (where the rule behind ``why`` is in
    dispute); ``req_id`` is the row a wrong answer or silence is judged on (MSG-01 unless a later
    revision's row has the rule)."""
    if not served_after(t, probe, what, peer):
        return None
    if probe.refused_by_http:
        t.note(f"{what}: the POST was refused with HTTP {probe.refusal}, which the client sees at once")
        return None
    got = one_answer(t, probe, what)
    if got is None and readable_id is None and t.since("2025-11-25"):  # an error may leave out the id: writable
        t.check(False, req_id, f"{what} got no answer: {why}; in 2025-11-25, the agreed revision, the error can be "
                f"written (its id may be left out, {t.rule('error-id')})", probe.sent, silence(probe), level=level)
        return None
    if got is None and readable_id is None:  # MSG-01 against MSG-02, MSG-03: no valid answer can be written
        t.check(False, req_id, f"{what} got no answer: {why}; {UNWRITABLE_ANSWER}", probe.sent, silence(probe),
                level="SHOULD")
        return None
    if got is None:  # its own id can be read and written: the error answer is valid 2024-11-05
        t.check(False, req_id, f"{what} got no answer: {why}", probe.sent, silence(probe), level=level)
        return None
    msg = shapes.as_dict(got.msg)
    code = shapes.as_dict(msg.get("error")).get("code")
    if not (isinstance(got.msg, dict) and "error" in msg and t.code_in(code, codes, what)):
        t.check(False, req_id, f"{what} got {answer_text(got)}: {why}", probe.sent, got.raw, level=level)
        return got
    judge_error_id(t, probe, got, what, readable_id)
    return got


ID_RULE = ("A response carries the id of the message it answers; JSON-RPC answers with id null only when that id "
           "could not be read (input that is not JSON, an invalid id)")
OMITTED_ID = ("JSON-RPC's response always has an id member, null when the message's id could not be read; later "
              "revisions of MCP let an error leave it out, 2024-11-05's schema does not (and has no null id either: "
              "a conflict, so a warning)")


def judge_error_id(t: ServerCheck, probe: Probe, got: Incoming, what: str, readable_id: Any) -> None:
    """The id of an error that answers bad input: the message's own id when it could be read
    (``readable_id``), else null. A warning otherwise: a client waiting for that id never sees an
    error with null, and an error with no id member at all answers nothing JSON-RPC can match."""
    msg = shapes.as_dict(got.msg)
    if "id" not in msg and t.since("2025-11-25"):  # that revision's error response may leave the id out
        if readable_id is not None:
            t.check(False, t.rule("error-id"), f"{what} got an error with no id member, though the message's id, "
                    f"{shapes.json_text(readable_id)}, could be read: 2025-11-25 lets an error leave out only an id it "
                    "could not read, so the client waiting for that id never sees the error", probe.sent, got.raw,
                    level="SHOULD", rule=ID_RULE)
        return
    if "id" not in msg:
        t.check(False, "MSG-01", f"{what} got an error with no id member: {OMITTED_ID}", probe.sent, got.raw,
                level="SHOULD", rule=ID_RULE)
        return
    rid = msg["id"]
    if readable_id is not None and not same_id(rid, readable_id):
        t.check(False, "MSG-01", f"{what} got its error with id {shapes.json_text(rid)}, though the message's id, "
                f"{shapes.json_text(readable_id)}, could be read: its sender waits for an answer with that id",
                probe.sent, got.raw, level="SHOULD", rule=ID_RULE)
    elif readable_id is None and rid is not None:
        t.note(f"{what}: the error carries id {shapes.json_text(rid)}; JSON-RPC asks for null when the id cannot be read")


# --- what every request gets ---------------------------------------------------------------------

SEPARATORS_ID = "mcp-ref-check-\u2028-\u2029"  # Unicode's line and paragraph separators, legal inside a JSON string
FRAMING_RULE = ('On stdio a newline (b"\\n") ends each message, and nothing else does: the other line breaks of '
                "Unicode may stand inside a JSON string, raw")


@server_case(MESSAGES, "MSG-05", "TR-02")
def responses_keep_the_request_id(t: ServerCheck) -> None:
    """A response carries exactly the id of its request, type included: a numeric string stays a
    string, and negative, large and non-ASCII ids come back unchanged, one holding U+2028 and
    U+2029 too (over stdio, a server that splits lines on them, as str.splitlines() does, never
    reads that request whole: TR-02)."""
    peer = t.session()
    for request_id in ("12345678", -1, 9007199254740991, "mcp-ref-check-é✓😀", "", SEPARATORS_ID):
        reply = peer.request("ping", request_id=request_id)
        if request_id == SEPARATORS_ID and not reply.answered and not reply.closed:
            t.fail("TR-02", f"ping with id {shapes.json_text(request_id)} (it holds U+2028 and U+2029, written as they "
                   "are, which JSON allows inside a string) got no answer: a server that splits its input with "
                   "Python's str.splitlines() cuts this line in three, since those characters end a line there; "
                   'split on b"\\n" only', reply.sent, reply.got_text(), rule=FRAMING_RULE)
        t.answered(reply, f"ping with id {shapes.json_text(request_id)}")
        t.check(not reply.id_mismatch, "MSG-05", f"ping with id {shapes.json_text(request_id)} was answered with id "
                f"{shapes.json_text(shapes.as_dict(reply.msg).get('id'))}", reply.sent, reply.got)


NULL_ID_CONFLICT = ("JSON-RPC 2.0 (MSG-01) answers unparseable input with error -32700 and \"id\": null, but the "
                    "2024-11-05 schema has no null id (JSONRPCError.id is a string or an integer; MSG-03 forbids "
                    "null ids), so no valid 2024-11-05 message can answer it")
UNPARSEABLE = {
    "a line cut off in the middle of a message": b'{"jsonrpc": "2.0", "id": 1, "method": "ping"',
    "bytes that are not UTF-8": b'\xff\xfe{"x"',
    "a blank line": b"",
}


@server_case(MESSAGES, "MSG-01", "MSG-03", ID["error-id"])
def answers_unparseable_input_with_32700(t: ServerCheck) -> None:
    """Input that is not JSON (a line cut off mid-message, bytes that are not UTF-8) gets error
    -32700 with id null (JSON-RPC's rule when no id can be read), never another code or a result,
    and the server keeps serving. The 2024-11-05 schema has no null id, so the two rules
    conflict: a server that stays silent is warned, not failed (one that answers must answer
    right, with an id member). A blank line may be skipped or answered -32700, but the server
    keeps serving after it. The converse too: a valid message with whitespace around it (spaces,
    a tab, a Windows line end) is valid JSON, and is served, not refused as a parse error."""
    peer = t.rough_session()
    for label, raw in UNPARSEABLE.items():
        probe = peer.probe(raw)
        if not served_after(t, probe, label, peer):
            return
        if probe.refused_by_http:
            t.note(f"{label}: the POST was refused with HTTP {probe.refusal}, which the client sees at once")
            continue
        got = one_answer(t, probe, label)
        if got is None:
            if raw.strip() and t.since("2025-11-25"):  # its error response may leave the id out: writable
                t.check(False, "MSG-01", f"{label} got no answer: JSON-RPC answers it with error -32700, and in "
                        f"2025-11-25, the agreed revision, that error can be written (its id may be left out, "
                        f"{t.rule('error-id')})", probe.sent, silence(probe))
            elif raw.strip():  # a blank line holds no message at all: skipping it is the usual way
                t.check(False, "MSG-01", f"{label} got no answer: {NULL_ID_CONFLICT}; the JSON-RPC answer is still the "
                        "one clients expect", probe.sent, silence(probe), level="SHOULD")
            continue
        msg = shapes.as_dict(got.msg)
        code = shapes.as_dict(msg.get("error")).get("code")
        if not t.check(isinstance(got.msg, dict) and "error" in msg and t.code_in(code, (-32700,), label), "MSG-01",
                       f"{label} got {answer_text(got)}: input that is not JSON is answered with error -32700 "
                       "(Parse error), the first of JSON-RPC's checks", probe.sent, got.raw):
            continue
        judge_error_id(t, probe, got, label, None)
    for label, raw in SPACED.items():
        probe = peer.probe(raw)
        if not served_after(t, probe, label, peer):
            return
        if probe.refused_by_http:  # over HTTP: the transport's own answer
            t.note(f"{label}: the POST was refused with HTTP {probe.refusal}")
            continue
        sent = raw.decode("utf-8").replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t")
        got = one_answer(t, probe, label)
        if got is None:
            t.check(False, "MSG-01", f"{label} got no answer: JSON allows whitespace around a value, so this line is "
                    "valid JSON and a valid request, which gets an answer", sent, silence(probe))
            continue
        t.check(isinstance(got.msg, dict) and "result" in got.msg, "MSG-01", f"{label} got {answer_text(got)}: "
                "JSON allows whitespace around a value, so this line is valid JSON and a valid request, to be served "
                "like any other", sent, got.raw)


# Valid requests with whitespace around them (JSON's "insignificant whitespace").
SPACED = {
    "a ping with spaces before it": b'  {"jsonrpc":"2.0","id":"mcp-ref-check-indented","method":"ping"}',
    "a ping with spaces and a tab after it": b'{"jsonrpc":"2.0","id":"mcp-ref-check-spaced","method":"ping"}  \t',
    "a ping ending in a Windows line end (\\r\\n)": b'{"jsonrpc":"2.0","id":"mcp-ref-check-crlf","method":"ping"}\r\n',
}


# (what is sent, the id the answer may carry besides null, the codes that answer it, why)
NOT_AN_OBJECT = "a JSON-RPC message is one JSON object"
NO_BATCHES = ("2024-11-05 has no batches (its schema's message is one object): an array is one invalid message, "
              "answered with one -32600 error")
BATCHES_OVER_HTTP = ("2024-11-05, the revision of the session, has no batches (its schema's message is one object), "
                     "so an array is one invalid message, answered with one -32600 error; but the Streamable HTTP "
                     "page (2025-03-26) lets a POST body be a batch (SHTTP-11) and answers a body without a request "
                     "202 (SHTTP-12). The two disagree, so this is a warning; mcp_ref refuses a batch in a "
                     "2024-11-05 session (HTTP 400, -32600)")
BATCHES_DROPPED = ("2025-06-18 removed JSON-RPC batches again (DROP-01; the session's revision has none): an array "
                   "is one invalid message, answered with one -32600 error")
EMPTY_BATCH = "an empty array is no batch (JSON-RPC): one invalid message, answered with one -32600 error"
ENVELOPES: dict[str, tuple[Any, Any, tuple[int, ...], str]] = {
    "the number 42": (42, None, (-32600,), NOT_AN_OBJECT),
    'the string "ping"': ("ping", None, (-32600,), NOT_AN_OBJECT),
    "the JSON value null": (None, None, (-32600,), NOT_AN_OBJECT),
    "[] (an empty batch)": ([], None, (-32600,), NO_BATCHES),
    "a batch of one ping": ([{"jsonrpc": "2.0", "id": "mcp-ref-check-batch", "method": "ping"}], None,
                            (-32600,), NO_BATCHES),
    "a message with neither method nor result": ({"jsonrpc": "2.0", "id": "mcp-ref-check-bad"}, "mcp-ref-check-bad",
                                                 (-32600,), "a message is a request, a response or a notification"),
    'a request with "jsonrpc": "1.0"': ({"jsonrpc": "1.0", "id": "mcp-ref-check-v1", "method": "ping"},
                                        "mcp-ref-check-v1", (-32600,), 'every message says "jsonrpc": "2.0"'),
    'a request without "jsonrpc"': ({"id": "mcp-ref-check-v0", "method": "ping"}, "mcp-ref-check-v0", (-32600,),
                                    'every message says "jsonrpc": "2.0"'),
    'a request with "jsonrpc": "2.1"': ({"jsonrpc": "2.1", "id": "mcp-ref-check-v21", "method": "ping"},
                                        "mcp-ref-check-v21", (-32600,),
                                        'every message says "jsonrpc": "2.0", exactly: no other version exists'),
    'a request with "jsonrpc": 2.0, a number': ({"jsonrpc": 2.0, "id": "mcp-ref-check-v2n", "method": "ping"},
                                                "mcp-ref-check-v2n", (-32600,),
                                                'every message says "jsonrpc": "2.0", a string'),
    "a request whose method is a number": ({"jsonrpc": "2.0", "id": "mcp-ref-check-m5", "method": 5},
                                           "mcp-ref-check-m5", (-32600,),
                                           "a method is a string: the envelope is invalid, so -32600, not -32601"),
    "a ping whose params are an array": ({"jsonrpc": "2.0", "id": "mcp-ref-check-pa", "method": "ping", "params": [1]},
                                         "mcp-ref-check-pa", (-32600, -32602),
                                         "MCP's params are an object: -32600 (or -32602), never served"),
    "a ping whose params are a string": ({"jsonrpc": "2.0", "id": "mcp-ref-check-ps", "method": "ping", "params": "x"},
                                         "mcp-ref-check-ps", (-32600, -32602),
                                         "MCP's params are an object: -32600 (or -32602), never served"),
}


@server_case(MESSAGES, "MSG-01", ID["error-id"], ID["batch-receive"], ID["batch-dropped"])
def answers_invalid_envelopes_with_32600(t: ServerCheck) -> None:
    """Valid JSON that is not a valid JSON-RPC 2.0 message gets error -32600 (-32602 is accepted
    for params that are not an object), with the message's id or null, and the server keeps
    serving: a number, a string, null, a batch (2024-11-05 has none; an empty one too), no method
    and no result, "jsonrpc" "1.0", "2.1", the number 2.0 or missing, a method that is not a
    string, params that are an array or a string. Each is sent on its own, and judged on what came
    back for it; an error that drops an id it could read (null instead) is a warning. Silence where
    the message has an id of its own fails (that error is valid 2024-11-05); where it has none (a
    number, a string, null, a batch) the only answer has id null, which the schema lacks: a
    warning. Over Streamable HTTP, whose page allows batches (SHTTP-11), a batch served is only a
    warning."""
    peer = t.rough_session()
    for label, (msg, readable_id, codes, why) in ENVELOPES.items():
        level, req_id = None, "MSG-01"
        if isinstance(msg, list) and msg and t.since("2025-03-26") and not t.since("2025-06-18"):
            if not batch_is_answered(t, peer, label, msg):
                return
            continue
        if isinstance(msg, list) and t.since("2025-06-18"):  # batches were removed again
            why, req_id = BATCHES_DROPPED, t.rule("batch")
        elif isinstance(msg, list) and t.since("2025-03-26"):  # [] is no batch: JSON-RPC's one -32600
            why = EMPTY_BATCH
        elif isinstance(msg, list) and peer.wire.kind == "http":  # the transport's page allows batches
            why, level = BATCHES_OVER_HTTP, "SHOULD"
        probe = peer.probe(encode(msg))
        expect_code(t, probe, label, codes, why, readable_id, level=level, peer=peer, req_id=req_id)
        if not probe.barrier.answered:
            return


def batch_is_answered(t: ServerCheck, peer: Peer, label: str, batch: list[Any]) -> bool:
    """2025-03-26 (BATCH): a batch of requests is answered with a batch (an array) holding one
    response per request, each with its request's id. False if the server stopped serving."""
    probe = peer.probe(encode(batch))
    if not served_after(t, probe, label, peer):
        return False
    req_id = t.rule("batch")
    if probe.refused_by_http:
        t.check(False, req_id, f"{label}: the POST was refused with HTTP {probe.refusal}; in 2025-03-26, the agreed "
                "revision, a receiver must take batches", probe.sent)
        return True
    ids = [m.get("id") for m in batch if isinstance(m, dict)]
    got = probe.answers[0] if probe.answers else None
    if got is None:
        t.check(False, req_id, f"{label} got no answer: in 2025-03-26, the agreed revision, a batch is a valid message "
                "and its requests are answered (in a batch)", probe.sent, silence(probe))
        return True
    answered = [shapes.as_dict(m).get("id") for m in got.msg] if isinstance(got.msg, list) else []
    t.check(isinstance(got.msg, list) and sorted(map(repr, answered)) == sorted(map(repr, ids))
            and all("result" in shapes.as_dict(m) for m in got.msg), req_id,
            f"{label} got {answer_text(got)}: in 2025-03-26, the agreed revision, a batch of requests is answered "
            f"with a batch holding a response for each (ids {', '.join(shapes.json_text(i) for i in ids)})",
            probe.sent, got.raw)
    return True


# (the id, what a result means: None is a finding, else a note)
INVALID_IDS: dict[str, tuple[Any, str | None]] = {
    "true": (True, None),
    "false": (False, None),
    "an object": ({"mcp-ref-check": 1}, None),
    "1.5": (1.5, "JSON-RPC allows a number with a fraction (it discourages it); MCP's ids are strings or integers "
                 "(MSG-02), so mcp_ref refuses it with -32600"),
    "null": (None, "JSON-RPC allows a null id (it discourages it); MCP forbids it (MSG-03), so mcp_ref refuses it "
                   "with -32600"),
}


@server_case(MESSAGES, "MSG-01", "MSG-02", "MSG-03")
def refuses_ids_that_are_not_strings_or_integers(t: ServerCheck) -> None:
    """A ping whose id is true, false or an object is not a JSON-RPC request (an id is a string, a
    number or null): it gets error -32600 with id null, never a result. One whose id is 1.5 or
    null is a request JSON-RPC allows but MCP does not (MSG-02, MSG-03): -32600 is the answer, a
    result is noted. Silence is a warning naming both rules: JSON-RPC's answer would carry id null
    (or this id), and the 2024-11-05 schema has neither, so no valid message can answer it."""
    peer = t.rough_session()
    for label, (rid, served) in INVALID_IDS.items():
        what = f"a ping whose id is {label}"
        probe = peer.probe(encode({"jsonrpc": "2.0", "id": rid, "method": "ping"}))
        if served is not None:
            got = probe.answers[0] if probe.answers else None
            if got is not None and isinstance(got.msg, dict) and "result" in got.msg:
                t.note(f"{what} was served: {served}")
                continue
            if got is not None and isinstance(got.msg, dict) and "error" in got.msg:
                continue  # refused: any error is a fair answer to an id MCP forbids
        expect_code(t, probe, what, (-32600,), "an id is a string or an integer (MSG-02), never a boolean or an "
                    "object, so this is not a valid request: -32600" if served is None else
                    "it is a request (only a message without an id member is a notification), so JSON-RPC answers it",
                    peer=peer)
        if not probe.barrier.answered:
            return


@server_case(MESSAGES, "MSG-01", "MSG-04")
def answers_a_request_that_reuses_an_id_in_flight(t: ServerCheck) -> None:
    """Two pings with the same id, the second sent before the first was answered (the kit breaks
    MSG-04 on purpose), each get an answer: a result, or an error for the second (-32600, as
    mcp_ref does). JSON-RPC answers every request; a server that drops one leaves its sender
    waiting for ever."""
    peer = t.rough_session()
    ping = encode({"jsonrpc": "2.0", "id": "mcp-ref-check-twice", "method": "ping"})
    probe = peer.probe(ping, ping)
    if not served_after(t, probe, "two pings with the same id") or probe.refused_by_http:
        return
    mine = [a for a in probe.answers if isinstance(a.msg, dict) and a.msg.get("id") == "mcp-ref-check-twice"]
    deadline = time.monotonic() + t.timeout  # a server may answer the barrier's ping before the second of these
    while len(mine) < 2 and time.monotonic() < deadline:
        late = peer.collect(min(0.2, deadline - time.monotonic()))
        mine += [a for a in late if isinstance(a.msg, dict) and a.msg.get("id") == "mcp-ref-check-twice"]
    t.check(len(mine) == 2, "MSG-01", f"two pings with the same id, sent back to back, got {len(mine)} answer(s) "
            "with that id: each request gets exactly one answer, even one that reuses an id", probe.sent,
            " | ".join(a.raw for a in probe.answers) or silence(probe))


@server_case(MESSAGES, "MSG-01")
def unknown_method_is_32601(t: ServerCheck) -> None:
    """A request for a method the server does not have gets error -32601 (Method not found)."""
    peer = t.session()
    reply = peer.request("mcp-ref-check/no-such-method", {})
    t.expect_error(reply, "MSG-01", "an unknown method", (-32601,))


NOT_ANSWERED = {
    "an unknown notification": {"jsonrpc": "2.0", "method": "notifications/mcp-ref-check/unknown",
                                "params": {"note": "ignore me"}},
    "a notification whose method has no notifications/ prefix": {"jsonrpc": "2.0", "method": "mcp-ref-check/no-prefix",
                                                                 "params": {}},
    "a response to a request the server never sent": {"jsonrpc": "2.0", "id": "mcp-ref-check-unasked", "result": {}},
}


@server_case(MESSAGES, "MSG-01", "MSG-08", fresh=True)
def notifications_are_not_answered(t: ServerCheck) -> None:
    """Notifications get no response of any kind (not even an error), and neither do responses:
    notifications/initialized, an unknown notification, one whose method lacks the notifications/
    prefix (what makes a notification is that it has no id), and a response to a request the
    server never sent are each followed by a ping, and nothing but the ping's answer may come back. (A
    line on stdout that is not a message is not an answer: the stdio cases judge it.)"""
    peer = t.fresh_session()
    said: list[tuple[str, str, list[Incoming]]] = []
    for number, (label, msg) in enumerate(NOT_ANSWERED.items()):
        probe = peer.probe(encode(msg))
        if number == 0:  # what came before the first probe answers notifications/initialized
            said.append(("notifications/initialized", '{"jsonrpc":"2.0","method":"notifications/initialized"}',
                         probe.earlier))
        said.append((label, probe.sent, probe.answers))
        if not served_after(t, probe, label):
            break
    for label, sent, answers in said:
        t.check(not answers, "MSG-01", f"the server answered {label}: notifications and responses never get an "
                "answer (only requests do; a notification has no id to answer)", sent,
                " | ".join(a.raw for a in answers) or None)
