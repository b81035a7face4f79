"""What later revisions change at the Streamable HTTP endpoint (revisions/http_transport.py):
batches in a session of 2025-03-26, and the protocol-version header of 2025-06-18.

https://modelcontextprotocol.io/specification/2025-03-26/basic/transports#sending-messages-to-the-server
https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#protocol-version-header
Raw POSTs to a real endpoint on 127.0.0.1, so the array on the wire is what the test wrote.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from mcp_ref.sse import SseHttpServer

from ..streamable_http.test_server_app import INIT, INITIALIZED, call, make_server, messages_of, post, url_of


@pytest.fixture
def http() -> Iterator[SseHttpServer]:
    with make_server().sse_server(keepalive=0.3) as running:
        yield running


def cancel(request_id: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id}}


def session_of(url: str, version: str) -> str:
    first = post(url, {**INIT, "params": {**INIT["params"], "protocolVersion": version}})
    assert first.json()["result"]["protocolVersion"] == version
    session = first.headers["Mcp-Session-Id"]
    assert post(url, INITIALIZED, session).status_code == 202
    return session


def test_a_batch_of_requests_in_a_2025_03_26_session_gets_one_stream_with_every_answer(http: SseHttpServer) -> None:
    url = url_of(http)
    session = session_of(url, "2025-03-26")
    ping: dict[str, Any] = {"jsonrpc": "2.0", "id": "p", "method": "ping"}
    response = post(url, [ping, call(7, "echo", {"text": "hi"}), {"jsonrpc": "2.0", "method": "notifications/x"}],
                    session)
    assert response.status_code == 200 and response.headers["Content-Type"].startswith("text/event-stream")
    answers = {msg["id"]: msg for msg in messages_of(response) if "method" not in msg}  # the stream ends after both
    assert answers["p"]["result"] == {} and answers[7]["result"]["content"][0]["text"] == "hi"
    only_notifications = post(url, [{"jsonrpc": "2.0", "method": "notifications/x"}], session)
    assert only_notifications.status_code == 202  # SHTTP-12: nothing to answer


@pytest.mark.parametrize("body, says", [
    ([], "empty batch"),
    ([{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}], "initialize"),
    ([{"jsonrpc": "2.0", "id": 1}], "Invalid Request"),
    # what the session could not read back as sent: refused whole, before any member is taken
    (b'[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":1e400}}]',
     "cannot be passed on"),
    (b'[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}]', "no UTF-8 form"),
])
def test_a_bad_batch_is_refused_with_400(http: SseHttpServer, body: Any, says: str) -> None:
    url = url_of(http)
    refused = post(url, body, session_of(url, "2025-03-26"))
    assert refused.status_code == 400 and refused.headers["Content-Type"] == "application/json"  # SHTTP-13
    assert says in refused.json()["error"]["message"]


def test_a_member_holding_a_lone_surrogate_is_answered_as_if_it_came_alone(http: SseHttpServer) -> None:
    url = url_of(http)
    session = session_of(url, "2025-03-26")
    lone = b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"\\ud800"}}'
    assert post(url, lone, session).json() == {"jsonrpc": "2.0", "id": 2, "result": {}}  # alone: taken
    response = post(url, b'[{"jsonrpc":"2.0","id":1,"method":"ping"},' + lone + b"]", session)
    assert response.status_code == 200 and response.headers["Content-Type"].startswith("text/event-stream")
    assert sorted(msg["id"] for msg in messages_of(response)) == [1, 2]


def test_a_batch_larger_than_the_session_can_hold_is_refused_member_by_member_and_the_server_goes_on(
        http: SseHttpServer) -> None:
    """1300 requests in one batch, more than ``max_in_flight`` (100) and than a stream holds unread
    (``max_queued``, 1000): the first 100 are taken (they wait until cancelled), the other 1200 are
    refused on the stream, without the POST waiting for the client to read, each exactly once."""
    url = url_of(http)
    session = session_of(url, "2025-03-26")
    response = post(url, [call(n, "wait", {"seconds": 30}) for n in range(1300)], session, stream=True)
    assert response.status_code == 200
    assert post(url, [cancel(n) for n in range(100)], session).status_code == 202  # the 100 taken end unanswered
    answers = messages_of(response, 60)
    assert [msg["id"] for msg in answers] == list(range(100, 1300))  # one answer each, no more
    assert all("100 requests in progress" in msg["error"]["message"] for msg in answers)
    assert post(url, {"jsonrpc": "2.0", "id": "after", "method": "ping"}, session).json()["result"] == {}


def test_a_cancelled_member_ends_only_its_own_part_of_the_batch_stream(http: SseHttpServer) -> None:
    url = url_of(http)
    session = session_of(url, "2025-03-26")
    response = post(url, [call(1, "wait", {"seconds": 30}), call(2, "echo", {"text": "kept"}),
                          call(3, "wait", {"seconds": 30}), cancel(3)], session, stream=True)  # 3: in the same POST
    assert response.status_code == 200
    assert post(url, cancel(1), session).status_code == 202  # 1: in a later POST
    answers = messages_of(response)  # the stream ends once no member is left unanswered
    assert [(msg["id"], msg["result"]["content"][0]["text"]) for msg in answers] == [(2, "kept")]  # CAN-06


@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18", "2025-11-25"])
def test_in_any_other_revision_a_batch_is_refused_with_400(http: SseHttpServer, version: str) -> None:
    url = url_of(http)
    refused = post(url, [{"jsonrpc": "2.0", "id": 1, "method": "ping"}], session_of(url, version))
    assert refused.status_code == 400 and "2025-03-26" in refused.json()["error"]["message"]
    assert post(url, [INIT]).status_code == 400  # and before a session: initialize comes alone


def test_a_header_naming_a_revision_the_server_does_not_speak_is_refused(http: SseHttpServer) -> None:
    url = url_of(http)
    session = session_of(url, "2025-06-18")
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    assert post(url, ping, session, **{"MCP-Protocol-Version": "2025-06-18"}).status_code == 200
    refused = post(url, ping, session, **{"MCP-Protocol-Version": "1999-01-01"})
    assert refused.status_code == 400 and "2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05" in refused.text
