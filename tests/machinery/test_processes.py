"""Child processes: started in a group of their own, their stderr kept, stopped (machinery/stdio/processes.py).

Not a spec page: the plumbing under the client end of stdio.py. Its promises: the child's
environment is ours with the caller's changes on top (None removes a variable), or the caller's
alone; the child runs in a process group of its own, so that ``signal_group`` stops whatever it
started too; its stderr is read on a thread of its own, handed on line by line, the last lines
kept for error messages (``last_words``); ``exited_within`` is a bounded wait. Last, the order in
which stdio.py's close uses them (LC-16..18): stdin closed, a wait, SIGTERM, a wait, SIGKILL.
Real subprocesses throughout. A server's exit code and stderr in a client's error are in
tests/pages/test_stdio.py.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_ref import Client, stdio
from mcp_ref.machinery.stdio import processes
from mcp_ref.machinery.stdio.processes import (
    STDERR_TAIL_LINES,
    StderrReader,
    child_environment,
    exited_within,
    signal_group,
    spawn,
)

from ..conftest import wait_until

WAIT = 5.0  # seconds: a bound for liveness only
posix_only = pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")


@pytest.fixture
def children() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Children a test starts; any still running at its end are killed with their groups."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for child in started:
        if child.poll() is None:
            signal_group(child, processes.KILL)
        child.wait(WAIT)
        for stream in (child.stdin, child.stdout, child.stderr):
            if stream is not None:
                stream.close()


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie nobody reaped yet counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def test_the_childs_environment_is_ours_with_the_callers_changes_on_top(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_REF_TEST_KEPT", "kept")
    monkeypatch.setenv("MCP_REF_TEST_GONE", "here")
    env = child_environment({"MCP_REF_TEST_NEW": "new", "MCP_REF_TEST_GONE": None, "MCP_REF_TEST_NEVER": None}, True)
    assert env["MCP_REF_TEST_KEPT"] == "kept" and env["MCP_REF_TEST_NEW"] == "new"
    assert "MCP_REF_TEST_GONE" not in env and "MCP_REF_TEST_NEVER" not in env
    assert env["PATH"] == os.environ["PATH"]
    assert child_environment({"ONLY": "this", "NOT": None}, False) == {"ONLY": "this"}
    assert child_environment(None, True) == dict(os.environ)


def test_the_child_gets_the_environment_and_directory_it_is_given(
        children: list[subprocess.Popen[bytes]], tmp_path: Path) -> None:
    child = spawn(python("import os; print(os.environ.get('MCP_REF_TEST_NEW'), os.getcwd())"),
                  child_environment({"MCP_REF_TEST_NEW": "given"}, True), tmp_path)
    children.append(child)
    out, _ = child.communicate(timeout=WAIT)
    assert out.decode().split() == ["given", os.path.realpath(tmp_path)]


@posix_only
def test_the_child_leads_a_group_of_its_own_and_signal_group_stops_what_it_started(
        children: list[subprocess.Popen[bytes]]) -> None:
    # A wrapper (like npx or a shell) that starts a grandchild and waits.
    child = spawn(python("import subprocess, sys, time\n"
                         "g = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
                         "print(g.pid, flush=True); time.sleep(60)"), dict(os.environ), None)
    children.append(child)
    assert os.getpgid(child.pid) == child.pid != os.getpgid(0)
    assert child.stdout is not None
    grandchild = int(child.stdout.readline())
    assert os.getpgid(grandchild) == child.pid
    assert not exited_within(child, 0.01)
    signal_group(child, signal.SIGTERM)
    assert exited_within(child, WAIT) and child.returncode == -signal.SIGTERM
    wait_until(lambda: not alive(grandchild), timeout=WAIT)  # the grandchild went with it
    signal_group(child, signal.SIGTERM)  # a group that is gone: nothing happens


def test_stderr_is_handed_on_line_by_line_and_its_last_lines_kept(children: list[subprocess.Popen[bytes]]) -> None:
    lines = STDERR_TAIL_LINES + 5
    child = spawn(python(f"import sys\nfor n in range({lines}): print('line', n, file=sys.stderr)\n"
                         "print('', file=sys.stderr); print('caf\\u00e9 \\r', file=sys.stderr)"), dict(os.environ), None)
    children.append(child)
    seen: list[str] = []
    reader = StderrReader(child, seen.append)
    assert exited_within(child, WAIT)
    reader.join(WAIT)
    assert seen == [f"line {n}" for n in range(lines)] + ["", "café "]
    assert list(reader.tail) == seen[-STDERR_TAIL_LINES:]
    assert reader.last_words() == f"line {lines - 2} | line {lines - 1} | café"  # the last 3 non-blank, stripped
    assert reader.last_words(lines=1, chars=3) == "afé"


def test_a_failing_line_handler_does_not_stop_the_reading(children: list[subprocess.Popen[bytes]]) -> None:
    child = spawn(python("import sys; print('one', file=sys.stderr); print('two', file=sys.stderr)"),
                  dict(os.environ), None)
    children.append(child)
    seen: list[str] = []

    def handler(line: str) -> None:
        seen.append(line)
        raise RuntimeError("a handler of the user's that fails")

    reader = StderrReader(child, handler)
    assert exited_within(child, WAIT)
    reader.join(WAIT)
    assert seen == ["one", "two"] and list(reader.tail) == ["one", "two"]


STOPPED_IN_ORDER = """
import json, signal, sys, time
def on_term(signum, frame):
    print("SIGTERM", file=sys.stderr, flush=True)   # and go on: only SIGKILL can stop it now
signal.signal(signal.SIGTERM, on_term)
line = sys.stdin.readline(); msg = json.loads(line)
print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"protocolVersion": "2024-11-05",
      "capabilities": {}, "serverInfo": {"name": "stubborn", "version": "1"}}}), flush=True)
for line in sys.stdin:
    pass
print("stdin closed", file=sys.stderr, flush=True)  # and go on, as a server that ignores it would
while True:
    time.sleep(0.01)
"""


@posix_only
def test_a_server_is_stopped_in_order_stdin_closed_wait_sigterm_wait_sigkill(monkeypatch: pytest.MonkeyPatch) -> None:
    """LC-16..18, as stdio.py's close runs them with these tools (its graces made short here)."""
    monkeypatch.setattr(stdio, "STDIN_CLOSE_GRACE", 0.2)
    monkeypatch.setattr(stdio, "TERMINATE_GRACE", 0.3)
    said: list[str] = []
    lock = threading.Lock()

    def on_stderr(line: str) -> None:
        with lock:
            said.append(line)

    client = Client.stdio(python(STOPPED_IN_ORDER), on_stderr=on_stderr, timeout=WAIT)
    process = client.session._transport.process  # type: ignore[attr-defined]
    client.close()
    assert process.poll() == -signal.SIGKILL, "it should have taken SIGKILL to stop it"
    with lock:  # (close() joined the stderr reader: every line is in)
        assert said == ["stdin closed", "SIGTERM"]
