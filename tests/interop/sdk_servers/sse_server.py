"""A third-party HTTP+SSE server for interop tests: the official SDK's MCPServer, served by uvicorn
on a free port (endpoint /messages/?session_id=...). It prints its URL, then serves until killed.
Run: python sse_server.py"""

from __future__ import annotations

import socket
import sys
import warnings

import mcp_types as types
import uvicorn
from mcp.server.mcpserver import Context, MCPServer

warnings.simplefilter("ignore")  # the SDK marks 2024-era sampling, roots and logging as deprecated

mcp = MCPServer("sdk-sse")


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool()
async def ask_client(question: str, ctx: Context) -> str:
    """Ask the client's model, then list its roots."""
    await ctx.info("asking the client")
    sampled = await ctx.session.create_message(
        [types.SamplingMessage(role="user", content=types.TextContent(type="text", text=question))], max_tokens=20)
    roots = await ctx.session.list_roots()
    return f"{sampled.model}: {sampled.content.text} | {[str(r.uri) for r in roots.roots]}"


@mcp.resource("sdk://hello", mime_type="text/plain")
def hello() -> str:
    return "hello from the SDK"


@mcp.prompt()
def greet(name: str) -> str:
    return f"Say hello to {name}."


if __name__ == "__main__":
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # connections queue up from now on, before uvicorn has started
    port = sock.getsockname()[1]
    config = uvicorn.Config(mcp.sse_app(), log_level="warning")
    print(f"listening at http://127.0.0.1:{port}/sse", flush=True)
    uvicorn.Server(config).run(sockets=[sock])
    sys.exit(0)
