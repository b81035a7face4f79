"""A small stdio MCP server in plain stdlib Python that takes hostile input well, unless told not to:
the target of ``mcp-ref check server --hostile`` in tests/check/test_hostile.py.

    python hostile_server.py [--break NAME]

Without a break it survives every hostile case of the kit (server_hostile.py and
server_hostile_transports.py in mcp_ref_check/): it answers broken input with JSON-RPC
errors, escapes what it echoes (so a lone surrogate leaves as ``\\ud800``), reads lines of any
length, answers every request once, and blocks politely when its reader stalls. Each
``--break NAME`` fails one of those verdicts (see BREAKS).
"""

from __future__ import annotations

import json
import os
import select
import sys
from typing import Any

BREAKS = {
    "dies-on-garbage": "exit on a line that is not JSON",
    "recursive-parser": "crash on JSON nested deeper than Python's parser goes",
    "raw-surrogates": "write lone surrogates raw, as bytes that are not UTF-8",
    "dies-on-long-line": "exit on a line over 1 MiB",
    "silent-on-wrong-types": "answer nothing to tools/call with a name that is not a string",
    "drops-bursts": "answer only the first 100 pings of a connection",
    "gives-up-when-not-read": "exit when a write to stdout blocks for a second",
}


class Server:
    def __init__(self, breaks: set[str]) -> None:
        self.breaks = breaks
        self.pings = 0
        self.out = sys.stdout.buffer.fileno()
        if "gives-up-when-not-read" in breaks:
            os.set_blocking(self.out, False)

    def write(self, msg: dict[str, Any]) -> None:
        if "raw-surrogates" in self.breaks:
            data = json.dumps(msg, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n"
        else:
            data = json.dumps(msg, separators=(",", ":")).encode() + b"\n"
        while data:
            if "gives-up-when-not-read" in self.breaks:
                if not select.select([], [self.out], [], 1.0)[1]:
                    os._exit(4)  # nobody reads: give up
            try:
                data = data[os.write(self.out, data):]
            except BlockingIOError:
                continue

    def error(self, rid: Any, code: int, message: str) -> None:
        self.write({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})

    def on_line(self, line: bytes) -> None:
        if len(line) > 1024 * 1024 and "dies-on-long-line" in self.breaks:
            os._exit(3)
        try:
            msg = json.loads(line)
        except RecursionError:
            if "recursive-parser" in self.breaks:
                raise
            self.error(None, -32700, "Parse error: nested too deep")
            return
        except ValueError:
            if "dies-on-garbage" in self.breaks:
                os._exit(2)
            self.error(None, -32700, "Parse error")
            return
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0" or not isinstance(msg.get("method"), str):
            if isinstance(msg, dict) and "method" not in msg and ("result" in msg or "error" in msg):
                return  # a response
            rid = msg.get("id") if isinstance(msg, dict) and isinstance(msg.get("id"), (str, int)) else None
            self.error(rid, -32600, "Invalid Request")
            return
        if "id" not in msg:
            return  # a notification
        rid, method, params = msg["id"], msg["method"], msg.get("params", {})
        if not isinstance(rid, (str, int)) or isinstance(rid, bool):
            self.error(None, -32600, "Invalid Request: bad id")
            return
        if not isinstance(params, dict):
            self.error(rid, -32602, "Invalid params: not an object")
            return
        if method == "initialize":
            self.write({"jsonrpc": "2.0", "id": rid, "result": {
                "protocolVersion": "2024-11-05", "capabilities": {"tools": {}},
                "serverInfo": {"name": "hostile-target", "version": "1.0"}}})
        elif method == "ping":
            self.pings += 1
            if "drops-bursts" in self.breaks and self.pings > 100:
                return
            self.write({"jsonrpc": "2.0", "id": rid, "result": {}})
        elif method == "tools/list":
            self.write({"jsonrpc": "2.0", "id": rid, "result": {"tools": [
                {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}]}})
        elif method == "tools/call":
            name = params.get("name")
            if not isinstance(name, str):
                if "silent-on-wrong-types" in self.breaks:
                    return
                self.error(rid, -32602, "Invalid params: name must be a string")
            elif name != "echo":
                self.error(rid, -32602, f"Unknown tool: {name}")
            else:
                self.write({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "ok"}]}})
        else:
            self.error(rid, -32601, f"Method not found: {method}")


def main() -> int:
    breaks = set(sys.argv[sys.argv.index("--break") + 1].split(",")) if "--break" in sys.argv else set()
    unknown = breaks - set(BREAKS)
    if unknown:
        sys.stderr.write(f"unknown break(s): {', '.join(sorted(unknown))}\n")
        return 2
    server = Server(breaks)
    for line in sys.stdin.buffer:
        if line.strip():
            server.on_line(line.strip(b"\r\n").removeprefix(b"\xef\xbb\xbf"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
