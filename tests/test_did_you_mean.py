"""A name the server does not know is answered with the names it does know that look most like it.

Not one spec page: server/tools (TOOL-18), server/prompts (PRM-07), server/resources (RES-06) and
server/utilities/completion (CMP-08) each refuse an unknown name; each refusal keeps its code and
adds "did you mean" with the closest known names (``data.suggestions``), and none when nothing is
close.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mcp_ref import Client, InvalidParams, McpError, ResourceNotFound, Server


def small_server() -> Server:
    server = Server("names")

    @server.tool()
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool()
    def subtract(a: int, b: int) -> int:
        return a - b

    @server.prompt()
    def review_code(code: str, language: str = "python") -> str:
        return f"Review this {language}: {code}"

    @server.resource("notes://today")
    def today() -> str:
        return "today"

    @server.resource_template("notes://{topic}/draft")
    def draft(topic: str) -> str:
        return topic

    server.add_completion("ref/prompt", "review_code", "language", ["python", "go"])
    server.add_completion("ref/resource", "notes://{topic}/draft", "topic", ["mcp"])
    return server


CASES: list[tuple[str, Callable[[Client], Any], type[McpError], str | None]] = [
    ("tool, one letter short", lambda c: c.call_tool("ad", {}), InvalidParams, "add"),
    ("tool, transposed letters", lambda c: c.call_tool("subtarct", {}), InvalidParams, "subtract"),
    ("tool, nothing close", lambda c: c.call_tool("zzzzz", {}), InvalidParams, None),
    ("prompt", lambda c: c.get_prompt("review_cod", {"code": "x"}), InvalidParams, "review_code"),
    ("prompt argument", lambda c: c.get_prompt("review_code", {"code": "x", "langauge": "go"}), InvalidParams,
     "language"),
    ("completion of a prompt", lambda c: c.complete({"type": "ref/prompt", "name": "reveiw_code"},
                                                    {"name": "language", "value": "p"}), InvalidParams, "review_code"),
    ("completion of a template", lambda c: c.complete({"type": "ref/resource", "uri": "notes://{topik}/draft"},
                                                      {"name": "topic", "value": "m"}), InvalidParams,
     "notes://{topic}/draft"),
    ("resource", lambda c: c.read_resource("notes://todya"), ResourceNotFound, "notes://today"),
]


@pytest.mark.parametrize("case, call, error, meant", CASES, ids=[c[0] for c in CASES])
def test_an_unknown_name_suggests_the_closest_known_one(memory_client: Callable[..., Client], tap: Any, case: str,
                                                        call: Callable[[Client], Any], error: type[McpError],
                                                        meant: str | None) -> None:
    client = memory_client(small_server())
    with tap.deliberately_invalid(), pytest.raises(error) as info:
        call(client)
    if meant is None:
        assert "did you mean" not in info.value.message
    else:
        assert f"; did you mean {meant!r}" in info.value.message, info.value.message  # the closest first
        if case != "prompt argument":
            assert meant in info.value.data["suggestions"]
