"""``mcp-ref inspect``: one screen about a server, the first thing to look at.

Not a spec section: it shows what a client learns from ``initialize`` (server info, protocol
version, capabilities, instructions) and from the list methods of server/tools,
server/resources and server/prompts, asked only when the server declared the capability.

``gather(client)`` returns it all as one dict (the ``--json`` output): the wire's own field
names, plus ``errors`` for any list the server declared but failed to answer. ``render(info)``
lays the same out for people: one line per tool with its argument signature, one per resource,
template and prompt.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from collections.abc import Callable
from typing import Any

from ..client import Client
from ..messages import CONNECTION_CLOSED, REQUEST_TIMEOUT, McpError


def gather(client: Client) -> dict[str, Any]:
    """Everything ``inspect`` shows, as plain wire dicts."""
    capabilities = client.server_capabilities
    info: dict[str, Any] = {
        "serverInfo": client.server_info,
        "protocolVersion": client.protocol_version,
        "capabilities": capabilities,
        "instructions": client.instructions,
    }
    lists: list[tuple[str, str, Callable[[], list[dict[str, Any]]]]] = [
        ("tools", "tools", client.list_tools),
        ("resources", "resources", client.list_resources),
        ("resourceTemplates", "resources", client.list_resource_templates),
        ("prompts", "prompts", client.list_prompts),
    ]
    errors: dict[str, Any] = {}
    for field, capability, fetch in lists:
        if capability not in capabilities:
            continue  # not declared: asking would only earn a local MethodNotFound
        try:
            info[field] = fetch()
        except McpError as exc:
            if exc.code in (CONNECTION_CLOSED, REQUEST_TIMEOUT):  # the connection is gone or stuck
                raise
            errors[field] = exc.to_error()
    if errors:
        info["errors"] = errors
    return info


# --- for people ----------------------------------------------------------------------------------


def render(info: dict[str, Any], width: int | None = None) -> str:
    """The screen ``inspect`` prints."""
    width = width or shutil.get_terminal_size((100, 24)).columns
    server = info.get("serverInfo")
    server = server if isinstance(server, dict) else {}
    lines = [printable(f"{server.get('name', '?')} {server.get('version', '')}  (MCP {info.get('protocolVersion')})")]
    if info.get("instructions"):
        lines += textwrap.wrap(printable(str(info["instructions"])), width - 2, initial_indent="  ", subsequent_indent="  ")
    lines.append("")
    lines += textwrap.wrap("capabilities: " + (describe_capabilities(info.get("capabilities") or {}) or "none"),
                           width, subsequent_indent="  ")
    sections: list[tuple[str, str, Callable[[dict[str, Any]], list[str]]]] = [
        ("tools", "tools", lambda t: [tool_signature(t), _first_line(t.get("description"))]),
        ("resources", "resources", lambda r: [str(r.get("uri")), *_about(r)]),
        ("resourceTemplates", "resource templates", lambda r: [str(r.get("uriTemplate")), *_about(r)]),
        ("prompts", "prompts", lambda p: [prompt_signature(p), _first_line(p.get("description"))]),
    ]
    errors = info.get("errors") or {}
    for field, title, row in sections:
        if field in errors:
            lines += ["", f"{title}: the server answered error {errors[field].get('code')}: {errors[field].get('message')}"]
        elif field in info:
            items = [item for item in info[field] if isinstance(item, dict)]
            lines += ["", f"{title} ({len(items)})"]
            lines += _table([row(item) for item in items], width)
    return "\n".join(lines)


def describe_capabilities(capabilities: dict[str, Any]) -> str:
    """``{"tools": {"listChanged": true}, "logging": {}}`` -> ``logging, tools (listChanged)``."""
    parts = []
    for name in sorted(capabilities):
        flags = capabilities[name]
        on = [flag for flag, value in flags.items() if value is True] if isinstance(flags, dict) else []
        parts.append(f"{name} ({', '.join(on)})" if on else name)
    return ", ".join(parts)


def tool_signature(tool: dict[str, Any]) -> str:
    """``add(a: integer, b: integer)``; an optional argument is ``name?: type``, or
    ``name: type = default`` when the schema gives a default."""
    schema = tool.get("inputSchema")
    schema = schema if isinstance(schema, dict) else {}
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    required = schema.get("required")
    required = required if isinstance(required, list) else []
    required = [name for name in required if isinstance(name, str) and name in properties]
    names = required + [name for name in properties if name not in required]
    parts = []
    for name in names:
        prop = properties[name]
        kind = schema_type(prop)
        if name in required:
            parts.append(f"{name}: {kind}")
        elif isinstance(prop, dict) and "default" in prop:
            parts.append(f"{name}: {kind} = {json.dumps(prop['default'], ensure_ascii=False)}")
        else:
            parts.append(f"{name}?: {kind}")
    return f"{tool.get('name')}({', '.join(parts)})"


def schema_type(schema: Any) -> str:
    """A short name for a JSON schema: ``integer``, ``string[]``, ``"a" | "b"``, ``any``."""
    if not isinstance(schema, dict):
        return "any"
    if isinstance(schema.get("enum"), list):
        return " | ".join(json.dumps(value, ensure_ascii=False) for value in schema["enum"])
    kind = schema.get("type")
    if kind == "array":
        return f"{schema_type(schema['items'])}[]" if isinstance(schema.get("items"), dict) else "array"
    if isinstance(kind, str):
        return kind
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return " | ".join(schema_type(s) for s in schema[key])
    return "any"


def prompt_signature(prompt: dict[str, Any]) -> str:
    """``review_code(code, language?)``: optional arguments end in ``?``."""
    arguments = prompt.get("arguments")
    names = [f"{a.get('name')}" + ("" if a.get("required") else "?")
             for a in (arguments if isinstance(arguments, list) else []) if isinstance(a, dict)]
    return f"{prompt.get('name')}({', '.join(names)})"


def _about(resource: dict[str, Any]) -> list[str]:
    return [str(resource.get("name", "")), str(resource.get("mimeType", "")), _first_line(resource.get("description"))]


def _first_line(text: Any) -> str:
    return str(text).strip().split("\n", 1)[0] if text else ""


def _table(rows: list[list[str]], width: int) -> list[str]:
    """Columns padded to their widest entry (the first to at most half the width), the last
    one free; each line is cut to ``width`` so the whole fits on a screen."""
    if not rows:
        return []
    rows = [[printable(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    widths[0] = min(widths[0], width // 2)
    lines = []
    for row in rows:
        cells = [row[i].ljust(w) for i, w in enumerate(widths)] + row[len(widths):]
        line = ("  " + "  ".join(cells)).rstrip()
        lines.append(line if len(line) <= width else line[: width - 3] + "...")
    return lines


def printable(text: str) -> str:
    """A server's text with control characters (escape sequences, carriage returns) shown as
    ``?``: a hostile server must not be able to rewrite the user's terminal."""
    return "".join("?" if ord(ch) < 32 or 127 <= ord(ch) < 160 else ch for ch in text.replace("\t", " "))
