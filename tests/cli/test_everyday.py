"""The command line in everyday use: what ``request`` declares, how ``serve`` stops, what a terminal shows.

Not one spec page; client/sampling and client/roots (a client declares only what it can answer:
SAMP-05, ROOT-01) and the command line's habits, with real processes:

1. ``mcp-ref request`` declares ``sampling`` only with ``--sampling-reply`` and ``roots`` only with
   ``--root``; against a server that asks for both whatever was declared, it answers what it
   declared and refuses the rest with -32601, and a server that minds the capabilities (ours)
   does not ask; a tool that fails for want of one says which option declares it.
2. ``mcp-ref serve`` exits 130 on Ctrl-C on every transport, saying only that it was
   interrupted; an address it cannot listen on is said in one line of ours, exit 2, and the
   hint about a non-local address comes only once it listens.
3. On a terminal, the ``--trace`` and ``--explain`` lines and the server's log lines never share
   a line with ``request``'s progress bar.
"""

from __future__ import annotations

import json
import os
import pty
import re
import signal
import socket
import subprocess
import sys
import time
from typing import Any

import pytest

from ..conftest import ROOT
from .test_main import MCP_REF, SERVE

ASKING = f"{sys.executable} {ROOT / 'tests' / 'peers' / 'asking_server.py'}"
CLI_SERVERS = ROOT / "tests" / "peers" / "cli_servers.py"


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MCP_REF, *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          stdin=subprocess.DEVNULL)


# --- 1. request declares only what it can answer -------------------------------------------------------


@pytest.mark.parametrize("options, declared", [
    ([], {}),
    (["--sampling-reply", "hello"], {"sampling": {}}),
    (["--root", "file:///tmp/a"], {"roots": {}}),  # no listChanged: its roots never change
    (["--sampling-reply", "hello", "--root", "file:///tmp/a"], {"sampling": {}, "roots": {}}),
])
def test_request_declares_exactly_what_its_options_let_it_answer(options: list[str], declared: dict[str, Any]) -> None:
    proc = run("request", "--stdio", ASKING, "tools/call", '{"name": "anything"}', *options)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(json.loads(proc.stdout)["content"][0]["text"])  # what the server saw and was answered
    assert seen["declared"] == declared  # SAMP-05, ROOT-01: no capability it cannot serve
    if "sampling" in declared:
        assert seen["sampling"]["result"]["content"] == {"type": "text", "text": "hello"}
    else:  # asked all the same: refused as a method it does not offer
        assert seen["sampling"]["error"]["code"] == -32601
    if "roots" in declared:
        assert seen["roots"]["result"] == {"roots": [{"uri": "file:///tmp/a"}]}
    else:
        assert seen["roots"]["error"]["code"] == -32601


@pytest.mark.parametrize("pin", [[], ["--protocol-version", "2025-11-25"]], ids=["2026-07-28", "2025-11-25"])
@pytest.mark.parametrize("tool, option", [("ask_model", "--sampling-reply TEXT"), ("list_client_roots", "--root URI")])
def test_a_tool_that_needs_an_undeclared_capability_says_which_option_declares_it(tool: str, option: str,
                                                                                  pin: list[str]) -> None:
    proc = run("request", "--stdio", SERVE, "tools/call", json.dumps({"name": tool}), *pin)
    capability = "sampling" if tool == "ask_model" else "roots"
    if pin:  # the handshake: our server did not ask; the tool failed on its side, saying why
        assert proc.returncode == 3
        assert f"the client did not declare the '{capability}' capability" in json.loads(proc.stdout)["content"][0]["text"]
    else:  # 2026-07-28: the request is refused with -32021 naming the capability (STLS-12)
        assert proc.returncode == 1
        assert json.loads(proc.stdout)["data"] == {"requiredCapabilities": {capability: {}}}
    assert proc.stderr.splitlines()[-1] == f"mcp-ref: note: this client declared no {capability} capability; {option} " \
                                           "declares it"


def test_a_root_that_is_not_a_file_uri_is_refused_before_anything_starts() -> None:
    proc = run("request", "--stdio", "no-such-program", "ping", "--root", "proj")  # (never started)
    assert proc.returncode == 2
    assert proc.stderr == f"mcp-ref: --root takes a file:// URI, not 'proj'; e.g. --root {(ROOT / 'proj').as_uri()}\n"
    dots = run("request", "--stdio", "no-such-program", "ping", "--root", "file:///a/%2e%2e/b")
    assert dots.returncode == 2 and dots.stderr.startswith("mcp-ref: --root 'file:///a/%2e%2e/b': a root uri must not "
                                                           "contain '..' segments")


# --- 2. serve: Ctrl-C, and where it cannot listen ----------------------------------------------------


def started_serving(transport: str) -> tuple[subprocess.Popen[str], str]:
    """``mcp-ref serve`` on ``transport``, once it serves: (the process, what it said on stdout)."""
    extra = [] if transport == "stdio" else ["--transport", transport, "--port", "0"]
    proc = subprocess.Popen([MCP_REF, "serve", f"{CLI_SERVERS}:server", *extra], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stdin is not None and proc.stdout is not None
    if transport == "stdio":  # it serves once it answers
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}) + "\n")
        proc.stdin.flush()
        said = proc.stdout.readline()
        assert json.loads(said)["id"] == 1
    else:
        said = proc.stdout.readline()
        assert " at http://127.0.0.1:" in said, said
        if transport == "http":  # it announces the old endpoint on a second line: read it too, or a
            # signal sent between the two lines leaves part of it for the test to find on stdout
            assert "and over HTTP with SSE at" in proc.stdout.readline()
    return proc, said


@pytest.mark.parametrize("transport", ["stdio", "sse", "http"])
def test_serve_exits_130_on_ctrl_c_on_every_transport_and_says_only_that(transport: str) -> None:
    proc, _ = started_serving(transport)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert out == ""  # nothing more on stdout (over stdio: no stray message to the client)
    assert err.strip().splitlines()[-1:] == ["mcp-ref: interrupted"] and "Traceback" not in err


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_serve_still_exits_0_at_the_end_of_stdin_and_dies_of_sigterm_as_before(transport: str) -> None:
    proc, _ = started_serving(transport)
    assert proc.stdin is not None
    if transport == "stdio":
        proc.stdin.close()  # LC-19: the end of input is the end of serving
    else:
        proc.terminate()
    proc.wait(timeout=30)
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    assert proc.returncode == (0 if transport == "stdio" else -signal.SIGTERM)


def test_serve_says_in_one_line_why_it_cannot_listen() -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        used = run("serve", "--transport", "http", "--port", str(port))
    assert used.returncode == 2 and used.stdout == ""
    assert used.stderr == (f"mcp-ref: cannot listen on 127.0.0.1:{port}: another program uses that port; stop it, or "
                           "give another --port (--port 0 picks a free one)\n")
    unknown = run("serve", "--transport", "sse", "--host", "no-such-host.invalid", "--port", "0")
    assert unknown.returncode == 2 and unknown.stdout == ""  # and no "listening on ..." hint: it never listened
    assert unknown.stderr == ("mcp-ref: cannot listen on 'no-such-host.invalid': no address of that name could be "
                              "found; give an address of this machine to --host, e.g. 127.0.0.1 (or 0.0.0.0 for every "
                              "interface)\n")


# --- 3. on a terminal, nothing shares a line with the progress bar -----------------------------------------


BAR = re.compile(rb"\[[#.]{30}\] \d+/\d+")


def on_a_terminal(*args: str) -> tuple[bytes, str]:
    """``mcp-ref ARGS`` with stderr on a pseudo-terminal: (what the terminal showed, stdout)."""
    controller, terminal = pty.openpty()
    proc = subprocess.Popen([MCP_REF, *args], stdout=subprocess.PIPE, stderr=terminal, cwd=ROOT,
                            stdin=subprocess.DEVNULL)
    os.close(terminal)
    shown = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # EIO: every writer of the terminal has exited
            break
        if not chunk:
            break
        shown += chunk
    os.close(controller)
    out, _ = proc.communicate(timeout=30)
    return shown, out.decode()


@pytest.mark.parametrize("flag", ["--trace", "--explain"])
def test_trace_lines_never_share_a_line_with_the_progress_bar(flag: str) -> None:
    shown, out = on_a_terminal("request", "--stdio", f"{SERVE} {CLI_SERVERS}:server", "tools/call",
                               '{"name": "steps", "arguments": {"count": 5}}', flag)
    assert json.loads(out)["content"][0]["text"] == "5 steps"
    lines = shown.replace(b"\r\n", b"\n").split(b"\n")
    bars = [line for line in lines if BAR.search(line)]
    assert len(bars) >= 1 and sum(len(BAR.findall(line)) for line in bars) == 5  # five redraws, all shown
    for line in bars:  # a bar's line holds the bar's redraws and nothing else
        assert all(BAR.fullmatch(part) for part in line.split(b"\r") if part), line
    traced = [line for line in lines if line.startswith(b"client ")]
    assert sum(b"notifications/progress" in line for line in traced) == 5  # every progress message traced, whole


def test_the_servers_log_lines_never_share_a_line_with_the_progress_bar() -> None:
    shown, out = on_a_terminal("request", "--stdio", f"{SERVE} {CLI_SERVERS}:server", "tools/call",
                               '{"name": "steps_with_logs", "arguments": {"count": 4}}')
    assert json.loads(out)["content"][0]["text"] == "4 steps"
    lines = shown.replace(b"\r\n", b"\n").split(b"\n")
    assert [line for line in lines if line.startswith(b"[server log]")] == [
        f"[server log] info cli-test: step {step} done".encode() for step in range(1, 5)]
    for line in lines:  # a bar's line holds the bar's redraws and nothing else
        if BAR.search(line):
            assert all(BAR.fullmatch(part) for part in line.split(b"\r") if part), line
