"""A stdio server speaking the later revisions' tool fields, right or wrong, for the checker's
revision cases (tests/check/test_revisions.py).

``python revision_server.py --versions 2025-11-25,2024-11-05 --mode good|bad|leaky`` agrees on the
client's proposal when it is in --versions, else on the first of them (LC-12). Its one tool,
``weather``, carries the fields of the agreed revision (annotations from 2025-03-26; title and
outputSchema from 2025-06-18; icons from 2025-11-25) and answers with structuredContent and an
audio item where the revision has them. Modes:

- ``good``: every field well formed, and only those of the agreed revision;
- ``bad``: malformed annotations, title, outputSchema and icons; a structuredContent that breaks
  the outputSchema; audio whose data is not base64; completion/complete served, though the
  completions capability is never declared (good and leaky refuse it, -32601);
- ``leaky``: as good, but sends every later field to a session of any revision.

Plain stdlib, one message per line (TR-02).
"""

from __future__ import annotations

import json
import sys
from typing import Any

REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


def since(version: str, revision: str) -> bool:
    return REVISIONS.index(version) >= REVISIONS.index(revision)


def tool(version: str, mode: str) -> dict[str, Any]:
    every = mode == "leaky"
    out: dict[str, Any] = {"name": "weather", "description": "The weather in a city.",
                           "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}},
                                           "required": ["city"]}}
    if every or since(version, "2025-03-26"):
        out["annotations"] = {"title": "Weather", "readOnlyHint": True} if mode != "bad" else {"readOnlyHint": "yes"}
    if every or since(version, "2025-06-18"):
        out["title"] = "Weather" if mode != "bad" else 5
        out["outputSchema"] = ({"type": "object", "properties": {"temp": {"type": "number"}}, "required": ["temp"]}
                               if mode != "bad" else {"type": "array"})
    if every or since(version, "2025-11-25"):
        out["icons"] = [{"src": "https://example.com/sun.png", "mimeType": "image/png"}] if mode != "bad" else [{}]
    return out


def call(version: str, mode: str) -> dict[str, Any]:
    structured = {"temp": 21.5} if mode != "bad" else {"temp": "warm"}
    result: dict[str, Any] = {"content": [{"type": "text", "text": json.dumps(structured)}]}
    if mode == "leaky" or since(version, "2025-06-18"):
        result["structuredContent"] = structured
    if since(version, "2025-03-26"):
        result["content"].append({"type": "audio", "mimeType": "audio/wav",
                                  "data": "UklGRg==" if mode != "bad" else "not base64!"})
    return result


def main() -> None:
    args = sys.argv[1:]
    versions = args[args.index("--versions") + 1].split(",") if "--versions" in args else list(REVISIONS[::-1])
    mode = args[args.index("--mode") + 1] if "--mode" in args else "good"
    version = versions[0]
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            answer: dict[str, Any] = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
            print(json.dumps(answer), flush=True)
            continue
        if not isinstance(msg, dict) or "id" not in msg or "method" not in msg:
            continue
        method, params = msg["method"], msg.get("params") or {}
        result: Any = None
        if method == "initialize":
            proposed = params.get("protocolVersion")
            version = proposed if proposed in versions else versions[0]
            caps: dict[str, Any] = {"tools": {}}  # no completions: it is not offered (bad mode serves it anyway)
            result = {"protocolVersion": version, "capabilities": caps,
                      "serverInfo": {"name": "revision-server", "version": "1.0"}}
        elif method == "ping":
            result = {}
        elif method == "tools/list":
            result = {"tools": [tool(version, mode)]}
        elif method == "tools/call" and params.get("name") == "weather":
            result = call(version, mode)
        elif method == "completion/complete" and mode == "bad":
            result = {"completion": {"values": []}}
        if result is None:
            answer = {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": f"no {method}"}}
        else:
            answer = {"jsonrpc": "2.0", "id": msg["id"], "result": result}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
