"""Interop: our client against servers built with the official Python SDK (``mcp`` 2.x), over
stdio, over HTTP with SSE and over Streamable HTTP (event-stream and JSON answers).

https://modelcontextprotocol.io/specification/2024-11-05/server/utilities/pagination
https://modelcontextprotocol.io/specification/2024-11-05/client/sampling
https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse
https://modelcontextprotocol.io/specification/2025-03-26/basic/transports
Every message is checked against the 2024-11-05 schema by the tap; the SDK's server speaks
several revisions, and answers our 2024-11-05 proposal in kind.

These are the revisions with a handshake: our clients here offer those alone (no probe), as
``protocol_versions=SUPPORTED_PROTOCOL_VERSIONS`` does. A default client reaches these servers in
2026-07-28, where the tools that ask the client the old way fail on the SDK's side:
test_sdk_server_2026.py.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_ref import Client, RequestTimeout

pytest.importorskip("mcp", reason="the official SDK (pip install 'mcp>=2') is the interop peer")
pytestmark = pytest.mark.usefixtures("handshake_by_default")

SERVERS = Path(__file__).parent / "sdk_servers"


def test_our_client_follows_every_page_of_a_third_party_server(tap: Any) -> None:
    with Client.stdio([sys.executable, str(SERVERS / "paged_server.py")], trace=tap, timeout=20) as client:
        assert client.protocol_version == "2025-11-25"
        assert [t["name"] for t in client.list_tools()] == [f"sdk_tool_{i}" for i in range(5)]
        assert [r["uri"] for r in client.list_resources()] == [f"sdk://r/{i}" for i in range(5)]
        assert len(client.list_resource_templates()) == 3
        assert [p["name"] for p in client.list_prompts()] == [f"sdk_prompt_{i}" for i in range(7)]
        client.ping()
    assert tap.methods("->").count("prompts/list") == 4  # 2 + 2 + 2 + 1, each page asked for


def test_sdk_server_tool_gets_sampling_and_roots_from_our_client(tap: Any) -> None:
    seen: list[dict[str, Any]] = []

    def model(params: dict[str, Any]) -> dict[str, Any]:
        seen.append(params)
        return {"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "our-model",
                "stopReason": "endTurn"}

    roots = [{"uri": "file:///srv/data", "name": "data"}]
    with Client.stdio([sys.executable, str(SERVERS / "asking_server.py")], trace=tap, timeout=20,
                      sampling_handler=model, roots=roots) as client:
        result = client.call_tool("ask_client", {"question": "hi?"})
    assert result["content"][0]["text"] == "model=our-model said=hello roots=['file:///srv/data']"
    assert seen[0]["messages"][0]["content"]["text"] == "hi?" and seen[0]["systemPrompt"] == "Be brief."
    assert tap.methods("<-").count("sampling/createMessage") == 1 and "roots/list" in tap.methods("<-")


def test_our_client_over_sse_against_the_sdk_sse_server(tap: Any) -> None:
    proc = subprocess.Popen([sys.executable, str(SERVERS / "sse_server.py")], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split(" at ", 1)[1].strip()
        logs: list[dict[str, Any]] = []

        def model(params: dict[str, Any]) -> dict[str, Any]:
            return {"role": "assistant", "content": {"type": "text", "text": "yes"}, "model": "ours"}

        with Client.sse(url, trace=tap, timeout=20, sampling_handler=model, roots=[{"uri": "file:///r"}],
                        on_log_message=logs.append) as client:
            assert client.protocol_version == "2025-11-25"
            assert client.server_info is not None and client.server_info["name"] == "sdk-sse"
            client.ping()
            assert {t["name"] for t in client.list_tools()} == {"add", "ask_client"}
            assert client.call_tool("add", {"a": 2, "b": 3})["content"][0]["text"] == "5"
            assert client.read_resource("sdk://hello")["contents"][0]["text"] == "hello from the SDK"
            assert "Ada" in client.get_prompt("greet", {"name": "Ada"})["messages"][0]["content"]["text"]
            assert client.call_tool("ask_client", {"question": "ok?"})["content"][0]["text"] == "ours: yes | ['file:///r']"
            endpoint = client.session._transport._endpoint  # type: ignore[attr-defined]
        assert endpoint.startswith(url.replace("/sse", "/messages/?session_id="))  # resolved from a relative URI
        assert any(log["data"] == "asking the client" for log in logs)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()


@pytest.fixture(params=["stdio", "sse", "http"])
def full_sdk_server(request: Any, tap: Any) -> Iterator[Callable[..., Client]]:
    """Factory: our client connected to the SDK's every-feature server over each transport
    (http: Streamable HTTP, the SDK's default mode, answering with event streams)."""
    procs: list[subprocess.Popen[str]] = []

    def make(**kwargs: Any) -> Client:
        script = str(SERVERS / "full_server.py")
        if request.param == "stdio":
            return Client.stdio([sys.executable, script], trace=tap, timeout=20, **kwargs)
        proc = subprocess.Popen([sys.executable, script, request.param], stdout=subprocess.PIPE, text=True)
        procs.append(proc)
        assert proc.stdout is not None
        url = proc.stdout.readline().split(" at ", 1)[1].strip()
        if request.param == "http":
            return Client.http(url, trace=tap, timeout=20, fallback=False, **kwargs)
        return Client.sse(url, trace=tap, timeout=20, **kwargs)

    yield make
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()


def test_our_client_uses_every_feature_of_an_sdk_server(full_sdk_server: Callable[..., Client]) -> None:
    logs: list[Any] = []
    changes: list[str] = []
    updates: list[str] = []
    progress: list[Any] = []
    client = full_sdk_server(sampling_handler=lambda params: "sampled", roots=[{"uri": "file:///ours"}],
                             on_log_message=logs.append, on_list_changed=changes.append,
                             on_resource_updated=updates.append)
    with client:
        client.ping()
        assert [t["name"] for t in client.list_tools()][:3] == ["add", "slow", "ask"]
        assert client.call_tool("add", {"a": 20, "b": 22})["content"][0]["text"] == "42"
        assert client.call_tool("slow", {"steps": 2}, on_progress=progress.append)["content"][0]["text"] == "slow done"
        assert [(p["progress"], p["total"]) for p in progress] == [(1, 2), (2, 2)]
        assert client.call_tool("ask", {"question": "q"})["content"][0]["text"] == "unknown: sampled | ['file:///ours']"
        assert client.list_resources()[0]["uri"] == "sdk://counter"
        assert client.list_resource_templates() == [{"name": "item", "uriTemplate": "sdk://items/{id}"}]
        assert client.read_resource("sdk://items/7")["contents"][0]["text"] == "read sdk://items/7"
        client.subscribe_resource("sdk://counter")
        client.call_tool("touch")
        client.unsubscribe_resource("sdk://counter")
        assert client.get_prompt("greet", {"name": "Ada"})["messages"][0]["content"]["text"] == "Hello Ada"
        completion = client.complete({"type": "ref/prompt", "name": "greet"}, {"name": "name", "value": "al"})
        assert completion["completion"]["values"] == ["alpha", "alps"]
        client.set_logging_level("info")
        client.call_tool("log", {"message": "m"})
        with pytest.raises(RequestTimeout):
            client.call_tool("slow", {"steps": 100}, timeout=0.2)  # we cancel; the SDK's handler is cancelled
        deadline = time.monotonic() + 5
        while client.call_tool("was_cancelled")["content"][0]["text"] != "True":
            assert time.monotonic() < deadline, "the SDK server never saw our notifications/cancelled"
            time.sleep(0.05)
    assert updates == ["sdk://counter"] and changes == ["tools"]
    assert [(log["level"], log["data"]) for log in logs] == [("info", "m"), ("warning", "m")]


def test_our_client_against_the_sdk_streamable_http_server_answering_json(tap: Any) -> None:
    """The SDK's Streamable HTTP server in its JSON-response mode: every answer one JSON object
    (SHTTP-14, 15); what it sends while a request runs (progress, its sampling and roots
    requests) then comes on the GET stream our client opened (SHTTP-23)."""
    proc = subprocess.Popen([sys.executable, str(SERVERS / "full_server.py"), "http-json"], stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split(" at ", 1)[1].strip()
        progress: list[Any] = []
        with Client.http(url, trace=tap, timeout=20, fallback=False, sampling_handler=lambda params: "sampled",
                         roots=[{"uri": "file:///ours"}]) as client:
            assert client.protocol_version == "2025-11-25" and client.server_info is not None
            transport = client.session._transport  # type: ignore[attr-defined]
            assert transport.session_id and transport.protocol_version == "2025-11-25"  # the SDK took both headers
            client.ping()
            assert client.call_tool("add", {"a": 2, "b": 3})["content"][0]["text"] == "5"
            assert client.call_tool("slow", {"steps": 2}, on_progress=progress.append)["content"][0]["text"] == "slow done"
            assert client.call_tool("ask", {"question": "q"})["content"][0]["text"] == "unknown: sampled | ['file:///ours']"
        assert [p["progress"] for p in progress] == [1, 2]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()


def test_sdk_server_tools_elicit_from_our_client(tap: Any) -> None:
    """client/elicitation: an SDK server's tools ask our client for a form (a pydantic model's
    schema, with titles we take) and a URL; our client hears its notifications/elicitation/complete."""
    asked: list[dict[str, Any]] = []
    heard: list[tuple[str, dict[str, Any]]] = []

    def person(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept"} if params.get("mode") == "url" else {"action": "accept",
                                                                          "content": {"name": "Ada", "age": 36}}

    with Client.stdio([sys.executable, str(SERVERS / "eliciting_server.py")], trace=tap, timeout=20,
                      elicitation_handler=person, elicitation_url=True,
                      on_notification=lambda method, params: heard.append((method, params))) as client:
        assert client.protocol_version == "2025-11-25"
        with tap.deliberately_invalid():  # structuredContent and the like: newer than the tap's 2024-11-05 schema
            assert client.call_tool("sign_up")["content"][0]["text"] == "accept: Ada, 36"
            assert client.call_tool("pay")["content"][0]["text"] == "accept"
        client.ping()
    assert [p.get("mode") for p in asked] == ["form", "url"] and asked[1]["elicitationId"] == "order-9"
    assert heard == [("notifications/elicitation/complete", {"elicitationId": "order-9"})]
