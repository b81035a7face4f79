"""A third-party server for interop tests at revision 2025-11-25: the official Python SDK's
MCPServer (``mcp`` 2.x) with the tool features the revisions after 2024-11-05 added: a title and
annotations (2025-03-26, 2025-06-18), icons (2025-11-25), structured output with an output schema
derived from a TypedDict (2025-06-18), audio content (2025-03-26), a resource link (2025-06-18) and
a tool that asks the user through elicitation (2025-06-18).

Everything protocol-level is the SDK's own. Over stdio by default; ``python later_server.py http``
serves Streamable HTTP on a free port of 127.0.0.1 (``streamable_http_app`` under uvicorn) and
prints its URL first.
"""

from __future__ import annotations

import base64
import socket
import sys
import warnings
from typing import TypedDict

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

warnings.simplefilter("ignore")

mcp = MCPServer("sdk-later", title="The SDK, later", website_url="https://example.com/sdk-later")
SILENCE = base64.b64encode(b"RIFF\x24\x00\x00\x00WAVEfmt ").decode()


class Forecast(TypedDict):
    city: str
    celsius: float


@mcp.tool(title="Weather", annotations=types.ToolAnnotations(readOnlyHint=True, openWorldHint=False),
          icons=[types.Icon(src="https://example.com/sun.png", mimeType="image/png")])
def weather(city: str) -> Forecast:
    """The forecast for a city."""
    return {"city": city, "celsius": 21.5}


@mcp.tool()
def chime() -> types.AudioContent:
    """A short sound."""
    return types.AudioContent(type="audio", data=SILENCE, mimeType="audio/wav")


@mcp.tool()
def link() -> types.ResourceLink:
    """A link to a resource."""
    return types.ResourceLink(type="resource_link", uri="sdk://notes/1", name="note-1", mimeType="text/plain")


class City(BaseModel):
    city: str


@mcp.tool()
async def where(ctx: Context) -> str:
    """Ask the user which city (elicitation, 2025-06-18)."""
    answer = await ctx.elicit("Which city?", schema=City)
    return answer.data.city if answer.action == "accept" else answer.action


if __name__ == "__main__":
    if sys.argv[1:] == ["http"]:
        import uvicorn

        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        print(f"listening at http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
        uvicorn.Server(uvicorn.Config(mcp.streamable_http_app(), log_level="warning")).run(sockets=[sock])
    else:
        mcp.run()
