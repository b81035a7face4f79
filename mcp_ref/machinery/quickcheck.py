"""A fast path for checking tool arguments against simple input schemas.

Not a spec section: an optimisation behind server/tools' rule that servers validate inputs
(TOOL-08, https://modelcontextprotocol.io/specification/2024-11-05/server/tools).

Most tools take a few named arguments of plain JSON types (``add(a: int, b: int)``), and
running the full jsonschema validator on every call was the largest cost of a ``tools/call``
round trip (the largest share of the server's CPU per call in benchmarks/RESULTS.md). So, once per
tool, ``compile_quick_check(schema)`` looks at the schema:

1. If it is "simple" (an object schema whose properties each have at most a plain ``type``,
   plus ``required`` and ``additionalProperties: false``), it returns a function that answers
   True only when it can *prove* the arguments valid: every required key present, no unknown
   key (when unknown keys are refused), every value of its property's type.
2. Anything it cannot prove (a wrong type, a missing key, a float where an integer is asked,
   which JSON Schema may still accept) it leaves to the full validator, which then produces the
   error message. So errors are exactly the validator's, and the quick check only ever skips
   work on arguments the validator would accept.
3. A schema that is not simple gets None: every call goes to the full validator.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

QuickCheck = Callable[[dict[str, Any]], bool]

# Keywords a property schema may have and still be simple: only "type" constrains the value.
_HARMLESS = frozenset({"type", "description", "title", "default", "examples", "$comment"})
# Keywords an object schema may have and still be simple.
_OBJECT_KEYS = frozenset({"type", "properties", "required", "additionalProperties",
                          "description", "title", "$schema", "$comment", "default", "examples"})


def _integer(value: Any) -> bool:
    return type(value) is int  # a bool is not an integer, and 1.0 is left to the validator


def _number(value: Any) -> bool:
    return type(value) in (int, float) and value == value and value not in (float("inf"), float("-inf"))


# JSON type -> a test that is never wrong when it says True.
_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: type(v) is str,
    "integer": _integer,
    "number": _number,
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
    "array": lambda v: type(v) is list,
    "object": lambda v: type(v) is dict,
}


def compile_quick_check(schema: dict[str, Any]) -> QuickCheck | None:
    """A function proving simple arguments valid against ``schema``, or None if not simple."""
    if schema.get("type") != "object" or not set(schema) <= _OBJECT_KEYS:
        return None
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    closed = schema.get("additionalProperties", True)
    if not isinstance(properties, dict) or not isinstance(required, list) or closed not in (True, False):
        return None
    tests: dict[str, Callable[[Any], bool] | None] = {}
    for name, prop in properties.items():
        if not isinstance(prop, dict) or not set(prop) <= _HARMLESS:
            return None
        kind = prop.get("type")
        if kind is None:
            tests[name] = None  # any value
        elif isinstance(kind, str) and kind in _TYPES:
            tests[name] = _TYPES[kind]
        else:
            return None
    needed = tuple(required)

    def quick_check(arguments: dict[str, Any]) -> bool:
        for name in needed:
            if name not in arguments:
                return False
        for name, value in arguments.items():
            if name not in tests:
                if closed is False:
                    return False
                continue
            test = tests[name]
            if test is not None and not test(value):
                return False
        return True

    return quick_check
