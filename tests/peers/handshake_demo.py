"""The demo server pinned to the revisions with a handshake (2024-11-05 .. 2025-11-25): a server of
the handshake era only, which answers ``server/discover`` with -32601 as any server before
2026-07-28 does. For the SDK client's default mode ("auto"), which probes first and must fall
back to ``initialize`` at once (tests/interop/test_sdk_client.py).
"""

from __future__ import annotations

from mcp_ref import demo_server, lifecycle

server = demo_server.server
server.protocol_versions = tuple(v for v in server.protocol_versions if v not in lifecycle.STATELESS_REVISIONS)
