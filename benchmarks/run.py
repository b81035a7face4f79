"""Side-by-side measurements of mcp_ref and the official Python SDK (`mcp`), in one run.

Not a spec section. Machines are noisy, so results are reported as ratios measured back to back:
1. sequential tools/call round trips over stdio: mcp_ref, the SDK, and a raw newline-JSON echo
   over a pipe with no library (the floor);
2. the same over HTTP with SSE, every server in its own process: mcp_ref on its default
   (werkzeug) server and under waitress, against the SDK under uvicorn;
3. concurrent calls from 8 threads over one mcp_ref stdio session, against one thread;
4. 50 SSE clients at once against one mcp_ref server process: calls per second and the 99th
   percentile of a call's latency;
5. `import mcp_ref` against `import mcp`, each in a fresh interpreter;
6. the memory of an idle server process (RSS), mcp_ref's and the SDK's.

Run: make bench   (or: python benchmarks/run.py [--calls N])
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PY = sys.executable
ARGS = {"a": 2, "b": 3}


def timed_round(fn: Callable[[], Any], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def interleaved(contenders: dict[str, Callable[[], Any]], calls: int, rounds: int = 7) -> dict[str, float]:
    """Seconds per call of each contender: rounds alternate between them, so that all see the
    same machine (the floor alone moves 3x between runs here); the median round counts."""
    for fn in contenders.values():
        timed_round(fn, max(10, calls // 10))  # warm-up
    results: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, fn in contenders.items():
            results[name].append(timed_round(fn, calls))
    return {name: statistics.median(times) for name, times in results.items()}


class RawEcho:
    """The floor: our side of a newline-JSON echo over a pipe, no library."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([PY, str(HERE / "raw_echo.py")], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
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
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.close()
        self.proc.wait(timeout=5)
        self.proc.stdout.close()


class Contender:
    """A client and its server in processes of their own (benchmarks/contender.py), timing
    rounds of sequential round trips when asked, so that rounds can alternate between
    contenders. ``env`` and ``cwd`` let history.py run another revision."""

    def __init__(self, kind: str, *, env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        self.kind = kind
        self.proc = subprocess.Popen([PY, str(HERE / "contender.py"), kind], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env, cwd=cwd or HERE.parent)
        assert self.proc.stdout is not None
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the {kind} contender did not start")
        self.rounds: list[dict[str, float]] = []

    def round(self, calls: int) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{calls}\n")
        self.proc.stdin.flush()
        self.rounds.append(json.loads(self.proc.stdout.readline()))

    def median(self, key: str = "wall") -> float:
        return statistics.median(r[key] for r in self.rounds)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def stdio_side_by_side(calls: int, rounds: int = 9) -> tuple[float, Contender, Contender]:
    """The floor, mcp_ref and the SDK, round after round (the SDK's rounds are shorter: it is
    slower); medians of each."""
    floor, ours, sdk = RawEcho(), Contender("mcp_ref"), Contender("sdk")
    try:
        floors = []
        for _ in range(rounds):
            floors.append(timed_round(floor.call, calls))
            ours.round(calls)
            sdk.round(max(20, calls // 10))
        return statistics.median(floors), ours, sdk
    finally:
        floor.close()
        ours.close()
        sdk.close()


class ServerProcess:
    """A benchmark server (benchmarks/servers.py or the SDK's) in its own process; ``.url``."""

    def __init__(self, command: list[str]) -> None:
        self.proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=HERE.parent)
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        if not self.url.startswith("http"):
            self.close()
            raise RuntimeError(f"{command} did not start: {self.url!r}")

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


def ours_sse(kind: str, calls: int) -> float:
    """Seconds per tools/call over SSE, client here and server (``kind``) in its own process."""
    from mcp_ref import Client

    server = ServerProcess([PY, str(HERE / "servers.py"), kind])
    try:
        with Client.sse(server.url) as client:
            return interleaved({kind: lambda: client.call_tool("add", ARGS)}, calls, rounds=3)[kind]
    finally:
        server.close()


def many_sse_clients(kind: str, clients: int = 50, seconds: float = 3.0) -> tuple[float, float]:
    """Calls per second and the 99th percentile latency (s) of ``clients`` SSE clients calling
    at once, each as fast as it can, against one server process."""
    from mcp_ref import Client

    server = ServerProcess([PY, str(HERE / "servers.py"), kind])
    latencies: list[float] = []
    lock = threading.Lock()
    try:
        connected = [Client.sse(server.url, timeout=60) for _ in range(clients)]
        start = threading.Event()
        stop_at: list[float] = []

        def work(client: Any) -> None:
            mine = []
            start.wait()
            while time.perf_counter() < stop_at[0]:
                t0 = time.perf_counter()
                client.call_tool("add", ARGS)
                mine.append(time.perf_counter() - t0)
            with lock:
                latencies.extend(mine)

        threads = [threading.Thread(target=work, args=(c,)) for c in connected]
        for t in threads:
            t.start()
        stop_at.append(time.perf_counter() + seconds)
        began = time.perf_counter()
        start.set()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - began
        for c in connected:
            c.close()
    finally:
        server.close()
    latencies.sort()
    return len(latencies) / elapsed, latencies[int(0.99 * (len(latencies) - 1))]


def _sdk_per_call(transport: Any, calls: int) -> float:
    import anyio
    from mcp import Client

    async def main() -> float:
        async with Client(transport, mode="legacy") as client:
            for _ in range(max(10, calls // 10)):
                await client.call_tool("add", ARGS)
            rounds = []
            for _ in range(7):
                start = time.perf_counter()
                for _ in range(calls):
                    await client.call_tool("add", ARGS)
                rounds.append((time.perf_counter() - start) / calls)
            return statistics.median(rounds)

    return anyio.run(main)


def sdk_sse(calls: int) -> float:
    from mcp.client.sse import sse_client

    server = ServerProcess([PY, str(HERE / "sdk_add_server.py"), "sse"])
    try:
        return _sdk_per_call(sse_client(server.url), calls)
    finally:
        server.close()


def ours_concurrent(threads: int, calls: int) -> tuple[float, float]:
    """Calls per second over one stdio session: from one thread, then from `threads` threads."""
    from mcp_ref import Client

    with Client.stdio([PY, "-m", "mcp_ref", "serve"]) as client:
        def work() -> None:
            for _ in range(calls):
                client.call_tool("add", ARGS)

        one = 1 / statistics.median(timed_round(lambda: client.call_tool("add", ARGS), calls) for _ in range(3))
        workers = [threading.Thread(target=work) for _ in range(threads)]
        start = time.perf_counter()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        return one, threads * calls / (time.perf_counter() - start)


def import_time(module: str) -> float:
    """Seconds to start an interpreter and import `module`, minus a bare interpreter, median of 7
    (run from the repository, as a clone would). Bytecode caches are written first, as an
    installed package has them: otherwise every import would include compiling the sources."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def run(code: str) -> float:
        start = time.perf_counter()
        subprocess.run([PY, "-c", code], check=True, cwd=HERE.parent, env=env)
        return time.perf_counter() - start

    run(f"import {module}")
    bare = statistics.median(run("pass") for _ in range(7))
    return statistics.median(run(f"import {module}") for _ in range(7)) - bare


def idle_rss_mb(command: list[str], sdk: bool = False) -> float:
    """Resident memory (MiB) of an idle stdio server process once a client has initialized it."""
    if sdk:
        import anyio
        from mcp import Client as SdkClient
        from mcp import StdioServerParameters

        result: list[float] = []

        async def main() -> None:
            async with SdkClient(StdioServerParameters(command=command[0], args=command[1:]), mode="legacy") as client:
                await client.call_tool("add", ARGS)
                result.append(_rss_of_children())

        anyio.run(main)
        return result[0]
    from mcp_ref import Client

    with Client.stdio(command) as client:
        client.call_tool("add", ARGS)
        return _rss_of(client.session._transport.process.pid)  # type: ignore[attr-defined]


def _rss_of(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _rss_of_children() -> float:
    import os

    children = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read_text().split()
    return sum(_rss_of(int(pid)) for pid in children)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300, help="calls per round")
    calls = parser.parse_args().calls
    us = 1e6
    print(f"Python {sys.version.split()[0]}; rounds of {calls} calls, interleaved between contenders; medians.\n")

    floor, ours, sdk = stdio_side_by_side(calls)
    print("1. stdio, sequential tools/call round trips (rounds alternate between the three; medians)")
    print(f"   raw JSON echo over a pipe : {floor * us:8.1f} us/call  (the floor)")
    for contender in (ours, sdk):
        name = "mcp_ref" if contender is ours else "official SDK"
        print(f"   {name:<26}: {contender.median() * us:8.1f} us/call  = {contender.median() / floor:5.1f}x the floor"
              f"  (CPU per call: client {contender.median('client_cpu') * us:.0f} us,"
              f" server {contender.median('server_cpu') * us:.0f} us)")
    print(f"   -> mcp_ref is {sdk.median() / ours.median():.1f}x faster than the SDK over stdio\n")

    sse_calls = max(30, calls // 3)
    rounds: dict[str, list[float]] = {"werkzeug": [], "waitress": [], "sdk": []}
    for _ in range(3):  # alternate whole measurements, so that all three see the same machine
        rounds["werkzeug"].append(ours_sse("werkzeug", sse_calls))
        rounds["waitress"].append(ours_sse("waitress", sse_calls))
        rounds["sdk"].append(sdk_sse(sse_calls))
    werkzeug, waitress, sdk_h = (statistics.median(rounds[k]) for k in ("werkzeug", "waitress", "sdk"))
    print("2. HTTP with SSE, sequential tools/call round trips (each server in its own process)")
    print(f"   mcp_ref, default server   : {werkzeug * us:8.1f} us/call  -> {sdk_h / werkzeug:.1f}x faster than the SDK")
    print(f"   mcp_ref under waitress    : {waitress * us:8.1f} us/call  -> {sdk_h / waitress:.1f}x faster than the SDK")
    print(f"   official SDK (uvicorn)    : {sdk_h * us:8.1f} us/call\n")

    sequential, concurrent = ours_concurrent(8, calls // 2)
    print("3. mcp_ref, one stdio session: one thread, then 8 threads at once")
    print(f"   {concurrent:8.0f} calls/s  = {concurrent / sequential:.1f}x one thread's {sequential:.0f} calls/s\n")

    print("4. 50 SSE clients at once against one mcp_ref server process (3 s)")
    for kind in ("werkzeug", "waitress"):
        rate, p99 = many_sse_clients(kind)
        print(f"   {kind:9}: {rate:8.0f} calls/s, p99 latency {p99 * 1000:6.1f} ms")
    print()

    ours_i, sdk_i = import_time("mcp_ref"), import_time("mcp")
    print("5. import time (fresh interpreter, minus a bare one)")
    print(f"   import mcp_ref            : {ours_i * 1000:8.1f} ms")
    print(f"   import mcp                : {sdk_i * 1000:8.1f} ms  = {sdk_i / max(ours_i, 1e-4):.0f}x mcp_ref\n")

    ours_m = idle_rss_mb([PY, "-m", "mcp_ref", "serve"])
    sdk_m = idle_rss_mb([PY, str(HERE / "sdk_add_server.py")], sdk=True)
    print("6. memory of an idle stdio server process after initialize (RSS)")
    print(f"   mcp_ref                   : {ours_m:8.1f} MiB")
    print(f"   official SDK              : {sdk_m:8.1f} MiB\n")

    print("Targets (benchmarks/RESULTS.md), in this run:")
    for met, what in (
        (ours.median() <= 3 * floor, f"stdio round trip at most 3x the floor: {ours.median() / floor:.1f}x"),
        (sdk.median() >= 10 * ours.median(), f"stdio at least 10x faster than the SDK: {sdk.median() / ours.median():.1f}x"),
        (sdk_h >= 2 * werkzeug, f"SSE, default server, at least 2x faster than the SDK: {sdk_h / werkzeug:.1f}x"),
        (sdk_h >= 3 * waitress, f"SSE under waitress at least 3x faster than the SDK: {sdk_h / waitress:.1f}x"),
        (concurrent >= 1.5 * sequential, f"8 threads at least 1.5x one: {concurrent / sequential:.1f}x"),
        (ours_i < 0.060, f"import mcp_ref under 60 ms: {ours_i * 1000:.0f} ms"),
    ):
        print(f"   [{'met' if met else 'NOT MET'}] {what}")


if __name__ == "__main__":
    main()
