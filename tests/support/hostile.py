"""A hostile peer for property tests: raw lines to send, what each one must get back, and a
raw end of a connection that checks every byte the session under test writes.

Not a spec section, and not a test file: tests/engine/test_properties.py uses it. Four parts:

1. Strategies (Hypothesis) for raw message bytes. They build JSON *text* themselves, so a line
   can hold what no JSON encoder writes: lone surrogates as ``\\udXXX`` escapes, ``NaN``,
   ``1e400``, integers of 4,300 digits, nesting deeper than any decoder follows, invalid UTF-8,
   UTF-16, batches, truncated envelopes, and params of the wrong type in every field a method
   reads.
2. An oracle: for each line, the answer JSON-RPC requires (which id it carries, which codes are
   acceptable), worked out independently of mcp_ref, in JSON-RPC's order: -32700, -32600,
   -32601, -32602, then what the method itself may answer. A ``Ledger`` keeps the count.
3. ``RawPeer``: our end of the connection, spoken in bytes. A thread reads everything the
   session under test writes and checks each message: strict UTF-8 (no lone surrogates), no
   ``\\udXXX`` escape, strict JSON (no NaN/Infinity), a well-formed 2024-11-05 message. It
   answers the session's own requests, as a real peer would.
4. ``watch_failures``: what mcp_ref logs as a failure, and any thread that dies.
"""

from __future__ import annotations

import collections
import json
import logging
import queue
import re
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import strategies as st

from mcp_ref import messages

from .schema_tap import SchemaTap

BOM = b"\xef\xbb\xbf"
RESULT = "result"  # the outcome of a successful response; errors are their integer code

# --- 1. strategies: raw JSON text --------------------------------------------------------------------

SERVER_METHODS = [  # every request a 2024-11-05 client may send (the ones with most params first)
    "tools/call", "completion/complete", "prompts/get", "resources/read", "resources/subscribe",
    "resources/unsubscribe", "logging/setLevel", "tools/list", "resources/list", "resources/templates/list",
    "prompts/list", "ping", "initialize",
]
CLIENT_METHODS = ["sampling/createMessage", "roots/list", "ping"]  # every request a server may send
NOTIFICATIONS = [
    "notifications/initialized", "notifications/cancelled", "notifications/progress", "notifications/message",
    "notifications/resources/updated", "notifications/resources/list_changed", "notifications/tools/list_changed",
    "notifications/prompts/list_changed", "notifications/roots/list_changed",
]
SPEC_METHODS = SERVER_METHODS + CLIENT_METHODS[:2] + NOTIFICATIONS
TEST_METHODS = ["test/echo", "test/returns", "test/raises"]  # tests/peers/servers.py: echo, non-JSON results, BaseException

LONG_INT = str(10**4299)  # 4,300 digits: the most Python's int parser reads
TOO_LONG_INT = "9" * 4301  # one more: not a number json can read, so -32700
POISON = ["NaN", "Infinity", "-Infinity", TOO_LONG_INT, "'x'", "[1,]", '"\\x"', "\x00"]  # not JSON

ODD_TEXTS = ["\ud800", "\udfff", "a\ud83dz", "\udc00\ud800", "\u2028", "\x00", "é", "\U0001f600", "\\", '"']


def _char(text: str) -> str:
    code = ord(text)
    if text in '"\\':
        return "\\" + text
    if code < 0x20 or 0xD800 <= code <= 0xDFFF:  # control characters and surrogates: escapes only
        return f"\\u{code:04x}"
    return text


def string_literal(text: str) -> str:
    """``text`` as a JSON string literal, lone surrogates as ``\\udXXX`` escapes: valid JSON text
    (and valid UTF-8), but a string with no UTF-8 form once decoded."""
    return '"' + "".join(_char(c) for c in text) + '"'


def often(percent: int) -> st.SearchStrategy[bool]:
    """True ``percent`` times in a hundred. Hypothesis favours simple choices, and the simplest
    draw here is True: the well-formed case, so that broken ones stay the exception."""
    return st.integers(0, 99).map(lambda n: n < percent)


def weighted(*choices: tuple[int, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    """One of ``choices``, each ``(weight, strategy)`` drawn in proportion to its weight (examples
    shrink towards the first)."""
    # (Not one_of with repeated branches: it drops repeats, and flattens nested one_of.)
    total = sum(weight for weight, _ in choices)

    @st.composite
    def pick(draw: st.DrawFn) -> Any:
        n = draw(st.integers(0, total - 1))
        for weight, strategy in choices:
            if n < weight:
                return draw(strategy)
            n -= weight
        raise AssertionError("unreachable")

    return pick()


texts = st.one_of(
    st.text(max_size=12),
    st.sampled_from(ODD_TEXTS),
    st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, exclude_categories=()) | st.characters(),
            min_size=1, max_size=4),
)
json_strings = texts.map(string_literal)

scalars = st.one_of(
    st.sampled_from(["null", "true", "false", "0", "-0", "-1", "1.5", "1e400", "-1e400", "1E+2", "-0.0",
                     LONG_INT, "-" + LONG_INT, str(2**63), str(-(2**63) - 1)]),
    st.integers().map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    json_strings,
)


def array(items: list[str]) -> str:
    return "[" + ",".join(items) + "]"


def obj(members: list[tuple[str, str]]) -> str:
    return "{" + ",".join(f"{key}:{value}" for key, value in members) + "}"


json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3).map(array),
                            st.lists(st.tuples(json_strings, inner), max_size=3).map(obj)),
    max_leaves=8,
)
# Deep, yet within what the decoder reads: what handlers, error messages and encoders then meet.
nested = st.tuples(st.integers(100, 400), scalars).map(lambda t: "[" * t[0] + t[1] + "]" * t[0])
any_value = weighted((7, json_values), (1, nested))
objects = st.lists(st.tuples(json_strings, any_value), max_size=3).map(obj)

# Ids: the ones JSON-RPC allows (a few of them cannot be written back: lone surrogates), and
# every kind it does not.
good_ids = st.one_of(
    st.sampled_from(["0", "-0", "-1", "1", "2", "7", str(2**63), LONG_INT, "-" + LONG_INT, '"x"', '""', '"1"', '"0"',
                     '"\\ud800"', '"a\\udfff"']),
    st.integers().map(str),
    json_strings,
)
bad_ids = st.one_of(st.sampled_from(["1.5", "1.0", "1e400", "true", "false", "null", "[]", "{}", "[1]", '{"id":1}']),
                    json_values)
ids = weighted((4, good_ids), (1, bad_ids))


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def targeted(fields: dict[str, Any]) -> st.SearchStrategy[str]:
    """An object with the members ``fields`` describes, each left out, plausible, or any JSON
    value at all (the wrong type, a surrogate, 1e400, 300 levels deep...); sometimes a stranger.
    A field's spec is a list of plausible values, a dict (a nested object described the same
    way), or a strategy of raw JSON text."""
    def value(spec: Any) -> st.SearchStrategy[str]:
        if isinstance(spec, st.SearchStrategy):
            plausible = spec
        elif isinstance(spec, dict):
            plausible = targeted(spec)
        else:
            plausible = st.sampled_from([_dumps(v) for v in spec])
        return weighted((3, plausible), (1, any_value))

    members = [weighted((3, st.tuples(st.just(_dumps(name)), value(spec))), (1, st.none()))
               for name, spec in fields.items()]
    strangers = st.lists(st.tuples(json_strings, json_values), max_size=1)
    return st.tuples(st.tuples(*members), strangers).map(
        lambda t: obj([m for m in t[0] if m is not None] + t[1]))


def either(whole: list[Any], fields: dict[str, Any]) -> st.SearchStrategy[str]:
    """One of ``whole``, values whose parts fit together (a tool's arguments, a completion's
    ref), or an object built field by field as ``targeted`` does."""
    return weighted((2, st.sampled_from([_dumps(value) for value in whole])), (1, targeted(fields)))


# What each method reads, field by field (see ``targeted``), with the demo server's names in it.
DEMO_TOOLS = ["add", "fail", "show_logo", "increment", "toggle_extra_tool", "log_something", "ask_model",
              "list_client_roots", "extra", "nope"]  # not slow_count: it takes a second by design
URIS = ["demo://readme", "demo://logo.png", "demo://counter", "demo://notes/mcp", "demo://notes/x", "demo://notes/",
        "demo://source/session.py", "demo://source/../../../etc/passwd", "demo://source/%00", "file:///etc/passwd", ""]
CURSOR = {"cursor": ["", "abc", "e30.e30", "W10.0000"]}
MESSAGE = {"role": ["user", "assistant", "system"], "content": {"type": ["text", "image"], "text": ["hi"],
                                                                 "data": ["AA=="], "mimeType": ["image/png"]}}
FIELDS: dict[str, dict[str, Any]] = {
    "initialize": {"protocolVersion": ["2024-11-05", "2099-01-01"], "capabilities": {"roots": [{}], "sampling": [{}]},
                   "clientInfo": {"name": ["x"], "version": ["1"]}},
    "tools/list": CURSOR, "prompts/list": CURSOR, "resources/list": CURSOR, "resources/templates/list": CURSOR,
    "tools/call": {"name": DEMO_TOOLS, "_meta": {"progressToken": [1, "t", 0]}, "arguments": either(
        [{}, {"a": 1, "b": 2}, {"a": -5, "b": 10**30}, {"reason": "r"}, {"message": "m"}, {"question": "q"}],
        {"a": [1, -5], "b": [2], "reason": ["r"], "message": ["m"], "question": ["q"]})},
    "resources/read": {"uri": URIS}, "resources/subscribe": {"uri": URIS}, "resources/unsubscribe": {"uri": URIS},
    "prompts/get": {"name": ["greeting", "review_code", "explain_readme", "nope"], "arguments": either(
        [{}, {"code": "x = 1"}, {"code": "x", "language": "go"}],
        {"code": ["x = 1"], "language": ["go", "klingon"], "other": ["?"]})},
    "logging/setLevel": {"level": ["debug", "info", "emergency", "verbose"]},
    "completion/complete": {
        "ref": either([{"type": "ref/prompt", "name": "review_code"}, {"type": "ref/resource", "uri": "demo://notes/{topic}"},
                       {"type": "ref/resource", "uri": "demo://source/{+path}"}],
                      {"type": ["ref/prompt", "ref/resource", "ref/other"], "name": ["review_code", "greeting", "nope"],
                       "uri": ["demo://notes/{topic}", "demo://source/{+path}", "demo://readme"]}),
        "argument": {"name": ["language", "topic", "path"], "value": ["", "p", "s"]}},
    "sampling/createMessage": {"messages": st.lists(targeted(MESSAGE), max_size=2).map(array),
                               "maxTokens": [1, 100], "systemPrompt": ["s"], "includeContext": ["none", "all"],
                               "temperature": [0.5], "stopSequences": [["x"]], "metadata": [{}],
                               "modelPreferences": {"hints": [[{"name": "m"}]], "costPriority": [0.5, 2]}},
    "notifications/cancelled": {"requestId": [0, 1, 2, "x", "1"], "reason": ["r"]},
    "notifications/progress": {"progressToken": [0, 1, "x"], "progress": [1, 0.5], "total": [2]},
    "notifications/message": {"level": ["info", "nope"], "data": ["d"], "logger": ["l"]},
    "notifications/resources/updated": {"uri": URIS},
    "test/echo": {"s": st.sampled_from(['"x"', "1e400", "-1e400", '"\\ud800"', '{"a":[1e400]}'])},  # echoed back
    "test/returns": {"kind": ["nan", "inf", "-inf", "nan", "inf", "object", "bytes", "deep", "none"]},
    "test/raises": {"kind": ["SystemExit", "KeyboardInterrupt", "GeneratorExit", "Stop", "none"]},
}
OWN_PARAMS = {method: targeted(fields) for method, fields in FIELDS.items()}


def _params(own: st.SearchStrategy[str]) -> st.SearchStrategy[str | None]:
    """Mostly the method's own fields (often wrong); else no params, any object, or not an object."""
    return weighted((12, own), (1, st.none()), (1, objects), (1, any_value))


PARAMS = {method: _params(own) for method, own in OWN_PARAMS.items()}
OTHER_PARAMS = _params(objects)
ERRORS = weighted((3, targeted({"code": [-32600, -32601, -1, 0], "message": ["m"], "data": [None, {}]})), (1, any_value))


@st.composite
def envelopes(draw: st.DrawFn, methods: list[str]) -> str:
    """One JSON object, shaped like a request, notification or response, broken or not."""
    shape = draw(st.sampled_from(["request"] * 6 + ["notification"] * 2 + ["response", "other"]))
    members: list[tuple[str, str]] = []
    if draw(often(93)):
        members.append(('"jsonrpc"', '"2.0"'))
    elif draw(st.booleans()):  # or no "jsonrpc" at all
        members.append(('"jsonrpc"', draw(st.sampled_from(['"1.0"', "2.0", '"2"', "null"]))))
    if shape != "notification" and draw(often(95)):
        members.append(('"id"', draw(ids)))
    if shape in ("request", "notification"):
        name = draw(weighted((8, st.sampled_from(methods)), (1, texts), (1, st.none())))
        members.append(('"method"', string_literal(name) if name is not None else draw(json_values)))
        params = draw(PARAMS.get(name or "", OTHER_PARAMS))
        if params is not None:
            members.append(('"params"', params))
    elif shape == "response":
        which = draw(st.sampled_from(["result", "error", "both", "neither"]))
        if which in ("result", "both"):
            members.append(('"result"', draw(st.one_of(objects, any_value))))
        if which in ("error", "both"):
            members.append(('"error"', draw(ERRORS)))
    members += draw(st.lists(st.tuples(json_strings, json_values), max_size=1))  # unknown members are fine
    return obj(draw(st.permutations(members)))


@st.composite
def requests(draw: st.DrawFn, methods: list[str]) -> str:
    """A well-formed request envelope (an id JSON-RPC allows, a method of ``methods``) whose params
    are the method's own fields: right, missing, or of any type. This is where handlers are met."""
    method = draw(st.sampled_from(methods))
    params = draw(OWN_PARAMS.get(method, objects))
    return obj([('"jsonrpc"', '"2.0"'), ('"id"', draw(good_ids)), ('"method"', _dumps(method)), ('"params"', params)])


def utf8(text: str) -> bytes:
    return text.encode("utf-8")


def deep(depth: int, form: str) -> bytes:
    """Nesting far deeper than any JSON decoder follows (valid JSON, or not even closed)."""
    if form == "arrays":
        return b"[" * depth + b"]" * depth
    if form == "objects":
        return b'{"a":' * depth + b"1" + b"}" * depth
    if form == "open":
        return b"[" * depth
    return b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":' + b"[" * depth + b"]" * depth + b"}}"


def lines(methods: list[str], served: list[str]) -> st.SearchStrategy[bytes]:
    """One raw message (without its newline) as a hostile peer might send it: well-formed requests
    for the ``served`` methods with params of every shape, envelopes of every shape for
    ``methods``, and garbage."""
    envelope = envelopes(methods)
    garbage = st.one_of(
        st.lists(envelope, max_size=3).map(array).map(utf8),  # a batch: 2024-11-05 has none
        any_value.map(utf8),  # any JSON value, an object or not
        st.tuples(envelope, st.sampled_from(POISON)).map(  # one token that is not JSON
            lambda t: utf8(t[0][:-1] + ("," if len(t[0]) > 2 else "") + '"p":' + t[1] + "}")),
        st.tuples(envelope, st.integers(0, 200)).map(lambda t: utf8(t[0][: t[1]])),  # cut short
        envelope.map(lambda t: t.encode("utf-16")),  # JSON, but not UTF-8
        st.tuples(envelope, st.sampled_from(["\ud800", "\udfff", "a\ud83dz"])).map(  # a lone surrogate's bytes:
            lambda t: utf8(t[0][:-1]) + b',"s":"' + t[1].encode("utf-8", "surrogatepass") + b'"}'),  # not UTF-8
        envelope.map(lambda t: BOM + utf8(t) + b"\r"),  # a BOM and a CR, which stdio tolerates
        st.binary(max_size=24),
        st.tuples(st.sampled_from([60_000]), st.sampled_from(["arrays", "objects", "open", "params"])).map(
            lambda t: deep(*t)),
    )
    return weighted((3, requests(served).map(utf8)), (3, envelope.map(utf8)), (1, garbage))


ANY_LINE = lines(SPEC_METHODS, CLIENT_METHODS)


# --- 2. the oracle ------------------------------------------------------------------------------------

Key = tuple[str, Any]  # ("null", None), ("int", 5) or ("str", "x"): 1 and "1" are different ids
NULL: Key = ("null", None)


def _refuse(token: str) -> Any:
    raise ValueError(f"{token} is not JSON")


def strict_parse(data: bytes) -> tuple[bool, Any]:
    """(True, value) if ``data`` is one JSON text in UTF-8 (one leading BOM tolerated); NaN,
    Infinity, invalid UTF-8, numbers Python cannot read and nesting it cannot follow are not."""
    if data.startswith(BOM):
        data = data[len(BOM):]
    try:
        return True, json.loads(data.decode("utf-8"), parse_constant=_refuse)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False, None


def is_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def encodable(value: Any) -> bool:
    """Whether ``value`` can be written back as strict JSON in UTF-8."""
    try:
        json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")
        return True
    except (ValueError, TypeError, RecursionError):  # NaN/inf, a lone surrogate (UnicodeEncodeError)
        return False


def answer_key(request_id: Any) -> Key:
    """Where the answer goes: the id, or null when it cannot be read or cannot be written back."""
    if not is_id(request_id) or not encodable(request_id):
        return NULL
    return ("str" if isinstance(request_id, str) else "int", request_id)


def stdio_messages(chunk: bytes) -> list[bytes]:
    """What a stdio reader makes of ``chunk``: lines split on LF only, one trailing CR and one
    leading BOM removed, blank lines skipped (see stdio.NewlineFramer)."""
    out = []
    for line in chunk.split(b"\n")[:-1]:
        line = line[:-1] if line.endswith(b"\r") else line
        line = line[len(BOM):] if line.startswith(BOM) else line
        if line.strip():
            out.append(line)
    return out


class Model:
    """What the session under test may answer to each method it knows, for params that are an
    object or absent; methods it does not know are -32601, and array params -32602."""

    def __init__(self, methods: dict[str, set[str | int]]):
        self.methods = methods

    def outcomes(self, method: str, params: Any) -> set[str | int]:
        if method not in self.methods:
            return {messages.METHOD_NOT_FOUND}  # before anything about params (JSON-RPC order)
        if isinstance(params, list):
            return {messages.INVALID_PARAMS}  # MCP params are always an object
        return set(self.methods[method])


def classify(data: bytes, model: Model) -> tuple[Key, set[str | int]] | None:
    """The one answer ``data`` must get, as (answer key, acceptable outcomes); None: no answer."""
    ok, msg = strict_parse(data)
    if not ok:
        return NULL, {messages.PARSE_ERROR}
    if not isinstance(msg, dict):
        return NULL, {messages.INVALID_REQUEST}  # a bare value, or a batch
    key = answer_key(msg.get("id"))
    if "method" not in msg and ("result" in msg or "error" in msg):
        return None  # response-shaped: never answered, however malformed
    if msg.get("jsonrpc") != "2.0" or "method" not in msg:
        return key, {messages.INVALID_REQUEST}
    params = msg.get("params")
    if not isinstance(msg["method"], str) or (params is not None and not isinstance(params, (dict, list))):
        return key, {messages.INVALID_REQUEST}
    if "id" not in msg:
        return None  # a notification
    if not is_id(msg["id"]):
        return NULL, {messages.INVALID_REQUEST}
    outcomes = model.outcomes(msg["method"], params)
    if key == NULL:  # a string id with no UTF-8 form: answered with id null, a result as -32603
        outcomes = {messages.INTERNAL_ERROR if o == RESULT else o for o in outcomes}
    elif RESULT in outcomes and not encodable(msg):  # a result may echo what cannot be written back
        outcomes.add(messages.INTERNAL_ERROR)
    return key, outcomes


def cancelled_id(data: bytes) -> Any:
    """The request id a well-formed ``notifications/cancelled`` names, else None."""
    ok, msg = strict_parse(data)
    if ok and isinstance(msg, dict) and msg.get("jsonrpc") == "2.0" and msg.get("method") == "notifications/cancelled" \
            and "id" not in msg and isinstance(msg.get("params"), dict) and is_id(msg["params"].get("requestId")):
        return msg["params"]["requestId"]
    return None


def request_id(data: bytes) -> Any:
    ok, msg = strict_parse(data)
    return msg.get("id") if ok and isinstance(msg, dict) and "method" in msg and is_id(msg.get("id")) else None


class Ledger:
    """Answers owed by the session under test, per answer key, over the life of one session.

    A request owes exactly one answer; one that a later ``notifications/cancelled`` names owes
    at most one (CAN-06: the answer may already be on its way). Answers are checked as they come
    (never more than owed, each with an outcome acceptable for its key) and at the end, where
    several lines share a key (id null, a reused id), each answer must match a line of its own.
    """

    def __init__(self, model: Model):
        self.model = model
        self.required: collections.Counter[Key] = collections.Counter()
        self.optional: collections.Counter[Key] = collections.Counter()
        self.answered: collections.Counter[Key] = collections.Counter()
        self.allowed: dict[Key, set[str | int]] = collections.defaultdict(set)  # any line's outcomes
        self.lines: dict[Key, list[set[str | int]]] = collections.defaultdict(list)  # each line's
        self.outcomes: dict[Key, list[str | int]] = collections.defaultdict(list)
        self.problems: list[str] = []

    def owe(self, lines: list[bytes]) -> None:
        """Record what ``lines`` (as the session will read them, in order) are owed."""
        owed: list[tuple[Any, Key]] = []  # (raw id, key) of requests, for cancellations to find
        for data in lines:
            cancelled = cancelled_id(data)
            if cancelled is not None:
                for raw, key in owed:
                    if type(raw) is type(cancelled) and raw == cancelled and self.required[key]:
                        self.required[key] -= 1
                        self.optional[key] += 1
                owed = [(raw, key) for raw, key in owed if not (type(raw) is type(cancelled) and raw == cancelled)]
            expected = classify(data, self.model)
            if expected is None:
                continue
            key, outcomes = expected
            raw = request_id(data)
            if raw is not None and self.answered[key] < self.required[key] + self.optional[key]:
                outcomes.add(messages.INVALID_REQUEST)  # MSG-04: that id may still be in flight
            self.required[key] += 1
            self.allowed[key] |= outcomes
            self.lines[key].append(outcomes)
            if raw is not None:
                owed.append((raw, key))

    def record(self, answer: dict[str, Any]) -> None:
        key = answer_key(answer["id"]) if answer["id"] is not None else NULL
        outcome = RESULT if "result" in answer else answer["error"]["code"]
        self.answered[key] += 1
        self.outcomes[key].append(outcome)
        if self.answered[key] > self.required[key] + self.optional[key]:
            self.problems.append(f"an answer nothing asked for, or a second one: {answer!r}"[:500])
        elif outcome not in self.allowed[key]:
            self.problems.append(f"outcome {outcome} for id {key[1]!r}, expected one of {self.allowed[key]}: "
                                 f"{answer!r}"[:500])

    def missing(self) -> list[Key]:
        return [key for key, count in self.required.items() if self.answered[key] < count]

    def unmatched(self) -> list[str]:
        """Keys whose answers cannot each be paired with a line of their own that allows it."""
        return [f"answers {self.outcomes[key]} for id {key[1]!r} do not fit the lines, which allow {self.lines[key]}"
                for key in self.outcomes if not _pairs(self.outcomes[key], self.lines[key])]

    def carry(self) -> Ledger:
        """A ledger for the next example on the same session: answers still owed from this one
        may come late, but are no longer required (a failed example does not fail the next)."""
        after = Ledger(self.model)
        for key in set(self.required) | set(self.optional):
            left = self.required[key] + self.optional[key] - self.answered[key]
            if left > 0:
                after.optional[key] = left
                after.allowed[key] = set(self.allowed[key])
                after.lines[key] = [set(self.allowed[key])] * left
        return after


def _pairs(outcomes: list[str | int], lines: list[set[str | int]]) -> bool:
    """Whether each outcome can take a line of its own that allows it (a bipartite matching,
    found by augmenting paths)."""
    taken: dict[int, int] = {}  # line -> outcome

    def place(outcome: int, seen: set[int]) -> bool:
        for line, allowed in enumerate(lines):
            if outcomes[outcome] in allowed and line not in seen:
                seen.add(line)
                if line not in taken or place(taken[line], seen):
                    taken[line] = outcome
                    return True
        return False

    return all(place(outcome, set()) for outcome in range(len(outcomes)))


@st.composite
def answers_to(draw: st.DrawFn, pending: int) -> bytes:
    """A line for a peer that has a request with id ``pending`` in flight: mostly response-shaped
    with that id (right, malformed, both result and error, wrong version), sometimes another id, a
    request that reuses the id, or any hostile line."""
    members: list[tuple[str, str]] = []
    if draw(often(80)):
        members.append(('"jsonrpc"', '"2.0"'))
    elif draw(st.booleans()):
        members.append(('"jsonrpc"', draw(st.sampled_from(['"1.0"', "2.0", "null"]))))
    if draw(often(90)):
        mine = st.sampled_from([str(pending)] * 6 + [f'"{pending}"', str(pending + 1), f"{pending}.0", "true"])
        members.append(('"id"', draw(st.one_of(mine, mine, mine, ids))))
    which = draw(st.sampled_from(["result", "result", "error", "error", "both", "neither"]))
    if which in ("result", "both"):
        members.append(('"result"', draw(st.one_of(objects, objects, any_value))))
    if which in ("error", "both"):
        members.append(('"error"', draw(ERRORS)))
    if not draw(often(90)):
        members.append(('"method"', draw(json_strings)))  # a request after all
    members += draw(st.lists(st.tuples(json_strings, json_values), max_size=1))
    text = obj(draw(st.permutations(members)))
    return draw(weighted((3, st.just(utf8(text))), (1, ANY_LINE)))


def settles(data: bytes, pending: int) -> tuple[bool, dict[str, Any] | None]:
    """Whether ``data`` settles the request ``pending``: it is a response (no method; a result
    or an error) with exactly that id. The result it must yield, or None for an McpError."""
    ok, msg = strict_parse(data)
    if not ok or not isinstance(msg, dict) or "method" in msg or ("result" not in msg and "error" not in msg):
        return False, None
    if type(msg.get("id")) is not int or msg["id"] != pending:
        return False, None
    if msg.get("jsonrpc") == "2.0" and "error" not in msg and isinstance(msg["result"], dict):
        return True, msg["result"]
    return True, None


# --- 3. the raw end of a connection ----------------------------------------------------------------------

SURROGATE_ESCAPE = re.compile(rb"(?<!\\)(?:\\\\)*\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def inspect_written(data: bytes) -> tuple[Any, list[str]]:
    """Parse one message the session under test wrote, as the strictest peer would; list what
    is wrong with it."""
    try:
        text = data.decode("utf-8")  # strict: a lone surrogate has no UTF-8 form
    except UnicodeDecodeError as exc:
        return None, [f"not UTF-8 ({exc}): {data[:200]!r}"]
    if SURROGATE_ESCAPE.search(data):
        return None, [f"a surrogate written as an escape: {data[:200]!r}"]
    if "\n" in text:
        return None, [f"a raw newline inside a message: {data[:200]!r}"]
    try:
        msg = json.loads(text, parse_constant=_refuse)
    except ValueError as exc:
        return None, [f"not strict JSON ({exc}): {data[:200]!r}"]
    problem = shape_problem(msg)
    return msg, [f"{problem}: {data[:200]!r}"] if problem else []


def shape_problem(msg: Any) -> str | None:
    """What makes ``msg`` other than a 2024-11-05 request, notification or response; else None.
    (id null is allowed on an error: JSON-RPC's answer to a message whose id is unreadable.)"""
    if not isinstance(msg, dict):
        return "not an object"
    if msg.get("jsonrpc") != "2.0":
        return 'no "jsonrpc": "2.0"'
    if "method" in msg:
        if not isinstance(msg["method"], str):
            return "a method that is not a string"
        if "params" in msg and not isinstance(msg["params"], dict):
            return "params that are not an object"
        if "result" in msg or "error" in msg:
            return "a request that is also a response"
        if "id" in msg and not is_id(msg["id"]):
            return "a request id that is not a string or an integer"
        return None
    if ("result" in msg) == ("error" in msg):
        return "a response with both or neither of result and error"
    if "result" in msg:
        return None if is_id(msg.get("id")) and isinstance(msg["result"], dict) else "a bad result response"
    error = msg["error"]
    if not (isinstance(error, dict) and is_id(error.get("code")) and not isinstance(error["code"], str)
            and isinstance(error.get("message"), str)):
        return "a malformed error object"
    return None if msg.get("id") is None or is_id(msg.get("id")) else "an error response with a bad id"


class RawPeer:
    """Our end of a connection to a session under test, spoken in raw bytes.

    A reader thread inspects every message the session writes (``inspect_written``), checks it
    against the 2024-11-05 schema where that file is present, and answers the session's own
    requests from ``answers`` (method -> result; other methods get -32601), except methods in
    ``held``, which go to the test with the rest. Everything it finds wrong is in ``problems``.
    Subclasses provide ``_read`` (one message, None at the end) and ``_write``.
    """

    def __init__(self, side: str, answers: dict[str, dict[str, Any]], held: frozenset[str] = frozenset()):
        self.side = side  # "server" or "client": the side under test
        self.answers = answers
        self.held = held
        self.problems: list[str] = []
        self.written: list[bytes] = []
        self.inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.tap = SchemaTap(self.side)
        self._reader = threading.Thread(target=self._run, name="hostile-peer-reader", daemon=True)

    def start(self) -> RawPeer:
        self._reader.start()
        return self

    def _read(self) -> bytes | None:
        raise NotImplementedError

    def _write(self, data: bytes) -> None:
        raise NotImplementedError

    def send(self, *messages: bytes) -> None:
        for data in messages:
            self._write(data)

    def send_json(self, msg: dict[str, Any]) -> None:
        self.send(json.dumps(msg, separators=(",", ":")).encode())

    def _run(self) -> None:
        while True:
            try:
                data = self._read()
            except Exception as exc:  # a test failure, not a hang: say it
                self.problems.append(f"reading failed: {exc!r}")
                data = None
            if data is None:
                self.inbox.put(None)
                return
            self.written.append(data)
            msg, problems = inspect_written(data)
            if problems:
                self.problems += problems
                self.inbox.put({})  # wakes the test up: it fails at once instead of waiting
                continue
            self.tap("->", data)
            if "method" in msg and "id" in msg and msg["method"] not in self.held:
                result = self.answers.get(msg["method"])
                try:
                    self.send_json({"jsonrpc": "2.0", "id": msg["id"], "result": result} if result is not None else
                                   {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no"}})
                except OSError:
                    pass  # the session under test closed meanwhile
            else:
                self.inbox.put(msg)

    def take(self, timeout: float) -> dict[str, Any] | None:
        """The next message for the test (None at the end of the stream or after ``timeout``)."""
        try:
            return self.inbox.get(timeout=max(timeout, 0))
        except queue.Empty:
            return None

    def schema_violations(self) -> list[str]:
        """Schema violations by the session under test (ours are deliberate)."""
        return [v for v in self.tap.violations if v.startswith(f"{self.side} sent")]

    def exchange(self, ledger: Ledger, lines: list[bytes], probes: list[dict[str, Any]], *, stream: bool,
                 timeout: float = 10.0) -> dict[Any, dict[str, Any]]:
        """Send ``lines`` and then ``probes`` (well-formed requests with ids of their own); wait
        until every answer owed has come; return the probes' answers by id."""
        ledger.owe(stdio_messages(b"".join(line + b"\n" for line in lines)) if stream else lines)
        if stream:
            self.send(b"\n".join(lines))  # one write: the reader splits it back into lines
        else:
            self.send(*lines)
        for probe in probes:
            self.tap("<-", json.dumps(probe).encode())
            self.send_json(probe)
        probe_ids = {probe["id"] for probe in probes}
        replies: dict[Any, dict[str, Any]] = {}
        deadline = time.monotonic() + timeout
        while len(replies) < len(probe_ids) or ledger.missing():
            msg = self.take(deadline - time.monotonic())
            if msg is None or self.problems:
                break
            if not msg or "method" in msg:
                continue  # a notification, or a request held for the test: checked already
            if msg.get("id") in probe_ids and isinstance(msg.get("id"), str):
                replies[msg["id"]] = msg
            else:
                ledger.record(msg)
        return replies


class MemoryPeer(RawPeer):
    """The raw end of ``MemoryTransport.pair()``: each message whole, no framing."""

    def __init__(self, end: Any, side: str, answers: dict[str, dict[str, Any]], held: frozenset[str] = frozenset()):
        super().__init__(side, answers, held)
        self._end = end
        self.start()

    def _read(self) -> bytes | None:
        data: bytes | None = self._end.receive()
        return data

    def _write(self, data: bytes) -> None:
        self._end.send(data, 5.0)

    def close(self) -> None:
        self._end.close()


class StreamPeer(RawPeer):
    """A raw end over a byte stream: newline-framed lines both ways."""

    def __init__(self, reader: Any, writer: Callable[[bytes], None], side: str, answers: dict[str, dict[str, Any]],
                 held: frozenset[str] = frozenset()):
        super().__init__(side, answers, held)
        self._reader_file = reader
        self._writer = writer
        self._write_lock = threading.Lock()
        self.start()

    def _read(self) -> bytes | None:
        line: bytes = self._reader_file.readline()
        if not line:
            return None
        if not line.endswith(b"\n"):
            self.problems.append(f"a message not ended by a newline: {line[:200]!r}")
        return line[:-1] if line.endswith(b"\n") else line

    def _write(self, data: bytes) -> None:
        with self._write_lock:
            self._writer(data + b"\n")


class StdioServerPeer(StreamPeer):
    """A server subprocess (``mcp-ref serve TARGET``) spoken to in raw lines; its stderr is kept."""

    def __init__(self, command: list[str], cwd: Any, answers: dict[str, dict[str, Any]]):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     cwd=cwd)
        assert self.proc.stdin is not None and self.proc.stderr is not None
        stdin = self.proc.stdin
        self.stderr: list[str] = []
        self._stderr = threading.Thread(target=self._drain, args=(self.proc.stderr,), daemon=True)
        self._stderr.start()

        def write(data: bytes) -> None:
            stdin.write(data)
            stdin.flush()

        super().__init__(self.proc.stdout, write, "server", answers)

    def _drain(self, stream: Any) -> None:
        for line in stream:
            self.stderr.append(line.decode("utf-8", "replace").rstrip("\n"))

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=10)
        self._reader.join(5)
        self._stderr.join(5)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()
        return code


class SocketPeer(StreamPeer):
    """A raw end over a TCP connection (to a relay subprocess whose stdin/stdout a Client uses)."""

    def __init__(self, sock: socket.socket, answers: dict[str, dict[str, Any]], held: frozenset[str] = frozenset()):
        self.sock = sock
        super().__init__(sock.makefile("rb"), sock.sendall, "client", answers, held)

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


# --- 4. no thread dies, nothing is logged as a failure --------------------------------------------------


class Failures(logging.Handler):
    """Records mcp_ref's log records at ERROR and above (``log.exception`` among them), except
    those about a test server's own ``test/...`` handlers, which fail on purpose; and every
    exception that ends a thread."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if not message.startswith("handler for test/"):
            self.records.append(f"{record.name}: {message}" + (f" ({record.exc_info[1]!r})" if record.exc_info else ""))


@contextmanager
def watch_failures() -> Iterator[Failures]:
    failures = Failures()
    logger = logging.getLogger("mcp_ref")
    previous_hook = threading.excepthook

    def hook(args: Any) -> None:
        failures.records.append(f"thread {args.thread.name if args.thread else '?'} died: {args.exc_value!r}")
        previous_hook(args)

    logger.addHandler(failures)
    threading.excepthook = hook
    try:
        yield failures
    finally:
        threading.excepthook = previous_hook
        logger.removeHandler(failures)
