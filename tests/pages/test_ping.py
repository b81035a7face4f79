"""basic/utilities/ping: both sides answer at once, and a client can keep pinging.

https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/ping (mcp_ref/ping.py)
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from mcp_ref import Client, McpError, RequestTimeout, Server

from ..conftest import ManualPeer, wait_until


def test_ping_both_ways(stdio_client: Callable[..., Client], tap: Any) -> None:
    client = stdio_client()
    assert client.request("ping") == {}  # client -> server: PING-01, an empty result
    assert client.request("test/ping_client", {"times": 2}) == {"pinged": 2}  # server -> client, nested
    assert tap.methods("<-").count("ping") == 2
    answers = [m for d, m in tap.messages if d == "->" and "result" in m and m["result"] == {}]
    assert len(answers) == 2  # PING-01: empty results


def test_a_ping_is_answered_while_every_worker_is_busy(memory_client: Callable[..., Client]) -> None:
    """PING-12: a ping does not wait for a worker; here the only one is held by a tool."""
    server = Server("busy", max_running=1)
    started, release = threading.Event(), threading.Event()

    @server.tool()
    def hold() -> str:
        started.set()
        release.wait(10)
        return "released"

    client = memory_client(server)
    call = client.session.start_request("tools/call", {"name": "hold"})
    try:
        assert started.wait(5)
        assert client.request("ping", timeout=2) == {}
    finally:
        release.set()
    assert call.result(5)["content"][0]["text"] == "released"


def test_unanswered_ping_times_out_and_is_cancelled(caplog: pytest.LogCaptureFixture) -> None:
    peer = ManualPeer()
    start = time.monotonic()
    with pytest.raises(RequestTimeout) as info:
        peer.session.request("ping", timeout=0.2)
    assert 0.2 <= time.monotonic() - start < 2
    assert isinstance(info.value, TimeoutError)
    ping = peer.next_message()
    cancel = peer.next_message()
    assert cancel == {"jsonrpc": "2.0", "method": "notifications/cancelled",
                      "params": {"requestId": ping["id"], "reason": "timed out after 0.2 s"}}
    # CAN-10: the late answer is dropped quietly, and the session carries on.
    peer.send({"jsonrpc": "2.0", "id": ping["id"], "result": {}})
    pending = peer.session.start_request("ping")
    second = peer.next_message()
    peer.send({"jsonrpc": "2.0", "id": second["id"], "result": {"second": True}})
    assert pending.result(2) == {"second": True}
    peer.session.close()
    # CAN-11: the answer that crossed the cancellation was no error of ours, just too late.
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


def test_keepalive_pings_a_live_server_and_hangs_up_on_a_dead_one(stdio_client: Callable[..., Client],
                                                                 tap: Any) -> None:
    client = stdio_client(ping_interval=0.1)
    wait_until(lambda: tap.methods("->").count("ping") >= 3)  # PING-05: every 0.1 s, unasked
    client.ping()

    # A "server" that answers initialize and then reads but never answers.
    mute = ("import sys, json\n"
            "msg = json.loads(sys.stdin.readline())\n"
            "print(json.dumps({'jsonrpc': '2.0', 'id': msg['id'], 'result': {'protocolVersion': '2024-11-05',"
            " 'capabilities': {}, 'serverInfo': {'name': 'mute', 'version': '1'}}}), flush=True)\n"
            "for line in sys.stdin: pass\n")

    with Client.stdio([sys.executable, "-c", mute], ping_interval=0.2, timeout=30) as dead:
        start = time.monotonic()
        with pytest.raises(McpError) as info:
            dead.request("anything")  # would wait 30 s; the failed ping ends it much sooner
        assert time.monotonic() - start < 2  # PING-09: a timed-out ping is a dead connection
        assert "did not answer a ping" in info.value.message
