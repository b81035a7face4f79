"""Return values -> results on the wire: the conversion table of each feature (returns.py).

Not a spec page of its own; the results are those of server/tools, server/prompts and
server/resources (https://modelcontextprotocol.io/specification/2024-11-05/server/tools).
Every case goes through a real server and client, and the schema tap checks each result
against the 2024-11-05 schema: whatever a handler returns, nothing invalid reaches the wire.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import enum
import hashlib
import json
import random
import uuid
from collections.abc import Callable
from decimal import Decimal
from pathlib import PurePosixPath
from typing import Any

import pydantic
import pytest

from mcp_ref import Client, EmbeddedResource, Image, InternalError, Server
from mcp_ref.functions.returns import UnsupportedReturn, prompt_result, resource_contents_list, tool_result

from ..support.schema_tap import SchemaTap

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 8
GIF87 = b"GIF87a" + b"\x00" * 8
GIF89 = b"GIF89a" + b"\x00" * 8
WEBP = b"RIFF\x10\x00\x00\x00WEBPVP8 " + b"\x00" * 4
UNKNOWN = b"\x00\x01\x02\xff"
URI = "mem://thing"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def image(data: bytes, mime_type: str) -> dict[str, Any]:
    return {"type": "image", "data": b64(data), "mimeType": mime_type}


def blob_item(data: bytes) -> dict[str, Any]:
    """What a tool's bytes of unknown type become: an embedded resource named by their hash."""
    uri = f"mcp-ref://bytes/sha256/{hashlib.sha256(data).hexdigest()}"
    return {"type": "resource", "resource": {"uri": uri, "mimeType": "application/octet-stream", "blob": b64(data)}}


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Color(enum.Enum):
    RED = "red"


class Shade(str, enum.Enum):
    DARK = "dark"


class Reading(pydantic.BaseModel):
    value: float
    at: dt.datetime


WHEN = dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
ID = uuid.UUID("12345678-1234-5678-1234-567812345678")
ANNOTATED = {"type": "text", "text": "hi", "annotations": {"audience": ["user"], "priority": 0.5}}

# --- tools ---------------------------------------------------------------------------------------

TOOL_CASES: list[tuple[str, Callable[[], Any], list[dict[str, Any]]]] = [
    ("str", lambda: "hi", [text("hi")]),
    ("empty str", lambda: "", [text("")]),
    ("unicode str", lambda: "héllo ✓ \u2028", [text("héllo ✓ \u2028")]),
    ("str Enum", lambda: Shade.DARK, [text("dark")]),
    ("int", lambda: 3, [text("3")]),
    ("big int", lambda: 2**70, [text(str(2**70))]),
    ("float", lambda: 2.5, [text("2.5")]),
    ("bool", lambda: True, [text("true")]),
    ("None", lambda: None, [text("null")]),
    ("dict", lambda: {"a": 1, "b": [True, None]}, [text('{"a": 1, "b": [true, null]}')]),
    ("dict with non-str keys", lambda: {1: "a", Color.RED: "b"}, [text('{"1": "a", "red": "b"}')]),
    ("dict with a type key is data", lambda: {"type": "user", "name": "ann"},
     [text('{"type": "user", "name": "ann"}')]),
    ("text item whose text is not a str is data", lambda: {"type": "text", "text": 5},
     [text('{"type": "text", "text": 5}')]),
    ("image item with bad base64 is data", lambda: {"type": "image", "data": "no!", "mimeType": "image/png"},
     [text('{"type": "image", "data": "no!", "mimeType": "image/png"}')]),
    ("image item without mimeType is data", lambda: {"type": "image", "data": b64(PNG)},
     [text(json.dumps({"type": "image", "data": b64(PNG)}))]),
    ("resource item without uri is data", lambda: {"type": "resource", "resource": {"text": "x"}},
     [text('{"type": "resource", "resource": {"text": "x"}}')]),
    ("resource item with text and blob is data",
     lambda: {"type": "resource", "resource": {"uri": "a:b", "text": "x", "blob": ""}},
     [text('{"type": "resource", "resource": {"uri": "a:b", "text": "x", "blob": ""}}')]),
    ("item with bad annotations is data", lambda: {**ANNOTATED, "annotations": {"priority": 7}},
     [text(json.dumps({**ANNOTATED, "annotations": {"priority": 7}}))]),
    ("valid text item", lambda: {"type": "text", "text": "hi"}, [text("hi")]),
    ("valid item with annotations", lambda: ANNOTATED, [ANNOTATED]),
    ("valid image item", lambda: image(PNG, "image/png"), [image(PNG, "image/png")]),
    ("valid resource item", lambda: {"type": "resource", "resource": {"uri": "docs://a", "text": "t"}},
     [{"type": "resource", "resource": {"uri": "docs://a", "text": "t"}}]),
    ("list of data", lambda: [1, 2, 3], [text("[1, 2, 3]")]),
    ("list of dicts", lambda: [{"a": 1}, {"b": 2}], [text('[{"a": 1}, {"b": 2}]')]),
    ("empty list", lambda: [], [text("[]")]),
    ("list of str", lambda: ["a", "b"], [text("a"), text("b")]),
    ("mixed list", lambda: ["a", {"x": 1}, PNG, Image(GIF89), None, text("b")],
     [text("a"), text('{"x": 1}'), image(PNG, "image/png"), image(GIF89, "image/gif"), text("null"), text("b")]),
    ("mixed tuple", lambda: ("a", 1), [text("a"), text("1")]),
    ("list nested in a mix is data", lambda: ["a", [1, "b"]], [text("a"), text('[1, "b"]')]),
    ("set", lambda: {3, 1, 2}, [text("[1, 2, 3]")]),
    ("dataclass", lambda: Point(1, 2), [text('{"x": 1, "y": 2}')]),
    ("list of dataclasses", lambda: [Point(1, 2)], [text('[{"x": 1, "y": 2}]')]),
    ("pydantic model", lambda: Reading(value=1.5, at=WHEN),
     [text('{"value": 1.5, "at": "2024-01-02T03:04:05Z"}')]),
    ("Enum", lambda: Color.RED, [text('"red"')]),
    ("datetime", lambda: WHEN, [text('"2024-01-02T03:04:05+00:00"')]),
    ("date and time", lambda: {"d": WHEN.date(), "t": WHEN.time()}, [text('{"d": "2024-01-02", "t": "03:04:05"}')]),
    ("UUID", lambda: ID, [text(f'"{ID}"')]),
    ("Path", lambda: PurePosixPath("/tmp/x"), [text('"/tmp/x"')]),
    ("bytes: PNG", lambda: PNG, [image(PNG, "image/png")]),
    ("bytes: JPEG", lambda: JPEG, [image(JPEG, "image/jpeg")]),
    ("bytes: GIF87a", lambda: GIF87, [image(GIF87, "image/gif")]),
    ("bytes: GIF89a", lambda: GIF89, [image(GIF89, "image/gif")]),
    ("bytes: WebP", lambda: WEBP, [image(WEBP, "image/webp")]),
    ("bytes: unknown", lambda: UNKNOWN, [blob_item(UNKNOWN)]),
    ("bytes: empty", lambda: b"", [blob_item(b"")]),
    ("bytearray", lambda: bytearray(PNG), [image(PNG, "image/png")]),
    ("memoryview", lambda: memoryview(UNKNOWN), [blob_item(UNKNOWN)]),
    ("Image, type sniffed", lambda: Image(JPEG), [image(JPEG, "image/jpeg")]),
    ("Image, type given", lambda: Image(b"<svg/>", "image/svg+xml"), [image(b"<svg/>", "image/svg+xml")]),
    ("Image with annotations", lambda: Image(PNG, annotations={"priority": 1}),
     [{**image(PNG, "image/png"), "annotations": {"priority": 1}}]),
    ("EmbeddedResource of text", lambda: EmbeddedResource("docs://a", "hello"),
     [{"type": "resource", "resource": {"uri": "docs://a", "mimeType": "text/plain", "text": "hello"}}]),
    ("EmbeddedResource of bytes", lambda: EmbeddedResource("docs://b", UNKNOWN),
     [{"type": "resource", "resource": {"uri": "docs://b", "mimeType": "application/octet-stream",
                                         "blob": b64(UNKNOWN)}}]),
    ("EmbeddedResource of an image", lambda: EmbeddedResource("docs://c", PNG, "image/png"),
     [{"type": "resource", "resource": {"uri": "docs://c", "mimeType": "image/png", "blob": b64(PNG)}}]),
    ("result-shaped data", lambda: {"content": ["chapter 1"]}, [text('{"content": ["chapter 1"]}')]),
    ("result-shaped data with a bad isError", lambda: {"content": [], "isError": "yes"},
     [text('{"content": [], "isError": "yes"}')]),
    ("result-shaped data with a bad _meta", lambda: {"content": [], "_meta": 1}, [text('{"content": [], "_meta": 1}')]),
]


def serve_one(kind: str, value: Callable[[], Any], mime_type: str | None = None) -> Server:
    server = Server("returns")
    if kind == "tool":
        server.tool(name="t")(value)
    elif kind == "prompt":
        server.prompt(name="p")(value)
    else:
        server.resource(URI, mime_type=mime_type)(value)
    return server


@pytest.mark.parametrize(("returned", "expected"), [c[1:] for c in TOOL_CASES], ids=[c[0] for c in TOOL_CASES])
def test_tool_return_values(memory_client: Callable[..., Client], returned: Callable[[], Any],
                            expected: list[dict[str, Any]]) -> None:
    client = memory_client(serve_one("tool", returned))
    assert client.call_tool("t") == {"content": expected}


def test_a_tool_may_return_a_whole_result(memory_client: Callable[..., Client]) -> None:
    server = Server("results")
    given = {"content": [text("careful"), image(PNG, "image/png")], "isError": True, "_meta": {"k": 1}}
    server.tool(name="given")(lambda: given)
    server.tool(name="objects")(lambda: {"content": [Image(PNG), EmbeddedResource("docs://a", "t")]})
    client = memory_client(server)
    assert client.call_tool("given") == given  # isError set by the tool itself
    assert client.call_tool("objects") == {"content": [image(PNG, "image/png"), {
        "type": "resource", "resource": {"uri": "docs://a", "mimeType": "text/plain", "text": "t"}}]}


def _circular() -> list[Any]:
    items: list[Any] = [1]
    items.append(items)
    return items


async def _coroutine() -> str:
    return "never run"


UNSENDABLE: list[tuple[str, Callable[[], Any], str]] = [  # (case, returned, words the error must contain)
    ("object", lambda: object(), "object"),
    ("NaN", lambda: float("nan"), "nan"),
    ("Infinity inside a dict", lambda: {"a": [float("inf")]}, "inf"),
    ("complex", lambda: 1j, "complex"),
    ("Decimal", lambda: Decimal("1.5"), "Decimal"),
    ("a function", lambda: len, "builtin_function_or_method"),
    ("a generator", lambda: (i for i in range(3)), "generator"),
    ("map", lambda: map(str, [1]), "map"),
    ("bytes inside a dict", lambda: {"png": PNG}, "bytes"),
    ("an Image inside a dict", lambda: {"img": Image(PNG)}, "Image"),
    ("a tuple as a key", lambda: {(1, 2): "x"}, "key"),
    ("NaN as a key", lambda: {float("nan"): "x"}, "JSON"),
    ("an object in a mixed list", lambda: ["a", object()], "object"),
    ("a list that contains itself", _circular, "itself"),
    ("a coroutine from a sync function", lambda: _coroutine(), "async"),
]


@pytest.mark.parametrize(("returned", "words"), [c[1:] for c in UNSENDABLE], ids=[c[0] for c in UNSENDABLE])
def test_a_tool_value_that_cannot_be_sent_is_an_iserror_result(
        memory_client: Callable[..., Client], returned: Callable[[], Any], words: str) -> None:
    client = memory_client(serve_one("tool", returned))
    result = client.call_tool("t")
    assert result["isError"] is True  # TOOL-17: for the model, the tool failed
    message = result["content"][0]["text"]
    assert "cannot be sent" in message and words in message
    client.ping()


# --- prompts -------------------------------------------------------------------------------------


def user(content: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": content}


PROMPT_CASES: list[tuple[str, Callable[[], Any], dict[str, Any]]] = [
    ("str", lambda: "hi", {"messages": [user(text("hi"))]}),
    ("message with str content", lambda: {"role": "assistant", "content": "ok"},
     {"messages": [{"role": "assistant", "content": text("ok")}]}),
    ("valid message", lambda: user(text("x")), {"messages": [user(text("x"))]}),
    ("message with an extra field", lambda: {"role": "user", "content": "x", "_meta": {"k": 1}},
     {"messages": [{"role": "user", "content": text("x"), "_meta": {"k": 1}}]}),
    ("message with an Image", lambda: {"role": "assistant", "content": Image(PNG)},
     {"messages": [{"role": "assistant", "content": image(PNG, "image/png")}]}),
    ("message with bytes", lambda: {"role": "user", "content": UNKNOWN}, {"messages": [user(blob_item(UNKNOWN))]}),
    ("message with data", lambda: {"role": "user", "content": {"a": 1}}, {"messages": [user(text('{"a": 1}'))]}),
    ("content item", lambda: text("x"), {"messages": [user(text("x"))]}),
    ("Image", lambda: Image(PNG), {"messages": [user(image(PNG, "image/png"))]}),
    ("EmbeddedResource", lambda: EmbeddedResource("docs://x", "t"),
     {"messages": [user({"type": "resource", "resource": {"uri": "docs://x", "mimeType": "text/plain", "text": "t"}})]}),
    ("bytes: PNG", lambda: PNG, {"messages": [user(image(PNG, "image/png"))]}),
    ("bytes: unknown", lambda: UNKNOWN, {"messages": [user(blob_item(UNKNOWN))]}),
    ("a whole result", lambda: {"messages": ["a", {"role": "assistant", "content": "b"}], "description": "given"},
     {"messages": [user(text("a")), {"role": "assistant", "content": text("b")}], "description": "given"}),
    ("mixed list", lambda: ["a", Image(PNG), 3, {"k": "v"}],
     {"messages": [user(text("a")), user(image(PNG, "image/png")), user(text("3")), user(text('{"k": "v"}'))]}),
    ("tuple", lambda: ("a", "b"), {"messages": [user(text("a")), user(text("b"))]}),
    ("empty list", lambda: [], {"messages": []}),
    ("list in a list is data", lambda: [["a", "b"]], {"messages": [user(text('["a", "b"]'))]}),
    ("dict of data", lambda: {"a": 1}, {"messages": [user(text('{"a": 1}'))]}),
    ("number", lambda: 3, {"messages": [user(text("3"))]}),
    ("dataclass", lambda: Point(1, 2), {"messages": [user(text('{"x": 1, "y": 2}'))]}),
    ("look-alike item is data", lambda: {"type": "text"}, {"messages": [user(text('{"type": "text"}'))]}),
]


@pytest.mark.parametrize(("returned", "expected"), [c[1:] for c in PROMPT_CASES], ids=[c[0] for c in PROMPT_CASES])
def test_prompt_return_values(memory_client: Callable[..., Client], returned: Callable[[], Any],
                              expected: dict[str, Any]) -> None:
    client = memory_client(serve_one("prompt", returned))
    assert client.get_prompt("p") == expected


PROMPT_ERRORS: list[tuple[str, Callable[[], Any], str]] = [
    ("None", lambda: None, "NoneType"),
    ("None in a list", lambda: ["a", None], "list"),
    ("role system", lambda: {"role": "system", "content": "x"}, "'system'"),
    ("a message whose content is a list", lambda: {"role": "user", "content": ["a", "b"]}, "list"),
    ("object", lambda: object(), "object"),
    ("NaN", lambda: float("nan"), "float"),
    ("description that is not a str", lambda: {"messages": [], "description": 3}, "description"),
    ("_meta that is not an object", lambda: {"messages": [], "_meta": 3}, "_meta"),
    ("a coroutine from a sync function", lambda: _coroutine(), "coroutine"),
]


@pytest.mark.parametrize(("returned", "words"), [c[1:] for c in PROMPT_ERRORS], ids=[c[0] for c in PROMPT_ERRORS])
def test_a_prompt_value_that_cannot_be_sent_is_32603_naming_its_type(
        memory_client: Callable[..., Client], returned: Callable[[], Any], words: str,
        caplog: pytest.LogCaptureFixture) -> None:
    client = memory_client(serve_one("prompt", returned))
    with pytest.raises(InternalError) as info:
        client.get_prompt("p")  # PRM-09
    assert info.value.code == -32603 and "Prompt 'p' returned a" in info.value.message
    assert words in info.value.message
    assert any("prompt p returned" in r.getMessage() for r in caplog.records)  # the detail, in the server log
    client.ping()


# --- resources -----------------------------------------------------------------------------------

RESOURCE_CASES: list[tuple[str, str | None, Callable[[], Any], list[dict[str, Any]]]] = [
    ("str", None, lambda: "hi", [{"uri": URI, "text": "hi"}]),
    ("str, type registered", "text/markdown", lambda: "# hi", [{"uri": URI, "mimeType": "text/markdown", "text": "# hi"}]),
    ("bytes: PNG, type sniffed", None, lambda: PNG, [{"uri": URI, "mimeType": "image/png", "blob": b64(PNG)}]),
    ("bytes: WebP, type sniffed", None, lambda: WEBP, [{"uri": URI, "mimeType": "image/webp", "blob": b64(WEBP)}]),
    ("bytes: unknown", None, lambda: UNKNOWN, [{"uri": URI, "blob": b64(UNKNOWN)}]),
    ("bytes, type registered", "application/pdf", lambda: PNG,
     [{"uri": URI, "mimeType": "application/pdf", "blob": b64(PNG)}]),
    ("bytearray", None, lambda: bytearray(UNKNOWN), [{"uri": URI, "blob": b64(UNKNOWN)}]),
    ("dict", None, lambda: {"a": 1}, [{"uri": URI, "mimeType": "application/json", "text": '{"a": 1}'}]),
    ("dict, type registered", "application/vnd.x+json", lambda: {"a": 1},
     [{"uri": URI, "mimeType": "application/vnd.x+json", "text": '{"a": 1}'}]),
    ("list", None, lambda: [1, 2], [{"uri": URI, "mimeType": "application/json", "text": "[1, 2]"}]),
    ("list of dicts", None, lambda: [{"a": 1}, {"b": 2}],
     [{"uri": URI, "mimeType": "application/json", "text": '[{"a": 1}, {"b": 2}]'}]),
    ("empty list", None, lambda: [], [{"uri": URI, "mimeType": "application/json", "text": "[]"}]),
    ("None", None, lambda: None, [{"uri": URI, "mimeType": "application/json", "text": "null"}]),
    ("number", None, lambda: 3.5, [{"uri": URI, "mimeType": "application/json", "text": "3.5"}]),
    ("bool", None, lambda: False, [{"uri": URI, "mimeType": "application/json", "text": "false"}]),
    ("dataclass", None, lambda: Point(1, 2), [{"uri": URI, "mimeType": "application/json", "text": '{"x": 1, "y": 2}'}]),
    ("pydantic model", None, lambda: Reading(value=2, at=WHEN),
     [{"uri": URI, "mimeType": "application/json", "text": '{"value": 2.0, "at": "2024-01-02T03:04:05Z"}'}]),
    ("Enum", None, lambda: Color.RED, [{"uri": URI, "mimeType": "application/json", "text": '"red"'}]),
    ("contents dict", None, lambda: {"text": "x", "mimeType": "text/markdown"},
     [{"uri": URI, "text": "x", "mimeType": "text/markdown"}]),
    ("contents dict with its own uri", None, lambda: {"uri": "mem://thing/part", "blob": b64(UNKNOWN)},
     [{"uri": "mem://thing/part", "blob": b64(UNKNOWN)}]),
    ("a whole contents list", None, lambda: {"contents": [{"uri": URI, "text": "a"}, {"blob": b64(PNG)}]},
     [{"uri": URI, "text": "a"}, {"uri": URI, "blob": b64(PNG)}]),
    ("contents with both text and blob is data", None, lambda: {"text": "x", "blob": b64(UNKNOWN)},
     [{"uri": URI, "mimeType": "application/json", "text": json.dumps({"text": "x", "blob": b64(UNKNOWN)})}]),
    ("contents with a text that is not a str is data", None, lambda: {"text": 5},
     [{"uri": URI, "mimeType": "application/json", "text": '{"text": 5}'}]),
    ("contents with an extra key is data", None, lambda: {"text": "x", "author": "me"},
     [{"uri": URI, "mimeType": "application/json", "text": '{"text": "x", "author": "me"}'}]),
    ("a table of contents is data", None, lambda: {"contents": ["chapter 1"]},
     [{"uri": URI, "mimeType": "application/json", "text": '{"contents": ["chapter 1"]}'}]),
    ("Image", None, lambda: Image(PNG), [{"uri": URI, "mimeType": "image/png", "blob": b64(PNG)}]),
    ("EmbeddedResource", None, lambda: EmbeddedResource("docs://x", "t"),
     [{"uri": "docs://x", "mimeType": "text/plain", "text": "t"}]),
    ("mixed list", None, lambda: ["a", UNKNOWN, {"k": 1}],
     [{"uri": URI, "text": "a"}, {"uri": URI, "blob": b64(UNKNOWN)},
      {"uri": URI, "mimeType": "application/json", "text": '{"k": 1}'}]),
    ("list of str", None, lambda: ["a", "b"], [{"uri": URI, "text": "a"}, {"uri": URI, "text": "b"}]),
]


@pytest.mark.parametrize(("mime_type", "returned", "expected"), [c[1:] for c in RESOURCE_CASES],
                         ids=[c[0] for c in RESOURCE_CASES])
def test_resource_return_values(memory_client: Callable[..., Client], mime_type: str | None,
                                returned: Callable[[], Any], expected: list[dict[str, Any]]) -> None:
    client = memory_client(serve_one("resource", returned, mime_type))
    assert client.read_resource(URI) == {"contents": expected}


RESOURCE_ERRORS: list[tuple[str, Callable[[], Any], str]] = [
    ("object", lambda: object(), "object"),
    ("NaN", lambda: float("nan"), "float"),
    ("an object inside a dict", lambda: {"x": object()}, "dict"),
    ("a generator", lambda: (i for i in range(2)), "generator"),
    ("a coroutine from a sync function", lambda: _coroutine(), "coroutine"),
]


@pytest.mark.parametrize(("returned", "words"), [c[1:] for c in RESOURCE_ERRORS], ids=[c[0] for c in RESOURCE_ERRORS])
def test_a_resource_value_that_cannot_be_sent_is_32603_naming_its_type(
        memory_client: Callable[..., Client], returned: Callable[[], Any], words: str) -> None:
    client = memory_client(serve_one("resource", returned))
    with pytest.raises(InternalError) as info:
        client.read_resource(URI)  # RES-07
    assert info.value.code == -32603 and words in info.value.message and "cannot be sent" in info.value.message
    client.ping()


# --- every conversion is valid on the wire: a property over random values ------------------------


def random_value(rng: random.Random, depth: int = 0) -> Any:
    """Anything a handler might return, weighted towards the awkward: look-alikes of wire
    objects, bytes, NaN, objects JSON cannot carry, nesting."""
    atoms: list[Callable[[], Any]] = [
        lambda: rng.choice(["", "hi", "héllo\u2028", "\x00", "{\"type\": \"text\"}"]),
        lambda: rng.choice([0, -1, 2**64, True, False, None, 1.5, float("nan"), float("inf")]),
        lambda: rng.choice([PNG, JPEG, UNKNOWN, b"", bytearray(GIF89)]),
        lambda: rng.choice([Image(PNG), Image(b"x", "image/x"), EmbeddedResource("docs://a", rng.choice(["t", UNKNOWN]))]),
        lambda: rng.choice([Color.RED, Shade.DARK, WHEN, ID, PurePosixPath("/a"), Point(1, 2),
                            Reading(value=1, at=WHEN), object(), Decimal(1), {1, 2}]),
        lambda: rng.choice([text("t"), {"type": "text", "text": 1}, image(PNG, "image/png"),
                            {"type": "image", "data": "%%", "mimeType": "x"}, {"type": "resource", "resource": {}},
                            {"role": rng.choice(["user", "assistant", "system"]), "content": rng.choice(["x", 1, PNG])},
                            {"text": rng.choice(["x", 1])}, {"blob": rng.choice([b64(PNG), "%%"])},
                            {"uri": rng.choice(["a:b", "no scheme"]), "text": "x"},
                            {"content": [text("x")], "isError": rng.choice([True, "no"]),
                             "_meta": rng.choice([{}, 1])},
                            {"messages": ["x"], "description": rng.choice(["d", 1]), "_meta": rng.choice([{}, 1])},
                            {float("nan"): 1, "x": {float("inf"): 2}},
                            {"contents": [{"text": "x"}, rng.choice(["y", {"blob": "AA=="}])]}]),
    ]
    if depth < 3 and rng.random() < 0.4:
        size = rng.randrange(4)
        if rng.random() < 0.5:
            return [random_value(rng, depth + 1) for _ in range(size)]
        return {rng.choice(["a", "type", "text", "content", "role"]): random_value(rng, depth + 1) for _ in range(size)}
    return rng.choice(atoms)()


def test_every_converted_value_is_valid_on_the_wire_or_refused() -> None:
    """Property: for any value, each feature's table gives a result the 2024-11-05 schema
    accepts (and strict JSON can carry), or raises UnsupportedReturn. Never anything else."""
    rng = random.Random(20241105)
    tap = SchemaTap("client")
    conversions: list[tuple[str, dict[str, Any], Callable[[Any], dict[str, Any]]]] = [
        ("tools/call", {"name": "t"}, tool_result),
        ("prompts/get", {"name": "p"}, prompt_result),
        ("resources/read", {"uri": URI}, lambda v: {"contents": resource_contents_list(v, URI, None)}),
    ]
    counts = {"converted": 0, "refused": 0}
    for n in range(400):
        value = random_value(rng)
        for method, params, convert in conversions:
            try:
                result = convert(value)
            except UnsupportedReturn:
                counts["refused"] += 1
                continue
            counts["converted"] += 1
            wire = json.dumps(result, allow_nan=False)  # raises on NaN, bytes, objects...
            tap("->", json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}).encode())
            tap("<-", f'{{"jsonrpc": "2.0", "id": {n}, "result": {wire}}}'.encode())
    tap.assert_clean()
    assert counts["converted"] > 600 and counts["refused"] > 50  # both paths were exercised
