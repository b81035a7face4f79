"""Revision 2025-06-18 (mcp_ref/revisions/v2025_06_18.py): the protocol-version header, batches
gone again, completion context.

https://modelcontextprotocol.io/specification/2025-06-18/changelog
https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#protocol-version-header
Our client and our server over a real Streamable HTTP endpoint on 127.0.0.1, with every request
to the endpoint recorded; then raw POSTs with the header a client of another revision would send.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from mcp_ref import Client, Server
from mcp_ref.lifecycle import REVISIONS
from mcp_ref.machinery.memory import MemoryTransport

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


class Recorder:
    """WSGI middleware that keeps the headers of every request to the MCP endpoint."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.seen: list[tuple[str, dict[str, str]]] = []

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if environ["PATH_INFO"] == "/mcp":
            headers = {k[5:].replace("_", "-").lower(): v for k, v in environ.items() if k.startswith("HTTP_")}
            self.seen.append((environ["REQUEST_METHOD"], headers))
        return self.app(environ, start_response)


@pytest.fixture
def endpoint() -> Iterator[tuple[str, Recorder]]:
    from werkzeug.serving import make_server

    server = Server("headers")
    server.tool()(lambda: "ok")
    app = server.wsgi_app(keepalive=0.3)
    recorder = Recorder(app)
    wsgi = make_server("127.0.0.1", 0, recorder, threaded=True)
    threading.Thread(target=wsgi.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{wsgi.server_port}/mcp", recorder
    finally:
        app.close()
        wsgi.shutdown()
        wsgi.server_close()


@pytest.mark.parametrize("version", REVISIONS)
def test_every_request_after_initialize_names_the_agreed_revision(endpoint: tuple[str, Recorder], version: str) -> None:
    url, recorder = endpoint
    with Client.http(url, timeout=5, protocol_versions=[version]) as client:
        assert client.protocol_version == version
        client.call_tool("<lambda>")
    requests_made = [headers for method, headers in recorder.seen if method in ("POST", "GET", "DELETE")]
    assert "mcp-protocol-version" not in requests_made[0]  # the initialize POST: nothing agreed yet
    assert {h.get("mcp-protocol-version") for h in requests_made[1:]} == {version}  # HDR: every later one


def test_the_server_refuses_a_version_it_does_not_speak_with_400(endpoint: tuple[str, Recorder]) -> None:
    url, _ = endpoint
    first = requests.post(url, json=INIT, headers=ACCEPT, timeout=5)
    session = first.headers["Mcp-Session-Id"]
    assert json.loads(first.text)["result"]["protocolVersion"] == "2025-06-18"
    for spoken in REVISIONS:  # each revision the server speaks is taken
        ping = requests.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "ping"}, timeout=5,
                             headers={**ACCEPT, "Mcp-Session-Id": session, "MCP-Protocol-Version": spoken})
        assert ping.status_code == 200, (spoken, ping.text)
    for unknown in ("2026-12-01", "2025-06-19", "latest"):  # (2026-07-28 is a revision without a handshake:
        # a POST naming it is served without a session, revisions/stateless_http.py)
        refused = requests.post(url, json={"jsonrpc": "2.0", "id": 3, "method": "ping"}, timeout=5,
                                headers={**ACCEPT, "Mcp-Session-Id": session, "MCP-Protocol-Version": unknown})
        assert refused.status_code == 400 and "2025-11-25" in refused.text  # says what it speaks


def test_a_server_pinned_to_older_revisions_refuses_the_header_of_a_later_one() -> None:
    from werkzeug.test import Client as WsgiClient

    app = Server("old", protocol_versions=["2024-11-05", "2025-03-26"]).wsgi_app()
    try:
        answer = WsgiClient(app).post("/mcp", json=INIT, headers={**ACCEPT, "MCP-Protocol-Version": "2025-06-18"})
        assert answer.status_code == 400 and "2024-11-05" in answer.get_data(as_text=True)
    finally:
        app.close()


@pytest.mark.parametrize("version", REVISIONS)
def test_completion_context_goes_only_to_a_server_of_2025_06_18_or_later(version: str) -> None:
    server = Server("context")

    @server.prompt()
    def greet(language: str, name: str) -> str:
        return f"{name} {language}"

    seen: list[dict[str, Any]] = []
    server.request_handlers["completion/complete"] = lambda ctx: (seen.append(ctx.params), {
        "completion": {"values": []}})[1]
    server_end, client_end = MemoryTransport.pair()
    server.open_session(server_end).start()
    with Client(client_end, protocol_versions=[version]).connect() as client:
        client.complete({"type": "ref/prompt", "name": "greet"}, {"name": "name", "value": "A"},
                        context={"language": "fr"})
    expected = {"arguments": {"language": "fr"}} if version in ("2025-06-18", "2025-11-25") else None
    assert seen[0].get("context") == expected
