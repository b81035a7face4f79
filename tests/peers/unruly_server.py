"""A stdio MCP server in plain stdlib Python that misbehaves in ways meant to break the checker
itself, not to break one rule: it dies, goes mute, floods, writes what is not a message, or will
not be stopped. Each ``--mode`` is one behaviour (see MODES); tests/check/test_unruly_peers.py
runs ``mcp-ref check`` against each and checks that the kit survives it, bounded, and says what
happened.

Until its mode takes over it answers like a small correct server (initialize, ping, tools/list
with one tool, tools/call, logging/setLevel).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

MODES = {
    "exit-after-initialize": "answer initialize, then exit with status 0",
    "mute-after-initialize": "answer initialize, then read everything and answer nothing",
    "grandchild-holds-stdout": "answer initialize, then exit while a child process keeps stdout open",
    "not-json": "write only lines that are not JSON",
    "not-utf8": "write only bytes that are not UTF-8",
    "huge-line": "write one 20 MB line with no newline in it, then nothing",
    "flood": "after initialize, send 20,000 log notifications of 1 KB before anything else",
    "ignore-sigterm": "ignore SIGTERM (and so does its child), answer initialize, then go mute; "
                      "write both process ids to --pids PATH",
}


def write(msg: dict[str, Any]) -> None:
    sys.stdout.buffer.write(json.dumps(msg, separators=(",", ":")).encode() + b"\n")
    sys.stdout.flush()


def answer(msg: dict[str, Any]) -> dict[str, Any] | None:
    method, params = msg.get("method"), msg.get("params") or {}
    if method == "initialize":
        return {"protocolVersion": "2024-11-05", "capabilities": {"tools": {}, "logging": {}},
                "serverInfo": {"name": "unruly", "version": "1.0"}}
    if method in ("ping", "logging/setLevel"):
        return {}
    if method == "tools/list":
        return {"tools": [{"name": "echo", "inputSchema": {"type": "object", "properties": {}}}]}
    if method == "tools/call":
        return {"content": [{"type": "text", "text": json.dumps(params.get("arguments"))}]}
    return None


def main() -> int:
    mode = sys.argv[sys.argv.index("--mode") + 1]
    if mode == "not-json":
        for _ in range(3):
            sys.stdout.write("Server starting... (this is not JSON)\n")
        sys.stdout.flush()
    elif mode == "not-utf8":
        sys.stdout.buffer.write(b"\xff\xfe\xfd not UTF-8 \xc3\x28\n")
        sys.stdout.flush()
    elif mode == "huge-line":
        chunk = b"x" * (1024 * 1024)
        for _ in range(20):
            sys.stdout.buffer.write(chunk)
        sys.stdout.flush()
    elif mode == "ignore-sigterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        child = subprocess.Popen([sys.executable, "-c", "import signal, time\n"
                                  "signal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(120)"])
        Path(sys.argv[sys.argv.index("--pids") + 1]).write_text(f"{os.getpid()} {child.pid}")
    mute = False
    for line in sys.stdin.buffer:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if not isinstance(msg, dict) or "id" not in msg or mute or mode in ("not-json", "not-utf8", "huge-line"):
            continue
        result = answer(msg)
        if result is None:
            write({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "Method not found"}})
            continue
        write({"jsonrpc": "2.0", "id": msg["id"], "result": result})
        if msg.get("method") != "initialize":
            continue
        if mode == "exit-after-initialize":
            return 0
        if mode in ("mute-after-initialize", "ignore-sigterm"):
            mute = True
        elif mode == "grandchild-holds-stdout":
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], stdin=subprocess.DEVNULL)
            return 0
        elif mode == "flood":
            data = "x" * 1000
            for i in range(20000):
                write({"jsonrpc": "2.0", "method": "notifications/message",
                       "params": {"level": "info", "data": f"{i} {data}"}})
    if mode == "ignore-sigterm":
        time.sleep(120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
