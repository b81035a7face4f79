"""Both HTTP transports on one port: Streamable HTTP at ``/mcp``, HTTP with SSE beside it.

Not a spec section of its own. The 2025-03-26 transports page says how a server may keep old
clients working: host the old transport's endpoints beside the new MCP endpoint (SHTTP-42).
https://modelcontextprotocol.io/specification/2025-03-26/basic/transports#backwards-compatibility

``HttpApp`` is the SSE page's ``SseApp`` (sse.py: ``GET /sse``, ``POST /messages/``) with one
more route: a request for ``mcp_path`` goes to a ``StreamableHttpApp`` (server_app.py) that
shares its Host and Origin checks, its limits and its relay. The SSE page itself knows nothing
of the later transport; ``Server.wsgi_app()`` returns this class, and ``mcp_path=None`` leaves
the new endpoint out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from werkzeug.wrappers import Request

from ..revisions.http_transport import SPOKEN_VERSIONS
from ..sse import SessionOpener, SseApp, WsgiAnswer
from .server_app import StreamableHttpApp

if TYPE_CHECKING:
    from ..session import TraceCallback


class HttpApp(SseApp):
    """``SseApp`` and, at ``mcp_path`` (default ``/mcp``), Streamable HTTP. ``streamable_options``
    go to ``StreamableHttpApp`` for limits of its own; the rest are ``SseApp``'s and apply to both."""

    def __init__(self, server: SessionOpener, *, mcp_path: str | None = "/mcp",
                 streamable_options: dict[str, Any] | None = None, **options: Any):
        super().__init__(server, **options)
        self.streamable: StreamableHttpApp | None = None
        if mcp_path is not None:
            trace: TraceCallback | None = self.trace
            self.streamable = StreamableHttpApp(
                lambda transport: server.open_session(transport, trace=trace), path=mcp_path,
                allowed_hosts=self.allowed_hosts, allowed_origins=self.allowed_origins,
                max_body_bytes=self.max_body_bytes, max_queued=self.max_queued,
                max_queued_bytes=self.max_queued_bytes, keepalive=self.keepalive, relay=self.relay,
                protocol_versions=getattr(server, "protocol_versions", SPOKEN_VERSIONS),
                tools=getattr(server, "tools", None), **(streamable_options or {}))

    def dispatch(self, request: Request) -> WsgiAnswer:
        if self.streamable is not None and request.path == self.streamable.path:  # SHTTP-42: the new endpoint
            return self.streamable.dispatch(request)
        return super().dispatch(request)

    def close(self) -> None:
        """End every session of both transports, and the relay if the app made it."""
        if self.streamable is not None:
            self.streamable.close()
        super().close()
