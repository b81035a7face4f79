"""Raw requests of revision 2026-07-28, for the server-side tests in tests/revisions/.

https://modelcontextprotocol.io/specification/2026-07-28/basic/index#meta
Not a spec page of its own: the ``_meta`` every request of 2026-07-28 carries, a server
subprocess spoken to in raw lines (conftest.RawServer, with reads bounded and the notifications
that precede an answer kept), and a raw POST with the headers a client of 2026-07-28 sends.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import requests

from ..conftest import ROOT, RawServer, strict_json

REVISION = "2026-07-28"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
LOG_LEVEL_KEY = "io.modelcontextprotocol/logLevel"
ALL_CAPABILITIES = {"elicitation": {}, "sampling": {}, "roots": {}}
PEER = str(ROOT / "tests" / "peers" / "stateless_server.py")
SPEC_ERRORS = {-32700, -32600, -32601, -32602, -32603, -32020, -32021, -32022}


def meta(capabilities: dict[str, Any] | None = None, version: str = REVISION, **extra: Any) -> dict[str, Any]:
    """The ``_meta`` of a request of 2026-07-28 (``log_level=``: the per-request log level)."""
    fields = {VERSION_KEY: version, CAPABILITIES_KEY: ALL_CAPABILITIES if capabilities is None else capabilities,
              CLIENT_INFO_KEY: {"name": "raw-tests", "version": "0"}}
    if "log_level" in extra:
        fields[LOG_LEVEL_KEY] = extra.pop("log_level")
    return {**fields, **extra}


def params(extra: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    """Request params with the default ``_meta`` unless ``fields`` give one."""
    return {"_meta": meta(), **(extra or {}), **fields}


class ModernPeer(RawServer):
    """A server subprocess of tests/peers/stateless_server.py (``which``: server, modern_server,
    legacy_server), spoken to in raw lines; every read bounded."""

    def __init__(self, which: str = "server") -> None:
        super().__init__(f"{PEER}:{which}")
        self._ids: Iterator[int] = itertools.count(1)
        self.notifications: list[dict[str, Any]] = []

    def request(self, method: str, params: Any = None, *, request_id: Any = None,
                timeout: float = 10.0) -> dict[str, Any]:
        """Send a request; return its answer (notifications before it go to ``self.notifications``)."""
        request_id = next(self._ids) if request_id is None else request_id
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(json.dumps(msg).encode())
        return self.answer(request_id, timeout)

    def answer(self, request_id: Any, timeout: float = 10.0) -> dict[str, Any]:
        while True:
            msg = self.receive(timeout)
            if "method" in msg and "id" not in msg:
                self.notifications.append(msg)
                continue
            assert msg.get("id") == request_id, f"an answer to another request, or a request: {msg}"
            return dict(msg)

    def call(self, msg: dict[str, Any]) -> Any:  # type: ignore[override]
        self.send(json.dumps(msg).encode())
        return self.answer(msg.get("id"))


def post(url: str, method: str, params: Any, *, request_id: Any = 1, headers: dict[str, str | None] | None = None,
         stream: bool = False, timeout: float = 10.0) -> requests.Response:
    """A raw POST of 2026-07-28 with the headers a client sends (``headers`` adds or, with None,
    removes some)."""
    sent = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
            "MCP-Protocol-Version": REVISION, "Mcp-Method": method}
    if isinstance(params, dict) and method in ("tools/call", "prompts/get", "resources/read"):
        named = params.get("uri" if method == "resources/read" else "name")
        if isinstance(named, str):
            sent["Mcp-Name"] = named
    for name, value in (headers or {}).items():
        sent = {k: v for k, v in sent.items() if k.lower() != name.lower()}
        if value is not None:
            sent[name] = value
    body: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if request_id is not None:
        body["id"] = request_id
    return requests.post(url, data=json.dumps(body), headers=sent, timeout=timeout, stream=stream)


def messages_of(response: requests.Response) -> list[dict[str, Any]]:
    """Every JSON-RPC message of a response: one JSON object, or the data of each SSE event."""
    if response.headers.get("Content-Type", "").startswith("application/json"):
        return [strict_json(response.content)]
    found = []
    for line in response.text.splitlines():
        if line.startswith("data:"):
            found.append(strict_json(line[5:].strip()))
    return found
