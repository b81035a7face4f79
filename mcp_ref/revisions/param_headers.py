"""Tool arguments a server marks with ``x-mcp-header`` travel as HTTP headers too (revision 2026-07-28, the client's side).

Spec page: basic/transports/streamable-http
https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#custom-headers-from-tool-parameters
https://modelcontextprotocol.io/specification/2026-07-28/server/tools#x-mcp-header

1. A server may mark a parameter of a tool's ``inputSchema`` with ``"x-mcp-header": "Region"``;
   a client over Streamable HTTP then repeats that argument of each call in a header
   ``Mcp-Param-Region``, so that gateways can route on it without reading the body (MPARAM-01).
2. A mark is valid only as a non-empty HTTP token, free of control characters, unique (in any
   case) within the schema, on a property of type string, integer or boolean reached from the
   root through ``properties`` alone (MPARAM-02, MPARAM-03). A client over Streamable HTTP leaves a
   tool with any invalid mark out of what ``tools/list`` gives its caller, and warns naming the
   tool and why (MPARAM-04), so one bad tool spoils no other. Over stdio the marks mean nothing
   (MPARAM-05).
3. Each marked argument present in a call becomes its header: a string as it is, an integer in
   decimal, a boolean as ``true``/``false``; a value that is not plain visible ASCII (or has
   whitespace at an end, or looks like the encoded form) goes as ``=?base64?...?=`` (MPARAM-06,
   MPARAM-07). An argument absent or null sends no header.
4. The server's side (``param_problem``, which the endpoint of 2026-07-28 asks beside its check
   of the standard headers, stateless_http.py): for a ``tools/call`` of a tool of its own whose
   marks are valid, each marked argument present (not null) must come with its header, and an
   absent or null one with none (MPARAM-12); the header must hold only visible ASCII, spaces and
   tabs, and a ``=?base64?...?=`` form must be valid Base64 of UTF-8 (MPARAM-11); the decoded
   value must equal the argument as point 3 writes it, an integer compared as a number, so that
   ``42.0`` is 42 (MPARAM-13). Any of these is a refusal: HTTP 400, -32020, as for the standard
   headers (HTTPX-21).

How it hooks in, on the client's side: ``Client.list_tools`` hands the tools it listed to
``listed``, which keeps the valid ones and, on a Streamable HTTP transport, tells it the marks of
each (``tool_params``);
the transport asks ``headers(msg, transport)`` for the headers of each POST: the standard ones
(``Mcp-Method``, ``Mcp-Name``: HTTPX-18, and in 2026-07-28 ``MCP-Protocol-Version`` from the
``_meta``, stateless_client.py) and the ``Mcp-Param-*`` of a ``tools/call``. We send them in
every revision over Streamable HTTP: to a server of an earlier revision they are headers it does
not know, which HTTP says to ignore.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import re
from typing import Any

from ..messages import printable
from .stateless_client import SENTINEL, header_value, http_headers, standard_headers

log = logging.getLogger("mcp_ref.client")

MARK = "x-mcp-header"
TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # RFC 9110's tchar, one or more
SAFE_INTEGER = 2**53 - 1
Marks = list[tuple[str, tuple[str, ...]]]  # (header name part, path of properties keys)


def marks(schema: Any) -> tuple[Marks, str | None]:
    """The valid marks of an ``inputSchema`` and, if any mark breaks the rules, why (point 2)."""
    found: Marks = []
    reachable: set[int] = set()

    def walk(node: Any, path: tuple[str, ...]) -> None:  # the properties chains from the root
        if not isinstance(node, dict):
            return
        for name, sub in (node.get("properties") or {}).items() if isinstance(node.get("properties"), dict) else ():
            if isinstance(sub, dict):
                if MARK in sub:
                    reachable.add(id(sub))
                    found.append((sub[MARK], (*path, name)))
                walk(sub, (*path, name))

    walk(schema, ())
    everywhere = _all_marked(schema)
    if any(id(node) not in reachable for node in everywhere):  # MPARAM-03: only along properties
        return [], "an x-mcp-header is not reached from the root through properties alone"
    seen: set[str] = set()
    for (value, path), node in zip(found, _marked_nodes(schema, found), strict=True):
        if not isinstance(value, str) or not TOKEN.match(value):  # MPARAM-02: a token, no control characters
            return [], f"x-mcp-header {value!r} of {'.'.join(path)} is not an HTTP token"
        if value.lower() in seen:  # MPARAM-02: unique in any case
            return [], f"x-mcp-header {value!r} appears twice"
        seen.add(value.lower())
        if node.get("type") not in ("string", "integer", "boolean"):  # MPARAM-03: primitives, never number
            return [], f"x-mcp-header {value!r} marks {'.'.join(path)}, of type {node.get('type')!r}"
    return found, None


def _all_marked(node: Any) -> list[dict[str, Any]]:
    """Every object of the schema that carries a mark, wherever it is."""
    if isinstance(node, list):
        return [found for item in node for found in _all_marked(item)]
    if not isinstance(node, dict):
        return []
    return ([node] if MARK in node else []) + [found for value in node.values() for found in _all_marked(value)]


def _marked_nodes(schema: dict[str, Any], found: Marks) -> list[dict[str, Any]]:
    nodes = []
    for _, path in found:
        node = schema
        for name in path:
            node = node["properties"][name]
        nodes.append(node)
    return nodes


def listed(session: Any, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Point 2: over Streamable HTTP, the tools whose marks are valid, their marks told to the
    transport; over any other transport, ``tools`` as they are."""
    transport: Any = getattr(session, "_transport", None)  # (the engine's; only its kind matters here)
    if not type(transport).__module__.endswith("streamable_http.client_transport"):  # MPARAM-05: stdio, SSE
        return tools
    kept, table = [], {}
    for tool in tools:
        found, problem = marks(tool.get("inputSchema"))
        if problem is not None:  # MPARAM-04: left out, with a warning that says which and why
            log.warning("tool %r left out of tools/list: %s", tool.get("name"), problem)
            continue
        kept.append(tool)
        if found:
            table[tool.get("name")] = found
    transport.tool_params = table
    return kept


def headers(msg: dict[str, Any], transport: Any) -> dict[str, str]:
    """Every header a POST of ``msg`` carries beside the transport's own: ``Mcp-Method`` and
    ``Mcp-Name`` in any revision (HTTPX-18), those of 2026-07-28, and a call's ``Mcp-Param-*``."""
    return {**standard_headers(msg), **http_headers(msg), **headers_for(msg, getattr(transport, "tool_params", None))}


def headers_for(msg: dict[str, Any], tool_params: dict[str, Marks] | None) -> dict[str, str]:
    """Point 3: the ``Mcp-Param-*`` headers of a ``tools/call`` message (none for any other)."""
    params: dict[str, Any] = msg["params"] if isinstance(msg.get("params"), dict) else {}
    if msg.get("method") != "tools/call" or not tool_params or params.get("name") not in tool_params:
        return {}
    arguments = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
    found: dict[str, str] = {}
    for name, path in tool_params[params["name"]]:  # MPARAM-01: each marked argument, a header
        value: Any = arguments
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if value is None:  # MPARAM-06: absent or null, no header
            continue
        if isinstance(value, bool):
            text = "true" if value else "false"  # MPARAM-07
        elif isinstance(value, int) and abs(value) <= SAFE_INTEGER:
            text = str(value)
        elif isinstance(value, str):
            text = value
        else:
            continue  # not what the schema said: the server refuses the call on its own terms
        found[f"Mcp-Param-{name}"] = header_value(text)  # MPARAM-07: Base64 when not plain
    return found


# --- the server's side (point 4) -------------------------------------------------------------------


def param_problem(given: Any, msg: dict[str, Any], tools: Any) -> str | None:
    """Why the ``Mcp-Param-*`` headers ``given`` (any-case lookup) disagree with the arguments of
    ``msg``, a ``tools/call`` of one of ``tools`` (the server's table); None when they agree, or
    when there is nothing to check (another method, an unknown tool, no valid marks)."""
    params: dict[str, Any] = msg["params"] if isinstance(msg.get("params"), dict) else {}
    tool = tools.lookup(params.get("name")) if tools is not None and msg.get("method") == "tools/call" else None
    found, problem = marks(tool.input_schema) if tool is not None else ([], None)
    if problem is not None:
        return None  # the server's own marks are wrong: nothing a client could have mirrored
    arguments = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
    for name, path in found:
        value: Any = arguments
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        header = f"Mcp-Param-{name}"
        text = given.get(header)
        if text is None:
            if value is not None:  # MPARAM-12: a value in the body needs its header
                return f"Header mismatch: the {header} header is missing, and the body gives {name} a value"
            continue
        if value is None:  # MPARAM-12: none for an absent or null argument
            return f"Header mismatch: {header} is sent, and the body gives {name} no value"
        text = text.strip(" \t")  # the whitespace around a field value is not part of it (RFC 9110)
        if not all(c == "\t" or " " <= c <= "~" for c in text):  # MPARAM-11: only what a header may hold
            return f"Header mismatch: {header} holds characters a header value may not"
        meant = decoded(text)
        if meant is None:  # MPARAM-11: a broken =?base64?...?= form
            return f"Header mismatch: {header} is not valid base64 between =?base64? and ?="
        if not _same(meant, value):  # MPARAM-12, MPARAM-13
            return (f"Header mismatch: {header} is {printable(meant)[:80]!r}, the body says "
                    f"{printable(json.dumps(value))[:80]!r}")
    return None


def decoded(value: str) -> str | None:
    """A header value as the client meant it: a ``=?base64?...?=`` value decoded (None when it
    cannot be), any other as it is (MPARAM-08)."""
    if not (value.startswith(SENTINEL[0]) and value.endswith(SENTINEL[1])):
        return value
    try:
        return base64.b64decode(value[len(SENTINEL[0]):-len(SENTINEL[1])], validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None


def _same(text: str, value: Any) -> bool:
    """Does the header's ``text`` say ``value``, as point 3 writes one?"""
    if isinstance(value, bool):
        return text == ("true" if value else "false")
    if isinstance(value, int | float):
        try:
            return float(text) == value  # MPARAM-13: 42.0 is 42
        except ValueError:
            return False
    return isinstance(value, str) and text == value
