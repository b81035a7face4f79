"""The server side of tests/engine/test_hostile_stdio_servers.py: what its misbehaving servers share.

Not a spec section, and not a test file. Each hostile server there is a short script run as
``[sys.executable, "-c", code]`` whose code starts with ``from hostile_peer import *``. It reads
the client's messages as JSON lines, and writes raw bytes to its stdout, so that it can send
what no well-behaved server would: an answer in pieces, twice, with an id of the wrong type, in
the middle of a flood, or cut short by the process's exit. Nothing here imports mcp_ref: the
peer must not share the code it attacks.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

__all__ = ["echo", "echo_forever", "error", "initialize", "line", "log", "next_request", "notification", "read",
           "result", "send", "trickle", "write"]


def read() -> dict[str, Any]:
    """The client's next message. At end of input (the client closed our stdin), exit quietly."""
    data = sys.stdin.buffer.readline()
    if not data:
        sys.exit(0)
    message: dict[str, Any] = json.loads(data)
    return message


def next_request() -> dict[str, Any]:
    """The client's next request, skipping its notifications (initialized, cancelled)."""
    while True:
        message = read()
        if "method" in message and "id" in message:
            return message


def line(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def result(request_id: Any, value: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": value}


def error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def notification(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})}


def log(data: Any) -> dict[str, Any]:
    """A ``notifications/message`` carrying ``data``: the client's on_log_message hears it."""
    return notification("notifications/message", {"level": "info", "data": data})


def echo(request: dict[str, Any]) -> dict[str, Any]:
    """The well-behaved answer: the request's own params, under ``echo``."""
    return result(request["id"], {"echo": request.get("params", {})})


def write(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def send(*messages: dict[str, Any]) -> None:
    """Messages in one write, as one burst."""
    write(b"".join(line(message) for message in messages))


def trickle(data: bytes, seconds: float) -> None:
    """``data`` one byte at a time, spread evenly over about ``seconds``."""
    pause = seconds / len(data)
    start = time.monotonic()
    for i in range(len(data)):
        write(data[i:i + 1])
        time.sleep(max(0.0, start + (i + 1) * pause - time.monotonic()))


def initialize() -> None:
    """Answer ``initialize`` (declaring tools and logging), then read ``notifications/initialized``."""
    request = read()
    send(result(request["id"], {"protocolVersion": "2024-11-05", "capabilities": {"tools": {}, "logging": {}},
                                "serverInfo": {"name": "hostile", "version": "0"}}))
    read()


def echo_forever() -> None:
    """Behave from now on: answer every request with its params, until the client hangs up."""
    while True:
        send(echo(next_request()))
