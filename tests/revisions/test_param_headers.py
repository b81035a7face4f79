"""x-mcp-header on the client (mcp_ref/revisions/param_headers.py): which marks are valid, and the
Mcp-Param-* headers a call over Streamable HTTP carries.

https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#custom-headers-from-tool-parameters
A table of schemas (each rule of a mark: token, control characters, case-insensitive uniqueness,
primitive types, reached through properties alone) and of values (each encoding); then our
client against our server over a real Streamable HTTP endpoint on 127.0.0.1, every request's
headers recorded: a tool with a bad mark is left out of list_tools with a warning (MPARAM-04), a
call carries the marked arguments as headers, encoded (MPARAM-06, MPARAM-07), in the handshake's
revisions and in 2026-07-28; over stdio the marks are ignored (MPARAM-05). The conformance
suite's http-custom-headers and http-invalid-tool-headers scenarios grade the same against a
server nobody here wrote (tests/interop/test_conformance_client_2026.py).
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_ref import Client, Server
from mcp_ref.lifecycle import ALL_REVISIONS
from mcp_ref.revisions import param_headers


def schema(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


MARKED = {"type": "string", "x-mcp-header": "Region"}
VALID = [
    (schema(region=MARKED, query={"type": "string"}), [("Region", ("region",))]),
    (schema(n={"type": "integer", "x-mcp-header": "N"}, on={"type": "boolean", "x-mcp-header": "On"}),
     [("N", ("n",)), ("On", ("on",))]),
    (schema(where={"type": "object", "properties": {"zone": {"type": "string", "x-mcp-header": "Zone"}}}),
     [("Zone", ("where", "zone"))]),
    (schema(plain={"type": "string"}), []),
]
INVALID = {
    "empty": schema(a={"type": "string", "x-mcp-header": ""}),
    "a space": schema(a={"type": "string", "x-mcp-header": "My Region"}),
    "a colon": schema(a={"type": "string", "x-mcp-header": "Region:"}),
    "a newline": schema(a={"type": "string", "x-mcp-header": "Re\ngion"}),
    "not a string": schema(a={"type": "string", "x-mcp-header": 7}),
    "twice, in other cases": schema(a={"type": "string", "x-mcp-header": "Region"},
                                    b={"type": "string", "x-mcp-header": "region"}),
    "a number": schema(a={"type": "number", "x-mcp-header": "Price"}),
    "an object": schema(a={"type": "object", "x-mcp-header": "Thing"}),
    "under items": schema(a={"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}}),
    "under anyOf": {"type": "object", "anyOf": [schema(a={"type": "string", "x-mcp-header": "A"})]},
    "under $defs": {"type": "object", "$defs": {"x": {"type": "string", "x-mcp-header": "X"}}},
}


@pytest.mark.parametrize(("input_schema", "expected"), VALID)
def test_valid_marks_are_found_with_their_paths(input_schema: dict[str, Any], expected: list[Any]) -> None:
    assert param_headers.marks(input_schema) == (expected, None)


@pytest.mark.parametrize("why", list(INVALID))
def test_an_invalid_mark_spoils_its_tool(why: str) -> None:  # MPARAM-02, MPARAM-03
    found, problem = param_headers.marks(INVALID[why])
    assert found == [] and problem, why


ENCODED = [  # argument value -> the header's value (None: no header)
    ("us-west1", "us-west1"), ("us west 1", "us west 1"), (42, "42"), (-7, "-7"), (True, "true"), (False, "false"),
    ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="), (" padded ", "=?base64?IHBhZGRlZCA=?="),
    ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="), ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
    (None, None),
]


@pytest.mark.parametrize(("value", "header"), ENCODED)
def test_each_kind_of_value_is_encoded_as_the_spec_says(value: Any, header: str | None) -> None:  # MPARAM-07
    msg = {"method": "tools/call", "params": {"name": "t", "arguments": {"region": value}}}
    got = param_headers.headers_for(msg, {"t": [("Region", ("region",))]})
    assert got == ({} if header is None else {"Mcp-Param-Region": header})


def make_server() -> Server:
    server = Server("marks")
    server.tool("route", input_schema=schema(region=MARKED, n={"type": "integer", "x-mcp-header": "N"}))(
        lambda region, n=None: f"{region} {n}")
    server.tool("bad", input_schema=schema(price={"type": "number", "x-mcp-header": "Price"}))(lambda price: "x")
    return server


class Recorder:
    """WSGI middleware that keeps the headers of every POST to the MCP endpoint."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.seen: list[dict[str, str]] = []

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if environ["PATH_INFO"] == "/mcp" and environ["REQUEST_METHOD"] == "POST":
            self.seen.append({k[5:].replace("_", "-").lower(): v for k, v in environ.items() if k.startswith("HTTP_")})
        return self.app(environ, start_response)


@pytest.fixture
def endpoint() -> Iterator[tuple[str, Recorder]]:
    from werkzeug.serving import make_server as wsgi_server

    app = make_server().wsgi_app(keepalive=0.3)
    recorder = Recorder(app)
    wsgi = wsgi_server("127.0.0.1", 0, recorder, threaded=True)
    threading.Thread(target=wsgi.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{wsgi.server_port}/mcp", recorder
    finally:
        app.close()
        wsgi.shutdown()
        wsgi.server_close()


@pytest.mark.parametrize("versions", [["2025-11-25"], list(ALL_REVISIONS)], ids=["handshake", "2026-07-28"])
def test_over_streamable_http_a_bad_tool_is_left_out_and_a_call_carries_its_marked_arguments(
        endpoint: tuple[str, Recorder], versions: list[str], caplog: pytest.LogCaptureFixture) -> None:
    url, recorder = endpoint
    with caplog.at_level(logging.WARNING, logger="mcp_ref.client"), \
            Client.http(url, timeout=10, fallback=False, protocol_versions=versions) as client:
        assert [tool["name"] for tool in client.list_tools()] == ["route"]  # MPARAM-04
        assert client.call_tool("route", {"region": "Zürich", "n": 3})["content"][0]["text"] == "Zürich 3"
        client.call_tool("route", {"region": "eu"})  # n absent: no header for it
    assert any("'bad'" in record.getMessage() and "number" in record.getMessage() for record in caplog.records)
    calls = [headers for headers in recorder.seen if headers.get("mcp-method") == "tools/call"]
    assert [(h.get("mcp-name"), h.get("mcp-param-region"), h.get("mcp-param-n")) for h in calls] == [
        ("route", "=?base64?WsO8cmljaA==?=", "3"), ("route", "eu", None)]  # MPARAM-06, MPARAM-07, HTTPX-18


def test_over_stdio_the_marks_mean_nothing(tmp_path: Path) -> None:  # MPARAM-05
    script = tmp_path / "marks_server.py"
    root = str(Path(__file__).resolve().parents[2])
    script.write_text(f"import sys\nsys.path.insert(0, {root!r})\n"
                      "from tests.revisions.test_param_headers import make_server\nmake_server().serve_stdio()\n")
    with Client.stdio([sys.executable, str(script)], timeout=10) as client:
        assert sorted(tool["name"] for tool in client.list_tools()) == ["bad", "route"]
