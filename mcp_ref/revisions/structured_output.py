"""Structured tool output, the client's side: a result checked against the tool's ``outputSchema``.

Spec page: server/tools
https://modelcontextprotocol.io/specification/2025-06-18/server/tools#output-schema
(the part of the page that revision 2025-06-18 added; the server's side is a hook in tools.py)

In short:

1. A tool may declare an ``outputSchema`` in ``tools/list``; its results then carry
   ``structuredContent``, a JSON object that conforms to it, beside the same JSON as text.
2. The server must keep that promise (tools.py ``Tool.structured`` checks its own results); a
   client should check it too. This module is that check: ``Client.list_tools`` remembers the
   schemas of the tools it listed (``remember``), and ``Client.call_tool`` checks the results of
   those tools (``check``). A tool never listed, or listed by a session older than 2025-06-18,
   is not checked.
3. A result that is not an error and has no ``structuredContent``, or one that does not conform,
   raises ``InvalidStructuredContent`` (an ``McpError``), which keeps the result as received in
   ``.result``: the server broke the tool's promise, and the caller decides what to do.
4. An ``outputSchema`` that is not a valid JSON Schema (in the dialect it names, 2020-12 if none)
   cannot check anything: it is left out, with a warning in the log, and the listing goes on.
"""

from __future__ import annotations

import logging
from typing import Any

from ..lifecycle import since
from ..messages import McpError
from ..tools import schema_validator

log = logging.getLogger("mcp_ref.revisions.structured_output")


class InvalidStructuredContent(McpError):
    """A tool's result broke its ``outputSchema``; ``.result`` is the result as the server sent it."""

    def __init__(self, message: str, result: dict[str, Any]):
        super().__init__(message, {"result": result})
        self.result = result


def remember(tools: list[dict[str, Any]], version: str | None) -> dict[str, Any]:
    """Tool name -> a validator of its ``outputSchema``, for the tools of one listing that declare one."""
    validators: dict[str, Any] = {}
    if not since(version, "2025-06-18"):
        return validators  # an older revision has no structured output to check
    for tool in tools:
        name, schema = tool.get("name"), tool.get("outputSchema")
        if isinstance(name, str) and schema is not None:
            try:
                validators[name] = schema_validator(schema, f"the outputSchema of tool {name!r}")
            except ValueError as exc:
                log.warning("cannot check the results of tool %r: %s", name, exc)
    return validators


def check(name: str, result: dict[str, Any], validator: Any) -> dict[str, Any]:
    """``result`` if it keeps the promise of the tool's ``outputSchema``; else InvalidStructuredContent."""
    if result.get("isError") is True:
        return result  # a failed call owes no structured result
    structured = result.get("structuredContent")
    if not isinstance(structured, dict):
        raise InvalidStructuredContent(f"tool {name!r} declared an outputSchema, but its result has no "
                                       "structuredContent object", result)
    error = next(iter(validator.iter_errors(structured)), None)  # OUT-04: the client checks the promise too
    if error is not None:
        where = "/".join(map(str, error.absolute_path)) or "its top"
        raise InvalidStructuredContent(f"the structuredContent of tool {name!r} does not match its outputSchema "
                                       f"at {where}: {error.message}", result)
    return result
