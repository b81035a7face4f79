"""Interop at revision 2026-07-28: our Client against servers built with the official Python SDK
(``mcp`` 2.x), over stdio and over Streamable HTTP (the SDK's ``streamable_http_app`` under
uvicorn), with no handshake.

https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
https://modelcontextprotocol.io/specification/2026-07-28/server/discover
https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging
https://modelcontextprotocol.io/specification/2026-07-28/server/resources

The SDK's servers serve 2026-07-28 beside the handshake. Our Client, offering 2026-07-28 alone
or every revision (``protocol_versions=``), must reach it with ``server/discover`` and never send
``initialize``; name the revision in every request's ``_meta``; list and call tools, with
progress; list and read resources (one whose URI is not plain ASCII, which over HTTP travels
Base64-encoded in Mcp-Name), get prompts and complete; hear no log message, having asked for no
level; and answer the servers' ``input_required`` results with its own handlers
(``elicitation_handler``, ``sampling_handler``, ``roots=``), one, two and three rounds, each a new
request carrying the server's ``requestState`` back unchanged. The servers: the SDK's MCPServer, asking through its resolvers
(tests/interop/sdk_servers/modern_server.py), and its low-level Server, building the
``InputRequiredResult`` itself (modern_lowlevel_server.py; over HTTP in its event-stream and its
JSON-response modes). Every message is checked against the 2026-07-28 schema by the tap.

A client offering every revision whose probe times out while the SDK's server is still starting
over stdio falls back to initialize, which that server (having answered the probe late) refuses
with -32022 naming 2026-07-28: the client then asks server/discover again and reaches it
(test_our_client_reaches_a_slow_starting_sdk_server).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_ref import SUPPORTED_PROTOCOL_VERSIONS, Client, McpError
from mcp_ref.revisions.stateless_client import ALL_VERSIONS

from ..support.schema_tap import SchemaTap, schema_available

pytest.importorskip("mcp", reason="the official SDK (pip install 'mcp>=2') is the interop peer")

SERVERS = Path(__file__).parent / "sdk_servers"
MODERN = "2026-07-28"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"


class SdkServer:
    """One SDK server script over one transport: ``connect(**kwargs)`` gives our connected Client."""

    def __init__(self, script: str, transport: str) -> None:
        self.command = [sys.executable, str(SERVERS / script)]
        self.transport = transport
        self.proc: subprocess.Popen[str] | None = None
        if transport.startswith("http"):  # http, or http-json: the SDK answers each POST with JSON
            self.proc = subprocess.Popen([*self.command, transport], stdout=subprocess.PIPE, text=True)
            assert self.proc.stdout is not None
            line = self.proc.stdout.readline()  # "listening at URL", printed once the socket listens
            assert " at http" in line, f"the SDK server did not start: {line!r}"
            self.url = line.split(" at ", 1)[1].strip()

    def connect(self, tap: SchemaTap, **kwargs: Any) -> Client:
        if self.transport.startswith("http"):
            return Client.http(self.url, trace=tap, timeout=20, **kwargs)
        return Client.stdio(self.command, trace=tap, timeout=20, **kwargs)

    def close(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
            assert self.proc.stdout is not None
            self.proc.stdout.close()


@pytest.fixture(params=["stdio", "http"])
def transport(request: Any) -> str:
    return str(request.param)


def sdk_server(script: str, transport: str) -> Iterator[SdkServer]:
    server = SdkServer(script, transport)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def mcpserver(transport: str) -> Iterator[SdkServer]:
    yield from sdk_server("modern_server.py", transport)


@pytest.fixture(params=["stdio", "http", "http-json"])
def lowlevel(request: Any) -> Iterator[SdkServer]:
    yield from sdk_server("modern_lowlevel_server.py", request.param)


def sent(tap: SchemaTap) -> list[dict[str, Any]]:
    """The requests our client sent, in order."""
    return [m for d, m in tap.messages if d == "->" and isinstance(m, dict) and "method" in m and "id" in m]


def answer(tap: SchemaTap, request: dict[str, Any]) -> dict[str, Any]:
    return next(m for d, m in tap.messages if d == "<-" and "method" not in m and m.get("id") == request["id"])


def assert_rounds(tap: SchemaTap, tool: str, rounds: int) -> None:
    """``rounds`` requests for the tool, each with an id of its own, each after the first bringing
    back the state of the answer before unchanged, and an answer to every question it asked."""
    calls = [m for m in sent(tap) if m["method"] == "tools/call" and m["params"]["name"] == tool]
    assert len(calls) == rounds and len({m["id"] for m in calls}) == rounds, f"{tool}: {[m['id'] for m in calls]}"
    for before, after in zip(calls, calls[1:], strict=False):
        asking = answer(tap, before)["result"]
        assert asking["resultType"] == "input_required"
        assert after["params"]["requestState"] == asking["requestState"], f"{tool}: the state came back changed"
        assert set(after["params"]["inputResponses"]) == set(asking["inputRequests"])
    assert answer(tap, calls[-1])["result"]["resultType"] == "complete"


def elicitation_answers(asked: list[str], answers: dict[str, dict[str, Any]]) -> Any:
    def handler(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params["message"])
        return {"action": "accept", "content": answers[params["message"]]}

    return handler


def sampling_answer(asked: list[str]) -> Any:
    def handler(params: dict[str, Any]) -> dict[str, Any]:
        asked.append("sampling: " + params["messages"][0]["content"]["text"])
        return {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "our-model"}

    return handler


ROOTS = [{"uri": "file:///srv/data", "name": "data"}]


@pytest.mark.parametrize("offered", [[MODERN], list(ALL_VERSIONS), None], ids=["2026-07-28-only", "every-revision",
                                                                             "default"])
def test_our_client_reaches_the_sdk_mcpserver_in_2026_07_28_and_answers_its_resolvers(
        mcpserver: SdkServer, offered: list[str], tap: SchemaTap) -> None:
    asked: list[str] = []
    logs: list[dict[str, Any]] = []
    progress: list[tuple[Any, Any]] = []
    answers = {"Please sign up": {"name": "Ada", "age": 36}, "Your name?": {"name": "Ada"},
               "Your age, Ada?": {"age": 36}}
    with mcpserver.connect(tap, protocol_versions=offered, elicitation_handler=elicitation_answers(asked, answers),
                           sampling_handler=sampling_answer(asked), roots=ROOTS, on_log_message=logs.append) as client:
        assert client.protocol_version == MODERN
        assert client.server_info is not None and client.server_info["name"] == "sdk-modern"
        assert [t["name"] for t in client.list_tools()] == ["add", "count", "sign_up", "ask", "interview"]
        added = client.call_tool("add", {"a": 2, "b": 3})
        assert added["content"][0]["text"] == "5" and added["structuredContent"] == {"result": 5}
        counted = client.call_tool("count", {"steps": 3},
                                   on_progress=lambda params: progress.append((params["progress"], params["total"])))
        assert counted["content"][0]["text"] == "counted to 3"
        assert client.call_tool("sign_up")["content"][0]["text"] == "Ada, 36"  # one round
        asked_both = client.call_tool("ask", {"question": "hi?"})["content"][0]["text"]  # two questions, one round
        assert asked_both == "model=our-model said=hi roots=['file:///srv/data']"
        assert client.call_tool("interview")["content"][0]["text"] == "Ada is 36"  # the second depends on the first
        # resources, prompts, completion; names that are not plain ASCII travel Base64-encoded in Mcp-Name (HTTP)
        assert [r["uri"] for r in client.list_resources()] == ["sdk://hello"]
        assert [t["uriTemplate"] for t in client.list_resource_templates()] == ["sdk://items/{item}"]
        assert client.read_resource("sdk://hello")["contents"][0]["text"] == "hello from the SDK"
        assert client.read_resource("sdk://items/ünï")["contents"][0]["text"] == "item ünï"
        assert [p["name"] for p in client.list_prompts()] == ["greet"]
        prompt = client.get_prompt("greet", {"name": "Åsa"})
        assert prompt["messages"][0]["content"]["text"] == "Say hello to Åsa."
        completion = client.complete({"type": "ref/prompt", "name": "greet"}, {"name": "name", "value": "al"})
        assert completion["completion"]["values"] == ["alpha", "alps"]
    assert progress == [(1, 3), (2, 3), (3, 3)]
    assert logs == [], "the SDK sent log messages to a client that asked for no level (LOGX-01)"
    assert asked[:2] == ["Please sign up", "sampling: hi?"] and asked[2:] == ["Your name?", "Your age, Ada?"]
    requests = sent(tap)
    assert requests[0]["method"] == "server/discover" and "initialize" not in tap.methods("->")
    assert all(m["params"]["_meta"][VERSION_KEY] == MODERN for m in requests)
    assert_rounds(tap, "sign_up", 2)
    assert_rounds(tap, "ask", 2)
    assert_rounds(tap, "interview", 3)
    if schema_available():
        assert tap.revision == MODERN


def test_our_client_answers_the_sdk_lowlevel_servers_input_required_results(lowlevel: SdkServer, tap: SchemaTap) -> None:
    """Three questions of three kinds in one round, then one more; the server's own plain-text
    requestState ("round-1", then one carrying the answers as JSON) must come back byte for byte."""
    asked: list[str] = []
    answers = {"Your name?": {"name": "Ada"}, "Sure?": {"name": "yes"}}
    with lowlevel.connect(tap, protocol_versions=list(ALL_VERSIONS), elicitation_handler=elicitation_answers(asked, answers),
                          sampling_handler=sampling_answer(asked), roots=ROOTS) as client:
        assert client.protocol_version == MODERN
        assert client.server_info is not None and client.server_info["name"] == "sdk-modern-lowlevel"
        assert client.call_tool("add", {"a": 2, "b": 3})["content"][0]["text"] == "5"
        result = client.call_tool("ask")
    assert not result.get("isError"), result
    assert json.loads(result["content"][0]["text"]) == {
        "model": {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "our-model"},
        "roots": {"roots": ROOTS},
        "user": {"action": "accept", "content": {"name": "Ada"}},
        "confirm": {"action": "accept", "content": {"name": "yes"}}}
    assert sorted(asked) == ["Sure?", "Your name?", "sampling: Say hi"] and asked[-1] == "Sure?"
    assert "initialize" not in tap.methods("->")
    assert_rounds(tap, "ask", 3)


def test_our_client_reaches_a_slow_starting_sdk_server(tap: SchemaTap, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over stdio the server may still be starting when the probe goes out (the SDK's Python server
    takes seconds on a loaded machine; the probe waits ``PROBE_TIMEOUT``, 5 s). Here the start takes
    longer than a probe timeout shortened to 0.5 s: the same race, made certain. A server that
    answers the probe late is still a server of 2026-07-28, and the client must reach it."""
    from mcp_ref.revisions import stateless_client

    monkeypatch.setattr(stateless_client, "PROBE_TIMEOUT", 0.5)
    script = str(SERVERS / "modern_server.py")
    slow = [sys.executable, "-c", "import runpy, sys, time; time.sleep(1.5); sys.argv = [sys.argv[1]]; "
                                  "runpy.run_path(sys.argv[0], run_name='__main__')", script]
    with Client.stdio(slow, trace=tap, timeout=20, protocol_versions=list(ALL_VERSIONS)) as client:
        assert client.protocol_version == MODERN
        assert client.call_tool("add", {"a": 2, "b": 3})["content"][0]["text"] == "5"


def test_an_sdk_server_whose_tools_ask_the_old_way_fails_them_in_2026_07_28_and_not_in_the_handshake(
        transport: str) -> None:
    """The SDK's servers offer 2026-07-28 whatever their tools do. A tool that asks the client with
    ``ctx.session.create_message`` (a request of the server's own, which that revision cannot
    carry) fails there on the SDK's side; our default client, which probes as the SDK's own client
    does, reaches it in 2026-07-28 and gets that error as it came, while every tool that asks
    nothing works. Offering the handshake's revisions (``protocol_versions=SUPPORTED_PROTOCOL_VERSIONS``)
    reaches the same tool in a session, where it is answered (the README says so)."""
    options: dict[str, Any] = {"sampling_handler": lambda params: "sampled", "roots": [{"uri": "file:///ours"}],
                               "timeout": 20}
    for server in sdk_server("full_server.py", transport):
        command = server.command
        with (Client.stdio(command, **options) if transport == "stdio" else Client.http(server.url, **options)) as client:
            assert client.protocol_version == MODERN
            assert client.call_tool("add", {"a": 20, "b": 22})["content"][0]["text"] == "42"
            with pytest.raises(McpError, match="back-channel") as failed:
                client.call_tool("ask", {"question": "q"})
            assert failed.value.code == -32600  # the SDK's own error, passed on
        pinned = {**options, "protocol_versions": SUPPORTED_PROTOCOL_VERSIONS}
        with (Client.stdio(command, **pinned) if transport == "stdio" else Client.http(server.url, **pinned)) as client:
            assert client.protocol_version == "2025-11-25"
            assert client.call_tool("ask", {"question": "q"})["content"][0]["text"] == "unknown: sampled | ['file:///ours']"
