"""The floor: a newline-JSON echo over a pipe with no library, answering each request line with a
result line (what any stdio MCP round trip must at least cost). Not a spec section."""

import json
import sys

stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
for line in stdin:
    msg = json.loads(line)
    stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"content": [
        {"type": "text", "text": str(msg["params"]["arguments"]["a"] + msg["params"]["arguments"]["b"])}]}},
        separators=(",", ":")).encode() + b"\n")
    stdout.flush()
