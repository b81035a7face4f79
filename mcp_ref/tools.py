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

Later revisions hook in here, each at its line: ``annotations`` (2025-03-26), ``title``,
``_meta``, ``outputSchema`` and ``structuredContent`` (2025-06-18), ``icons``, JSON Schema
2020-12 as the default dialect, the tool-name guidance and arguments that fail the schema as an
``isError`` result (2025-11-25); a session of an older revision gets none of them (see
mcp_ref/revisions/v2025_*.py, and the README's "What an older client sees").

Server side: ``ToolRegistry`` (used by ``@server.tool``). The Python side lives in mcp_ref/functions/:
hints.py derives the ``inputSchema`` from the function's type hints and turns the arguments into
typed values; returns.py turns what the function returns into content. Client side:
``call_tool_params`` (``Client.list_tools`` and ``call_tool`` send the requests).
"""

from __future__ import annotations

import logging
import re
import warnings
from collections.abc import Callable
from typing import Any

from . import content, pagination
from .functions.registry import Registered, Registry, close_matches, did_you_mean, error_text
from .lifecycle import LATEST_PROTOCOL_VERSION, since
from .machinery.quickcheck import compile_quick_check
from .messages import InvalidParams, McpError

# The rest of the Python side (mcp_ref/functions/: type hints in, return values out) is imported where
# a function is registered, not at the top: it needs inspect, dataclasses and more, which
# `import mcp_ref` and a program that only uses the client skip.

log = logging.getLogger("mcp_ref.tools")


# --- the server's registry -----------------------------------------------------------------------


# revisions/v2025_03_26.py, item 4: the hints a tool's annotations may give, and their types
ANNOTATIONS = {"title": str, "readOnlyHint": bool, "destructiveHint": bool, "idempotentHint": bool, "openWorldHint": bool}
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")  # revisions/v2025_11_25.py, item 7: a SHOULD


def schema_validator(schema: Any, what: str) -> Any:
    """A jsonschema validator for ``schema``, in the dialect its ``$schema`` names, or JSON Schema
    2020-12 when it names none (revisions/v2025_11_25.py, item 5; a draft-07 schema says so in
    ``$schema``). A schema that is not valid in its dialect, or names one jsonschema does not know,
    is the author's mistake (or the peer's): a ValueError now, not at the first call."""
    import jsonschema  # heavy: imported with the first tool registered, not by `import mcp_ref`

    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise ValueError(f'{what} must be a JSON Schema with "type": "object", not {schema!r}')
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    dialect = schema.get("$schema")
    known = str(cls.META_SCHEMA.get("$id") or cls.META_SCHEMA.get("id", ""))  # draft 4 names it "id"
    if dialect is not None and str(dialect).rstrip("#") != known.rstrip("#"):
        raise ValueError(f"{what} names the dialect {dialect!r}, which jsonschema does not know")
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        hint = "" if dialect else ", the default dialect since 2025-11-25; a draft-07 schema names its $schema"
        raise ValueError(f"{what} is not a valid JSON Schema ({known}{hint}): {exc.message} "
                         f"(at {'/'.join(map(str, exc.absolute_path)) or 'its top'})") from None
    return cls(schema)


def checked_annotations(annotations: Any, what: str) -> dict[str, Any] | None:
    """The ``annotations=`` of a tool, refused now unless a dict of the spec's hint names and types."""
    if annotations is None:
        return None
    if not isinstance(annotations, dict):
        raise TypeError(f"{what}: annotations must be a dict such as {{'readOnlyHint': True}}, not {annotations!r}")
    for key, value in annotations.items():
        if key not in ANNOTATIONS:
            raise ValueError(f"{what}: unknown annotation {key!r}{did_you_mean(close_matches(key, ANNOTATIONS))}; "
                             f"the spec's are {', '.join(ANNOTATIONS)}")
        if not isinstance(value, ANNOTATIONS[key]):
            raise TypeError(f"{what}: annotation {key!r} must be a {ANNOTATIONS[key].__name__}, not {value!r}")
    return dict(annotations)


class Tool(Registered):
    """One registered tool: its wire description and the function behind it. ``input_schema``
    defaults to the one derived from the function's type hints (functions/hints.py), and
    ``output_schema`` to the one derived from its return hint when that is structured
    (signatures.py ``Signature.output_schema``)."""

    def __init__(self, fn: Callable[..., Any], name: str, description: str | None,
                 input_schema: dict[str, Any] | None = None, *, output_schema: dict[str, Any] | None = None,
                 annotations: dict[str, Any] | None = None, **later: Any):
        from .functions.hints import passes_through
        from .functions.returns import tool_result

        super().__init__(fn, f"tool {name!r}", description, label=f"tool {name}", **later)
        self.name = name
        if not _NAME.fullmatch(name):  # revisions/v2025_11_25.py, item 7: guidance, so a warning
            warnings.warn(f"tool name {name!r}: MCP 2025-11-25 asks for 1 to 128 characters of A-Z a-z 0-9 _ - . "
                          "(clients may refuse others)", stacklevel=4)
        self.annotations = checked_annotations(annotations, self.what)
        self.input_schema = input_schema if input_schema is not None else self.signature.input_schema()
        self._validator = schema_validator(self.input_schema, f"the input schema of tool {name!r}")  # TOOL-08: once
        # revisions/v2025_06_18.py, item 2: a tool whose result is structured says so by its schema
        self.output_schema = output_schema if output_schema is not None else self.signature.output_schema()
        self.output_validator = (None if self.output_schema is None
                                 else schema_validator(self.output_schema, f"the output schema of tool {name!r}"))
        self._quick_check = compile_quick_check(self.input_schema)  # the common case, cheaply (quickcheck.py)
        # Arguments the quick check proved valid are each of their parameter's JSON type; when every
        # parameter takes such a value as it is (str, int, bool, Any), there is nothing to convert.
        # Only with the schema made from those hints: a hand-written one may prove other types.
        self._nothing_to_convert = input_schema is None and all(passes_through(p.hint) for p in self.signature.parameters)
        self.read_arguments = self.reader(self.signature.json_reader(lenient=input_schema is not None),
                                          lambda exc: self._invalid(exc.field, exc.problem))
        # TOOL-11: only what converts to valid content goes out; what does not is the tool's own bug,
        # and for the model the tool failed (TOOL-17)
        self.result = self.converter(tool_result, lambda kind, exc: _error_result(
            name, TypeError(f"it returned a {kind} that cannot be sent ({exc})")))

    def to_wire(self, version: str | None = None) -> dict[str, Any]:
        """The tool in ``tools/list``, with the fields of later revisions a session of ``version`` has."""
        tool: dict[str, Any] = {"name": self.name, "inputSchema": self.input_schema}
        if self.description:
            tool["description"] = self.description
        if self.annotations is not None and since(version, "2025-03-26"):  # revisions/v2025_03_26.py, item 4
            tool["annotations"] = self.annotations
        if self.output_schema is not None and since(version, "2025-06-18"):  # revisions/v2025_06_18.py, item 2
            tool["outputSchema"] = self.output_schema
        return tool | self.later_fields(version)

    def structured(self, value: Any, result: dict[str, Any]) -> dict[str, Any]:
        """revisions/v2025_06_18.py, item 2: ``result`` with ``structuredContent``, the value as JSON,
        checked against ``outputSchema``. A value that does not conform is the author's bug: an
        ``isError`` result that says so, never a result that breaks the tool's own promise."""
        from .functions.returns import UnsupportedReturn, is_tool_result, jsonable

        if result.get("isError"):
            return result  # a failed call owes no structured result
        problem: str | None = None
        try:
            structured = value.get("structuredContent") if is_tool_result(value) else jsonable(value)
        except UnsupportedReturn as exc:
            structured, problem = None, str(exc)
        if isinstance(structured, dict) and self.output_validator is not None:
            error = next(iter(self.output_validator.iter_errors(structured)), None)
            problem = str(error.message) if error is not None else None
        if problem or not isinstance(structured, dict):  # OUT-03: a result that breaks its schema is the tool's error
            return _error_result(self.name, TypeError(f"its structured result does not match its outputSchema: "
                                                      f"{problem or f'{structured!r} is not an object'}"))
        return {**result, "structuredContent": structured}

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
        """TOOL-08: the check against ``inputSchema`` (jsonschema, in its dialect); the first error, by
        place in the arguments, becomes the -32602's message."""
        errors = sorted(self._validator.iter_errors(arguments), key=lambda e: list(e.absolute_path))  # TOOL-08
        if errors:
            error = errors[0]
            path = [str(p) for p in error.absolute_path]
            if error.validator == "required" and isinstance(error.instance, dict):  # the field is the missing one
                path += [next((str(k) for k in error.validator_value if k not in error.instance), "")]
            raise self._invalid("/".join(part for part in path if part), _problem(error))

    def _invalid(self, field: str, problem: str) -> InvalidParams:
        where = f" at {field!r}" if field else ""
        return InvalidParams(f"Invalid arguments for tool {self.name!r}{where}: {problem}",
                             {"tool": self.name, "field": field or None, "problem": problem})


class ToolRegistry(Registry[Tool]):
    """The tools a server offers. ``on_change`` is called after every add or remove."""

    def __init__(self, on_change: Callable[[], None]):
        super().__init__("tool", on_change)

    def add(self, fn: Callable[..., Any], name: str | None = None, description: str | None = None,
            input_schema: dict[str, Any] | None = None, *, replace: bool = False, **later: Any) -> Tool:
        """Register ``fn`` as a tool. A name already taken is an error unless ``replace=True``.
        ``later``: ``title``, ``annotations``, ``icons``, ``meta``, ``output_schema`` (see ``Server.tool``)."""
        name = name if name is not None else getattr(fn, "__name__", None)
        if not isinstance(name, str) or not name:
            raise TypeError("a tool needs a name: pass name='...'")
        if input_schema is not None and (not isinstance(input_schema, dict) or input_schema.get("type") != "object"):
            raise ValueError('a tool\'s input_schema must be a JSON Schema with "type": "object"')
        return self.put(name, Tool(fn, name, description, input_schema, **later), replace=replace)  # TOOL-06

    def page(self, params: dict[str, Any], page_size: int | None, version: str | None = None) -> dict[str, Any]:
        """``tools/list``: one page of tools, as a session of ``version`` sees them."""
        return pagination.list_result(self.items(), lambda t: t.name, "tools", params, page_size, version)

    def call(self, ctx: Any, params: dict[str, Any]) -> dict[str, Any]:
        """``tools/call``: find, validate, run; tool failures become ``isError`` results."""
        name = params.get("name")
        if not isinstance(name, str):
            raise InvalidParams('Invalid params: tools/call needs "name", a string')
        tool = self.lookup(name)
        if tool is None:  # TOOL-18: a protocol error, not an isError result
            suggestions = self.suggest(name)
            raise InvalidParams(f"Unknown tool: {name!r}{did_you_mean(suggestions)}",
                                {"tool": name, "suggestions": suggestions})
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise InvalidParams(f'Invalid params: "arguments" of tool {name!r} must be an object')
        version = ctx.session.lifecycle.protocol_version if ctx is not None else LATEST_PROTOCOL_VERSION  # no session: all
        try:
            kwargs = tool.arguments(arguments)  # TOOL-08
        except InvalidParams as exc:  # TNAME-07: from 2025-11-25, a tool error for the model to fix
            if not since(version, "2025-11-25"):
                raise
            return {"content": [content.text(exc.message)], "isError": True}
        try:
            value = tool.call(ctx, kwargs)
        except McpError as exc:
            if exc.failed_request is None:
                raise  # the tool author chose a protocol error on purpose (TOOL-18)
            return _error_result(name, exc)  # a request the tool made failed (sampling refused...)
        except Exception as exc:  # TOOL-17: report inside the result, without a traceback
            return _error_result(name, exc)
        result = tool.result(value, version)  # audio, resource links: stand-ins for an older session (returns.py)
        if tool.output_validator is not None:
            result = tool.structured(value, result)
        if "structuredContent" in result and not since(version, "2025-06-18"):
            del result["structuredContent"]  # revisions/v2025_06_18.py, item 2: an older client reads the text
        return result


# The JSON types a Python value of the arguments can have (a JSON integer is a number too).
_JSON_TYPES = {bool: {"boolean"}, int: {"integer", "number"}, float: {"number"}, str: {"string"},
               type(None): {"null"}, list: {"array"}, dict: {"object"}}


def _problem(error: Any) -> str:
    """What is wrong, in jsonschema's words, but for a value of none of a union's types
    (``int | None``: ``anyOf`` integer, null) the types it expected, where jsonschema would only
    say that the value "is not valid under any of the given schemas"."""
    if error.validator not in ("anyOf", "oneOf") or not isinstance(error.validator_value, list):
        return str(error.message)
    expected = [choice.get("type") if isinstance(choice, dict) else None for choice in error.validator_value]
    if all(isinstance(kind, str) for kind in expected):
        if _JSON_TYPES.get(type(error.instance), set()).isdisjoint(expected):
            return f"{error.instance!r} is not of type {' or '.join(repr(kind) for kind in expected)}"
    # Of a type one choice takes: what that choice found wrong, the deepest first ([3] in list[str]).
    inside = [sub for sub in error.context or () if not (sub.validator == "type" and not sub.relative_path)]
    return str(max(inside, key=lambda sub: len(sub.relative_path)).message) if inside else str(error.message)


def _error_result(name: str, exc: Exception) -> dict[str, Any]:
    """TOOL-17: a tool that failed while running: its message for the model, no traceback."""
    log.info("tool %s failed: %r", name, exc)
    message = error_text(exc)  # TOOL-11: the message only: no traceback, no internals
    return {"content": [content.text(f"Tool {name!r} failed: {message}")], "isError": True}  # TOOL-17, TOOL-19


# --- the client's side ---------------------------------------------------------------------------


def call_tool_params(name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return params
