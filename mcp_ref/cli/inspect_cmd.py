"""``mcp-ref inspect``: one screen about a server, the first thing to look at.

Not a spec section: it shows what a client learns from ``initialize`` (server info, protocol
version, capabilities, instructions) and from the list methods of server/tools,
server/resources and server/prompts, asked only when the server declared the capability.

``gather(client)`` returns it all as one dict (the ``--json`` output): the wire's own field
names, plus ``errors`` for any list the server declared but failed to answer. ``render(info)``
lays the same out for people:

- the instructions with their own line breaks (the first ``MAX_INSTRUCTION_LINES`` of them);
- one line per tool: its argument signature, where a structured argument is shown by its shape
  (``reading: {value: number, unit?: "C" | "F"}``, not ``object``), then its summary: the
  description up to its first docstring section (``Args:``, ``Returns:``, ``:param x:``...);
  under it, one line per argument whose schema has a description (where that ``Args:`` block
  went: servers such as ours turn it into the arguments' descriptions);
- one line per resource, template and prompt.

Everything a server wrote is shown with its control characters as ``?``: a hostile server must
not be able to rewrite the user's terminal.
"""

from __future__ import annotations

import json
import re
import shutil
import textwrap
from collections.abc import Callable
from typing import Any

from ..client import Client
from ..messages import CONNECTION_CLOSED, REQUEST_TIMEOUT, McpError

MAX_INSTRUCTION_LINES = 12  # a longer text is cut there, saying how much more --json shows
MAX_SHAPE_DEPTH = 3  # objects nested deeper than this are shown as {...}


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
        lines += _instructions(str(info["instructions"]), width)
    lines.append("")
    lines += textwrap.wrap("capabilities: " + (describe_capabilities(info.get("capabilities") or {}) or "none"),
                           width, subsequent_indent="  ")
    sections: list[tuple[str, str, Callable[[dict[str, Any]], Row]]] = [
        ("tools", "tools", lambda t: ([tool_signature(t), summary(t.get("description"))], argument_notes(t))),
        ("resources", "resources", lambda r: ([str(r.get("uri")), *_about(r)], [])),
        ("resourceTemplates", "resource templates", lambda r: ([str(r.get("uriTemplate")), *_about(r)], [])),
        ("prompts", "prompts", lambda p: ([prompt_signature(p), summary(p.get("description"))], [])),
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


def _instructions(text: str, width: int) -> list[str]:
    """The server's instructions, indented, each of its lines wrapped on its own (its line breaks
    and blank lines kept), at most ``MAX_INSTRUCTION_LINES`` screen lines."""
    lines: list[str] = []
    for line in text.splitlines():
        wrapped = textwrap.wrap(printable(line), width - 2, initial_indent="  ", subsequent_indent="  ")
        lines += wrapped or [""]
    if len(lines) > MAX_INSTRUCTION_LINES:
        more = len(lines) - MAX_INSTRUCTION_LINES + 1
        lines = lines[: MAX_INSTRUCTION_LINES - 1] + [f"  ... ({more} more lines; --json shows them all)"]
    return lines


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
        kind = schema_type(prop, schema)
        if name in required:
            parts.append(f"{name}: {kind}")
        elif isinstance(prop, dict) and "default" in prop:
            parts.append(f"{name}: {kind} = {json.dumps(prop['default'], ensure_ascii=False)}")
        else:
            parts.append(f"{name}?: {kind}")
    return f"{tool.get('name')}({', '.join(parts)})"


def schema_type(schema: Any, root: Any = None, _seen: tuple[str, ...] = (), _depth: int = 0) -> str:
    """A short name for a JSON schema, showing its shape: ``integer``, ``string[]``,
    ``"a" | "b"``, ``{x: number, y?: number}`` (an object's properties, optional ones with
    ``?``), ``{[key: string]: integer}`` (a dict), ``[integer, string]`` (a fixed-length array),
    ``any``. A ``$ref`` to ``#/definitions/Node`` (or ``#/$defs/Node``) in ``root`` (the whole
    input schema) is shown as ``Node {...its shape...}``; inside itself, as ``Node``."""
    if not isinstance(schema, dict):
        return "any"
    if isinstance(schema.get("$ref"), str):
        return _reference(schema["$ref"], root, _seen, _depth)
    if "const" in schema:
        return json.dumps(schema["const"], ensure_ascii=False)
    if isinstance(schema.get("enum"), list):
        return " | ".join(json.dumps(value, ensure_ascii=False) for value in schema["enum"])

    def inner(part: Any) -> str:
        return schema_type(part, root, _seen, _depth + 1)

    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items")
        if isinstance(items, list):  # a tuple: one schema per position
            return f"[{', '.join(inner(item) for item in items)}]"
        if isinstance(items, dict):
            shown = inner(items)
            return f"({shown})[]" if " | " in shown else f"{shown}[]"
        return "array"
    if kind == "object" or (kind is None and isinstance(schema.get("properties"), dict)):
        return _object_shape(schema, inner, _depth)
    if isinstance(kind, str):
        return kind
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return " | ".join(inner(s) for s in schema[key])
    if isinstance(schema.get("allOf"), list) and len(schema["allOf"]) == 1:
        return inner(schema["allOf"][0])
    return "any"


def _object_shape(schema: dict[str, Any], inner: Callable[[Any], str], depth: int) -> str:
    """``{x: number, y?: number}``, ``{[key: string]: integer}``, or ``object`` when the schema
    says nothing of its contents."""
    properties = schema.get("properties")
    extra = schema.get("additionalProperties")
    if isinstance(properties, dict) and properties:
        if depth >= MAX_SHAPE_DEPTH:
            return "{...}"
        listed = schema.get("required")
        required = listed if isinstance(listed, list) else []
        fields = [f"{name}{'' if name in required else '?'}: {inner(prop)}" for name, prop in properties.items()]
        return "{" + ", ".join(fields) + "}"
    if isinstance(extra, dict) and extra:
        return "{[key: string]: " + inner(extra) + "}"
    return "object"


def _reference(ref: str, root: Any, seen: tuple[str, ...], depth: int) -> str:
    """A ``$ref`` within the input schema, by the name of its definition and its shape."""
    name = ref.rsplit("/", 1)[-1] or ref
    parts = ref.split("/")
    target: Any = root
    if parts[0] != "#" or ref in seen:
        target = None  # another document, or a definition inside itself: the name says it
    for part in parts[1:]:
        target = target.get(part) if isinstance(target, dict) else None
    if not isinstance(target, dict):
        return name
    return f"{name} {schema_type(target, root, (*seen, ref), depth)}"


def summary(description: Any) -> str:
    """A description up to its first docstring section (``Args:``, ``Returns:``, a numpy
    ``Parameters`` header, a reST ``:param x:``), its lines joined into one."""
    if not description:
        return ""
    text = str(description)
    match = _SECTION.search(text)
    if match:
        text = text[: match.start()]
    return " ".join(text.split())


# The start of a docstring's sections: "Args:" (Google), "Parameters" over dashes (numpy),
# ":param x:" (reST). The text before the first one is the summary.
_SECTION = re.compile(
    r"^[ \t]*(?:(?:Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Returns?|Yields?|Raises|"
    r"Examples?|Notes?|Attributes|See Also):[ \t]*$"
    r"|(?:Parameters|Returns|Yields|Raises|Examples|Notes|See Also)[ \t]*\n[ \t]*-{3,}[ \t]*$"
    r"|:(?:param|parameter|arg|argument|key|keyword|type|returns?|rtype|raises?)\b)",
    re.MULTILINE)


def argument_notes(tool: dict[str, Any]) -> list[str]:
    """``name: description`` for each argument of ``tool`` whose schema has a description."""
    schema = tool.get("inputSchema")
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return []
    return [f"{name}: {summary(prop['description'])}" for name, prop in properties.items()
            if isinstance(prop, dict) and isinstance(prop.get("description"), str) and prop["description"].strip()]


def prompt_signature(prompt: dict[str, Any]) -> str:
    """``review_code(code, language?)``: optional arguments end in ``?``."""
    arguments = prompt.get("arguments")
    names = [f"{a.get('name')}" + ("" if a.get("required") else "?")
             for a in (arguments if isinstance(arguments, list) else []) if isinstance(a, dict)]
    return f"{prompt.get('name')}({', '.join(names)})"


def _about(resource: dict[str, Any]) -> list[str]:
    return [str(resource.get("name", "")), str(resource.get("mimeType", "")), summary(resource.get("description"))]


# One row of a section: its cells, and notes shown on lines of their own under it.
Row = tuple[list[str], list[str]]


def _table(rows: list[Row], width: int) -> list[str]:
    """Columns padded to their widest entry (the first to at most half the width), the last
    one free; each line is cut to ``width`` so the whole fits on a screen. A first cell wider
    than its column stays on the row if the row fits, else it is wrapped on lines of its own
    with the other cells on the line after it. A row's notes follow it, indented."""
    if not rows:
        return []
    table = [[printable(cell) for cell in cells] for cells, _ in rows]
    widths = [max(len(cells[i]) for cells in table) for i in range(len(table[0]) - 1)]
    widths[0] = min(widths[0], width // 2)
    lines = []
    for cells, (_, notes) in zip(table, rows, strict=True):
        whole = ("  " + "  ".join(cells)).rstrip()
        if len(cells[0]) <= widths[0]:
            padded = [cells[i].ljust(w) for i, w in enumerate(widths)] + cells[len(widths):]
            lines.append(_cut(("  " + "  ".join(padded)).rstrip(), width))
        elif len(whole) <= width:  # wider than its column, but the row fits on the screen
            lines.append(whole)
        else:  # a long signature: wrapped on lines of its own, the rest of the row under it
            lines += [_cut(line, width) for line in textwrap.wrap(
                cells[0], width - 2, initial_indent="  ", subsequent_indent="      ",
                break_long_words=False, break_on_hyphens=False)]
            rest = "  ".join(cell for cell in cells[1:] if cell)
            if rest:
                lines.append(_cut("      " + rest, width))
        lines += [_cut("      " + printable(note), width) for note in notes]
    return lines


def _cut(line: str, width: int) -> str:
    return line if len(line) <= width else line[: width - 3] + "..."


def printable(text: str) -> str:
    """A server's text with control characters (escape sequences, carriage returns) shown as
    ``?``: a hostile server must not be able to rewrite the user's terminal."""
    return "".join("?" if ord(ch) < 32 or 127 <= ord(ch) < 160 else ch for ch in text.replace("\t", " "))
