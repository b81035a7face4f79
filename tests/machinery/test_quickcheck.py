"""The fast path of tool argument checks (quickcheck.py) never accepts what jsonschema refuses,
the errors a caller sees are the validator's, word for word, and a tool that skips its
converters after the quick check (tools.py) gets what the converters would give.

https://modelcontextprotocol.io/specification/2024-11-05/server/tools (TOOL-08)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, NewType

import jsonschema
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mcp_ref import Client, InvalidParams, Server
from mcp_ref.functions.signatures import Signature
from mcp_ref.machinery.quickcheck import compile_quick_check
from mcp_ref.tools import Tool

JSON_TYPES = ["string", "integer", "number", "boolean", "null", "array", "object"]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)


@st.composite
def simple_schemas(draw: Any) -> dict[str, Any]:
    names = draw(st.lists(st.sampled_from("abcde"), unique=True, max_size=4))
    properties = {name: draw(st.sampled_from([{}, *({"type": t} for t in JSON_TYPES)])) for name in names}
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if names:
        schema["required"] = draw(st.lists(st.sampled_from(names), unique=True))
    closed = draw(st.sampled_from([None, True, False]))
    if closed is not None:
        schema["additionalProperties"] = closed
    return schema


@settings(max_examples=100, derandomize=True, deadline=None)
@given(simple_schemas(), st.dictionaries(st.sampled_from("abcdef"), json_values, max_size=5))
def test_the_quick_check_only_says_valid_when_jsonschema_agrees(schema: dict[str, Any], arguments: dict[str, Any]) -> None:
    quick = compile_quick_check(schema)
    assert quick is not None  # every schema drawn here is simple
    if quick(arguments):
        assert jsonschema.Draft7Validator(schema).is_valid(arguments)


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"a": {"type": "integer", "minimum": 0}}},
    {"type": "object", "properties": {"a": {"type": ["string", "null"]}}},
    {"type": "object", "properties": {"a": {"enum": [1, 2]}}},
    {"type": "object", "properties": {"a": {"type": "string", "format": "date"}}},
    {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer"}}}},
    {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}]}}},
    {"type": "object", "additionalProperties": {"type": "string"}},
    {"type": "object", "patternProperties": {"^x": {}}},
    {"type": "object", "minProperties": 1},
    {"type": "array"},
])
def test_schemas_with_any_other_constraint_always_get_the_full_validator(schema: dict[str, Any]) -> None:
    assert compile_quick_check(schema) is None


def test_integral_floats_and_bools_are_left_to_the_validator() -> None:
    quick = compile_quick_check({"type": "object", "properties": {"n": {"type": "integer"}}})
    assert quick is not None
    assert quick({"n": 3}) and not quick({"n": 3.0}) and not quick({"n": True})


def add_server() -> Server:
    server = Server("quick")

    @server.tool()
    def add(a: int, b: int) -> str:
        return str(a + b)

    return server


@pytest.mark.parametrize("arguments, field, problem", [
    ({"a": 1}, "b", "'b' is a required property"),  # the field is the one missing
    ({"a": "1", "b": 2}, "a", "'1' is not of type 'integer'"),
    ({"a": 1, "b": 2, "c": 3}, "", "Additional properties are not allowed ('c' was unexpected)"),
    ({"a": 1.5, "b": 2}, "a", "1.5 is not of type 'integer'"),
])
def test_errors_are_the_validators_word_for_word(memory_client: Callable[..., Client], tap: Any,
                                                 arguments: dict[str, Any], field: str, problem: str) -> None:
    client = memory_client(add_server(), protocol_versions=["2025-06-18"])  # -32602 before 2025-11-25
    with tap.deliberately_invalid(), pytest.raises(InvalidParams) as info:
        client.call_tool("add", arguments)
    assert info.value.data == {"tool": "add", "field": field or None, "problem": problem}


# Hints whose converters keep a value of the right JSON type as it is, and hints whose do not.
HINTS = [str, int, bool, None, Any, Annotated[int, "a count"], NewType("Count", int),
         float, list, dict[str, int], Literal["a", "b"], int | None]


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.lists(st.sampled_from(HINTS), min_size=1, max_size=3),
       st.dictionaries(st.sampled_from(["p0", "p1", "p2"]),
                       st.integers() | st.text(max_size=3) | st.booleans() | st.none() | json_values, max_size=3))
@example([int, str, bool], {"p0": 1, "p1": "x", "p2": True})
@example([float, int], {"p0": 2, "p1": 3})
def test_a_tool_that_skips_its_converters_gets_what_they_would_give(hints: list[Any], arguments: dict[str, Any]) -> None:
    """tools.py converts nothing when the quick check has proven the arguments and every hint
    passes through (hints.passes_through): the keyword arguments are then the converters' own."""
    def tool(p0: Any = None, p1: Any = None, p2: Any = None) -> str:
        return "ok"
    tool.__annotations__ = {f"p{i}": hint for i, hint in enumerate(hints)}
    registered = Tool(tool, "t", None)
    quick = compile_quick_check(registered.input_schema)
    if quick is None or not quick(arguments):
        return  # the shortcut does not apply
    expected = Signature(tool, "tool 't'").json_reader()(arguments)
    got = registered.arguments(arguments)
    assert got == expected and {k: type(v) for k, v in got.items()} == {k: type(v) for k, v in expected.items()}
