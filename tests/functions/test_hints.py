"""Ordinary Python type hints as tool, prompt and template parameters (hints.py, signatures.py).

Not a spec page of its own: the Python side of server/tools (``inputSchema``, TOOL-08),
server/prompts (string arguments, PRM-10) and server/resources (template variables)
(https://modelcontextprotocol.io/specification/2024-11-05/server/tools).
Each case is a real tool call through a server and a schema-tapped client: the schema is
valid draft-07, the arguments are validated against it, and the function receives typed values.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import subprocess
import sys
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, NewType, NotRequired, Optional, TypedDict, Union

import jsonschema
import pydantic
import pytest

from mcp_ref import Client, InvalidParams, RequestContext, ResourceNotFound, Server
from mcp_ref.functions.signatures import Signature, docstring_descriptions

from ..conftest import ROOT


@dataclasses.dataclass
class Point:
    x: int
    y: int


@dataclasses.dataclass
class Box:
    """A labelled box."""

    label: str
    size: float = 1.0
    tags: list[str] = dataclasses.field(default_factory=list)
    note: Annotated[str, "free text"] = ""


@dataclasses.dataclass
class Segment:
    start: Point
    end: Point


@dataclasses.dataclass
class Tree:
    value: int
    children: list[Tree] = dataclasses.field(default_factory=list)


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclasses.dataclass
class Event:
    when: dt.datetime
    color: Color
    place: Point | None = None


class Movie(TypedDict):
    title: str
    year: NotRequired[int]
    released: NotRequired[dt.date]


class Reading(pydantic.BaseModel):
    value: float
    unit: Literal["C", "F"] = "C"

    @pydantic.field_validator("value")
    @classmethod
    def physical(cls, value: float) -> float:
        if value < -273.15:
            raise ValueError("below absolute zero")
        return value


class Station(pydantic.BaseModel):
    name: str
    readings: list[Reading] = []


UserId = NewType("UserId", int)
NO_HINT = object()  # a parameter without an annotation
WHEN = dt.datetime(2024, 5, 1, 12, 0, tzinfo=dt.timezone.utc)
ID = uuid.UUID("12345678-1234-5678-1234-567812345678")

# (case, hint, JSON argument, the value the function must receive)
CASES: list[tuple[str, Any, Any, Any]] = [
    ("str", str, "x", "x"),
    ("int", int, 3, 3),
    ("float, given an integer", float, 2, 2.0),
    ("bool", bool, True, True),
    ("None", None, None, None),
    ("Any", Any, {"a": [1]}, {"a": [1]}),
    ("no hint", NO_HINT, [1, "a"], [1, "a"]),
    ("list[int]", list[int], [1, 2], [1, 2]),
    ("bare list", list, [1, "a"], [1, "a"]),
    ("Sequence[str]", Sequence[str], ["a"], ["a"]),
    ("tuple[int, ...]", tuple[int, ...], [1, 2], (1, 2)),
    ("tuple[int, str]", tuple[int, str], [1, "a"], (1, "a")),
    ("set[int]", set[int], [2, 1], {1, 2}),
    ("frozenset[str]", frozenset[str], ["a"], frozenset({"a"})),
    ("dict[str, int]", dict[str, int], {"a": 1}, {"a": 1}),
    ("bare dict", dict, {"a": {"b": 1}}, {"a": {"b": 1}}),
    ("dict[str, Point]", dict[str, Point], {"a": {"x": 1, "y": 2}}, {"a": Point(1, 2)}),
    ("Optional[int], given", Optional[int], 3, 3),  # noqa: UP045 - the spelling users write
    ("int | None, null", int | None, None, None),
    ("int | str", Union[int, str], "a", "a"),
    ("Literal of str", Literal["a", "b"], "b", "b"),
    ("Literal of int", Literal[1, 2], 2, 2),
    ("Enum", Color, "blue", Color.BLUE),
    ("IntEnum", Level, 2, Level.HIGH),
    ("list[Enum]", list[Color], ["red", "blue"], [Color.RED, Color.BLUE]),
    ("dataclass", Point, {"x": 1, "y": 2}, Point(1, 2)),
    ("dataclass with defaults", Box, {"label": "a"}, Box("a")),
    ("dataclass, every field", Box, {"label": "a", "size": 2, "tags": ["t"], "note": "n"}, Box("a", 2.0, ["t"], "n")),
    ("nested dataclasses", Segment, {"start": {"x": 0, "y": 0}, "end": {"x": 1, "y": 1}}, Segment(Point(0, 0), Point(1, 1))),
    ("list of dataclasses", list[Point], [{"x": 1, "y": 2}], [Point(1, 2)]),
    ("Point | None, null", Point | None, None, None),
    ("Point | None, given", Point | None, {"x": 1, "y": 2}, Point(1, 2)),
    ("recursive dataclass", Tree, {"value": 1, "children": [{"value": 2}]}, Tree(1, [Tree(2)])),
    ("dataclass of datetime, Enum, Optional dataclass", Event,
     {"when": "2024-05-01T12:00:00Z", "color": "red", "place": {"x": 1, "y": 1}}, Event(WHEN, Color.RED, Point(1, 1))),
    ("TypedDict", Movie, {"title": "x"}, {"title": "x"}),
    ("TypedDict with a date", Movie, {"title": "x", "released": "2024-05-01"}, {"title": "x", "released": WHEN.date()}),
    ("datetime with Z", dt.datetime, "2024-05-01T12:00:00Z", WHEN),
    ("datetime with an offset", dt.datetime, "2024-05-01T14:00:00+02:00", WHEN),
    ("naive datetime", dt.datetime, "2024-05-01T12:00:00", dt.datetime(2024, 5, 1, 12)),
    ("date", dt.date, "2024-05-01", dt.date(2024, 5, 1)),
    ("time", dt.time, "12:30:00", dt.time(12, 30)),
    ("UUID", uuid.UUID, str(ID), ID),
    ("Path", Path, "/tmp/x", Path("/tmp/x")),
    ("bytes", bytes, "aGk=", b"hi"),
    ("Annotated", Annotated[int, "a count"], 3, 3),
    ("NewType", UserId, 5, 5),
    ("pydantic model", Reading, {"value": 20.5}, Reading(value=20.5)),
    ("nested pydantic models", Station, {"name": "s", "readings": [{"value": 1, "unit": "F"}]},
     Station(name="s", readings=[Reading(value=1, unit="F")])),
    ("list of pydantic models", list[Reading], [{"value": 1}], [Reading(value=1)]),
    ("Reading | None", Reading | None, None, None),
    ("pydantic Field constraints", Annotated[int, pydantic.Field(ge=0)], 3, 3),
]


def typed_tool(hint: Any, received: list[Any]) -> Callable[..., str]:
    def tool(value):  # type: ignore[no-untyped-def]
        received.append(value)
        return "ok"
    if hint is not NO_HINT:
        tool.__annotations__ = {"value": hint}
    return tool


@pytest.mark.parametrize(("hint", "argument", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_hint_has_a_valid_schema_and_the_function_gets_typed_values(
        memory_client: Callable[..., Client], hint: Any, argument: Any, expected: Any) -> None:
    received: list[Any] = []
    server = Server("typed")
    server.tool(name="t")(typed_tool(hint, received))
    client = memory_client(server)
    (tool,) = client.list_tools()
    jsonschema.Draft7Validator.check_schema(tool["inputSchema"])  # a valid draft-07 schema
    assert tool["inputSchema"]["additionalProperties"] is False
    assert client.call_tool("t", {"value": argument}) == {"content": [{"type": "text", "text": "ok"}]}
    assert received == [expected] and type(received[0]) is type(expected)


SCHEMAS: list[tuple[str, Any, dict[str, Any]]] = [
    ("datetime", dt.datetime, {"type": "string", "format": "date-time"}),
    ("date", dt.date, {"type": "string", "format": "date"}),
    ("time", dt.time, {"type": "string", "format": "time"}),
    ("UUID", uuid.UUID, {"type": "string", "format": "uuid"}),
    ("Path", Path, {"type": "string", "format": "path"}),
    ("bytes", bytes, {"type": "string", "contentEncoding": "base64"}),
    ("Enum", Color, {"enum": ["red", "blue"], "type": "string"}),
    ("IntEnum", Level, {"enum": [1, 2], "type": "integer"}),
    ("Literal of mixed types", Literal["a", 1], {"enum": ["a", 1]}),
    ("set", set[int], {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
    ("fixed tuple", tuple[int, str], {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}],
                                      "minItems": 2, "maxItems": 2}),
    ("dict[str, T]", dict[str, float], {"type": "object", "additionalProperties": {"type": "number"}}),
    ("Optional[Union]", Optional[Union[int, str]],  # noqa: UP045
     {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]}),
    ("Annotated", Annotated[int, "a count"], {"type": "integer", "description": "a count"}),
    ("NewType", UserId, {"type": "integer"}),
    ("dataclass", Box, {"type": "object", "description": "A labelled box.", "additionalProperties": False,
                        "required": ["label"], "properties": {
                            "label": {"type": "string"}, "size": {"type": "number", "default": 1.0},
                            "tags": {"type": "array", "items": {"type": "string"}},
                            "note": {"type": "string", "description": "free text", "default": ""}}}),
    ("TypedDict", Movie, {"type": "object", "additionalProperties": False, "required": ["title"], "properties": {
        "title": {"type": "string"}, "year": {"type": "integer"}, "released": {"type": "string", "format": "date"}}}),
]


@pytest.mark.parametrize(("hint", "expected"), [c[1:] for c in SCHEMAS], ids=[c[0] for c in SCHEMAS])
def test_schema_of_each_hint(hint: Any, expected: dict[str, Any]) -> None:
    def f(value):  # type: ignore[no-untyped-def]
        pass
    f.__annotations__ = {"value": hint}
    schema = Signature(f, "tool 'f'").input_schema()
    jsonschema.Draft7Validator.check_schema(schema)
    assert schema["properties"]["value"] == expected


def test_recursive_and_pydantic_types_go_to_definitions() -> None:
    def f(tree: Tree, station: Station) -> None: ...

    schema = Signature(f, "tool 'f'").input_schema()
    jsonschema.Draft7Validator.check_schema(schema)
    assert schema["properties"]["tree"] == {"$ref": "#/definitions/Tree"}
    assert schema["definitions"]["Tree"]["properties"]["children"]["items"] == {"$ref": "#/definitions/Tree"}
    readings = schema["properties"]["station"]["properties"]["readings"]
    assert readings["items"] == {"$ref": "#/definitions/Reading"} and "Reading" in schema["definitions"]
    validator = jsonschema.Draft7Validator(schema)
    assert not list(validator.iter_errors({"tree": {"value": 1, "children": [{"value": 2}]}, "station": {"name": "s"}}))
    assert list(validator.iter_errors({"tree": {"value": 1, "children": [{"value": "x"}]}, "station": {"name": "s"}}))


# (case, hint, bad JSON argument, the field -32602 must name)
BAD: list[tuple[str, Any, Any, str]] = [
    ("dataclass missing a field", Point, {"x": 1}, "value/y"),  # the field is the one missing
    ("dataclass with an unknown field", Point, {"x": 1, "y": 2, "z": 3}, "value"),
    ("wrong type deep in a list of dataclasses", list[Point], [{"x": "a", "y": 1}], "value/0/x"),
    ("wrong type deep in a recursive dataclass", Tree, {"value": 1, "children": [{"value": "a"}]},
     "value/children/0/value"),
    ("TypedDict missing a key", Movie, {"year": 1999}, "value/title"),
    ("not a datetime", dt.datetime, "yesterday", "value"),
    ("not a date", dt.date, "2024-13-01", "value"),
    ("a date in a dataclass", Event, {"when": "soon", "color": "red"}, "value/when"),
    ("not a UUID", uuid.UUID, "nope", "value"),
    ("not base64", bytes, "***", "value"),
    ("not an Enum value", Color, "purple", "value"),
    ("not a Literal value", Literal["a", "b"], "c", "value"),
    ("a fixed tuple too short", tuple[int, str], [1], "value"),
    ("pydantic's own validator", Reading, {"value": -300}, "value/value"),
    ("pydantic Field constraint", Annotated[int, pydantic.Field(ge=0)], -1, "value"),
    ("bool is not an int", int, True, "value"),
]


@pytest.mark.parametrize(("hint", "argument", "field"), [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_arguments_that_do_not_fit_are_32602_naming_the_field(
        memory_client: Callable[..., Client], hint: Any, argument: Any, field: str) -> None:
    received: list[Any] = []
    server = Server("typed")
    server.tool(name="t")(typed_tool(hint, received))
    client = memory_client(server, protocol_versions=["2025-06-18"])  # -32602 before 2025-11-25
    with pytest.raises(InvalidParams) as info:
        client.call_tool("t", {"value": argument})  # TOOL-08
    assert info.value.code == -32602 and info.value.data["field"] == field
    assert f"at {field!r}" in info.value.message and received == []


# --- descriptions --------------------------------------------------------------------------------


def google(a: int, b: Annotated[str, "from Annotated"], c: float = 0) -> None:
    """Do a thing.

    Args:
        a: the first number,
            over two lines
        b: overridden by Annotated
        c (float): a ratio: with a colon

    Returns:
        nothing: really
    """


def rest(a: int, b: str) -> None:
    """Do a thing.

    :param a: the first number
    :param str b: the second,
        continued
    :returns: nothing
    """


def test_descriptions_from_annotated_and_docstrings() -> None:
    props = Signature(google, "tool 'google'").input_schema()["properties"]
    assert props["a"]["description"] == "the first number, over two lines"
    assert props["b"]["description"] == "from Annotated"
    assert props["c"]["description"] == "a ratio: with a colon"
    props = Signature(rest, "tool 'rest'").input_schema()["properties"]
    assert props["a"]["description"] == "the first number" and props["b"]["description"] == "the second, continued"
    assert docstring_descriptions("No arguments here.\n\nJust: text") == {}


def test_prompt_arguments_carry_descriptions(memory_client: Callable[..., Client]) -> None:
    server = Server("p")

    @server.prompt()
    def summarise(text: Annotated[str, "what to summarise"], words: int = 50) -> str:
        """Summarise a text.

        Args:
            words: at most this many
        """
        return f"Summarise in {words} words: {text}"

    client = memory_client(server)
    assert client.list_prompts()[0]["arguments"] == [
        {"name": "text", "description": "what to summarise", "required": True},
        {"name": "words", "description": "at most this many", "required": False}]


# --- strings: prompt arguments and template variables --------------------------------------------


def test_prompt_arguments_are_converted_to_their_hints(memory_client: Callable[..., Client]) -> None:
    server = Server("p")
    got: list[Any] = []

    @server.prompt()
    def plan(days: int, color: Color, start: dt.date, ratio: float = 1.0, strict: bool = False,
             mode: Literal["a", "b"] = "a", level: Level | None = None) -> str:
        got.append((days, color, start, ratio, strict, mode, level))
        return "ok"

    client = memory_client(server)
    client.get_prompt("plan", {"days": "3", "color": "blue", "start": "2024-05-01", "ratio": "0.5",
                               "strict": "true", "mode": "b", "level": "2"})
    assert got == [(3, Color.BLUE, dt.date(2024, 5, 1), 0.5, True, "b", Level.HIGH)]
    for bad, field in [({"days": "three"}, "days"), ({"color": "purple"}, "color"), ({"start": "May"}, "start"),
                       ({"ratio": "nan"}, "ratio"), ({"strict": "yes"}, "strict"), ({"level": "7"}, "level"),
                       ({"days": "9" * 5000}, "days")]:
        with pytest.raises(InvalidParams) as info:  # PRM-10
            client.get_prompt("plan", {"days": "1", "color": "red", "start": "2024-05-01", **bad})
        assert info.value.data["field"] == field and repr(field) in info.value.message
    assert len(got) == 1


def test_template_variables_are_converted_and_a_misfit_matches_no_resource(memory_client: Callable[..., Client]) -> None:
    server = Server("r")

    @server.resource_template("users://{user_id}")
    def user_by_id(user_id: int) -> str:
        return f"user number {user_id + 1}"

    @server.resource_template("users://{name}/profile")
    def profile(name: str, ctx: RequestContext) -> str:
        return f"profile of {name}"

    @server.resource_template("days://{day}")
    def day(day: dt.date) -> dict[str, Any]:
        return {"weekday": day.strftime("%A")}

    client = memory_client(server)
    assert client.read_resource("users://41")["contents"][0]["text"] == "user number 42"
    assert client.read_resource("users://ann/profile")["contents"][0]["text"] == "profile of ann"
    assert client.read_resource("days://2024-05-01")["contents"][0]["text"] == '{"weekday": "Wednesday"}'
    for uri in ("users://ann", "days://someday"):
        with pytest.raises(ResourceNotFound) as info:  # RES-06: no resource has that URI
            client.read_resource(uri)
        assert info.value.data == {"uri": uri} and "{" in info.value.message


def test_a_hand_written_input_schema_still_gets_typed_values(memory_client: Callable[..., Client]) -> None:
    server = Server("explicit")
    got: list[Any] = []
    schema = {"type": "object", "properties": {"p": {"type": "object"}, "raw": {}}, "required": ["p"]}

    @server.tool(input_schema=schema)
    def draw(p: Point, raw: Any = None) -> str:
        got.append((p, raw))
        return "drawn"

    client = memory_client(server, protocol_versions=["2025-06-18"])  # -32602 before 2025-11-25
    client.call_tool("draw", {"p": {"x": 1, "y": 2}, "raw": [1]})
    assert got == [(Point(1, 2), [1])]
    with pytest.raises(InvalidParams) as info:  # the schema let it through; the dataclass does not
        client.call_tool("draw", {"p": {"x": 1}})
    assert info.value.data["field"] == "p"


def test_ctx_kwargs_and_defaults_in_the_schema() -> None:
    def f(ctx: RequestContext, a: int, b: Point = Point(0, 0), **rest: Any) -> None: ...

    schema = Signature(f, "tool 'f'").input_schema()
    assert set(schema["properties"]) == {"a", "b"} and schema["required"] == ["a"]
    assert "default" not in schema["properties"]["b"]  # only plain JSON defaults are shown
    assert Signature(lambda a=[1, "x"], b=None, c=Color.RED: None, "tool").input_schema()["properties"] == {
        "a": {"default": [1, "x"]}, "b": {"default": None}, "c": {"default": "red"}}
    assert "additionalProperties" not in schema  # **rest takes any other argument


def test_pydantic_is_imported_only_by_programs_that_use_it() -> None:
    code = (
        "import dataclasses, datetime, enum, sys\n"
        "from mcp_ref import Server\n"
        "@dataclasses.dataclass\nclass P:\n    x: int\n"
        "class C(enum.Enum):\n    A = 'a'\n"
        "server = Server('s')\n"
        "@server.tool()\ndef t(p: P, c: C, when: datetime.date) -> P:\n    return p\n"
        "@server.resource('r://x')\ndef r() -> P:\n    return P(1)\n"
        "result = server.tools.call(None, {'name': 't', 'arguments': {'p': {'x': 1}, 'c': 'a', 'when': '2024-01-01'}})\n"
        "assert result == {'content': [{'type': 'text', 'text': '{\"x\": 1}'}], 'structuredContent': {'x': 1}}, result\n"
        "assert server.resources.read(None, {'uri': 'r://x'})['contents'][0]['text'] == '{\"x\": 1}'\n"
        "print('pydantic' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


def test_a_context_hint_imported_only_for_type_checking_still_marks_the_context(
        memory_client: Callable[..., Client]) -> None:
    namespace: dict[str, Any] = {}  # RequestContext is not there: the hint cannot be resolved
    exec("def where(context: 'RequestContext', n: 'int') -> str:\n"
         "    return f'{type(context).__name__} {n + 1}'", namespace)
    server = Server("s")
    server.tool()(namespace["where"])
    client = memory_client(server)
    assert client.list_tools()[0]["inputSchema"]["properties"] == {"n": {"type": "integer"}}
    assert client.call_tool("where", {"n": 1})["content"][0]["text"] == "RequestContext 2"
