"""Several processes behind one Streamable HTTP endpoint, through a relay (mcp_ref/scaleout/relay.py).

Not a spec section: it keeps basic/transports of revision 2025-03-26 (Streamable HTTP) working
when a session's requests land on another process than the one holding the session: the
request is carried to the holder, and what the holder sends for it comes back, through the
relay's mailboxes, to be written on that request's own response. Real parts throughout
(tests/support/real_parts.py): a real redis-server on 127.0.0.1, our werkzeug server twice in this
process (two relays: two "processes" as Redis sees them), and real gunicorn with gthread workers.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from mcp_ref import Client
from mcp_ref.machinery.http.werkzeug_server import SseHttpServer
from mcp_ref.scaleout.redis_relay import RedisRelay

from ..peers.relay_app import make_server
from ..scaleout.test_relay import ROOTS, SlowHolder, open_at_once, reply_ok
from ..support.real_parts import Gunicorn, RedisServer
from .test_server_app import INIT, INITIALIZED, call, events, get_stream, messages_of, post

pytest.importorskip("redis", reason="the relay tests need the redis package (the test extra installs it)")


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    with RedisServer() as running:
        yield running


@pytest.fixture
def pair(redis_server: RedisServer) -> Iterator[tuple[str, str, SseHttpServer]]:
    """Two servers ("processes" A and B) sharing one Redis: (A's /mcp, B's /mcp, A)."""
    with make_server().sse_server(relay=redis_server.url, keepalive=0.3) as a, \
            make_server().sse_server(relay=redis_server.url, keepalive=0.3) as b:
        assert a.mcp_url is not None and b.mcp_url is not None
        yield a.mcp_url, b.mcp_url, a


def start_session(url: str) -> str:
    answer = post(url, INIT)
    assert answer.status_code == 200, answer.text
    session = answer.headers["Mcp-Session-Id"]
    assert post(url, INITIALIZED, session).status_code == 202
    assert post(url, {"jsonrpc": "2.0", "id": "ready", "method": "ping"}, session).json()["id"] == "ready"
    return session


def test_a_request_through_another_process_is_answered_on_its_own_response(
        pair: tuple[str, str, SseHttpServer], redis_server: RedisServer) -> None:
    a, b, _ = pair
    session = start_session(a)  # held by A
    published = redis_server.publish_count()
    answer = post(b, call(7, "pid", {}), session)  # through B: carried to A, answered back through B
    assert answer.status_code == 200 and answer.json()["result"]["content"][0]["text"] == str(os.getpid())
    assert redis_server.publish_count() > published
    assert post(b, {"jsonrpc": "2.0", "id": "p", "method": "ping"}, session).json() == {
        "jsonrpc": "2.0", "id": "p", "result": {}}
    # a request the holder answers after a while: an event stream, written by B, ending with the answer
    slow = post(b, call(8, "wait", {"seconds": 0.3}), session, stream=True)
    assert slow.headers["Content-Type"].startswith("text/event-stream")
    assert messages_of(slow)[-1] == {"jsonrpc": "2.0", "id": 8, "result": {"content": [{"type": "text", "text": "waited"}]}}
    # notifications and responses through B: 202 once the holder has them
    assert post(b, {"jsonrpc": "2.0", "id": "nobody", "result": {}}, session).status_code == 202


def test_the_servers_requests_during_a_relayed_call_come_back_on_its_stream(
        pair: tuple[str, str, SseHttpServer]) -> None:
    a, b, _ = pair
    capable = {**INIT, "params": {**INIT["params"], "capabilities": {"roots": {}, "sampling": {}}}}
    session = post(a, capable).headers["Mcp-Session-Id"]
    assert post(b, INITIALIZED, session).status_code == 202
    asking = post(b, call(9, "ask_client", {"tag": "t"}), session, stream=True)
    stream = events(asking)
    for expected, answer in (("roots/list", {"roots": ROOTS}), ("sampling/createMessage", reply_ok({}))):
        event, data = next(e for e in stream if e[0] == "message")
        request = json.loads(data)
        assert request["method"] == expected
        reply = {"jsonrpc": "2.0", "id": request["id"], "result": answer}
        assert post(a if expected == "roots/list" else b, reply, session).status_code == 202  # either process
    final = json.loads(next(e for e in stream if e[0] == "message")[1])
    assert final["id"] == 9 and final["result"]["content"][0]["text"] == "t file:///relay-test sampled"


def test_the_get_stream_through_another_process_and_delete_through_a_third(
        pair: tuple[str, str, SseHttpServer]) -> None:
    a, b, holder = pair
    session = start_session(a)
    listening = get_stream(b, session)  # held at A, written by B
    received = events(listening)
    assert next(received)[0] == ""

    @holder.app.server.tool()
    def added() -> str:  # list_changed, sent by A to its session: it arrives on B's stream
        return "x"

    assert next(received) == ("message", '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}')
    assert requests.delete(b, headers={"Mcp-Session-Id": session}, timeout=5).status_code == 200
    assert list(received) == []  # the session ended at A: B's stream ended with it
    for url in (a, b):
        assert post(url, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, session).status_code == 404


def test_cancelling_through_one_process_ends_the_stream_in_another(pair: tuple[str, str, SseHttpServer]) -> None:
    a, b, _ = pair
    session = start_session(a)
    waiting = post(b, call(5, "wait", {"seconds": 30}), session, stream=True)
    assert waiting.headers["Content-Type"].startswith("text/event-stream")
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}}
    assert post(a, cancel, session).status_code == 202
    assert messages_of(waiting) == []


def test_a_relayed_stream_ends_within_seconds_when_its_holder_dies(redis_server: RedisServer) -> None:
    holder = SlowHolder(redis_server.url)
    holder.delay = 0
    with make_server().sse_server(relay=holder) as a, \
            make_server().sse_server(relay=redis_server.url, keepalive=0.3) as b:
        assert a.mcp_url is not None and b.mcp_url is not None
        session = start_session(a.mcp_url)
        waiting = post(b.mcp_url, call(5, "wait", {"seconds": 30}), session, stream=True)
        assert waiting.headers["Content-Type"].startswith("text/event-stream")
        started = time.monotonic()
        holder.close()  # its Redis connection goes, as with kill -9: nothing more comes from A
        assert messages_of(waiting) == []
        assert time.monotonic() - started < 5  # B saw the session live nowhere any more


def test_our_client_through_gunicorn_four_workers_every_call_answered(redis_server: RedisServer) -> None:
    with Gunicorn("tests.peers.relay_app:app", workers=4, threads=32, env={"MCP_REF_TEST_RELAY": redis_server.url},
                  args=("--preload",)) as gunicorn:
        url = gunicorn.url.replace("/sse", "/mcp")
        published = redis_server.publish_count()
        clients: list[Client] = open_at_once(
            6, lambda: Client.http(url, timeout=15, roots=ROOTS, sampling_handler=reply_ok, fallback=False))
        try:
            def work(client: Client) -> list[str]:
                answers = [client.call_tool("echo", {"text": f"{id(client)}-{n}"})["content"][0]["text"]
                           for n in range(10)]
                answers += [client.call_tool("ask_client", {"tag": str(n)})["content"][0]["text"] for n in range(2)]
                return answers

            results: dict[int, Any] = {}
            threads = [threading.Thread(target=lambda c=c: results.__setitem__(id(c), work(c))) for c in clients]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(60)
            for client in clients:
                expected = [f"{id(client)}-{n}" for n in range(10)] + [f"{n} file:///relay-test sampled" for n in range(2)]
                assert results.get(id(client)) == expected
            holders = {int(c.call_tool("pid")["content"][0]["text"]) for c in clients}
            assert holders <= set(gunicorn.workers)
        finally:
            for client in clients:
                client.close()
        assert redis_server.publish_count() > published  # requests did cross workers, through Redis


def test_a_relay_without_mailboxes_cannot_carry_answers_back(redis_server: RedisServer) -> None:
    class OldRelay:  # a Relay of the older kind: it carries messages to the holder, nothing back
        def __init__(self, inner: RedisRelay) -> None:
            self.inner = inner

        def hold(self, session_id: str, deliver: Any) -> None:
            self.inner.hold(session_id, deliver)

        def release(self, session_id: str) -> None:
            self.inner.release(session_id)

        def publish(self, session_id: str, body: bytes) -> None:
            self.inner.publish(session_id, body)

        def is_live(self, session_id: str) -> bool:
            return self.inner.is_live(session_id)

        def close(self) -> None:
            self.inner.close()

    with RedisRelay(redis_server.url) as inner, make_server().sse_server(relay=redis_server.url) as a, \
            make_server().sse_server(relay=OldRelay(inner)) as b:
        assert a.mcp_url is not None and b.mcp_url is not None
        session = start_session(a.mcp_url)
        refused = post(b.mcp_url, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, session)
        assert refused.status_code == 503 and "cannot carry answers back" in refused.json()["error"]["message"]
