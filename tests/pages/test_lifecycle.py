"""basic/lifecycle: initialize, version negotiation, the phase gate, and the client's checks.

https://modelcontextprotocol.io/specification/2024-11-05/basic/lifecycle
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import pytest

from mcp_ref import Client, RequestTimeout, Server, UnsupportedProtocolVersion

from ..conftest import RawServer

INIT_PARAMS = {"capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}


def initialize(raw: RawServer, version: Any = "2024-11-05", **overrides: Any) -> Any:
    params = {"protocolVersion": version, **INIT_PARAMS, **overrides}
    return raw.call({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})


@pytest.mark.parametrize(("proposed", "answered"), [
    ("2024-11-05", "2024-11-05"), ("2025-03-26", "2025-03-26"), ("2025-06-18", "2025-06-18"),
    ("2025-11-25", "2025-11-25"),  # LC-12: a version the server speaks is echoed
    ("2026-07-28", "2025-11-25"), ("2024-10-07", "2025-11-25"), ("1.0.0", "2025-11-25"),  # else its newest
    ("", "2025-11-25"), ("2025-11-25 ", "2025-11-25"),
])
def test_server_answers_the_proposal_it_speaks_or_else_its_newest(raw: RawServer, proposed: str, answered: str) -> None:
    reply = initialize(raw, proposed)
    result = reply["result"]
    assert result["protocolVersion"] == answered  # LC-12
    assert result["serverInfo"] == {"name": "mcp-ref-test", "version": "9.9.9"}  # LC-07
    assert isinstance(result["capabilities"], dict)
    assert result["instructions"] == "A server for mcp_ref's tests."


@pytest.mark.parametrize("params, word", [
    ({"capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}, "protocolVersion"),
    ({"protocolVersion": 20241105, "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}, "protocolVersion"),
    ({"protocolVersion": "2024-11-05", "clientInfo": {"name": "x", "version": "1"}}, "capabilities"),
    ({"protocolVersion": "2024-11-05", "capabilities": {}}, "clientInfo"),
])
def test_malformed_initialize_is_invalid_params_and_can_be_retried(raw: RawServer, params: Any, word: str) -> None:
    reply = raw.call({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    assert reply["error"]["code"] == -32602 and word in reply["error"]["message"]
    assert initialize(raw)["result"]["protocolVersion"] == "2024-11-05"


def test_server_discover_before_initialize_gets_32601_at_once(raw: RawServer) -> None:
    start = time.monotonic()
    reply = raw.call({"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {}})
    assert reply["id"] == 0 and reply["error"]["code"] == -32601
    assert time.monotonic() - start < 3.0  # at once, not after a 10 s stall (the bound leaves room for a loaded machine)
    assert initialize(raw)["result"]["protocolVersion"] == "2024-11-05"  # and initialize still works


def test_phase_gate(raw: RawServer) -> None:
    # Before initialize: ping is allowed (PING), a known method gets an error naming the fix.
    assert raw.call({"jsonrpc": "2.0", "id": "p", "method": "ping"})["result"] == {}
    early = raw.call({"jsonrpc": "2.0", "id": 2, "method": "test/echo"})
    assert early["error"]["code"] == -32600 and "initialize first" in early["error"]["message"]
    # Initialize answered, notifications/initialized not yet arrived: LC-09 lets the client send
    # requests once it has the result (over HTTP+SSE the notification may simply be overtaken).
    initialize(raw)
    between = raw.call({"jsonrpc": "2.0", "id": 3, "method": "test/echo"})
    assert between["result"]["id"] == 3
    assert raw.call({"jsonrpc": "2.0", "id": 4, "method": "ping"})["result"] == {}
    # Unknown methods are -32601 in every phase.
    assert raw.call({"jsonrpc": "2.0", "id": 5, "method": "nope"})["error"]["code"] == -32601
    raw.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    assert raw.call({"jsonrpc": "2.0", "id": 6, "method": "test/echo"})["result"]["id"] == 6
    again = initialize(raw)
    assert again["error"]["code"] == -32600 and "already initialized" in again["error"]["message"]


def test_client_runs_the_lifecycle_in_order(stdio_client: Callable[..., Client], tap: Any) -> None:
    client = stdio_client()
    assert client.protocol_version == "2025-11-25"  # the newest both speak
    assert client.server_info == {"name": "mcp-ref-test", "version": "9.9.9"}
    assert client.instructions == "A server for mcp_ref's tests."
    assert client.server_capabilities == {"logging": {}}  # the test server registers no features
    sent = tap.methods("->")
    assert sent[:2] == ["initialize", "notifications/initialized"]  # LC-04, LC-08
    first = tap.messages[0][1]
    assert first["params"]["protocolVersion"] == "2025-11-25"  # LC-11: our newest
    assert first["params"]["clientInfo"]["name"] == "mcp_ref"  # LC-06
    assert first["params"]["capabilities"] == {}  # LC-05


def test_client_disconnects_when_the_server_picks_an_unsupported_version() -> None:
    from mcp_ref.machinery.memory import MemoryTransport

    server = Server("future")
    server.request_handlers["initialize"] = lambda ctx: {
        "protocolVersion": "2099-01-01", "capabilities": {}, "serverInfo": {"name": "future", "version": "1"}}
    server_end, client_end = MemoryTransport.pair()
    session = server.open_session(server_end)
    session.start()
    with pytest.raises(UnsupportedProtocolVersion) as info:
        Client(client_end).connect()
    assert "2099-01-01" in info.value.message and info.value.code == -32602  # LC-13, LC-26
    assert session.closed.wait(2)  # the client hung up: the server's session ended


def test_initialize_timeout_is_clear_and_initialize_is_never_cancelled(tmp_path: Any, tap: Any) -> None:
    log = tmp_path / "received.txt"
    code = (
        "import sys\n"
        f"out = open({str(log)!r}, 'w')\n"
        "for line in sys.stdin:\n"
        "    out.write(line); out.flush()\n"
    )
    start = time.monotonic()
    with pytest.raises(RequestTimeout) as info:
        Client.stdio([sys.executable, "-c", code], timeout=0.5, trace=tap)
    assert time.monotonic() - start < 5
    assert "initialize" in info.value.message
    time.sleep(0.1)
    received = log.read_text()
    assert '"method":"initialize"' in received
    assert "notifications/cancelled" not in received  # CAN-03


@pytest.mark.parametrize("version, fields", [
    ("2024-11-05", {}), ("2025-03-26", {}), ("2025-06-18", {"title": "Notes"}),
    ("2025-11-25", {"title": "Notes", "description": "Keeps notes", "websiteUrl": "https://notes.example",
                    "icons": [{"src": "https://notes.example/icon.png", "mimeType": "image/png"}]}),
])
def test_server_info_carries_the_later_fields_only_to_sessions_that_speak_them(version: str, fields: Any) -> None:
    """revisions/v2025_06_18.py, item 4 (title); v2025_11_25.py, item 1 (description, websiteUrl, icons)."""
    server = Server("notes", "1.0", title="Notes", description="Keeps notes", website_url="https://notes.example",
                    icons=[{"src": "https://notes.example/icon.png", "mimeType": "image/png"}])
    with Client.in_memory(server, protocol_versions=[version]) as client:
        assert client.server_info == {"name": "notes", "version": "1.0", **fields}


def test_server_info_fields_of_the_wrong_shape_fail_at_construction() -> None:
    with pytest.raises(TypeError, match="title"):
        Server("notes", title=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="src"):
        Server("notes", icons=[{"href": "x"}])
