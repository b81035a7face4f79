"""Revision 2026-07-28 over Streamable HTTP (mcp_ref/revisions/stateless_http.py and its hook in
streamable_http/server_app.py): each POST served alone, its headers checked against its body.

https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
What it proves, with raw POSTs (requests) to a real HTTP server on 127.0.0.1 (the peer of
tests/peers/stateless_server.py, served by ``sse_server``): a header that is missing or differs
from the body is 400 with -32020 (HTTPX-14, HTTPX-21), header names in any case and values
trimmed (HTTPX-20), Mcp-Name in the base64 sentinel form decoded (MPARAM-08); an unsupported
revision is 400 with -32022 (HTTPX-15), a malformed _meta 400 with -32602 (STLS-10), a missing
capability 400 with -32021 (STLS-12), an unknown or dropped method 404 with -32601 (HTTPX-16); no
session id is given (HTTPX-25); an input_required round trip works across POSTs; a notification
is 202 (HTTPX-05); log messages come on the request's own stream before its answer (LOGX-02);
closing that stream cancels the request (HTTPX-12); the same endpoint still serves a session of
the handshake.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.peers import stateless_server

from ..support.modern import REVISION, SERVER_INFO_KEY, messages_of, meta, params, post


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    server = stateless_server.build(name="http-peer")
    # A -32601 that the handler table gives (not versioning.refusal) gets its 404 only when it comes
    # within quick_answer (0.1 s by default); under load it came as an event stream with 200. Known
    # gap, reported; a generous quick_answer keeps this test about what the status is, not timing.
    with server.sse_server(streamable_options={"quick_answer": 2.0}) as http:
        yield http.url.rsplit("/", 1)[0] + "/mcp"


def answer_of(response: requests.Response) -> dict[str, Any]:
    found = [m for m in messages_of(response) if "id" in m]
    assert len(found) == 1, response.text
    return found[0]


def refused(response: requests.Response, status: int, code: int) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.text)
    error = answer_of(response)["error"]
    assert error["code"] == code, error
    return dict(error)


def test_a_modern_post_is_answered_without_a_session(url: str) -> None:
    """HTTPX-25, HTTPX-26: no Mcp-Session-Id given; RTYPE-01, STLS-13, CACHE-01 as over stdio."""
    response = post(url, "server/discover", params())
    assert response.status_code == 200 and "Mcp-Session-Id" not in response.headers
    found = answer_of(response)["result"]
    assert found["resultType"] == "complete" and found["supportedVersions"] == [REVISION]
    assert found["_meta"][SERVER_INFO_KEY]["name"] == "http-peer" and found["ttlMs"] == 0
    called = answer_of(post(url, "tools/call", params(name="add", arguments={"a": 2, "b": 5})))["result"]
    assert called["content"][0]["text"] == "7" and "ttlMs" not in called


# --- HTTPX-14, HTTPX-21: headers against the body -------------------------------------------------

CALL = ("tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}})
READ = ("resources/read", {"uri": "file:///note.txt"})
PROMPT = ("prompts/get", {"name": "plain", "arguments": {"topic": "owls"}})


@pytest.mark.parametrize(("request_", "headers"), [
    (CALL, {"Mcp-Method": None}),
    (CALL, {"Mcp-Name": None}),
    (CALL, {"MCP-Protocol-Version": None}),
    (READ, {"Mcp-Name": None}),
    (PROMPT, {"Mcp-Name": None}),
    (("tools/list", {}), {"Mcp-Method": None}),
], ids=["call without Mcp-Method", "call without Mcp-Name", "call without MCP-Protocol-Version",
        "read without Mcp-Name", "prompt without Mcp-Name", "list without Mcp-Method"])
def test_httpx_21_a_missing_header_is_400_32020(url: str, request_: tuple[str, dict[str, Any]],
                                                headers: dict[str, str | None]) -> None:
    method, request_params = request_
    message = refused(post(url, method, params(request_params), headers=headers), 400, -32020)["message"]
    assert "missing" in message


@pytest.mark.parametrize(("request_", "headers"), [
    (CALL, {"Mcp-Method": "tools/list"}),
    (CALL, {"Mcp-Method": "Tools/Call"}),  # values keep their case (HTTPX-20)
    (CALL, {"Mcp-Name": "ADD"}),
    (CALL, {"Mcp-Name": "other"}),
    (READ, {"Mcp-Name": "file:///other.txt"}),
    (PROMPT, {"Mcp-Name": "interview"}),
    (("tools/list", {}), {"MCP-Protocol-Version": "2025-11-25"}),  # HTTPX-14
    (("tools/list", {}), {"MCP-Protocol-Version": "2026-07-29"}),
    (CALL, {"Mcp-Name": "=?base64?" + base64.b64encode(b"other").decode() + "?="}),
    (CALL, {"Mcp-Name": "=?base64?not base64!?="}),  # MPARAM-08: not valid base64
    (CALL, {"Mcp-Name": "=?base64?" + base64.b64encode(b"\xff\xfe").decode() + "?="}),  # not UTF-8
], ids=["method differs", "method case differs", "name case differs", "name differs", "uri differs",
        "prompt name differs", "version differs", "version unknown", "base64 of another name", "invalid base64",
        "base64 of non-utf8"])
def test_httpx_14_21_a_header_that_differs_from_the_body_is_400_32020(
        url: str, request_: tuple[str, dict[str, Any]], headers: dict[str, str | None]) -> None:
    method, request_params = request_
    refused(post(url, method, params(request_params), headers=headers), 400, -32020)


@pytest.mark.parametrize("headers", [
    {"mcp-method": "tools/call", "MCP-NAME": "add", "mcp-protocol-version": REVISION},  # HTTPX-20: any case
    {"Mcp-Method": "tools/call \t", "Mcp-Name": "add  ", "MCP-Protocol-Version": f"{REVISION}\t"},  # trimmed
    {"Mcp-Name": "=?base64?" + base64.b64encode(b"add").decode() + "?="},  # MPARAM-08
], ids=["names in any case", "values trimmed", "base64 sentinel"])
def test_httpx_20_headers_that_agree_with_the_body_are_taken(url: str, headers: dict[str, str | None]) -> None:
    response = post(url, CALL[0], params(CALL[1]), headers=headers)
    assert response.status_code == 200, response.text
    assert answer_of(response)["result"]["content"][0]["text"] == "2"


def test_mparam_08_a_name_that_is_not_ascii_travels_in_base64() -> None:
    server = stateless_server.build(name="unicode")
    with pytest.warns(UserWarning, match="grüße"):  # outside the names 2025-11-25 asks for, and still served
        server.tool(name="grüße")(lambda: "hallo")
    with server.sse_server() as http:
        endpoint = http.url.rsplit("/", 1)[0] + "/mcp"
        sentinel = "=?base64?" + base64.b64encode("grüße".encode()).decode() + "?="
        response = post(endpoint, "tools/call", params(name="grüße", arguments={}), headers={"Mcp-Name": sentinel})
        assert answer_of(response)["result"]["content"][0]["text"] == "hallo"


# --- refusals with their HTTP status --------------------------------------------------------------

def test_httpx_15_an_unsupported_revision_is_400_32022(url: str) -> None:
    response = post(url, "tools/list", {"_meta": meta(version="2025-11-25")},
                    headers={"MCP-Protocol-Version": "2025-11-25"})
    # the handshake's header on a body naming it in _meta: still of this era, and refused so
    assert refused(response, 400, -32022)["data"]["supported"] == [REVISION]
    response = post(url, "tools/list", {"_meta": meta(version="1999-01-01")},
                    headers={"MCP-Protocol-Version": "1999-01-01"})
    assert refused(response, 400, -32022)["data"]["supported"] == [REVISION]


@pytest.mark.parametrize("request_params", [
    {}, {"_meta": {}}, {"_meta": {"io.modelcontextprotocol/protocolVersion": REVISION}},
    {"_meta": {**meta(), "io.modelcontextprotocol/clientCapabilities": []}}],
                         ids=["no _meta", "_meta empty", "no clientCapabilities", "clientCapabilities a list"])
def test_stls_10_a_malformed_meta_is_400_32602(url: str, request_params: dict[str, Any]) -> None:
    """The MCP-Protocol-Version header makes the POST one of this era; its body is then malformed."""
    assert "_meta" in refused(post(url, "tools/list", request_params), 400, -32602)["message"]


@pytest.mark.parametrize("method", ["nope/nope", "ping", "initialize", "logging/setLevel", "resources/subscribe"])
def test_httpx_16_an_unknown_or_dropped_method_is_404_32601(url: str, method: str) -> None:
    refused(post(url, method, params()), 404, -32601)


def test_stls_12_a_missing_capability_is_400_32021(url: str) -> None:
    response = post(url, "tools/call", params(name="sample", arguments={}, _meta=meta({})))
    assert refused(response, 400, -32021)["data"] == {"requiredCapabilities": {"sampling": {}}}


def test_rread_03_an_unknown_resource_is_32602(url: str) -> None:
    response = post(url, "resources/read", params(uri="file:///nope"))
    assert answer_of(response)["error"]["code"] == -32602


def test_httpx_05_a_notification_is_202(url: str) -> None:
    response = post(url, "notifications/cancelled", params(requestId=1), request_id=None)
    assert response.status_code == 202 and response.content == b""


# --- round trips, streams, cancellation -----------------------------------------------------------

def test_mrtr_21_an_input_required_round_trip_across_posts(url: str) -> None:
    """Each POST a session of its own: the second is answered from the state alone."""
    def retry(state: str, key: str, answer: str, request_id: int) -> dict[str, Any]:
        response = {key: {"action": "accept", "content": {"answer": answer}}}
        sent = params(name="rounds", arguments={"n": 2}, requestState=state, inputResponses=response)
        return dict(answer_of(post(url, "tools/call", sent, request_id=request_id))["result"])

    first = answer_of(post(url, "tools/call", params(name="rounds", arguments={"n": 2})))["result"]
    second = retry(first["requestState"], "elicitation-1", "x", 2)
    assert list(second["inputRequests"]) == ["elicitation-2"]
    done = retry(second["requestState"], "elicitation-2", "y", 3)
    assert done["resultType"] == "complete" and done["content"][0]["text"] == "x y"


@pytest.mark.parametrize(("level", "heard"), [(None, []), ("warning", ["warning", "error"]),
                                              ("debug", ["debug", "info", "warning", "error"])])
def test_logx_02_log_messages_come_on_the_requests_stream_before_its_answer(url: str, level: str | None,
                                                                            heard: list[str]) -> None:
    request_meta = meta() if level is None else meta(log_level=level)
    got = messages_of(post(url, "tools/call", params(name="chatty", arguments={}, _meta=request_meta)))
    assert "id" in got[-1] and got[-1]["result"]["content"][0]["text"] == "done"
    assert [m["params"]["level"] for m in got[:-1] if m.get("method") == "notifications/message"] == heard


def test_httpx_12_closing_the_stream_cancels_the_request(url: str) -> None:
    """The handler waits until cancelled; the client closes its response stream; the handler
    sees the cancellation (counted by the peer), within a bounded wait."""
    before = stateless_server.counters["cancellations"]
    response = post(url, "tools/call", params(name="wait", arguments={"seconds": 20}), stream=True)
    assert response.status_code == 200 and response.headers["Content-Type"].startswith("text/event-stream")
    next(response.iter_content(1))  # the stream is open
    response.close()
    deadline = time.monotonic() + 10
    while stateless_server.counters["cancellations"] == before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert stateless_server.counters["cancellations"] == before + 1


def test_stls_25_the_same_endpoint_still_serves_a_session_of_the_handshake(url: str) -> None:
    init = requests.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}}},
        headers={"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}, timeout=10)
    assert init.status_code == 200 and init.headers.get("Mcp-Session-Id")
    assert answer_of(init)["result"]["protocolVersion"] == "2025-11-25"
    requests.delete(url, headers={"Mcp-Session-Id": init.headers["Mcp-Session-Id"],
                                  "MCP-Protocol-Version": "2025-11-25"}, timeout=10)


@pytest.mark.parametrize("shared", [True, False], ids=["one key", "a key per worker"])
def test_several_processes_serve_2026_07_28_without_a_relay_when_they_share_the_state_key(shared: bool) -> None:
    """STLS-05, MRTR-07: real gunicorn, four gthread workers, no relay (the handshake's sessions
    would need one). A tool asks the client twice (roots, then its model), so each call takes
    three POSTs, each on a new connection, which the kernel spreads over the workers. With one
    key for every worker (``MCP_REF_REQUEST_STATE_KEY``), the state of a round is taken by
    whichever worker gets the next, and every call completes; with a key per worker (each
    imports the app itself, no ``--preload``), a round that lands on another worker is refused
    -32602, saying so: the key is what lets several processes serve without a relay."""
    from ..scaleout.test_relay import ROOTS, reply_ok
    from ..support.real_parts import Gunicorn

    key = {"MCP_REF_REQUEST_STATE_KEY": "shared by every worker of this test" if shared else ""}
    with Gunicorn("tests.peers.relay_app:app", workers=4, threads=8, env=key) as gunicorn:
        url = gunicorn.url.replace("/sse", "/mcp")
        answers = {"roots/list": {"roots": ROOTS}, "sampling/createMessage": reply_ok({})}
        outcomes = []
        for n in range(12):
            call = {"_meta": meta({"roots": {}, "sampling": {}}), "name": "ask_client", "arguments": {"tag": str(n)}}
            for _ in range(3):  # (a new connection each time: requests.post keeps none)
                answer = post(url, "tools/call", call).json()
                result = answer.get("result", {})
                if result.get("resultType") != "input_required":
                    break
                call = {**call, "requestState": result["requestState"], "inputResponses": {
                    key_: answers[asked["method"]] for key_, asked in result["inputRequests"].items()}}
            outcomes.append(answer)
    done = [o["result"]["content"][0]["text"] for o in outcomes if o.get("result", {}).get("resultType") == "complete"]
    refused = [o["error"]["message"] for o in outcomes if "error" in o]
    if shared:
        assert done == [f"{n} file:///relay-test sampled" for n in range(12)], outcomes
    else:  # 12 calls of 3 rounds over 4 workers: some round lands elsewhere (all on one: 1 in 4**24)
        assert refused and all("requestState refused" in message for message in refused), outcomes


# --- MPARAM-11..13: the Mcp-Param-* headers of a tool that marks its arguments ---------------------

ROUTE_SCHEMA = {"type": "object", "properties": {
    "region": {"type": "string", "x-mcp-header": "Region"},
    "priority": {"type": "integer", "x-mcp-header": "Priority"},
    "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
    "query": {"type": "string"}}, "required": ["region", "priority"]}


@pytest.fixture(scope="module")
def marked_url() -> Iterator[str]:
    from mcp_ref import Server

    server = Server("marked")

    @server.tool(input_schema=ROUTE_SCHEMA)
    def route(region: str, priority: int, verbose: bool = False, query: str = "") -> str:
        """Route a query."""
        return f"{region}/{priority}/{verbose}"

    with server.sse_server(streamable_options={"quick_answer": 2.0}) as http:
        yield http.url.rsplit("/", 1)[0] + "/mcp"


def b64(text: str) -> str:
    return "=?base64?" + base64.b64encode(text.encode()).decode() + "?="


ROUTE = {"region": "eu", "priority": 3}
GOOD = {"Mcp-Param-Region": "eu", "Mcp-Param-Priority": "3"}


@pytest.mark.parametrize(("arguments", "headers"), [
    (ROUTE, GOOD),
    (ROUTE, {**GOOD, "Mcp-Param-Region": b64("eu")}),  # MPARAM-08: decoded first
    (ROUTE, {**GOOD, "Mcp-Param-Priority": "3.0"}),  # MPARAM-13: a number, not a string
    (ROUTE, {**GOOD, "mcp-param-region": "eu \t"}),  # any case, trimmed (requests sends no leading space)
    ({**ROUTE, "verbose": True}, {**GOOD, "Mcp-Param-Verbose": "true"}),
    ({**ROUTE, "verbose": None}, GOOD),  # MPARAM-12: null, no header
    ({**ROUTE, "query": "q"}, GOOD),  # no mark, no header
], ids=["plain", "base64", "integer as 3.0", "any case and trimmed", "boolean", "null without header", "unmarked"])
def test_mparam_12_13_headers_that_say_the_marked_arguments_are_taken(
        marked_url: str, arguments: dict[str, Any], headers: dict[str, str]) -> None:
    response = post(marked_url, "tools/call", params(name="route", arguments=arguments), headers=headers)
    assert response.status_code == 200, response.text
    assert "error" not in answer_of(response)


@pytest.mark.parametrize(("arguments", "headers"), [
    (ROUTE, {"Mcp-Param-Priority": "3"}),  # MPARAM-12: a value in the body needs its header
    (ROUTE, {**GOOD, "Mcp-Param-Region": "us"}),
    (ROUTE, {**GOOD, "Mcp-Param-Region": "EU"}),
    (ROUTE, {**GOOD, "Mcp-Param-Priority": "4"}),
    (ROUTE, {**GOOD, "Mcp-Param-Priority": "three"}),
    (ROUTE, {**GOOD, "Mcp-Param-Verbose": "true"}),  # MPARAM-12: none for an absent argument
    ({**ROUTE, "verbose": True}, {**GOOD, "Mcp-Param-Verbose": "TRUE"}),
    (ROUTE, {**GOOD, "Mcp-Param-Region": "=?base64?ZXU?="}),  # MPARAM-11: bad padding
    (ROUTE, {**GOOD, "Mcp-Param-Region": "=?base64?ZX!!U=?="}),  # not the Base64 alphabet
    ({**ROUTE, "region": "e\x01u"}, {**GOOD, "Mcp-Param-Region": "e\x01u"}),  # a control character, sent raw
    ({**ROUTE, "region": "é"}, {**GOOD, "Mcp-Param-Region": "é"}),  # not ASCII: it must travel as Base64
], ids=["missing", "another value", "another case", "another integer", "not a number", "header without value",
        "boolean case", "base64 padding", "base64 alphabet", "control character", "raw non-ascii"])
def test_mparam_11_12_headers_that_disagree_with_the_marked_arguments_are_400_32020(
        marked_url: str, arguments: dict[str, Any], headers: dict[str, str]) -> None:
    refused(post(marked_url, "tools/call", params(name="route", arguments=arguments), headers=headers), 400, -32020)


def test_our_client_mirrors_the_marks_and_the_server_takes_them(marked_url: str) -> None:
    from mcp_ref import Client
    from mcp_ref.revisions.stateless_client import ALL_VERSIONS

    with Client.http(marked_url, protocol_versions=ALL_VERSIONS, fallback=False, timeout=10) as client:
        assert [tool["name"] for tool in client.list_tools()] == ["route"]
        for region in ("eu", "région", " padded "):  # plain, and two that travel as Base64
            result = client.call_tool("route", {"region": region, "priority": 2, "verbose": True})
            assert result["content"][0]["text"] == f"{region}/2/True"
