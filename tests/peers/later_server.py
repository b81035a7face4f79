"""An mcp_ref server with the tool features of the revisions after 2024-11-05, for the official
SDK's client to use: a titled, annotated tool with icons and structured output derived from a
TypedDict, one returning audio and one a resource link.

    mcp-ref serve tests/peers/later_server.py:server [--transport http]
"""

from __future__ import annotations

from typing import TypedDict

from mcp_ref import Audio, RequestContext, ResourceLink, Server

server = Server("mcp-ref-later", version="1.0")
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt "


class Forecast(TypedDict):
    city: str
    celsius: float


@server.tool(title="Weather", annotations={"readOnlyHint": True, "openWorldHint": False},
             icons=[{"src": "https://example.com/sun.png", "mimeType": "image/png"}])
def weather(city: str) -> Forecast:
    """The forecast for a city."""
    return {"city": city, "celsius": 21.5}


@server.tool()
def chime() -> Audio:
    """A short sound."""
    return Audio(WAV, "audio/wav")


@server.tool()
def link() -> ResourceLink:
    """A link to a resource."""
    return ResourceLink("notes://1", "note-1", mime_type="text/plain")


@server.tool()
def where(ctx: RequestContext) -> str:
    """Ask the user which city (elicitation, 2025-06-18)."""
    answer = ctx.elicit("Which city?", {"city": str})
    return str(answer.get("content", {}).get("city", answer["action"]))
