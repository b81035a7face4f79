"""Interop: our client against servers built with the official Python SDK (``mcp`` 2.x), over stdio.

https://modelcontextprotocol.io/specification/2024-11-05/server/utilities/pagination
Every message is checked against the 2024-11-05 schema by the tap; the SDK's server speaks
several revisions, and answers our 2024-11-05 proposal in kind.
"""

from __future__ import annotations

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
