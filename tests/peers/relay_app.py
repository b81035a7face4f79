"""The server the relay tests run under gunicorn: ``gunicorn tests.peers.relay_app:app``.

The relay URL comes from ``MCP_REF_TEST_RELAY`` (none: the in-process relay). Each tool says
which process ran it, so a test can tell a session's holder.
"""

from __future__ import annotations

import os

from mcp_ref import RequestContext, Server


def make_server() -> Server:
    server = Server("relay-test")

    @server.tool()
    def echo(text: str) -> str:
        return text

    @server.tool()
    def pid() -> int:
        """The process that holds this session (tools run where the session's stream is)."""
        return os.getpid()

    @server.tool()
    def ask_client(ctx: RequestContext, tag: str) -> str:
        """Two requests from the server to the client, whose answers are POSTs (relayed, when
        they land on another process)."""
        roots = ctx.list_roots(timeout=10)
        reply = ctx.create_message([tag], 10, timeout=10)
        return f"{tag} {roots[0]['uri']} {reply['content']['text']}"

    @server.tool()
    def wait(ctx: RequestContext, seconds: float) -> str:
        ctx.cancelled.wait(seconds)
        return "waited"

    return server


server = make_server()
app = server.wsgi_app(relay=os.environ.get("MCP_REF_TEST_RELAY") or None)
