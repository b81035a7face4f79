"""A third-party server for the conformance kit: the official Python SDK's high-level MCPServer
(``mcp`` 2.x), the API most SDK users write servers with, offering tools (one reporting
progress), a resource, a resource template, a prompt with a required argument, completions and
log messages. Over stdio by default; ``python sdk_server.py sse`` serves HTTP with SSE on a free
port of 127.0.0.1 and prints its URL first.

Everything protocol-level (validation, error codes, the transport) is the SDK's own; the
handlers below only provide content.
"""

from __future__ import annotations

import socket
import sys
import warnings

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer

warnings.simplefilter("ignore")  # the SDK marks 2024-era features as deprecated in its newest revision

# The SDK logs each handler error with a rich traceback on stderr, about a second of CPU per error
# (an unknown prompt, a bad argument); on a loaded machine that outlasted the kit's step timeout
# and turned the README table's warnings into failures. Its own log_level setting quiets it: the
# protocol (every answer, every notifications/message) is unchanged.
mcp = MCPServer("sdk-mcpserver", log_level="CRITICAL")


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool()
async def count(steps: int, ctx: Context) -> str:
    """Count to steps, reporting progress and logging each step."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps)
        await ctx.info(f"step {step}")
    return f"counted to {steps}"


@mcp.resource("sdk://hello", mime_type="text/plain")
def hello() -> str:
    return "hello from the SDK"


@mcp.resource("sdk://items/{item}", mime_type="text/plain")
def item(item: str) -> str:
    return f"item {item}"


@mcp.prompt()
def greet(name: str) -> str:
    """Greet someone."""
    return f"Say hello to {name}."


@mcp.completion()
async def complete(ref: object, argument: types.CompletionArgument, context: object) -> types.Completion:
    values = [v for v in ("alpha", "beta", "alps") if v.startswith(argument.value)]
    return types.Completion(values=values, total=len(values), has_more=False)


if __name__ == "__main__":
    if sys.argv[1:] == ["sse"]:
        import uvicorn

        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)  # connections queue up from now on, before uvicorn has started
        print(f"listening at http://127.0.0.1:{sock.getsockname()[1]}/sse", flush=True)
        uvicorn.Server(uvicorn.Config(mcp.sse_app(), log_level="warning")).run(sockets=[sock])
    else:
        mcp.run()
