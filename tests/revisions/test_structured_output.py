"""Structured tool output, the client's side (revisions/structured_output.py): results of the tools
it listed are checked against their ``outputSchema``.

https://modelcontextprotocol.io/specification/2025-06-18/server/tools#output-schema
The server here is a hand-written peer that breaks the promise on purpose.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

import pytest

from mcp_ref import Client, InvalidStructuredContent
from mcp_ref.machinery.memory import MemoryTransport
from mcp_ref.revisions import structured_output

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def lying_server(transport: MemoryTransport, results: dict[str, dict[str, Any]], version: str) -> None:
    """Answers initialize, tools/list (``good``, ``bad``, ``bare`` with SCHEMA; ``broken`` with a
    schema that is none) and tools/call with ``results[name]``."""
    tools = [{"name": n, "inputSchema": {"type": "object"}, "outputSchema": SCHEMA} for n in ("good", "bad", "bare")]
    tools.append({"name": "broken", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "required": 3}})
    while (data := transport.receive(None)) is not None:
        msg = json.loads(data)
        if "id" not in msg:
            continue
        result: Any = {"tools/list": {"tools": tools}, "ping": {},
                       "initialize": {"protocolVersion": version, "capabilities": {"tools": {}},
                                      "serverInfo": {"name": "liar", "version": "1"}}}.get(msg["method"])
        if msg["method"] == "tools/call":
            result = results[msg["params"]["name"]]
        transport.send(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}).encode())


def connect(version: str = "2025-06-18") -> Client:
    server_end, client_end = MemoryTransport.pair()
    results = {"good": {"content": [], "structuredContent": {"n": 1}},
               "bad": {"content": [], "structuredContent": {"n": "one"}},
               "bare": {"content": [{"type": "text", "text": "{}"}]},
               "broken": {"content": []}}
    threading.Thread(target=lying_server, args=(server_end, results, version), daemon=True).start()
    return Client(client_end, protocol_versions=[version], timeout=5).connect()


def test_a_result_that_breaks_the_schema_raises_and_keeps_the_result(caplog: Any) -> None:
    with caplog.at_level(logging.WARNING), connect() as client:
        assert client.call_tool("bad")["structuredContent"] == {"n": "one"}  # not listed yet: not checked
        client.list_tools()
        assert "cannot check the results of tool 'broken'" in caplog.text  # its schema is none: left out
        assert client.call_tool("good")["structuredContent"] == {"n": 1}
        with pytest.raises(InvalidStructuredContent, match="'bad' does not match its outputSchema at n") as bad:
            client.call_tool("bad")
        assert bad.value.result["structuredContent"] == {"n": "one"}
        with pytest.raises(InvalidStructuredContent, match="no structuredContent"):
            client.call_tool("bare")
        assert client.call_tool("broken") == {"content": []}


def test_an_older_session_checks_nothing() -> None:
    with connect("2025-03-26") as client:
        client.list_tools()
        assert client.call_tool("bare")["content"][0]["text"] == "{}"


def test_check_lets_an_error_result_through() -> None:
    validators = structured_output.remember([{"name": "t", "outputSchema": SCHEMA}], "2025-11-25")
    assert structured_output.check("t", {"content": [], "isError": True}, validators["t"])["isError"] is True
    assert structured_output.remember([{"name": "t", "outputSchema": SCHEMA}], "2024-11-05") == {}
