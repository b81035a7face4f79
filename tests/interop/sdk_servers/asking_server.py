"""A third-party server for interop tests: the official SDK's low-level Server with a tool that
asks the client for sampling and for its roots. Run: python asking_server.py"""

from __future__ import annotations

import warnings

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

warnings.simplefilter("ignore")  # the SDK marks 2024-era sampling and roots as deprecated

ASK = types.Tool(name="ask_client", input_schema={"type": "object", "properties": {"question": {"type": "string"}}})


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[ASK])


async def call_tool(ctx, params):
    question = (params.arguments or {}).get("question", "?")
    sampled = await ctx.session.create_message(
        [types.SamplingMessage(role="user", content=types.TextContent(type="text", text=question))],
        max_tokens=20, system_prompt="Be brief.")
    roots = await ctx.session.list_roots()
    text = f"model={sampled.model} said={sampled.content.text} roots={[str(r.uri) for r in roots.roots]}"
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


server = Server("sdk-asking", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
