"""client/elicitation, both sides against each other, in every revision mcp_ref speaks.

https://modelcontextprotocol.io/specification/2025-06-18/client/elicitation
https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation
A 2024-11-05 or 2025-03-26 session never sees ``elicitation/create``; 2025-06-18 has form mode;
2025-11-25 adds URL mode, ``notifications/elicitation/complete`` and error -32042.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable
from typing import Any

import pytest

from mcp_ref import Client, InvalidParams, McpError, MethodNotFound, RequestContext, Server
from mcp_ref.revisions import elicitation
from mcp_ref.revisions.elicitation_schema import requested_schema
from mcp_ref.revisions.stateless_client import ALL_VERSIONS

from ..conftest import HANDSHAKE, ROOT, server_command

ELICITING = str(ROOT / "tests" / "peers" / "eliciting_server.py") + ":server"
ADA = {"name": "Ada", "age": 36}


def person(params: dict[str, Any]) -> dict[str, Any]:
    """A handler that accepts every form with ADA and every URL."""
    return {"action": "accept"} if params.get("mode") == "url" else {"action": "accept", "content": ADA}


def eliciting_server() -> Server:
    """The peer server of tests/peers, in this process."""
    sys.path.insert(0, str(ROOT / "tests" / "peers"))
    try:
        import eliciting_server
    finally:
        sys.path.pop(0)
    return eliciting_server.server  # type: ignore[no-any-return]


def sent(tap: Any, method: str) -> list[dict[str, Any]]:
    """The params of every ``method`` the server sent (as the client's tap saw it)."""
    return [m.get("params", {}) for d, m in tap.messages if d == "<-" and isinstance(m, dict) and m.get("method") == method]


@pytest.mark.parametrize("version, form, url", [
    ("2024-11-05", False, False),
    ("2025-03-26", False, False),
    ("2025-06-18", True, False),
    ("2025-11-25", True, True),
])
def test_each_revision_sees_only_the_elicitation_it_has(memory_client: Callable[..., Client], tap: Any,
                                                        version: str, form: bool, url: bool) -> None:
    completed: list[tuple[str, dict[str, Any]]] = []
    client = memory_client(eliciting_server(), elicitation_handler=person, elicitation_url=True,
                           protocol_versions=[version], on_notification=lambda m, p: completed.append((m, p)))
    assert client.protocol_version == version
    declared = tap.messages[0][1]["params"]["capabilities"]
    assert declared.get("elicitation") == ({"form": {}, "url": {}} if url else {} if form else None)
    signed = client.call_tool("sign_up")
    if form:
        assert json.loads(signed["content"][0]["text"]) == {"action": "accept", "content": ADA}
        (params,) = sent(tap, "elicitation/create")
        assert params["message"] == "Please sign up" and params["requestedSchema"]["required"] == ["name", "age"]
        assert ("mode" in params) is url  # a field of 2025-11-25, never sent to an older client
    else:  # refused by the server itself: nothing goes on the wire
        assert signed["isError"] and "the client cannot be asked: this session speaks MCP " + version \
            in signed["content"][0]["text"]
        assert "elicitation/create" not in tap.methods("<-")
    paid = client.call_tool("pay")
    if url:
        assert json.loads(paid["content"][0]["text"]) == {"action": "accept"}
        assert sent(tap, "elicitation/create")[-1] == {"mode": "url", "message": "Pay for the order",
                                                        "url": "https://pay.example.com/order/7", "elicitationId": "order-7"}
        client.ping()  # the notification was sent before the tool's answer; the ping comes after it
        assert completed == [("notifications/elicitation/complete", {"elicitationId": "order-7"})]
    else:
        assert paid["isError"] and "URL-mode elicitation came with 2025-11-25" in paid["content"][0]["text"]
        assert len(sent(tap, "elicitation/create")) == int(form)


def test_no_handler_no_capability_never_asked(memory_client: Callable[..., Client], tap: Any) -> None:
    client = memory_client(eliciting_server())
    assert "elicitation" not in tap.messages[0][1]["params"]["capabilities"]
    result = client.call_tool("sign_up")
    assert result["isError"] and "did not declare the 'elicitation' capability" in result["content"][0]["text"]
    assert "elicitation/create" not in tap.methods("<-")


def test_a_client_without_url_mode_is_never_sent_one(memory_client: Callable[..., Client], tap: Any) -> None:
    client = memory_client(eliciting_server(), elicitation_handler=person)
    assert tap.messages[0][1]["params"]["capabilities"]["elicitation"] == {"form": {}}
    result = client.call_tool("pay")
    assert result["isError"] and "did not declare url-mode elicitation" in result["content"][0]["text"]
    assert "elicitation/create" not in tap.methods("<-")
    with pytest.raises(ValueError, match="elicitation_url=True"):
        Client.in_memory(eliciting_server(), elicitation_url=True)


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_decline_and_cancel_carry_no_content(memory_client: Callable[..., Client], action: str) -> None:
    client = memory_client(eliciting_server(), elicitation_handler=lambda p: {"action": action, "content": ADA})
    assert json.loads(client.call_tool("sign_up")["content"][0]["text"]) == {"action": action}


def asking(schema: Any, outcome: dict[str, Any], version: str | None = None) -> Server:
    server = Server("asker")

    @server.tool()
    def ask(ctx: RequestContext) -> str:
        try:
            outcome["answer"] = ctx.elicit("Tell me", schema)
        except (ValueError, McpError) as exc:
            outcome["error"] = exc
        return "done"
    return server


def test_the_pythonic_schema_becomes_the_wire_one(memory_client: Callable[..., Client], tap: Any) -> None:
    outcome: dict[str, Any] = {}
    server = asking({"name": str, "age": int, "height": float, "ok": bool, "size": ["S", "M"],
                     "email": {"type": "string", "format": "email", "default": "a@b.c"}}, outcome)
    client = memory_client(server, elicitation_handler=lambda p: {"action": "accept", "content": {
        "name": "Ada", "age": 36, "height": 2, "ok": True, "size": "M"}})
    client.call_tool("ask")
    assert outcome["answer"]["content"]["size"] == "M"
    assert sent(tap, "elicitation/create")[0]["requestedSchema"] == {"type": "object", "properties": {
        "name": {"type": "string"}, "age": {"type": "integer"}, "height": {"type": "number"},
        "ok": {"type": "boolean"}, "size": {"type": "string", "enum": ["S", "M"]},
        "email": {"type": "string", "format": "email", "default": "a@b.c"}},
        "required": ["name", "age", "height", "ok", "size"]}


@pytest.mark.parametrize("schema, version, problem", [
    ({"where": {"type": "object", "properties": {}}}, "2025-11-25", "property 'where'"),
    ({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "object"}}}}, "2025-11-25",
     "multiple choice"),
    ({"n": {"type": "number", "minimum": 0, "default": -1}}, "2025-11-25", '"default"'),
    ({"n": {"type": "string", "default": "x"}}, "2025-06-18", "came with 2025-11-25"),
    ({"c": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}]}}, "2025-06-18", "came with 2025-11-25"),
    ({"n": {"type": "string", "maxlength": 3}}, "2025-11-25", "unknown keyword"),
    ({"n": {"type": "string", "format": "phone"}}, "2025-11-25", '"format"'),
    ({"n": {"type": "string", "enum": []}}, "2025-11-25", "non-empty"),
    ({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]}, "2025-11-25", "required"),
    ({"n": complex}, "2025-11-25", "a field is str"),
    ("name", "2025-11-25", "must be a dict"),
])
def test_a_schema_outside_the_rules_fails_at_the_call_before_anything_is_sent(
        memory_client: Callable[..., Client], tap: Any, schema: Any, version: str, problem: str) -> None:
    outcome: dict[str, Any] = {}
    client = memory_client(asking(schema, outcome), elicitation_handler=person, protocol_versions=[version])
    client.call_tool("ask")
    assert isinstance(outcome["error"], ValueError) and problem in str(outcome["error"])
    assert "elicitation/create" not in tap.methods("<-")


def test_the_newer_schema_forms_reach_a_2025_11_25_client(memory_client: Callable[..., Client]) -> None:
    schema = {"type": "object", "properties": {
        "color": {"type": "string", "oneOf": [{"const": "#f00", "title": "Red"}, {"const": "#0f0", "title": "Green"}],
                  "default": "#f00"},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}, "maxItems": 2},
        "count": {"type": "integer", "default": 3}}}
    outcome: dict[str, Any] = {}
    seen: list[dict[str, Any]] = []
    client = memory_client(asking(schema, outcome), elicitation_handler=lambda p: seen.append(p) or {
        "action": "accept", "content": {"color": "#0f0", "tags": ["a", "c"]}})
    client.call_tool("ask")
    assert outcome["answer"] == {"action": "accept", "content": {"color": "#0f0", "tags": ["a", "c"]}}
    assert seen[0]["requestedSchema"] == schema and seen[0]["mode"] == "form"


@pytest.mark.parametrize("answer, problem", [
    ({"action": "accept", "content": {"name": "Ada", "age": "old"}}, "'old' is not of type 'integer'"),
    ({"action": "accept", "content": {"name": "Ada"}}, "lacks required field(s): ['age']"),
    ({"action": "accept", "content": {"name": "Ada", "age": 3, "pin": "1234"}}, "did not ask for: ['pin']"),
    ({"action": "accept"}, 'an "accept" needs "content"'),
    ({"action": "maybe"}, '"action" must be one of'),
    ({"action": "accept", "content": ["Ada", 3]}, '"content" must be an object'),
])
def test_a_client_that_answers_garbage_is_a_clear_error_to_the_tool(
        memory_client: Callable[..., Client], tap: Any, answer: dict[str, Any], problem: str) -> None:
    outcome: dict[str, Any] = {}
    client = memory_client(asking({"name": str, "age": int}, outcome), elicitation_handler=person)
    client.request_handlers["elicitation/create"] = lambda ctx: answer  # a careless client, past our checks
    with tap.deliberately_invalid():
        client.call_tool("ask")
    assert isinstance(outcome["error"], McpError) and problem in outcome["error"].message
    assert "not usable" in outcome["error"].message


def test_a_handler_that_returns_garbage_is_loud_on_the_client(memory_client: Callable[..., Client],
                                                              caplog: pytest.LogCaptureFixture) -> None:
    outcome: dict[str, Any] = {}
    client = memory_client(asking({"name": str}, outcome), elicitation_handler=lambda p: {"action": "accept",
                                                                                         "content": {"name": 7}})
    with caplog.at_level(logging.ERROR, logger="mcp_ref.session"):
        client.call_tool("ask")
    assert any("the elicitation handler returned" in (r.exc_text or "") for r in caplog.records)
    assert isinstance(outcome["error"], McpError) and outcome["error"].code == -32603  # and the server hears -32603


@pytest.mark.parametrize("params, declared_url, field", [
    ({"mode": "url", "message": "m", "url": "https://x.example/", "elicitationId": "1"}, False, "mode"),
    ({"mode": "telepathy", "message": "m"}, True, "mode"),
    ({"mode": "url", "message": "m", "url": "not a url", "elicitationId": "1"}, True, "url"),
    ({"message": "m", "requestedSchema": {"type": "object", "properties": {"a": {"type": "object"}}}}, True,
     "requestedSchema"),
    ({"message": "m"}, True, "requestedSchema"),
    ({"requestedSchema": {"type": "object", "properties": {}}}, True, "message"),
])
def test_the_client_answers_32602_to_a_request_it_cannot_take(
        memory_client: Callable[..., Client], tap: Any, params: dict[str, Any], declared_url: bool, field: str) -> None:
    seen: list[Any] = []
    server = Server("raw")  # past the server's own checks, straight onto the wire
    server.request_handlers["test/elicit"] = lambda ctx: ctx.request("elicitation/create", ctx.params)
    client = memory_client(server, elicitation_handler=lambda p: seen.append(p) or {"action": "cancel"},
                           elicitation_url=declared_url)
    with tap.deliberately_invalid(), pytest.raises(InvalidParams) as info:
        client.request("test/elicit", params)
    assert seen == [] and (info.value.data or {}).get("field", field) == field


def test_a_2024_11_05_client_answers_32601(memory_client: Callable[..., Client]) -> None:
    server = Server("raw")
    server.request_handlers["test/elicit"] = lambda ctx: ctx.request("elicitation/create", ctx.params)
    client = memory_client(server, elicitation_handler=person, protocol_versions=["2024-11-05"])
    with pytest.raises(MethodNotFound):
        client.request("test/elicit", {"message": "m", "requestedSchema": {"type": "object", "properties": {}}})


def test_completion_reaches_the_host_once_and_only_for_an_accepted_id(memory_client: Callable[..., Client]) -> None:
    server = eliciting_server()
    server.request_handlers["test/complete"] = lambda ctx: {"sent": elicitation.notify_complete(
        ctx.session, ctx.params["id"])}
    heard: list[Any] = []
    client = memory_client(server, elicitation_handler=person, elicitation_url=True,
                           on_notification=lambda m, p: heard.append(p["elicitationId"]))
    assert client.request("test/complete", {"id": "never-asked"}) == {"sent": True}
    client.call_tool("pay")  # accepted, then completed by the tool itself
    assert client.request("test/complete", {"id": "order-7"}) == {"sent": True}  # a second time
    client.ping()
    assert heard == ["order-7"]
    older = memory_client(server, elicitation_handler=person, protocol_versions=["2025-06-18"])
    assert older.request("test/complete", {"id": "order-7"}) == {"sent": False}  # never to a client without URL mode


def test_url_elicitation_required_is_error_32042_listing_them(memory_client: Callable[..., Client], tap: Any) -> None:
    client = memory_client(eliciting_server(), elicitation_handler=person, elicitation_url=True)
    with pytest.raises(McpError) as info:
        client.call_tool("needs_login")
    assert info.value.code == elicitation.URL_ELICITATION_REQUIRED == -32042
    assert info.value.data == {"elicitations": [{"mode": "url", "message": "Log in to Example first",
                                                 "url": "https://login.example.com/", "elicitationId": "login-1"}]}
    with pytest.raises(ValueError):
        elicitation.URLElicitationRequired([{"elicitationId": "x", "url": "/relative", "message": "m"}])
    with pytest.raises(ValueError):
        elicitation.URLElicitationRequired([])


def test_over_stdio_with_a_server_process(tap: Any) -> None:
    """In a session of the handshake, each question is a request of the server's own (in
    2026-07-28 a round of the call: test_stateless_client.py)."""
    with Client.stdio(server_command(ELICITING), cwd=str(ROOT), trace=tap, timeout=20, elicitation_handler=person,
                      elicitation_url=True, protocol_versions=HANDSHAKE) as client:
        assert client.server_info == {"name": "eliciting", "version": "0.1.0", "title": "Eliciting server"}
        assert json.loads(client.call_tool("sign_up")["content"][0]["text"]) == {"action": "accept", "content": ADA}
        assert json.loads(client.call_tool("pay")["content"][0]["text"]) == {"action": "accept"}
    assert tap.methods("<-").count("elicitation/create") == 2


def test_in_2026_07_28_a_url_elicitation_without_an_id_is_answered_by_the_clients_handler() -> None:
    """That revision dropped ``elicitationId`` (the round is the request): the client's handler
    still gets the URL request, and the tool its answer (a client that insisted on the id refused
    it, and the call failed)."""
    asked: list[dict[str, Any]] = []

    def handler(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return person(params)

    with Client.stdio(server_command(ELICITING), cwd=str(ROOT), timeout=20, elicitation_handler=handler,
                      elicitation_url=True, protocol_versions=ALL_VERSIONS) as client:
        assert client.protocol_version == "2026-07-28"
        assert json.loads(client.call_tool("pay")["content"][0]["text"]) == {"action": "accept"}
    assert [a.get("mode") for a in asked] == ["url"] and "elicitationId" not in asked[0]


@pytest.mark.parametrize("offered", [HANDSHAKE, None], ids=["handshake", "default"])
def test_over_streamable_http(tap: Any, offered: Any) -> None:
    answers: list[dict[str, Any]] = []

    def handler(params: dict[str, Any]) -> dict[str, Any]:
        answers.append(params)
        return person(params)

    with eliciting_server().sse_server() as http, Client.http(http.mcp_url, fallback=False, trace=tap, timeout=20,
                                                              elicitation_handler=handler,
                                                              protocol_versions=offered) as client:
        assert client.protocol_version == ("2025-11-25" if offered else "2026-07-28")
        assert json.loads(client.call_tool("sign_up")["content"][0]["text"]) == {"action": "accept", "content": ADA}
        if offered:  # this client takes no URL mode: in the handshake the tool fails on the server's side ...
            assert client.call_tool("pay")["isError"]
        else:  # ... in 2026-07-28 the request is refused naming what it needs (STLS-12)
            with pytest.raises(McpError, match="needs 'elicitation.url'") as refused:
                client.call_tool("pay")
            assert refused.value.code == -32021
    assert [a["message"] for a in answers] == ["Please sign up"]


def test_requested_schema_leaves_a_wire_schema_as_it_is() -> None:
    wire = {"type": "object", "properties": {"a": {"type": "boolean", "default": True}}, "required": []}
    assert requested_schema(wire, "2025-06-18") == wire


# Characters that a terminal or a page does not show as themselves, and that could make a URL look
# like another (2025-11-25: the client MUST show the whole URL): none of them is in a valid URL.
HIDDEN = {"ESC": "\x1b", "CR": "\r", "LF": "\n", "BEL": "\x07", "NUL": "\x00", "RLO": "\u202e", "space": " "}


@pytest.mark.parametrize("char", HIDDEN.values(), ids=HIDDEN.keys())
def test_a_url_with_a_control_character_is_answered_32602_before_the_handler(
        memory_client: Callable[..., Client], tap: Any, char: str) -> None:
    seen: list[Any] = []
    server = Server("raw")  # past the server's own checks, straight onto the wire
    server.request_handlers["test/elicit"] = lambda ctx: ctx.request("elicitation/create", ctx.params)
    client = memory_client(server, elicitation_handler=lambda p: seen.append(p) or {"action": "accept"},
                           elicitation_url=True)
    url = f"https://evil.example/{char}https://bank.example/login"
    with tap.deliberately_invalid(), pytest.raises(InvalidParams) as info:
        client.request("test/elicit", {"mode": "url", "message": "Log in", "url": url, "elicitationId": "e1"})
    assert info.value.code == -32602 and info.value.data == {"field": "url"} and seen == []
    assert "not a valid absolute URL" in info.value.message and repr(char) in info.value.message
    assert char == " " or char not in info.value.message  # the error quotes it escaped, too


@pytest.mark.parametrize("char", HIDDEN.values(), ids=HIDDEN.keys())
def test_a_server_cannot_send_such_a_url_either(memory_client: Callable[..., Client], tap: Any, char: str) -> None:
    server = Server("asker")
    outcome: dict[str, Any] = {}

    @server.tool()
    def pay(ctx: RequestContext) -> str:
        try:
            ctx.elicit_url("Pay", f"https://pay.example.com/{char}x", elicitation_id="p1")
        except ValueError as exc:
            outcome["error"] = exc
        return "done"

    client = memory_client(server, elicitation_handler=person, elicitation_url=True)
    client.call_tool("pay")
    assert "control or blank character" in str(outcome["error"]) and "elicitation/create" not in tap.methods("<-")
    with pytest.raises(ValueError, match="control or blank character"):
        elicitation.URLElicitationRequired([{"elicitationId": "x", "url": f"https://a.example/{char}", "message": "m"}])
