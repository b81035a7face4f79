"""The session engine under load and misuse: correlation, nesting, closing, and no hangs.

https://modelcontextprotocol.io/specification/2024-11-05/basic/messages (MSG-04, MSG-05)
https://modelcontextprotocol.io/specification/2024-11-05/basic/lifecycle (LC-24)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from mcp_ref import Client, ConnectionClosed, McpError, RequestContext, Server

from ..conftest import Waiters


def test_8_threads_x_100_concurrent_requests_are_correlated(stdio_client: Callable[..., Client]) -> None:
    client = stdio_client()
    failures: list[str] = []
    ids: set[Any] = set()
    ids_lock = threading.Lock()

    def worker(n: int) -> None:
        for i in range(100):
            result = client.request("test/echo", {"thread": n, "i": i})
            if result["params"] != {"thread": n, "i": i}:
                failures.append(f"thread {n} call {i} got {result}")
            with ids_lock:
                ids.add(result["id"])

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not failures
    assert len(ids) == 800  # MSG-04: every request had its own id


def test_nested_requests_while_other_calls_are_in_flight(stdio_client: Callable[..., Client]) -> None:
    client = stdio_client()
    results: list[Any] = []

    def nested() -> None:
        results.append(client.request("test/ping_client", {"times": 5}))

    def sleeper() -> None:
        results.append(client.request("test/sleep", {"seconds": 0.3}))

    threads = [threading.Thread(target=f) for f in (nested, sleeper, nested, sleeper, nested)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert sorted(map(str, results)) == sorted(map(str, [{"pinged": 5}] * 3 + [{"slept": 0.3}] * 2))


def test_nested_request_with_a_single_worker_does_not_deadlock(memory_client: Callable[..., Client]) -> None:
    server = Server("tiny", max_running=1)
    server.request_handlers["test/nested"] = lambda ctx: {"inner": ctx.request("test/inner", timeout=5)}
    client = memory_client(server)
    client.request_handlers["test/inner"] = lambda ctx: {"from": "client"}
    assert client.request("test/nested", timeout=5) == {"inner": {"from": "client"}}


def test_a_request_from_a_notification_callback_fails_fast_instead_of_hanging(
        memory_client: Callable[..., Client]) -> None:
    server = Server("notifier")
    errors: list[BaseException] = []

    def announce(ctx: RequestContext) -> dict[str, Any]:
        ctx.notify("notifications/test", {})
        return {}

    server.request_handlers["test/announce"] = announce
    client_box: list[Client] = []

    def on_notification(method: str, params: dict[str, Any]) -> None:
        try:
            client_box[0].ping()
        except RuntimeError as exc:
            errors.append(exc)

    client = memory_client(server, on_notification=on_notification)
    client_box.append(client)
    start = time.monotonic()
    client.request("test/announce")
    client.ping()
    assert time.monotonic() - start < 2
    assert len(errors) == 1 and "reader thread" in str(errors[0])


def test_close_fails_every_pending_call_and_later_calls_fail_at_once(stdio_client: Callable[..., Client]) -> None:
    client = stdio_client()
    waiters = Waiters(lambda: client.request("test/sleep", {"seconds": 30}), 3)
    time.sleep(0.2)
    start = time.monotonic()
    client.close()
    outcomes = waiters.join(5)
    assert time.monotonic() - start < 3
    assert len(outcomes) == 3 and all(isinstance(e, ConnectionClosed) for e in outcomes)
    with pytest.raises(ConnectionClosed):
        client.ping()
    client.close()  # twice is fine


def test_a_slow_handler_does_not_delay_other_requests(stdio_client: Callable[..., Client]) -> None:
    client = stdio_client()
    slow = client.session.start_request("test/sleep", {"seconds": 2})
    start = time.monotonic()
    for _ in range(20):
        client.ping()
    assert time.monotonic() - start < 1.5
    assert slow.result(5) == {"slept": 2.0}


def test_error_from_peer_handler_reaches_caller_with_its_code(memory_client: Callable[..., Client]) -> None:
    server = Server("err")

    def refuse(ctx: RequestContext) -> dict[str, Any]:
        raise McpError("User rejected sampling request", {"why": "test"}, code=-1)

    server.request_handlers["test/refuse"] = refuse
    client = memory_client(server)
    with pytest.raises(McpError) as info:
        client.request("test/refuse")
    assert (info.value.code, info.value.message, info.value.data) == (-1, "User rejected sampling request", {"why": "test"})
