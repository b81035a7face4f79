"""What a ``Client`` offering every revision does with a server of 2026-07-28 for the calls that revision took away
(revisions/client_subscriptions.py): ``ping``, ``set_logging_level``, ``subscribe_resource`` and
the ``on_list_changed``/``on_resource_updated`` callbacks.

https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions
https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging
The servers are real: ``mcp-ref serve`` over stdio and over Streamable HTTP, and the same server
behind tests/peers/broken_stateless_server.py's relay where a server must misbehave (notifications
of another subscription, an acknowledgement that leaves a URI out, a server that stops answering).
What a user depends on: the calls they already make keep their meaning in the new revision, and
what the server will not do is said, not silently lost.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_ref import Client, McpError
from mcp_ref.messages import ConnectionClosed, InvalidParams
from mcp_ref.revisions.stateless_client import ALL_VERSIONS

from ..conftest import DEMO_SERVER, SseServerProcess, wait_until

RELAY = str(Path(__file__).resolve().parents[1] / "peers" / "broken_stateless_server.py")
SERVE = [sys.executable, "-m", "mcp_ref", "serve"]
MODERN = "2026-07-28"
SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId"
LOG_LEVEL = "io.modelcontextprotocol/logLevel"


class Wire:
    """Every message the client wrote and read, decoded (a trace callback)."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def __call__(self, direction: str, data: bytes) -> None:
        with self.lock:
            (self.sent if direction == "->" else self.received).append(json.loads(data))

    def methods(self) -> list[str]:
        with self.lock:
            return [msg["method"] for msg in self.sent if "method" in msg]

    def requests(self, method: str) -> list[dict[str, Any]]:
        with self.lock:
            return [msg for msg in self.sent if msg.get("method") == method and "id" in msg]


@pytest.fixture
def connect() -> Iterator[Callable[..., tuple[Client, Wire]]]:
    """Factory: ``connect(command, **options)``: a Client offering every revision, over stdio, and its wire."""
    clients: list[Client] = []

    def make(command: list[str], **options: Any) -> tuple[Client, Wire]:
        wire = Wire()
        options.setdefault("timeout", 10.0)
        options.setdefault("protocol_versions", ALL_VERSIONS)
        made = Client.stdio(command, trace=wire, **options)
        clients.append(made)
        return made, wire

    yield make
    for made in clients:
        made.close()


def relayed(mode: str) -> list[str]:
    return [sys.executable, RELAY, "--mode", mode]


def test_a_client_of_every_revision_reaches_a_default_server_in_2026_07_28_without_a_handshake(connect: Any) -> None:
    client, wire = connect(SERVE)
    assert client.protocol_version == MODERN
    assert client.server_info and client.server_info["name"] == "mcp-ref-demo"
    assert client.call_tool("add", {"a": 2, "b": 3})["content"][0]["text"] == "5"
    assert "initialize" not in wire.methods() and "notifications/initialized" not in wire.methods()
    assert wire.methods()[0] == "server/discover"


def test_ping_asks_server_discover_and_nothing_called_ping_is_sent(connect: Any) -> None:
    client, wire = connect(SERVE)
    before = len(wire.requests("server/discover"))
    client.ping()
    assert len(wire.requests("server/discover")) == before + 1
    assert "ping" not in wire.methods()


def test_ping_interval_closes_the_connection_when_discover_goes_unanswered(connect: Any) -> None:
    client, wire = connect(relayed("mute-after-discover"), ping_interval=0.5)
    assert client.protocol_version == MODERN
    wait_until(lambda: client.is_closed, timeout=10)
    with pytest.raises(ConnectionClosed, match="server/discover"):
        client.list_tools()
    assert len(wire.requests("server/discover")) >= 2


def test_set_logging_level_sends_nothing_and_every_later_request_carries_the_level(connect: Any) -> None:
    messages: list[dict[str, Any]] = []
    client, wire = connect(SERVE, on_log_message=messages.append)
    client.call_tool("log_something", {})
    assert messages == []  # LOGX-01: no level asked, no message
    sent = len(wire.sent)
    client.set_logging_level("warning")
    assert len(wire.sent) == sent  # nothing on the wire for the call itself
    client.call_tool("log_something", {})
    assert [m["level"] for m in messages] == ["warning"]  # LOGX-02: at the level and above, during the call
    assert all(msg["params"]["_meta"][LOG_LEVEL] == "warning" for msg in wire.sent[sent:] if "id" in msg)
    assert "logging/setLevel" not in wire.methods()


@pytest.mark.parametrize("level", ["loud", "", None, 3, "DEBUG"])
def test_an_unknown_log_level_fails_at_once_naming_the_levels(connect: Any, level: Any) -> None:
    client, wire = connect(SERVE)
    sent = len(wire.sent)
    with pytest.raises(InvalidParams, match="debug, info, notice"):
        client.set_logging_level(level)
    assert len(wire.sent) == sent
    client.call_tool("add", {"a": 1, "b": 1})
    assert LOG_LEVEL not in wire.sent[-1]["params"]["_meta"]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_on_list_changed_hears_a_change_through_a_subscription_opened_at_connect(connect: Any, transport: str) -> None:
    heard: list[str] = []
    server = SseServerProcess(DEMO_SERVER, "--transport", "http") if transport == "http" else None
    if server is None:
        client, wire = connect(SERVE, on_list_changed=heard.append)
    else:
        wire = Wire()
        client = Client.http(server.url, trace=wire, fallback=False, timeout=10, on_list_changed=heard.append,
                             protocol_versions=ALL_VERSIONS)
    try:
        assert client.protocol_version == MODERN
        listen = wire.requests("subscriptions/listen")
        assert len(listen) == 1
        assert listen[0]["params"]["notifications"] == {  # what the server says may change, no more
            "toolsListChanged": True, "promptsListChanged": True, "resourcesListChanged": True}
        client.call_tool("toggle_extra_tool", {})
        wait_until(lambda: "tools" in heard, timeout=5)
        client.call_tool("toggle_extra_tool", {})
        wait_until(lambda: heard.count("tools") == 2, timeout=5)
    finally:
        client.close()
        if server is not None:
            server.close()


def test_without_callbacks_no_subscription_is_opened(connect: Any) -> None:
    client, wire = connect(SERVE)
    client.call_tool("toggle_extra_tool", {})
    assert "subscriptions/listen" not in wire.methods()


def test_subscribe_resource_reopens_the_subscription_and_updates_reach_the_callback(connect: Any) -> None:
    updated: list[str] = []
    client, wire = connect(SERVE, on_resource_updated=updated.append)
    assert "subscriptions/listen" not in wire.methods()  # nothing asked for yet
    client.subscribe_resource("demo://counter")
    first = wire.requests("subscriptions/listen")
    assert [m["params"]["notifications"] for m in first] == [{"resourceSubscriptions": ["demo://counter"]}]
    client.call_tool("increment", {})
    wait_until(lambda: updated == ["demo://counter"], timeout=5)

    client.subscribe_resource("demo://readme")  # a second URI: the old subscription ends, a new one asks both
    listens = wire.requests("subscriptions/listen")
    assert listens[-1]["params"]["notifications"] == {"resourceSubscriptions": ["demo://counter", "demo://readme"]}
    cancelled = [m["params"]["requestId"] for m in wire.sent if m.get("method") == "notifications/cancelled"]
    assert cancelled == [first[0]["id"]]

    client.unsubscribe_resource("demo://counter")
    client.unsubscribe_resource("demo://readme")  # nothing left to hear: no subscription at all
    assert len(wire.requests("subscriptions/listen")) == 3
    client.call_tool("increment", {})
    client.ping()  # a round trip after the change: an update would have come before its answer
    assert updated == ["demo://counter"]


@pytest.mark.parametrize("mode", ["foreign-tag", "untagged"])
def test_notifications_of_another_subscription_are_dropped(connect: Any, mode: str) -> None:
    """SUBS-05: a change notification tagged with an id that is not our subscription's, or with
    none, never reaches the callback."""
    heard: list[str] = []
    client, wire = connect(relayed(mode), on_list_changed=heard.append)
    client.call_tool("toggle_extra_tool", {})
    wait_until(lambda: any(m.get("method") == "notifications/tools/list_changed" for m in wire.received), timeout=5)
    client.ping()
    assert heard == []


def test_a_uri_the_acknowledgement_leaves_out_is_an_error_naming_it(connect: Any) -> None:
    client, _ = connect(relayed("unacknowledged-uris"), on_resource_updated=lambda uri: None)
    with pytest.raises(McpError, match="demo://counter"):  # SUBS-04
        client.subscribe_resource("demo://counter")


def test_a_subscription_never_acknowledged_fails_within_the_timeout(connect: Any) -> None:
    """A server of the revision that swallows the listen request: subscribe_resource says so in time."""
    client, wire = connect(relayed("mute-listen"), on_resource_updated=lambda uri: None)
    with pytest.raises(McpError, match="not acknowledged within 1 s"):
        client.subscribe_resource("demo://counter", timeout=1)
    listen = wire.requests("subscriptions/listen")[-1]
    cancelled = [m["params"]["requestId"] for m in wire.sent if m.get("method") == "notifications/cancelled"]
    assert listen["id"] in cancelled  # given up, and the server told
