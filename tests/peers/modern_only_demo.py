"""The demo server pinned to 2026-07-28 alone: no handshake; it refuses ``initialize`` saying which
revisions it serves. For the official SDK's client in each of its modes
(tests/interop/test_sdk_client_2026.py).
"""

from __future__ import annotations

from mcp_ref import demo_server, lifecycle

server = demo_server.server
server.protocol_versions = tuple(lifecycle.STATELESS_REVISIONS)
