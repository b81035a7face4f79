"""What registration reads from a handler function: its parameters, their hints and
descriptions, the context parameter; and the refusal of ``async`` functions.

Not a spec section: the Python side shared by server/tools, server/prompts and
server/resources (https://modelcontextprotocol.io/specification/2024-11-05/server/tools).

In short:

1. ``Signature(fn, "tool 'add'")`` reads a function once, when it is registered. An ``async``
   function (or async generator, or object whose ``__call__`` is async) is refused: this
   library is synchronous, and calling one would only create a coroutine.
2. The type hints are resolved (a hint that cannot be resolved is an error naming it); the
   parameter named ``ctx``, or hinted ``RequestContext``, receives the request context and is
   not an argument; ``*args`` is ignored; ``**kwargs`` accepts arguments of any name.
3. Each parameter's description comes from ``Annotated[int, "the count"]``, else from the
   docstring: a Google-style ``Args:`` section or reST ``:param count:`` lines.
4. From these: ``input_schema()`` (a tool's ``inputSchema``), ``output_schema()`` (its
   ``outputSchema``, 2025-06-18, when the return hint is structured), ``json_reader()`` (JSON
   arguments -> typed keyword arguments) and ``string_reader()`` (string arguments of prompts
   and URI templates -> typed keyword arguments), using the table of hints.py.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
import typing
from collections.abc import Callable, Collection
from typing import Annotated, Any

from .convert import Converter
from .hints import Hints, description_of, from_string, string_problem, with_default
from .kinds import kind_of


def refuse_async(fn: Callable[..., Any], what: str) -> None:
    """Raise TypeError for an ``async def`` function, an async generator, or an object whose
    ``__call__`` is one: called synchronously they return a coroutine instead of running."""
    call = getattr(fn, "__call__", None)  # noqa: B004 - the method itself, to inspect it
    for candidate in (fn, call):
        if inspect.iscoroutinefunction(candidate) or inspect.isasyncgenfunction(candidate):
            raise TypeError(
                f"{what} is an async function, but mcp_ref is synchronous (no asyncio): calling it "
                "would only create a coroutine. Define it with plain `def`; inside, "
                "asyncio.run(...) can run async code if you need to.")


# --- descriptions from docstrings ----------------------------------------------------------------

_GOOGLE_HEADER = re.compile(r"(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments):")
_GOOGLE_ENTRY = re.compile(r"\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)")
_REST_PARAM = re.compile(r":param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)")


def docstring_descriptions(doc: str | None) -> dict[str, str]:
    """Parameter descriptions from a Google-style ``Args:`` section or reST ``:param x:`` lines.

    A description runs on over the lines below it that are indented deeper than its first line.
    """
    found: dict[str, str] = {}
    name: str | None = None  # the parameter whose description is being read
    name_indent = 0
    section: int | None = None  # inside an "Args:" section: the indentation of its header
    entry_indent: int | None = None  # ... and of its entries
    for line in inspect.cleandoc(doc or "").splitlines():
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if not stripped:
            name = None
            continue
        if section is not None and indent <= section:
            section = None  # dedented: the section is over
        # An entry of an Args: section is no deeper than the first one (deeper lines continue it).
        entry = section is not None and (entry_indent is None or indent <= entry_indent)
        match = _REST_PARAM.fullmatch(stripped) or (_GOOGLE_ENTRY.fullmatch(stripped) if entry else None)
        if match:
            name, name_indent = match.group(1), indent
            if match.re is _GOOGLE_ENTRY:
                entry_indent = indent
            found[name] = match.group(2).strip()
        elif _GOOGLE_HEADER.fullmatch(stripped):
            section, entry_indent, name = indent, None, None
        elif name is not None and indent > name_indent:
            found[name] = f"{found[name]} {stripped}".strip()
        else:
            name = None
    return {key: text for key, text in found.items() if text}


# --- a function's signature, read once at registration -------------------------------------------


@dataclasses.dataclass
class Parameter:
    name: str
    hint: Any
    required: bool
    default: Any
    description: str | None


def is_context_hint(name: str, hint: Any) -> bool:
    """The parameter that receives the request context: named ``ctx`` or hinted RequestContext
    (also when that hint could not be resolved, e.g. imported only under TYPE_CHECKING)."""
    if isinstance(hint, _Unresolved):
        hint = hint.text
    return name == "ctx" or getattr(hint, "__name__", hint) == "RequestContext"


class _Unresolved:
    """A string annotation that could not be evaluated, kept with the reason."""

    def __init__(self, text: str, error: Exception):
        self.text, self.error = text, error

    def __repr__(self) -> str:
        return f"{self.text!r} (unresolved: {type(self.error).__name__}: {self.error})"


def _hint_source(fn: Any) -> Any:
    """The function whose annotations and globals describe ``fn`` (partials, callable objects)."""
    if isinstance(fn, functools.partial):
        return _hint_source(fn.func)
    if inspect.isfunction(fn) or inspect.ismethod(fn) or inspect.isclass(fn):
        return fn
    return getattr(fn, "__call__", fn)  # noqa: B004 - the method, for its annotations


def _resolve_hints(fn: Any, signature: inspect.Signature) -> dict[str, Any]:
    source = _hint_source(fn)
    try:
        return typing.get_type_hints(source, include_extras=True)
    except Exception:  # one hint cannot be resolved: resolve the others one by one
        pass
    namespace = getattr(inspect.unwrap(source), "__globals__", {})
    hints: dict[str, Any] = {}
    for parameter in signature.parameters.values():
        annotation = parameter.annotation
        for _ in range(3):  # "'int'": a quoted hint under postponed annotations is a string twice
            if not isinstance(annotation, str):
                break
            try:
                annotation = eval(annotation, namespace)  # what typing.get_type_hints does too
            except Exception as exc:
                annotation = _Unresolved(annotation, exc)
        hints[parameter.name] = annotation
    return hints


class Signature:
    """What registration learns from a handler function: its context parameter and its
    parameters with hints, defaults and descriptions. ``what`` names it in error messages."""

    def __init__(self, fn: Callable[..., Any], what: str):
        if not callable(fn):
            raise TypeError(f"{what} must be a function, not {type(fn).__name__}")
        refuse_async(fn, what)
        self.what = what
        signature = inspect.signature(fn)
        hints = _resolve_hints(fn, signature)
        self.doc = inspect.getdoc(fn)  # the function's description, unless one is given
        docs = docstring_descriptions(self.doc)
        self.context: str | None = None
        self.parameters: list[Parameter] = []
        self.takes_kwargs = False
        self.returns = hints.get("return", signature.return_annotation)  # a str if it could not be resolved
        for p in signature.parameters.values():
            hint = hints.get(p.name, p.annotation)
            if p.kind is p.VAR_KEYWORD:
                self.takes_kwargs = True
            elif p.kind is p.VAR_POSITIONAL:
                continue
            elif self.context is None and is_context_hint(p.name, hint):
                self.context = p.name
            elif p.kind is p.POSITIONAL_ONLY:
                raise TypeError(f"{what}: parameter {p.name!r} is positional-only, but arguments are "
                                "passed by name; remove the `/` from the signature")
            else:
                if isinstance(hint, _Unresolved):
                    raise TypeError(f"{what}: cannot resolve the type hint of parameter {p.name!r}: {hint!r}. "
                                    "Import or define that type at module level, where it can be found at run time")
                annotated = hint if typing.get_origin(hint) is Annotated else None
                description = (description_of(annotated.__metadata__) if annotated else None) or docs.get(p.name)
                self.parameters.append(Parameter(p.name, hint, p.default is p.empty, p.default, description))

    def input_schema(self) -> dict[str, Any]:
        """A tool's ``inputSchema``: one property per parameter; those without a default are
        required; no other properties unless the function takes ``**kwargs``."""
        hints = Hints(self.what)
        properties: dict[str, Any] = {}
        for p in self.parameters:
            try:
                schema = hints.schema(p.hint)
            except TypeError as exc:
                raise TypeError(f"parameter {p.name!r} of {exc}") from None
            if p.description:
                schema = {**schema, "description": p.description}
            if not p.required:
                schema = with_default(schema, p.default)
            properties[p.name] = schema
        result: dict[str, Any] = {"type": "object", "properties": properties}
        required = [p.name for p in self.parameters if p.required]
        if required:
            result["required"] = required
        if not self.takes_kwargs:
            result["additionalProperties"] = False
        if hints.definitions:
            result["definitions"] = hints.definitions
        return result

    def output_schema(self) -> dict[str, Any] | None:
        """A tool's ``outputSchema`` (2025-06-18,
        https://modelcontextprotocol.io/specification/2025-06-18/server/tools#output-schema) when the
        return hint is structured: a TypedDict, a dataclass, a pydantic model, or ``dict[str, T]`` with a
        T that says something. None for any other: ``-> str``, ``-> int``, ``-> list[...]``, ``-> dict``
        and ``-> dict[str, Any]`` stay unstructured (their value is content, as in 2024-11-05; a
        tool that wants ``{"result": 3}`` says so with ``output_schema=`` and returns the dict)."""
        kind, args = kind_of(self.returns), typing.get_args(self.returns)
        if kind not in ("dataclass", "typeddict", "pydantic", "mapping") or (
                kind == "mapping" and (len(args) != 2 or args[1] in (Any, object))):
            return None
        hints = Hints(f"the return value of {self.what}")
        schema = hints.schema(self.returns)
        if "$ref" in schema:  # a class that contains itself: its definition at the top
            schema = dict(hints.definitions[schema["$ref"].rsplit("/", 1)[1]])
        return {**schema, "definitions": hints.definitions} if hints.definitions else schema

    def json_reader(self, lenient: bool = False) -> Callable[[dict[str, Any]], dict[str, Any]]:
        """A function from JSON arguments (already schema-checked) to keyword arguments of the
        right types. ``lenient``: a hint without a converter passes its value as it is (for a
        tool whose author wrote the ``inputSchema`` by hand)."""
        hints = Hints(self.what)
        converters: dict[str, Converter] = {}
        for p in self.parameters:
            try:
                converters[p.name] = hints.converter(p.hint)
            except TypeError:
                if not lenient:
                    raise
                converters[p.name] = lambda value, field: value

        def read(arguments: dict[str, Any]) -> dict[str, Any]:
            return {name: converters[name](value, name) if name in converters else value
                    for name, value in arguments.items()}
        return read

    def string_reader(self, names: Collection[str] | None = None) -> Callable[[dict[str, str]], dict[str, Any]]:
        """A function from string arguments (prompt arguments, template variables) to keyword
        arguments of the right types. Raises TypeError now if the hint of one of ``names``
        (default: every parameter) cannot be read from a string."""
        hints = {p.name: p.hint for p in self.parameters if names is None or p.name in names}
        for name, hint in hints.items():
            problem = string_problem(hint)
            if problem:
                raise TypeError(f"{self.what}: parameter {name!r} arrives as a string, but {problem}. "
                                "Use str, int, float, bool, an Enum, a Literal, datetime, date, time, UUID or Path")

        def read(arguments: dict[str, str]) -> dict[str, Any]:
            return {name: from_string(hints[name], value, name) if name in hints else value
                    for name, value in arguments.items()}
        return read


def context_parameter_name(fn: Callable[..., Any]) -> str | None:
    """The name of ``fn``'s parameter that receives the request context, if it has one."""
    signature = inspect.signature(fn)
    hints = _resolve_hints(fn, signature)
    for parameter in signature.parameters.values():
        if is_context_hint(parameter.name, hints.get(parameter.name)):
            return parameter.name
    return None

