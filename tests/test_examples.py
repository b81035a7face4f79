"""The examples in examples/ run as they are (each is a real subprocess).

Not a spec page; the examples teach client/sampling and client/roots among others.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT

EXAMPLES = ROOT / "examples"


def run(name: str, stdin: str = "", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(EXAMPLES / name)], input=stdin, capture_output=True, text=True,
                          timeout=60, cwd=ROOT, env={**os.environ, **(env or {})})


def test_hello_client() -> None:
    proc = run("hello_client.py")
    assert proc.returncode == 0, proc.stderr
    assert "2 + 3 = 5" in proc.stdout and "a tool error: True" in proc.stdout and "-32602" in proc.stdout


def test_sampling_fake_model() -> None:
    proc = run("sampling_fake_model.py")
    assert proc.returncode == 0, proc.stderr
    assert "canned-1 says: MCP is a protocol" in proc.stdout and "scratch: file:///tmp" in proc.stdout


def test_sampling_terminal_approve_edit_reject() -> None:
    approved = run("sampling_terminal.py", "a\n")
    assert approved.returncode == 0, approved.stderr
    assert "the tool answered (2026-07-28): human-reviewed says: MCP lets" in approved.stdout
    edited = run("sampling_terminal.py", "e\nIn my words.\n")
    assert "the tool answered (2026-07-28): human-reviewed says: In my words." in edited.stdout
    rejected = run("sampling_terminal.py", "r\n")  # in 2026-07-28 the refusal ends the call on the client's side
    assert rejected.returncode == 0, rejected.stderr
    assert "the call ended (2026-07-28): the server needs input this client cannot give ('sampling-1', " \
           "sampling/createMessage): User rejected sampling request" in rejected.stdout
    # with the handshake, the server hears the refusal and its tool fails
    old = run("sampling_terminal.py", "r\n", env={"MCP_REVISION": "2025-11-25"})
    assert "the tool failed (2025-11-25): Tool 'ask_model' failed: User rejected sampling request" in old.stdout


def test_sampling_terminal_takes_n_for_no() -> None:
    """Typing n once approved the request; now it refuses it."""
    refused = run("sampling_terminal.py", "n\n")
    assert refused.returncode == 0, refused.stderr
    assert "the call ended" in refused.stdout and "User rejected sampling request" in refused.stdout
    assert "the tool answered" not in refused.stdout


def test_sampling_terminal_asks_again_on_anything_unexpected() -> None:
    asked = run("sampling_terminal.py", "maybe\n\na\n")
    assert asked.stdout.count("[a]pprove, [e]dit, or [r]eject? ") == 3
    assert "Please type a, e or r (not 'maybe')." in asked.stdout and "Please type a, e or r (not '')." in asked.stdout
    assert "the tool answered (2026-07-28): human-reviewed says: MCP lets" in asked.stdout  # by the explicit "a"
    nobody = run("sampling_terminal.py", "")  # the terminal closed without an answer
    assert "User rejected sampling request" in nobody.stdout and "the tool answered" not in nobody.stdout


def test_my_server_under_the_cli() -> None:
    mcp_ref = Path(sys.executable).parent / "mcp-ref"
    proc = subprocess.run([str(mcp_ref), "request", "--stdio", f"{sys.executable} {EXAMPLES / 'my_server.py'}",
                           "tools/call", '{"name": "shout", "arguments": {"text": "hi", "times": 2}}'],
                          capture_output=True, text=True, timeout=30, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert '"HI HI"' in proc.stdout
