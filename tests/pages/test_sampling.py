"""client/sampling: a server's tool asks the client's model, with requests from inside handlers.

https://modelcontextprotocol.io/specification/2024-11-05/client/sampling
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from mcp_ref import Client, InternalError, InvalidParams, McpError, MethodNotFound, RequestContext, SamplingRejected, Server
from mcp_ref.lifecycle import since
from mcp_ref.sampling import SAMPLING_KINDS, answer, check_params

ANSWER = {"role": "assistant", "content": {"type": "text", "text": "forty-two"}, "model": "fake-1", "stopReason": "endTurn"}


def test_sampling_round_trip_and_capability(connect: Callable[..., Client], tap: Any) -> None:
    requests: list[dict[str, Any]] = []

    def handler(params: dict[str, Any]) -> dict[str, Any]:
        requests.append(params)
        return ANSWER

    client = connect(sampling_handler=handler)
    assert tap.messages[0][1]["params"]["capabilities"] == {"sampling": {}}  # SAMP-05
    result = client.call_tool("ask_model", {"question": "What is the answer?"})
    assert result == {"content": [{"type": "text", "text": "fake-1 says: forty-two"}]}
    (params,) = requests
    assert params["messages"] == [{"role": "user", "content": {"type": "text", "text": "What is the answer?"}}]
    assert params["maxTokens"] == 100 and params["systemPrompt"] == "Answer briefly."
    assert params["modelPreferences"] == {"hints": [{"name": "small"}], "speedPriority": 0.8}


def test_rejection_and_failures_become_iserror_and_the_session_keeps_serving(connect: Callable[..., Client]) -> None:
    behaviour = {"mode": "reject"}

    def handler(params: dict[str, Any]) -> Any:
        if behaviour["mode"] == "reject":
            raise SamplingRejected()  # the spec's example: code -1
        if behaviour["mode"] == "crash":
            raise RuntimeError("model server unreachable")
        if behaviour["mode"] == "garbage":
            return {"not": "a result"}
        return "plain text is fine too"

    client = connect(sampling_handler=handler)
    rejected = client.call_tool("ask_model")
    assert rejected["isError"] is True and "User rejected sampling request" in rejected["content"][0]["text"]
    behaviour["mode"] = "crash"
    crashed = client.call_tool("ask_model")
    assert crashed["isError"] is True and "unreachable" not in crashed["content"][0]["text"]  # -32603, no internals
    behaviour["mode"] = "garbage"
    assert client.call_tool("ask_model")["isError"] is True  # SAMP-09: checked before it is sent
    behaviour["mode"] = "text"
    assert client.call_tool("ask_model")["content"][0]["text"] == "unknown says: plain text is fine too"


def test_server_refuses_locally_when_client_has_no_sampling(memory_client: Callable[..., Client], tap: Any) -> None:
    server = Server("asker")
    outcome: dict[str, Any] = {}

    @server.tool()
    def ask(ctx: RequestContext) -> str:
        try:
            ctx.create_message(["hi"], max_tokens=5)
        except McpError as exc:
            outcome["error"] = exc
        return "done"

    client = memory_client(server)
    assert client.call_tool("ask")["content"][0]["text"] == "done"
    assert isinstance(outcome["error"], MethodNotFound) and "sampling" in outcome["error"].message
    assert "sampling/createMessage" not in tap.methods("<-")  # nothing was sent


def test_client_without_handler_answers_32601(memory_client: Callable[..., Client]) -> None:
    server = Server("raw")
    server.request_handlers["test/sample"] = lambda ctx: ctx.request(
        "sampling/createMessage", {"messages": [], "maxTokens": 1})
    client = memory_client(server)
    with pytest.raises(MethodNotFound, match="no sampling handler"):
        client.request("test/sample")


TEXT = {"type": "text", "text": "x"}


@pytest.mark.parametrize("params, field", [
    ({"messages": [], "maxTokens": True}, "maxTokens"),
    ({"messages": [], "maxTokens": "100"}, "maxTokens"),
    ({"messages": "hi", "maxTokens": 1}, "messages"),
    ({"messages": [1], "maxTokens": 1}, "messages.0"),
    ({"messages": [{"role": "user", "content": TEXT}, {"role": "user", "content": {"type": "text"}}], "maxTokens": 1},
     "messages.1"),
    ({"messages": [{"role": "system", "content": TEXT}], "maxTokens": 1}, "messages.0"),
    ({"messages": [{"role": "user", "content": "x"}], "maxTokens": 1}, "messages.0"),
    ({"messages": [{"role": "user", "content": {"type": "resource", "resource": {"uri": "a:b", "text": "x"}}}],
      "maxTokens": 1}, "messages.0"),
    ({"messages": [], "maxTokens": 1, "systemPrompt": ["s"]}, "systemPrompt"),
    ({"messages": [], "maxTokens": 1, "includeContext": "everything"}, "includeContext"),
    ({"messages": [], "maxTokens": 1, "temperature": "hot"}, "temperature"),
    ({"messages": [], "maxTokens": 1, "stopSequences": "x"}, "stopSequences"),
    ({"messages": [], "maxTokens": 1, "metadata": [1]}, "metadata"),
    ({"messages": [], "maxTokens": 1, "modelPreferences": "fast"}, "modelPreferences"),
])
def test_malformed_sampling_params_are_32602_naming_the_field_before_the_handler_runs(
        memory_client: Callable[..., Client], tap: Any, params: dict[str, Any], field: str) -> None:
    """SAMP-09: a handler written for well-formed requests never meets a malformed one."""
    seen: list[Any] = []
    server = Server("raw")
    server.request_handlers["test/sample"] = lambda ctx: ctx.request("sampling/createMessage", ctx.params)
    client = memory_client(server, sampling_handler=lambda p: seen.append(p) or "ok")
    with tap.deliberately_invalid(), pytest.raises(InvalidParams) as info:
        client.request("test/sample", params)
    assert info.value.data == {"field": field} and seen == []
    assert client.request("test/sample", {"messages": [{"role": "user", "content": TEXT}], "maxTokens": 1})["model"]


def test_a_tool_that_samples_while_other_calls_are_in_flight(connect: Callable[..., Client]) -> None:
    def slow_model(params: dict[str, Any]) -> dict[str, Any]:
        time.sleep(0.2)
        return ANSWER

    client = connect(sampling_handler=slow_model)
    results: list[Any] = []
    errors: list[BaseException] = []

    def run(call: Callable[[], Any]) -> None:
        try:
            results.append(call())
        except BaseException as exc:
            errors.append(exc)

    calls: list[Callable[[], Any]] = [lambda: client.call_tool("ask_model")] * 4 + [
        lambda: client.call_tool("add", {"a": 1, "b": 2})] * 4 + [client.ping] * 4
    threads = [threading.Thread(target=run, args=(c,)) for c in calls]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert not errors and len(results) == 12
    assert time.monotonic() - start < 5


def test_several_nested_requests_in_sequence(memory_client: Callable[..., Client]) -> None:
    server = Server("nested")

    @server.tool()
    def chain(ctx: RequestContext) -> str:
        answers = [ctx.create_message([f"step {i}"], max_tokens=10)["content"]["text"] for i in range(3)]
        roots = ctx.list_roots()
        ctx.request("ping")
        return f"{answers} {len(roots)}"

    def echo_model(params: dict[str, Any]) -> dict[str, Any]:
        return {**ANSWER, "content": {"type": "text", "text": params["messages"][0]["content"]["text"]}}

    client = memory_client(server, sampling_handler=echo_model, roots=[{"uri": "file:///tmp"}])
    assert client.call_tool("chain")["content"][0]["text"] == "['step 0', 'step 1', 'step 2'] 1"


def test_sampling_timeout_gives_the_tool_an_error_and_cancels_the_handler(memory_client: Callable[..., Client]) -> None:
    server = Server("impatient")
    cancelled = threading.Event()

    @server.tool()
    def ask(ctx: RequestContext) -> str:
        return ctx.create_message(["hi"], max_tokens=5, timeout=0.2)["model"]

    def stuck_model(params: dict[str, Any]) -> dict[str, Any]:
        time.sleep(1)
        return ANSWER

    client = memory_client(server, sampling_handler=stuck_model)
    client.request_handlers["sampling/createMessage"] = lambda ctx: (
        cancelled.set() if ctx.cancelled.wait(3) else None, ANSWER)[1]
    result = client.call_tool("ask")
    assert result["isError"] is True and "no response within 0.2 s" in result["content"][0]["text"]
    assert cancelled.wait(3)  # the client's handler saw notifications/cancelled
    client.ping()


def test_create_message_params_are_built_as_on_the_wire() -> None:
    from mcp_ref.sampling import create_message_params

    params = create_message_params(
        [{"role": "assistant", "content": {"type": "text", "text": "a"}}, "b"], 50, system_prompt="s",
        include_context="thisServer", temperature=0.5, stop_sequences=["\n"], metadata={"k": 1})
    assert params == {"messages": [{"role": "assistant", "content": {"type": "text", "text": "a"}},
                                   {"role": "user", "content": {"type": "text", "text": "b"}}],
                      "maxTokens": 50, "systemPrompt": "s", "includeContext": "thisServer", "temperature": 0.5,
                      "stopSequences": ["\n"], "metadata": {"k": 1}}
    with pytest.raises(ValueError):
        create_message_params([], 1, include_context="everything")


WEATHER = {"name": "weather", "description": "The weather in a city",
           "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
TOOL_USE = {"type": "tool_use", "id": "call-1", "name": "weather", "input": {"city": "Paris"}}


def sampling_with_tools(outcome: dict[str, Any], **options: Any) -> Server:
    server = Server("agent")

    @server.tool()
    def plan(ctx: RequestContext) -> str:
        try:
            outcome["first"] = ctx.create_message(["Weather in Paris?"], 50, tools=[WEATHER], tool_choice="auto", **options)
            outcome["second"] = ctx.create_message(
                ["Weather in Paris?", {"role": "assistant", "content": [TOOL_USE]},
                 {"role": "user", "content": [{"type": "tool_result", "toolUseId": "call-1",
                                               "content": [{"type": "text", "text": "sunny"}]}]}], 50, tools=[WEATHER])
        except McpError as exc:
            outcome["error"] = exc
        return "done"
    return server


def test_tools_in_sampling_reach_a_2025_11_25_client_that_declared_them(
        memory_client: Callable[..., Client], tap: Any) -> None:
    """revisions/v2025_11_25.py, item 3: tools and toolChoice; tool_use and tool_result content pass."""
    seen: list[dict[str, Any]] = []

    def model(params: dict[str, Any]) -> dict[str, Any]:
        seen.append(params)
        if len(seen) == 1:
            return {"role": "assistant", "content": [TOOL_USE], "model": "m", "stopReason": "toolUse"}
        return {"role": "assistant", "content": {"type": "text", "text": "Sunny."}, "model": "m"}

    outcome: dict[str, Any] = {}
    client = memory_client(sampling_with_tools(outcome), sampling_handler=model, sampling_tools=True)
    with tap.deliberately_invalid():  # tool content is not in the 2024-11-05 schema the tap checks
        client.call_tool("plan")
    assert tap.messages[0][1]["params"]["capabilities"]["sampling"] == {"tools": {}}
    assert "error" not in outcome and outcome["first"]["content"] == [TOOL_USE]
    assert seen[0]["tools"] == [WEATHER] and seen[0]["toolChoice"] == {"mode": "auto"}
    assert seen[1]["messages"][2]["content"][0]["toolUseId"] == "call-1"
    assert outcome["second"]["content"]["text"] == "Sunny."


@pytest.mark.parametrize("versions, tools, refusal", [
    (["2025-11-25"], False, "did not declare sampling.tools"),
    (["2025-06-18"], True, "tools in sampling came with MCP 2025-11-25"),
])
def test_tools_are_refused_locally_where_the_client_cannot_take_them(
        memory_client: Callable[..., Client], tap: Any, versions: list[str], tools: bool, refusal: str) -> None:
    outcome: dict[str, Any] = {}
    client = memory_client(sampling_with_tools(outcome), sampling_handler=lambda p: "x", sampling_tools=tools,
                           protocol_versions=versions)
    client.call_tool("plan")
    assert refusal in outcome["error"].message and "sampling/createMessage" not in tap.methods("<-")


def test_a_client_without_sampling_tools_answers_32602_to_tools(memory_client: Callable[..., Client], tap: Any) -> None:
    seen: list[Any] = []
    server = Server("raw")
    server.request_handlers["test/sample"] = lambda ctx: ctx.request("sampling/createMessage", ctx.params)
    client = memory_client(server, sampling_handler=lambda p: seen.append(p) or "ok")
    with pytest.raises(InvalidParams, match="sampling.tools"):
        client.request("test/sample", {"messages": [], "maxTokens": 1, "tools": [WEATHER]})
    assert seen == []
    with pytest.raises(ValueError, match="sampling_tools=True"):
        Client.in_memory(server, sampling_tools=True)


@pytest.mark.parametrize("version, refused", [("2025-06-18", False), ("2025-11-25", True)])
def test_include_context_other_than_none_needs_sampling_context_from_2025_11_25(
        memory_client: Callable[..., Client], version: str, refused: bool) -> None:
    """Soft-deprecated in 2025-11-25: thisServer/allServers only for a client that declared sampling.context."""
    server = Server("asker")
    outcome: dict[str, Any] = {}

    @server.tool()
    def ask(ctx: RequestContext) -> str:
        try:
            outcome["result"] = ctx.create_message(["hi"], 5, include_context="thisServer")
        except McpError as exc:
            outcome["error"] = exc
        return "done"

    client = memory_client(server, sampling_handler=lambda p: "x", protocol_versions=[version])
    client.call_tool("ask")
    assert ("error" in outcome) is refused
    if refused:
        assert "sampling.context" in outcome["error"].message


# --- content kinds across revisions (sampling.SAMPLING_KINDS), both ways ---------------------------

REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
PNG = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
WAV = {"type": "audio", "data": "UklGRgAAAABXQVZF", "mimeType": "audio/wav"}
MESSAGES = {  # one message holding each kind of content item there is
    "text": {"role": "user", "content": TEXT},
    "image": {"role": "user", "content": PNG},
    "audio": {"role": "user", "content": WAV},
    "tool_use": {"role": "assistant", "content": TOOL_USE},
    "tool_result": {"role": "user", "content": {"type": "tool_result", "toolUseId": "call-1", "content": [TEXT]}},
    "resource": {"role": "user", "content": {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "x"}}},
    "resource_link": {"role": "user", "content": {"type": "resource_link", "uri": "file:///a.txt", "name": "a"}},
}
# What a client of each revision (REVISIONS, in order) is sent for each kind, from ctx.create_message:
# "as is", "stand-in" (content.stand_in's text, as a tool result gets), or "refused" (ValueError, nothing sent).
SENT = {
    "text": ("as is", "as is", "as is", "as is"),
    "image": ("as is", "as is", "as is", "as is"),
    "audio": ("stand-in", "as is", "as is", "as is"),
    "tool_use": ("refused", "refused", "refused", "as is"),  # a 2025-11-25 client that declared sampling.tools
    "tool_result": ("refused", "refused", "refused", "as is"),
    "resource": ("refused", "refused", "refused", "refused"),  # in no revision's SamplingMessage
    "resource_link": ("refused", "refused", "refused", "refused"),
}
CASES = [(kind, revision, outcome) for kind, outcomes in SENT.items()
         for revision, outcome in zip(REVISIONS, outcomes, strict=True)]


@pytest.mark.parametrize("kind, revision, outcome", CASES)
def test_a_server_sends_each_kind_only_to_a_revision_that_has_it(
        memory_client: Callable[..., Client], tap: Any, kind: str, revision: str, outcome: str) -> None:
    """The tap checks every message against the schema of the revision agreed on: what is sent is valid there."""
    seen: list[dict[str, Any]] = []
    outcomes: dict[str, Any] = {}
    server = Server("asker")

    @server.tool()
    def ask(ctx: RequestContext) -> str:
        try:
            outcomes["result"] = ctx.create_message([MESSAGES[kind]], 10)
        except ValueError as exc:
            outcomes["error"] = exc
        return "done"

    client = memory_client(server, sampling_handler=lambda p: seen.append(p) or "ok", sampling_tools=True,
                           protocol_versions=[revision])
    assert client.call_tool("ask")["content"][0]["text"] == "done"
    if outcome == "refused":
        assert seen == [] and "sampling/createMessage" not in tap.methods("<-")
        assert f"not {kind!r}" in str(outcomes["error"]) and "not sent" in str(outcomes["error"])
        return
    (params,) = seen
    content = params["messages"][0]["content"]
    if outcome == "as is":
        assert content == MESSAGES[kind]["content"]
    else:
        assert content["type"] == "text" and "audio clip (audio/wav) was left out" in content["text"]
        assert f"MCP {revision}" in content["text"]


def test_tool_content_goes_only_to_a_client_that_declared_sampling_tools(memory_client: Callable[..., Client],
                                                                          tap: Any) -> None:
    outcomes: dict[str, Any] = {}
    server = Server("asker")

    @server.tool()
    def ask(ctx: RequestContext) -> str:
        try:
            ctx.create_message([MESSAGES["tool_use"]], 10)
        except ValueError as exc:
            outcomes["error"] = exc
        return "done"

    client = memory_client(server, sampling_handler=lambda p: "ok", protocol_versions=["2025-11-25"])
    client.call_tool("ask")
    assert "'tool_use'" in str(outcomes["error"]) and "sampling/createMessage" not in tap.methods("<-")


def revision_aware(client: Client) -> Client:
    """The client's sampling/createMessage entry, handing ``sampling.answer`` the session's revision
    (``version=``) as client.py's entry is to do (today it hands none: the newest revision's kinds)."""
    client.request_handlers["sampling/createMessage"] = lambda ctx: answer(
        client.sampling_handler, ctx.params, ctx.session.lifecycle.capabilities.get("sampling"),
        ctx.session.lifecycle.protocol_version)
    return client


# Whether a client of each revision takes each kind (it declared sampling.tools where it could).
TAKEN = [(kind, revision, outcome == "as is") for kind, revision, outcome in CASES]


@pytest.mark.parametrize("kind, revision, taken", TAKEN)
def test_a_client_answers_32602_to_a_kind_its_revision_lacks(
        memory_client: Callable[..., Client], tap: Any, kind: str, revision: str, taken: bool) -> None:
    """SAMP-09, per revision: a server that skips its own checks (a raw request) meets the client's."""
    seen: list[Any] = []
    server = Server("raw")
    server.request_handlers["test/sample"] = lambda ctx: ctx.request("sampling/createMessage", ctx.params)
    client = revision_aware(memory_client(server, sampling_handler=lambda p: seen.append(p) or "ok", sampling_tools=True,
                                          protocol_versions=[revision]))
    params = {"messages": [MESSAGES[kind]], "maxTokens": 5}
    if taken:
        assert client.request("test/sample", params)["content"] == {"type": "text", "text": "ok"} and len(seen) == 1
        return
    with tap.deliberately_invalid(), pytest.raises(InvalidParams) as info:
        client.request("test/sample", params)
    assert info.value.data == {"field": "messages.0"} and repr(kind) in info.value.message and seen == []


@pytest.mark.parametrize("kind", ["resource", "resource_link"])
def test_a_kind_no_revision_allows_is_32602_from_any_client(memory_client: Callable[..., Client], tap: Any,
                                                            kind: str) -> None:
    """Without a revision to go by (the entry client.py installs today), the newest revision's kinds."""
    seen: list[Any] = []
    server = Server("raw")
    server.request_handlers["test/sample"] = lambda ctx: ctx.request("sampling/createMessage", ctx.params)
    client = memory_client(server, sampling_handler=lambda p: seen.append(p) or "ok", sampling_tools=True)
    with tap.deliberately_invalid(), pytest.raises(InvalidParams) as info:
        client.request("test/sample", {"messages": [MESSAGES[kind]], "maxTokens": 5})
    assert info.value.data == {"field": "messages.0"} and seen == []


@pytest.mark.parametrize("kind", list(MESSAGES))
@pytest.mark.parametrize("revision", REVISIONS)
@pytest.mark.parametrize("tools", [False, True])
def test_check_params_follows_the_table(kind: str, revision: str, tools: bool) -> None:
    """The client's check alone: each kind against each revision, with and without sampling.tools."""
    allowed = SAMPLING_KINDS.get(kind)
    expected = allowed is not None and since(revision, allowed) and (tools or not kind.startswith("tool_"))
    params = {"messages": [MESSAGES[kind]], "maxTokens": 5}
    if expected:
        check_params(params, tools, revision)
    else:
        with pytest.raises(InvalidParams, match=f"not {kind!r}"):
            check_params(params, tools, revision)


@pytest.mark.parametrize("revision, taken", [("2024-11-05", False), ("2025-06-18", False), ("2025-11-25", True)])
def test_a_list_of_content_is_taken_from_2025_11_25_on_with_or_without_tools(revision: str, taken: bool) -> None:
    """The schema of 2025-11-25 lets a message's content be a list of items, tools or not."""
    params = {"messages": [{"role": "user", "content": [TEXT, PNG]}], "maxTokens": 5}
    if taken:
        check_params(params, False, revision)
    else:
        with pytest.raises(InvalidParams, match="must be an object, not list"):
            check_params(params, True, revision)


@pytest.mark.parametrize("kind, revision, taken", TAKEN)
def test_the_handler_s_result_keeps_to_the_revision_too(kind: str, revision: str, taken: bool) -> None:
    """SAMP-09 on the way back: a handler that answers with a kind the session lacks is -32603, not sent."""
    result = {**MESSAGES[kind], "role": "assistant", "model": "m"}
    params = {"messages": [MESSAGES["text"]], "maxTokens": 5}
    if taken:
        assert answer(lambda p: result, params, {"tools": {}}, revision) == result
    else:
        with pytest.raises(InternalError, match="invalid result"):
            answer(lambda p: result, params, {"tools": {}}, revision)
