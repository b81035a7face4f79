"""Interop: the official conformance suite's server scenarios, straight against our /mcp endpoint.

https://modelcontextprotocol.io/specification/2025-03-26/basic/transports
``npx @modelcontextprotocol/conformance server --url URL`` connects with the TypeScript SDK's
client over Streamable HTTP, as a host would, to ``mcp-ref serve --transport http`` serving
tests/interop/conformance_server.py (the tools, resources and prompts the scenarios call by
name). No bridge: the suite speaks to our endpoint itself. Our server answers in 2024-11-05,
which the suite's client accepts; the scenarios that need what only later revisions have are
listed below with the reason, and must fail for that reason only: every other scenario passes.

The suite needs Node.js 22 or later (and npm's network the first time); where there is none,
this test skips and says so. ``MCP_REF_NODE=/path/to/node22`` runs it with another node.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from ..conftest import SseServerProcess
from .node_peers import CONFORMANCE, env_with_node, node_at_least, npx

# Scenario -> why it cannot pass against a 2024-11-05 server.
NEEDS_LATER_REVISIONS = {
    "tools-call-audio": "audio content is a 2025-03-26 content type; 2024-11-05 has text, image and resource",
    "tools-call-elicitation": "elicitation/create arrived in 2025-06-18",
    "elicitation-sep1034-defaults": "elicitation (2025-06-18) with the defaults of 2025-11-25",
    "elicitation-sep1330-enums": "elicitation (2025-06-18) with the enum schemas of 2025-11-25",
    "server-sse-multiple-streams": "its POSTs carry MCP-Protocol-Version 2025-03-26 on a session that negotiated "
                                   "2024-11-05: we answer 400, as 2025-06-18 asks of an unsupported version",
}


def test_the_conformance_suites_server_scenarios_against_our_endpoint(tmp_path: Path) -> None:
    runner = npx()
    node = node_at_least(22)  # the suite's code needs fs.globSync (Node 22)
    server = SseServerProcess("tests/interop/conformance_server.py:server", "--transport", "http")
    try:
        run = subprocess.run([runner, "-y", CONFORMANCE, "server", "--url", server.url, "--suite", "active"],
                             capture_output=True, text=True, timeout=240, env=env_with_node(node),
                             cwd=tmp_path)  # its results/ go there
    finally:
        server.close()
    summary = dict(re.findall(r"^[✓✗] ([\w-]+): (\d+ passed, \d+ failed)", run.stdout, re.MULTILINE))
    if not summary:
        pytest.skip(f"the conformance suite did not run (no network for npm?): {(run.stdout + run.stderr)[-400:]}")
    failed = {name for name, counts in summary.items() if not counts.endswith(" 0 failed")}
    unexpected = failed - set(NEEDS_LATER_REVISIONS)
    assert not unexpected, f"scenarios that should pass failed: {sorted(unexpected)}\n{run.stdout[-3000:]}"
    passed = set(summary) - failed
    assert len(passed) >= 25 and {"server-initialize", "tools-call-sampling", "tools-call-with-progress",
                                  "tools-call-with-logging", "dns-rebinding-protection"} <= passed
