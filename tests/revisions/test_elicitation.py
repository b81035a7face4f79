"""Elicitation (mcp_ref/revisions/elicitation.py), both sides, in every revision a session can agree on.

https://modelcontextprotocol.io/specification/2025-06-18/client/elicitation
https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation
A server whose tools ask the user (``ctx.elicit``, ``ctx.elicit_url``) and our client with an
``elicitation_handler``, in memory for the table of revisions, over stdio once; the person at
the terminal played by a list of answers.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from typing import Any

import pytest

from mcp_ref import Client, RequestContext, Server
from mcp_ref.lifecycle import REVISIONS
from mcp_ref.revisions.elicitation import ask_in_terminal, requested_schema

NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
               "required": ["name"]}


def asking_server() -> Server:
    server = Server("asking")

    @server.tool()
    def greet(ctx: RequestContext) -> str:
        """Ask the user's name."""
        answer = ctx.elicit("What is your name?", NAME_SCHEMA)
        return f"{answer['action']}: {answer.get('content')}"

    @server.tool()
    def visit(ctx: RequestContext) -> str:
        """Send the user to a page."""
        answer = ctx.elicit_url("Sign in to the weather service", "https://example.com/login?x=1", "e-1")
        ctx.elicitation_complete("e-1")
        return answer["action"]

    return server


@pytest.mark.parametrize("version", REVISIONS)
def test_form_elicitation_reaches_the_handler_only_from_2025_06_18(
        version: str, memory_client: Callable[..., Client]) -> None:
    asked: list[dict[str, Any]] = []

    def handler(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept", "content": {"name": "Ada", "age": 36}}

    client = memory_client(asking_server(), elicitation_handler=handler, protocol_versions=[version])
    result = client.call_tool("greet")
    if version in ("2024-11-05", "2025-03-26"):  # no elicitation in these revisions: refused before sending
        assert result["isError"] and f"speaks MCP {version}, which has no elicitation" in result["content"][0]["text"]
        assert asked == [] and "elicitation" not in client.session.lifecycle.capabilities
        return
    assert result["content"][0]["text"] == "accept: {'name': 'Ada', 'age': 36}"
    assert asked[0]["message"] == "What is your name?" and asked[0]["requestedSchema"] == NAME_SCHEMA
    assert asked[0].get("mode") == ("form" if version == "2025-11-25" else None)  # ELICU-05: mode from 2025-11-25
    declared = client.session.lifecycle.capabilities["elicitation"]
    assert declared == ({"form": {}, "url": {}} if version == "2025-11-25" else {})


def test_a_client_without_a_handler_declares_nothing_and_is_never_asked(memory_client: Callable[..., Client]) -> None:
    client = memory_client(asking_server())
    assert "elicitation" not in client.session.lifecycle.capabilities
    result = client.call_tool("greet")
    assert result["isError"] and "did not declare the 'elicitation' capability" in result["content"][0]["text"]


@pytest.mark.parametrize(("answer", "says"), [
    ({"action": "accept", "content": {"age": 36}}, "'name' is a required property"),
    ({"action": "accept", "content": {"name": "Ada", "age": "old"}}, "content.age"),
    ({"action": "accept"}, 'needs "content"'),
    ({"action": "maybe"}, '"action" must be one of accept, decline, cancel'),
    ("Ada", '"action" must be one of'),
])
def test_a_handler_answer_that_breaks_the_schema_fails_loudly(
        answer: Any, says: str, memory_client: Callable[..., Client]) -> None:
    client = memory_client(asking_server(), elicitation_handler=lambda params: answer)
    result = client.call_tool("greet")  # the client answers -32603 saying why; the tool reports it
    assert result["isError"] and "the elicitation handler returned an invalid answer" in result["content"][0]["text"]
    assert says in result["content"][0]["text"]


@pytest.mark.parametrize("answer", [{"action": "decline"}, {"action": "cancel"}])
def test_decline_and_cancel_reach_the_tool(answer: dict[str, Any], memory_client: Callable[..., Client]) -> None:
    client = memory_client(asking_server(), elicitation_handler=lambda params: answer)
    assert client.call_tool("greet")["content"][0]["text"] == f"{answer['action']}: None"


def test_the_server_checks_the_answer_even_from_a_client_that_does_not(memory_client: Callable[..., Client]) -> None:
    client = memory_client(asking_server(), elicitation_handler=lambda params: {"action": "accept"})
    client.request_handlers["elicitation/create"] = lambda ctx: {"action": "accept", "content": {"name": 7}}
    result = client.call_tool("greet")
    assert result["isError"] and "content.name: 7 is not of type 'string'" in result["content"][0]["text"]


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_url_elicitation_only_in_2025_11_25_and_its_completion(
        version: str, memory_client: Callable[..., Client]) -> None:
    asked: list[dict[str, Any]] = []
    heard: list[tuple[str, dict[str, Any]]] = []
    client = memory_client(asking_server(), protocol_versions=[version],
                           elicitation_handler=lambda params: (asked.append(params), {"action": "accept"})[1],
                           on_notification=lambda method, params: heard.append((method, params)))
    result = client.call_tool("visit")
    if version == "2025-06-18":
        assert result["isError"] and "has no URL elicitation" in result["content"][0]["text"] and asked == []
        return
    assert result["content"][0]["text"] == "accept"
    assert asked == [{"mode": "url", "message": "Sign in to the weather service",
                      "url": "https://example.com/login?x=1", "elicitationId": "e-1"}]
    assert ("notifications/elicitation/complete", {"elicitationId": "e-1"}) in heard


def test_a_url_request_in_a_2025_06_18_session_is_invalid_params(memory_client: Callable[..., Client], tap: Any) -> None:
    from mcp_ref import InvalidParams

    server = Server("raw-asker")
    refusals: list[Any] = []

    @server.tool()
    def force(ctx: RequestContext) -> str:
        try:
            ctx.request("elicitation/create", {"mode": "url", "message": "m", "url": "https://x", "elicitationId": "1"})
        except InvalidParams as exc:
            refusals.append(exc.message)
        return "done"

    client = memory_client(server, protocol_versions=["2025-06-18"], elicitation_handler=lambda p: {"action": "accept"})
    with tap.deliberately_invalid():  # a URL request is not a message of 2025-06-18
        client.call_tool("force")
    assert refusals and "mode 'url'" in refusals[0]  # ELICU-22


def test_the_shorthand_schema_and_what_a_schema_may_not_hold() -> None:
    assert requested_schema({"name": str, "age": int, "ok": bool, "color": ["red", "green"]}) == {
        "type": "object", "required": ["name", "age", "ok", "color"], "properties": {
            "name": {"type": "string"}, "age": {"type": "integer"}, "ok": {"type": "boolean"},
            "color": {"type": "string", "enum": ["red", "green"]}}}
    multi = {"type": "object", "properties": {"tags": {"type": "array", "items": {"enum": ["a", "b"]}}}}
    assert requested_schema(multi) is multi  # 2025-11-25's multi-select
    for bad in ({"where": dict}, {"type": "object", "properties": {"a": {"type": "object"}}}, {"type": "object"}, []):
        with pytest.raises(ValueError):
            requested_schema(bad)  # type: ignore[arg-type]


def test_a_tool_with_a_bad_schema_fails_before_anything_is_sent(memory_client: Callable[..., Client]) -> None:
    server = Server("bad")
    asked: list[Any] = []

    @server.tool()
    def nested(ctx: RequestContext) -> str:
        return str(ctx.elicit("address?", {"type": "object", "properties": {"home": {"type": "object"}}}))

    client = memory_client(server, elicitation_handler=lambda params: asked.append(params) or {"action": "cancel"})
    result = client.call_tool("nested")
    assert result["isError"] and "no nested objects" in result["content"][0]["text"] and asked == []


def test_ask_in_terminal_asks_each_field_with_its_default_and_choices() -> None:
    schema = {"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string", "title": "Your name"}, "age": {"type": "integer", "default": 30},
        "color": {"type": "string", "enum": ["red", "green"]}, "ok": {"type": "boolean"}}}
    typed = iter(["Ada", "", "blue", "green", "maybe", "yes"])
    shown = io.StringIO()
    answer = ask_in_terminal({"message": "Tell me", "requestedSchema": schema}, ask=lambda prompt: next(typed), out=shown)
    assert answer == {"action": "accept", "content": {"name": "Ada", "age": 30, "color": "green", "ok": True}}
    assert "Tell me" in shown.getvalue() and "try again" in shown.getvalue()  # "blue" and "maybe" were asked again
    assert ask_in_terminal({"message": "m", "requestedSchema": schema}, ask=lambda p: "!decline", out=shown) == {
        "action": "decline"}

    def closed(prompt: str) -> str:
        raise EOFError

    assert ask_in_terminal({"message": "m", "requestedSchema": schema}, ask=closed, out=shown) == {"action": "cancel"}


def test_ask_in_terminal_shows_the_whole_url_and_its_host_and_opens_nothing() -> None:
    shown = io.StringIO()
    params = {"mode": "url", "message": "Sign in", "url": "https://xn--pple-43d.example/login", "elicitationId": "1"}
    assert ask_in_terminal(params, ask=lambda prompt: "n", out=shown) == {"action": "decline"}
    assert "https://xn--pple-43d.example/login" in shown.getvalue() and "host: xn--pple-43d.example" in shown.getvalue()
    assert ask_in_terminal(params, ask=lambda prompt: "y", out=shown) == {"action": "accept"}


def test_elicitation_over_stdio_with_a_server_process() -> None:
    answers: list[dict[str, Any]] = []
    command = [sys.executable, "-m", "mcp_ref", "serve", "tests/peers/later_server.py:server"]
    with Client.stdio(command, timeout=20, elicitation_handler=lambda params: (
            answers.append(params), {"action": "accept", "content": {"city": "Oslo"}})[1]) as client:
        assert client.protocol_version == "2025-11-25"
        assert client.call_tool("where")["content"][0]["text"] == "Oslo"
    assert answers[0]["mode"] == "form" and answers[0]["requestedSchema"]["properties"]["city"] == {"type": "string"}
