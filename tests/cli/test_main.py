"""The mcp-ref command, run as a real subprocess: serve, request, demo.

Not a spec page of its own; it exercises basic/lifecycle and basic/transports#stdio end to end.
"""

from __future__ import annotations

import argparse
import io
import json
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import mcp_ref
from mcp_ref.cli.main import build_parser
from mcp_ref.cli.request_cmd import LogDisplay, ProgressDisplay

from ..conftest import ROOT, TEST_SERVER

MCP_REF = shutil.which("mcp-ref", path=str(Path(sys.executable).parent)) or ""
SERVE = f"{MCP_REF} serve"


def test_console_script_is_installed() -> None:
    assert MCP_REF, "the mcp-ref console script is missing: `make test` installs it with pip install -e ."


def run(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MCP_REF, *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def test_request_ping_prints_the_result_and_exits_0() -> None:
    proc = run("request", "--stdio", SERVE, "ping")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {}


def test_request_with_params_and_trace() -> None:
    proc = run("request", "--stdio", f"{SERVE} {TEST_SERVER}", "test/echo", '{"x": [1, "é"]}', "--trace", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    echoed = json.loads(proc.stdout)["params"]  # in 2026-07-28 with the revision and the client in _meta
    assert echoed["x"] == [1, "é"] and echoed["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    lines = proc.stderr.splitlines()
    assert lines[0].startswith("client -> server") and '"method":"server/discover"' in lines[0]
    assert any(line.startswith("client <- server") and '"supportedVersions":["2026-07-28"' in line for line in lines)
    old = run("request", "--stdio", f"{SERVE} {TEST_SERVER}", "test/echo", '{"x": [1, "é"]}', "--trace", "--no-progress",
              "--protocol-version", "2025-11-25")
    assert json.loads(old.stdout)["params"] == {"x": [1, "é"]}
    assert '"method":"initialize"' in old.stderr.splitlines()[0]


def test_request_json_rpc_error_prints_the_error_and_exits_1() -> None:
    proc = run("request", "--stdio", SERVE, "no/such/method")
    assert proc.returncode == 1
    error = json.loads(proc.stdout)
    assert error["code"] == -32601 and "no/such/method" in error["message"]


def test_request_cannot_connect_exits_2() -> None:
    proc = run("request", "--stdio", "/nonexistent/server", "ping")
    assert proc.returncode == 2 and proc.stdout == ""
    assert "could not start '/nonexistent/server'" in proc.stderr  # tests/machinery/test_reach.py: every way it says why


def test_request_timeout_exits_2() -> None:
    proc = run("request", "--stdio", f"{SERVE} {TEST_SERVER}", "test/sleep", '{"seconds": 10}', "--timeout", "0.5")
    assert proc.returncode == 2 and proc.stdout == ""
    assert "no response within 0.5 s" in proc.stderr


def test_request_bad_params_json_exits_2() -> None:
    proc = run("request", "--stdio", SERVE, "ping", "{not json")
    assert proc.returncode == 2 and "PARAMS_JSON" in proc.stderr


def test_serve_done_when_checks() -> None:
    """The Foundation issue's checks, against `mcp-ref serve` itself."""
    proc = subprocess.Popen([MCP_REF, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT)
    assert proc.stdin and proc.stdout

    def call(line: bytes) -> dict:  # type: ignore[type-arg]
        assert proc.stdin and proc.stdout
        proc.stdin.write(line + b"\n")
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())

    start = time.monotonic()
    assert call(b'{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}')["error"]["code"] == -32601
    assert time.monotonic() - start < 3  # at once: a client that waits for it would otherwise stall 10 s
    init = call(b'{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
                b'"capabilities":{},"clientInfo":{"name":"x","version":"1"}}}')
    assert init["result"]["protocolVersion"] == "2025-11-25"
    proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    assert call(b'{"jsonrpc":"2.0","id":3,"method":"oops", bad json')["error"]["code"] == -32700
    assert call(b'{"jsonrpc":"2.0","id":4,"method":"unknown/method"}')["error"]["code"] == -32601
    assert call(b'{"jsonrpc":"2.0","id":5,"method":"ping"}') == {"jsonrpc": "2.0", "id": 5, "result": {}}
    start = time.monotonic()
    proc.stdin.close()
    assert proc.wait(timeout=2) == 0
    assert time.monotonic() - start < 2
    proc.stdout.close()


def test_demo_runs_and_shows_the_wire() -> None:
    proc = run("demo", timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "client -> server" in proc.stdout and "client <- server" in proc.stdout
    assert '"method":"initialize"' in proc.stdout and '"method":"notifications/initialized"' in proc.stdout


def test_serve_rejects_a_bad_target() -> None:
    proc = run("serve", "mcp_ref.messages:McpError")
    assert proc.returncode != 0 and "not an mcp_ref Server" in proc.stderr


def test_import_mcp_ref_loads_no_heavy_dependency() -> None:
    code = ("import sys, mcp_ref; heavy = [m for m in ('werkzeug', 'requests', 'jsonschema', 'sseclient') "
            "if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("pin", [[], ["--protocol-version", "2025-11-25"]], ids=["2026-07-28", "2025-11-25"])
def test_request_answers_sampling_and_roots(pin: list[str]) -> None:
    replied = run("request", "--stdio", SERVE, "tools/call", '{"name": "ask_model"}', "--sampling-reply", "forty-two", *pin)
    assert replied.returncode == 0, replied.stderr
    assert json.loads(replied.stdout)["content"][0]["text"] == "mcp-ref-cli says: forty-two"
    refused = run("request", "--stdio", SERVE, "tools/call", '{"name": "ask_model"}', "--trace", *pin)
    sent = [json.loads(line.split("  ", 1)[1]) for line in refused.stderr.splitlines() if line.startswith("client -> ")]
    if pin:  # the handshake: the server's tool fails, saying why: exit 3
        assert refused.returncode == 3 and json.loads(refused.stdout)["isError"] is True
        assert sent[0]["method"] == "initialize" and "sampling" not in sent[0]["params"]["capabilities"]  # SAMP-05
        assert "the client did not declare the 'sampling' capability" in refused.stdout  # so the server did not ask
    else:  # 2026-07-28: the request is refused, naming what it needs (STLS-12): exit 1, as for any error
        error = json.loads(refused.stdout)
        assert refused.returncode == 1 and error["code"] == -32021
        assert error["data"] == {"requiredCapabilities": {"sampling": {}}}
        assert all("sampling" not in m["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] for m in sent)
    received = [line for line in refused.stderr.splitlines() if line.startswith("client <- server")]
    assert received and not any('"method":"sampling/createMessage"' in line for line in received)  # never asked
    assert refused.stderr.endswith("mcp-ref: note: this client declared no sampling capability; --sampling-reply "
                                   "TEXT declares it\n")
    roots = run("request", "--stdio", SERVE, "tools/call", '{"name": "list_client_roots"}',
                "--root", "file:///a", "--root", "file:///b", *pin)
    assert json.loads(roots.stdout)["content"][0]["text"] == "(unnamed): file:///a\n(unnamed): file:///b"


def test_serve_sse_and_request_sse() -> None:
    proc = subprocess.Popen([MCP_REF, "serve", "--transport", "sse", "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("mcp-ref: serving mcp-ref-demo over HTTP with SSE at http://127.0.0.1:")
        url = line.rsplit(" at ", 1)[1].strip()
        assert url.endswith("/sse")
        result = run("request", "--sse", url, "tools/call", '{"name": "add", "arguments": {"a": 1, "b": 2}}')
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout) == {"content": [{"type": "text", "text": "3"}]}
        error = run("request", "--sse", url, "nope")
        assert error.returncode == 1 and json.loads(error.stdout)["code"] == -32601
    finally:
        proc.terminate()
        proc.wait(timeout=5)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    refused = run("request", "--sse", url, "ping", "--timeout", "2")
    assert refused.returncode == 2 and "could not" in refused.stderr


# --- a newcomer's first commands: nothing hidden, nothing silently ignored ------------------------


CLI_SERVERS = ROOT / "tests" / "peers" / "cli_servers.py"


def test_version_prints_the_version() -> None:
    proc = run("--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"mcp-ref {mcp_ref.__version__} (MCP {mcp_ref.PROTOCOL_VERSION})"


def test_a_bare_mcp_ref_prints_its_help() -> None:
    proc = run()
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.startswith("usage: mcp-ref")
    for command in ("serve", "request", "inspect", "config", "demo", "spec", "check"):
        assert f"    {command} " in proc.stdout, command  # each command, with its one-line help


def test_every_positional_argument_has_help_text() -> None:
    def positionals(parser: argparse.ArgumentParser, path: str) -> list[tuple[str, argparse.Action]]:
        found = []
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    found += positionals(child, f"{path} {name}")
            elif not action.option_strings:
                found.append((path, action))
        return found

    every = positionals(build_parser(), "mcp-ref")
    assert len(every) >= 5  # serve TARGET, request METHOD and PARAMS_JSON, config NAME, spec ID_OR_PAGE, ...
    assert [(path, action.dest) for path, action in every if not action.help] == []
    shown = " ".join(run("request", "--help").stdout.split())  # and the help is what the user sees
    assert "METHOD the method to call, e.g. ping" in shown and "PARAMS_JSON the params as a JSON object" in shown


@pytest.mark.parametrize("options", [["--port", "8000"], ["--host", "0.0.0.0"], ["--allow-host", "box.example"]])
def test_serve_refuses_http_options_without_transport_sse(options: list[str]) -> None:
    proc = subprocess.run([MCP_REF, "serve", *options], capture_output=True, text=True, timeout=30, cwd=ROOT,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(f"mcp-ref: {options[0]} is for --transport sse")
    assert "add --transport sse" in proc.stderr and len(proc.stderr.splitlines()) == 1


def test_serve_with_port_and_transport_sse_still_serves() -> None:
    proc = subprocess.Popen([MCP_REF, "serve", "--transport", "sse", "--port", "0", "--host", "127.0.0.1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("mcp-ref: serving mcp-ref-demo over HTTP with SSE at http://127.0.0.1:")
    finally:
        proc.terminate()
        proc.communicate(timeout=5)


def test_request_shows_the_servers_log_messages_on_stderr() -> None:
    proc = run("request", "--stdio", SERVE, "tools/call", '{"name": "log_something", "arguments": {"message": "hi"}}')
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [f'[server log] {level} demo: {{"message": "hi"}}'
                                        for level in ("debug", "info", "warning")]
    assert json.loads(proc.stdout)["content"][0]["text"] == "sent at: debug, info, warning"
    # --quiet: nothing shown; in 2026-07-28 no level is asked for, so the server sends none (LOGX-01)
    quiet = run("request", "--stdio", SERVE, "tools/call", '{"name": "log_something"}', "--quiet")
    assert quiet.returncode == 0 and quiet.stderr == ""
    assert json.loads(quiet.stdout)["content"][0]["text"] == "sent at: no level (all below the threshold)"
    old = run("request", "--stdio", SERVE, "tools/call", '{"name": "log_something"}', "--quiet", "--protocol-version",
              "2025-11-25")  # a session of the handshake gets them unasked: sent, and not shown
    assert old.stderr == "" and json.loads(old.stdout)["content"][0]["text"] == "sent at: debug, info, warning"


def test_request_shows_a_log_message_as_it_arrives() -> None:
    """The message is on stderr while the tool is still running, not after its result."""
    proc = subprocess.Popen([MCP_REF, "request", "--stdio", f"{SERVE} {CLI_SERVERS}:server", "tools/call",
                             '{"name": "log_then_wait", "arguments": {"seconds": 30}}'],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stderr is not None
        ready, _, _ = select.select([proc.stderr], [], [], 60)  # two interpreters start first: generous on a busy machine
        assert ready, "no log message within 60 s"
        assert proc.stderr.readline() == "[server log] notice cli-test: started waiting\n"
        assert proc.poll() is None  # the call is still waiting for its result
    finally:
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 130 and out == ""


def test_a_server_log_message_cannot_write_to_the_terminal() -> None:
    stream = io.StringIO()
    show = LogDisplay(stream, ProgressDisplay(stream))
    show({"level": "info", "data": "two\nlines \x1b[2J", "logger": "x\x1b[31m"})
    show({"level": "error", "data": {"nested": [1, None]}})
    assert stream.getvalue().splitlines() == ['[server log] info x?[31m: "two\\nlines \\u001b[2J"',
                                              '[server log] error: {"nested": [1, null]}']


def test_a_tool_error_exits_3_with_its_text_on_stderr() -> None:
    proc = run("request", "--stdio", SERVE, "tools/call", '{"name": "fail", "arguments": {"reason": "disk full"}}')
    assert proc.returncode == 3
    assert json.loads(proc.stdout)["isError"] is True  # the whole result, on stdout as for any result
    assert proc.stderr.startswith("mcp-ref: the tool reported an error: ")  # one line, with the tool's text
    assert proc.stderr.endswith("disk full\n") and proc.stderr.count("\n") == 1
    assert run("request", "--stdio", SERVE, "tools/call", '{"name": "add", "arguments": {"a": 1, "b": 2}}'
               ).returncode == 0
    documented = " ".join(run("request", "--help").stdout.split())
    assert "3 tools/call answered with isError: true" in documented


@pytest.mark.parametrize(("method", "example"), [
    ("tools/call", '{"name": "add", "arguments": {"a": 2, "b": 3}}'),
    ("resources/read", '{"uri": "demo://readme"}'),
    ("prompts/get", '{"name": "review_code", "arguments": {"code": "x = 1"}}'),
])
def test_bad_params_json_shows_an_example_for_the_method(method: str, example: str) -> None:
    proc = run("request", "--stdio", SERVE, method, "{name: add}")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("mcp-ref: PARAMS_JSON is not valid JSON (")
    assert f"for {method} write it like '{example}'" in proc.stderr
    works = run("request", "--stdio", SERVE, method, example)  # the example itself is right
    assert works.returncode == 0, works.stderr


def test_params_json_that_is_not_an_object_names_what_it_is() -> None:
    proc = run("request", "--stdio", SERVE, "tools/call", '["add"]')
    assert proc.returncode == 2
    assert "PARAMS_JSON must be a JSON object, not array; for tools/call write it like '{" in proc.stderr
    ping = run("request", "--stdio", SERVE, "ping", "[]")
    assert "ping needs no params: leave PARAMS_JSON out" in ping.stderr


def test_a_refused_http_connection_is_one_sentence_without_urllib3_text() -> None:
    with socket.socket() as bound:  # bound, never listening: a connection to it is refused
        bound.bind(("127.0.0.1", 0))
        port = bound.getsockname()[1]
        proc = run("request", "--sse", f"http://127.0.0.1:{port}/sse", "ping", "--timeout", "5")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (f"mcp-ref: could not connect to http://127.0.0.1:{port}/sse: nothing is listening at "
                           f"127.0.0.1:{port} (connection refused); check that the server is running and that the "
                           "URL has the host and port it listens on\n")
    missing_scheme = run("request", "--sse", f"127.0.0.1:{port}/sse", "ping")
    assert missing_scheme.returncode == 2
    assert "is not an http:// or https:// URL; write it in full, e.g. http://127.0.0.1:8000/sse" in missing_scheme.stderr
    for raw in ("HTTPConnectionPool", "Max retries", "NewConnectionError", "urllib3", "adapters"):
        assert raw not in proc.stderr + missing_scheme.stderr
