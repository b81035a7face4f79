"""Interop at revision 2025-11-25: the official Python SDK's client against our server, over stdio
and Streamable HTTP, with the tool features of the revisions after 2024-11-05.

https://modelcontextprotocol.io/specification/2025-11-25/server/tools
Our server (tests/peers/later_server.py) offers a titled, annotated tool with icons and
structured output, one returning audio, one a resource link, and one that asks the user (our
``ctx.elicit``, answered by the SDK's elicitation callback); the SDK reads each into its own
types (and checks the structured result against the output schema itself). Our server writes
every message to a trace, checked against the 2025-11-25 schema at the end.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from ..conftest import ROOT, SseServerProcess
from ..support.schema_tap import SchemaTap, schema_available

mcp = pytest.importorskip("mcp", reason="the official SDK (pip install 'mcp>=2') is the interop peer")
anyio = pytest.importorskip("anyio")
pytestmark = pytest.mark.filterwarnings("ignore:.*(deprecated|removed) as of 2026-07-28")

LATER_SERVER = "tests/peers/later_server.py:server"


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_sdk_client_reads_every_later_tool_feature_of_our_server(transport: str, tmp_path: Path) -> None:
    from mcp import Client, StdioServerParameters

    trace = str(tmp_path / "trace.txt")
    http = SseServerProcess(LATER_SERVER, "--trace-file", trace, "--transport", "http") if transport == "http" else None
    target: Any = http.url if http is not None else StdioServerParameters(
        command=sys.executable, args=["-m", "mcp_ref", "serve", LATER_SERVER, "--trace-file", trace], cwd=str(ROOT))

    async def elicitation(context: Any, params: Any) -> Any:
        asked.append(params)
        from mcp_types import ElicitResult

        return ElicitResult(action="accept", content={"city": "Oslo"})

    asked: list[Any] = []

    async def main() -> tuple[Any, ...]:
        async with Client(target, mode="legacy", elicitation_callback=elicitation) as client:  # the 2025-11-25 handshake
            where = await client.call_tool("where", {})
            assert where.content[0].text == "Oslo" and not where.is_error  # our ctx.elicit, answered by the SDK
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            weather = await client.call_tool("weather", {"city": "Oslo"})
            chime = await client.call_tool("chime", {})
            link = await client.call_tool("link", {})
            return client.protocol_version, tools, weather, chime, link

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            version, tools, weather, chime, link = anyio.run(main)
    finally:
        if http is not None:
            http.close()
    assert version == "2025-11-25"
    tool = tools["weather"]
    assert tool.title == "Weather" and tool.annotations.read_only_hint is True and tool.annotations.open_world_hint is False
    assert tool.icons[0].src == "https://example.com/sun.png"
    assert tool.output_schema["type"] == "object" and set(tool.output_schema["required"]) == {"city", "celsius"}
    assert weather.structured_content == {"city": "Oslo", "celsius": 21.5} and not weather.is_error
    assert '"Oslo"' in weather.content[0].text  # the same JSON as text
    assert chime.content[0].type == "audio" and chime.content[0].mime_type == "audio/wav"
    assert link.content[0].type == "resource_link" and str(link.content[0].uri) == "notes://1"
    assert asked and asked[0].requested_schema["properties"]["city"] == {"type": "string"}
    tap = SchemaTap("server")
    tap.feed_file(trace)
    assert tap.messages
    if schema_available():  # (a clone without ../shared checks no schema, and so never switches)
        assert tap.revision == "2025-11-25"
    tap.assert_clean()
