"""Revision 2026-07-28's versioning (mcp_ref/revisions/versioning.py, and lifecycle.py's part in it):
which requests are of this era, and which are refused before anything is served.

https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
https://modelcontextprotocol.io/specification/2026-07-28/basic/index#meta
What it proves, against real server subprocesses (tests/peers/stateless_server.py) spoken to in
raw lines: a request whose ``_meta`` lacks a required field, or carries one of the wrong shape, is
-32602 (STLS-10); a revision the server does not serve is -32022 listing those it does (STLS-16);
each method the revision dropped is -32601 (STLS-26, STLS-28, LOGX-04); a server of 2026-07-28
alone refuses ``initialize`` naming its versions (STLS-23), and one of the handshake alone treats
a modern ``_meta`` as nothing special; ``initialize`` never agrees on 2026-07-28.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from mcp_ref import lifecycle
from mcp_ref.revisions import versioning

from ..support.modern import CAPABILITIES_KEY, CLIENT_INFO_KEY, REVISION, VERSION_KEY, ModernPeer, meta, params


@pytest.fixture(scope="module")
def dual() -> Iterator[ModernPeer]:
    peer = ModernPeer("server")
    yield peer
    peer.close()


@pytest.fixture(scope="module")
def modern() -> Iterator[ModernPeer]:
    peer = ModernPeer("modern_server")
    yield peer
    peer.close()


def error(answer: dict[str, Any], code: int) -> dict[str, Any]:
    assert "result" not in answer, answer
    assert answer["error"]["code"] == code, answer
    return dict(answer["error"])


# --- which requests are of this era --------------------------------------------------------------

@pytest.mark.parametrize(("request_params", "modern"), [
    ({"_meta": {VERSION_KEY: REVISION}}, True),
    ({"_meta": {VERSION_KEY: "1900-01-01"}}, True),  # of this era, though refused later (-32022)
    ({"_meta": {VERSION_KEY: None}}, True),
    ({"_meta": {}}, False),
    ({"_meta": {CAPABILITIES_KEY: {}}}, False),
    ({"_meta": [VERSION_KEY]}, False),
    ({"_meta": VERSION_KEY}, False),
    ({}, False),
    (None, False),
    ([{"_meta": {VERSION_KEY: REVISION}}], False),
])
def test_a_request_is_modern_when_its_meta_names_a_revision(request_params: Any, modern: bool) -> None:
    """STLS-09: the era is read from ``params._meta`` alone, whatever else the request holds."""
    assert versioning.is_modern(request_params) is modern


@pytest.mark.parametrize(("spoken", "method", "request_params", "served_here"), [
    (("2026-07-28", "2025-11-25"), "tools/list", {"_meta": {VERSION_KEY: REVISION}}, True),
    (("2026-07-28", "2025-11-25"), "server/discover", {"_meta": {VERSION_KEY: REVISION}}, True),
    (("2026-07-28", "2025-11-25"), "server/discover", {}, False),  # without _meta: a probe of the handshake's era
    (("2026-07-28", "2025-11-25"), "tools/list", {}, False),  # the handshake's
    (("2025-11-25", "2025-06-18"), "tools/list", {"_meta": {VERSION_KEY: REVISION}}, False),
    (("2025-11-25",), "server/discover", {}, False),  # a handshake-only server: -32601 as before
    (("2026-07-28",), "tools/list", {}, True),  # a modern-only server: -32602, no handshake to fall back on
    (("2026-07-28",), "initialize", {}, False),  # ... but initialize is refused by lifecycle.py (STLS-23)
])
def test_only_a_server_of_2026_07_28_serves_modern_requests(spoken: tuple[str, ...], method: str,
                                                             request_params: Any, served_here: bool) -> None:
    assert versioning.addressed(spoken, method, request_params) is served_here


# --- STLS-10: a missing or malformed required _meta field is -32602 --------------------------------

MALFORMED_META = {
    "no clientCapabilities": {VERSION_KEY: REVISION},
    "clientCapabilities null": {VERSION_KEY: REVISION, CAPABILITIES_KEY: None},
    "clientCapabilities a list": {VERSION_KEY: REVISION, CAPABILITIES_KEY: []},
    "clientCapabilities a string": {VERSION_KEY: REVISION, CAPABILITIES_KEY: "elicitation"},
    "clientCapabilities a number": {VERSION_KEY: REVISION, CAPABILITIES_KEY: 1},
    "clientCapabilities true": {VERSION_KEY: REVISION, CAPABILITIES_KEY: True},
    "clientInfo a string": {VERSION_KEY: REVISION, CAPABILITIES_KEY: {}, CLIENT_INFO_KEY: "raw"},
    "clientInfo a list": {VERSION_KEY: REVISION, CAPABILITIES_KEY: {}, CLIENT_INFO_KEY: ["raw"]},
    "clientInfo null": {VERSION_KEY: REVISION, CAPABILITIES_KEY: {}, CLIENT_INFO_KEY: None},
}


@pytest.mark.parametrize("shape", list(MALFORMED_META))
@pytest.mark.parametrize("method", ["tools/list", "tools/call", "server/discover", "resources/read"])
def test_stls_10_a_malformed_required_meta_field_is_32602(dual: ModernPeer, shape: str, method: str) -> None:
    answer = dual.request(method, {"name": "add", "arguments": {"a": 1, "b": 2}, "uri": "file:///note.txt",
                                   "_meta": MALFORMED_META[shape]})
    assert "_meta" in error(answer, -32602)["message"]


@pytest.mark.parametrize("discover_params", [None, {}, {"_meta": None}, {"_meta": []}, {"_meta": "2026-07-28"},
                                             {"_meta": {CAPABILITIES_KEY: {}}}, [1, 2]],
                         ids=["no params", "no _meta", "_meta null", "_meta a list", "_meta a string",
                              "no protocolVersion", "params a list"])
def test_server_discover_without_its_revision_is_a_probe_of_the_handshake_era_32601(
        dual: ModernPeer, modern: ModernPeer, discover_params: Any) -> None:
    """A dual-era server takes a request that does not name its revision for one of the handshake's
    era, where server/discover is unknown: -32601 at once, so the prober falls back to initialize
    (the pitfall of newer clients' probes). A server of 2026-07-28 alone has no such era: -32602,
    naming the field (STLS-10)."""
    error(dual.request("server/discover", discover_params), -32601)
    assert VERSION_KEY in error(modern.request("server/discover", discover_params), -32602)["message"]


@pytest.mark.parametrize("request_params", [None, {}, {"_meta": {}}, {"_meta": []}],
                         ids=["no params", "no _meta", "_meta empty", "_meta a list"])
@pytest.mark.parametrize("method", ["tools/list", "tools/call", "ping"])
def test_stls_10_a_modern_only_server_refuses_a_request_without_its_revision_32602(
        modern: ModernPeer, request_params: Any, method: str) -> None:
    """A server of 2026-07-28 alone has no handshake to fall back on: a request that does not name
    its revision is malformed (-32602), never "send initialize first", which it would refuse."""
    message = error(modern.request(method, request_params), -32602)["message"]
    assert VERSION_KEY in message


# --- STLS-16: an unsupported revision is -32022 with the supported ones ----------------------------

@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2024-11-05", "1900-01-01", "2026-07-29", "",
                                     "2026-07-28 ", 20260728, None, ["2026-07-28"], {"v": 1}])
def test_stls_16_an_unsupported_revision_is_32022_listing_the_supported_ones(dual: ModernPeer, version: Any) -> None:
    """Also the handshake revisions the same server speaks: in ``_meta`` they are not offered."""
    answer = dual.request("tools/list", {"_meta": meta(version=version)})
    data = error(answer, -32022)["data"]
    assert data["supported"] == [REVISION]
    assert data["requested"] == version


def test_stls_16_comes_before_the_other_checks(dual: ModernPeer) -> None:
    """A client told -32022 learns what to speak, even when the rest of its _meta is wrong too."""
    answer = dual.request("ping", {"_meta": {VERSION_KEY: "1999-01-01", CAPABILITIES_KEY: "nope"}})
    assert error(answer, -32022)["data"]["supported"] == [REVISION]


# --- methods this revision dropped: -32601 ---------------------------------------------------------

@pytest.mark.parametrize("method", sorted(versioning.GONE))
def test_each_dropped_method_is_32601_in_2026_07_28(dual: ModernPeer, method: str) -> None:
    """STLS-26 (initialize), STLS-28 (ping), LOGX-04 (logging/setLevel), and subscriptions."""
    extra = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x"}, "level": "debug",
             "uri": "file:///note.txt"}
    assert method in error(dual.request(method, params(extra)), -32601)["message"]


def test_an_unknown_method_is_32601(dual: ModernPeer) -> None:
    assert error(dual.request("tools/destroy", params()), -32601)["message"] == "Method not found: tools/destroy"


def test_the_codes_of_this_revision_stay_in_its_range() -> None:
    """ERRC-04: -32020 .. -32022, each once, in the range the specification keeps for itself."""
    codes = sorted(versioning.MODERN_ERRORS)
    assert codes == [-32022, -32021, -32020]
    assert all(-32099 <= code <= -32020 for code in codes)


# --- lifecycle: 2026-07-28 beside the handshake ----------------------------------------------------

def test_lifecycle_knows_2026_07_28_after_the_handshake_revisions() -> None:
    assert lifecycle.STATELESS_REVISIONS == ("2026-07-28",)
    assert lifecycle.ALL_REVISIONS[-1] == "2026-07-28"
    assert lifecycle.since("2026-07-28", "2025-11-25") and lifecycle.since("2026-07-28", "2026-07-28")
    assert not lifecycle.since("2025-11-25", "2026-07-28")
    assert lifecycle.checked_versions(["2026-07-28", "2025-11-25"]) == ("2026-07-28", "2025-11-25")
    assert lifecycle.checked_versions("2026-07-28") == ("2026-07-28",)
    with pytest.raises(ValueError, match="2026-07-28"):
        lifecycle.checked_versions(["2026-07-29"])


@pytest.mark.parametrize("proposed", ["2026-07-28", "2025-11-25", "2024-11-05", "2099-01-01"])
def test_initialize_never_agrees_on_2026_07_28(proposed: str) -> None:
    """A client that proposes 2026-07-28 in ``initialize`` gets the newest handshake revision."""
    state = lifecycle.LifecycleState()
    agreed = lifecycle.accept_initialize(state, {"protocolVersion": proposed, "capabilities": {},
                                                 "clientInfo": {"name": "c"}}, lifecycle.ALL_REVISIONS[::-1])
    assert agreed == (proposed if proposed in lifecycle.REVISIONS else "2025-11-25")


@pytest.mark.parametrize("proposed", ["2026-07-28", *lifecycle.REVISIONS])
def test_stls_23_a_modern_only_server_refuses_initialize_naming_its_versions(modern: ModernPeer, proposed: str) -> None:
    answer = modern.request("initialize", {"protocolVersion": proposed, "capabilities": {},
                                           "clientInfo": {"name": "old", "version": "1"}})
    failure = error(answer, -32602)
    assert failure["data"] == {"supported": ["2026-07-28"]}
    assert "2026-07-28" in failure["message"] and "_meta" in failure["message"]
    # refused, it still serves a request of its revision on the same pipe
    assert modern.request("tools/list", params())["result"]["resultType"] == "complete"


def test_a_dual_server_answers_initialize_of_2026_07_28_with_the_newest_handshake_revision() -> None:
    peer = ModernPeer("server")
    try:
        answer = peer.request("initialize", {"protocolVersion": "2026-07-28", "capabilities": {},
                                             "clientInfo": {"name": "c", "version": "1"}})
        assert answer["result"]["protocolVersion"] == "2025-11-25"
        assert "resultType" not in answer["result"]
    finally:
        peer.close()


def test_a_handshake_only_server_takes_modern_meta_for_nothing_special() -> None:
    """STLS-21 is a MAY: a server whose protocol_versions leave 2026-07-28 out serves the
    handshake alone. A modern request is an ordinary one that came before initialize (-32600),
    server/discover is unknown (-32601), and after initialize the _meta changes nothing."""
    peer = ModernPeer("legacy_server")
    try:
        assert error(peer.request("tools/list", params()), -32600)["message"].endswith("send initialize first")
        assert error(peer.request("server/discover", params()), -32601)
        assert error(peer.request("server/discover", {}), -32601)
        init = peer.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                           "clientInfo": {"name": "c", "version": "1"}})
        assert init["result"]["protocolVersion"] == "2025-11-25"
        peer.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        listed = peer.request("tools/list", params())["result"]
        assert "resultType" not in listed and "ttlMs" not in listed and "_meta" not in listed
        assert peer.request("ping", params())["result"] == {}  # ping, gone from 2026-07-28, is served
        unknown = peer.request("resources/read", params(uri="file:///nope"))
        assert error(unknown, -32002)  # the handshake's code for a resource that does not exist
    finally:
        peer.close()
