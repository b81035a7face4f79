"""The mcp-ref command, run as a real subprocess: serve, request, demo.

Not a spec page of its own; it exercises basic/lifecycle and basic/transports#stdio end to end.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from .conftest import ROOT, TEST_SERVER

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
    assert json.loads(proc.stdout)["params"] == {"x": [1, "é"]}
    lines = proc.stderr.splitlines()
    assert lines[0].startswith("client -> server") and '"method":"initialize"' in lines[0]
    assert any(line.startswith("client <- server") and '"protocolVersion":"2024-11-05"' in line for line in lines)


def test_request_json_rpc_error_prints_the_error_and_exits_1() -> None:
    proc = run("request", "--stdio", SERVE, "no/such/method")
    assert proc.returncode == 1
    error = json.loads(proc.stdout)
    assert error["code"] == -32601 and "no/such/method" in error["message"]


def test_request_cannot_connect_exits_2() -> None:
    proc = run("request", "--stdio", "/nonexistent/server", "ping")
    assert proc.returncode == 2 and proc.stdout == ""
    assert "could not connect" in proc.stderr


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
    assert init["result"]["protocolVersion"] == "2024-11-05"
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


def test_request_answers_sampling_and_roots() -> None:
    replied = run("request", "--stdio", SERVE, "tools/call", '{"name": "ask_model"}', "--sampling-reply", "forty-two")
    assert replied.returncode == 0, replied.stderr
    assert json.loads(replied.stdout)["content"][0]["text"] == "mcp-ref-cli says: forty-two"
    refused = run("request", "--stdio", SERVE, "tools/call", '{"name": "ask_model"}', "--trace")
    assert refused.returncode == 0 and json.loads(refused.stdout)["isError"] is True
    assert "no sampling handler is configured" in refused.stdout
    error_line = next(line for line in refused.stderr.splitlines() if line.startswith("client -> server") and '"error"' in line)
    assert "no sampling handler is configured" in error_line  # the JSON-RPC error our CLI sent
    roots = run("request", "--stdio", SERVE, "tools/call", '{"name": "list_client_roots"}',
                "--root", "file:///a", "--root", "file:///b")
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
