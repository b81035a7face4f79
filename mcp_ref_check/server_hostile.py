"""Hostile server cases for the messages (``mcp-ref check server --hostile``): broken, deep, strange
and many messages, offered to every implementation and judged per requirement.

Not a spec section: cases of the conformance checker (see __init__.py), run only with
``--hostile``. The spec pages they check (each case names its own):
  https://modelcontextprotocol.io/specification/2024-11-05/basic/messages
  https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/ping

The spec says what a server must answer and how, not how much abuse it must take; these cases
apply its rules under abuse, and what each checks afterwards is listed in hostile_helpers.py.

The cases are opt-in, run after every other case (they may kill a server), each on connections
of its own, and bounded in size and time (hostile_helpers.py; the transport's own abuse, a
40 MiB line and a stalled reader, is in server_hostile_transports.py).
"""

from __future__ import annotations

import json
from typing import Any

from . import shapes
from .hostile_helpers import answers_by_id, drain, drain_until, hostile_session, keeps_serving, only_valid_json, send_lines
from .model import server_case
from .peer import waited
from .server_check import ServerCheck
from .sse_wire import SseWire
from .wire import shown

MESSAGES = "basic/messages"
DEPTH = 100_000  # nesting of the deep message
BURST = 500  # pings sent at once


# --- basic/messages -------------------------------------------------------------------------------

MALFORMED = [
    b'{"jsonrpc": "2.0", "id": "mcp-ref-check-cut", "method": "pi',  # cut in the middle
    b"\x00\x01\x02 binary \xff\xfe",
    b"[]", b"[1, 2, 3]", b"null", b"42", b'"a string"', b"{}", b'{"jsonrpc": "2.0"}',
    b'{"jsonrpc": "2.0", "id": {"an": "object"}, "method": "ping"}',
    b'{"jsonrpc": "2.0", "id": "mcp-ref-check-m5", "method": 5}',
    b'{"jsonrpc": "2.0", "id": "mcp-ref-check-p", "method": "ping", "params": "not an object"}',
    b'{"jsonrpc": "2.0", "id": 1e999, "method": "ping"}',
    b'{"jsonrpc": "2.0", "method": "notifications/initialized", "params": [1]}',
    b"{" * 64,
    b'{"jsonrpc": "2.0", "id": "mcp-ref-check-dup", "id": "again", "method": "ping"}',
    b"\xef\xbb\xbf" + b'{"jsonrpc": "2.0", "id": "mcp-ref-check-bom", "method": "ping"}',
]


@server_case(MESSAGES, "PING-01", "MSG-01", fresh=True, hostile=True)
def survives_malformed_and_truncated_lines(t: ServerCheck) -> None:
    """With --hostile: after a volley of broken input (a line cut mid-message, binary bytes,
    JSON that is not an object, a batch, a wrong-typed id or method or params, an id too big for
    any number, 64 opening braces, a duplicated key, a byte-order mark), everything the server
    wrote is valid JSON-RPC and it still answers ping."""
    peer = hostile_session(t)
    start = len(peer.wire.sent_and_received())
    if not send_lines(t, peer, MALFORMED, "a volley of malformed lines"):
        t.fail("PING-01", "the server stopped reading its input during a volley of malformed lines")
    drain(peer, min(0.5, t.timeout))
    keeps_serving(t, peer, "malformed and truncated lines")
    only_valid_json(t, peer, "malformed and truncated lines", start)


@server_case(MESSAGES, "PING-01", "MSG-01", fresh=True, hostile=True)
def survives_json_nested_100000_deep(t: ServerCheck) -> None:
    """With --hostile: a ping whose params nest arrays 100,000 deep (valid JSON that breaks
    recursive parsers) gets one answer or is refused, never a crash: the server then still
    answers ping, and wrote nothing that is not valid JSON-RPC."""
    peer = hostile_session(t)
    start = len(peer.wire.sent_and_received())
    deep = (b'{"jsonrpc":"2.0","id":"mcp-ref-check-deep","method":"ping","params":{"deep":'
            + b"[" * DEPTH + b"]" * DEPTH + b"}}")
    if not send_lines(t, peer, [deep], f"JSON nested {DEPTH} deep"):
        t.fail("PING-01", f"the server stopped reading its input on JSON nested {DEPTH} deep")
    got = answers_by_id(drain_until(peer, 1, t.timeout))
    if repr("mcp-ref-check-deep") not in got and repr(None) not in got:
        t.note("the deep message got no answer (a refusal over HTTP, or silence)")
    keeps_serving(t, peer, f"JSON nested {DEPTH} deep")
    only_valid_json(t, peer, f"JSON nested {DEPTH} deep", start)


@server_case(MESSAGES, "PING-01", "MSG-01", "MSG-05", fresh=True, hostile=True)
def survives_lone_surrogates(t: ServerCheck) -> None:
    """With --hostile: strings holding lone UTF-16 surrogates (\\ud800, \\udfff: valid JSON escapes
    that no UTF-8 text can hold) as a request id, a tool name and a resource URI. Each request is
    answered once, with its id as sent (MSG-05; for the id no UTF-8 text can hold, id null is
    accepted too), and nothing the server writes is invalid JSON or invalid UTF-8 (a server that
    echoes a surrogate raw writes bytes no client can decode)."""
    peer = hostile_session(t)
    start = len(peer.wire.sent_and_received())
    lines = [b'{"jsonrpc":"2.0","id":"mcp-ref-check-\\ud800","method":"ping"}',
             b'{"jsonrpc":"2.0","id":"mcp-ref-check-s2","method":"tools/call","params":{"name":"x\\udfffy","arguments":{}}}',
             b'{"jsonrpc":"2.0","id":"mcp-ref-check-s3","method":"resources/read","params":{"uri":"file:///\\ud83d"}}']
    if not send_lines(t, peer, lines, "lone surrogates"):
        t.fail("PING-01", "the server stopped reading its input on lone surrogates")
    got = answers_by_id(drain_until(peer, len(lines), t.timeout))
    for rid in ("mcp-ref-check-\ud800", "mcp-ref-check-s2", "mcp-ref-check-s3"):
        if isinstance(peer.wire, SseWire) and peer.wire.post_statuses and peer.wire.post_statuses[-1] >= 400:
            break  # refused over HTTP: an answer of its own kind
        count = len(got.get(repr(rid), []))
        if "\ud800" in rid and not count and got.get(repr(None)):
            # An id no UTF-8 text can hold: I-JSON (RFC 7493) forbids it, so an error with a null id
            # is a fair answer; an escaped echo is too.
            t.note("the request whose id holds a lone surrogate was answered with id null")
            continue
        t.check(count == 1, "MSG-01" if count == 0 else "MSG-05",
                f"the request with id {rid.encode('utf-8', 'backslashreplace').decode()!r} got {count} answers",
                got=shown(got[repr(rid)][0].raw) if count else None)
    keeps_serving(t, peer, "lone surrogates")
    only_valid_json(t, peer, "lone surrogates", start)


WRONG_TYPES: list[tuple[str, dict[str, Any] | list[Any] | str]] = [
    ("tools/call", {"name": 5, "arguments": {}}), ("tools/call", {"name": "x", "arguments": "not an object"}),
    ("tools/call", {"name": ["x"], "arguments": [], "_meta": 5}), ("tools/list", {"cursor": 5}),
    ("resources/read", {"uri": 5}), ("resources/read", {"uri": {"not": "a string"}}), ("resources/list", {"cursor": []}),
    ("resources/templates/list", {"cursor": {}}), ("resources/subscribe", {"uri": None}),
    ("prompts/get", {"name": [], "arguments": "x"}), ("prompts/get", {"name": "x", "arguments": 5}),
    ("prompts/list", {"cursor": True}), ("logging/setLevel", {"level": []}),
    ("completion/complete", {"ref": "x", "argument": 5}),
    ("completion/complete", {"ref": {"type": 5}, "argument": {"name": [], "value": {}}}),
    ("ping", {"_meta": "not an object"}), ("ping", []), ("tools/list", "params as a string"),
]


@server_case(MESSAGES, "MSG-01", "MSG-05", "PING-01", fresh=True, hostile=True)
def answers_wrong_types_in_every_params_field(t: ServerCheck) -> None:
    """With --hostile: a request for each method with a wrong type in each params field (numbers
    for names, strings for objects, params that are not an object) gets exactly one answer, an
    error or a result, never silence or a crash; the server then still answers ping."""
    peer = hostile_session(t)
    start = len(peer.wire.sent_and_received())
    sent: dict[str, str] = {}
    for number, (method, params) in enumerate(WRONG_TYPES):
        rid = f"mcp-ref-check-type-{number}"
        text = json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        sent[rid] = text
        send_lines(t, peer, [text.encode()], f"{method} with wrong types")
    got = answers_by_id(drain_until(peer, len(sent), 2 * t.timeout))
    refused = [s for s in getattr(peer.wire, "post_statuses", []) if s >= 400]
    missing = [rid for rid in sent if len(got.get(repr(rid), [])) == 0]
    twice = [rid for rid in sent if len(got.get(repr(rid), [])) > 1]
    if missing and len(missing) > len(refused):
        t.check(False, "MSG-01", f"{len(missing)} of {len(sent)} requests with wrong-typed params got no answer "
                f"(within {waited(2 * t.timeout)})", sent[missing[0]])
    t.check(not twice, "MSG-05", f"{len(twice)} request(s) with wrong-typed params were answered twice",
            sent[twice[0]] if twice else None)
    results = [rid for rid in sent if any("result" in shapes.as_dict(i.msg) for i in got.get(repr(rid), []))]
    if results:
        t.note(f"{len(results)} request(s) with wrong-typed params got a result, e.g. {shown(sent[results[0]])}")
    keeps_serving(t, peer, "requests with wrong-typed params")
    only_valid_json(t, peer, "requests with wrong-typed params", start)


@server_case(MESSAGES, "MSG-01", "MSG-05", "PING-01", fresh=True, hostile=True)
def answers_a_burst_of_concurrent_requests(t: ServerCheck) -> None:
    """With --hostile: 500 pings sent in one write, without waiting, each get exactly one answer
    with their own id, within a few steps, and the server still answers ping afterwards."""
    peer = hostile_session(t)
    lines = [json.dumps({"jsonrpc": "2.0", "id": f"mcp-ref-check-burst-{i}", "method": "ping"}).encode()
             for i in range(BURST)]
    if not send_lines(t, peer, lines, f"a burst of {BURST} pings"):
        t.fail("PING-01", f"the server stopped reading its input during a burst of {BURST} pings")
    got = answers_by_id(drain_until(peer, BURST, 4 * t.timeout))
    missing = [i for i in range(BURST) if len(got.get(repr(f"mcp-ref-check-burst-{i}"), [])) == 0]
    twice = [i for i in range(BURST) if len(got.get(repr(f"mcp-ref-check-burst-{i}"), [])) > 1]
    refused = [s for s in getattr(peer.wire, "post_statuses", []) if s >= 400]
    t.check(len(missing) <= len(refused), "MSG-01", f"{len(missing)} of {BURST} pings sent at once got no answer "
            f"within {4 * t.timeout:g} s", lines[missing[0]].decode() if missing else None)
    t.check(not twice, "MSG-05", f"{len(twice)} of {BURST} pings sent at once were answered twice")
    keeps_serving(t, peer, f"a burst of {BURST} pings")
