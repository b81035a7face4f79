"""What a client is told when the server cannot be reached, on every transport: one sentence, what
happened and then what to check; never the text of requests' and urllib3's exceptions.

Not one spec page: basic/transports (2024-11-05 and 2025-03-26) as the user meets them. The HTTP
clients share ``machinery/http_client.unreachable``; ``mcp-ref request``, ``inspect`` and ``check``
say the same, and for stdio say which program could not be started and why (machinery/reach.py).
Real peers only: a port nothing listens on, TCP listeners that are not HTTP servers, our own
server spoken to in https, a host name that never resolves (.invalid, RFC 2606).
"""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mcp_ref import Client, ConnectionClosed, Server

from ..cli.test_main import MCP_REF
from ..conftest import ROOT

RAW = ("HTTPConnectionPool", "Max retries", "NewConnectionError", "urllib3", "adapters", "Errno", "Traceback")


class TcpPeer:
    """A TCP listener on 127.0.0.1 that is not an HTTP server: it closes each connection at once
    (``hang_up=True``), or holds it without a word until closed itself."""

    def __init__(self, hang_up: bool) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.held: list[socket.socket] = []
        self.hang_up = hang_up
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:  # closed
                return
            if self.hang_up:
                connection.close()
            else:
                self.held.append(connection)

    def close(self) -> None:
        self.listener.close()
        for connection in self.held:
            connection.close()


def free_port() -> int:
    with socket.socket() as bound:  # bound, never listening, then released: a connection is refused
        bound.bind(("127.0.0.1", 0))
        return int(bound.getsockname()[1])


@pytest.fixture
def plain_http() -> Iterator[str]:
    """Our own server, over plain HTTP: ``host:port``."""
    with Server("plain").sse_server() as running:
        yield f"127.0.0.1:{running.port}"


# (what the peer is, how to make it: returns (host:port, close), what the sentence says after host:port)
PEERS: dict[str, tuple[Callable[[], tuple[str, Callable[[], None]]], str]] = {
    "nothing listens": (lambda: (f"127.0.0.1:{free_port()}", lambda: None),
                        "nothing is listening at {where} (connection refused); check that the server is running and "
                        "that the URL has the host and port it listens on"),
    "hangs up": (lambda: (lambda p: (f"127.0.0.1:{p.port}", p.close))(TcpPeer(hang_up=True)),
                 "{where} closed the connection without an HTTP answer; check that the port belongs to an HTTP "
                 "server (not another service) and that the server did not stop"),
    "says nothing": (lambda: (lambda p: (f"127.0.0.1:{p.port}", p.close))(TcpPeer(hang_up=False)),
                     "{where} accepted the connection but sent no answer within 1 s; check that the URL is the "
                     "server's {endpoint} and that the server is not stuck"),
}
CLIENTS: dict[str, tuple[Callable[..., Client], str, str]] = {  # transport -> (connect, path, endpoint's name)
    "sse": (Client.sse, "/sse", "SSE endpoint"),
    "http": (lambda url, **kw: Client.http(url, fallback=False, **kw), "/mcp", "MCP endpoint"),
}


@pytest.mark.parametrize("transport", CLIENTS)
@pytest.mark.parametrize("peer", PEERS)
def test_a_server_that_cannot_be_reached_is_one_sentence_on_both_http_transports(transport: str, peer: str) -> None:
    make, says = PEERS[peer]
    connect, path, endpoint = CLIENTS[transport]
    where, close = make()
    url = f"http://{where}{path}"
    try:
        with pytest.raises(ConnectionClosed) as caught:
            connect(url, timeout=1)
    finally:
        close()
    assert str(caught.value) == f"could not connect to {url}: " + says.format(where=where, endpoint=endpoint)


@pytest.mark.parametrize("transport", CLIENTS)
def test_tls_to_a_plain_http_server_and_an_unknown_host_are_said_plainly(transport: str, plain_http: str) -> None:
    connect, path, _ = CLIENTS[transport]
    url = f"https://{plain_http}{path}"
    with pytest.raises(ConnectionClosed) as caught:
        connect(url, timeout=5)
    assert str(caught.value).startswith(f"could not connect to {url}: the TLS handshake with {plain_http} failed; "
                                        "check that the server speaks https (else write http://)")
    unknown = f"http://no-such-host.invalid:8000{path}"
    with pytest.raises(ConnectionClosed) as caught:
        connect(unknown, timeout=5)
    assert str(caught.value) == (f"could not connect to {unknown}: the host name 'no-such-host.invalid' could not "
                                 "be resolved; check its spelling in the URL")


@pytest.mark.parametrize("transport", CLIENTS)
def test_a_url_without_its_scheme_says_how_to_write_it(transport: str) -> None:
    connect, path, _ = CLIENTS[transport]
    with pytest.raises(ConnectionClosed) as caught:
        connect(f"127.0.0.1:8000{path}", timeout=5)
    assert str(caught.value) == (f"could not connect to 127.0.0.1:8000{path}: this is not an http:// or https:// "
                                 f"URL; write it in full, e.g. http://127.0.0.1:8000{path}")


def test_a_streamable_http_server_that_went_away_ends_every_call_with_the_reason() -> None:
    server = Server("leaving")
    running = server.sse_server()
    client = Client.http(running.mcp_url or "", timeout=5, fallback=False)
    try:
        running.close()  # the port is released: the next POST is refused
        with pytest.raises(ConnectionClosed) as caught:
            client.ping()
        assert f"could not reach {running.mcp_url} any more: nothing is listening at 127.0.0.1:{running.port}" \
            in str(caught.value)
        with pytest.raises(ConnectionClosed):  # the connection is over: the next call hears so at once
            client.ping()
    finally:
        client.close()


# --- the command line: request, inspect and check, on every transport ---------------------------------


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MCP_REF, *args], capture_output=True, text=True, timeout=60, cwd=ROOT,
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("command", [["request"], ["inspect"], ["check", "server"]])
@pytest.mark.parametrize("transport", ["--sse", "--http"])
def test_every_command_says_a_refused_connection_in_the_same_sentence(command: list[str], transport: str) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/{'sse' if transport == '--sse' else 'mcp'}"
    proc = run(*command, transport, url, *(["ping"] if command == ["request"] else []), "--timeout", "5")
    assert proc.returncode == 2 and proc.stdout == ""
    prefix = "mcp-ref check" if command[0] == "check" else "mcp-ref"
    target = repr(url) if command[0] == "check" else url
    assert proc.stderr == (f"{prefix}: could not connect to {target}: nothing is listening at 127.0.0.1:{port} "
                           "(connection refused); check that the server is running and that the URL has the host and "
                           "port it listens on\n")


def not_executable(folder: Path) -> str:
    path = folder / "server.py"
    path.write_text("print('not run')\n")
    path.chmod(path.stat().st_mode & ~(stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH))
    return str(path)


STDIO_CASES: dict[str, tuple[Callable[[Path], str], Callable[[str], str]]] = {  # command, then what is said
    "no such program": (lambda tmp: "no-such-mcp-server --flag",
                        lambda cmd: "there is no program 'no-such-mcp-server' on PATH; check its spelling and that it "
                                    "is installed, or give its full path"),
    "no such path": (lambda tmp: str(tmp / "missing" / "server"),
                     lambda cmd: f"there is no program {cmd!r}; check the path"),
    "not executable": (not_executable,
                       lambda cmd: f"{cmd!r} cannot be run (permission denied); check that it is an executable "
                                   f"program, or run it through its interpreter (e.g. python {cmd})"),
}


@pytest.mark.skipif(os.name != "posix", reason="file modes and PATH lookups as on POSIX")
@pytest.mark.parametrize("command", [["request"], ["inspect"], ["check", "server"]])
@pytest.mark.parametrize("case", STDIO_CASES)
def test_a_stdio_server_that_cannot_be_started_says_why_and_what_to_check(command: list[str], case: str,
                                                                            tmp_path: Path) -> None:
    make, says = STDIO_CASES[case]
    line = make(tmp_path)
    proc = run(*command, "--stdio", line, *(["ping"] if command == ["request"] else []))
    assert proc.returncode == 2 and proc.stdout == ""
    prefix = "mcp-ref check" if command[0] == "check" else "mcp-ref"
    assert proc.stderr == f"{prefix}: could not start {line!r}: {says(line.split()[0])}\n"
    assert not any(raw in proc.stderr for raw in RAW)


@pytest.mark.parametrize(("line", "says"), [
    ("", "mcp-ref: --stdio needs the server's command, e.g. --stdio 'mcp-ref serve' or --stdio 'python server.py'\n"),
    ("'unclosed", "mcp-ref: --stdio \"'unclosed\" cannot be split into words (no closing quotation); check its quotes\n"),
])
def test_a_stdio_command_that_cannot_be_read_says_so(line: str, says: str) -> None:
    proc = run("request", "--stdio", line, "ping")
    assert proc.returncode == 2 and proc.stderr == says


def test_a_stdio_server_that_exits_at_once_says_what_to_check() -> None:
    line = "python3 -c 'import sys; sys.exit(3)'"
    for pin, first in (([], "server/discover"), (["--protocol-version", "2025-11-25"], "initialize")):
        proc = run("request", "--stdio", line, "ping", *pin)  # (the first request: the probe, or initialize)
        assert proc.returncode == 2
        assert proc.stderr == (f"mcp-ref: could not connect to {line!r}: server process exited with code 3 (while "
                               f"waiting for {first}); check that the command serves MCP on its stdin and stdout: run "
                               "it alone to see what it does\n")
