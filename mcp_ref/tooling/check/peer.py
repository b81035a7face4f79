"""The kit as an MCP client on one wire: just enough of the client's side for the server cases.

Not a spec section: the checker's client (see wire.py for the connections themselves).

1. Requests are numbered by the peer (a case may choose the id); ``request()`` waits at most
   one step for the response with exactly that id (``"1"`` is not ``1``; a response with the
   right value but the wrong type is taken, and flagged, so a case can judge it).
2. Whatever else arrives meanwhile is filed: notifications, the server's own requests (pings
   are answered ``{}``, anything else -32601, since the kit declares no client capability),
   and strays (responses nobody waited for, text that is not a message).
3. The first answer on a connection may take ``startup`` seconds (a slow server start).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from .wire import Incoming, WaitTimeout, Wire

CLIENT_INFO = {"name": "mcp-ref-check", "version": "0.1.0"}
PROTOCOL_VERSION = "2024-11-05"



@dataclass
class Reply:
    """A request we sent and what came back (``msg`` is None when nothing did in time)."""

    sent: str
    request_id: Any
    method: str
    msg: dict[str, Any] | None = None
    got: str | None = None
    seq: int = -1  # the response's position in the transcript
    closed: bool = False  # the stream ended before an answer
    id_mismatch: bool = False  # answered with an id of another type ("1" for 1)

    @property
    def answered(self) -> bool:
        return self.msg is not None

    @property
    def result(self) -> Any:
        return self.msg.get("result") if self.msg is not None else None

    @property
    def error(self) -> Any:
        return self.msg.get("error") if self.msg is not None else None

    @property
    def is_result(self) -> bool:
        return self.msg is not None and "result" in self.msg and "error" not in self.msg

    @property
    def is_error(self) -> bool:
        return self.msg is not None and "error" in self.msg and "result" not in self.msg

    @property
    def code(self) -> Any:
        error = self.error
        return error.get("code") if isinstance(error, dict) else None

    def got_text(self, timeout: float) -> str:
        if self.got is not None:
            return self.got
        return "(the connection ended)" if self.closed else f"(nothing within {timeout:g} s)"


def same_id(a: Any, b: Any) -> bool:
    """JSON-RPC ids match only with the same type and value: "1" is not 1, and true is not 1."""
    return type(a) is type(b) and a == b


@dataclass
class Peer:
    """The kit as an MCP client on one wire."""

    wire: Wire
    timeout: float
    startup: float = 0.0  # a longer wait for the first answer on this connection (a slow server start)
    notifications: list[dict[str, Any]] = field(default_factory=list)
    server_requests: list[dict[str, Any]] = field(default_factory=list)
    stray: list[Incoming] = field(default_factory=list)  # responses nobody waited for, and garbage
    init: Reply | None = None
    _next_id: int = 1
    _answered_once: bool = False

    def next_id(self) -> int:
        self._next_id += 1
        return self._next_id - 1

    def send_request(self, method: str, params: dict[str, Any] | None = None, *, request_id: Any = None,
                     extra: dict[str, Any] | None = None) -> Reply:
        """Send a request without waiting; ``extra`` members are merged into the envelope."""
        rid = self.next_id() if request_id is None else request_id
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        msg.update(extra or {})
        return Reply(self.wire.send(msg), rid, method)

    def request(self, method: str, params: dict[str, Any] | None = None, *, request_id: Any = None,
                timeout: float | None = None) -> Reply:
        """Send a request and wait (at most the step timeout) for the response with its id."""
        return self.wait(self.send_request(method, params, request_id=request_id), timeout)

    def wait(self, reply: Reply, timeout: float | None = None) -> Reply:
        step = self.timeout if timeout is None else timeout
        if not self._answered_once:
            step = max(step, self.startup)
        deadline = time.monotonic() + step
        while True:
            try:
                incoming = self.wire.receive(deadline - time.monotonic())
            except WaitTimeout:
                return reply
            if incoming is None:
                reply.closed = True
                return reply
            msg = incoming.msg
            if isinstance(msg, dict) and "method" not in msg and "id" in msg:
                self._answered_once = True
                if same_id(msg["id"], reply.request_id) or str(msg["id"]) == str(reply.request_id):
                    reply.msg, reply.got, reply.seq = msg, incoming.raw, incoming.seq
                    reply.id_mismatch = not same_id(msg["id"], reply.request_id)
                    return reply
            self._file(incoming)

    def next_response(self, timeout: float | None = None) -> Incoming | None:
        """The next message that is not a request or notification (filing the others), or None."""
        step = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + (max(step, self.startup) if not self._answered_once else step)
        while True:
            try:
                incoming = self.wire.receive(deadline - time.monotonic())
            except WaitTimeout:
                return None
            if incoming is None:
                return None
            msg = incoming.msg
            if not (isinstance(msg, dict) and isinstance(msg.get("method"), str)):
                return incoming
            self._file(incoming)

    def notify(self, method: str, params: dict[str, Any] | None = None) -> str:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        return self.wire.send(msg)

    def collect(self, duration: float) -> list[Incoming]:
        """Read (and file) whatever arrives for ``duration`` seconds; return it."""
        seen: list[Incoming] = []
        deadline = time.monotonic() + duration
        while time.monotonic() < deadline:
            try:
                incoming = self.wire.receive(deadline - time.monotonic())
            except WaitTimeout:
                break
            if incoming is None:
                break
            seen.append(incoming)
            self._file(incoming)
        return seen

    def _file(self, incoming: Incoming) -> None:
        msg = incoming.msg
        if isinstance(msg, dict) and isinstance(msg.get("method"), str):
            if "id" in msg:
                self.server_requests.append(msg)
                self._answer(msg)
            else:
                self.notifications.append(msg)
        else:
            self.stray.append(incoming)

    def _answer(self, msg: dict[str, Any]) -> None:
        """Pings get ``{}``; anything else -32601, since the kit declared no client capability."""
        if msg["method"] == "ping":
            self.wire.send({"jsonrpc": "2.0", "id": msg["id"], "result": {}})
        else:
            self.wire.send({"jsonrpc": "2.0", "id": msg["id"], "error": {
                "code": -32601, "message": f"Method not found: the checker declared no capability for {msg['method']}"}})

    def initialize(self, version: str = PROTOCOL_VERSION, capabilities: dict[str, Any] | None = None,
                   *, initialized: bool = True) -> Reply:
        """Send ``initialize`` (and, if it succeeds and ``initialized``, the initialized notification)."""
        reply = self.request("initialize", {"protocolVersion": version, "capabilities": capabilities or {},
                                            "clientInfo": dict(CLIENT_INFO)}, request_id=0)
        self.init = reply
        if initialized and reply.is_result:
            self.notify("notifications/initialized")
        return reply
