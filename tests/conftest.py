"""Shared fixtures: schema-checked clients over real subprocesses and in memory."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_ref import Client, Server
from mcp_ref.lifecycle import SUPPORTED_PROTOCOL_VERSIONS
from mcp_ref.machinery.memory import MemoryTransport
from mcp_ref.session import Session

from .support.schema_tap import SCHEMA_PATH, SchemaTap, schema_available

ROOT = Path(__file__).resolve().parents[1]
TEST_SERVER = str(ROOT / "tests" / "peers" / "servers.py") + ":server"

# Tests send Ctrl-C (SIGINT) to programs they start. A shell that starts the suite in the
# background (`make test &`) makes it ignore SIGINT, and an ignored signal stays ignored in every
# child: those programs would never feel it. With a handler here, children start with the default.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _no_constants(name: str) -> Any:
    raise AssertionError(f"{name} is not JSON: a peer would reject this line")


def strict_json(data: str | bytes) -> Any:
    """Parse one message the way a strict peer does: no NaN, Infinity or -Infinity."""
    return json.loads(data, parse_constant=_no_constants)


def server_command(target: str | None = None) -> list[str]:
    """The command that serves ``target`` (default: the bundled demo server) over stdio."""
    command = [sys.executable, "-m", "mcp_ref", "serve"]
    return command + ([target] if target else [])


class RawServer:
    """A server subprocess spoken to with raw lines, to send what a well-behaved client never would."""

    def __init__(self, target: str = TEST_SERVER) -> None:
        self.proc = subprocess.Popen(server_command(target), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     cwd=ROOT)
        self._buffer = bytearray()

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def read_line(self, timeout: float = 10.0) -> bytes:
        """The next line the server wrote (b"" at end of stream), waiting at most ``timeout``."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, f"no message from the server within {timeout} s"
            chunk = os.read(fd, 65536)
            if not chunk:
                line, self._buffer = bytes(self._buffer), bytearray()
                return line
            self._buffer += chunk
        line, _, rest = bytes(self._buffer).partition(b"\n")
        self._buffer = bytearray(rest)
        return line + b"\n"

    def receive(self, timeout: float = 10.0) -> Any:
        """The next message the server wrote, parsed as *strict* JSON (NaN/Infinity fail the test)."""
        line = self.read_line(timeout)
        assert line, "server closed its stdout"
        return strict_json(line)

    def call(self, msg: dict[str, Any]) -> Any:
        self.send(json.dumps(msg).encode())
        return self.receive()

    def initialize(self) -> None:
        reply = self.call({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
        assert reply["result"]["protocolVersion"] == "2024-11-05"
        self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=5)
        assert self.proc.stdout is not None
        self.proc.stdout.close()
        return code


@pytest.fixture
def raw() -> Iterator[RawServer]:
    """A test-server subprocess spoken to in raw lines."""
    server = RawServer()
    yield server
    if server.proc.poll() is None:
        server.close()


class Waiters:
    """``count`` threads, each making one blocking ``call()``; ``join()`` returns what each
    returned or raised. For tests of what happens to calls in flight."""

    def __init__(self, call: Callable[[], Any], count: int) -> None:
        self.outcomes: list[Any] = []
        self._lock = threading.Lock()

        def run() -> None:
            try:
                outcome = call()
            except BaseException as exc:
                outcome = exc
            with self._lock:
                self.outcomes.append(outcome)

        self._threads = [threading.Thread(target=run) for _ in range(count)]
        for thread in self._threads:
            thread.start()

    def join(self, timeout: float) -> list[Any]:
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        with self._lock:
            return list(self.outcomes)


def pytest_configure(config: Any) -> None:
    """Compile the library, the checker, the tests and the course once, before any test starts a
    subprocess. The suite starts hundreds of interpreters (servers, clients, the kit); where
    PYTHONDONTWRITEBYTECODE is set (CI machines often set it) or the clone is fresh, each of them
    would compile every module it imports from source, half of its start-up time. An installed
    package has its bytecode; so, from here on, has the clone (``__pycache__`` is ignored by git)."""
    if hasattr(config, "workerinput"):
        return  # a pytest-xdist worker: the run's controller has done it
    import compileall

    for folder in ("mcp_ref", "mcp_ref_check", "tests", "course"):
        compileall.compile_dir(ROOT / folder, quiet=2)


def pytest_report_header(config: Any) -> str:
    if schema_available():
        return f"schema checks: every tapped message is validated against {SCHEMA_PATH}"
    return f"schema checks: SKIPPED, {SCHEMA_PATH} is absent (it lives in the project's shared/ folder)"


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: Any) -> Iterator[None]:
    """Under the short summary, just above the counts, even with ``-q`` (which hides the header
    above): which optional parts did not run, and how to enable each (optional_parts.py)."""
    from .support.optional_parts import skip_reason, summary_line

    yield  # the outermost wrapper: what follows comes after the short summary of -ra
    reasons = [skip_reason(report) for report in terminalreporter.stats.get("skipped", [])]
    terminalreporter.write_line(summary_line(reasons, schema_available(), SCHEMA_PATH))


@pytest.fixture
def tap() -> Iterator[SchemaTap]:
    """A schema tap on the client side; the test fails at teardown if any message broke the schema."""
    t = SchemaTap("client")
    yield t
    t.assert_clean()


@pytest.fixture
def new_tap() -> Iterator[Callable[[], SchemaTap]]:
    """Factory of client-side schema taps, one per connection; each is checked at teardown."""
    taps: list[SchemaTap] = []

    def make() -> SchemaTap:
        taps.append(SchemaTap("client"))
        return taps[-1]

    yield make
    for t in taps:
        t.assert_clean()


@pytest.fixture
def stdio_client(tap: SchemaTap) -> Iterator[Callable[..., Client]]:
    """Factory: ``stdio_client(target=None, **kwargs)`` spawns ``mcp-ref serve`` and connects."""
    clients: list[Client] = []

    def make(target: str | None = TEST_SERVER, **kwargs: Any) -> Client:
        kwargs.setdefault("timeout", 10.0)
        kwargs.setdefault("protocol_versions", HANDSHAKE)
        client = Client.stdio(server_command(target), trace=tap, cwd=str(ROOT), **kwargs)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def memory_client(tap: SchemaTap) -> Iterator[Callable[..., Client]]:
    """Factory: ``memory_client(server, **kwargs)`` links a Client to ``server`` in memory."""
    clients: list[Client] = []

    def make(server: Server, **kwargs: Any) -> Client:
        kwargs.setdefault("timeout", 10.0)
        kwargs.setdefault("protocol_versions", HANDSHAKE)
        server_end, client_end = MemoryTransport.pair()
        server.open_session(server_end).start()
        client = Client(client_end, trace=tap, **kwargs).connect()
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


DEMO_SERVER = "mcp_ref.demo_server:server"
# The clients of these factories offer the revisions with a handshake (2024-11-05 and its deltas),
# whose pages most tests are about: no probe. What a default Client does with a server of
# 2026-07-28 is tests/revisions/'s (test_client_subscriptions.py, test_stateless_client.py).
HANDSHAKE = SUPPORTED_PROTOCOL_VERSIONS
TRANSPORTS = ["stdio", "sse", "http"]  # http: Streamable HTTP (2025-03-26 transport, 2024-11-05 messages)


class SseServerProcess:
    """``mcp-ref serve TARGET --transport sse --port 0`` as a subprocess; ``.url`` once it listens
    (with ``"--transport", "http"`` in ``extra``: the Streamable HTTP endpoint's URL)."""

    def __init__(self, target: str, *extra: str) -> None:
        command = server_command(target) + ["--transport", "sse", "--port", "0", *extra]
        self.proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()  # "mcp-ref: serving NAME over HTTP with SSE at URL"
        if " at http" not in line:
            self.close()
            raise RuntimeError(f"the SSE server did not start: {line!r}")
        self.url = line.rsplit(" at ", 1)[1].strip()

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture(params=TRANSPORTS)
def connect(request: Any, tap: SchemaTap) -> Iterator[Callable[..., Client]]:
    """Factory: ``connect(target=DEMO_SERVER, **kwargs)`` serves ``target`` in a subprocess over
    each transport in TRANSPORTS (the test runs once per transport) and returns a connected,
    schema-tapped client."""
    clients: list[Client] = []
    servers: list[SseServerProcess] = []

    def make(target: str = DEMO_SERVER, **kwargs: Any) -> Client:
        kwargs.setdefault("timeout", 10.0)
        kwargs.setdefault("protocol_versions", HANDSHAKE)
        if request.param == "stdio":
            client = Client.stdio(server_command(target), trace=tap, cwd=str(ROOT), **kwargs)
        elif request.param == "http":  # the URL announced first is the /mcp endpoint
            server = SseServerProcess(target, "--transport", "http")
            servers.append(server)
            client = Client.http(server.url, trace=tap, fallback=False, **kwargs)
        else:
            server = SseServerProcess(target)
            servers.append(server)
            client = Client.sse(server.url, trace=tap, **kwargs)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()
    for server in servers:
        server.close()


@pytest.fixture
def handshake_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ``Client`` made without ``protocol_versions=`` in this process offers the revisions with
    a handshake, as it did before 2026-07-28 became part of the default: no probe, a session. The
    rooms whose tests are about those revisions (the pages, the engine, the machinery, the later
    transport, scale-out) take it in their conftest.py; what a default client does with a server of
    2026-07-28 is tests/revisions/'s and tests/interop/'s."""
    from mcp_ref.revisions import stateless_client

    monkeypatch.setattr(stateless_client, "DEFAULT_VERSIONS", HANDSHAKE)


# --- helpers several test files share -------------------------------------------------------


def wait_until(predicate: Callable[[], Any], timeout: float = 3.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError("condition not reached in time")


class ManualPeer:
    """A Session on one end of an in-memory link, and raw access to the other end."""

    def __init__(self) -> None:
        ours, self.theirs = MemoryTransport.pair()
        self.session = Session(ours, on_request=lambda ctx: {}, on_notification=lambda s, m, p: None, name="manual")
        self.session.start()

    def next_message(self) -> Any:
        data = self.theirs.receive()
        assert data is not None
        return json.loads(data)

    def send(self, msg: dict[str, Any]) -> None:
        self.theirs.send(json.dumps(msg).encode())
