"""server/tools: listing, calling, validation, the two kinds of error, list_changed.

https://modelcontextprotocol.io/specification/2024-11-05/server/tools
"""

from __future__ import annotations

import base64
import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any, Literal

import pytest

from mcp_ref import Client, InvalidParams, MethodNotFound, RequestContext, RequestTimeout, Server
from mcp_ref.functions.returns import tool_result
from mcp_ref.functions.signatures import Signature


def test_list_tools_with_derived_schemas(connect: Callable[..., Client]) -> None:
    client = connect()
    tools = {t["name"]: t for t in client.list_tools()}
    assert {"add", "fail", "slow_count", "show_logo", "increment", "log_something"} <= set(tools)
    assert tools["add"]["description"] == "Add two integers."
    assert tools["add"]["inputSchema"] == {
        "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"], "additionalProperties": False}
    assert "ctx" not in tools["slow_count"]["inputSchema"]["properties"]  # the context is not an argument


def test_call_tool_text_result(connect: Callable[..., Client]) -> None:
    client = connect()
    assert client.call_tool("add", {"a": 2, "b": 40}) == {"content": [{"type": "text", "text": "42"}]}


def test_failing_tool_is_an_iserror_result_without_traceback(connect: Callable[..., Client]) -> None:
    client = connect()
    result = client.call_tool("fail", {"reason": "the disk is full"})
    assert result["isError"] is True  # TOOL-17
    text = result["content"][0]["text"]
    assert "the disk is full" in text and "Traceback" not in text and ".py" not in text
    client.ping()


def test_protocol_errors_are_32602_and_the_session_keeps_serving(connect: Callable[..., Client]) -> None:
    client = connect(protocol_versions=["2025-06-18"])  # -32602 before 2025-11-25
    with pytest.raises(InvalidParams) as unknown:
        client.call_tool("no_such_tool", {})
    assert unknown.value.code == -32602 and "no_such_tool" in unknown.value.message  # TOOL-18
    with pytest.raises(InvalidParams) as wrong_type:
        client.call_tool("add", {"a": "two", "b": 3})
    assert "'a'" in wrong_type.value.message and wrong_type.value.data["field"] == "a"  # TOOL-08
    with pytest.raises(InvalidParams) as missing:
        client.call_tool("add", {"a": 1})
    assert "'b' is a required property" in missing.value.message
    with pytest.raises(InvalidParams) as extra:
        client.call_tool("add", {"a": 1, "b": 2, "c": 3})
    assert "'c'" in extra.value.message
    assert client.call_tool("add", {"a": 1, "b": 1})["content"][0]["text"] == "2"


@pytest.mark.parametrize("params", [
    {"name": "add"},  # arguments omitted: the tool still needs its required ones
    {"name": "add", "arguments": None},
    {"name": "add", "arguments": {}},
], ids=["omitted", "null", "empty"])
def test_a_call_without_its_required_arguments_is_32602_not_a_tool_error(
        stdio_client: Callable[..., Client], tap: Any, params: dict[str, Any]) -> None:
    """TOOL-08 holds when there are no arguments to check at all: the schema still says what is
    required, and the answer is -32602 naming the field, never the function's own TypeError
    reported as an isError result."""
    client = stdio_client("mcp_ref.demo_server:server", protocol_versions=["2025-06-18"])  # -32602 before 2025-11-25
    sloppy = "arguments" in params and params["arguments"] is None  # null breaks the schema: on purpose
    with tap.deliberately_invalid() if sloppy else contextlib.nullcontext(), pytest.raises(InvalidParams) as missing:
        client.request("tools/call", params)
    assert missing.value.code == -32602 and "'a' is a required property" in missing.value.message
    assert missing.value.data["field"] == "a"


def test_image_and_embedded_resource_content(connect: Callable[..., Client]) -> None:
    client = connect()
    image, resource = client.call_tool("show_logo")["content"]
    assert image["type"] == "image" and image["mimeType"] == "image/png"
    assert base64.b64decode(image["data"]).startswith(b"\x89PNG")
    assert resource["type"] == "resource" and resource["resource"]["uri"] == "demo://readme"
    assert "demo server" in resource["resource"]["text"]


def test_tool_with_progress_and_cancellation(connect: Callable[..., Client], tap: Any) -> None:
    client = connect()
    seen: list[Any] = []
    result = client.call_tool("slow_count", {"steps": 3, "delay": 0.01}, on_progress=seen.append)
    assert result["content"][0]["text"] == "counted to 3"
    assert [p["progress"] for p in seen] == [1, 2, 3]
    with pytest.raises(RequestTimeout):
        client.call_tool("slow_count", {"steps": 100, "delay": 0.05}, timeout=0.3)
    assert "notifications/cancelled" in tap.methods("->")
    client.ping()


def test_list_changed_when_tools_are_added_or_removed(memory_client: Callable[..., Client]) -> None:
    server = Server("changing")
    server.tool()(lambda: "x")  # a tool named <lambda>, so the capability is declared
    changes: list[str] = []
    arrived = threading.Event()

    def on_list_changed(kind: str) -> None:
        changes.append(kind)
        arrived.set()

    client = memory_client(server, on_list_changed=on_list_changed)
    client.ping()  # the server has now seen notifications/initialized: the session is operating

    @server.tool()
    def late() -> str:
        return "late"

    assert arrived.wait(2) and changes == ["tools"]  # TOOL-06
    assert "late" in {t["name"] for t in client.list_tools()}
    server.tools.remove("late")
    client.ping()
    assert changes == ["tools", "tools"]


def test_client_refuses_locally_what_the_server_did_not_declare(memory_client: Callable[..., Client], tap: Any) -> None:
    client = memory_client(Server("bare", logging=False))
    for call in (client.list_tools, lambda: client.call_tool("x"), client.list_resources,
                 lambda: client.read_resource("a://b"), client.list_prompts, lambda: client.set_logging_level("info"),
                 lambda: client.subscribe_resource("a://b")):
        with pytest.raises(MethodNotFound) as info:
            call()
        assert "did not declare" in info.value.message
    assert tap.methods("->") == ["initialize", "notifications/initialized"]  # no round trip


def test_server_answers_32601_for_features_it_did_not_declare(memory_client: Callable[..., Client]) -> None:
    client = memory_client(Server("bare"))
    with pytest.raises(MethodNotFound) as info:
        client.request("tools/list")
    assert "did not declare tools" in info.value.message


# --- schema derivation and results, as units ---------------------------------------------------


def test_input_schema_from_signature_covers_the_common_types() -> None:
    def f(ctx: RequestContext, name: str, count: int, ratio: float, flag: bool, tags: list[str],
          extra: dict[str, Any], mode: Literal["a", "b"], maybe: int | None = None, opt: str = "x") -> None: ...

    schema = Signature(f, "tool 'f'").input_schema()
    assert schema["required"] == ["name", "count", "ratio", "flag", "tags", "extra", "mode"]
    props = schema["properties"]
    assert "ctx" not in props
    assert props["name"] == {"type": "string"} and props["count"] == {"type": "integer"}
    assert props["ratio"] == {"type": "number"} and props["flag"] == {"type": "boolean"}
    assert props["tags"] == {"type": "array", "items": {"type": "string"}}
    assert props["extra"] == {"type": "object"}
    assert props["mode"] == {"enum": ["a", "b"], "type": "string"}
    assert props["maybe"] == {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None}
    assert props["opt"] == {"type": "string", "default": "x"}
    assert schema["additionalProperties"] is False


def test_explicit_input_schema_is_used_and_must_be_an_object(memory_client: Callable[..., Client]) -> None:
    server = Server("explicit")
    schema = {"type": "object", "properties": {"q": {"type": "string", "minLength": 2}}, "required": ["q"]}

    @server.tool(name="search", description="Find things.", input_schema=schema)
    def search_impl(q: str) -> str:
        return f"found {q}"

    with pytest.raises(ValueError):
        server.tool(input_schema={"type": "string"})(lambda: None)
    client = memory_client(server, protocol_versions=["2025-06-18"])  # -32602 before 2025-11-25
    assert client.list_tools() == [{"name": "search", "description": "Find things.", "inputSchema": schema}]
    assert client.call_tool("search", {"q": "mcp"})["content"][0]["text"] == "found mcp"
    with pytest.raises(InvalidParams, match="too short"):
        client.call_tool("search", {"q": "m"})


def test_tool_results_from_return_values() -> None:
    assert tool_result("hi") == {"content": [{"type": "text", "text": "hi"}]}
    assert tool_result(None) == {"content": [{"type": "text", "text": "null"}]}
    assert tool_result(3) == {"content": [{"type": "text", "text": "3"}]}
    assert tool_result({"a": 1}) == {"content": [{"type": "text", "text": '{"a": 1}'}]}
    given = {"content": [{"type": "text", "text": "custom"}], "isError": True}
    assert tool_result(given) == given
    assert tool_result(["a", {"type": "text", "text": "b"}]) == {
        "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}


def test_tools_call_without_a_name_is_invalid_params() -> None:
    server = Server("s")
    with pytest.raises(InvalidParams, match='"name"'):
        server.tools.call(None, {"arguments": {}})
    with pytest.raises(InvalidParams, match="arguments"):
        server.tool()(lambda: None)
        server.tools.call(None, {"name": "<lambda>", "arguments": [1]})


def test_a_tool_may_raise_a_protocol_error_on_purpose(memory_client: Callable[..., Client]) -> None:
    server = Server("strict")

    @server.tool()
    def divide(a: float, b: float) -> str:
        if b == 0:
            raise InvalidParams("b must not be zero")
        return str(a / b)

    client = memory_client(server)
    with pytest.raises(InvalidParams, match="zero"):
        client.call_tool("divide", {"a": 1, "b": 0})


def test_bare_decorators_and_non_dict_handler_results(memory_client: Callable[..., Client]) -> None:
    server = Server("bare")

    @server.tool
    def double(x: int) -> int:
        return 2 * x

    @server.prompt
    def hello() -> str:
        return "hi"

    server.request_handlers["test/list"] = lambda ctx: [1, 2]  # type: ignore[arg-type,return-value]
    client = memory_client(server)
    assert client.call_tool("double", {"x": 4})["content"][0]["text"] == "8"
    assert client.get_prompt("hello")["messages"][0]["content"]["text"] == "hi"
    from mcp_ref import InternalError

    with pytest.raises(InternalError):
        client.request("test/list")  # a result must be an object: -32603, not a malformed answer


def test_rate_limits_per_session(memory_client: Callable[..., Client]) -> None:
    from mcp_ref import RateLimited

    server = Server("limited", rate_limits={"tools/call": (20.0, 3)})
    server.tool(name="noop")(lambda: "ok")
    first = memory_client(server)
    for _ in range(3):  # a burst of 3 is allowed (TOOL-10)
        first.call_tool("noop")
    with pytest.raises(RateLimited) as info:
        first.call_tool("noop")
    assert info.value.code == -32010 and 0 < info.value.data["retryAfter"] <= 0.05
    first.list_tools()  # other methods are not limited
    second = memory_client(server)
    second.call_tool("noop")  # each session has its own bucket
    time.sleep(0.06)
    first.call_tool("noop")  # and tokens come back


def test_a_missing_required_argument_is_named_in_data_field(memory_client: Callable[..., Client], tap: Any) -> None:
    server = Server("fields")

    @server.tool()
    def place(name: str, x: int, y: int = 0) -> str:
        return name

    client = memory_client(server, protocol_versions=["2025-06-18"])  # -32602 before 2025-11-25
    for arguments, field in [({"x": 1}, "name"), ({"name": "a"}, "x"), ({"name": "a", "x": "one"}, "x")]:
        with tap.deliberately_invalid(), pytest.raises(InvalidParams) as info:
            client.call_tool("place", arguments)
        assert info.value.data["field"] == field and f"at {field!r}" in info.value.message


@pytest.mark.parametrize("raised, said", [
    (KeyError("no item called 'ghost'"), "no item called 'ghost'"),  # str(KeyError) would quote it again
    (KeyError("ghost"), "ghost"),
    (KeyError(), "KeyError"),
    (ValueError("it's 'broken'"), "it's 'broken'"),
    (RuntimeError(), "RuntimeError"),
])
def test_a_tool_s_exception_reads_as_its_author_wrote_it(memory_client: Callable[..., Client], raised: Exception,
                                                          said: str) -> None:
    server = Server("raising")

    @server.tool()
    def remove() -> str:
        raise raised

    result = memory_client(server).call_tool("remove")
    assert result["isError"] is True
    assert result["content"][0]["text"] == f"Tool 'remove' failed: {said}"


UNION_CASES = [  # (arguments, what the -32602 says)
    ({"year": "1961"}, "'1961' is not of type 'integer' or 'null'"),
    ({"year": 1.5}, "1.5 is not of type 'integer' or 'null'"),
    ({"tags": "x"}, "'x' is not of type 'array' or 'integer'"),
    ({"tags": ["a", 3]}, "3 is not of type 'string'"),  # of a type a choice takes: what that choice found wrong
    ({"mode": 7}, "7 is not of type 'string' or 'boolean'"),
]


@pytest.mark.parametrize(("arguments", "says"), UNION_CASES)
def test_an_argument_of_none_of_a_unions_types_names_the_types_expected(
        memory_client: Callable[..., Client], arguments: dict[str, Any], says: str) -> None:
    """``year: int | None`` given "1961": the error names integer and null, not "any of the given schemas"."""
    server = Server("unions")

    @server.tool()
    def catalogue(year: int | None = None, tags: list[str] | int = 0, mode: str | bool = "all") -> str:
        return "ok"

    client = memory_client(server, protocol_versions=["2025-06-18"])  # -32602 before 2025-11-25
    with pytest.raises(InvalidParams) as info:
        client.call_tool("catalogue", arguments)
    assert says in info.value.message and "any of the given schemas" not in info.value.message


def test_a_schema_that_is_not_json_schema_is_refused_at_registration() -> None:
    """``"type": "str"`` is no JSON Schema type: the author hears it when registering, not at the first call."""
    server = Server("bad-schema")
    with pytest.raises(ValueError, match="not a valid JSON Schema.*properties/n/type"):
        server.tool(input_schema={"type": "object", "properties": {"n": {"type": "str"}}})(lambda n: n)
