"""basic/utilities/cancellation: giving up on a request, in both directions.

https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/cancellation (mcp_ref/cancellation.py)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from mcp_ref import Client, RequestCancelled, RequestContext, RequestTimeout, Server

from .conftest import wait_until


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
