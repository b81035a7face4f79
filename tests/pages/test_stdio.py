"""basic/transports#stdio: newline framing, the line cap, spawning and shutting down a server.

https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#stdio
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcp_ref import Client, ConnectionClosed
from mcp_ref.stdio import LineTooLong, NewlineFramer

from ..conftest import ROOT, TEST_SERVER, Waiters, server_command

# --- the framer, sans I/O ----------------------------------------------------------------------

MESSAGES = [
    b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
    '{"jsonrpc":"2.0","method":"x","params":{"t":"line\u2028sep \u00e9"}}'.encode(),
    b'{"jsonrpc":"2.0","id":"2","result":{}}',
]
STREAM = b"\n".join(MESSAGES) + b"\n"


def drain(framer: NewlineFramer) -> list[bytes]:
    out = []
    while (msg := framer.next_message()) is not None:
        out.append(msg)
    return out


@pytest.mark.parametrize("chunk_size", [len(STREAM), 1, 2, 7, 64])
def test_framer_whole_and_in_pieces(chunk_size: int) -> None:
    framer = NewlineFramer()
    got: list[bytes] = []
    for i in range(0, len(STREAM), chunk_size):
        framer.feed(STREAM[i:i + chunk_size])
        got += drain(framer)
    assert got == MESSAGES
    assert framer.eof() is None


def test_framer_does_not_split_on_u2028() -> None:
    framer = NewlineFramer()
    framer.feed(MESSAGES[1] + b"\n")
    (msg,) = drain(framer)
    assert json.loads(msg)["params"]["t"] == "line\u2028sep \u00e9"


def test_framer_trailing_data_waits_for_its_newline_and_eof_flushes_it() -> None:
    framer = NewlineFramer()
    framer.feed(MESSAGES[0] + b"\n" + MESSAGES[2][:5])
    assert drain(framer) == [MESSAGES[0]]
    framer.feed(MESSAGES[2][5:])
    assert drain(framer) == []
    assert framer.eof() == MESSAGES[2]  # a last line without newline still counts


def test_framer_crlf_bom_and_blank_lines() -> None:
    framer = NewlineFramer()
    framer.feed(b"\xef\xbb\xbf" + MESSAGES[0] + b"\r\n\r\n   \n" + MESSAGES[2] + b"\r\n")
    assert drain(framer) == [MESSAGES[0], MESSAGES[2]]


@pytest.mark.parametrize("chunk_size", [10_000, 7])
def test_framer_line_cap_discards_one_line_and_recovers(chunk_size: int) -> None:
    framer = NewlineFramer(max_line_bytes=100)
    stream = b"x" * 250 + b"\n" + MESSAGES[0] + b"\n"
    errors = 0
    got: list[bytes] = []
    for i in range(0, len(stream), chunk_size):
        framer.feed(stream[i:i + chunk_size])
        while True:
            try:
                msg = framer.next_message()
            except LineTooLong as exc:
                assert exc.code == -32600 and "100-byte" in exc.message
                errors += 1
                continue
            if msg is None:
                break
            got.append(msg)
    assert errors == 1  # reported once, however it arrived
    assert got == [MESSAGES[0]]


# --- a real server process ----------------------------------------------------------------------


def test_server_over_line_cap_answers_32600_and_keeps_serving(tmp_path: Any) -> None:
    script = tmp_path / "small_cap.py"
    script.write_text(
        f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
        "from mcp_ref import Server\n"
        "Server('capped').serve_stdio(max_line_bytes=1000)\n"
    )
    proc = subprocess.Popen([sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin and proc.stdout
    proc.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + b"x" * 5000 + b'"}}\n')
    proc.stdin.write(b'{"jsonrpc":"2.0","id":2,"method":"ping"}\n')
    proc.stdin.flush()
    first = json.loads(proc.stdout.readline())
    assert first["id"] is None and first["error"]["code"] == -32600
    assert json.loads(proc.stdout.readline()) == {"jsonrpc": "2.0", "id": 2, "result": {}}
    proc.stdin.close()
    assert proc.wait(timeout=5) == 0
    proc.stdout.close()


def test_server_exits_within_2s_when_stdin_closes() -> None:
    proc = subprocess.Popen(server_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT)
    assert proc.stdin and proc.stdout
    proc.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 1
    start = time.monotonic()
    proc.stdin.close()  # LC-19
    assert proc.wait(timeout=2) == 0
    assert time.monotonic() - start < 2
    proc.stdout.close()


def test_server_exits_on_stdin_eof_even_with_a_handler_still_running() -> None:
    proc = subprocess.Popen(server_command(TEST_SERVER), stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT)
    assert proc.stdin and proc.stdout
    init = {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}).encode() + b"\n")
    proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    proc.stdin.write(b'{"jsonrpc":"2.0","id":2,"method":"test/sleep","params":{"seconds":60}}\n')
    proc.stdin.flush()
    proc.stdout.readline()
    time.sleep(0.2)
    proc.stdin.close()
    assert proc.wait(timeout=2) == 0
    proc.stdout.close()


def test_nothing_but_protocol_messages_on_the_server_stdout(stdio_client: Callable[..., Client], tap: Any) -> None:
    errors: list[str] = []
    client = stdio_client(on_stderr=errors.append)
    assert client.request("test/noisy") == {"done": True}  # prints three ways inside the handler
    client.ping()
    client.close()
    # Every line that arrived parsed as a JSON-RPC message (the tap records non-JSON as a violation)
    assert all(isinstance(m, dict) and m.get("jsonrpc") == "2.0" for d, m in tap.messages if d == "<-")
    assert "a stray print from a handler" in errors
    assert "raw bytes on file descriptor 1" in errors
    assert "a child process printing" in errors


def test_server_dying_mid_call_fails_the_call_within_1s(stdio_client: Callable[..., Client]) -> None:
    client = stdio_client(on_stderr=lambda line: None, timeout=30)
    start = time.monotonic()
    with pytest.raises(ConnectionClosed) as info:
        client.request("test/die")
    assert time.monotonic() - start < 1.0
    assert "exited with code 3" in info.value.message
    assert "dying on purpose" in info.value.message  # the server's last stderr lines explain it
    with pytest.raises(ConnectionClosed):  # and later calls fail at once, too
        client.ping()


def test_pending_calls_from_many_threads_all_fail_when_the_server_dies(stdio_client: Callable[..., Client]) -> None:
    client = stdio_client(on_stderr=lambda line: None, timeout=30)
    waiters = Waiters(lambda: client.request("test/sleep", {"seconds": 60}), 5)
    time.sleep(0.3)
    start = time.monotonic()
    with pytest.raises(ConnectionClosed):
        client.request("test/die")
    outcomes = waiters.join(2)
    assert time.monotonic() - start < 1.5
    assert len(outcomes) == 5 and all(isinstance(e, ConnectionClosed) for e in outcomes)


def test_cannot_start_server_is_a_clear_error() -> None:
    with pytest.raises(ConnectionClosed) as info:
        Client.stdio(["/nonexistent/mcp-server-binary"])
    assert "could not start server" in info.value.message
    with pytest.raises(ValueError):
        Client.stdio("mcp-ref serve")  # type: ignore[arg-type]  # a string, not a list


def test_server_that_exits_at_once_fails_initialize_clearly() -> None:
    with pytest.raises(ConnectionClosed) as info:
        Client.stdio([sys.executable, "-c", "import sys; sys.stderr.write('boom: bad config\\n'); sys.exit(4)"],
                     on_stderr=lambda line: None)
    assert "exited with code 4" in info.value.message and "boom: bad config" in info.value.message


def test_close_stops_a_server_that_ignores_stdin_eof(new_tap: Callable[[], Any]) -> None:
    # A "server" that answers initialize and then never reads stdin again nor exits by itself.
    code = (
        "import sys, json, signal, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"  # it even ignores SIGTERM: SIGKILL must follow
        "line = sys.stdin.readline(); msg = json.loads(line)\n"
        "print(json.dumps({'jsonrpc': '2.0', 'id': msg['id'], 'result': {'protocolVersion': '2024-11-05',"
        " 'capabilities': {}, 'serverInfo': {'name': 'stubborn', 'version': '1'}}}), flush=True)\n"
        "time.sleep(120)\n"
    )
    client = Client.stdio([sys.executable, "-c", code], trace=new_tap())
    transport: Any = client.session._transport
    start = time.monotonic()
    client.close()  # LC-16..18: close stdin, wait, SIGTERM, wait, SIGKILL
    assert transport.process.poll() is not None
    assert time.monotonic() - start < 8


def test_env_and_cwd_reach_the_server(tmp_path: Any, new_tap: Callable[[], Any]) -> None:
    code = (
        f"import os, sys; sys.path.insert(0, {str(ROOT)!r})\n"
        "from mcp_ref import Server\n"
        "s = Server(os.environ['SERVER_NAME'], version=os.getcwd())\n"
        "s.serve_stdio()\n"
    )
    with Client.stdio([sys.executable, "-c", code], env={"SERVER_NAME": "from-env"}, cwd=str(tmp_path),
                      trace=new_tap()) as client:
        assert client.server_info == {"name": "from-env", "version": os.path.realpath(tmp_path)}


def processes_with(marker: str) -> list[str]:
    """Pids of live processes whose command line contains ``marker`` (Linux /proc)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if marker.encode() in cmdline.read_bytes():
                found.append(cmdline.parent.name)
        except OSError:
            pass
    return found


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs Linux /proc to list processes")
def test_a_bad_argument_does_not_leave_the_server_running() -> None:
    marker = f"mcp-ref-leak-check-{os.getpid()}"
    with pytest.raises(ValueError, match="file://"):
        Client.stdio([sys.executable, "-c", f"import time; time.sleep(60)  # {marker}"],
                     roots=[{"uri": "http://not-a-file-root"}])
    assert processes_with(marker) == []


def test_the_client_writes_only_protocol_messages_to_the_server(tmp_path: Path) -> None:
    """TR-05: every line the server read from its stdin is a JSON-RPC message (``--trace-file``
    records each line as the server received it), answers to the server's requests included."""
    trace = tmp_path / "trace.txt"
    with Client.stdio([*server_command(TEST_SERVER), "--trace-file", str(trace)]) as client:
        assert client.request("test/ping_client", {"times": 2}) == {"pinged": 2}
        client.ping()
    received = [line[3:] for line in trace.read_text(encoding="utf-8").splitlines() if line.startswith("<- ")]
    assert len(received) >= 6  # initialize, initialized, test/ping_client, two answers, ping
    for line in received:
        message = json.loads(line)
        assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", line


def test_client_stdio_sse_and_http_list_their_options_for_help_and_editors() -> None:
    """help(Client.stdio) shows every option by name (keyword-only), not **kwargs: each one the
    constructor takes, and the transport's own."""
    import inspect

    constructor = {name for name, p in inspect.signature(Client.__init__).parameters.items()
                   if p.kind is inspect.Parameter.KEYWORD_ONLY}
    assert {"sampling_handler", "roots", "on_log_message", "ping_interval", "trace", "timeout"} <= constructor
    from mcp_ref.client import OPTIONS

    assert set(OPTIONS) | {"timeout"} == constructor  # what each way of connecting passes on
    for connect, own in [(Client.stdio, {"env", "cwd", "inherit_env", "on_stderr", "max_line_bytes"}), (Client.sse, {"headers"}),
                         (Client.http, {"headers", "fallback"})]:
        parameters = inspect.signature(connect).parameters
        assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
        options = {name for name, p in parameters.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
        assert options == constructor | own, connect
        assert "sampling_handler" in inspect.getdoc(connect) or "constructor" in inspect.getdoc(connect)
    with pytest.raises(TypeError, match="samplng_handler"):  # a misspelt option fails before a server is spawned
        Client.stdio(["false"], samplng_handler=None)  # type: ignore[call-arg]
