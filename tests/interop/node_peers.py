"""Peers written in TypeScript: the "everything" server and the official conformance suite.

Where they come from, first that works:

1. ``.peers/`` at the project root, put there by ``tests/interop/install_peers.py`` (``make test``
   and ``.ci/run`` run it where npm is present): the pinned packages and a Node 22 of their own.
   The package's command runs with that node directly; nothing is fetched at test time.
2. ``npx -y PACKAGE@VERSION`` (npm fetches it the first time), with the ``node`` on PATH.

``MCP_REF_NODE=/path/to/node`` overrides the node in both cases. A test that needs a peer skips,
saying why, when neither way works: no npx and nothing installed, a node too old for the
package (the suite needs Node 22), or npm unable to fetch the package (no network). A fresh
clone's ``make test`` passes without them. The versions are pinned (install_peers.py holds the
pins), so a run today and a run next year test against the same peers.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from . import install_peers
from .install_peers import CONFORMANCE, EVERYTHING, PEERS

ENABLE_NODE = "point MCP_REF_NODE at one to run it, or run make peers (npm installs one in .peers)"


@dataclass(frozen=True)
class NodePackage:
    """How to run one npm package's command: ``[*argv, its arguments...]`` with ``env``."""

    argv: list[str]
    env: dict[str, str]
    origin: str  # where it came from and which node runs it, for the test's report
    fetched: bool = False  # through npx: npm fetches it the first time (and fails without a network)

    def __str__(self) -> str:
        return self.origin


def conformance_suite() -> NodePackage:
    """The official conformance suite's ``conformance`` command (it needs Node 22: fs.globSync)."""
    return node_package(*CONFORMANCE, node_major=22)


def everything_server() -> NodePackage:
    """The everything server's ``mcp-server-everything`` command."""
    return node_package(*EVERYTHING)


def node_package(name: str, version: str, node_major: int = 0) -> NodePackage:
    """The package's command from ``.peers`` when installed there, else through npx; the test
    skips, saying why, when neither works or the node is older than ``node_major``."""
    from_peers = install_peers.installed()
    node = os.environ.get("MCP_REF_NODE") or (peers_node() if from_peers else None) or shutil.which("node") or ""
    found = node_version(node) if node else ()
    if (node_major or from_peers) and (not found or found[0] < node_major):  # (.peers has no npx to find one)
        shown = "v" + ".".join(map(str, found)) if found else "none"
        wanted = f"Node.js {node_major} or later" if node_major else "Node.js"
        pytest.skip(f"needs {wanted} (found {shown}); {ENABLE_NODE}")
    env = env_with_node(node) if node else dict(os.environ)
    shown = f"node v{'.'.join(map(str, found))}" if found else "node unknown"
    if from_peers:
        return NodePackage([node, str(package_bin(name))], env, f"{name}@{version} from .peers, {shown}")
    runner = shutil.which("npx")
    if runner is None:
        pytest.skip("npx is not installed (Node.js and npm) and .peers holds no Node peers: "
                    "the TypeScript peers cannot run here")
    # Offline, npm would retry for minutes: from its cache if it can, else one try, as install_peers.py does
    env = {"npm_config_prefer_offline": "true", "npm_config_fetch_retries": "0", "npm_config_fetch_timeout": "30000",
           **env}
    return NodePackage([runner, "-y", f"{name}@{version}"], env, f"{name}@{version} through npx, {shown}", fetched=True)


def peers_node() -> str | None:
    """The node installed in ``.peers`` (npm's ``node-<os>-<cpu>`` package), if any."""
    package = install_peers.node_package()
    node = PEERS / "node_modules" / package / "bin" / "node" if package else None
    return str(node) if node is not None and node.is_file() else None


def package_bin(name: str) -> Path:
    """The script of an installed package's command (``bin`` in its package.json)."""
    folder = PEERS / "node_modules" / name
    declared = json.loads((folder / "package.json").read_text(encoding="utf-8"))["bin"]
    return folder / (declared if isinstance(declared, str) else next(iter(declared.values())))


def node_version(node: str) -> tuple[int, ...]:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ()
    match = re.match(r"v(\d+)\.(\d+)\.(\d+)", out.strip()) or re.match(r"v(\d+)\.(\d+)", out.strip())
    return tuple(int(part) for part in match.groups()) if match else ()


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
