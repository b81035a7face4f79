"""Interop: our client against the "everything" reference server in its Streamable HTTP mode.

https://modelcontextprotocol.io/specification/2025-03-26/basic/transports
``mcp-server-everything streamableHttp`` (installed in .peers, or through npx: node_peers.py):
the TypeScript SDK's Streamable HTTP server (event streams, event ids for resumption, a GET
stream), speaking a later revision and accepting our 2024-11-05. Tools, progress, the server's
sampling and roots requests, resources, prompts, logging. Skips (saying why) where it is not
installed in .peers and npx is absent or cannot fetch it. Its messages carry fields of later
revisions, so they are not checked against the 2024-11-05 schema here; what our client sends is
(the tap checks only our side).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_ref import Client

from ..check.test_check import check_json
from .node_peers import everything_server, free_port, stop_group, wait_listening


@pytest.fixture(scope="module")
def everything() -> Iterator[str]:
    port = free_port()
    peer = everything_server()
    proc = subprocess.Popen([*peer.argv, "streamableHttp"], env={**peer.env, "PORT": str(port)},
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        wait_listening(port, proc, 120, "the everything server", says=f"listening on port {port}")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop_group(proc)


def test_our_client_uses_the_everything_server_over_streamable_http(everything: str, tap: Any) -> None:
    sampled: list[dict[str, Any]] = []
    progress: list[dict[str, Any]] = []
    logs: list[dict[str, Any]] = []

    def model(params: dict[str, Any]) -> str:
        sampled.append(params)
        return "sampled text"

    with Client.http(everything, timeout=30, fallback=False, sampling_handler=model, on_log_message=logs.append,
                     roots=[{"uri": "file:///ours", "name": "ours"}], on_notification=lambda m, p: None,
                     trace=lambda direction, data: tap(direction, data) if direction == "->" else None) as client:
        assert client.protocol_version == "2025-11-25"  # its newest, and ours
        assert client.server_info is not None and "everything" in client.server_info["name"]
        names = [tool["name"] for tool in client.list_tools()]
        assert {"echo", "get-sum", "trigger-long-running-operation", "trigger-sampling-request", "get-roots-list"} <= set(names)
        assert client.call_tool("echo", {"message": "hi"})["content"][0]["text"] == "Echo: hi"
        assert "5" in client.call_tool("get-sum", {"a": 2, "b": 3})["content"][0]["text"]
        long_run = client.call_tool("trigger-long-running-operation", {"duration": 1, "steps": 3},
                                    on_progress=progress.append)
        assert "completed" in long_run["content"][0]["text"]
        assert [p["progress"] for p in progress] == [1, 2, 3]  # on the POST's event stream
        asked = client.call_tool("trigger-sampling-request", {"prompt": "hello", "maxTokens": 10})
        assert "sampled text" in asked["content"][0]["text"] and sampled[0]["maxTokens"] == 10
        assert "file:///ours" in client.call_tool("get-roots-list", {})["content"][0]["text"]
        resources = client.list_resources()
        assert resources and "contents" in client.read_resource(resources[0]["uri"])
        prompts = [prompt["name"] for prompt in client.list_prompts()]
        assert "simple-prompt" in prompts
        assert client.get_prompt("simple-prompt")["messages"][0]["role"] == "user"
        client.set_logging_level("debug")
        client.ping()
        session_id = client.session._transport.session_id  # type: ignore[attr-defined]
        assert session_id  # it gave one; DELETE ends it as we close


def test_the_kit_over_streamable_http_grades_the_transports_own_rules_as_the_spec_does(
        everything: str, tmp_path: Path) -> None:
    """`mcp-ref check server --http` against a server that follows the 2025-03-26 transport page
    where it differs from a 2024-11-05 session: it refuses requests without a session id (HTTP
    400, an error with a null id: SHTTP-38) and takes batches (SHTTP-11). A refusal before the
    session exists is an answer, not silence (a ping so refused is noted: the page allows it); where
    the page and 2024-11-05 disagree (batches) the verdict is a warning naming both, never a MUST failure.
    The kit is pinned to 2024-11-05, the session this test is about."""
    code, report, out = check_json(tmp_path, "server", "--http", everything, "--only", "lifecycle", "ping",
                                   "basic/messages", "--timeout", "10", "--protocol-version", "2024-11-05")
    cases = {c["name"]: c for c in report["cases"]}
    assert not [name for name, c in cases.items() if c["status"] == "FAIL"], out
    early = cases["lifecycle.survives-a-request-before-initialize"]
    assert early["status"] == "PASS" and any("HTTP 400" in note and "SHTTP-38" in note for note in early["notes"]), out
    ping = cases["ping.ping-before-initialize"]  # the 400 is what SHTTP-38 allows: noted (INFO)
    assert ping["status"] == "PASS" and any("SHTTP-38" in note for note in ping["notes"]), out
    batches = cases["messages.answers-invalid-envelopes-with-32600"]
    assert batches["status"] == "WARN", out
    assert {f["sent"] for f in batches["findings"]} <= {"[]", '[{"jsonrpc":"2.0","id":"mcp-ref-check-batch","method":"ping"}]'}
    assert all("SHTTP-11" in f["message"] for f in batches["findings"]), out
