"""Server cases for the messages that judge the whole run: every message the server sent, on every
connection the kit opened (``audit=True``: they run last).

Not a spec section: cases of the conformance checker (see __init__.py; server_messages.py holds
the page's other cases). The spec page they check:
https://modelcontextprotocol.io/specification/2024-11-05/basic/messages

What they ask of the whole run, in short: every message is a JSON-RPC 2.0 object; every response
sets exactly one of result and error, and every error has an integer code and a short message;
every response answers a request the kit sent, once; the server's own requests have valid ids,
never reused, and its notifications none. A mistake seen here (a string error code) is judged
here once, and the cases that met it only note it (``ServerCheck.code_in``).
"""

from __future__ import annotations

import json
from typing import Any

from . import shapes
from .model import server_case
from .peer import Peer
from .server_check import ServerCheck, code_words
from .wire import shown

MESSAGES = "basic/messages"


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
        if not isinstance(error, dict):
            t.fail("MSG-07", f"an error is {shapes.json_text(error)}, not an object with a code and a message",
                   got=shown(raw), rule=ERROR_RULE)
        if not shapes.is_int(error.get("code")):
            code = f"is {code_words(error['code'])}" if "code" in error else "is missing"
            t.fail("MSG-07", f"an error's code {code}, not an integer", got=shown(raw))
        message = error.get("message")
        if not isinstance(message, str):
            t.fail("MSG-07", "an error has " + (f"message {shapes.json_text(message)}, not a string" if "message" in error
                                                 else "no message"), got=shown(raw), rule=ERROR_RULE)
        if "\n" in message or len(message) > 300:
            t.check(False, "MSG-09", f"an error message is not one short sentence ({len(message)} characters)",
                    got=shown(raw))
            return


ERROR_RULE = ("An error object holds an integer code (MSG-07) and a string message, a short sentence (JSON-RPC 2.0, "
              "whose rules MSG-01 makes MCP's)")


def _key(request_id: Any) -> str:
    """An id as a key that keeps its JSON type: "1", 1, 1.0 and true are four different ids."""
    return json.dumps(request_id, sort_keys=True)


@server_case(MESSAGES, "MSG-05", "MSG-01", audit=True)
def each_request_gets_exactly_one_response(t: ServerCheck) -> None:
    """Every response of the run answers a request the kit sent on that connection (or a message
    it could not read, with id null), and no request is answered more often than it was sent
    (the kit sends one id twice on purpose, once)."""
    for wire in t.run.wires:
        sent: dict[str, int] = {}
        answered: dict[str, int] = {}
        for entry in wire.sent_and_received():
            msg = entry.msg
            if entry.direction == "sent":  # requests, and the kit's deliberately bad messages (a batch too)
                for item in (msg if isinstance(msg, list) else [msg]):
                    if isinstance(item, dict) and "id" in item:
                        sent[_key(item["id"])] = sent.get(_key(item["id"]), 0) + 1
            elif entry.direction == "got" and isinstance(msg, dict) and "method" not in msg and (
                    "result" in msg or "error" in msg):
                rid = msg.get("id")
                if rid is None:
                    continue  # a parse error or an invalid message of ours
                key = _key(rid)
                if key not in sent:
                    t.fail("MSG-05", f"a response carries id {shapes.json_text(rid)}, which the kit never sent",
                           got=shown(entry.data))
                answered[key] = answered.get(key, 0) + 1
                if answered[key] > sent[key]:
                    t.fail("MSG-01", f"request {shapes.json_text(rid)} was answered twice", got=shown(entry.data))


@server_case(MESSAGES, "MSG-08", "MSG-02", "MSG-03", "MSG-04", audit=True)
def server_ids_are_valid(t: ServerCheck) -> None:
    """Requests the server sent have string or integer ids, never null, never reused on one
    connection; its notifications (notifications/...) carry no id."""
    for peer in t.run.peers:
        _judge_server_ids(t, peer)


def _judge_server_ids(t: ServerCheck, peer: Peer) -> None:
    seen: list[Any] = []
    for request in peer.server_requests:
        rid = request.get("id")
        method = str(request.get("method"))
        if method.startswith("notifications/"):
            t.fail("MSG-08", f"the notification {method} carries an id", got=shown(shapes.json_text(request)))
        if rid is None:
            t.fail("MSG-03", f"the request {method} has id null", got=shown(shapes.json_text(request)))
        if not (isinstance(rid, str) or shapes.is_int(rid)):
            t.fail("MSG-02", f"the request {method} has id {shapes.json_text(rid)}, not a string or integer",
                   got=shown(shapes.json_text(request)))
        if any(type(rid) is type(s) and rid == s for s in seen):
            t.fail("MSG-04", f"the server reused request id {shapes.json_text(rid)}", got=shown(shapes.json_text(request)))
        seen.append(rid)
