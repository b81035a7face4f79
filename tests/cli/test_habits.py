"""Everyday habits of the client and the command line: tracing, clients left open, Ctrl-C,
`--allow-host`, `inspect`, progress on stderr, `config` (`mcp-ref serve TARGET`: tests/cli/test_target.py).

Not a spec page of its own. It exercises basic/transports (TR-04, TR-06, TR-07: stdout stays
clean, Host/Origin checks and their flags) and basic/lifecycle's shutdown (a spawned server is
always shut down) through real subprocesses and a real HTTP server on 127.0.0.1.
"""

from __future__ import annotations

import gc
import json
import os
import pty
import signal
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
import requests

import mcp_ref
from mcp_ref import Client, ConnectionClosed, stdio
from mcp_ref.cli.demo import SECTION_TITLES
from mcp_ref.cli.inspect_cmd import prompt_signature, render, schema_type, summary, tool_signature

from ..conftest import ROOT, TEST_SERVER, SseServerProcess, Waiters, server_command
from .test_main import MCP_REF, SERVE

CLI_SERVERS = ROOT / "tests" / "peers" / "cli_servers.py"
STUBBORN = [sys.executable, str(CLI_SERVERS), "--stubborn"]  # ignores end of input: only SIGTERM stops it


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie nobody reaped yet counts as dead)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError):
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def wait_until_gone(pid: int, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while running(pid):
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)  # do not leave it behind, whatever the test says
            return False
        time.sleep(0.02)
    return True


def text_of(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


def run_cli(*args: str, cwd: Path = ROOT, timeout: float = 30, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MCP_REF, *args], capture_output=True, text=True, timeout=timeout, cwd=cwd, **kwargs)


# --- Client(trace=True), HttpError -----------------------------------------------------------------


def test_trace_true_prints_the_wire_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    with Client.stdio(server_command(), trace=True, cwd=str(ROOT), timeout=10) as client:
        client.ping()
    err = capsys.readouterr().err.splitlines()  # 2026-07-28: the probe first; ping is server/discover again
    assert err[0].startswith("client -> server  ") and '"method":"server/discover"' in err[0]
    assert any(line.startswith("client <- server  ") and 'serverInfo"' in line for line in err)
    assert sum(line.startswith("client -> server  ") and '"method":"server/discover"' in line for line in err) == 2


def test_http_error_is_exported_lazily() -> None:
    from mcp_ref import HttpError

    assert mcp_ref.HttpError is HttpError and "HttpError" in mcp_ref.__all__
    assert issubclass(mcp_ref.HttpError, mcp_ref.McpError)
    with pytest.raises(AttributeError, match="no attribute 'NoSuchThing'"):
        mcp_ref.NoSuchThing  # noqa: B018


# --- clients left open, Ctrl-C ---------------------------------------------------------------------


def test_a_collected_client_warns_and_shuts_its_server_down(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stdio, "STDIN_CLOSE_GRACE", 0.2)
    client = Client.stdio(STUBBORN, timeout=10)
    server_pid = int(text_of(client.call_tool("pid")))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        del client
        gc.collect()
    messages = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning) and "Client" in str(w.message)]
    assert len(messages) == 1 and "use `with Client...` or call close()" in messages[0], messages
    assert wait_until_gone(server_pid), "the server of a garbage-collected client is still running"


def test_a_closed_client_gives_no_warning() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with Client.stdio(server_command(), cwd=str(ROOT), timeout=10) as client:
            client.ping()
        del client
        gc.collect()
    assert not [w for w in caught if "Client" in str(w.message)]


SCRIPT_PREAMBLE = f"""
import sys
import mcp_ref.stdio
mcp_ref.stdio.STDIN_CLOSE_GRACE = 0.2   # the stubborn server ignores end of input: get to SIGTERM soon
from mcp_ref import Client
STUBBORN = {STUBBORN!r}

def announce(direction, data):          # tells the test when the slow call is on the wire
    if direction == "->" and b'"name":"sleep"' in data:
        print("in flight", flush=True)
"""


def run_script(body: str, *python_options: str, interrupt: bool = False) -> tuple[int, subprocess.CompletedProcess[str]]:
    """Run a client script; return the pid of its server and the finished process."""
    proc = subprocess.Popen([sys.executable, *python_options, "-c", SCRIPT_PREAMBLE + body], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stdout is not None
    server_pid = int(proc.stdout.readline())
    if interrupt:
        assert proc.stdout.readline() == "in flight\n"
        proc.send_signal(signal.SIGINT)  # Ctrl-C while the main thread waits for the answer
    try:
        out, err = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"the script did not exit (stuck threads?): {err}")
    return server_pid, subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_a_client_left_open_at_exit_shuts_its_server_down_with_a_warning() -> None:
    body = """
client = Client.stdio(STUBBORN, timeout=10)
print(client.call_tool("pid")["content"][0]["text"], flush=True)
"""  # and exit, without close()
    server_pid, proc = run_script(body, "-W", "always::ResourceWarning")
    assert proc.returncode == 0, proc.stderr
    assert "ResourceWarning" in proc.stderr and "still open at exit: use `with Client...` or call close()" in proc.stderr
    assert wait_until_gone(server_pid), "the server outlived the program that left its client open"


@pytest.mark.parametrize("style", ["with", "plain"])
def test_ctrl_c_in_a_script_leaves_no_server_and_no_stuck_thread(style: str) -> None:
    if style == "with":
        body = """
with Client.stdio(STUBBORN, trace=announce, timeout=60) as client:
    print(client.call_tool("pid")["content"][0]["text"], flush=True)
    client.call_tool("sleep", {"seconds": 60})
"""
    else:
        body = """
client = Client.stdio(STUBBORN, trace=announce, timeout=60)
print(client.call_tool("pid")["content"][0]["text"], flush=True)
client.call_tool("sleep", {"seconds": 60})
"""
    server_pid, proc = run_script(body, interrupt=True)
    assert proc.returncode != 0 and "KeyboardInterrupt" in proc.stderr
    assert wait_until_gone(server_pid), "Ctrl-C left the server running"


def test_close_with_calls_in_flight_sends_cancelled_for_each() -> None:
    sent: list[dict[str, Any]] = []
    both_sent = threading.Event()

    def trace(direction: str, data: bytes) -> None:
        if direction == "->":
            sent.append(json.loads(data))
            if sum(msg.get("method") == "test/sleep" for msg in sent) == 2:
                both_sent.set()

    client = Client.stdio(server_command(TEST_SERVER), trace=trace, cwd=str(ROOT), timeout=10)
    waiters = Waiters(lambda: client.request("test/sleep", {"seconds": 30}), 2)
    assert both_sent.wait(5)
    client.close()
    outcomes = waiters.join(5)
    assert len(outcomes) == 2 and all(isinstance(o, ConnectionClosed) for o in outcomes)
    calls = {msg["id"] for msg in sent if msg.get("method") == "test/sleep"}
    cancelled = {msg["params"]["requestId"] for msg in sent if msg.get("method") == "notifications/cancelled"}
    assert cancelled == calls


def interrupt_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``mcp-ref ARGS --trace``, press Ctrl-C once a request is on the wire."""
    proc = subprocess.Popen([MCP_REF, *args, "--trace"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stderr is not None
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.startswith("client -> server") and ('"test/sleep"' in line or '"initialize"' in line):
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=15)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, "".join(seen) + err)


def test_request_exits_130_on_ctrl_c_without_a_traceback() -> None:
    proc = interrupt_cli("request", "--stdio", f"{SERVE} {TEST_SERVER}", "test/sleep", '{"seconds": 30}')
    assert proc.returncode == 130, proc.stderr
    assert "Traceback" not in proc.stderr and "interrupted" in proc.stderr and proc.stdout == ""


def test_inspect_exits_130_on_ctrl_c_while_connecting() -> None:
    silent = f'{sys.executable} -c "import sys; sys.stdin.buffer.read()"'  # never answers initialize
    proc = interrupt_cli("inspect", "--stdio", silent)
    assert proc.returncode == 130, proc.stderr
    assert "Traceback" not in proc.stderr


# --- HTTP with SSE: --allow-host, --allow-origin, the client quotes the refusal --------------------


def get_status(url: str, **headers: str) -> int:
    with requests.get(url, headers=headers, stream=True, timeout=5) as response:
        return response.status_code


def test_allow_host_and_allow_origin_widen_the_checks() -> None:
    server = SseServerProcess("mcp_ref.demo_server:server", "--allow-host", "mcp.example.test",
                              "--allow-origin", "https://app.example.test")
    try:
        port = server.url.split(":")[2].split("/")[0]
        assert get_status(server.url, Host=f"mcp.example.test:{port}") == 200
        assert get_status(server.url, Host=f"127.0.0.1:{port}") == 200  # localhost still works
        assert get_status(server.url, Host=f"other.example.test:{port}") == 421
        assert get_status(server.url, Origin="https://app.example.test") == 200
        assert get_status(server.url, Origin="https://evil.example.test") == 403
        with Client.sse(server.url, headers={"Host": f"mcp.example.test:{port}"}, timeout=10) as client:
            assert text_of(client.call_tool("add", {"a": 1, "b": 2})) == "3"
    finally:
        server.close()


def test_a_refused_client_quotes_the_servers_reason() -> None:
    server = SseServerProcess("mcp_ref.demo_server:server")
    try:
        port = server.url.split(":")[2].split("/")[0]
        with pytest.raises(mcp_ref.HttpError) as caught:
            Client.sse(server.url, headers={"Host": f"remote.example.test:{port}"}, timeout=10)
        assert caught.value.status == 421
        assert "Host 'remote.example.test:" in str(caught.value) and "is not allowed" in str(caught.value)
    finally:
        server.close()


def test_binding_a_non_local_address_without_allow_host_prints_a_hint() -> None:
    proc = subprocess.Popen(server_command() + ["--transport", "sse", "--port", "0", "--host", "127.0.0.2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stderr is not None
        hint = proc.stderr.readline()
        assert hint.startswith("mcp-ref: listening on 127.0.0.2") and "--allow-host" in hint
    finally:
        proc.terminate()
        proc.communicate(timeout=5)


# --- inspect ---------------------------------------------------------------------------------------


def test_inspect_shows_the_demo_server_on_one_screen() -> None:
    proc = run_cli("inspect", "--stdio", SERVE, env={**os.environ, "COLUMNS": "100"})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "mcp-ref-demo 0.1.0  (MCP 2026-07-28)"
    assert "A demonstration server for mcp_ref" in lines[1]  # the instructions
    assert ("capabilities: completions, logging, prompts (listChanged), resources (subscribe, listChanged), tools (listChanged)"
            in " ".join(line.strip() for line in lines))
    add = next(line for line in lines if line.lstrip().startswith("add("))
    assert add.split()[:3] == ["add(a:", "integer,", "b:"] and add.endswith("Add two integers.")
    assert any(line.lstrip().startswith("review_code(code, language?)") for line in lines)
    assert any(line.lstrip().startswith("demo://notes/{topic}") for line in lines)
    assert any(line.lstrip().startswith("demo://readme") and "text/plain" in line for line in lines)
    assert len(lines) < 50 and max(len(line) for line in lines) <= 100


def test_inspect_json_over_sse_has_every_list() -> None:
    server = SseServerProcess("mcp_ref.demo_server:server")
    try:
        proc = run_cli("inspect", "--sse", server.url, "--json")
        assert proc.returncode == 0, proc.stderr
        info = json.loads(proc.stdout)
        with Client.sse(server.url, timeout=10) as client:
            assert info["tools"] == client.list_tools()
            assert info["resourceTemplates"] == client.list_resource_templates()
        assert {"serverInfo", "protocolVersion", "capabilities", "instructions", "resources", "prompts"} <= set(info)
    finally:
        server.close()


def test_inspect_skips_what_the_server_did_not_declare() -> None:
    proc = run_cli("inspect", "--json", "--stdio", f"{SERVE} {TEST_SERVER}")
    info = json.loads(proc.stdout)
    assert info["capabilities"] == {"logging": {}} and "tools" not in info and "prompts" not in info
    human = run_cli("inspect", "--stdio", f"{SERVE} {TEST_SERVER}").stdout
    assert "capabilities: logging" in human and "tools (" not in human


def test_argument_signatures() -> None:
    tool = {"name": "t", "inputSchema": {"type": "object", "required": ["path"], "properties": {
        "mode": {"enum": ["r", "w"]}, "path": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}},
        "limit": {"type": "integer", "default": 10}, "x": {"anyOf": [{"type": "number"}, {"type": "null"}]}}}}
    assert tool_signature(tool) == 't(path: string, mode?: "r" | "w", tags?: string[], limit: integer = 10, x?: number | null)'
    assert tool_signature({"name": "bare"}) == "bare()"  # a hostile server's tool without a schema
    prompt = {"name": "p", "arguments": [{"name": "a", "required": True}, {"name": "b"}]}
    assert prompt_signature(prompt) == "p(a, b?)"


def test_inspect_shows_a_hostile_servers_lists_without_crashing_or_escaping() -> None:
    info = {"serverInfo": "not an object", "protocolVersion": "2024-11-05", "capabilities": {"tools": []},
            "instructions": "\x1b[2Jcleared?", "tools": [
                "not a tool", {"name": "t\x1b[31m", "inputSchema": {"required": [["x"], "a"], "properties": {"a": 1}},
                               "description": "line one\rsneaky\nline two"}]}
    screen = render(info, width=80)
    assert "\x1b" not in screen and "\r" not in screen
    assert "tools (1)" in screen and "t?[31m(a: any)  line one sneaky line two" in screen  # \r is only a space


TYPED_SERVER = '''
import dataclasses
import enum

from mcp_ref import Server

server = Server("typed", instructions="Line one.\\nLine two.\\n\\n- a bullet")


class Unit(enum.Enum):
    CELSIUS = "C"
    FAHRENHEIT = "F"


@dataclasses.dataclass
class Reading:
    value: float
    unit: Unit = Unit.CELSIUS


@dataclasses.dataclass
class Node:
    name: str
    children: list["Node"] = dataclasses.field(default_factory=list)


@server.tool()
def record(reading: Reading, tree: Node, tags: dict[str, int]) -> str:
    """Store a reading.

    Args:
        reading: the reading to keep
        tree: where to file it
    """
    return "ok"
'''


def test_inspect_keeps_line_breaks_shows_shapes_and_each_arguments_description(tmp_path: Path) -> None:
    (tmp_path / "typed_server.py").write_text(TYPED_SERVER)
    proc = run_cli("inspect", "--stdio", f"{MCP_REF} serve typed_server", cwd=tmp_path,
                   env={**os.environ, "COLUMNS": "200"})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[1:5] == ["  Line one.", "  Line two.", "", "  - a bullet"]  # the server's own line breaks
    record = next(line for line in lines if line.lstrip().startswith("record("))
    assert record.split("  Store a reading.")[0].strip() == (
        'record(reading: {value: number, unit?: "C" | "F"}, tree: Node {name: string, children?: Node[]}, '
        "tags: {[key: string]: integer})")  # a dataclass by its fields, not "object"
    after = lines[lines.index(record) + 1:]
    assert after[:2] == ["      reading: the reading to keep", "      tree: where to file it"]
    assert "Args:" not in proc.stdout  # the block became the arguments' descriptions, shown once


def test_schema_shapes() -> None:
    assert schema_type({"type": "object"}) == "object"
    assert schema_type({"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "null"}]}}) == "(string | null)[]"
    assert schema_type({"type": "array", "items": [{"type": "integer"}, {"const": "x"}]}) == '[integer, "x"]'
    deep = {"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "object", "properties": {
        "c": {"type": "object", "properties": {"d": {"type": "integer"}}}}}}}}}
    assert schema_type(deep) == "{a?: {b?: {c?: {...}}}}"  # nesting is cut, not drawn for ever
    assert schema_type({"$ref": "#/definitions/Gone"}, {"definitions": {}}) == "Gone"  # a dangling reference
    assert schema_type({"$ref": "https://example.com/schema"}) == "schema"


def test_summary_stops_at_the_docstrings_sections() -> None:
    assert summary("Add them.\n\nArgs:\n    a: first\n") == "Add them."
    assert summary("Add them,\nquickly.\n:param a: first") == "Add them, quickly."
    assert summary("Add them.\n\nParameters\n----------\na : int") == "Add them."
    assert summary("Uses Args: inline, which is prose.") == "Uses Args: inline, which is prose."
    assert summary(None) == ""


def test_inspect_cuts_long_instructions_and_says_so() -> None:
    info = {"serverInfo": {"name": "s", "version": "1"}, "protocolVersion": "2024-11-05", "capabilities": {},
            "instructions": "\n".join(f"line {n}" for n in range(40))}
    lines = render(info, width=80).splitlines()
    assert lines[1] == "  line 0" and "  ... (29 more lines; --json shows them all)" in lines


# --- demo --only -----------------------------------------------------------------------------------


def test_demo_help_lists_the_sections_for_only() -> None:
    proc = run_cli("demo", "--help")
    assert proc.returncode == 0
    listed = proc.stdout.split("sections (for --only N):\n", 1)[1].splitlines()
    assert [line.split(None, 1)[0] for line in listed] == [str(n) for n in range(1, len(SECTION_TITLES) + 1)]
    assert "   8  Progress: the request carries _meta.progressToken" in proc.stdout
    wrong = run_cli("demo", "--only", str(len(SECTION_TITLES) + 1))
    assert wrong.returncode == 2 and "mcp-ref demo --help lists them" in wrong.stderr and wrong.stdout == ""


def test_demo_only_runs_the_section_its_help_names() -> None:
    proc = run_cli("demo", "--only", "8")
    assert proc.returncode == 0, proc.stderr
    assert f"== 8. {SECTION_TITLES[7]} ==" in proc.stdout and "progress callback" in proc.stdout


# --- request: progress on stderr -------------------------------------------------------------------


STEPS = ("tools/call", '{"name": "steps", "arguments": {"count": 3}}')


def test_request_prints_progress_lines_when_stderr_is_not_a_terminal() -> None:
    proc = run_cli("request", "--stdio", f"{SERVE} {CLI_SERVERS}:server", *STEPS)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == ["progress 1/3", "progress 2/3", "progress 3/3"]
    assert run_cli("request", "--stdio", SERVE, "ping").stderr == ""  # no progress, nothing shown
    echoed = run_cli("request", "--stdio", f"{SERVE} {TEST_SERVER}", "test/echo", '{"x": 1}')
    params = json.loads(echoed.stdout)["params"]
    assert params["x"] == 1 and params["_meta"]["progressToken"] == 2  # it asked for progress


def test_request_draws_a_progress_bar_on_a_terminal() -> None:
    controller, terminal = pty.openpty()
    proc = subprocess.Popen([MCP_REF, "request", "--stdio", f"{SERVE} {CLI_SERVERS}:server", *STEPS],
                            stdout=subprocess.PIPE, stderr=terminal, cwd=ROOT)
    os.close(terminal)
    shown = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # EIO: every writer of the terminal has exited
            break
        if not chunk:
            break
        shown += chunk
    os.close(controller)
    out, _ = proc.communicate(timeout=15)
    assert json.loads(out)["content"][0]["text"] == "3 steps"
    assert shown.count(b"\r[") == 3 and b"\r[" + b"#" * 30 + b"] 3/3" in shown and shown.endswith(b"\n")


# --- config ----------------------------------------------------------------------------------------


def test_config_prints_the_mcp_servers_snippet_with_absolute_paths() -> None:
    demo = json.loads(run_cli("config", "demo").stdout)
    assert demo == {"mcpServers": {"demo": {"command": MCP_REF, "args": ["serve"]}}}
    assert Path(MCP_REF).is_absolute()
    proc = run_cli("config", "mine", "--env", "TOKEN=a=b", "--", "python", "tests/peers/cli_servers.py", "--stubborn")
    assert json.loads(proc.stdout) == {"mcpServers": {"mine": {
        "command": sys.executable, "args": [str(CLI_SERVERS), "--stubborn"], "env": {"TOKEN": "a=b"}}}}
    bad = run_cli("config", "x", "--env", "NOEQUALS")
    assert bad.returncode == 2 and "KEY=VALUE" in bad.stderr


def test_the_config_snippet_starts_the_server_without_the_virtual_environment(tmp_path: Path) -> None:
    entry = json.loads(run_cli("config", "cli", "--", "mcp-ref", "serve", "tests/peers/cli_servers.py:server").stdout)
    entry = entry["mcpServers"]["cli"]
    # As a desktop host starts it: another folder, a PATH without the virtual environment.
    with Client.stdio([entry["command"], *entry["args"]], inherit_env=False, env={"PATH": "/usr/bin:/bin"},
                      cwd=str(tmp_path), timeout=10) as client:
        assert client.server_info == {"name": "mcp-ref-cli-test", "version": "1.0"}


def test_a_reader_that_stops_early_gets_no_traceback() -> None:
    """`mcp-ref check --list | head -1`: the pipe closes early; no BrokenPipeError traceback."""
    import fcntl
    import os

    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)  # smaller than the listing: the writer must wait
    proc = subprocess.Popen([MCP_REF, "check", "--list"], stdout=write_end, stderr=subprocess.PIPE, cwd=ROOT)
    os.close(write_end)
    assert os.read(read_end, 10)
    os.close(read_end)  # like head: stop reading
    _, err = proc.communicate(timeout=15)
    assert proc.returncode == 0 and b"Traceback" not in err and b"BrokenPipeError" not in err, err
