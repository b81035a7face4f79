"""``mcp-ref serve`` shows what the server holds (cli/serve_stats.py): on SIGUSR1, and every N
seconds with ``--stats N``, as one JSON line on stderr.

Not a spec page: an operator's view of a running server (``Server.stats()``, tested in
tests/engine/test_server.py), through the command, run as a real subprocess.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from typing import Any

import pytest

from ..conftest import ROOT
from .test_everyday import CLI_SERVERS, run
from .test_main import MCP_REF


def stats_lines(proc: subprocess.Popen[str], wanted: int, timeout: float = 30) -> list[dict[str, Any]]:
    """The next ``wanted`` ``mcp-ref: stats {...}`` lines on the process's stderr, parsed."""
    import queue
    import threading

    lines: queue.Queue[str] = queue.Queue()
    assert proc.stderr is not None
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stderr], daemon=True).start()  # type: ignore[union-attr]
    found: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while len(found) < wanted:
        line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        if line.startswith("mcp-ref: stats "):
            found.append(json.loads(line.removeprefix("mcp-ref: stats ")))
    return found


def test_serve_prints_its_stats_on_sigusr1_as_a_json_line_on_stderr() -> None:
    from mcp_ref import SUPPORTED_PROTOCOL_VERSIONS, Client

    proc = subprocess.Popen([MCP_REF, "serve", f"{CLI_SERVERS}:server", "--transport", "http", "--port", "0",
                             "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stdout is not None
        base = proc.stdout.readline().split(" at ", 1)[1].strip().rsplit("/", 1)[0]
        # a session on each transport (a client of 2026-07-28, the default over HTTP, opens none)
        with Client.http(base + "/mcp", protocol_versions=SUPPORTED_PROTOCOL_VERSIONS) as first, \
                Client.sse(base + "/sse") as second:
            first.ping()
            second.ping()
            proc.send_signal(signal.SIGUSR1)  # without --stats: a signal that would otherwise kill it
            (stats,) = stats_lines(proc, 1)
        assert stats["sessions"] == {"streamable_http": 1, "sse": 1}
        assert stats["streams"] >= 1 and stats["threads"] > 1
        assert set(stats) >= {"subscriptions", "queued_messages", "queued_bytes", "requests_running"}
        assert proc.poll() is None  # still serving
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_serve_stats_seconds_prints_them_every_so_often_even_over_stdio() -> None:
    proc = subprocess.Popen([MCP_REF, "serve", f"{CLI_SERVERS}:server", "--stats", "0.2"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        stats = stats_lines(proc, 2)
        assert all(each["sessions"] == {"stdio": 1} for each in stats)
    finally:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.close()  # LC-19: the end of input ends serving, and the stats thread with it
        proc.wait(timeout=30)
        out = proc.stdout.read()
        proc.stdout.close()
    assert proc.returncode == 0 and out == ""  # stdout is the protocol's: nothing of ours on it (TR-04)


@pytest.mark.parametrize("given", ["0", "-1", "soon", "inf"])
def test_serve_stats_needs_a_number_of_seconds_above_zero(given: str) -> None:
    proc = run("serve", "--stats", given)
    assert proc.returncode == 2 and "--stats" in proc.stderr and "seconds" in proc.stderr
