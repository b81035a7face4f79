"""Servers for the command-line and client-habit tests.

``python tests/peers/cli_servers.py`` serves ``server`` over stdio; with ``--stubborn`` it keeps
running after its stdin ends (as some real servers do), so only the client's SIGTERM stops it:
a test can tell whether a client really shut its server down.
"""

from __future__ import annotations

import os
import sys
import time

from mcp_ref import RequestContext, Server

server = Server("mcp-ref-cli-test", version="1.0")


@server.tool()
def pid() -> str:
    """This server's process id."""
    return str(os.getpid())


@server.tool()
def sleep(ctx: RequestContext, seconds: float = 30) -> str:
    """Wait ``seconds`` unless cancelled first."""
    return "cancelled" if ctx.cancelled.wait(seconds) else "slept"


@server.tool()
def log_then_wait(ctx: RequestContext, seconds: float = 30) -> str:
    """Send one log message, then wait ``seconds`` unless cancelled first: a test can see the
    message arrive while the call is still running."""
    ctx.log("notice", "started waiting", logger="cli-test")
    return "cancelled" if ctx.cancelled.wait(seconds) else "waited"


@server.tool()
def steps(ctx: RequestContext, count: int = 3) -> str:
    """Report ``count`` steps of progress."""
    for step in range(1, count + 1):
        ctx.report_progress(step, count)
    return f"{count} steps"


@server.tool()
def steps_with_logs(ctx: RequestContext, count: int = 3) -> str:
    """Report ``count`` steps of progress, each followed by a log message."""
    for step in range(1, count + 1):
        ctx.report_progress(step, count)
        ctx.log("info", f"step {step} done", logger="cli-test")
    return f"{count} steps"


if __name__ == "__main__":
    server.serve_stdio()
    if "--stubborn" in sys.argv:
        time.sleep(60)
