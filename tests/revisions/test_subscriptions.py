"""subscriptions/listen (mcp_ref/revisions/subscriptions.py): how a client of 2026-07-28 hears of changes.

https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions
A real server (tests/peers/listening_server.py) over a real pipe, spoken to in raw lines, and
over a real Streamable HTTP endpoint on 127.0.0.1, spoken to in raw POSTs. What it proves: the
acknowledgement comes first and says which part of the filter is honoured (SUBS-02); only what
the filter asked for is sent (SUBS-01, LISTS-04, LISTS-06), each notification tagged with its
subscription's id (SUBS-10), several subscriptions at once kept apart (SUBS-05, SUBS-06); a
cancelled subscription hears nothing more and gets no answer (CANCEL-04, CAN-06); closing the
HTTP stream ends it (HTTPX-12); a malformed filter is -32602.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from mcp_ref.revisions import subscriptions

from ..conftest import RawServer
from ..support.modern import meta, post

ACK = "notifications/subscriptions/acknowledged"
TAG = subscriptions.SUBSCRIPTION_KEY


class Listening(RawServer):
    """The listening server over stdio, spoken to in raw lines; every read bounded."""

    def __init__(self) -> None:
        super().__init__("tests/peers/listening_server.py:server")
        self.ids = itertools.count(1000)
        self.notifications: list[dict[str, Any]] = []

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send a request; its answer (the notifications before it go to ``self.notifications``)."""
        request_id = next(self.ids)
        self.send(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}).encode())
        while "id" not in (msg := self.receive()):
            self.notifications.append(msg)
        assert msg["id"] == request_id, msg  # (no answer to anything else, a cancelled listen included)
        return dict(msg)

    def listen(self, subscription_id: Any, wanted: dict[str, Any]) -> dict[str, Any]:
        """Open a subscription; return its acknowledgement (the first message about it)."""
        self.send(json.dumps({"jsonrpc": "2.0", "id": subscription_id, "method": subscriptions.METHOD,
                              "params": {"_meta": meta({}), "notifications": wanted}}).encode())
        ack = self.receive()
        assert ack["method"] == ACK and ack["params"]["_meta"] == {TAG: subscription_id}, ack  # SUBS-02
        return dict(ack["params"]["notifications"])

    def call(self, name: str, **arguments: Any) -> list[dict[str, Any]]:  # type: ignore[override]
        """Call a tool; the notifications that came before its answer."""
        self.notifications = []
        answer = self.request("tools/call", {"_meta": meta({}), "name": name, "arguments": arguments})
        assert answer["result"]["resultType"] == "complete", answer
        return self.notifications


@pytest.fixture
def peer() -> Iterator[Listening]:
    server = Listening()
    try:
        yield server
    finally:
        server.close()


# A filter -> the part of it the listening server honours (it has tools, prompts and resources).
ACKNOWLEDGED: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"toolsListChanged": True}, {"toolsListChanged": True}),
    ({"toolsListChanged": True, "promptsListChanged": True, "resourcesListChanged": True},
     {"toolsListChanged": True, "promptsListChanged": True, "resourcesListChanged": True}),
    ({"toolsListChanged": False, "resourceSubscriptions": ["test://a", "test://a", "test://b"]},
     {"resourceSubscriptions": ["test://a", "test://b"]}),
    ({}, {}),
]


def test_the_acknowledgement_comes_first_and_names_what_is_honoured(peer: Listening) -> None:
    for n, (wanted, honoured) in enumerate(ACKNOWLEDGED):  # several at once on one pipe, each acknowledged
        assert peer.listen(f"sub-{n}", wanted) == honoured, wanted  # SUBS-02: the subset it will honour


def test_only_what_the_filter_asked_for_arrives_tagged_with_its_subscription(peer: Listening) -> None:
    peer.listen("tools-and-a", {"toolsListChanged": True, "resourceSubscriptions": ["test://a"]})
    said = peer.call("add_tool")
    assert [(n["method"], n["params"]["_meta"]) for n in said] == [
        ("notifications/tools/list_changed", {TAG: "tools-and-a"})]  # LISTS-04, SUBS-10
    said = peer.call("touch", uri="test://a")
    assert [(n["method"], n["params"]["uri"], n["params"]["_meta"][TAG]) for n in said] == [
        ("notifications/resources/updated", "test://a", "tools-and-a")]
    assert peer.call("touch", uri="test://b") == []  # SUBS-01: a URI it did not ask about
    assert peer.call("add_prompt") == []  # nor the prompt list


def test_several_subscriptions_are_kept_apart_and_a_cancelled_one_hears_no_more(peer: Listening) -> None:
    peer.listen(1, {"toolsListChanged": True})
    peer.listen("two", {"toolsListChanged": True, "promptsListChanged": True})
    said = peer.call("add_tool")
    assert sorted(str(n["params"]["_meta"][TAG]) for n in said) == ["1", "two"]  # SUBS-05, SUBS-06
    assert [n["params"]["_meta"][TAG] for n in peer.call("add_prompt")] == ["two"]  # LISTS-06
    peer.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}).encode())
    said = peer.call("add_tool")  # (the cancellation is read before this call: one reader, in order)
    assert [n["params"]["_meta"][TAG] for n in said] == ["two"]  # CANCEL-04: the cancelled one is gone
    assert peer.call("touch", uri="test://a") == []  # and no answer ever came for request 1 (CAN-06)


MALFORMED = ["all", ["toolsListChanged"], {"toolsListChanged": "yes"}, {"resourceSubscriptions": "test://a"},
             {"resourceSubscriptions": [1, 2]}, {"promptsListChanged": 1}]


def test_a_malformed_filter_is_invalid_params(peer: Listening) -> None:
    for wanted in MALFORMED:
        answer = peer.request(subscriptions.METHOD, {"_meta": meta({}), "notifications": wanted})
        assert answer["error"]["code"] == -32602, (wanted, answer)


@pytest.fixture
def endpoint() -> Iterator[str]:
    from tests.peers.listening_server import server

    with server.sse_server() as http:
        yield http.url.rsplit("/", 1)[0] + "/mcp"


def events(response: requests.Response) -> Iterator[dict[str, Any]]:
    """The messages of an event stream as they come (each read bounded by the POST's timeout)."""
    for line in response.iter_lines():
        if line.startswith(b"data:"):
            yield json.loads(line[5:])


def test_over_http_the_listen_stream_carries_the_acknowledgement_then_the_changes_until_closed(endpoint: str) -> None:
    opened = post(endpoint, subscriptions.METHOD, {"_meta": meta({}), "notifications": {
        "toolsListChanged": True, "resourceSubscriptions": ["test://a"]}}, request_id="http-sub", stream=True)
    assert opened.status_code == 200 and opened.headers["Content-Type"].startswith("text/event-stream")
    heard = events(opened)
    assert next(heard)["method"] == ACK  # SUBS-02: first on the stream
    added = post(endpoint, "tools/call", {"_meta": meta({}), "name": "add_tool", "arguments": {}})
    assert added.json()["result"]["resultType"] == "complete"
    change = next(heard)
    assert change["method"] == "notifications/tools/list_changed" and change["params"]["_meta"] == {TAG: "http-sub"}
    assert touch(endpoint) == "1"  # one listener told
    opened.close()  # HTTPX-12: the client ends its subscription by closing the stream
    deadline = time.monotonic() + 10  # the server notices within its check interval (a second)
    while (told := touch(endpoint)) != "0" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert told == "0"  # nobody listens any more


def touch(endpoint: str) -> str:
    """How many listeners the server told of an update of test://a."""
    answer = post(endpoint, "tools/call", {"_meta": meta({}), "name": "touch", "arguments": {"uri": "test://a"}})
    return str(answer.json()["result"]["content"][0]["text"])


def test_over_http_long_requests_are_bounded_and_the_one_beyond_is_told_when_to_come_back() -> None:
    """Each request of 2026-07-28 holds a session while it runs (stateless_http.py, point 5): with
    ``max_sessions=2``, two open subscriptions fill the endpoint, a third request is refused with
    503 and Retry-After, and closing one makes room again."""
    from tests.peers.listening_server import server

    with server.sse_server(streamable_options={"max_sessions": 2}) as http:
        endpoint = http.url.rsplit("/", 1)[0] + "/mcp"
        listens = [post(endpoint, subscriptions.METHOD, {"_meta": meta({}), "notifications": {}},
                        request_id=f"hold-{n}", stream=True) for n in range(2)]
        for opened in listens:
            assert next(events(opened))["method"] == ACK
        refused = post(endpoint, "tools/list", {"_meta": meta({})})
        assert refused.status_code == 503 and refused.headers["Retry-After"], refused.text
        listens[0].close()
        deadline = time.monotonic() + 10  # the server notices the closed stream within a second or so
        while (again := post(endpoint, "tools/list", {"_meta": meta({})})).status_code == 503:
            assert time.monotonic() < deadline, "the slot of the closed stream never came back"
            time.sleep(0.1)
        assert again.json()["result"]["resultType"] == "complete"
        listens[1].close()
