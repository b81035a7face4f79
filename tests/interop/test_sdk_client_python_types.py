"""Interop: the official Python SDK's client (``mcp`` 2.x) reads every kind of converted value.

https://modelcontextprotocol.io/specification/2024-11-05/server/tools
https://modelcontextprotocol.io/specification/2024-11-05/server/prompts
https://modelcontextprotocol.io/specification/2024-11-05/server/resources
The SDK parses each result with its own models, so a result that is not valid makes it raise.
https://modelcontextprotocol.io/specification/2026-07-28/server/tools
Our server (tests/peers/typed_server.py) returns every kind of Python value from tools, prompts and
resources; the SDK must accept each, and our trace must be clean against the schema of the
revision spoken. The conversion does not depend on the era, so the SDK runs in both: pinned to
the handshake (``mode="legacy"``: 2025-11-25) and in its default mode ("auto"), which reaches
2026-07-28 with our server.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from ..conftest import ROOT
from ..support.schema_tap import SchemaTap, schema_available

mcp = pytest.importorskip("mcp", reason="the official SDK (pip install 'mcp>=2') is the interop peer")
anyio = pytest.importorskip("anyio")
pytestmark = pytest.mark.filterwarnings("ignore:.*(deprecated|removed) as of 2026-07-28")

KINDS = ["str", "png", "unknown_bytes", "image", "embedded_text", "embedded_bytes", "data", "dataclass",
         "lookalike", "mixed", "none"]


@pytest.mark.parametrize(("mode", "revision"), [("legacy", "2025-11-25"), ("auto", "2026-07-28")])
def test_sdk_client_accepts_every_converted_value(tmp_path: Path, mode: str, revision: str) -> None:
    from mcp import Client, StdioServerParameters

    trace = tmp_path / "trace.txt"
    args = ["-m", "mcp_ref", "serve", "tests.peers.typed_server:server", "--trace-file", str(trace)]

    async def main() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with Client(StdioServerParameters(command=sys.executable, args=args, cwd=str(ROOT)), mode=mode) as client:
            seen["revision"] = client.protocol_version
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tools = {t.name: t for t in (await client.list_tools()).tools}
                seen["schema"] = tools["describe"].input_schema
                described = await client.call_tool("describe", {"point": {"x": 2, "y": 3}, "color": "blue",
                                                                "when": "2024-05-01T12:00:00Z", "scale": 2})
                seen["describe"] = json.loads(described.content[0].text)
                for kind in KINDS:
                    result = await client.call_tool("give", {"kind": kind})
                    seen[f"tool {kind}"] = (result.is_error, [c.type for c in result.content])
                    prompt = await client.get_prompt("show", {"kind": kind})
                    seen[f"prompt {kind}"] = [m.content.type for m in prompt.messages]
                for uri in ("typed://data", "typed://bytes", "typed://mixed", "typed://points/2"):
                    contents = (await client.read_resource(uri)).contents
                    seen[uri] = [(c.mime_type, "blob" if hasattr(c, "blob") else "text") for c in contents]
        return seen

    seen = anyio.run(main)
    assert seen["revision"] == revision
    assert seen["schema"]["properties"]["point"]["required"] == ["x", "y"]
    assert seen["schema"]["properties"]["scale"]["description"] == "how much to scale"
    assert seen["describe"] == {"point": "Point", "x": 4.0, "color": "BLUE", "weekday": "Wednesday"}
    assert seen["tool png"] == (False, ["image"]) and seen["tool unknown_bytes"] == (False, ["resource"])
    assert seen["tool mixed"] == (False, ["text", "image", "resource", "text", "image"])
    assert seen["tool lookalike"] == (False, ["text"]) and seen["tool none"] == (False, ["text"])
    assert seen["prompt embedded_bytes"] == ["resource"] and seen["prompt mixed"] == ["text", "image", "resource",
                                                                                      "text", "image"]
    assert seen["typed://data"] == [("application/json", "text")]
    assert seen["typed://bytes"] == [(None, "blob")]
    assert seen["typed://mixed"] == [(None, "text"), ("image/png", "blob"), ("image/png", "blob"),
                                     ("text/plain", "text"), ("application/json", "text")]
    assert seen["typed://points/2"] == [("application/json", "text")]
    tap = SchemaTap("server")
    tap.feed_file(str(trace))
    if schema_available():  # checked against that revision's schema
        assert tap.revision == revision
    tap.assert_clean()
