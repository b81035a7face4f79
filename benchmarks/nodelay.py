"""Which TCP connections of this process have TCP_NODELAY set. Not a spec section.

A benchmark of request/response over TCP measures Nagle's algorithm, not the library, when
either end of a connection leaves TCP_NODELAY off: a small write waits for the peer's delayed
ACK (tens of milliseconds on Linux). So every process under test, client or server, reports
its connected TCP sockets on demand, and run.py checks that both ends of every connection
between them have the option set.

``connections()`` looks at every descriptor of this process that is a connected TCP socket
(whoever made it: requests, werkzeug, waitress, uvicorn); ``answer_on_stdin()`` starts a
thread that prints that list as one JSON line on stdout each time a line ``nodelay`` arrives
on stdin (servers.py, raw_sse_echo.py and sdk_add_server.py call it).
"""

from __future__ import annotations

import json
import os
import select
import socket
import sys
import threading
from typing import Any


def connections() -> list[dict[str, Any]]:
    """``[{"local": "127.0.0.1:5000", "peer": "127.0.0.1:41234", "nodelay": True}, ...]``."""
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            if not os.readlink(f"/proc/self/fd/{name}").startswith("socket:"):
                continue
            sock = socket.socket(fileno=os.dup(int(name)))
        except OSError:
            continue
        try:
            if sock.family not in (socket.AF_INET, socket.AF_INET6) or sock.type != socket.SOCK_STREAM:
                continue
            try:
                peer = sock.getpeername()
            except OSError:  # a listening socket, or one not connected yet
                continue
            local = sock.getsockname()
            found.append({"local": f"{local[0]}:{local[1]}", "peer": f"{peer[0]}:{peer[1]}",
                          "nodelay": bool(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)),
                          "ended": _ended(sock)})
        finally:
            sock.close()
    return found


def _ended(sock: socket.socket) -> bool:
    """Whether the peer has closed this connection (a kept-alive socket a server closed)."""
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    if not poller.poll(0):
        return False
    try:
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except OSError:
        return True


def answer_on_stdin() -> None:
    """Answer each ``nodelay`` line on stdin with ``connections()`` as a JSON line on stdout."""
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w")  # our own copy: a server may redirect fd 1

    def serve() -> None:
        for line in sys.stdin:
            if line.strip() == "nodelay":
                out.write(json.dumps(connections()) + "\n")
                out.flush()

    threading.Thread(target=serve, name="nodelay-reports", daemon=True).start()


def check(clients: list[dict[str, Any]], servers: list[dict[str, Any]], port: int) -> list[str]:
    """Problems with the connections between the client process and the server on ``port``: an
    end of one of them, either side, without TCP_NODELAY, or no connection open at all. An empty
    list: every connection seen has the option on both ends. (Each side's list is taken at its
    own moment, so a connection opened or closed in between shows on one side only; a kept-alive
    connection the server has closed is left out.)"""
    mine = [c for c in clients if c["peer"].endswith(f":{port}") and not c["ended"]]
    theirs = [c for c in servers if c["local"].endswith(f":{port}")]
    if not mine or not theirs:
        return [f"no connection to port {port} was open when checked"]
    return ([f"client end {c['local']} -> {c['peer']} has Nagle on" for c in mine if not c["nodelay"]]
            + [f"server end {c['local']} <- {c['peer']} has Nagle on" for c in theirs if not c["nodelay"]])
