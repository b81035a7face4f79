"""server/utilities/logging: setLevel, notifications/message, and forwarding Python logging.

https://modelcontextprotocol.io/specification/2024-11-05/server/utilities/logging
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import pytest

from mcp_ref import Client, InvalidParams, MethodNotFound, RequestContext, Server


def collector() -> tuple[list[dict[str, Any]], Callable[[dict[str, Any]], None]]:
    messages: list[dict[str, Any]] = []
    return messages, messages.append


def test_set_level_filters_messages(connect: Callable[..., Client]) -> None:
    messages, on_log = collector()
    client = connect(on_log_message=on_log)
    assert client.call_tool("log_something")["content"][0]["text"] == "sent at: debug, info, warning"  # LOG-21
    client.set_logging_level("warning")
    assert client.call_tool("log_something")["content"][0]["text"] == "sent at: warning"  # LOG-20
    client.ping()
    assert [m["level"] for m in messages] == ["debug", "info", "warning", "warning"]
    assert messages[0] == {"level": "debug", "logger": "demo", "data": {"message": "hello from the demo server"}}


def test_invalid_level_is_32602(connect: Callable[..., Client], tap: Any) -> None:
    client = connect()
    with tap.deliberately_invalid(), pytest.raises(InvalidParams, match="verbose"):
        client.set_logging_level("verbose")  # LOG-03
    client.set_logging_level("emergency")


def test_logging_capability_can_be_left_out(memory_client: Callable[..., Client]) -> None:
    client = memory_client(Server("quiet", logging=False))
    assert "logging" not in client.server_capabilities
    with pytest.raises(MethodNotFound):
        client.set_logging_level("info")


def test_python_logging_is_forwarded_to_clients(memory_client: Callable[..., Client]) -> None:
    server = Server("logs")
    app_log = logging.getLogger("myapp.tools")
    app_log.setLevel(logging.DEBUG)
    handler = server.log_handler()
    app_log.addHandler(handler)
    logging.getLogger("mcp_ref.session").addHandler(handler)  # never forwarded: could recurse

    @server.tool()
    def work() -> str:
        app_log.info("working on %s", "it")
        app_log.debug("details")
        logging.getLogger("mcp_ref.session").warning("internal")
        return "ok"

    messages: list[dict[str, Any]] = []
    got = threading.Event()

    def on_log(params: dict[str, Any]) -> None:
        messages.append(params)
        got.set()

    try:
        client = memory_client(server, on_log_message=on_log)
        client.set_logging_level("info")
        client.call_tool("work")
        client.ping()
    finally:
        app_log.removeHandler(handler)
        logging.getLogger("mcp_ref.session").removeHandler(handler)
    assert messages == [{"level": "info", "data": "working on it", "logger": "myapp.tools"}]


def test_ctx_log_rejects_unknown_levels(memory_client: Callable[..., Client]) -> None:
    server = Server("logs")

    @server.tool()
    def bad(ctx: RequestContext) -> str:
        ctx.log("loud", "x")
        return "unreachable"

    client = memory_client(server)
    result = client.call_tool("bad")
    assert result["isError"] is True and "unknown log level" in result["content"][0]["text"]
