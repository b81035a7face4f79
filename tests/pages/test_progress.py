"""basic/utilities/progress: news of a long request, in both directions.

https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/progress (mcp_ref/progress.py)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from mcp_ref import Client, RequestContext, Server

from ..conftest import ManualPeer


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


@pytest.mark.parametrize("version, sent", [("2024-11-05", False), ("2025-03-26", True), ("2025-11-25", True)])
def test_a_progress_message_goes_to_sessions_of_2025_03_26_and_later(
        memory_client: Callable[..., Client], version: str, sent: bool) -> None:
    """revisions/v2025_03_26.py, item 6: ``message`` on notifications/progress, for people."""
    server = Server("reporter")

    @server.tool()
    def work(ctx: RequestContext) -> str:
        ctx.report_progress(1, 2, message="halfway")
        with pytest.raises(ValueError):
            ctx.report_progress(2, 2, message=7)  # type: ignore[arg-type]
        return "done"

    seen: list[dict[str, Any]] = []
    client = memory_client(server, protocol_versions=[version])
    client.call_tool("work", on_progress=seen.append)
    assert seen == [{"progressToken": seen[0]["progressToken"], "progress": 1, "total": 2,
                     **({"message": "halfway"} if sent else {})}]
