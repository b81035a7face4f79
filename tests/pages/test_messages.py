"""basic/messages: envelopes, ids, and the error code for each kind of bad input.

https://modelcontextprotocol.io/specification/2024-11-05/basic/messages
Unit tests of messages.py, then the same rules over a real server subprocess.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mcp_ref import messages
from mcp_ref.messages import InvalidRequest, McpError, ParseError

from ..conftest import RawServer


def test_encode_is_compact_one_line_utf8() -> None:
    msg = messages.request(0, "tools/call", {"text": "a\nb\u2028c é"})
    data = messages.encode(msg)
    assert b"\n" not in data  # TR-02
    assert b"\xe2\x80\xa8" not in data  # U+2028 escaped for peers that use splitlines()
    assert data.startswith(b'{"jsonrpc":"2.0","id":0,"method":"tools/call"')  # compact separators
    assert "é".encode() in data  # UTF-8, not \u escapes
    assert json.loads(data) == msg


# Anything a handler might put in a result: JSON, and what JSON cannot carry.
_KEYS = st.text(max_size=3) | st.integers() | st.floats() | st.none() | st.booleans() | st.tuples(st.integers())
_LEAVES = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4)
           | st.sampled_from(["\ud800", "a\u2028b\u2029", "\U0001f600\n\x00"]) | st.just(object()) | st.binary(max_size=2))
_VALUES = st.recursive(_LEAVES, lambda inner: st.lists(inner, max_size=3) | st.tuples(inner)
                       | st.dictionaries(_KEYS, inner, max_size=3), max_leaves=8)


def _cycle() -> dict[str, Any]:
    loop: dict[str, Any] = {"a": [1]}
    loop["a"].append(loop)
    return loop


@settings(max_examples=300, derandomize=True, deadline=None)
@given(_VALUES)
@example(_cycle())
@example([[[[[[]]]]]] * 2)  # the same list twice is not a cycle
def test_encode_writes_what_json_dumps_writes_and_refuses_what_it_refuses(value: Any) -> None:
    """encode uses json's C encoder built once, without its check for cycles (messages.py): for any
    value, it writes the same bytes as json.dumps with the same options, or refuses with NotJson."""
    try:
        expected: bytes | None = json.dumps({"result": value}, separators=(",", ":"), ensure_ascii=False,
                                            allow_nan=False).encode("utf-8")
    except (ValueError, TypeError, UnicodeEncodeError):
        expected = None
    if expected is None:
        with pytest.raises(messages.NotJson):
            messages.encode({"result": value})
    else:
        assert messages.encode({"result": value}) == expected.replace(b"\xe2\x80\xa8", b"\\u2028").replace(
            b"\xe2\x80\xa9", b"\\u2029")


def _deep() -> list[Any]:
    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]
    return deep


@pytest.mark.parametrize("value, problem", [
    (_cycle(), "Circular reference detected"),
    (_deep(), "it is nested too deeply"),
    (10 ** 5000, "Exceeds the limit (4300 digits) for integer string conversion"),
    (float("nan"), "Out of range float values are not JSON compliant"),
    (object(), "Object of type object is not JSON serializable"),
    ({(1,): 2}, "keys must be str, int, float, bool or None, not tuple"),
    ("\ud800", "a string holds '\\ud800', which is not valid Unicode text"),
], ids=["cycle", "deep", "long int", "nan", "object", "tuple key", "surrogate"])
def test_encode_says_why_it_cannot(value: Any, problem: str) -> None:
    with pytest.raises(messages.NotJson) as info:
        messages.encode({"result": value})
    assert str(info.value).startswith(problem)


@pytest.mark.parametrize("msg, kind", [
    ({"jsonrpc": "2.0", "id": 0, "method": "ping"}, messages.REQUEST),
    ({"jsonrpc": "2.0", "id": "abc", "method": "ping"}, messages.REQUEST),
    ({"jsonrpc": "2.0", "id": -5, "method": "ping", "params": {}}, messages.REQUEST),
    ({"jsonrpc": "2.0", "method": "notifications/initialized"}, messages.NOTIFICATION),
    ({"jsonrpc": "2.0", "id": 1, "result": {}}, messages.RESPONSE),
    ({"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "no"}}, messages.RESPONSE),
    ({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "x"}}, messages.RESPONSE),
    ({"jsonrpc": "2.0", "id": 1, "method": "x", "unknownField": {"kept": True}}, messages.REQUEST),
    # response-shaped, however malformed: never answered (the session fails what they answer)
    ({"jsonrpc": "1.0", "id": 1, "result": {}}, messages.RESPONSE),
    ({"id": 1, "error": {"code": -1, "message": "no"}}, messages.RESPONSE),
])
def test_classify_valid(msg: dict[str, Any], kind: str) -> None:
    assert messages.classify(msg) == kind


@pytest.mark.parametrize("msg, readable_id", [
    ([{"jsonrpc": "2.0", "id": 1, "method": "ping"}], None),  # batches are not in 2024-11-05
    ("ping", None),
    ({"id": 1, "method": "ping"}, 1),  # MSG-01: no jsonrpc member
    ({"jsonrpc": "1.0", "id": 1, "method": "ping"}, 1),
    ({"jsonrpc": "2.0", "id": None, "method": "ping"}, None),  # MSG-03
    ({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}, None),  # MSG-02
    ({"jsonrpc": "2.0", "id": True, "method": "ping"}, None),
    ({"jsonrpc": "2.0", "id": 7, "method": 42}, 7),
    ({"jsonrpc": "2.0", "id": 7, "method": "ping", "params": "x"}, 7),
    ({"jsonrpc": "2.0", "id": 7}, 7),
])
def test_classify_invalid_gives_32600_with_readable_id(msg: Any, readable_id: Any) -> None:
    with pytest.raises(InvalidRequest) as info:
        messages.classify(msg)
    assert info.value.code == -32600
    assert info.value.request_id == readable_id


def test_decode_rejects_non_json_and_bad_utf8() -> None:
    for data in (b"{not json", b"\xff\xfe{}", b"", b"NaN", b'{"a":[Infinity]}', b'{"a":-Infinity}',
                 b'{"a":"\xed\xa0\x80"}',  # the UTF-8 form of a lone surrogate: not UTF-8
                 '{"jsonrpc":"2.0","id":1,"method":"ping"}'.encode("utf-16"),  # JSON, but not UTF-8
                 b"1" * 4301):  # more digits than Python reads
        with pytest.raises(ParseError) as info:
            messages.decode(data)
        assert info.value.code == -32700


def test_error_round_trip_keeps_code_message_data_and_picks_subclass() -> None:
    wire = messages.error_response(3, messages.ResourceNotFound("Resource not found", {"uri": "x://y"}))
    assert wire == {"jsonrpc": "2.0", "id": 3, "error": {"code": -32002, "message": "Resource not found", "data": {"uri": "x://y"}}}
    exc = McpError.from_error(wire["error"])
    assert isinstance(exc, messages.ResourceNotFound) and exc.code == -32002 and exc.data == {"uri": "x://y"}
    custom = McpError.from_error({"code": -1, "message": "User rejected sampling request"})
    assert type(custom) is McpError and custom.code == -1


def test_request_timeout_is_a_timeout_error() -> None:
    assert issubclass(messages.RequestTimeout, TimeoutError)
    assert issubclass(messages.RequestTimeout, McpError)


# --- over the wire, against a real server process ---------------------------------------------


def test_error_codes_over_the_wire(raw: RawServer) -> None:
    raw.initialize()
    cases: list[tuple[bytes, Any, int]] = [
        (b"{this is not json", None, -32700),
        (b"\xff\xfe garbage", None, -32700),
        (b"[1, 2]", None, -32600),  # a batch
        (b'{"jsonrpc":"2.0","id":5}', 5, -32600),
        (b'{"jsonrpc":"1.0","id":"v","method":"ping"}', "v", -32600),
        (b'{"jsonrpc":"2.0","id":6,"method":"no/such/method"}', 6, -32601),
        (b'{"jsonrpc":"2.0","id":66,"method":"no/such/method","params":[1]}', 66, -32601),  # before params
        (b'{"jsonrpc":"2.0","id":67,"method":"ping","params":{"x":NaN}}', None, -32700),  # NaN is not JSON
        (b'{"jsonrpc":"2.0","id":7,"method":"ping","params":[1]}', 7, -32602),
        (b'{"jsonrpc":"2.0","id":8,"method":"test/crash"}', 8, -32603),
    ]
    for line, expected_id, code in cases:
        raw.send(line)
        reply = raw.receive()
        assert reply["id"] == expected_id and reply["error"]["code"] == code, (line, reply)
        assert isinstance(reply["error"]["message"], str) and reply["error"]["message"]
        assert "result" not in reply  # MSG-06
    # -32603 leaks no internals (DESIGN principle 4)
    raw.send(b'{"jsonrpc":"2.0","id":9,"method":"test/crash"}')
    assert "secret" not in json.dumps(raw.receive())
    # ... and after all that, the session still serves.
    assert raw.call({"jsonrpc": "2.0", "id": 10, "method": "ping"}) == {"jsonrpc": "2.0", "id": 10, "result": {}}


def test_ids_zero_negative_and_strings_are_distinct_and_echoed(raw: RawServer) -> None:
    raw.initialize()
    for request_id in (0, -1, "1", 1, "", "0"):
        reply = raw.call({"jsonrpc": "2.0", "id": request_id, "method": "ping"})
        assert reply == {"jsonrpc": "2.0", "id": request_id, "result": {}}  # MSG-05
        assert type(reply["id"]) is type(request_id)


def test_notifications_are_never_answered(raw: RawServer) -> None:
    raw.initialize()
    raw.send(b'{"jsonrpc":"2.0","method":"notifications/unknown","params":{"x":1}}')
    raw.send(b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345}}')
    raw.send(b'{"jsonrpc":"2.0","method":"notifications/cancelled"}')  # malformed: ignored (CAN-16)
    # The next thing to arrive is the answer to this ping, nothing before it.
    assert raw.call({"jsonrpc": "2.0", "id": "after", "method": "ping"})["id"] == "after"


def test_a_reused_id_while_in_flight_is_refused(raw: RawServer) -> None:
    raw.initialize()
    raw.send(b'{"jsonrpc":"2.0","id":1,"method":"test/sleep","params":{"seconds":0.5}}')
    raw.send(b'{"jsonrpc":"2.0","id":1,"method":"ping"}')  # MSG-04 broken by the client
    first = raw.receive()
    assert first["id"] == 1 and first["error"]["code"] == -32600
    second = raw.receive()
    assert second == {"jsonrpc": "2.0", "id": 1, "result": {"slept": 0.5}}


def test_responses_are_never_answered_even_when_malformed(raw: RawServer) -> None:
    raw.initialize()
    raw.send(b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"peer could not parse"}}')
    raw.send(b'{"jsonrpc":"2.0","id":999,"result":{}}')  # answers nothing we sent
    raw.send(b'{"jsonrpc":"2.0","id":998,"result":{},"error":{"code":1,"message":"both"}}')
    assert raw.call({"jsonrpc": "2.0", "id": "next", "method": "ping"})["id"] == "next"


def test_a_response_with_a_wrong_jsonrpc_is_never_answered(raw: RawServer) -> None:
    """MSG-01, MSG-06: it is a response all the same, so it gets no answer (an answer would carry
    the id of one of the peer's own requests)."""
    raw.initialize()
    raw.send(b'{"jsonrpc":"1.0","id":1,"result":{}}')
    raw.send(b'{"id":2,"error":{"code":-1,"message":"no"}}')
    assert raw.call({"jsonrpc": "2.0", "id": "next", "method": "ping"})["id"] == "next"


def test_decode_keeps_what_json_means() -> None:
    assert messages.decode(b'\xef\xbb\xbf{"a":1e400,"b":"\\ud800","c":-0}') == {"a": float("inf"), "b": "\ud800", "c": 0}


def test_seeded_fuzz_never_crashes_the_server_or_goes_unanswered(raw: RawServer) -> None:
    """Mutated, truncated and random lines: every request-like line gets exactly one answer with
    the right id, or (for notifications and unreadable ids) none that breaks the stream."""
    import random

    rng = random.Random(20241105)
    raw.initialize()
    samples = [
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": "x", "method": "test/echo", "params": {"a": [1, {"b": None}]}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}},
        {"jsonrpc": "2.0", "id": 2, "result": {}},
    ]
    sent = answers = late = 0
    for _ in range(300):
        text = json.dumps(rng.choice(samples))
        kind = rng.randrange(4)
        if kind == 0:
            text = text[: rng.randrange(len(text))]  # truncated
        elif kind == 1:
            i = rng.randrange(len(text))
            text = text[:i] + rng.choice('{}[]":,\\x0') + text[i + 1:]  # one character changed
        elif kind == 2:
            text = "".join(chr(rng.randrange(32, 0x3000)) for _ in range(rng.randrange(1, 40)))
        raw.send(text.encode("utf-8", "surrogatepass"))
        # after each line, a ping with a fresh id must come back, possibly after an error reply.
        # ping is answered on the reading thread and other requests on the pool, so an answer
        # to an earlier line may still arrive after an earlier probe's: at most one per line.
        raw.send(b'{"jsonrpc":"2.0","id":"probe","method":"ping"}')
        for _ in range(3 + 2 * late):
            reply = raw.receive()
            if reply.get("id") == "probe":
                assert reply == {"jsonrpc": "2.0", "id": "probe", "result": {}}
                break
            assert "error" in reply or "result" in reply, reply
            answers += 1
        else:
            raise AssertionError(f"no answer to the probe after {text!r}")
        sent += 1
        late = max(0, sent - answers)
    assert answers <= sent, f"{answers} answers to {sent} lines: some line was answered twice"


def test_our_notifications_carry_no_id(stdio_client: Any, tap: Any) -> None:
    """MSG-08, both ways: the client's notifications/initialized and the server's progress."""
    client = stdio_client()
    client.request("test/progress", {"steps": 2}, on_progress=lambda params: None)
    notices = [(direction, m) for direction, m in tap.messages if str(m.get("method", "")).startswith("notifications/")]
    assert {direction for direction, _ in notices} == {"->", "<-"}
    assert [m for _, m in notices if "id" in m] == []
