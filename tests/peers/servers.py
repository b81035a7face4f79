"""A server for tests: the demo server's protocol plus a few test-only methods.

Serve it with ``python -m mcp_ref serve tests/peers/servers.py:server``. The ``test/...`` methods are
not MCP methods; they let tests drive the session engine (blocking, nested requests, progress,
crashes) through a real subprocess.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from typing import Any

from mcp_ref import RequestContext, Server

server = Server("mcp-ref-test", version="9.9.9", instructions="A server for mcp_ref's tests.")

cancelled: list[dict[str, Any]] = []
_state_lock = threading.Lock()


def sleep(ctx: RequestContext) -> dict[str, Any]:
    """Wait ``seconds`` (default 1) unless cancelled first; record cancellations."""
    seconds = float(ctx.params.get("seconds", 1))
    if ctx.cancelled.wait(seconds):
        with _state_lock:
            cancelled.append({"id": ctx.request_id, "reason": ctx.cancel_reason})
        return {"cancelled": True}
    return {"slept": seconds}


def get_cancelled(ctx: RequestContext) -> dict[str, Any]:
    with _state_lock:
        return {"cancelled": list(cancelled)}


def echo(ctx: RequestContext) -> dict[str, Any]:
    return {"params": ctx.params, "id": ctx.request_id}


def ping_client(ctx: RequestContext) -> dict[str, Any]:
    """A nested request: the server pings the client from inside a handler."""
    times = int(ctx.params.get("times", 1))
    for _ in range(times):
        ctx.request("ping", timeout=5)
    return {"pinged": times}


def noisy(ctx: RequestContext) -> dict[str, Any]:
    """Writes to stdout three ways; none of it may reach the protocol stream (TR-04)."""
    print("a stray print from a handler")
    sys.stdout.flush()
    os.write(1, b"raw bytes on file descriptor 1\n")
    subprocess.run([sys.executable, "-c", "print('a child process printing')"], check=True)
    return {"done": True}


def progress(ctx: RequestContext) -> dict[str, Any]:
    steps = int(ctx.params.get("steps", 3))
    for i in range(1, steps + 1):
        ctx.report_progress(i, steps)
    return {"steps": steps}


def crash(ctx: RequestContext) -> dict[str, Any]:
    raise RuntimeError("secret internal detail /etc/passwd")


def die(ctx: RequestContext) -> dict[str, Any]:
    """The server process dies in the middle of a call."""
    sys.stderr.write("test server: dying on purpose\n")
    sys.stderr.flush()
    time.sleep(0.05)
    os._exit(3)


class Stop(BaseException):
    """A BaseException of the user's own, which no ``except Exception`` catches."""


RETURNS: dict[str, Any] = {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf"), "object": object(),
                           "bytes": b"\x00", "deep": None}
RAISES: dict[str, type[BaseException]] = {"SystemExit": SystemExit, "KeyboardInterrupt": KeyboardInterrupt,
                                          "GeneratorExit": GeneratorExit, "Stop": Stop}


def returns(ctx: RequestContext) -> dict[str, Any]:
    """A result holding something that is not strict JSON: ``{"value": RETURNS[kind]}``."""
    kind = ctx.params.get("kind", "nan")
    if kind == "deep":
        value: Any = []
        for _ in range(100_000):
            value = [value]
        return {"value": value}
    return {"value": RETURNS[kind]}


def raises(ctx: RequestContext) -> dict[str, Any]:
    """A handler that raises a BaseException that is not an Exception."""
    raise RAISES[ctx.params.get("kind", "SystemExit")]()


def close_session(ctx: RequestContext) -> dict[str, Any]:
    """The server ends the session itself (LC-19), after answering from another thread."""
    threading.Timer(0.05, ctx.session.close, args=("the test server hung up",)).start()
    return {"closing": True}


def notify_later(ctx: RequestContext) -> dict[str, Any]:
    """Answer at once; ``delay`` seconds later, send notifications/tools/list_changed."""
    threading.Timer(float(ctx.params.get("delay", 0.2)), ctx.session.notify,
                    args=("notifications/tools/list_changed",)).start()
    return {"later": True}


server.request_handlers.update({
    "test/notify_later": notify_later,
    "test/returns": returns,
    "test/raises": raises,
    "test/close_session": close_session,
    "test/sleep": sleep,
    "test/cancelled": get_cancelled,
    "test/echo": echo,
    "test/ping_client": ping_client,
    "test/noisy": noisy,
    "test/progress": progress,
    "test/crash": crash,
    "test/die": die,
})
