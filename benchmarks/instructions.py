"""Instructions per stdio round trip, each side alone, counted by valgrind: a measure the machine's
load does not move. Not a spec section.

CPU time per call moves two- to three-fold on a shared machine (cold caches, where the woken
process runs), and it moves the floor's and mcp_ref's differently. The number of instructions a
process executes for a call does not: valgrind's callgrind counts them, and two runs of the same
code agree to within a fraction of a percent. So this is how a change to the per-call path is
weighed (benchmarks/RESULTS.md). What it cannot see: the kernel's side (system calls, wake-ups)
and how fast the instructions run (an interpreter's larger working set runs slower once other
processes have evicted it from the caches).

Each side is measured against the floor's other side, so that only one process runs under
valgrind (about 50 times slower):

    client     mcp_ref's Client.stdio, against a newline-JSON echo that also answers initialize
    server     ``mcp-ref serve``, driven by a bare client writing request lines
    raw-client the floor's client (json.dumps, write, readline, json.loads) against the same echo
    raw-server the floor's echo (raw_echo.py's loop), driven by the same bare client

Two runs of N1 and N2 calls; (instructions of N2 - those of N1) / (N2 - N1) is the cost of one
call without start-up. Needs valgrind on PATH.

Run: python benchmarks/instructions.py [client|server|raw-client|raw-server ...] [--tree DIR]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PY = sys.executable
SIDES = ("raw-client", "raw-server", "client", "server")
N1, N2 = 100, 1100

# The floor's echo, which also answers initialize so that mcp_ref's client can connect to it (and
# refuses the server/discover probe of a client offering 2026-07-28, as a server of the handshake may).
ECHO = r"""
import json, sys
stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
for line in stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    if msg["method"] == "server/discover":
        error = {"code": -32601, "message": "Method not found"}
        stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": error}).encode() + b"\n")
        stdout.flush()
        continue
    if msg["method"] == "initialize":
        result = {"protocolVersion": "2024-11-05", "capabilities": {"tools": {}}, "serverInfo": {"name": "echo", "version": "1"}}
    else:
        args = msg["params"]["arguments"]
        result = {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}
    stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}, separators=(",", ":")).encode() + b"\n")
    stdout.flush()
"""

# The floor's client: what raw_echo's peer does in contender.py (RawStdio).
BARE_CLIENT = r"""
import json, subprocess, sys
server, calls = json.loads(sys.argv[1]), int(sys.argv[2])
proc = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def call(msg):
    proc.stdin.write(json.dumps(msg, separators=(",", ":")).encode() + b"\n")
    proc.stdin.flush()
    if "id" in msg:
        return json.loads(proc.stdout.readline())
call({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2024-11-05",
      "capabilities": {}, "clientInfo": {"name": "bare", "version": "1"}}})
call({"jsonrpc": "2.0", "method": "notifications/initialized"})
for i in range(calls):
    call({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}})
proc.stdin.close()
proc.wait()
"""

OUR_CLIENT = r"""
import json, sys
from mcp_ref import Client
server, calls = json.loads(sys.argv[1]), int(sys.argv[2])
with Client.stdio(server, timeout=600) as client:
    for _ in range(calls):
        client.call_tool("add", {"a": 2, "b": 3})
"""

OUR_SERVER = "import sys; sys.argv = ['mcp-ref', 'serve']; from mcp_ref.cli.main import main; main()"


def counted(side: str, calls: int, folder: Path, tree: Path) -> int:
    """Instructions executed by the measured process (all its threads) for ``calls`` calls."""
    out = folder / f"{side}-{calls}.callgrind"
    valgrind = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    echo = [PY, "-c", ECHO]
    if side in ("client", "raw-client"):
        code = OUR_CLIENT if side == "client" else BARE_CLIENT
        command = valgrind + [PY, "-c", code, json_list(echo), str(calls)]
    else:
        served = [PY, "-c", OUR_SERVER] if side == "server" else echo
        command = [PY, "-c", BARE_CLIENT, json_list(valgrind + served), str(calls)]
    subprocess.run(command, check=True, stderr=subprocess.DEVNULL, cwd=tree,
                   env=dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0"))
    total = re.search(r"^(?:summary|totals):\s*(\d+)", out.read_text(errors="replace"), re.M)
    if total is None:
        raise RuntimeError(f"no instruction count in {out}")
    return int(total.group(1))


def json_list(items: list[str]) -> str:
    import json

    return json.dumps(items)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sides", nargs="*", help=f"any of {', '.join(SIDES)} (default: all four)")
    parser.add_argument("--tree", type=Path, default=HERE.parent, help="the mcp_ref tree to measure (default: this one)")
    options = parser.parse_args()
    unknown = [side for side in options.sides if side not in SIDES]
    if unknown:
        parser.error(f"unknown side {unknown[0]!r}: choose from {', '.join(SIDES)}")
    with tempfile.TemporaryDirectory(prefix="mcp_ref-instructions-") as tmp:
        for side in options.sides or SIDES:
            first, second = (counted(side, n, Path(tmp), options.tree) for n in (N1, N2))
            print(f"{side:<11} {(second - first) / (N2 - N1):10,.0f} instructions per call", flush=True)


if __name__ == "__main__":
    main()
