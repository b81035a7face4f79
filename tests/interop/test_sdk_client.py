"""Interop: the official Python SDK's client (``mcp`` 2.x) against our server in the revisions with
a handshake, over stdio, over HTTP with SSE (``mcp-ref serve --transport sse``) and over
Streamable HTTP (``mcp-ref serve --transport http``; the SDK's Client given a URL, its default
transport).

https://modelcontextprotocol.io/specification/2024-11-05/basic/lifecycle
https://modelcontextprotocol.io/specification/2024-11-05/basic/transports
https://modelcontextprotocol.io/specification/2025-03-26/basic/transports
https://modelcontextprotocol.io/specification/2024-11-05/server
https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
Our demo server serves 2026-07-28 beside the handshake, so the SDK's default mode ("auto",
which probes ``server/discover``) now reaches 2026-07-28 with it (tests/interop/
test_sdk_client_2026.py). What this file proves belongs to the handshake (ping,
logging/setLevel, resources/subscribe, list changes on the session, requests of our server to
the client), so the SDK is pinned to ``mode="legacy"`` here, and negotiates 2025-11-25. The SDK
in its default mode against our server pinned to the handshake revisions
(tests/peers/handshake_demo.py) must have its probe answered -32601 at once and fall back to
2025-11-25. The sampling and roots tools, which do not depend on the era, run in both modes.
A failure names the feature and what the SDK saw.
"""

from __future__ import annotations

import base64
import json
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..conftest import DEMO_SERVER, ROOT, SseServerProcess
from ..support.schema_tap import SchemaTap

mcp = pytest.importorskip("mcp", reason="the official SDK (pip install 'mcp>=2') is the interop peer")
anyio = pytest.importorskip("anyio")

# The SDK warns that 2024-era methods are removed in its newest revision; that is expected here.
pytestmark = pytest.mark.filterwarnings("ignore:.*(deprecated|removed) as of 2026-07-28")


@pytest.fixture
def server_trace(tmp_path: Any) -> Path:
    """Where our server writes every message it sends and receives (``--trace-file``)."""
    return Path(tmp_path) / "server-trace.txt"


@pytest.fixture(params=["stdio", "sse", "http"])
def sdk_client(request: Any, server_trace: Path) -> Iterator[Callable[..., Any]]:
    """Factory: an (unentered) SDK Client for our demo server over the transport under test
    (http: a URL, which the SDK's Client speaks Streamable HTTP to by default).

    Our server writes every message to a trace file; at teardown each is checked against the
    2024-11-05 schema, so a violation by our side fails the test and says which message it was.
    """
    from mcp import Client, StdioServerParameters
    from mcp.client.sse import sse_client

    servers: list[SseServerProcess] = []
    trace = str(server_trace)

    def make(mode: str = "legacy", target: str = DEMO_SERVER, **kwargs: Any) -> Any:
        # mode="legacy" by default: the features under test here are those of the handshake
        # revisions, removed in 2026-07-28, which the SDK's default "auto" reaches with our server.
        kwargs["mode"] = mode
        if request.param == "stdio":
            args = ["-m", "mcp_ref", "serve", target, "--trace-file", trace]
            return Client(StdioServerParameters(command=sys.executable, args=args, cwd=str(ROOT)), **kwargs)
        if request.param == "http":
            server = SseServerProcess(target, "--trace-file", trace, "--transport", "http")
            servers.append(server)
            return Client(server.url, **kwargs)  # the SDK's default transport for a URL
        server = SseServerProcess(target, "--trace-file", trace)
        servers.append(server)
        return Client(sse_client(server.url), **kwargs)

    yield make
    for server in servers:
        server.close()
    tap = SchemaTap("server")
    tap.feed_file(trace)
    assert tap.messages, "our server traced no message"
    tap.assert_clean()


HANDSHAKE_DEMO = str(ROOT / "tests" / "peers" / "handshake_demo.py") + ":server"


# legacy: the SDK starts with initialize. auto (the SDK's default): it probes server/discover
# first, which our server of the handshake revisions alone must refuse at once.
@pytest.mark.parametrize(("mode", "target"), [("legacy", DEMO_SERVER), ("auto", HANDSHAKE_DEMO)])
def test_sdk_client_default_settings_connects_and_pings(sdk_client: Callable[..., Any], mode: str, target: str) -> None:
    async def main() -> tuple[str, Any, float]:
        start = time.monotonic()
        async with sdk_client(mode, target) as client:
            elapsed = time.monotonic() - start
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                await client.send_ping()
            return client.protocol_version, client.server_info, elapsed

    version, info, elapsed = anyio.run(main)
    assert version == "2025-11-25"  # the SDK's newest, which we speak too
    assert info.name == "mcp-ref-demo"
    assert elapsed < 30  # the probe was answered, not waited out (the SDK would wait for ever; a busy machine takes seconds)


def test_sdk_client_uses_every_server_feature(sdk_client: Callable[..., Any]) -> None:
    from mcp import types
    from mcp.shared.exceptions import MCPError

    logs: list[Any] = []
    notifications: list[Any] = []
    progress: list[tuple[float, float | None]] = []

    async def on_log(params: Any) -> None:
        logs.append(params)

    async def on_message(message: Any) -> None:
        notifications.append(message)

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total))

    async def main() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with sdk_client(logging_callback=on_log, message_handler=on_message) as client:
            caps = client.server_capabilities
            seen["caps"] = (caps.tools is not None, caps.resources is not None and caps.resources.subscribe,
                            caps.prompts is not None, caps.logging is not None)
            # tools
            tools = (await client.list_tools()).tools
            seen["tools"] = sorted(t.name for t in tools)
            added = await client.call_tool("add", {"a": 20, "b": 22})
            seen["add"] = (added.is_error, added.content[0].text)
            failed = await client.call_tool("fail")
            seen["fail"] = failed.is_error
            slow = await client.call_tool("slow_count", {"steps": 3, "delay": 0.01}, progress_callback=on_progress)
            seen["slow"] = slow.content[0].text
            try:
                await client.call_tool("no_such_tool", {})
                seen["unknown_tool"] = None
            except MCPError as exc:
                seen["unknown_tool"] = exc.error.code
            # resources and templates
            seen["resources"] = sorted(str(r.uri) for r in (await client.list_resources()).resources)
            seen["templates"] = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
            seen["readme"] = (await client.read_resource("demo://readme")).contents[0].text
            blob = (await client.read_resource("demo://logo.png")).contents[0].blob
            seen["logo"] = base64.b64decode(blob)[:4]
            seen["note"] = (await client.read_resource("demo://notes/mcp")).contents[0].text
            try:
                await client.read_resource("demo://missing")
                seen["missing"] = None
            except MCPError as exc:
                seen["missing"] = exc.error.code
            await client.subscribe_resource("demo://counter")
            await client.call_tool("increment")
            # prompts
            seen["prompts"] = sorted(p.name for p in (await client.list_prompts()).prompts)
            prompt = await client.get_prompt("review_code", {"code": "x = 1"})
            seen["prompt"] = [m.role for m in prompt.messages]
            # completion
            completion = await client.complete(types.PromptReference(type="ref/prompt", name="review_code"),
                                               {"name": "language", "value": "py"})
            seen["completion"] = completion.completion.values
            # logging
            await client.set_logging_level("warning")
            await client.call_tool("log_something")
            with anyio.fail_after(10):  # notifications may reach the callbacks just after the answer
                while not logs or not any(getattr(n, "method", None) == "notifications/resources/updated"
                                          for n in notifications):
                    await anyio.sleep(0.01)
        return seen

    seen = anyio.run(main)
    assert seen["caps"] == (True, True, True, True), "capabilities as the SDK parsed them"
    assert {"add", "fail", "slow_count", "increment"} <= set(seen["tools"])
    assert seen["add"] == (False, "42")
    assert seen["fail"] is True, "a failing tool must come back as isError"
    assert seen["slow"] == "counted to 3" and progress == [(1, 3), (2, 3), (3, 3)], "progress notifications"
    assert seen["unknown_tool"] == -32602
    assert seen["resources"] == ["demo://counter", "demo://logo.png", "demo://readme"]
    assert seen["templates"] == ["demo://notes/{topic}", "demo://source/{+path}"]
    assert "demo server" in seen["readme"] and seen["logo"] == b"\x89PNG" and "MCP" in seen["note"]
    assert seen["missing"] == -32002
    assert seen["prompts"] == ["explain_readme", "greeting", "review_code"]
    assert seen["prompt"] == ["user", "assistant"]
    assert seen["completion"] == ["python"]
    updated = [n for n in notifications if getattr(n, "method", None) == "notifications/resources/updated"]
    assert updated and str(updated[0].params.uri) == "demo://counter", f"resource update, got {notifications!r}"
    assert [(log.level, log.logger) for log in logs] == [("warning", "demo")], "only warning passes setLevel(warning)"


@pytest.mark.parametrize("mode", ["legacy", "auto"])  # requests to the client; input_required rounds in 2026-07-28
def test_sdk_client_drives_our_sampling_and_roots_tools(sdk_client: Callable[..., Any], mode: str) -> None:
    from mcp import types

    sampled: list[Any] = []

    async def sampling_callback(context: Any, params: Any) -> Any:
        sampled.append(params)
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text="SDK answer"),
                                         model="sdk-model", stop_reason="endTurn")

    async def list_roots_callback(context: Any) -> Any:
        return types.ListRootsResult(roots=[types.Root(uri="file:///sdk/root", name="sdk")])

    async def main() -> tuple[str, str]:
        async with sdk_client(mode, sampling_callback=sampling_callback, list_roots_callback=list_roots_callback) as client:
            asked = await client.call_tool("ask_model", {"question": "ping?"})
            roots = await client.call_tool("list_client_roots")
            return client.protocol_version, asked.content[0].text, roots.content[0].text

    version, asked, roots = anyio.run(main)
    assert version == {"legacy": "2025-11-25", "auto": "2026-07-28"}[mode]
    assert asked == "sdk-model says: SDK answer"
    assert roots == "sdk: file:///sdk/root"
    assert sampled[0].max_tokens == 100 and sampled[0].messages[0].content.text == "ping?"


def test_sdk_client_cancels_and_hears_list_changes(sdk_client: Callable[..., Any], server_trace: Path) -> None:
    """Cancellation (SDK -> our server) and notifications/tools/list_changed (our server -> SDK)."""
    notifications: list[Any] = []

    async def on_message(message: Any) -> None:
        notifications.append(getattr(message, "method", None))

    async def main() -> list[str]:
        async with sdk_client(message_handler=on_message) as client:
            with anyio.move_on_after(0.3):  # the SDK gives up: it sends notifications/cancelled
                await client.call_tool("slow_count", {"steps": 50, "delay": 0.1})
            added = await client.call_tool("toggle_extra_tool")
            names = [t.name for t in (await client.list_tools()).tools]
            await client.call_tool("toggle_extra_tool")
            with anyio.fail_after(10):  # the second list_changed may reach the handler just after the answer
                while notifications.count("notifications/tools/list_changed") < 2:
                    await anyio.sleep(0.01)
            return [added.content[0].text, *names]

    result = anyio.run(main)
    assert result[0] == "added the tool extra" and "extra" in result
    assert notifications.count("notifications/tools/list_changed") == 2
    lines = [line.split(b" ", 1) for line in server_trace.read_bytes().splitlines()]
    received = [json.loads(data) for direction, data in lines if direction == b"<-"]
    sent = [json.loads(data) for direction, data in lines if direction == b"->"]
    slow_id = next(m["id"] for m in received if m.get("method") == "tools/call" and m["params"]["name"] == "slow_count")
    cancel = next(m for m in received if m.get("method") == "notifications/cancelled")
    assert cancel["params"]["requestId"] == slow_id
    assert not any(m.get("id") == slow_id for m in sent), "our server answered a cancelled request (CAN-06)"


ELICITING_SERVER = str(ROOT / "tests" / "peers" / "eliciting_server.py") + ":server"


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_sdk_client_answers_our_servers_elicitations(transport: str) -> None:
    """client/elicitation (2025-06-18, URL mode 2025-11-25): the SDK's elicitation callback answers
    our server's form and URL elicitations, and hears notifications/elicitation/complete."""
    from mcp import Client, StdioServerParameters, types

    asked: list[Any] = []
    heard: list[Any] = []

    async def elicitation_callback(context: Any, params: Any) -> Any:
        asked.append(params)
        if params.mode == "url":
            return types.ElicitResult(action="accept")
        return types.ElicitResult(action="accept", content={"name": "Ada", "age": 36})

    async def on_message(message: Any) -> None:
        heard.append(message)

    servers: list[SseServerProcess] = []

    async def main() -> tuple[str, str]:
        if transport == "stdio":
            target: Any = StdioServerParameters(command=sys.executable, cwd=str(ROOT),
                                                args=["-m", "mcp_ref", "serve", ELICITING_SERVER])
        else:
            servers.append(SseServerProcess(ELICITING_SERVER, "--transport", "http"))
            target = servers[0].url
        # mode="legacy": the URL elicitation's notifications/elicitation/complete and ping are of the
        # handshake revisions (elicitation in 2026-07-28: tests/interop/test_sdk_client_2026.py).
        async with Client(target, mode="legacy", elicitation_callback=elicitation_callback,
                          message_handler=on_message) as client:
            signed = await client.call_tool("sign_up")
            paid = await client.call_tool("pay")
            await client.send_ping()
            return signed.content[0].text, paid.content[0].text

    try:
        signed, paid = anyio.run(main)
    finally:
        for server in servers:
            server.close()
    assert json.loads(signed) == {"action": "accept", "content": {"name": "Ada", "age": 36}}
    assert json.loads(paid) == {"action": "accept"}
    assert [params.mode for params in asked] == ["form", "url"] and asked[1].elicitation_id == "order-7"
    assert asked[0].requested_schema["required"] == ["name", "age"]
    completions = [m for m in heard if getattr(m, "method", None) == "notifications/elicitation/complete"]
    assert [m.params.elicitation_id for m in completions] == ["order-7"]
