"""Peers written in TypeScript, run with npx: the "everything" server and the official conformance suite.

Neither is installed by ``make test``. A test that needs one skips, saying why, when ``npx`` is
absent, when Node.js is too old for the package, or when npm cannot fetch the package (no
network): a fresh clone's ``make test`` passes without them. The versions are pinned, so a run
today and a run next year test against the same peers.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

EVERYTHING = "@modelcontextprotocol/server-everything@2026.8.31"
CONFORMANCE = "@modelcontextprotocol/conformance@0.1.16"


def npx() -> str:
    found = shutil.which("npx")
    if found is None:
        pytest.skip("npx is not installed (Node.js and npm): the TypeScript peers cannot run here")
    return found


def node_version(node: str) -> tuple[int, ...]:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ()
    match = re.match(r"v(\d+)\.(\d+)", out.strip())
    return tuple(int(part) for part in match.groups()) if match else ()


def node_at_least(major: int) -> str:
    """A ``node`` of at least this major version: ``$MCP_REF_NODE`` if set, else the one on PATH;
    the test skips, saying so, when there is none."""
    node = os.environ.get("MCP_REF_NODE") or shutil.which("node") or ""
    version = node_version(node) if node else ()
    if not version or version[0] < major:
        shown = "v" + ".".join(map(str, version)) if version else "none"
        pytest.skip(f"needs Node.js {major} or later (found {shown}); point MCP_REF_NODE at one to run it")
    return node


def env_with_node(node: str) -> dict[str, str]:
    """The environment, with ``node``'s folder first on PATH (npx runs packages with the first node)."""
    return {**os.environ, "PATH": f"{Path(node).resolve().parent}{os.pathsep}{os.environ.get('PATH', '')}"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_listening(port: int, proc: subprocess.Popen[str], timeout: float, what: str, says: str) -> None:
    """Until ``proc`` writes a line containing ``says`` (it listens, on its own port) and the port
    answers; skips if ``proc`` exits first (npm could not fetch it). Its output is read to the
    end on a thread of its own, so the pipe never fills."""
    lines: list[str] = []
    said = threading.Event()

    def drain() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if says in line:
                said.set()

    threading.Thread(target=drain, daemon=True).start()
    deadline = time.monotonic() + timeout
    while not said.wait(0.1):
        if proc.poll() is not None:
            time.sleep(0.2)  # the last lines
            pytest.skip(f"{what} did not start (no network for npm?): {''.join(lines).strip()[-300:]}")
        if time.monotonic() > deadline:
            pytest.skip(f"{what} did not say it listens within {timeout:g} s (npm still fetching it?)")
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                pytest.skip(f"{what} said it listens, but port {port} does not answer")
            time.sleep(0.1)


def stop_group(proc: subprocess.Popen[str]) -> None:
    """npx starts node as a grandchild: stop the whole process group."""
    import signal

    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)
    if proc.stdout is not None:
        try:
            proc.stdout.close()
        except OSError:  # the drain thread may be reading it still
            pass
