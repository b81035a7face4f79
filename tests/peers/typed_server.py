"""A server of ordinary typed Python functions: typed parameters, and every kind of return value.

Serve it with ``python -m mcp_ref serve tests.peers.typed_server:server``; the interop tests point
the official SDK's client at it (tests/interop/test_sdk_client_python_types.py).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
from typing import Annotated, Any, Literal

from mcp_ref import EmbeddedResource, Image, Server

server = Server("mcp-ref-typed", version="1.0")

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
UNKNOWN = b"\x00\x01\x02\xff"


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


@server.tool()
def describe(point: Point, color: Color, when: dt.datetime, scale: Annotated[float, "how much to scale"] = 1.0) -> dict[str, Any]:
    """Describe a point: typed arguments in, data out."""
    return {"point": type(point).__name__, "x": point.x * scale, "color": color.name, "weekday": when.strftime("%A")}


RETURNED: dict[str, Any] = {
    "str": "plain text",
    "png": PNG,
    "unknown_bytes": UNKNOWN,
    "image": Image(PNG),
    "embedded_text": EmbeddedResource("typed://note", "a note"),
    "embedded_bytes": EmbeddedResource("typed://blob", UNKNOWN),
    "data": {"a": [1, 2.5, None, True]},
    "dataclass": Point(1, 2),
    "lookalike": {"type": "text", "text": 5},
    "mixed": ["a", PNG, UNKNOWN, {"k": "v"}, Image(PNG)],
    "none": None,
}
Kind = Literal["str", "png", "unknown_bytes", "image", "embedded_text", "embedded_bytes", "data", "dataclass",
               "lookalike", "mixed", "none"]


@server.tool()
def give(kind: Kind) -> Any:
    """Return one kind of Python value."""
    return RETURNED[kind]


@server.prompt()
def show(kind: Kind) -> Any:
    """A prompt returning one kind of Python value."""
    return RETURNED[kind] if kind != "none" else "nothing"


@server.resource("typed://data", name="data")
def data() -> dict[str, Any]:
    """A dict: JSON text."""
    return {"a": 1}


@server.resource("typed://bytes", name="bytes")
def some_bytes() -> bytes:
    """Bytes of no known type: a blob."""
    return UNKNOWN


@server.resource("typed://mixed", name="mixed")
def mixed() -> list[Any]:
    """A mixing list: several contents."""
    return ["text", PNG, Image(PNG), EmbeddedResource("typed://other", "other"), {"k": 1}]


@server.resource_template("typed://points/{n}", name="points")
def points(n: int) -> list[Point]:
    """n points: the variable arrives as an int."""
    return [Point(i, i) for i in range(n)]
