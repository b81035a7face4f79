"""A benchmark contender in a process of its own: one client connected to its server, which runs
in a process of its own too, timing tools/call round trips on demand. Not a spec section.

    python benchmarks/contender.py KIND

KIND, each peer started as its own documentation starts it:

    raw-stdio         the floor of stdio: a newline-JSON echo over a pipe (raw_echo.py), no library
    mcp_ref-stdio     Client.stdio(["python", "-m", "mcp_ref", "serve"]) (the demo server), offering
                      the revisions with a handshake (a session, as the SDK's legacy mode below)
    mcp_ref-stdio-2026
                      the same, as a Client starts by default: server/discover, then 2026-07-28
                      (every request named in _meta, served on its own)
    mcp_ref-stdio-jsonschema, mcp_ref-stdio-unchecked
                      the same client against the demo server with every tool's arguments checked
                      by jsonschema alone, or not at all (validation_server.py): what the check costs
    sdk-stdio         the SDK's Client(StdioServerParameters(...)) against mcp.run() (sdk_add_server.py)
    raw-werkzeug      the floor of HTTP+SSE on werkzeug's server, raw_sse_echo.py
    raw-waitress      the same on waitress
    mcp_ref-werkzeug  Client.sse(url) against Server.serve_sse (servers.py werkzeug)
    mcp_ref-waitress  Client.sse(url) against Server.wsgi_app() under waitress (servers.py waitress)
    sdk-sse           the SDK's Client(sse_client(url)) against mcp.run("sse", host=, port=)

The SDK's clients pass ``mode="legacy"``: the initialize handshake of revision 2024-11-05, the
revision mcp_ref speaks (the SDK's default would first probe for a newer one).

It prints ``ready`` once connected and warmed up, then answers one line per command with one
JSON line:

    N                 N sequential calls: seconds per call (wall), and the CPU seconds per call of
                      the client (this process) and of the server process
    many C SECONDS    C clients of this kind, each on its own connection, calling as fast as they
                      can for SECONDS: calls per second, the 99th percentile of a call's latency,
                      CPU per call on each side, and the TCP_NODELAY check taken under that load
    nodelay           the TCP_NODELAY check of the connections now open (nodelay.py)

run.py and history.py alternate rounds between contenders, so that all see the same machine.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import nodelay  # noqa: E402

PY = sys.executable
ARGS = {"a": 2, "b": 3}
WARM_UP = 100
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def say(obj: Any) -> None:
    print(json.dumps(obj), flush=True)


class ServerProcess:
    """A server in a process of its own that prints its URL first and answers ``nodelay`` lines.
    ``port`` set: the server binds it itself (the SDK), and we wait until it accepts."""

    def __init__(self, command: list[str], port: int | None = None) -> None:
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        if not self.url.startswith("http"):
            self.close()
            raise RuntimeError(f"{command} did not start: {self.url!r}")
        self.port = int(self.url.split(":")[2].split("/")[0])
        deadline = time.monotonic() + 60
        while port is not None:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError(f"{command} never listened on {port}") from None
                time.sleep(0.05)

    def connections(self) -> list[dict[str, Any]]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("nodelay\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())  # type: ignore[no-any-return]

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- the sync contenders: a client object with call(), and how to make more of them ------------


class RawStdio:
    def __init__(self) -> None:
        self.proc = subprocess.Popen([PY, str(HERE / "raw_echo.py")], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.pid = self.proc.pid
        self.next_id = 0

    def call(self) -> None:
        assert self.proc.stdin and self.proc.stdout
        self.next_id += 1
        request = {"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
                   "params": {"name": "add", "arguments": ARGS}}
        self.proc.stdin.write(json.dumps(request, separators=(",", ":")).encode() + b"\n")
        self.proc.stdin.flush()
        json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        self.proc.wait(timeout=5)


class OursStdio:
    def __init__(self, check: str = "", modern: bool = False) -> None:
        from mcp_ref import SUPPORTED_PROTOCOL_VERSIONS, Client

        command = [PY, str(HERE / "validation_server.py"), check] if check else [PY, "-m", "mcp_ref", "serve"]
        self.client = Client.stdio(command, protocol_versions=None if modern else SUPPORTED_PROTOCOL_VERSIONS)
        self.pid = self.client.session._transport.process.pid  # type: ignore[attr-defined]

    def call(self) -> None:
        self.client.call_tool("add", ARGS)

    def close(self) -> None:
        self.client.close()


def sync_http(kind: str) -> tuple[ServerProcess, Callable[[], Any]]:
    """The server of an HTTP contender, and a maker of connected clients (each with call/close)."""
    family, server_kind = kind.split("-")
    if family == "raw":
        from raw_sse_echo import RawSseClient

        server = ServerProcess([PY, str(HERE / "raw_sse_echo.py"), server_kind])

        class Raw:
            def __init__(self) -> None:
                self.client = RawSseClient(server.url)

            def call(self) -> None:
                self.client.call(ARGS)

            def close(self) -> None:
                self.client.close()

        return server, Raw
    from mcp_ref import Client

    server = ServerProcess([PY, str(HERE / "servers.py"), server_kind])

    class Ours:
        def __init__(self) -> None:
            self.client = Client.sse(server.url, timeout=60)

        def call(self) -> None:
            self.client.call_tool("add", ARGS)

        def close(self) -> None:
            self.client.close()

    return server, Ours


def serve_sync(kind: str) -> None:
    server: ServerProcess | None = None
    make: Callable[[], Any]
    if kind == "raw-stdio":
        make = RawStdio
    elif kind == "mcp_ref-stdio":
        make = OursStdio
    elif kind == "mcp_ref-stdio-2026":
        make = lambda: OursStdio(modern=True)  # noqa: E731
    elif kind.startswith("mcp_ref-stdio-"):
        make = lambda: OursStdio(kind.rsplit("-", 1)[1])  # noqa: E731
    else:
        server, make = sync_http(kind)
    client = make()
    server_pid = client.pid if server is None else server.proc.pid
    try:
        for _ in range(WARM_UP):
            client.call()
        print("ready", flush=True)
        for line in sys.stdin:
            words = line.split()
            if words[0] == "nodelay":
                say(check_now(server))
            elif words[0] == "many":
                if server is None:
                    raise SystemExit("many: HTTP contenders only")
                say(many_sync(make, server, int(words[1]), float(words[2])))
            else:
                calls = int(words[0])
                cpu0, server0, start = time.process_time(), cpu_seconds(server_pid), time.perf_counter()
                for _ in range(calls):
                    client.call()
                say(per_call(calls, time.perf_counter() - start, time.process_time() - cpu0,
                             cpu_seconds(server_pid) - server0))
    finally:
        client.close()
        if server is not None:
            server.close()


def per_call(calls: int, wall: float, client_cpu: float, server_cpu: float) -> dict[str, float]:
    return {"calls": calls, "wall": wall / calls, "client_cpu": client_cpu / calls, "server_cpu": server_cpu / calls}


def check_now(server: ServerProcess | None) -> list[str]:
    if server is None:
        return []  # pipes: no TCP
    return nodelay.check(nodelay.connections(), server.connections(), server.port)


def many_sync(make: Callable[[], Any], server: ServerProcess, clients: int, seconds: float) -> dict[str, Any]:
    """``clients`` threads, each with its own client, calling for ``seconds``; the TCP_NODELAY
    check is taken halfway, with every connection busy."""
    connected = [make() for _ in range(clients)]
    latencies: list[float] = []
    lock = threading.Lock()
    start = threading.Event()
    stop_at: list[float] = []

    def work(client: Any) -> None:
        mine = []
        start.wait()
        while time.perf_counter() < stop_at[0]:
            t0 = time.perf_counter()
            client.call()
            mine.append(time.perf_counter() - t0)
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=work, args=(c,)) for c in connected]
    for t in threads:
        t.start()
    cpu0, server0 = time.process_time(), cpu_seconds(server.proc.pid)
    began = time.perf_counter()
    stop_at.append(began + seconds)
    start.set()
    time.sleep(seconds / 2)
    problems = check_now(server)
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - began
    client_cpu, server_cpu = time.process_time() - cpu0, cpu_seconds(server.proc.pid) - server0
    for c in connected:
        c.close()
    return many_report(latencies, elapsed, client_cpu, server_cpu, problems)


def many_report(latencies: list[float], elapsed: float, client_cpu: float, server_cpu: float,
                problems: list[str]) -> dict[str, Any]:
    latencies.sort()
    calls = max(1, len(latencies))
    return {"rate": len(latencies) / elapsed, "p99": latencies[int(0.99 * (len(latencies) - 1))] if latencies else 0.0,
            "client_cpu": client_cpu / calls, "server_cpu": server_cpu / calls, "nodelay": problems}


# --- the SDK: asyncio clients, one event loop ----------------------------------------------------


def serve_sdk(kind: str) -> None:
    import anyio
    from mcp import Client, StdioServerParameters

    server: ServerProcess | None = None
    if kind == "sdk-sse":
        port = free_port()
        server = ServerProcess([PY, str(HERE / "sdk_add_server.py"), "sse", str(port)], port=port)

    def connect() -> Any:
        if server is None:
            return Client(StdioServerParameters(command=PY, args=[str(HERE / "sdk_add_server.py")]), mode="legacy")
        from mcp.client.sse import sse_client

        return Client(sse_client(server.url), mode="legacy")

    async def main() -> None:
        async with connect() as client:
            for _ in range(WARM_UP):
                await client.call_tool("add", ARGS)
            server_pid = only_child() if server is None else server.proc.pid
            print("ready", flush=True)
            while line := await anyio.to_thread.run_sync(sys.stdin.readline):
                words = line.split()
                if words[0] == "nodelay":
                    say(await anyio.to_thread.run_sync(check_now, server))
                elif words[0] == "many":
                    assert server is not None
                    say(await many_sdk(connect, server, int(words[1]), float(words[2])))
                else:
                    calls = int(words[0])
                    cpu0, server0, start = time.process_time(), cpu_seconds(server_pid), time.perf_counter()
                    for _ in range(calls):
                        await client.call_tool("add", ARGS)
                    say(per_call(calls, time.perf_counter() - start, time.process_time() - cpu0,
                                 cpu_seconds(server_pid) - server0))

    try:
        anyio.run(main)
    finally:
        if server is not None:
            server.close()


async def many_sdk(connect: Callable[[], Any], server: ServerProcess, clients: int, seconds: float) -> dict[str, Any]:
    """``clients`` SDK clients as tasks of one event loop (the SDK's way to run many at once).
    Time and CPU are read when the last task has made its last call, before they disconnect."""
    import anyio

    latencies: list[float] = []
    ready, go = anyio.Event(), anyio.Event()
    connected, finished = [0], [0]
    marks: dict[str, Any] = {}

    turn = anyio.Lock()

    async def one() -> None:
        async with contextlib.AsyncExitStack() as stack:
            async with turn:  # connected one at a time, as the other kinds' clients are
                client = await stack.enter_async_context(connect())
            connected[0] += 1
            if connected[0] == clients:
                ready.set()
            await go.wait()
            while time.perf_counter() < marks["stop_at"]:
                t0 = time.perf_counter()
                await client.call_tool("add", ARGS)
                latencies.append(time.perf_counter() - t0)
            finished[0] += 1
            if finished[0] == clients:
                marks["end"] = (time.perf_counter(), time.process_time(), cpu_seconds(server.proc.pid))

    async with anyio.create_task_group() as tg:
        for _ in range(clients):
            tg.start_soon(one)
        await ready.wait()
        marks["start"] = (time.perf_counter(), time.process_time(), cpu_seconds(server.proc.pid))
        marks["stop_at"] = marks["start"][0] + seconds
        go.set()
        await anyio.sleep(seconds / 2)
        marks["problems"] = await anyio.to_thread.run_sync(check_now, server)
    (t0, c0, s0), (t1, c1, s1) = marks["start"], marks["end"]
    return many_report(latencies, t1 - t0, c1 - c0, s1 - s0, marks["problems"])


def only_child() -> int:
    pid = os.getpid()
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return int(children[0])


if __name__ == "__main__":
    which = sys.argv[1]
    if which.startswith("sdk-"):
        serve_sdk(which)
    else:
        serve_sync(which)
