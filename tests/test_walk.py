"""The walks of one tools/call in spec_notes/ are the paths the code really takes.

Not one spec page: a student follows a walk file by file; this test profiles the same call
(a warm session over a pair of pipes, ``add(a: int, b: int)``) and compares, for each side, the
functions of mcp_ref/ that run with the rows of the walk, and the counts its summary gives.
Two walks: walk-tools-call.md, a session of 2024-11-05 (the base), and
walk-tools-call-2026-07-28.md, the same call in the revision without a handshake, whose client
discovered the server and whose every request is served alone
(https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning).
The call runs in a subprocess of its own, so the profiler touches no other test.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

WALKS = {"2024-11-05": ROOT / "spec_notes" / "walk-tools-call.md",
         "2026-07-28": ROOT / "spec_notes" / "walk-tools-call-2026-07-28.md"}

# One warm tools/call over a pair of pipes, profiled; prints {"server": [[file, function], ...], "client": ...}.
# Nothing is pinned: each side has one reader thread and a pool, so the path is the same on any machine.
SCRIPT = r'''
import json, os, sys, threading, time
from pathlib import Path
import mcp_ref
from mcp_ref import Client, Server
from mcp_ref.stdio import StdioTransport

PACKAGE = str(Path(mcp_ref.__file__).parent)
recording = False
seen = {"server": set(), "client": set()}
lock = threading.Lock()

def profile(frame, event, arg):
    if not recording or event != "call":
        return
    side = "server" if threading.current_thread().name.startswith("walk-session") else "client"
    found = []
    while frame is not None:  # the function called, and every function of ours it runs within
        if frame.f_code.co_filename.startswith(PACKAGE):
            found.append((os.path.relpath(frame.f_code.co_filename, os.path.dirname(PACKAGE)), frame.f_code.co_qualname))
        frame = frame.f_back
    with lock:
        seen[side].update(found)

threading.setprofile(profile)
sys.setprofile(profile)
server = Server("walk")

@server.tool()
def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)

to_server, from_client = os.pipe()
to_client, from_server = os.pipe()
server.open_session(StdioTransport(open(to_server, "rb", buffering=0), open(from_server, "wb", buffering=0))).start()
client = Client(StdioTransport(open(to_client, "rb", buffering=0), open(from_client, "wb", buffering=0)),
                protocol_versions=[sys.argv[1]]).connect()  # the walk of a call of that revision
client.call_tool("add", {"a": 1, "b": 2})  # warm: registration-time work and first-use imports are done
time.sleep(0.2)
recording = True
result = client.call_tool("add", {"a": 2, "b": 3})
time.sleep(0.2)  # the server's reader goes back to reading: the end of its walk
recording = False
sys.setprofile(None)
threading.setprofile(None)
assert result["content"] == [{"type": "text", "text": "5"}], result
client.close()
print(json.dumps({side: sorted(found) for side, found in seen.items()}))
'''


def walk_rows(walk: Path) -> dict[str, set[tuple[str, str]]]:
    rows: dict[str, set[tuple[str, str]]] = {"server": set(), "client": set()}
    side = None
    for line in walk.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"## The (server|client)\b", line)
        if heading:
            side = heading.group(1)
        row = re.match(r"\| \d+ \| `([^`]+)` \| `([^`]+)` \|", line)
        if row and side:
            rows[side].add((row.group(1), row.group(2)))
    return rows


@pytest.mark.parametrize("revision", list(WALKS))
def test_the_walk_of_one_tools_call_is_the_path_the_code_takes(revision: str) -> None:
    proc = subprocess.run([sys.executable, "-c", SCRIPT, revision], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr[-3000:]
    profiled = {side: {tuple(item) for item in found} for side, found in json.loads(proc.stdout).items()}
    walk = walk_rows(WALKS[revision])
    for side in ("server", "client"):
        missing = sorted(profiled[side] - walk[side])
        stale = sorted(walk[side] - profiled[side])
        assert not missing and not stale, (f"{side}: the walk does not list {missing}; it lists, but the call does not "
                                           f"run, {stale}: update {WALKS[revision].name}")
    summary = WALKS[revision].read_text(encoding="utf-8")
    for side in ("server", "client"):
        functions, files = len(profiled[side]), len({file for file, _ in profiled[side]})
        assert f"the {side}, {functions} functions in {files} files" in summary, (side, functions, files)
