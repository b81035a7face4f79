"""JSON values -> the typed values a handler function asked for: one converter per kind of hint.

Not a spec section: the Python side of server/tools, server/prompts and server/resources. A tool's
arguments have already been checked against its ``inputSchema`` when they come here (TOOL-08), yet
a value may still not fit (a malformed date, a pydantic validator saying no): each converter then
raises ``ArgumentError`` naming the field, which the page answers with -32602. Each converter checks
the JSON type itself, so that a Union can try one after another. hints.py picks the converter for a
hint (``Hints.converter``) and converts the strings of prompt arguments and template variables
(``from_string``).
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import enum
from collections.abc import Callable
from typing import Any

from .kinds import pydantic_module

Converter = Callable[[Any, str], Any]  # (JSON value, field path) -> Python value


class ArgumentError(ValueError):
    """An argument that does not fit its parameter: ``field`` is its path, e.g. ``"point/x"``."""

    def __init__(self, field: str, problem: str):
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


def expect(value: Any, kind: type | tuple[type, ...], field: str, what: str) -> None:
    """Raise ArgumentError unless ``value`` is a ``kind`` (JSON true is not a number here)."""
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise ArgumentError(field, f"expected {what}, got {type(value).__name__}")


def parse_formatted(hint: Any, value: str) -> Any:
    if hint in (dt.datetime, dt.time):  # Python 3.10 does not read the "Z" of UTC times
        return hint.fromisoformat(value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value)
    if hint is dt.date:
        return dt.date.fromisoformat(value)
    return hint(value)  # uuid.UUID, Path and other PurePath classes


def null(value: Any, field: str) -> None:
    if value is not None:
        raise ArgumentError(field, f"expected null, got {type(value).__name__}")


def scalar(hint: type, value: Any, field: str) -> Any:
    if type(value) is hint:  # the common case in one test (a measured gain: benchmarks/RESULTS.md)
        return value
    if hint is float:
        expect(value, (int, float), field, "a number")
        return float(value)
    expect(value, hint, field, {str: "a string", int: "an integer", bool: "a boolean"}[hint])
    return value


def formatted(hint: Any, value: Any, field: str) -> Any:
    expect(value, str, field, "a string")
    try:
        return base64.b64decode(value, validate=True) if hint is bytes else parse_formatted(hint, value)
    except (ValueError, binascii.Error) as exc:
        what = "base64" if hint is bytes else f"a valid {getattr(hint, '__name__', hint)}"
        raise ArgumentError(field, f"{value!r} is not {what} ({exc})") from exc


def same(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but true is not 1."""
    return bool(a == b) and isinstance(a, bool) == isinstance(b, bool)


def literal(allowed: tuple[Any, ...], value: Any, field: str) -> Any:
    for option in allowed:
        if same(value, option):
            return option
    raise ArgumentError(field, f"{value!r} is not one of {list(allowed)!r}")


def enum_member(cls: type[enum.Enum], value: Any, field: str) -> Any:
    for member in cls:
        if same(member.value, value):
            return member
    raise ArgumentError(field, f"{value!r} is not one of {[m.value for m in cls]!r}")


def union(options: list[Converter], nullable: bool, value: Any, field: str) -> Any:
    if value is None and nullable:
        return None
    problems = []
    for option in options:
        try:
            return option(value, field)
        except ArgumentError as exc:
            problems.append(exc.problem)
    raise ArgumentError(field, "; ".join(problems) or "null is not allowed")


def array(container: type, item: Converter | None, value: Any, field: str) -> Any:
    expect(value, list, field, "an array")
    items = [item(v, f"{field}/{i}") if item else v for i, v in enumerate(value)]
    try:
        return container(items)
    except TypeError as exc:  # a set of unhashable items
        raise ArgumentError(field, str(exc)) from exc


def fixed_array(items: list[Converter], value: Any, field: str) -> tuple[Any, ...]:
    expect(value, list, field, "an array")
    if len(value) != len(items):
        raise ArgumentError(field, f"expected {len(items)} items, got {len(value)}")
    return tuple(convert(v, f"{field}/{i}") for i, (convert, v) in enumerate(zip(items, value, strict=True)))


def mapping(values: Converter | None, value: Any, field: str) -> Any:
    expect(value, dict, field, "an object")
    return {k: values(v, f"{field}/{k}") if values else v for k, v in value.items()}


def pydantic_validate(adapter: Any, value: Any, field: str) -> Any:
    try:
        return adapter.validate_python(value)
    except pydantic_module().ValidationError as exc:
        error = exc.errors()[0]
        where = "/".join([field, *(str(p) for p in error.get("loc", ()))])
        raise ArgumentError(where, error.get("msg", str(exc))) from exc
