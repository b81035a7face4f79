"""The conformance checker over Streamable HTTP (``check server --http URL``, ``check client --http``).

https://modelcontextprotocol.io/specification/2025-03-26/basic/transports
The kit's cases judge 2024-11-05 messages whatever carries them; these tests run them over the
2025-03-26 transport (mcp_ref/tooling/check/http_wire.py) against our own server and client,
which must pass every case that applies. The official SDK through the kit: run by hand (the
closing note of issue 25 gives the figures).
"""

from __future__ import annotations

from pathlib import Path

from .conftest import SseServerProcess
from .test_check import MCP_REF, check_json, not_passed


def test_our_server_passes_every_case_over_streamable_http(tmp_path: Path) -> None:
    server = SseServerProcess("mcp_ref.demo_server:server", "--transport", "http")
    try:
        code, report, out = check_json(tmp_path, "server", "--http", server.url, "--call-tools")
    finally:
        server.close()
    assert code == 0 and not_passed(report) == {}, out
    assert report["transport"] == "http" and "mcp-ref check server (http)" in out
    passed = {c["name"] for c in report["cases"] if c["status"] == "PASS"}
    assert {"ping.ping-before-initialize", "lifecycle.survives-a-request-before-initialize",
            "messages.answers-unparseable-input-with-32700", "progress.progress-tokens-are-accepted"} <= passed
    skipped = {c["name"] for c in report["cases"] if c["status"] == "SKIP"}
    assert not any(name.startswith(("tools.tool-results", "progress.")) for name in skipped), "--call-tools ran the tools"


def test_our_client_passes_every_client_case_over_streamable_http(tmp_path: Path) -> None:
    client = [MCP_REF, "request", "--http", "{server}", "tools/call", '{"name": "echo", "arguments": {"text": "hi"}}',
              "--root", "file:///tmp/mcp-ref-check", "--sampling-reply", "OK"]
    code, report, out = check_json(tmp_path, "client", "--http", "--", *client)
    assert code == 0 and not_passed(report) == {}, out
    passed = {c["name"] for c in report["cases"] if c["status"] == "PASS"}
    assert {"roots.roots-list-is-answered", "sampling.sampling-request-is-answered", "ping.ping-is-answered",
            "messages.unknown-method-is-32601", "ping.ping-is-answered-after-notifications"} <= passed
    assert "mcp-ref check client (http)" in out
