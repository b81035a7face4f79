"""A third-party client for the conformance kit: the official Python SDK's ``mcp.Client``
(``mcp`` 2.x), with sampling and roots callbacks, doing what a host typically does once connected:
list and call tools, list and get prompts, set the log level, ping, then disconnect.

    python sdk_client.py [--mode auto|legacy] [--sse] SERVER

SERVER is a server command line (stdio), with ``--sse`` the URL of an SSE endpoint, or an
http(s) URL of a Streamable HTTP endpoint. The default mode is the SDK's own default ("auto":
it probes ``server/discover`` first).
"""

from __future__ import annotations

import argparse
import shlex
import warnings

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters

warnings.simplefilter("ignore")  # the SDK marks 2024-era features as deprecated in its newest revision


async def sampling(context: object, params: object) -> types.CreateMessageResult:
    return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text="OK"),
                                     model="sdk-peer-model", stop_reason="endTurn")


async def roots(context: object) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri="file:///tmp/sdk-peer", name="peer")])


async def main(server: str, sse: bool, mode: str) -> None:
    if sse:
        from mcp.client.sse import sse_client

        transport: object = sse_client(server)
    elif server.startswith("http"):  # a URL: the SDK's default transport for one, Streamable HTTP
        transport = server
    else:
        command, *args = shlex.split(server)
        transport = StdioServerParameters(command=command, args=args)
    async with Client(transport, mode=mode, sampling_callback=sampling, list_roots_callback=roots) as client:  # type: ignore[arg-type]
        tools = (await client.list_tools()).tools
        if any(tool.name == "echo" for tool in tools):
            await client.call_tool("echo", {"text": "hi"})
        prompts = (await client.list_prompts()).prompts
        if prompts:
            await client.get_prompt(prompts[0].name, {})
        await client.set_logging_level("info")
        await client.send_ping()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("server")
    parser.add_argument("--sse", action="store_true")
    parser.add_argument("--mode", default="auto", choices=["auto", "legacy"])
    options = parser.parse_args()
    anyio.run(main, options.server, options.sse, options.mode)
