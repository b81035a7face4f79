"""basic/utilities: ping, cancellation and progress, in both directions.

https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/ping
https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/cancellation
https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/progress
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from mcp_ref import Client, McpError, RequestCancelled, RequestContext, RequestTimeout, Server
from mcp_ref.machinery.memory import MemoryTransport
from mcp_ref.session import Session


def wait_until(predicate: Callable[[], Any], timeout: float = 3.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError("condition not reached in time")


class ManualPeer:
    """A Session on one end of an in-memory link, and raw access to the other end."""

    def __init__(self) -> None:
        ours, self.theirs = MemoryTransport.pair()
        self.session = Session(ours, on_request=lambda ctx: {}, on_notification=lambda s, m, p: None, name="manual")
        self.session.start()

    def next_message(self) -> Any:
        data = self.theirs.receive()
        assert data is not None
        return json.loads(data)

    def send(self, msg: dict[str, Any]) -> None:
        self.theirs.send(json.dumps(msg).encode())


# --- ping ------------------------------------------------------------------------------------


def test_ping_both_ways(stdio_client: Callable[..., Client], tap: Any) -> None:
    client = stdio_client()
    assert client.request("ping") == {}  # client -> server: PING-01, an empty result
    assert client.request("test/ping_client", {"times": 2}) == {"pinged": 2}  # server -> client, nested
    assert tap.methods("<-").count("ping") == 2
    answers = [m for d, m in tap.messages if d == "->" and "result" in m and m["result"] == {}]
    assert len(answers) == 2  # PING-01: empty results


def test_a_ping_is_answered_while_every_worker_is_busy(memory_client: Callable[..., Client]) -> None:
    """PING-12: a ping does not wait for a worker; here the only one is held by a tool."""
    server = Server("busy", max_workers=1)
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
        time.sleep(0.05)  # past the crew's standby delay: the tool's thread is no longer the reader
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


# --- cancellation ----------------------------------------------------------------------------


def test_timeout_cancels_on_the_server_and_no_response_follows(stdio_client: Callable[..., Client], tap: Any) -> None:
    client = stdio_client()
    with pytest.raises(RequestTimeout):
        client.request("test/sleep", {"seconds": 5}, timeout=0.3)
    sleep_id = next(m["id"] for d, m in tap.messages if d == "->" and m.get("method") == "test/sleep")
    cancel = next(m for d, m in tap.messages if d == "->" and m.get("method") == "notifications/cancelled")
    assert cancel["params"]["requestId"] == sleep_id  # CAN-20
    records = wait_until(lambda: client.request("test/cancelled")["cancelled"])
    assert records == [{"id": sleep_id, "reason": "timed out after 0.3 s"}]  # CAN-04: handler told
    client.ping()
    assert not any(d == "<-" and m.get("id") == sleep_id for d, m in tap.messages)  # CAN-06


def test_explicit_cancel_from_another_thread(stdio_client: Callable[..., Client]) -> None:
    client = stdio_client()
    pending = client.session.start_request("test/sleep", {"seconds": 5})
    threading.Timer(0.2, pending.cancel, args=("the user pressed stop",)).start()
    with pytest.raises(RequestCancelled) as info:
        pending.result(5)
    assert "the user pressed stop" in info.value.message
    records = wait_until(lambda: client.request("test/cancelled")["cancelled"])
    assert records[0]["reason"] == "the user pressed stop"
    assert pending.cancel() is False  # CAN-02: nothing left to cancel


def test_server_cancels_a_request_it_sent_to_the_client(memory_client: Callable[..., Client]) -> None:
    server = Server("asker")
    outcome: dict[str, Any] = {}

    def ask(ctx: RequestContext) -> dict[str, Any]:
        try:
            ctx.request("test/slow", timeout=0.2)
        except RequestTimeout as exc:
            outcome["server"] = exc
        return {}

    server.request_handlers["test/ask"] = ask
    client = memory_client(server)
    client_saw = threading.Event()

    def slow(ctx: RequestContext) -> dict[str, Any]:
        if ctx.cancelled.wait(5):
            outcome["client_reason"] = ctx.cancel_reason
            client_saw.set()
        return {}

    client.request_handlers["test/slow"] = slow
    client.request("test/ask")
    assert isinstance(outcome["server"], RequestTimeout)
    assert client_saw.wait(2) and outcome["client_reason"] == "timed out after 0.2 s"


# --- progress --------------------------------------------------------------------------------


def test_progress_client_to_server(stdio_client: Callable[..., Client], tap: Any) -> None:
    client = stdio_client()
    updates: list[dict[str, Any]] = []
    assert client.request("test/progress", {"steps": 4}, on_progress=updates.append) == {"steps": 4}
    request = next(m for d, m in tap.messages if d == "->" and m.get("method") == "test/progress")
    token = request["params"]["_meta"]["progressToken"]  # PROG-01
    assert updates == [{"progressToken": token, "progress": i, "total": 4} for i in range(1, 5)]
    # every progress notification arrived before the result (PROG-15)
    kinds = [("progress" if m.get("method") == "notifications/progress" else "result")
             for d, m in tap.messages
             if d == "<-" and (m.get("method") == "notifications/progress" or m.get("id") == request["id"])]
    assert kinds == ["progress"] * 4 + ["result"]


def test_progress_tokens_of_requests_in_flight_are_distinct(memory_client: Callable[..., Client]) -> None:
    """PROG-02: two requests running at once carry different tokens, and each one's progress
    reaches its own callback only."""
    server = Server("two")
    both_running = threading.Barrier(2, timeout=5)

    def report(ctx: RequestContext) -> dict[str, Any]:
        both_running.wait()
        for step in (1, 2, 3):
            ctx.report_progress(step, total=3)
        return {"token": ctx.progress_token}

    server.request_handlers["test/report"] = report
    client = memory_client(server)
    updates: dict[str, list[Any]] = {"a": [], "b": []}
    first = client.session.start_request("test/report", on_progress=lambda p: updates["a"].append(p["progressToken"]))
    second = client.session.start_request("test/report", on_progress=lambda p: updates["b"].append(p["progressToken"]))
    token_a, token_b = first.result(5)["token"], second.result(5)["token"]
    assert token_a != token_b  # PROG-01: and each a string or an integer
    assert all(isinstance(t, (str, int)) and not isinstance(t, bool) for t in (token_a, token_b))
    assert updates == {"a": [token_a] * 3, "b": [token_b] * 3}


def test_progress_server_to_client_and_its_rules(memory_client: Callable[..., Client], tap: Any) -> None:
    server = Server("reporter")
    seen: list[dict[str, Any]] = []
    kept: dict[str, Any] = {}

    def ask(ctx: RequestContext) -> dict[str, Any]:
        return ctx.request("test/work", on_progress=seen.append)

    server.request_handlers["test/ask"] = ask
    client = memory_client(server)

    def work(ctx: RequestContext) -> dict[str, Any]:
        ctx.report_progress(0.5)  # PROG-07 floats, PROG-12 no total
        ctx.report_progress(1.5, total=2.0)
        with pytest.raises(ValueError):
            ctx.report_progress(1.0)  # PROG-06: must increase
        kept["ctx"] = ctx
        return {"ok": True}

    client.request_handlers["test/work"] = work
    assert client.request("test/ask") == {"ok": True}
    assert [(p["progress"], p.get("total")) for p in seen] == [(0.5, None), (1.5, 2.0)]
    kept["ctx"].report_progress(2.0)  # PROG-09, PROG-15: after completion nothing is sent
    client.ping()
    assert len(seen) == 2
    assert tap.methods("->").count("notifications/progress") == 2  # not even a notice the server would drop


def test_no_progress_token_means_no_notifications(stdio_client: Callable[..., Client], tap: Any) -> None:
    client = stdio_client()
    client.request("test/progress", {"steps": 2})
    assert "notifications/progress" not in tap.methods("<-")  # PROG-10


def test_progress_for_unknown_tokens_is_ignored() -> None:
    peer = ManualPeer()
    pending = peer.session.start_request("work", on_progress=lambda p: (_ for _ in ()).throw(AssertionError(p)))
    request = peer.next_message()
    token = request["params"]["_meta"]["progressToken"]
    peer.send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": str(token), "progress": 1}})
    peer.send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 9999, "progress": 1}})
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {}})
    assert pending.result(2) == {}
    peer.session.close()


def test_error_from_peer_handler_reaches_caller_with_its_code(memory_client: Callable[..., Client]) -> None:
    server = Server("err")

    def refuse(ctx: RequestContext) -> dict[str, Any]:
        raise McpError("User rejected sampling request", {"why": "test"}, code=-1)

    server.request_handlers["test/refuse"] = refuse
    client = memory_client(server)
    with pytest.raises(McpError) as info:
        client.request("test/refuse")
    assert (info.value.code, info.value.message, info.value.data) == (-1, "User rejected sampling request", {"why": "test"})


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
    import sys

    with Client.stdio([sys.executable, "-c", mute], ping_interval=0.2, timeout=30) as dead:
        start = time.monotonic()
        with pytest.raises(McpError) as info:
            dead.request("anything")  # would wait 30 s; the failed ping ends it much sooner
        assert time.monotonic() - start < 2  # PING-09: a timed-out ping is a dead connection
        assert "did not answer a ping" in info.value.message
