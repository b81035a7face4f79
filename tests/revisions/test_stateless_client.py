"""The client of revision 2026-07-28 (revisions/stateless_client.py), against real servers over stdio.

https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
The servers are subprocesses (tests/peers/era_server.py): an mcp_ref ``Server`` pinned to
revisions of one era or both, and scripted servers for what a good ``Server`` never does (silence,
a -32022, an unknown result type, a question no handler answers). What a user depends on:

- which era a client reaches, for every pairing of what it offers and what the server serves;
- in 2026-07-28: every request named, nothing of the handshake sent, the dropped methods
  refused locally, and the server's questions answered by the client's own handlers over as many
  rounds as it takes, within the caller's one timeout, the caller seeing only the final result.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_ref import Client, McpError
from mcp_ref.lifecycle import REVISIONS
from mcp_ref.messages import MethodNotFound, RequestTimeout
from mcp_ref.revisions import stateless_client
from mcp_ref.revisions.stateless_client import ALL_VERSIONS, MAX_ROUNDS, header_value, http_headers

PEER = str(Path(__file__).resolve().parents[1] / "peers" / "era_server.py")
MODERN = "2026-07-28"
HANDSHAKE = list(reversed(REVISIONS))


class Wire:
    """Every message the client wrote and read, decoded."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []

    def __call__(self, direction: str, data: bytes) -> None:
        (self.sent if direction == "->" else self.received).append(json.loads(data))

    def methods(self) -> list[str]:
        return [msg["method"] for msg in self.sent if "method" in msg]


@pytest.fixture
def client() -> Iterator[Callable[..., tuple[Client, Wire]]]:
    """Factory: ``client(*peer_args, **options)`` connects over stdio to era_server.py; returns it and its wire."""
    clients: list[Client] = []

    def make(*peer: str, **options: Any) -> tuple[Client, Wire]:
        wire = Wire()
        options.setdefault("timeout", 10.0)
        made = Client.stdio([sys.executable, PEER, *peer], trace=wire, **options)
        clients.append(made)
        return made, wire

    yield make
    for made in clients:
        made.close()


def person(params: dict[str, Any]) -> dict[str, Any]:
    """An elicitation handler: accepts, filling each string field with its name and each boolean with true."""
    properties = params["requestedSchema"]["properties"]
    return {"action": "accept", "content": {name: True if field.get("type") == "boolean" else f"{name}!"
                                            for name, field in properties.items()}}


ANSWERING = {"elicitation_handler": person, "sampling_handler": lambda params: "Paris",
             "roots": [{"uri": "file:///work", "name": "work"}]}


# --- which era, for each pairing ----------------------------------------------------------------

ERAS = [  # (what the client offers, the peer, the era reached: its revision, or the start of the error)
    (None, ("mcp_ref", ",".join(HANDSHAKE + [MODERN])), MODERN),  # the default: every revision, the probe first
    (None, ("mcp_ref", "2025-11-25"), "2025-11-25"),
    (ALL_VERSIONS, ("mcp_ref", ",".join(HANDSHAKE + [MODERN])), MODERN),  # both eras each side: modern
    (ALL_VERSIONS, ("mcp_ref", MODERN), MODERN),
    (ALL_VERSIONS, ("mcp_ref", "2025-11-25,2025-06-18"), "2025-11-25"),  # a server of the handshake: -32601
    (ALL_VERSIONS, ("mcp_ref", "2024-11-05"), "2024-11-05"),
    ([MODERN], ("mcp_ref", MODERN), MODERN),
    ([MODERN], ("mcp_ref", "2025-11-25"), "error: the server answered server/discover with error -32601"),
    (HANDSHAKE, ("mcp_ref", "2025-11-25"), "2025-11-25"),
    (ALL_VERSIONS, ("scripted", "legacy-invalid"), "2025-11-25"),  # any error, not just -32601 (STDIO-07)
    (ALL_VERSIONS, ("scripted", "legacy-empty"), "2025-11-25"),  # a result, but no DiscoverResult (STDIO-06)
    (ALL_VERSIONS, ("scripted", "legacy-odd"), "2025-11-25"),
    ([MODERN], ("scripted", "legacy-empty"), "error: the server answered server/discover with no supportedVersions"),
    (ALL_VERSIONS, ("scripted", "unsupported-then-ok"), MODERN),  # -32022 naming ours: asked again (STLS-17)
    (ALL_VERSIONS, ("scripted", "unsupported-legacy"), "2025-11-25"),  # naming a revision of the handshake only
    (ALL_VERSIONS, ("scripted", "unsupported-none"), "error: the server speaks 2099-01-01"),
    ([MODERN], ("scripted", "unsupported-legacy"), "error: the server speaks 2025-11-25"),
    (ALL_VERSIONS, ("scripted", "legacy-crash"), "error: Connection closed"),
]


@pytest.mark.parametrize(("offered", "peer", "reached"), ERAS, ids=[f"{o and len(o)}-{'-'.join(p)}" for o, p, _ in ERAS])
def test_the_client_reaches_each_server_in_the_era_they_share(client: Callable[..., tuple[Client, Wire]],
                                                              offered: Any, peer: tuple[str, str], reached: str) -> None:
    if reached.startswith("error: "):
        with pytest.raises(McpError) as failed:
            client(*peer, protocol_versions=offered)
        assert reached.removeprefix("error: ") in str(failed.value)
        return
    made, wire = client(*peer, protocol_versions=offered)
    assert made.protocol_version == reached
    methods = wire.methods()
    if reached == MODERN:
        assert "initialize" not in methods and "notifications/initialized" not in methods
        assert made.server_info is not None and made.server_info["name"] in ("era-mcp-ref", "era-server")
        assert made.instructions in ("ask me", "scripted")
        assert "tools" in made.server_capabilities
        assert made.call_tool("add" if peer[0] == "mcp_ref" else "no_type", {"a": 1, "b": 2})["content"]
    else:
        assert methods[-2:] == ["initialize", "notifications/initialized"]
        assert (methods[0] == "server/discover") == (offered is None or MODERN in offered)  # probed, or not at all
        assert made.list_tools()
    assert all(msg["method"] == "server/discover" for msg in wire.sent if "_meta" in msg.get("params", {})
               and reached != MODERN)  # a server of the handshake hears nothing else of 2026-07-28


def test_a_silent_server_of_the_handshake_is_reached_after_the_probes_bound(client: Callable[..., tuple[Client, Wire]],
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stateless_client, "PROBE_TIMEOUT", 0.5)
    made, wire = client("scripted", "legacy-silent", protocol_versions=ALL_VERSIONS)
    assert made.protocol_version == "2025-11-25"
    assert wire.methods()[:1] == ["server/discover"] and "initialize" in wire.methods()
    made.ping()  # and it is a session of the handshake in every way


def test_a_client_of_2026_07_28_alone_waits_its_whole_timeout_then_names_the_era(
        client: Callable[..., tuple[Client, Wire]]) -> None:
    with pytest.raises(McpError, match="did not answer server/discover within 1 s.*initialize handshake"):
        client("scripted", "legacy-silent", protocol_versions=[MODERN], timeout=1.0)


# --- requests of 2026-07-28 ------------------------------------------------------------------------


def test_every_request_carries_the_revision_the_capabilities_and_the_name_beside_the_callers_meta(
        client: Callable[..., tuple[Client, Wire]]) -> None:
    made, wire = client("mcp_ref", MODERN, protocol_versions=ALL_VERSIONS, client_info={"name": "c", "version": "1"},
                        **ANSWERING)
    made.request("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": {"traceparent": "00-x"}},
                 on_progress=lambda *a: None)
    made.list_tools()
    made.read_resource("asked://roots")
    for msg in wire.sent:
        if "id" in msg and "method" in msg:
            meta = msg["params"]["_meta"]
            assert meta["io.modelcontextprotocol/protocolVersion"] == MODERN  # STLS-09
            assert meta["io.modelcontextprotocol/clientCapabilities"] == {
                "roots": {}, "sampling": {}, "elicitation": {"form": {}}}  # no roots.listChanged in this era
            assert meta["io.modelcontextprotocol/clientInfo"] == {"name": "c", "version": "1"}  # STLS-11
    call = next(msg for msg in wire.sent if msg.get("method") == "tools/call")
    assert call["params"]["_meta"]["traceparent"] == "00-x" and "progressToken" in call["params"]["_meta"]


def test_what_the_revision_dropped_and_has_no_stand_in_fails_locally_saying_so(
        client: Callable[..., tuple[Client, Wire]]) -> None:
    """``initialize`` asked by hand in 2026-07-28 (ping, logging/setLevel and the subscriptions have
    stand-ins: tests/revisions/test_client_subscriptions.py)."""
    made, wire = client("mcp_ref", MODERN, protocol_versions=ALL_VERSIONS)
    before = len(wire.sent)
    with pytest.raises(MethodNotFound, match="is not part of 2026-07-28, which this server speaks.*nothing was sent"):
        made.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x"}})
    assert len(wire.sent) == before


ROUNDS = [  # (tool arguments, the options the client needs, the text of the result)
    ({"rounds": 1, "kind": "elicit"}, {"elicitation_handler": person}, "answer!"),
    ({"rounds": 2, "kind": "elicit"}, {"elicitation_handler": person}, "answer!|answer!"),
    ({"rounds": 3, "kind": "elicit"}, {"elicitation_handler": person}, "answer!|answer!|answer!"),
    ({"rounds": 1, "kind": "sample"}, {"sampling_handler": lambda params: "Paris"}, "Paris"),
    ({"rounds": 3, "kind": "sample"}, {"sampling_handler": lambda params: "Paris"}, "Paris|Paris|Paris"),
    ({"rounds": 1, "kind": "roots"}, {"roots": [{"uri": "file:///work"}]}, "file:///work"),
    ({"rounds": 2, "kind": "roots"}, {"roots": lambda: [{"uri": "file:///a"}, {"uri": "file:///b"}]},
     "file:///a,file:///b|file:///a,file:///b"),
]


@pytest.mark.parametrize(("arguments", "options", "text"), ROUNDS, ids=[f"{a['kind']}x{a['rounds']}" for a, _, _ in ROUNDS])
def test_a_tool_that_asks_is_answered_by_the_clients_handlers_over_as_many_rounds_as_it_takes(
        client: Callable[..., tuple[Client, Wire]], arguments: dict[str, Any], options: dict[str, Any], text: str) -> None:
    made, wire = client("mcp_ref", ",".join(HANDSHAKE + [MODERN]), protocol_versions=ALL_VERSIONS, **options)
    result = made.call_tool("ask", arguments)
    assert result["content"][0]["text"] == text and result["resultType"] == "complete"
    calls = [msg for msg in wire.sent if msg.get("method") == "tools/call"]
    assert len(calls) == arguments["rounds"] + 1
    assert len({msg["id"] for msg in calls}) == len(calls)  # MRTR-16
    answers = [msg for msg in wire.received if msg.get("id") in {c["id"] for c in calls}]
    # each retry: the same request, the answers, the state as given
    for asked, answer in zip(calls[1:], answers[:-1], strict=True):
        assert asked["params"]["requestState"] == answer["result"]["requestState"]
        assert set(asked["params"]["inputResponses"]) == set(answer["result"]["inputRequests"])
        assert asked["params"]["arguments"] == arguments and asked["params"]["name"] == "ask"
    # the same tool, over the handshake, asks the same handlers with requests of its own
    with Client.stdio([sys.executable, PEER, "mcp_ref", ",".join(HANDSHAKE + [MODERN])], protocol_versions=HANDSHAKE,
                      timeout=10, **options) as old:
        assert old.protocol_version == "2025-11-25" and old.call_tool("ask", arguments)["content"][0]["text"] == text


def test_a_prompt_and_a_resource_that_ask_are_answered_too(client: Callable[..., tuple[Client, Wire]]) -> None:
    made, _ = client("mcp_ref", MODERN, protocol_versions=[MODERN], **ANSWERING)
    assert made.get_prompt("greet")["messages"][0]["content"]["text"] == "Hello, name!"
    assert made.read_resource("asked://roots")["contents"][0]["text"] == "file:///work"


ECHOES = [  # (tool, rounds the server asks for before its result, whether it sends a requestState)
    ("echo", 1, True), ("echo", 3, True), ("nostate", 1, False), ("elicit", 1, True), ("no_type", 0, False),
]


@pytest.mark.parametrize(("tool", "asked", "state"), ECHOES, ids=[f"{t}-{n}" for t, n, _ in ECHOES])
def test_each_retry_echoes_the_state_byte_for_byte_or_sends_none_under_a_new_id(
        client: Callable[..., tuple[Client, Wire]], tool: str, asked: int, state: bool) -> None:
    made, wire = client("scripted", "modern", protocol_versions=ALL_VERSIONS, **ANSWERING)
    result = made.call_tool(tool, {"rounds": asked + 1} if tool == "echo" else {})
    rounds = json.loads(result["content"][0]["text"])
    assert len(rounds) == asked + 1 and len({r["id"] for r in rounds}) == asked + 1  # MRTR-16
    replies = [msg["result"] for msg in wire.received if msg.get("id") in {r["id"] for r in rounds}]
    for retry, reply in zip(rounds[1:], replies[:-1], strict=True):
        assert ("requestState" in retry["params"]) is state  # MRTR-15
        if state:
            assert retry["params"]["requestState"] == reply["requestState"]  # MRTR-13: untouched
    assert "inputResponses" not in rounds[0]["params"] and "requestState" not in rounds[0]["params"]
    assert all("inputResponses" not in msg["params"] for msg in wire.sent if msg.get("method") == "tools/list")
    # MRTR-17: a later call starts clean
    later = json.loads(made.call_tool("no_type", {})["content"][0]["text"])
    assert all("requestState" not in r["params"] and "inputResponses" not in r["params"] for r in later)


FAILURES = [  # (tool, the client's options, the error's code, words of its message)
    ("odd", {}, -32603, "unknown resultType 'task'"),  # RTYPE-03
    ("endless", {}, -32603, f"after {MAX_ROUNDS} rounds"),
    ("bad_ask", {}, -32603, "'tools/list', which is no request a server may make"),
    ("sampling", {}, -32601, "cannot give ('k', sampling/createMessage)"),  # no handler: no retry
    ("roots", {}, -32601, "cannot give ('k', roots/list)"),
    ("elicit", {}, -32601, "cannot give ('k', elicitation/create)"),
]


@pytest.mark.parametrize(("tool", "options", "code", "words"), FAILURES, ids=[f[0] for f in FAILURES])
def test_a_result_the_client_cannot_use_or_a_question_it_cannot_answer_fails_the_call_clearly(
        client: Callable[..., tuple[Client, Wire]], tool: str, options: dict[str, Any], code: int, words: str) -> None:
    made, wire = client("scripted", "modern", protocol_versions=ALL_VERSIONS, **options)
    with pytest.raises(McpError) as failed:
        made.call_tool(tool, {})
    assert failed.value.code == code and words in failed.value.message
    calls = [msg for msg in wire.sent if msg.get("method") == "tools/call"]
    assert len(calls) == (MAX_ROUNDS if tool == "endless" else 1)  # no retry after a question left unanswered


def test_the_callers_one_timeout_bounds_every_round(client: Callable[..., tuple[Client, Wire]]) -> None:
    made, wire = client("scripted", "modern", protocol_versions=ALL_VERSIONS)
    with pytest.raises(RequestTimeout):
        made.call_tool("slow", {}, timeout=1.0)  # a quarter second a round, for ever: not 16 rounds
    assert 1 <= len([msg for msg in wire.sent if msg.get("method") == "tools/call"]) < MAX_ROUNDS
    assert made.call_tool("no_type", {})["content"]  # and the connection serves on


# --- the headers of a POST (point 5) ----------------------------------------------------------------

NAMES = [("get_weather", "get_weather"), ("file:///a b.txt", "file:///a b.txt"),
         ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="), (" padded ", "=?base64?IHBhZGRlZCA=?="),
         ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="), ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=")]


@pytest.mark.parametrize(("name", "header"), NAMES)
def test_a_name_travels_plain_or_in_the_base64_form(name: str, header: str) -> None:
    assert header_value(name) == header  # HTTPX-19


def test_the_headers_of_a_post_of_2026_07_28_repeat_its_body() -> None:
    meta = {"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}
    for method, field in [("tools/call", "name"), ("prompts/get", "name"), ("resources/read", "uri")]:
        assert http_headers({"id": 1, "method": method, "params": {field: "x", **meta}}) == {
            "MCP-Protocol-Version": MODERN, "Mcp-Method": method, "Mcp-Name": "x"}
    assert http_headers({"id": 1, "method": "tools/list", "params": meta}) == {
        "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list"}
    assert http_headers({"id": 1, "method": "tools/list", "params": {}}) == {}  # a message of the handshake


def test_over_streamable_http_the_demo_server_is_reached_in_2026_07_28_and_a_pinned_client_keeps_the_handshake() -> None:
    """The server checks every header against its body (-32020 otherwise, stateless_http.py): a
    call that succeeds had its MCP-Protocol-Version, Mcp-Method and Mcp-Name right."""
    from ..conftest import SseServerProcess

    server = SseServerProcess("mcp_ref.demo_server:server", "--transport", "http")
    try:
        wire = Wire()
        with Client.http(server.url, protocol_versions=ALL_VERSIONS, fallback=False, timeout=10, trace=wire) as made:
            assert made.protocol_version == MODERN and made.server_info == {"name": "mcp-ref-demo", "version": "0.1.0"}
            assert made.call_tool("add", {"a": 2, "b": 3})["content"][0]["text"] == "5"
            assert made.read_resource(made.list_resources()[0]["uri"])["contents"]
            made.ping()  # this era's ping: a server/discover POST (client_subscriptions.py)
            assert wire.methods()[-1] == "server/discover"
            assert made.session._transport.session_id is None  # type: ignore[attr-defined]  # no session in this era
        assert "initialize" not in wire.methods()
        with Client.http(server.url, timeout=10) as default:  # the default probes as well
            assert default.protocol_version == MODERN
        with Client.http(server.url, protocol_versions=HANDSHAKE, timeout=10) as old:
            assert old.protocol_version == "2025-11-25"
    finally:
        server.close()


def test_over_http_with_sse_a_client_offers_the_handshakes_revisions_alone_and_sends_no_probe() -> None:
    """HTTP with SSE is the transport of the revisions with a handshake (2026-07-28 runs over stdio
    and Streamable HTTP): ``Client.sse`` and ``Client.http``'s fallback to it never probe; a client
    told to speak 2026-07-28 alone is told, before anything is sent, to use ``Client.http``."""
    from ..conftest import SseServerProcess

    server = SseServerProcess("mcp_ref.demo_server:server")  # HTTP with SSE only: its URL is the GET stream's
    try:
        for offered in (None, ALL_VERSIONS, [MODERN, "2025-06-18"]):
            wire = Wire()
            with Client.sse(server.url, protocol_versions=offered, timeout=10, trace=wire) as made:
                assert made.protocol_version == ("2025-06-18" if offered and len(offered) == 2 else "2025-11-25")
                assert made.protocol_versions == stateless_client.handshake_versions(made.protocol_versions)
            assert wire.methods()[0] == "initialize" and "server/discover" not in wire.methods()
        wire = Wire()
        with Client.http(server.url, timeout=10, trace=wire) as fell_back:  # a 4xx to the probe, then HTTP with SSE
            assert fell_back.protocol_version == "2025-11-25"
        assert wire.methods()[-2:] == ["initialize", "notifications/initialized"]
        with pytest.raises(ValueError, match="HTTP with SSE carries only the revisions with a handshake.*Client.http"):
            Client.sse(server.url, protocol_versions=[MODERN], timeout=10)
    finally:
        server.close()


@pytest.mark.parametrize("mode", ["http-break-first-call", "http-break-every-call"])
def test_over_http_a_request_whose_stream_broke_is_sent_again_under_a_new_id(mode: str) -> None:
    """HTTPX-11: streams are not resumed in 2026-07-28; a request whose response stream ends
    before its answer, the server still there, is sent again as a new request (a new id), within
    the caller's timeout, at most MAX_RESENDS times; then the error says how many times it went.
    The demo server behind tests/peers/broken_stateless_server.py's relay, which loses the answer
    of the first (or of every) tools/call."""
    import subprocess

    relay = subprocess.Popen([sys.executable, str(Path(PEER).with_name("broken_stateless_server.py")), "--mode", mode],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert relay.stdout is not None
        url = relay.stdout.readline().rsplit(" at ", 1)[1].strip()
        wire = Wire()
        with Client.http(url, fallback=False, timeout=20, trace=wire) as made:
            assert made.protocol_version == MODERN
            if mode == "http-break-first-call":
                assert made.call_tool("add", {"a": 2, "b": 3})["content"][0]["text"] == "5"
                expected = 2
            else:
                with pytest.raises(McpError, match=rf"before answering.*sent {stateless_client.MAX_RESENDS + 1} times"):
                    made.call_tool("add", {"a": 2, "b": 3})
                expected = stateless_client.MAX_RESENDS + 1
            made.ping()  # the connection stands
        calls = [msg for msg in wire.sent if msg.get("method") == "tools/call"]
        assert len(calls) == expected and len({msg["id"] for msg in calls}) == expected
        assert all(msg["params"] == calls[0]["params"] for msg in calls)  # the same request, each time new
    finally:
        relay.terminate()
        relay.wait(10)
        if relay.stdout is not None:
            relay.stdout.close()
