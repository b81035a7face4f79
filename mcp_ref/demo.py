"""``mcp-ref demo``: a scripted tour of the demo server that prints every message on the wire.

Not a spec section: a teaching aid. Each step names the part of the spec it shows; the lines
marked ``client -> server`` and ``client <- server`` are the exact bytes exchanged over stdio.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from typing import Any

from .client import Client
from .jsonrpc import McpError

_print_lock = threading.Lock()


def _say(text: str) -> None:
    with _print_lock:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()


def _wire(direction: str, data: bytes) -> None:
    arrow = "client -> server" if direction == "->" else "client <- server"
    _say(f"  {arrow}  {data.decode('utf-8', 'replace')}")


def _try(call: Callable[[], Any]) -> None:
    try:
        call()
    except McpError as exc:
        _say(f"  (the client raised {type(exc).__name__}: code {exc.code}, {exc.message!r})")


def steps(client: Client) -> list[tuple[str, Callable[[], Any]]]:
    """The tour after initialization: (title, action) pairs, in order."""
    return [
        ("Ping: either side may check the other is alive; the answer is an empty result",
         client.ping),
        ("An unknown method is answered -32601 (Method not found), in every phase",
         lambda: _try(lambda: client.request("server/discover"))),
    ]


def run_demo() -> int:
    command = [sys.executable, "-m", "mcp_ref", "serve"]
    _say("mcp_ref demo: the bundled demo server over stdio, every message shown as sent.")
    _say(f"Server command: {' '.join(command)}\n")
    _say("== 1. Lifecycle: initialize (our version, capabilities, name), then notifications/initialized ==")
    with Client.stdio(command, trace=_wire, timeout=10.0) as client:
        info = client.server_info or {}
        _say(f"  -> negotiated protocol {client.protocol_version} with {info.get('name')} {info.get('version')}")
        _say(f"  -> server capabilities: {json.dumps(client.server_capabilities)}")
        for number, (title, action) in enumerate(steps(client), start=2):
            _say(f"\n== {number}. {title} ==")
            action()
        _say("\n== Shutdown: the client closes the server's stdin; the server exits by itself ==")
    _say("Done.")
    return 0
