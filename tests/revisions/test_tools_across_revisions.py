"""server/tools, prompts and resources across the revisions: what each client sees of one server.

https://modelcontextprotocol.io/specification/2025-11-25/server/tools (and the same page of
2025-03-26 and 2025-06-18). One server registers a tool of every later feature; a client pinned to
each revision lists and calls it, and every result is checked against that revision's own
schema (../shared/spec/<rev>/schema.json): an older client gets no field it does not know.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any, TypedDict

import jsonschema
import pytest

from mcp_ref import Audio, Client, InvalidParams, ResourceLink, Server
from mcp_ref.machinery.memory import MemoryTransport

REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
SPEC = Path(__file__).resolve().parents[3] / "shared" / "spec"
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt "
ICON = {"src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48"]}


def conforms(revision: str, definition: str, value: Any) -> None:
    """``value`` is valid as ``definition`` of ``revision``'s schema (skipped without the spec files)."""
    path = SPEC / revision / "schema.json"
    if not path.is_file():
        pytest.skip("no ../shared/spec")
    schema = json.loads(path.read_text(encoding="utf-8"))
    defs = "$defs" if "$defs" in schema else "definitions"
    wrapper = {"$schema": schema["$schema"], "$ref": f"#/{defs}/{definition}", defs: schema[defs]}
    errors = list(jsonschema.validators.validator_for(wrapper)(wrapper).iter_errors(value))
    assert not errors, f"{revision} {definition}: {errors[0].message}"


class Weather(TypedDict):
    city: str
    celsius: float


def make_server() -> Server:
    server = Server("features")

    @server.tool(title="Weather", annotations={"readOnlyHint": True, "openWorldHint": False}, icons=[ICON],
                 meta={"example.com/tier": "free"})
    def weather(city: str) -> Weather:
        """The weather in a city."""
        return {"city": city, "celsius": 21.5}

    @server.tool()
    def listen() -> list[Any]:
        """A clip and a link."""
        return ["here", Audio(WAV), ResourceLink("file:///notes/a.txt", "a.txt", mime_type="text/plain")]

    @server.tool(output_schema={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
    def broken() -> dict[str, Any]:
        return {"n": "not a number"}

    @server.prompt(title="Greeting", icons=[ICON],
                   arguments=[{"name": "who", "title": "Who", "description": "a name", "required": True}])
    def greet(who: str) -> list[Any]:
        return [f"Hello {who}", {"role": "assistant", "content": Audio(WAV)}]

    @server.resource("notes://today", title="Today's notes", icons=[ICON], meta={"example.com/x": 1})
    def today() -> str:
        return "nothing"

    @server.resource_template("notes://{day}", title="A day's notes")
    def day(day: str) -> str:
        return day

    server.add_completion("ref/prompt", "greet", "who", lambda value, arguments: [f"{value}-{arguments.get('x', '')}"])
    return server


@pytest.fixture(params=REVISIONS)
def pinned(request: Any) -> Any:
    server = make_server()
    server_end, client_end = MemoryTransport.pair()
    server.open_session(server_end).start()
    with Client(client_end, protocol_versions=[request.param], timeout=10).connect() as client:
        assert client.protocol_version == request.param
        yield request.param, client


def since(revision: str, introduced: str) -> bool:
    return REVISIONS.index(revision) >= REVISIONS.index(introduced)


def test_each_client_lists_only_the_fields_of_its_revision(pinned: Any) -> None:
    revision, client = pinned
    listed = client.request("tools/list")
    conforms(revision, "ListToolsResult", listed)
    weather = {t["name"]: t for t in listed["tools"]}["weather"]
    assert ("annotations" in weather) == since(revision, "2025-03-26")
    assert ("title" in weather and "_meta" in weather and "outputSchema" in weather) == since(revision, "2025-06-18")
    assert ("icons" in weather) == since(revision, "2025-11-25")
    if since(revision, "2025-06-18"):
        assert weather["outputSchema"]["properties"]["celsius"] == {"type": "number"}
        assert weather["_meta"] == {"example.com/tier": "free"} and weather["title"] == "Weather"
    prompts = client.request("prompts/list")
    conforms(revision, "ListPromptsResult", prompts)
    greet = prompts["prompts"][0]
    assert ("title" in greet and "title" in greet["arguments"][0]) == since(revision, "2025-06-18")
    resources, templates = client.request("resources/list"), client.request("resources/templates/list")
    conforms(revision, "ListResourcesResult", resources)
    conforms(revision, "ListResourceTemplatesResult", templates)
    assert ("icons" in resources["resources"][0]) == since(revision, "2025-11-25")
    assert ("title" in templates["resourceTemplates"][0]) == since(revision, "2025-06-18")


def test_structured_content_goes_beside_the_text_from_2025_06_18(pinned: Any) -> None:
    revision, client = pinned
    client.list_tools()  # the client remembers the outputSchema, and checks the result against it
    result = client.call_tool("weather", {"city": "Oslo"})
    conforms(revision, "CallToolResult", result)
    assert json.loads(result["content"][0]["text"]) == {"city": "Oslo", "celsius": 21.5}  # the text, always
    assert ("structuredContent" in result) == since(revision, "2025-06-18")
    if since(revision, "2025-06-18"):
        assert result["structuredContent"] == {"city": "Oslo", "celsius": 21.5}


def test_a_structured_result_that_breaks_its_schema_is_the_tools_error(pinned: Any) -> None:
    revision, client = pinned
    result = client.call_tool("broken")
    conforms(revision, "CallToolResult", result)
    assert result["isError"] is True and "does not match its outputSchema" in result["content"][0]["text"]
    assert "structuredContent" not in result


def test_audio_and_links_reach_the_revisions_that_have_them_and_stand_ins_the_others(pinned: Any) -> None:
    revision, client = pinned
    result = client.call_tool("listen")
    conforms(revision, "CallToolResult", result)
    kinds = [item["type"] for item in result["content"]]
    assert kinds == ["text", "audio" if since(revision, "2025-03-26") else "text",
                     "resource_link" if since(revision, "2025-06-18") else "text"]
    if not since(revision, "2025-03-26"):
        assert "audio clip (audio/wav) was left out" in result["content"][1]["text"]
        assert revision in result["content"][1]["text"]
    if not since(revision, "2025-06-18"):
        assert "file:///notes/a.txt" in result["content"][2]["text"]
    prompt = client.get_prompt("greet", {"who": "Ada"})
    conforms(revision, "GetPromptResult", prompt)
    assert prompt["messages"][1]["content"]["type"] == ("audio" if since(revision, "2025-03-26") else "text")


def test_arguments_that_fail_the_schema_are_a_tool_error_from_2025_11_25(pinned: Any) -> None:
    revision, client = pinned
    if since(revision, "2025-11-25"):
        result = client.call_tool("weather", {"city": 3})
        assert result["isError"] is True and "Invalid arguments for tool 'weather' at 'city'" in result["content"][0]["text"]
    else:
        with pytest.raises(InvalidParams, match="Invalid arguments for tool 'weather' at 'city'"):
            client.call_tool("weather", {"city": 3})
    with pytest.raises(InvalidParams, match="Unknown tool"):  # an unknown tool stays a protocol error
        client.call_tool("no_such_tool")


def test_a_completer_that_asks_for_the_arguments_gets_the_context_from_2025_06_18(pinned: Any) -> None:
    revision, client = pinned
    found = client.complete({"type": "ref/prompt", "name": "greet"}, {"name": "who", "value": "A"}, context={"x": "y"})
    assert found["completion"]["values"] == ["A-y" if since(revision, "2025-06-18") else "A-"]


def test_bad_registrations_fail_loudly() -> None:
    server = Server("bad")
    with pytest.raises(ValueError, match="unknown annotation 'readonlyHint'.*did you mean 'readOnlyHint'"):
        server.tool("t", annotations={"readonlyHint": True})(lambda: "x")
    with pytest.raises(TypeError, match="annotation 'destructiveHint' must be a bool"):
        server.tool("t", annotations={"destructiveHint": "yes"})(lambda: "x")
    with pytest.raises(ValueError, match="icons must be a list"):
        server.prompt(icons=[{"src": "no uri"}])(lambda: "x")
    with pytest.raises(TypeError, match="title must be a str"):
        server.resource("notes://a", title=3)(lambda: "x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="meta must be a dict"):
        server.tool("t", meta={"k": object()})(lambda: "x")
    with pytest.raises(ValueError, match='output schema.*"type": "object"'):
        server.tool("t", output_schema={"type": "string"})(lambda: "x")
    with pytest.raises(ValueError, match="valid JSON Schema .https://json-schema.org/draft/2020-12/schema, the default"):
        server.tool("t", input_schema={"type": "object", "properties": {"p": {"type": "array", "items": [{}]}}})(
            lambda p: "x")
    with pytest.raises(ValueError, match="dialect 'https://example.com/s'"):
        server.tool("t", input_schema={"$schema": "https://example.com/s", "type": "object"})(lambda: "x")
    with pytest.warns(UserWarning, match="1 to 128 characters"):
        server.tool(name="has spaces")(lambda: "x")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        server.tool(name="a.b-c_9")(lambda: "x")


def test_draft_07_schemas_keep_working_and_2020_12_is_the_default() -> None:
    server = Server("dialects")
    pair = {"type": "array", "items": [{"type": "integer"}, {"type": "string"}]}  # draft-07's tuple
    server.tool(name="d7", input_schema={"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                                         "properties": {"p": pair}})(lambda p: "ok")
    server.tool(name="d2020", input_schema={"type": "object", "properties": {"p": {
        "type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]}}})(lambda p: "ok")

    @server.tool()
    def derived(p: tuple[int, str]) -> str:
        return f"{p[0]}{p[1]}"

    with Client.in_memory(server) as client:
        for name in ("d7", "d2020", "derived"):
            assert not client.call_tool(name, {"p": [1, "a"]}).get("isError")
            result = client.call_tool(name, {"p": ["a", 1]})  # 2025-11-25: a tool error
            assert result["isError"] is True and "'a' is not of type 'integer'" in result["content"][0]["text"]


def test_tool_features_over_stdio_and_streamable_http(tmp_path: Path) -> None:
    """The same server as a process, over stdio and over Streamable HTTP, for a client of each end."""
    from tests.conftest import ROOT, SseServerProcess, server_command

    module = tmp_path / "features_server.py"
    module.write_text("from tests.revisions.test_tools_across_revisions import make_server\nserver = make_server()\n")
    target = f"{module}:server"
    http = SseServerProcess(target, "--transport", "http")
    try:
        for connect in (lambda **kw: Client.stdio(server_command(target), cwd=str(ROOT), **kw),
                        lambda **kw: Client.http(http.url, fallback=False, **kw)):
            for revision in ("2024-11-05", "2025-11-25"):
                with connect(protocol_versions=[revision], timeout=10) as client:
                    client.list_tools()
                    result = client.call_tool("weather", {"city": "Oslo"})
                    assert ("structuredContent" in result) == since(revision, "2025-06-18")
                    conforms(revision, "CallToolResult", client.call_tool("listen"))
    finally:
        http.close()

