"""A stdio MCP server in plain stdlib Python whose tools have the input schemas of servers in the
wild, for testing ``mcp-ref check server --call-tools``. ``python tool_schemas_server.py --mode
MODE``; see MODES. Each tool checks its own arguments as its schema says (no library), refusing
what breaks it with -32602 (Invalid params), and otherwise answers with a text result.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

MODES = {
    "schemas-in-the-wild": "seven tools: a union of types, format uri, minItems, a $ref to $defs, a pattern, "
                           "anyOf, a nested object; each called with arguments its schema accepts is served",
    "refuses-every-call": "one tool (a minItems array, as git's paths); every call is refused with -32602",
}


def _string(extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "string", **(extra or {})}


def _tool(name: str, prop: dict[str, Any], defs: dict[str, Any] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": {"value": prop}, "required": ["value"]}
    if defs:
        schema["$defs"] = defs
    return {"name": name, "description": f"takes one value: {json.dumps(prop)}", "inputSchema": schema}


TOOLS = [
    _tool("toggle", {"type": ["boolean", "string"]}),
    _tool("fetch", _string({"format": "uri"})),
    _tool("add_paths", {"type": "array", "items": _string(), "minItems": 1}),
    _tool("when", {"$ref": "#/$defs/Moment"}, {"Moment": _string({"format": "date-time"})}),
    _tool("code", _string({"pattern": "^[A-Z]{3}$"})),
    _tool("choose", {"anyOf": [{"type": "integer", "minimum": 5}, {"type": "null"}]}),
    _tool("nested", {"type": "object", "properties": {"depth": {"type": "integer", "minimum": 1, "maximum": 3}},
                     "required": ["depth"]}),
]
CHECKS = {  # what each tool accepts, as its schema says
    "toggle": lambda v: isinstance(v, (bool, str)),
    "fetch": lambda v: isinstance(v, str) and re.match(r"^[a-z][a-z0-9+.-]*:", v) is not None,
    "add_paths": lambda v: isinstance(v, list) and len(v) >= 1 and all(isinstance(p, str) for p in v),
    "when": lambda v: isinstance(v, str) and re.match(r"^\d{4}-\d\d-\d\dT", v) is not None,
    "code": lambda v: isinstance(v, str) and re.fullmatch(r"[A-Z]{3}", v) is not None,
    "choose": lambda v: v is None or (type(v) is int and v >= 5),
    "nested": lambda v: isinstance(v, dict) and type(v.get("depth")) is int and 1 <= v["depth"] <= 3,
}


def answer(msg: dict[str, Any], mode: str) -> dict[str, Any] | None:
    method, params = msg.get("method"), msg.get("params") or {}
    if "id" not in msg:
        return None
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": msg["id"]}
    tools = TOOLS if mode == "schemas-in-the-wild" else [TOOLS[2]]
    if method == "initialize":
        reply["result"] = {"protocolVersion": "2024-11-05", "capabilities": {"tools": {}},
                           "serverInfo": {"name": "tool-schemas", "version": "1.0"}}
    elif method == "ping":
        reply["result"] = {}
    elif method == "tools/list":
        reply["result"] = {"tools": tools}
    elif method == "tools/call" and isinstance(params, dict) and params.get("name") in {t["name"] for t in tools}:
        value = (params.get("arguments") or {}).get("value", ...)
        if mode == "refuses-every-call" or not CHECKS[params["name"]](value):
            reply["error"] = {"code": -32602, "message": f"Invalid params for {params['name']}"}
        else:
            reply["result"] = {"content": [{"type": "text", "text": f"{params['name']}: {json.dumps(value)}"}]}
    elif method == "tools/call":
        reply["error"] = {"code": -32602, "message": "Unknown tool"}
    else:
        reply["error"] = {"code": -32601, "message": "Method not found"}
    return reply


def main() -> None:
    mode = sys.argv[sys.argv.index("--mode") + 1] if "--mode" in sys.argv else "schemas-in-the-wild"
    if mode not in MODES:
        raise SystemExit(f"unknown mode {mode!r}; one of: {', '.join(MODES)}")
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            print(json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}),
                  flush=True)
            continue
        reply = answer(msg, mode) if isinstance(msg, dict) else None
        if reply is not None:
            print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
