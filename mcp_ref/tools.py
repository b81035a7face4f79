"""Tools: functions a server exposes for the model to call.

Spec page: server/tools
https://modelcontextprotocol.io/specification/2024-11-05/server/tools

In short:

1. A server with tools declares the ``tools`` capability, with ``listChanged`` if it will say
   when the list changes (TOOL-05, TOOL-06).
2. ``tools/list`` (paginated) returns each tool's ``name``, ``description`` and ``inputSchema``,
   a JSON Schema object describing the arguments.
3. ``tools/call`` with ``name`` and ``arguments`` runs the tool. The result is a list of content
   items (text, image, embedded resource) and ``isError``.
4. Two kinds of failure (TOOL-17, TOOL-18): a problem *finding or calling* the tool (unknown
   name, arguments that do not match the schema) is a protocol error, -32602; a tool that runs
   and fails returns a normal result with ``isError: true`` and a message the model can use.
5. Servers must validate inputs (TOOL-08): we check arguments against ``inputSchema`` with
   jsonschema before the function is called.

Server side: ``ToolRegistry`` (used by ``@server.tool``), with the input schema derived from the
function's signature when not given. Client side: ``list_tools`` and ``call_tool``.
"""

from __future__ import annotations

import inspect
import logging
import threading
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Union

from . import content, pagination
from .jsonrpc import InvalidParams, McpError

log = logging.getLogger("mcp_ref.tools")

# --- input schemas from signatures ---------------------------------------------------------------

_JSON_TYPES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean",
                               list: "array", tuple: "array", dict: "object"}


def _schema_for(annotation: Any) -> dict[str, Any]:
    """JSON Schema for one type hint: str, int, float, bool, list[T], dict, Optional[T], Literal."""
    if annotation is inspect.Parameter.empty or annotation is Any:
        return {}
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Literal:
        schema: dict[str, Any] = {"enum": list(args)}
        kinds = {_JSON_TYPES.get(type(a)) for a in args}
        if len(kinds) == 1 and None not in kinds:
            schema["type"] = kinds.pop()
        return schema
    if origin is Union or origin is types.UnionType:
        options = [_schema_for(a) for a in args if a is not type(None)]
        schema = options[0] if len(options) == 1 else {"anyOf": options}
        if type(None) in args:
            schema = {"anyOf": [schema, {"type": "null"}]}
        return schema
    if origin in (list, tuple, set, frozenset):
        schema = {"type": "array"}
        if args and args[0] is not Ellipsis:
            schema["items"] = _schema_for(args[0])
        return schema
    if origin is dict:
        return {"type": "object"}
    if annotation in _JSON_TYPES:
        return {"type": _JSON_TYPES[annotation]}
    return {}


def is_context_parameter(parameter: inspect.Parameter, hints: dict[str, Any]) -> bool:
    """A parameter that receives the request context: named ``ctx`` or annotated RequestContext."""
    hint = hints.get(parameter.name)
    return parameter.name == "ctx" or getattr(hint, "__name__", hint) == "RequestContext"


def type_hints(fn: Callable[..., Any]) -> dict[str, Any]:
    """The function's resolved type hints; its raw annotations if they cannot be resolved."""
    try:
        return typing.get_type_hints(fn)
    except Exception:
        return dict(getattr(fn, "__annotations__", {}))


def input_schema_from_signature(fn: Callable[..., Any]) -> dict[str, Any]:
    """Derive a tool's ``inputSchema`` from its signature; parameters with defaults are optional."""
    signature = inspect.signature(fn)
    hints = type_hints(fn)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for parameter in signature.parameters.values():
        if is_context_parameter(parameter, hints) or parameter.kind in (
                inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            continue
        properties[parameter.name] = _schema_for(hints.get(parameter.name, parameter.annotation))
        if parameter.default is inspect.Parameter.empty:
            required.append(parameter.name)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values()):
        schema["additionalProperties"] = False
    return schema


def context_parameter_name(fn: Callable[..., Any]) -> str | None:
    hints = type_hints(fn)
    for parameter in inspect.signature(fn).parameters.values():
        if is_context_parameter(parameter, hints):
            return parameter.name
    return None


# --- the server's registry -----------------------------------------------------------------------


class Tool:
    """One registered tool: its wire description and the function behind it."""

    def __init__(self, fn: Callable[..., Any], name: str, description: str | None, input_schema: dict[str, Any]):
        self.fn = fn
        self.name = name
        self.description = description
        self.input_schema = input_schema
        self.context_parameter = context_parameter_name(fn)
        self._validator: Any = None

    def to_wire(self) -> dict[str, Any]:
        tool: dict[str, Any] = {"name": self.name, "inputSchema": self.input_schema}
        if self.description:
            tool["description"] = self.description
        return tool

    def validate(self, arguments: dict[str, Any]) -> None:
        """TOOL-08: raise InvalidParams naming the offending field."""
        if self._validator is None:
            import jsonschema  # heavy: imported on first use only

            self._validator = jsonschema.Draft7Validator(self.input_schema)
        errors = sorted(self._validator.iter_errors(arguments), key=lambda e: list(e.absolute_path))
        if errors:
            error = errors[0]
            field = "/".join(str(p) for p in error.absolute_path)
            where = f" at {field!r}" if field else ""
            raise InvalidParams(
                f"Invalid arguments for tool {self.name!r}{where}: {error.message}",
                {"tool": self.name, "field": field or None, "problem": error.message},
            )


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
            input_schema: dict[str, Any] | None = None) -> Tool:
        if input_schema is not None and input_schema.get("type") != "object":
            raise ValueError('a tool\'s input_schema must be a JSON Schema with "type": "object"')
        tool = Tool(fn, name or fn.__name__, description if description is not None else inspect.getdoc(fn),
                    input_schema if input_schema is not None else input_schema_from_signature(fn))
        with self._lock:
            self._tools[tool.name] = tool
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
        tool.validate(arguments)  # TOOL-08
        kwargs = dict(arguments)
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
        return tool_result(value)


def _error_result(name: str, exc: Exception) -> dict[str, Any]:
    """TOOL-17: a tool that failed while running: its message for the model, no traceback."""
    log.info("tool %s failed: %r", name, exc)
    message = str(exc) or type(exc).__name__
    return {"content": [content.text(f"Tool {name!r} failed: {message}")], "isError": True}


def tool_result(value: Any) -> dict[str, Any]:
    """A tool function's return value -> a ``CallToolResult``.

    A dict with ``content`` is used as it is (so a tool can set ``isError`` itself); anything
    else is turned into content items (see content.to_content_list).
    """
    if isinstance(value, dict) and "content" in value:
        return value
    return {"content": content.to_content_list(value)}


# --- the client's side ---------------------------------------------------------------------------


def list_tools(request: Callable[[str, dict[str, Any] | None], dict[str, Any]]) -> list[dict[str, Any]]:
    """Every tool the server has, across all pages."""
    return pagination.list_all(request, "tools/list", "tools")


def call_tool_params(name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return params
