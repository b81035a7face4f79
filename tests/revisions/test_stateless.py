"""Revision 2026-07-28 served without a session (mcp_ref/revisions/stateless.py), over stdio.

https://modelcontextprotocol.io/specification/2026-07-28/basic/index#statelessness
https://modelcontextprotocol.io/specification/2026-07-28/server/discover
https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching
https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging
https://modelcontextprotocol.io/specification/2026-07-28/server/resources
What it proves, against server subprocesses (tests/peers/stateless_server.py) spoken to in raw
lines: server/discover says what the server is (DISC-01, DISC-04); every result carries its
resultType and the server's name (RTYPE-01, STLS-13); the lists, resources/read and discover say
how long they stay fresh, and nothing else does (CACHE-01); nothing carries over from one request
to the next on one pipe (STLS-03); log messages only at the level a request asked, none without
(LOGX-01..03); progress goes with its request (MRTR-02); an unknown resource is -32602 (RREAD-03);
a capability the request did not bring is -32021 naming it (STLS-12); one process serves both
eras (STLS-21, STLS-25) and its rate limits hold across them; and any JSON value as ``_meta``
gets exactly one answer with a code of the specification.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ..support.modern import (
    LOG_LEVEL_KEY,
    REVISION,
    SERVER_INFO_KEY,
    SPEC_ERRORS,
    VERSION_KEY,
    ModernPeer,
    meta,
    params,
)

SERVER_INFO = {"name": "stateless-peer", "version": "2.0.0", "title": "Stateless peer"}


@pytest.fixture(scope="module")
def peer() -> Iterator[ModernPeer]:
    server = ModernPeer("server")
    yield server
    server.close()


def result(answer: dict[str, Any]) -> dict[str, Any]:
    assert "error" not in answer, answer
    return dict(answer["result"])


def error(answer: dict[str, Any], code: int) -> dict[str, Any]:
    assert "result" not in answer, answer
    assert answer["error"]["code"] == code, answer
    return dict(answer["error"])


def text(answer: dict[str, Any]) -> str:
    return str(result(answer)["content"][0]["text"])


# --- server/discover ---------------------------------------------------------------------------

def test_disc_01_discover_says_what_the_server_is(peer: ModernPeer) -> None:
    """DISC-01, DISC-04, STLS-18: versions, the capabilities of what is registered, instructions,
    and the server's name in _meta."""
    found = result(peer.request("server/discover", params()))
    assert found["resultType"] == "complete"
    assert found["supportedVersions"] == [REVISION]
    assert set(found["capabilities"]) == {"logging", "prompts", "resources", "tools", "completions"}
    assert all(isinstance(value, dict) for value in found["capabilities"].values())
    assert found["instructions"] == "A server of 2026-07-28 for tests."
    assert found["_meta"][SERVER_INFO_KEY] == SERVER_INFO


# --- RTYPE-01, STLS-13, CACHE-01: every result's shape --------------------------------------------

CACHEABLE = {
    "server/discover": {},
    "tools/list": {},
    "prompts/list": {},
    "resources/list": {},
    "resources/templates/list": {},
    "resources/read": {"uri": "file:///note.txt"},
}
NOT_CACHEABLE = {
    "tools/call": {"name": "add", "arguments": {"a": 2, "b": 3}},
    "prompts/get": {"name": "plain", "arguments": {"topic": "owls"}},
    "completion/complete": {"ref": {"type": "ref/prompt", "name": "plain"}, "argument": {"name": "style", "value": "l"}},
}


@pytest.mark.parametrize("method", list(CACHEABLE))
def test_cache_01_lists_reads_and_discover_say_how_long_they_stay_fresh(peer: ModernPeer, method: str) -> None:
    """CACHE-01, CACHE-05 (never negative), RTYPE-01, STLS-13."""
    found = result(peer.request(method, params(CACHEABLE[method])))
    assert found["resultType"] == "complete"
    assert found["_meta"][SERVER_INFO_KEY] == SERVER_INFO
    assert found["ttlMs"] == 0 and found["cacheScope"] == "private"


@pytest.mark.parametrize("method", list(NOT_CACHEABLE))
def test_cache_01_other_results_carry_no_cache_hints(peer: ModernPeer, method: str) -> None:
    """RTYPE-01 and STLS-13 on every result, ttlMs and cacheScope only on the cacheable ones."""
    found = result(peer.request(method, params(NOT_CACHEABLE[method])))
    assert found["resultType"] == "complete"
    assert found["_meta"][SERVER_INFO_KEY] == SERVER_INFO
    assert "ttlMs" not in found and "cacheScope" not in found


@pytest.mark.parametrize(("method", "request_params"), [
    ("tools/call", {"name": "greet", "arguments": {}}),
    ("resources/read", {"uri": "secret://vault"}),  # cacheable when complete, not while asking
    ("prompts/get", {"name": "interview", "arguments": {}}),
])
def test_cache_01_an_input_required_result_carries_no_cache_hints(peer: ModernPeer, method: str,
                                                                   request_params: dict[str, Any]) -> None:
    found = result(peer.request(method, params(request_params)))
    assert found["resultType"] == "input_required"
    assert found["_meta"][SERVER_INFO_KEY] == SERVER_INFO
    assert "ttlMs" not in found and "cacheScope" not in found


def test_stls_13_a_handler_result_meta_is_kept_beside_server_info(peer: ModernPeer) -> None:
    found = result(peer.request("tools/call", params(name="add", arguments={"a": 1, "b": 1})))
    assert text({"result": found}) == "2"
    assert set(found["_meta"]) == {SERVER_INFO_KEY}


# --- STLS-03: nothing carried over ----------------------------------------------------------------

def test_stls_03_nothing_is_carried_from_one_request_to_the_next(peer: ModernPeer) -> None:
    """The capabilities, the log level and the version of one request are not the next one's,
    though both come down the same pipe (STLS-08)."""
    asked = result(peer.request("tools/call", params(name="greet", arguments={})))
    assert asked["resultType"] == "input_required"
    assert error(peer.request("tools/call", params(name="greet", arguments={}, _meta=meta({}))), -32021)
    peer.notifications.clear()
    result(peer.request("tools/call", params(name="chatty", arguments={}, _meta=meta(log_level="debug"))))
    assert len([n for n in peer.notifications if n["method"] == "notifications/message"]) == 4
    peer.notifications.clear()
    result(peer.request("tools/call", params(name="chatty", arguments={})))
    assert peer.notifications == []


# --- LOGX: the log level of each request ----------------------------------------------------------

@pytest.mark.parametrize(("level", "heard"), [
    (None, []),  # LOGX-01: no level asked, no log message
    ("error", ["error"]),
    ("warning", ["warning", "error"]),
    ("info", ["info", "warning", "error"]),
    ("debug", ["debug", "info", "warning", "error"]),
    ("emergency", []),
])
def test_logx_01_02_log_messages_only_at_the_level_the_request_asked(peer: ModernPeer, level: str | None,
                                                                     heard: list[str]) -> None:
    peer.notifications.clear()
    request_meta = meta() if level is None else meta(log_level=level)
    assert text(peer.request("tools/call", params(name="chatty", arguments={}, _meta=request_meta))) == "done"
    logged = [n["params"] for n in peer.notifications if n["method"] == "notifications/message"]
    assert [entry["level"] for entry in logged] == heard
    assert all(entry["data"] == f"a {entry['level']} message" for entry in logged)


@pytest.mark.parametrize("level", ["loud", "DEBUG", "", None, 3, True, [], ["debug"], {}, {"level": "debug"}])
def test_logx_03_an_unknown_log_level_is_32602(peer: ModernPeer, level: Any) -> None:
    """Any JSON value may come: a list or an object (unhashable) once made this -32603."""
    answer = peer.request("tools/list", params(_meta=meta(log_level=level)))
    assert LOG_LEVEL_KEY in error(answer, -32602)["message"]


def test_mrtr_02_progress_goes_with_its_request_before_the_answer(peer: ModernPeer) -> None:
    peer.notifications.clear()
    request_meta = {**meta(), "progressToken": "p-1"}
    assert text(peer.request("tools/call", params(name="chatty", arguments={}, _meta=request_meta))) == "done"
    assert [n["params"] for n in peer.notifications] == [
        {"progressToken": "p-1", "progress": 1, "total": 2}, {"progressToken": "p-1", "progress": 2, "total": 2}]


# --- RREAD-03, STLS-12 ----------------------------------------------------------------------------

def test_rread_03_an_unknown_resource_is_32602_not_32002(peer: ModernPeer) -> None:
    """RREAD-03, ERRC-05: -32002 is retired in this revision."""
    failure = error(peer.request("resources/read", params(uri="file:///nope")), -32602)
    assert failure["data"]["uri"] == "file:///nope"


@pytest.mark.parametrize(("tool", "declared", "needed"), [
    ("greet", {}, "elicitation"),
    ("greet", {"sampling": {}, "roots": {}}, "elicitation"),
    ("sample", {"elicitation": {}}, "sampling"),
    ("roots", {"elicitation": {}, "sampling": {}}, "roots"),
    ("survey", {"sampling": {}, "roots": {}}, "elicitation"),  # mrtr.ask checks every question (MRTR-11)
    ("survey", {"elicitation": {}, "roots": {}}, "sampling"),
    ("survey", {"elicitation": {}, "sampling": {}}, "roots"),
    ("greet", {"elicitation": True}, "elicitation"),  # declared, but not as an object
    # a part of a capability is a capability too: named as part of its object
    ("sample_tools", {"sampling": {}}, "sampling.tools"),
    ("sample_context", {"sampling": {"tools": {}}}, "sampling.context"),
    ("open_page", {"elicitation": {}}, "elicitation.url"),  # {} is form mode alone
    ("open_page", {"elicitation": {"form": {}}}, "elicitation.url"),
    ("greet", {"elicitation": {"url": {}}}, "elicitation.form"),
])
def test_stls_12_a_capability_the_request_did_not_bring_is_32021(peer: ModernPeer, tool: str,
                                                                  declared: dict[str, Any], needed: str) -> None:
    """STLS-12, MRTR-11: never asked of a client that did not declare it; the request is refused
    naming what it needs, not answered with a tool error."""
    failure = error(peer.request("tools/call", params(name=tool, arguments={}, _meta=meta(declared))), -32021)
    capability, _, part = needed.partition(".")
    assert failure["data"] == {"requiredCapabilities": {capability: {part: {}} if part else {}}}
    assert repr(needed) in failure["message"]


# --- one process, both eras -----------------------------------------------------------------------

def test_stls_25_one_process_serves_modern_requests_and_then_a_handshake_session() -> None:
    """STLS-21, STLS-25: before initialize, requests of 2026-07-28 are served statelessly beside a
    ping of the handshake; initialize then opens a session of 2025-11-25 on the same pipe, whose
    requests are answered as that revision answers (no resultType; -32002; a real elicitation
    request to the client)."""
    peer = ModernPeer("server")
    try:
        assert result(peer.request("tools/list", params()))["resultType"] == "complete"
        assert result(peer.request("ping", None)) == {}  # the handshake's ping, allowed before initialize
        assert error(peer.request("ping", params()), -32601)  # ... not part of 2026-07-28
        assert result(peer.request("tools/call", params(name="greet", arguments={})))["resultType"] == "input_required"
        assert error(peer.request("resources/read", params(uri="file:///nope")), -32602)
        assert error(peer.request("tools/list", {}), -32600)  # a legacy request before initialize
        init = result(peer.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
                                                  "clientInfo": {"name": "legacy", "version": "1"}}))
        assert init["protocolVersion"] == "2025-11-25" and init["capabilities"]["tools"] == {"listChanged": True}
        peer.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        listed = result(peer.request("tools/list", {}))
        assert "resultType" not in listed and "_meta" not in listed
        assert error(peer.request("resources/read", {"uri": "file:///nope"}), -32002)
        peer.send(json.dumps({"jsonrpc": "2.0", "id": "g", "method": "tools/call",
                              "params": {"name": "greet", "arguments": {}}}).encode())
        asked = peer.receive()
        assert asked["method"] == "elicitation/create"  # a request of the server's own, as 2025-11-25 does
        peer.send(json.dumps({"jsonrpc": "2.0", "id": asked["id"], "result": {
            "action": "accept", "content": {"name": "Ann"}}}).encode())
        assert text(peer.answer("g")) == "Hello, Ann!"
    finally:
        peer.close()


def test_the_rate_limits_of_a_process_hold_for_modern_requests() -> None:
    """checked_call is shared: a stdio process's buckets count every tools/call of 2026-07-28."""
    peer = ModernPeer("limited_server")
    try:
        for _ in range(3):
            assert text(peer.request("tools/call", params(name="add", arguments={"a": 1, "b": 1}))) == "2"
        assert error(peer.request("tools/call", params(name="add", arguments={"a": 1, "b": 1})), -32010)
    finally:
        peer.close()


# --- any JSON as _meta ----------------------------------------------------------------------------

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                    | st.text(max_size=8), lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=8)
META_VALUES = st.one_of(
    JSON,
    st.fixed_dictionaries({VERSION_KEY: st.sampled_from([REVISION, "2025-11-25"]) | JSON},
                          optional={"io.modelcontextprotocol/clientCapabilities": JSON,
                                    "io.modelcontextprotocol/clientInfo": JSON, LOG_LEVEL_KEY: JSON,
                                    "progressToken": JSON}),
)


def test_any_json_as_meta_gets_exactly_one_answer_with_a_code_of_the_specification() -> None:
    """Whatever the _meta (or its fields), each request is answered once, with a result or a code
    of the specification (never a crash, never silence, never a second message)."""
    peer = ModernPeer("server")

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(META_VALUES, st.sampled_from(["tools/list", "tools/call", "server/discover", "resources/read",
                                         "prompts/get", "logging/setLevel"]))
    def one_answer(value: Any, method: str) -> None:
        request_params = {"name": "add", "arguments": {"a": 1, "b": 2}, "uri": "file:///note.txt", "_meta": value}
        peer.send(json.dumps({"jsonrpc": "2.0", "id": "x", "method": method, "params": request_params}).encode())
        peer.send(json.dumps({"jsonrpc": "2.0", "id": "next", "method": "server/discover",
                              "params": params()}).encode())
        answers: list[dict[str, Any]] = []
        while len(answers) < 2:  # each read bounded (RawServer.receive)
            msg = peer.receive()
            if "id" in msg:
                answers.append(msg)
        assert sorted(a["id"] for a in answers) == ["next", "x"], answers  # (a pool: either may come first)
        first = next(a for a in answers if a["id"] == "x")
        assert "result" in first or first["error"]["code"] in SPEC_ERRORS, first

    try:
        one_answer()
    finally:
        peer.close()


URL_SERVER = """
from mcp_ref import Server
from mcp_ref.revisions.elicitation import URLElicitationRequired
server = Server("u", version="1")
@server.tool()
def needs_url() -> str:
    \"\"\"Needs a URL elicitation.\"\"\"
    raise URLElicitationRequired([{"elicitationId": "e1", "url": "https://example.com/x", "message": "go"}])
server.serve_stdio()
"""


def test_errc_05_a_url_elicitation_is_asked_in_the_result_never_32042() -> None:
    """2026-07-28 has no -32042: a tool that raises URLElicitationRequired answers input_required
    with URL-mode elicitation requests (no elicitationId: the revision removed it), or -32021 to a
    request whose client did not declare URL mode."""
    import subprocess
    import sys

    def call(request_id: int, capabilities: dict[str, Any]) -> str:
        return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {
            "name": "needs_url", "arguments": {}, "_meta": meta(capabilities)}})

    lines = call(1, {"elicitation": {"url": {}}}) + "\n" + call(2, {"elicitation": {}}) + "\n"
    done = subprocess.run([sys.executable, "-c", URL_SERVER], input=lines, capture_output=True, text=True, timeout=60)
    first, second = (json.loads(line) for line in done.stdout.splitlines())
    assert first["result"]["resultType"] == "input_required"
    assert first["result"]["inputRequests"] == {"url-1": {"method": "elicitation/create", "params": {
        "mode": "url", "message": "go", "url": "https://example.com/x"}}}
    assert second["error"]["code"] == -32021 and "url" in second["error"]["data"]["requiredCapabilities"]["elicitation"]
