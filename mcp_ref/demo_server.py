"""The bundled demo server that ``mcp-ref serve`` and ``mcp-ref demo`` use.

Not a spec section: it is an example of a server built with mcp_ref, meant to be read. Every
feature the library implements is shown by one small handler here.
"""

from __future__ import annotations

from mcp_ref import Server

server = Server(
    "mcp-ref-demo",
    version="0.1.0",
    instructions="A demonstration server for mcp_ref: try ping, then the tools, resources and prompts it lists.",
)
