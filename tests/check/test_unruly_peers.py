"""The checker against peers that try to break the checker itself (issue 21, item 4): servers that
die, go mute, flood, write what is not a message, leave a grandchild holding the pipe, hang a
POST, or ignore SIGTERM. The kit must end within seconds of the misbehaviour, stay bounded, say
what happened once (one root-cause finding; the cases that could not run are SKIP), and write its
--json and --junit files on every exit, 2 and a stopped run included.

https://modelcontextprotocol.io/specification/2024-11-05 (basic/lifecycle, basic/transports)
The peers are plain-stdlib scripts: tests/peers/unruly_server.py (stdio) and
tests/peers/unruly_sse_server.py (HTTP with SSE).
"""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..conftest import ROOT

PEERS = ROOT / "tests" / "peers"
UNRULY = f"{sys.executable} {PEERS / 'unruly_server.py'}"
KIT = [sys.executable, "-m", "mcp_ref", "check"]


def run_kit(tmp_path: Path, *args: str, timeout: float = 90) -> tuple[int, dict[str, Any], str]:
    """``mcp-ref check ARGS --json --junit``: exit status, the JSON report, stdout and stderr."""
    report, junit = tmp_path / "report.json", tmp_path / "report.xml"
    proc = subprocess.run([*KIT, *args, "--json", str(report), "--junit", str(junit)], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)
    assert report.exists() and junit.exists(), "the report files are written on every exit"
    ET.parse(junit)  # well-formed
    return proc.returncode, json.loads(report.read_text()), proc.stdout + proc.stderr


def judged(report: dict[str, Any]) -> dict[str, str]:
    return {c["name"]: c["status"] for c in report["cases"] if c["status"] in ("FAIL", "WARN", "ERROR")}


def root_cause(report: dict[str, Any]) -> str:
    case = next(c for c in report["cases"] if c["name"] == "lifecycle.keeps-answering")
    assert case["status"] == "FAIL" and len(case["findings"]) == 1, case
    return str(case["findings"][0]["message"])


# --- a server that goes away is one finding ---------------------------------------------------------


@pytest.mark.parametrize("mode, says", [
    ("exit-after-initialize", "the server exited with status 0 after initialize"),
    ("grandchild-holds-stdout", "the server exited with status 0 after initialize"),
    ("mute-after-initialize", "the server stopped answering after initialize"),
])
def test_a_server_that_goes_away_is_one_root_cause_and_the_rest_is_skipped(tmp_path: Path, mode: str,
                                                                            says: str) -> None:
    code, report, out = run_kit(tmp_path, "server", "--stdio", f"{UNRULY} --mode {mode}", "--timeout", "1")
    assert code == 1, out
    assert root_cause(report).startswith(says), root_cause(report)
    assert judged(report) == {"lifecycle.keeps-answering": "FAIL"}, out
    skipped = [c for c in report["cases"] if c["status"] == "SKIP"]
    assert len(skipped) > 40 and sum("the server went away" in c["detail"] for c in skipped) > 30


# --- connection failures say what happened --------------------------------------------------------


@pytest.mark.parametrize("mode, says", [
    ("not-json", "a line that is not JSON (TR-04"),
    ("not-utf8", "bytes that are not UTF-8"),
    ("huge-line", "a line over the kit's cap of 16 MiB"),
])
def test_a_server_that_never_speaks_mcp_is_diagnosed(tmp_path: Path, mode: str, says: str) -> None:
    code, report, out = run_kit(tmp_path, "server", "--stdio", f"{UNRULY} --mode {mode}", "--startup", "2",
                                "--timeout", "1")
    assert code == 2 and says in out, out
    assert report["exit_status"] == 2 and says in report["reason"] and report["cases"] == []
    assert re.search(r"initialize got nothing within 2(\.\d)? s", report["reason"]), report["reason"]


def test_the_report_files_say_why_when_the_command_cannot_start(tmp_path: Path) -> None:
    code, report, out = run_kit(tmp_path, "server", "--stdio", "mcp-ref-no-such-command-xyz")
    assert code == 2 and "could not start 'mcp-ref-no-such-command-xyz'" in report["reason"]
    error = ET.parse(tmp_path / "report.xml").getroot().find(".//testcase/error")
    assert error is not None and "could not start" in (error.get("message") or "")


# --- a flood is bounded ---------------------------------------------------------------------------------


def test_a_flooding_server_leaves_the_kit_bounded_and_warns_log_05(tmp_path: Path) -> None:
    code, report, out = run_kit(tmp_path, "server", "--stdio", f"{UNRULY} --mode flood", "--timeout", "5",
                                "--only", "lifecycle", "LOG-05", timeout=240)
    assert judged(report) == {"logging.log-messages-are-rate-limited": "WARN"}, out
    # 20,000 notifications of 1 KB per connection: the kit keeps a bounded share and says so.
    assert (tmp_path / "report.json").stat().st_size < 20 * 1024 * 1024
    assert report["messages_cut"] > 0 and "bounded" in report["messages_cut_why"]
    assert "message(s) were counted but not kept: every transcript is bounded" in out
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # the largest child so far, in KiB
    assert peak_kib < 800 * 1024, f"a child of this test process peaked at {peak_kib} KiB"


# --- SIGTERM ends a run like Ctrl-C ----------------------------------------------------------------------


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads process states from /proc")
def test_sigterm_stops_the_run_and_kills_servers_that_ignore_it(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    report = tmp_path / "report.json"
    kit = subprocess.Popen([*KIT, "server", "--stdio", f"{UNRULY} --mode ignore-sigterm --pids {pids}",
                            "--json", str(report)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           cwd=ROOT)
    try:
        deadline = time.monotonic() + 30
        while not (pids.exists() and pids.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.1)
        server, child = (int(p) for p in pids.read_text().split())
        time.sleep(1.0)  # the kit is now waiting on a server that went mute
        kit.send_signal(signal.SIGTERM)
        _, err = kit.communicate(timeout=20)
    finally:
        if kit.poll() is None:
            kit.kill()
            kit.communicate()
    assert kit.returncode == 143, err
    assert "stopped by SIGTERM" in err
    assert json.loads(report.read_text())["reason"].startswith("stopped by SIGTERM")
    deadline = time.monotonic() + 5
    while (alive(server) or alive(child)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(server) and not alive(child), "the server and its child ignore SIGTERM: the kit must kill them"


# --- HTTP with SSE ---------------------------------------------------------------------------------------


@pytest.fixture
def sse_peer(request: Any) -> Iterator[tuple[subprocess.Popen[str], str]]:
    proc = subprocess.Popen([sys.executable, str(PEERS / "unruly_sse_server.py"), "--mode", request.param],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        yield proc, proc.stdout.readline().rsplit(" at ", 1)[1].strip()
    finally:
        proc.kill()
        proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()


@pytest.mark.parametrize("sse_peer", ["no-endpoint"], indirect=True)
def test_an_event_stream_without_an_endpoint_event_is_diagnosed(tmp_path: Path, sse_peer: Any) -> None:
    code, report, out = run_kit(tmp_path, "server", "--sse", sse_peer[1], "--timeout", "1", "--startup", "1")
    assert code == 2 and re.search(r"no endpoint event arrived on the event stream within 1(\.\d)? s", report["reason"]), out


def test_connection_refused_is_said(tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:  # a port nothing listens on once this block ends
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code, report, out = run_kit(tmp_path, "server", "--sse", f"http://127.0.0.1:{port}/sse")
    assert code == 2 and "connection refused" in report["reason"], out


@pytest.mark.parametrize("sse_peer", ["hang-unknown-session"], indirect=True)
def test_a_post_for_an_unknown_session_that_hangs_is_a_finding(tmp_path: Path, sse_peer: Any) -> None:
    code, report, out = run_kit(tmp_path, "server", "--sse", sse_peer[1], "--timeout", "2",
                                "--only", "transports.sse-unknown-session-is-refused")
    case = report["cases"][0]
    assert case["status"] == "WARN" and case["findings"][0]["id"] == "TR-08", out
    assert "got no HTTP answer within 2 s" in case["findings"][0]["message"]


@pytest.mark.parametrize("sse_peer", ["good"], indirect=True)
def test_the_good_sse_peer_passes_what_it_serves(tmp_path: Path, sse_peer: Any) -> None:
    """The control for the next test: the same peer, not killed, fails nothing there."""
    code, report, out = run_kit(tmp_path, "server", "--sse", sse_peer[1], "--timeout", "3",
                                "--only", *SSE_PAGES)
    assert judged(report) == {}, out


SSE_PAGES = ("lifecycle", "ping", "server/tools", "TR-06", "TR-09")


@pytest.mark.parametrize("sse_peer", ["answers-out-of-order"], indirect=True)
def test_answers_that_come_in_another_order_than_their_requests_are_each_found(tmp_path: Path, sse_peer: Any) -> None:
    """Ten pipelined pings whose answers come out of order (every other one 0.2 s late): each is
    its request's answer, found though it arrived while the kit waited for another. The kit once
    filed such an answer as a stray and failed PING-01 "no response" (under load, against a
    good peer whose threads answered out of order)."""
    code, report, out = run_kit(tmp_path, "server", "--sse", sse_peer[1], "--timeout", "3", "--only", "ping")
    assert judged(report) == {} and code == 0, out
    assert next(c for c in report["cases"] if c["name"] == "ping.pipelined-pings-are-all-answered")["status"] == "PASS"


@pytest.mark.parametrize("sse_peer", ["exit-after-posts"], indirect=True)
def test_a_server_killed_mid_run_over_sse_is_one_root_cause(tmp_path: Path, sse_peer: Any) -> None:
    code, report, out = run_kit(tmp_path, "server", "--sse", sse_peer[1], "--timeout", "3", "--only", *SSE_PAGES)
    assert code == 1, out
    message = root_cause(report)
    # The new connection finds nothing listening, or a process still dying (a reset).
    assert "closed the event stream" in message and ("connection refused" in message or "reset" in message), message
    assert judged(report) == {"lifecycle.keeps-answering": "FAIL"}, out
    assert os.waitpid(sse_peer[0].pid, os.WNOHANG) != (0, 0) or sse_peer[0].poll() is not None
