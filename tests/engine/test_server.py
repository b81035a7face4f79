"""The server's face (server.py): what ``Server.stats()`` tells an operator about a running
server, and the bound on a session's running requests.

Not one spec page: what a server holds (sessions, streams, subscriptions, queued messages,
running requests, threads), read from the objects that hold it, with clients of every kind.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from mcp_ref import Client, Server


def settled_stats(server: Server, want: dict[str, Any], timeout: float = 5.0) -> dict[str, Any]:
    """``server.stats()`` once every key of ``want`` has its value (or the last one seen)."""
    deadline = time.monotonic() + timeout
    while True:
        stats = server.stats()
        if all(stats.get(key) == value for key, value in want.items()) or time.monotonic() > deadline:
            return stats


def test_stats_count_sessions_by_transport_streams_subscriptions_and_running_requests() -> None:
    server = Server("observed")
    release, started = threading.Event(), threading.Event()

    @server.tool()
    def hold() -> str:
        started.set()
        release.wait(10)
        return "released"

    @server.resource("notes://a")
    def note() -> str:
        return "a"

    assert server.stats()["sessions"] == {} and server.stats()["requests_running"] == 0
    with server.sse_server() as http, Client.in_memory(server) as memory, Client.sse(http.url) as sse, \
            Client.http(http.mcp_url, fallback=False) as streamable:
        memory.subscribe_resource("notes://a")
        sse.subscribe_resource("notes://a")
        stats = settled_stats(server, {"sessions": {"memory": 1, "sse": 1, "streamable_http": 1}, "streams": 2})
        assert stats["sessions"] == {"memory": 1, "sse": 1, "streamable_http": 1}
        assert stats["streams"] == 2  # the SSE session's stream, and the Streamable HTTP GET stream
        assert stats["subscriptions"] == 2
        assert stats["threads"] >= 3  # at least the readers of the three sessions
        caller = threading.Thread(target=streamable.call_tool, args=("hold",), kwargs={"timeout": 10})
        caller.start()
        try:
            assert started.wait(5)
            held = settled_stats(server, {"requests_running": 1, "streams": 3})
            assert held["requests_running"] == 1 and held["streams"] == 3  # the call's own stream too
        finally:
            release.set()
            caller.join(5)
    assert settled_stats(server, {"sessions": {}})["sessions"] == {}
    assert server.stats()["subscriptions"] == 0  # a session that ends takes its subscriptions with it


def test_max_running_is_checked_when_the_server_is_made_and_max_workers_is_its_old_name() -> None:
    """``Server(max_running=N)``: N requests of a session run at once (tests/engine/test_reader.py
    holds it under load); a wrong N fails at construction, not when the first client comes, and
    the old keyword ``max_workers=`` still works, with a DeprecationWarning naming the new one."""
    assert Server("bounded", max_running=3).max_running == 3
    with pytest.warns(DeprecationWarning, match=r"max_running"):
        assert Server("old-name", max_workers=2).max_running == 2
    for wrong in (0, -1, 1.5, True, "4"):
        with pytest.raises(ValueError, match="max_running must be a whole number"):
            Server("wrong", max_running=wrong)  # type: ignore[arg-type]
