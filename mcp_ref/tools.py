"""Tools: functions a server exposes for the model to call.

Spec page: server/tools
https://modelcontextprotocol.io/specification/2024-11-05/server/tools

In short:

1. A server with tools declares the ``tools`` capability, with ``listChanged`` if it will say
   when the list changes (TOOL-05, TOOL-06).
2. ``tools/list`` (paginated) returns each tool's ``name``, ``description`` and ``inputSchema``,
   a JSON Schema object describing the arguments.
3. ``tools/call`` with ``name`` and ``arguments`` runs the tool. The result is a list of content
   items (text, image, embedded resource, TOOL-07) and ``isError``.
4. Two kinds of failure (TOOL-17, TOOL-18): a problem *finding or calling* the tool (unknown
   name, arguments that do not match the schema) is a protocol error, -32602; a tool that runs
   and fails returns a normal result with ``isError: true`` and a message the model can use.
5. Servers must validate inputs (TOOL-08): we check arguments against ``inputSchema`` with
   jsonschema before the function is called.

Server side: ``ToolRegistry`` (used by ``@server.tool``). The Python side lives elsewhere:
hints.py derives the ``inputSchema`` from the function's type hints and turns the arguments into
typed values; returns.py turns what the function returns into content. Client side:
``list_tools`` and ``call_tool_params``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from . import content, pagination
from .machinery.quickcheck import compile_quick_check
from .messages import InvalidParams, McpError

# The Python side (signatures.py, hints.py, returns.py: type hints in, return values out) is
# imported where a function is registered, not at the top: it needs inspect,
# dataclasses and more, which `import mcp_ref` and a program that only uses the client skip.

log = logging.getLogger("mcp_ref.tools")


# --- the server's registry -----------------------------------------------------------------------


class Tool:
    """One registered tool: its wire description and the function behind it.

    ``input_schema`` defaults to the one derived from the function's type hints (hints.py).
    """

    def __init__(self, fn: Callable[..., Any], name: str, description: str | None,
                 input_schema: dict[str, Any] | None = None):
        self.fn = fn
        self.name = name
        from .python.hints import ArgumentError, passes_through
        from .python.returns import UnsupportedReturn, tool_result
        from .python.signatures import Signature

        signature = Signature(fn, f"tool {name!r}")  # refuses async functions and unusable hints
        self.description = description if description is not None else signature.doc
        self.input_schema = input_schema if input_schema is not None else signature.input_schema()
        self.context_parameter = signature.context
        read = signature.json_reader(lenient=input_schema is not None)

        # The tool's two conversions (hints.py, returns.py), made here once, so a call imports nothing.
        def read_arguments(arguments: dict[str, Any]) -> dict[str, Any]:
            try:
                return read(arguments)
            except ArgumentError as exc:  # valid JSON that still does not fit: a bad date, a validator
                raise self._invalid(exc.field, exc.problem) from None

        def result(value: Any) -> dict[str, Any]:
            try:
                return tool_result(value)  # TOOL-11: only what converts to valid content (returns.py) goes out
            except UnsupportedReturn as exc:  # the tool's own bug: for the model, the tool failed (TOOL-17)
                log.warning("tool %s returned a %s that cannot be sent: %s", name, type(value).__name__, exc)
                return _error_result(name, TypeError(f"it returned a {type(value).__name__} that cannot be sent ({exc})"))

        self.read_arguments = read_arguments
        self.result = result
        self._quick_check = compile_quick_check(self.input_schema)  # the common case, cheaply
        self._validator: Any = None
        # Arguments the quick check proved valid are each of their parameter's JSON type; when every
        # parameter takes such a value as it is (str, int, bool, Any), there is nothing to convert.
        # Only with the schema made from those hints: a hand-written one may prove other types.
        # (This shortcut: the server's per-call work for add(a: int, b: int) 16.0 -> 14.9 us.)
        self._nothing_to_convert = input_schema is None and all(passes_through(p.hint) for p in signature.parameters)

    def to_wire(self) -> dict[str, Any]:
        tool: dict[str, Any] = {"name": self.name, "inputSchema": self.input_schema}
        if self.description:
            tool["description"] = self.description
        return tool

    def arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """TOOL-08: validate ``arguments`` against the schema, then convert them to the typed
        values the function expects. InvalidParams (-32602) names the offending field."""
        if self._quick_check is not None and self._quick_check(arguments):  # quickcheck.py: proven valid
            if self._nothing_to_convert:
                return dict(arguments)
        else:
            self._validate(arguments)
        return self.read_arguments(arguments)

    def _validate(self, arguments: dict[str, Any]) -> None:
        """TOOL-08: the full check against ``inputSchema`` (jsonschema, draft 7)."""
        if self._validator is None:
            import jsonschema  # heavy: imported on first use only

            self._validator = jsonschema.Draft7Validator(self.input_schema)
        errors = sorted(self._validator.iter_errors(arguments), key=lambda e: list(e.absolute_path))  # TOOL-08
        if errors:
            field = "/".join(str(p) for p in errors[0].absolute_path)
            raise self._invalid(field, errors[0].message)

    def _invalid(self, field: str, problem: str) -> InvalidParams:
        where = f" at {field!r}" if field else ""
        return InvalidParams(f"Invalid arguments for tool {self.name!r}{where}: {problem}",
                             {"tool": self.name, "field": field or None, "problem": problem})


class ToolRegistry:
    """The tools a server offers. ``on_change`` is called after every add or remove."""

    def __init__(self, on_change: Callable[[], None]):
        self._tools: dict[str, Tool] = {}
        self._lock = threading.Lock()
        self._on_change = on_change

    def __bool__(self) -> bool:
        return bool(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def add(self, fn: Callable[..., Any], name: str | None = None, description: str | None = None,
            input_schema: dict[str, Any] | None = None, *, replace: bool = False) -> Tool:
        """Register ``fn`` as a tool. A name already taken is an error unless ``replace=True``."""
        name = name if name is not None else getattr(fn, "__name__", None)
        if not isinstance(name, str) or not name:
            raise TypeError("a tool needs a name: pass name='...'")
        if input_schema is not None and (not isinstance(input_schema, dict) or input_schema.get("type") != "object"):
            raise ValueError('a tool\'s input_schema must be a JSON Schema with "type": "object"')
        tool = Tool(fn, name, description, input_schema)
        with self._lock:
            if name in self._tools and not replace:
                raise ValueError(f"a tool named {name!r} is already registered; choose another name, "
                                 "or pass replace=True to replace it")
            self._tools[name] = tool
        self._on_change()  # TOOL-06
        return tool

    def remove(self, name: str) -> None:
        with self._lock:
            if self._tools.pop(name, None) is None:
                raise KeyError(f"no tool named {name!r}")
        self._on_change()

    def page(self, params: dict[str, Any], page_size: int | None) -> dict[str, Any]:
        """``tools/list``: one page of tools."""
        with self._lock:
            tools = list(self._tools.values())
        return pagination.list_result(tools, lambda t: t.name, "tools", params, page_size)

    def call(self, ctx: Any, params: dict[str, Any]) -> dict[str, Any]:
        """``tools/call``: find, validate, run; tool failures become ``isError`` results."""
        name = params.get("name")
        if not isinstance(name, str):
            raise InvalidParams('Invalid params: tools/call needs "name", a string')
        with self._lock:
            tool = self._tools.get(name)
        if tool is None:  # TOOL-18: a protocol error, not an isError result
            raise InvalidParams(f"Unknown tool: {name!r}", {"tool": name})
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise InvalidParams(f'Invalid params: "arguments" of tool {name!r} must be an object')
        kwargs = tool.arguments(arguments)  # TOOL-08
        if tool.context_parameter:
            kwargs[tool.context_parameter] = ctx
        try:
            value = tool.fn(**kwargs)
        except McpError as exc:
            if exc.failed_request is None:
                raise  # the tool author chose a protocol error on purpose (TOOL-18)
            return _error_result(name, exc)  # a request the tool made failed (sampling refused...)
        except Exception as exc:  # TOOL-17: report inside the result, without a traceback
            return _error_result(name, exc)
        return tool.result(value)



def _error_result(name: str, exc: Exception) -> dict[str, Any]:
    """TOOL-17: a tool that failed while running: its message for the model, no traceback."""
    log.info("tool %s failed: %r", name, exc)
    message = str(exc) or type(exc).__name__  # TOOL-11: the message only: no traceback, no internals
    return {"content": [content.text(f"Tool {name!r} failed: {message}")], "isError": True}  # TOOL-17, TOOL-19


# --- the client's side ---------------------------------------------------------------------------


def list_tools(request: Callable[[str, dict[str, Any] | None], dict[str, Any]]) -> list[dict[str, Any]]:
    """Every tool the server has, across all pages."""
    return pagination.list_all(request, "tools/list", "tools")


def call_tool_params(name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return params
