"""Interop: our client against servers built with the official Python SDK (``mcp`` 2.x), over
stdio and over HTTP with SSE.

https://modelcontextprotocol.io/specification/2024-11-05/server/utilities/pagination
https://modelcontextprotocol.io/specification/2024-11-05/client/sampling
https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse
Every message is checked against the 2024-11-05 schema by the tap; the SDK's server speaks
several revisions, and answers our 2024-11-05 proposal in kind.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_ref import Client

pytest.importorskip("mcp", reason="the official SDK (pip install 'mcp>=2') is the interop peer")

SERVERS = Path(__file__).parent / "sdk_servers"


def test_our_client_follows_every_page_of_a_third_party_server(tap: Any) -> None:
    with Client.stdio([sys.executable, str(SERVERS / "paged_server.py")], trace=tap, timeout=20) as client:
        assert client.protocol_version == "2024-11-05"
        assert [t["name"] for t in client.list_tools()] == [f"sdk_tool_{i}" for i in range(5)]
        assert [r["uri"] for r in client.list_resources()] == [f"sdk://r/{i}" for i in range(5)]
        assert len(client.list_resource_templates()) == 3
        assert [p["name"] for p in client.list_prompts()] == [f"sdk_prompt_{i}" for i in range(7)]
        client.ping()
    assert tap.methods("->").count("prompts/list") == 4  # 2 + 2 + 2 + 1, each page asked for


def test_sdk_server_tool_gets_sampling_and_roots_from_our_client(tap: Any) -> None:
    seen: list[dict[str, Any]] = []

    def model(params: dict[str, Any]) -> dict[str, Any]:
        seen.append(params)
        return {"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "our-model",
                "stopReason": "endTurn"}

    roots = [{"uri": "file:///srv/data", "name": "data"}]
    with Client.stdio([sys.executable, str(SERVERS / "asking_server.py")], trace=tap, timeout=20,
                      sampling_handler=model, roots=roots) as client:
        result = client.call_tool("ask_client", {"question": "hi?"})
    assert result["content"][0]["text"] == "model=our-model said=hello roots=['file:///srv/data']"
    assert seen[0]["messages"][0]["content"]["text"] == "hi?" and seen[0]["systemPrompt"] == "Be brief."
    assert tap.methods("<-").count("sampling/createMessage") == 1 and "roots/list" in tap.methods("<-")


def test_our_client_over_sse_against_the_sdk_sse_server(tap: Any) -> None:
    proc = subprocess.Popen([sys.executable, str(SERVERS / "sse_server.py")], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split(" at ", 1)[1].strip()
        logs: list[dict[str, Any]] = []

        def model(params: dict[str, Any]) -> dict[str, Any]:
            return {"role": "assistant", "content": {"type": "text", "text": "yes"}, "model": "ours"}

        with Client.sse(url, trace=tap, timeout=20, sampling_handler=model, roots=[{"uri": "file:///r"}],
                        on_log_message=logs.append) as client:
            assert client.protocol_version == "2024-11-05"
            assert client.server_info is not None and client.server_info["name"] == "sdk-sse"
            client.ping()
            assert {t["name"] for t in client.list_tools()} == {"add", "ask_client"}
            assert client.call_tool("add", {"a": 2, "b": 3})["content"][0]["text"] == "5"
            assert client.read_resource("sdk://hello")["contents"][0]["text"] == "hello from the SDK"
            assert "Ada" in client.get_prompt("greet", {"name": "Ada"})["messages"][0]["content"]["text"]
            assert client.call_tool("ask_client", {"question": "ok?"})["content"][0]["text"] == "ours: yes | ['file:///r']"
            endpoint = client.session._transport._endpoint  # type: ignore[attr-defined]
        assert endpoint.startswith(url.replace("/sse", "/messages/?session_id="))  # resolved from a relative URI
        assert any(log["data"] == "asking the client" for log in logs)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()
