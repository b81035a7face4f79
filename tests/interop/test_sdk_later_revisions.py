"""Interop at revision 2025-11-25: our client and the official Python SDK's server, over stdio and
Streamable HTTP, with the tool features of the revisions after 2024-11-05.

https://modelcontextprotocol.io/specification/2025-11-25/server/tools
The SDK's MCPServer (tests/interop/sdk_servers/later_server.py) offers a tool with a title,
annotations, icons and structured output, one returning audio and one a resource link. Our client
agrees on 2025-11-25 with it, and every message is checked against that revision's schema; a tool
that elicits gets its answer from our client's ``elicitation_handler``. Our clients here offer the
revisions with a handshake alone (2026-07-28 with the SDK: test_sdk_server_2026.py).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_ref import Client

SERVER = Path(__file__).parent / "sdk_servers" / "later_server.py"
pytestmark = pytest.mark.usefixtures("handshake_by_default")


def answer_city(params: dict[str, Any]) -> dict[str, Any]:
    assert params["requestedSchema"]["properties"]["city"]["type"] == "string"
    return {"action": "accept", "content": {"city": "Oslo"}}


@pytest.fixture(params=["stdio", "http"])
def sdk_client(request: pytest.FixtureRequest, tap: Any) -> Iterator[Client]:
    if request.param == "stdio":
        with Client.stdio([sys.executable, str(SERVER)], trace=tap, timeout=20, elicitation_handler=answer_city) as client:
            yield client
        return
    proc = subprocess.Popen([sys.executable, str(SERVER), "http"], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split(" at ", 1)[1].strip()
        with Client.http(url, trace=tap, timeout=20, fallback=False, elicitation_handler=answer_city) as client:
            yield client
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()


def test_our_client_reads_every_later_tool_feature_of_an_sdk_server(sdk_client: Client) -> None:
    assert sdk_client.protocol_version == "2025-11-25"
    assert sdk_client.server_info is not None and sdk_client.server_info["title"] == "The SDK, later"
    tools = {tool["name"]: tool for tool in sdk_client.list_tools()}
    weather = tools["weather"]
    assert weather["title"] == "Weather" and weather["annotations"] == {"readOnlyHint": True, "openWorldHint": False}
    assert weather["icons"][0]["src"] == "https://example.com/sun.png"
    assert weather["outputSchema"]["type"] == "object" and set(weather["outputSchema"]["required"]) == {"city", "celsius"}
    result = sdk_client.call_tool("weather", {"city": "Oslo"})
    assert result["structuredContent"] == {"city": "Oslo", "celsius": 21.5}
    assert result["content"][0]["type"] == "text" and '"Oslo"' in result["content"][0]["text"]  # the JSON as text too
    audio = sdk_client.call_tool("chime")["content"][0]
    assert audio["type"] == "audio" and audio["mimeType"] == "audio/wav" and audio["data"]
    link = sdk_client.call_tool("link")["content"][0]
    assert link == {"type": "resource_link", "uri": "sdk://notes/1", "name": "note-1", "mimeType": "text/plain"}


def test_our_client_answers_the_elicitation_of_an_sdk_servers_tool(sdk_client: Client) -> None:
    assert sdk_client.call_tool("where")["content"][0]["text"] == "Oslo"
