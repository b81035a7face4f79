"""Python type hints -> JSON Schema, and JSON values -> the typed values a function expects.

Not a spec section: this is the Python side of server/tools, server/prompts and server/resources.
The spec says that a tool describes its arguments with a JSON Schema (``inputSchema``), and that
prompt arguments and URI-template variables arrive as strings
(https://modelcontextprotocol.io/specification/2024-11-05/server/tools). This module lets a
server author write an ordinary typed Python function instead; signatures.py applies it to each
parameter of a registered function.

In short:

1. Each supported kind of hint has a JSON Schema and a converter, side by side in ``Hints``
   (``kinds.kind_of`` says which row a hint belongs to, convert.py holds the converters; any
   other hint is an error at registration):

   ================================== ============================== ========================
   hint                               JSON Schema                    the function receives
   ================================== ============================== ========================
   str, int, float, bool, None        string, integer, number, ...   the value (int -> float)
   Any, object, no hint               ``{}``                         the JSON value
   list[T], Sequence[T], set[T],      array (``uniqueItems`` for     list, set, frozenset,
   frozenset[T], tuple[T, ...],       sets; ``prefixItems`` and a    tuple
   tuple[A, B]                        fixed length for tuple[A, B])
   dict[str, T], Mapping[str, T]      object                         dict
   Optional[T], Union[A, B], A | B    anyOf                          the first option that fits
   Literal["a", "b"]                  enum                           the value
   an Enum class                      enum of the members' values    the member
   a dataclass (nested too)           object of its fields           an instance
   a TypedDict                        object of its keys             a dict (values converted)
   datetime, date, time, UUID, Path   string with a ``format``       the object
   bytes                              base64 string                  bytes
   Annotated[T, "description"]        T's schema + description       as for T
   a pydantic model, or Annotated     pydantic's own schema          pydantic's validation
   with a pydantic ``Field``
   ================================== ============================== ========================

   Objects (dataclasses, TypedDicts) refuse unknown fields (``additionalProperties: false``).
   A dataclass that contains itself goes into ``definitions`` and is referenced with ``$ref``.
2. A tool's arguments are first validated against the schema (tools.py, TOOL-08), then
   converted; a value that still does not fit (a malformed date, a pydantic validator saying
   no) raises ``ArgumentError`` naming the field, which the caller answers with -32602.
3. Prompt arguments and template variables are strings on the wire: ``from_string`` converts
   them for scalar hints only (int, float, bool, Enum, Literal, datetime, UUID, Path...);
   ``string_problem`` says at registration why another hint cannot be used there.
4. pydantic is not a dependency. Its models are recognised only when the program has already
   imported pydantic (a model cannot exist otherwise); this module never imports it itself.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import inspect
import math
import re
import typing
from collections.abc import Callable
from typing import Any

from . import convert
from .convert import ArgumentError, Converter
from .kinds import ARRAYS, FORMATS, SCALARS, is_typeddict, kind_of, pydantic_module


def _json_scalar_type(values: list[Any]) -> str | None:
    """The JSON type all of ``values`` share (for an enum's ``type``), or None."""
    kinds = {"boolean" if isinstance(v, bool) else SCALARS.get(type(v)) for v in values}
    return kinds.pop() if len(kinds) == 1 and None not in kinds else None


def description_of(metadata: tuple[Any, ...]) -> str | None:
    """The description in ``Annotated`` metadata: the first string."""
    return next((m for m in metadata if isinstance(m, str)), None)


class Hints:
    """Schemas and converters for one function's hints. ``definitions`` collects the schemas
    that are referenced by ``$ref`` (recursive dataclasses, pydantic's nested models)."""

    def __init__(self, what: str):
        self.what = what
        self.definitions: dict[str, Any] = {}
        self._names: dict[Any, str] = {}  # class -> its name in definitions
        self._building: set[Any] = set()
        self._recursive: set[Any] = set()
        self._converters: dict[Any, Converter] = {}

    def unsupported(self, hint: Any, why: str = "") -> TypeError:
        return TypeError(
            f"{self.what}: mcp_ref cannot describe the type {hint!r} in JSON Schema{why}. Supported: "
            "str, int, float, bool, None, Any, list/tuple/set, dict[str, T], Optional/Union, Literal, "
            "Enum, dataclasses, TypedDict, datetime, date, time, UUID, Path, bytes, Annotated, pydantic models")

    # --- hint -> JSON Schema ---------------------------------------------------------------------

    def schema(self, hint: Any) -> dict[str, Any]:
        """The JSON Schema for values of ``hint`` (valid in draft-07 and in 2020-12)."""
        kind = kind_of(hint)
        args = typing.get_args(hint)
        if kind == "any":
            return {}
        if kind == "none":
            return {"type": "null"}
        if kind == "annotated":
            schema = self.schema(args[0])
            description = description_of(hint.__metadata__)
            return {**schema, "description": description} if description else schema
        if kind == "newtype":
            return self.schema(hint.__supertype__)
        if kind == "scalar":
            return {"type": SCALARS[hint]}
        if kind == "formatted":
            return {"type": "string", "format": FORMATS.get(hint, "path")}
        if kind == "bytes":
            return {"type": "string", "contentEncoding": "base64"}
        if kind in ("literal", "enum"):
            values = list(args) if kind == "literal" else [member.value for member in hint]
            if any(v is not None and type(v) not in SCALARS for v in values):
                raise self.unsupported(hint, " (its values must be str, int, float, bool or None)")
            schema = {"enum": values}
            json_type = _json_scalar_type(values)
            return {**schema, "type": json_type} if json_type else schema
        if kind == "union":
            options = [self.schema(a) for a in args if a is not type(None)]
            if type(None) in args:
                options.append({"type": "null"})
            return options[0] if len(options) == 1 else {"anyOf": options}
        if kind == "array":
            return self._array_schema(hint, args)
        if kind == "mapping":
            if args and args[0] not in (str, Any):
                raise self.unsupported(hint, " (JSON object keys are strings: use dict[str, ...])")
            value_schema = self.schema(args[1]) if len(args) == 2 else {}
            return {"type": "object", **({"additionalProperties": value_schema} if value_schema else {})}
        if kind in ("dataclass", "typeddict"):
            return self._object_schema(hint)
        if kind == "pydantic":
            return self._pydantic_schema(hint)
        raise self.unsupported(hint)

    def _array_schema(self, hint: Any, args: tuple[Any, ...]) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "array"}
        container = ARRAYS[typing.get_origin(hint) or hint]
        if container is tuple and args and args[-1] is not Ellipsis:  # tuple[A, B]: fixed length
            # prefixItems: JSON Schema 2020-12's word (the default dialect since 2025-11-25); a draft-07
            # reader ignores it and still checks the length
            return {**schema, "prefixItems": [self.schema(a) for a in args], "minItems": len(args), "maxItems": len(args)}
        if args:
            item = self.schema(args[0])
            if item:
                schema["items"] = item
        if container in (set, frozenset):
            schema["uniqueItems"] = True
        return schema

    def _object_schema(self, cls: Any) -> dict[str, Any]:
        """A dataclass or TypedDict: an object of its fields. A class that contains itself is put
        in ``definitions`` and referenced, so that the schema stays finite."""
        if cls in self._building:
            self._recursive.add(cls)
            return {"$ref": f"#/definitions/{self._definition_name(cls)}"}
        self._building.add(cls)
        hints = self._class_hints(cls)
        properties: dict[str, Any] = {}
        required: list[str] = []
        for field in _fields(cls, hints):
            schema = self.schema(field.hint)
            if field.description and "description" not in schema:
                schema["description"] = field.description
            if field.default is not dataclasses.MISSING:
                schema = with_default(schema, field.default)
            properties[field.name] = schema
            if field.required:
                required.append(field.name)
        self._building.discard(cls)
        schema = {"type": "object", "properties": properties, "additionalProperties": False}
        if required:
            schema["required"] = required
        doc = inspect.cleandoc(cls.__dict__.get("__doc__") or "")
        if doc and not doc.startswith(f"{cls.__name__}("):  # not the one @dataclass writes
            schema["description"] = doc
        if cls in self._recursive:
            name = self._definition_name(cls)
            self.definitions[name] = schema
            return {"$ref": f"#/definitions/{name}"}
        return schema

    def _definition_name(self, cls: Any) -> str:
        if cls not in self._names:
            taken = set(self._names.values()) | set(self.definitions)
            self._names[cls] = cls.__name__ if cls.__name__ not in taken else f"{cls.__module__}.{cls.__qualname__}"
        return self._names[cls]

    def _class_hints(self, cls: Any) -> dict[str, Any]:
        try:
            return typing.get_type_hints(cls, include_extras=True)
        except Exception as exc:
            raise TypeError(f"{self.what}: cannot resolve the type hints of {cls.__name__}: {exc}") from exc

    def _with_pydantic(self, hint: Any, use: Callable[[Any], Any]) -> Any:
        """``use(pydantic.TypeAdapter(hint))``, with pydantic's refusals as TypeError."""
        adapter = getattr(pydantic_module(), "TypeAdapter", None)
        if adapter is None:
            raise TypeError(f"{self.what}: pydantic models need pydantic 2 (pydantic.TypeAdapter)")
        try:
            return use(adapter(hint))
        except Exception as exc:  # a type pydantic cannot validate or describe
            raise TypeError(f"{self.what}: pydantic cannot handle {hint!r}: {exc}") from exc

    def _pydantic_schema(self, hint: Any) -> dict[str, Any]:
        schema: dict[str, Any] = self._with_pydantic(hint, lambda a: a.json_schema(ref_template="#/definitions/{model}"))
        for name, definition in schema.pop("$defs", {}).items():
            if self.definitions.setdefault(name, definition) != definition:
                raise TypeError(f"{self.what}: two different types are named {name!r}; rename one")
        return schema

    # --- JSON value -> Python value --------------------------------------------------------------

    def converter(self, hint: Any) -> Converter:
        """A function ``(value, field) -> Python value`` for JSON values of ``hint``."""
        kind = kind_of(hint)
        args = typing.get_args(hint)
        if kind == "any":
            return lambda value, field: value
        if kind == "none":
            return convert.null
        if kind == "annotated":
            return self.converter(args[0])
        if kind == "newtype":
            return self.converter(hint.__supertype__)
        if kind == "scalar":
            return functools.partial(convert.scalar, hint)
        if kind in ("formatted", "bytes"):
            return functools.partial(convert.formatted, hint)
        if kind == "literal":
            return functools.partial(convert.literal, args)
        if kind == "enum":
            return functools.partial(convert.enum_member, hint)
        if kind == "union":
            options = [self.converter(a) for a in args if a is not type(None)]
            return functools.partial(convert.union, options, type(None) in args)
        if kind == "array":
            container = ARRAYS[typing.get_origin(hint) or hint]
            if container is tuple and args and args[-1] is not Ellipsis:
                return functools.partial(convert.fixed_array, [self.converter(a) for a in args])
            return functools.partial(convert.array, container, self.converter(args[0]) if args else None)
        if kind == "mapping":
            return functools.partial(convert.mapping, self.converter(args[1]) if len(args) == 2 else None)
        if kind in ("dataclass", "typeddict"):
            return self._object_converter(hint)
        if kind == "pydantic":
            return functools.partial(convert.pydantic_validate, self._with_pydantic(hint, lambda adapter: adapter))
        raise self.unsupported(hint)

    def _object_converter(self, cls: Any) -> Converter:
        if cls in self._converters:  # a recursive class: the converter being built
            return self._converters[cls]
        fields: dict[str, Converter] = {}

        def convert_object(value: Any, field: str) -> Any:
            convert.expect(value, dict, field, f"an object ({cls.__name__})")
            unknown = set(value) - set(fields)
            if unknown:
                raise ArgumentError(field, f"unexpected field(s) {', '.join(sorted(map(str, unknown)))}")
            converted = {key: fields[key](item, f"{field}/{key}") for key, item in value.items()}
            if is_typeddict(cls):
                return converted  # a TypedDict is a dict
            try:
                return cls(**converted)
            except Exception as exc:  # a missing field, or __post_init__ refusing the values
                raise ArgumentError(field, f"{cls.__name__}: {exc}") from exc

        self._converters[cls] = convert_object
        for field in _fields(cls, self._class_hints(cls)):
            fields[field.name] = self.converter(field.hint)
        return convert_object


class _Field(typing.NamedTuple):
    name: str
    hint: Any
    required: bool
    default: Any = dataclasses.MISSING  # MISSING: none, or one made by a default_factory
    description: str | None = None


def _fields(cls: Any, hints: dict[str, Any]) -> list[_Field]:
    """The fields of a dataclass (those ``__init__`` takes) or of a TypedDict."""
    if is_typeddict(cls):
        result = []
        for name, hint in hints.items():
            required = name in cls.__required_keys__
            while typing.get_origin(hint) in _REQUIRED_MARKERS:  # read here too: under postponed
                required = typing.get_origin(hint) is _REQUIRED_MARKERS[0]  # annotations Python 3.10
                hint = typing.get_args(hint)[0]  # and 3.11 do not see them
            result.append(_Field(name, hint, required))
        return result
    return [_Field(f.name, hints.get(f.name, Any),
                   f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING, f.default,
                   f.metadata.get("description") if isinstance(f.metadata.get("description"), str) else None)
            for f in dataclasses.fields(cls) if f.init]


_REQUIRED_MARKERS = (getattr(typing, "Required", object()), getattr(typing, "NotRequired", object()))


def with_default(schema: dict[str, Any], default: Any) -> dict[str, Any]:
    """``schema`` showing ``default`` when that is plain JSON (an Enum member: its value)."""
    value = default.value if isinstance(default, enum.Enum) else default
    return {**schema, "default": value} if _is_json(value) else schema


def _is_json(value: Any) -> bool:
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return all(_is_json(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json(v) for k, v in value.items())
    return False


def passes_through(hint: Any) -> bool:
    """Whether the converter for ``hint`` returns every value of its schema's JSON type as it is:
    str, int, bool, None and Any do (also inside Annotated or a NewType); float does not (an
    integer becomes a float), nor does any hint that builds objects. tools.py converts nothing
    for a tool whose parameters all pass through, once quickcheck.py has proven the types."""
    kind = kind_of(hint)
    if kind == "annotated":
        return passes_through(typing.get_args(hint)[0])
    if kind == "newtype":
        return passes_through(hint.__supertype__)
    return kind in ("any", "none") or (kind == "scalar" and hint is not float)


# --- strings (prompt arguments, template variables) -> typed values -----------------------------

_INTEGER = re.compile(r"[+-]?[0-9]+")


def string_problem(hint: Any) -> str | None:
    """Why a string argument cannot be converted to ``hint``; None when it can."""
    kind = kind_of(hint)
    if kind in ("annotated", "newtype"):
        return string_problem(typing.get_args(hint)[0] if kind == "annotated" else hint.__supertype__)
    if kind == "union":
        problems = [string_problem(a) for a in typing.get_args(hint) if a is not type(None)]
        return next((p for p in problems if p), None)
    if kind in ("any", "scalar", "formatted", "literal", "enum"):
        return None
    return f"{hint!r} cannot be read from a string"


def from_string(hint: Any, value: str, field: str) -> Any:
    """Convert a string argument to ``hint`` (a hint that ``string_problem`` accepts)."""
    kind = kind_of(hint)
    if kind == "annotated":
        return from_string(typing.get_args(hint)[0], value, field)
    if kind == "newtype":
        return from_string(hint.__supertype__, value, field)
    if kind == "union":
        problems = []
        for option in (a for a in typing.get_args(hint) if a is not type(None)):
            try:
                return from_string(option, value, field)
            except ArgumentError as exc:
                problems.append(exc.problem)
        raise ArgumentError(field, "; ".join(problems))
    if kind in ("literal", "enum"):
        options = typing.get_args(hint) if kind == "literal" else [m.value for m in hint]
        for option in options:
            if str(option) == value or (isinstance(option, bool) and str(option).lower() == value):
                return option if kind == "literal" else hint(option)
        raise ArgumentError(field, f"{value!r} is not one of {[str(o) for o in options]!r}")
    if hint is int:
        try:
            if _INTEGER.fullmatch(value):
                return int(value)
        except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits)
            pass
        raise ArgumentError(field, f"{value[:40]!r} is not an integer")
    if hint is float:
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not math.isfinite(number):
            raise ArgumentError(field, f"{value!r} is not a number")
        return number
    if hint is bool:
        if value.lower() not in ("true", "false"):
            raise ArgumentError(field, f"{value!r} is not true or false")
        return value.lower() == "true"
    if kind == "formatted":
        return convert.formatted(hint, value, field)
    return value  # str, Any
