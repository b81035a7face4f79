"""Interop with newer revisions: fields and capabilities 2024-11-05 does not know are accepted,
kept, and handed to the user unchanged, in both directions, in a session pinned to 2024-11-05
(servers built on other SDKs put later fields into such sessions).

https://modelcontextprotocol.io/specification/2024-11-05/basic/messages
(see ../shared/spec/REVISION-DELTAS.md for what 2025-03-26 and later added)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp_ref import Client, RequestContext, Server
from mcp_ref.machinery.memory import MemoryTransport

NEWER_TOOL = {
    "name": "search", "title": "Search the web", "description": "Find pages.",
    "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
    "outputSchema": {"type": "object", "properties": {"hits": {"type": "integer"}}},
    "annotations": {"readOnlyHint": True, "title": "Search"}, "_meta": {"vendor/x": 1},
}


def test_client_keeps_newer_fields_and_capabilities(memory_client: Callable[..., Client]) -> None:
    server = Server("newer")
    server.tool()(lambda: "x")
    server.capabilities = lambda version=None: {  # type: ignore[method-assign]
        "tools": {"listChanged": True}, "completions": {}, "experimental": {"vendor": {"on": True}},
        "tasks": {"list": {}}}
    server.request_handlers["tools/list"] = lambda ctx: {"tools": [NEWER_TOOL], "_meta": {"page": 1}}
    server.request_handlers["tools/call"] = lambda ctx: {
        "content": [{"type": "text", "text": "3 hits", "annotations": {"audience": ["user"], "priority": 0.5}}],
        "structuredContent": {"hits": 3}, "isError": False, "_meta": {"trace": "abc"}}
    client = memory_client(server, protocol_versions=["2024-11-05"])
    assert client.protocol_version == "2024-11-05"
    assert client.server_capabilities["completions"] == {}
    assert client.server_capabilities["tasks"] == {"list": {}}
    assert client.server_capabilities["experimental"] == {"vendor": {"on": True}}
    assert client.list_tools() == [NEWER_TOOL]
    result = client.call_tool("search", {"q": "mcp"})
    assert result["structuredContent"] == {"hits": 3} and result["_meta"] == {"trace": "abc"}
    assert result["content"][0]["annotations"] == {"audience": ["user"], "priority": 0.5}


class NewerClient(Client):
    """A client that also declares capabilities from later revisions."""

    def capabilities(self) -> dict[str, Any]:
        return {**super().capabilities(), "elicitation": {"form": {}}, "experimental": {"vendor": {}}}


def test_server_keeps_newer_fields_from_the_client(tap: Any) -> None:
    server = Server("older")
    seen: dict[str, Any] = {}

    @server.tool()
    def echo(ctx: RequestContext, text: str) -> str:
        seen["params"] = ctx.params
        seen["client_capabilities"] = ctx.session.lifecycle.peer_capabilities
        seen["client_info"] = ctx.session.lifecycle.peer_info
        return text

    server_end, client_end = MemoryTransport.pair()
    server.open_session(server_end).start()
    with NewerClient(client_end, trace=tap, client_info={"name": "newer", "version": "1", "title": "Newer"},
                     roots=[{"uri": "file:///x"}], protocol_versions=["2024-11-05"]).connect() as client:
        result = client.request("tools/call", {"name": "echo", "arguments": {"text": "hi"},
                                               "_meta": {"progressToken": "t1", "vendor/x": True}})
    assert result["content"][0]["text"] == "hi"
    assert seen["params"]["_meta"] == {"progressToken": "t1", "vendor/x": True}
    assert seen["client_info"] == {"name": "newer", "version": "1", "title": "Newer"}
    assert seen["client_capabilities"] == {"roots": {"listChanged": True}, "elicitation": {"form": {}},
                                           "experimental": {"vendor": {}}}
