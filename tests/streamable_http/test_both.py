"""Both HTTP transports on one port (streamable_http/both.py), revision 2025-03-26 beside 2024-11-05.

Not a spec page of its own: the backwards compatibility the 2025-03-26 transports page describes
(SHTTP-42: host the old transport's endpoints beside the new one). ``HttpApp``'s promises: a
request for ``mcp_path`` (default ``/mcp``) goes to Streamable HTTP, everything else to HTTP with
SSE (``/sse``, ``/messages/``); both share the Host and Origin checks; ``mcp_path=None`` leaves the
new endpoint out; ``close()`` ends the sessions of both. A real werkzeug server on 127.0.0.1,
port 0, and real clients of each transport. Each transport alone is tested in
tests/pages/test_sse.py and tests/streamable_http/test_server_app.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import requests

from mcp_ref import Client, ConnectionClosed, Server
from mcp_ref.machinery.http.werkzeug_server import SseHttpServer
from mcp_ref.streamable_http.both import HttpApp

from ..conftest import wait_until

WAIT = 5.0  # seconds: a bound for liveness only
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
JSON = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def make_server() -> Server:
    server = Server("both-test")

    @server.tool()
    def echo(text: str) -> str:
        return text

    return server


@pytest.fixture
def both() -> Iterator[SseHttpServer]:
    with make_server().sse_server(keepalive=0.3) as http:
        yield http


def test_the_new_endpoint_and_the_old_one_serve_on_one_port(both: SseHttpServer) -> None:
    assert isinstance(both.app, HttpApp)
    assert both.mcp_url == f"http://127.0.0.1:{both.port}/mcp" and both.url == f"http://127.0.0.1:{both.port}/sse"
    with Client.http(both.mcp_url, fallback=False, timeout=WAIT) as new, Client.sse(both.url, timeout=WAIT) as old:
        assert new.call_tool("echo", {"text": "new"})["content"][0]["text"] == "new"
        assert old.call_tool("echo", {"text": "old"})["content"][0]["text"] == "old"
        assert both.app.streamable is not None and both.app.streamable.session_count == 1
        assert both.app.session_count == 1


def test_other_paths_are_the_old_transports_not_the_new_ones(both: SseHttpServer) -> None:
    answer = requests.post(f"http://127.0.0.1:{both.port}/mcp/other", data=json.dumps(PING), headers=JSON, timeout=WAIT)
    assert answer.status_code == 404 and "the event stream is at /sse" in answer.text


@pytest.mark.parametrize("path", ["/mcp", "/sse"])
def test_both_share_the_host_and_origin_checks(path: str) -> None:
    with make_server().sse_server(allowed_origins=["https://app.example"]) as http:
        url = f"http://127.0.0.1:{http.port}{path}"

        def status(**headers: str) -> int:
            if path == "/mcp":
                return requests.post(url, data=json.dumps(PING), headers={**JSON, **headers}, timeout=WAIT).status_code
            with requests.get(url, headers=headers, timeout=WAIT, stream=True) as answer:
                return answer.status_code

        assert status(Origin="http://evil.example") == 403
        assert status(Host="evil.example") == 421
        assert status(Origin="https://app.example") != 403, "the allowed origins of the app apply to both"


def test_mcp_path_moves_the_new_endpoint() -> None:
    with make_server().sse_server(mcp_path="/v2/mcp") as http:
        assert http.mcp_url == f"http://127.0.0.1:{http.port}/v2/mcp"
        with Client.http(http.mcp_url, fallback=False, timeout=WAIT) as client:
            client.ping()
        moved = requests.post(f"http://127.0.0.1:{http.port}/mcp", data=json.dumps(PING), headers=JSON, timeout=WAIT)
        assert moved.status_code == 404


def test_mcp_path_none_leaves_the_new_endpoint_out() -> None:
    with make_server().sse_server(mcp_path=None) as http:
        assert isinstance(http.app, HttpApp) and http.app.streamable is None and http.mcp_url is None
        answer = requests.post(f"http://127.0.0.1:{http.port}/mcp", data=json.dumps(PING), headers=JSON, timeout=WAIT)
        assert answer.status_code == 404
        with Client.sse(http.url, timeout=WAIT) as client:
            client.ping()


def test_close_ends_the_sessions_of_both_transports() -> None:
    with make_server().sse_server(keepalive=0.3) as http:
        app = http.app
        assert isinstance(app, HttpApp) and app.streamable is not None and http.mcp_url is not None
        with Client.http(http.mcp_url, fallback=False, timeout=WAIT) as new, Client.sse(http.url, timeout=WAIT) as old:
            assert app.session_count == 1 and app.streamable.session_count == 1
            app.close()
            assert app.streamable.session_count == 0
            wait_until(lambda: app.session_count == 0, timeout=WAIT)
            wait_until(lambda: old.is_closed, timeout=WAIT)  # its event stream ended
            with pytest.raises(ConnectionClosed, match="HTTP 404"):  # its session is gone (SHTTP-39)
                new.ping()
