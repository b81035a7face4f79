"""Revision 2025-11-25 (mcp_ref/revisions/v2025_11_25.py): tool-name guidance, JSON Schema 2020-12
as the dialect of a schema that names none, and HTTP 403 for an Origin the server refuses.

https://modelcontextprotocol.io/specification/2025-11-25/changelog
https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names
(Input errors as tool errors, icons and the rest of this revision's tool features are tested
across every revision in test_tools_across_revisions.py.)
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import pytest

from mcp_ref import Client, Server


@pytest.mark.parametrize(("name", "warned"), [
    ("get_weather", False), ("admin.tools-list_2", False), ("A" * 128, False),
    ("get weather", True), ("", None), ("x" * 129, True), ("naïve", True), ("a/b", True), ("a,b", True),
])
def test_a_tool_name_outside_the_guidance_is_warned_about_at_registration(name: str, warned: bool | None) -> None:
    server = Server("names")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if warned is None:  # no name at all is an error, not a warning
            with pytest.raises((TypeError, ValueError)):
                server.tool(name)(lambda: "x")
            return
        server.tool(name)(lambda: "x")
    said = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    assert bool(said) == warned, said
    if warned:
        assert "128" in said[0] and "A-Z" in said[0]  # it says what a good name is


def test_a_schema_without_dialect_is_read_as_2020_12(memory_client: Callable[..., Client]) -> None:
    """``prefixItems`` means something only in 2020-12: a draft-07 reading would let a wrong pair through."""
    server = Server("dialect")
    pair = {"type": "object", "properties": {"pair": {"type": "array", "prefixItems": [{"type": "string"},
                                                                                     {"type": "integer"}]}},
            "required": ["pair"]}
    server.tool("pair", input_schema=pair)(lambda pair: f"{pair[0]}={pair[1]}")
    client = memory_client(server)
    assert client.call_tool("pair", {"pair": ["a", 1]})["content"][0]["text"] == "a=1"
    refused = client.call_tool("pair", {"pair": ["a", "b"]})  # 2025-11-25: a tool error the model can read
    assert refused["isError"] is True and "'b' is not of type 'integer'" in refused["content"][0]["text"]


@pytest.mark.parametrize("path", ["/mcp", "/sse"])
def test_an_origin_the_server_refuses_gets_403(path: str) -> None:
    from werkzeug.test import Client as WsgiClient

    app = Server("origins").wsgi_app()
    try:
        headers = {"Origin": "https://evil.example", "Accept": "application/json, text/event-stream"}
        answer = (WsgiClient(app).post(path, json={}, headers=headers) if path == "/mcp"
                  else WsgiClient(app).get(path, headers=headers))
        assert answer.status_code == 403 and "evil.example" in answer.get_data(as_text=True)
    finally:
        app.close()
