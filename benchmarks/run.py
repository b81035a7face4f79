"""Side-by-side measurements of mcp_ref and the official Python SDK (`mcp`), in one run.

Not a spec section. Machines are noisy, so results are reported as ratios measured back to back:
1. sequential tools/call round trips over stdio: mcp_ref, the SDK, and a raw newline-JSON echo
   over a pipe with no library (the floor);
2. the same over HTTP with SSE: mcp_ref and the SDK;
3. concurrent calls from several threads over one mcp_ref session (throughput);
4. `import mcp_ref` against `import mcp`, each in a fresh interpreter.

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


def stdio_ours_vs_floor(calls: int) -> dict[str, float]:
    from mcp_ref import Client

    floor = RawEcho()
    try:
        with Client.stdio([PY, "-m", "mcp_ref", "serve"]) as client:
            return interleaved({"floor": floor.call, "mcp_ref": lambda: client.call_tool("add", ARGS)}, calls)
    finally:
        floor.close()


def ours_sse(calls: int) -> float:
    from mcp_ref import Client
    from mcp_ref.demo_server import server

    with server.sse_server(port=0) as http, Client.sse(http.url) as client:
        return interleaved({"mcp_ref": lambda: client.call_tool("add", ARGS)}, calls, rounds=5)["mcp_ref"]


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


def sdk_stdio(calls: int) -> float:
    from mcp import StdioServerParameters

    return _sdk_per_call(StdioServerParameters(command=PY, args=[str(HERE / "sdk_add_server.py")]), calls)


def sdk_sse(calls: int) -> float:
    from mcp.client.sse import sse_client

    proc = subprocess.Popen([PY, str(HERE / "sdk_add_server.py"), "sse"], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout
        return _sdk_per_call(sse_client(proc.stdout.readline().strip()), calls)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


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
    """Seconds to start an interpreter and import `module`, minus a bare interpreter, median of 5."""
    def run(code: str) -> float:
        start = time.perf_counter()
        subprocess.run([PY, "-c", code], check=True)
        return time.perf_counter() - start

    bare = statistics.median(run("pass") for _ in range(5))
    return statistics.median(run(f"import {module}") for _ in range(5)) - bare


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300, help="calls per round (5 rounds each)")
    calls = parser.parse_args().calls
    us = 1e6
    print(f"Python {sys.version.split()[0]}; rounds of {calls} calls, interleaved between contenders; medians.\n")

    stdio = stdio_ours_vs_floor(calls)
    floor, ours = stdio["floor"], stdio["mcp_ref"]
    sdk_floor = RawEcho()
    try:
        before = statistics.median(timed_round(sdk_floor.call, calls) for _ in range(3))
        sdk = sdk_stdio(calls)
        after = statistics.median(timed_round(sdk_floor.call, calls) for _ in range(3))
    finally:
        sdk_floor.close()
    sdk_ratio = sdk / ((before + after) / 2)
    print("1. stdio, sequential tools/call round trips (ratios from interleaved rounds)")
    print(f"   raw JSON echo over a pipe : {floor * us:8.1f} us/call  (the floor)")
    print(f"   mcp_ref                   : {ours * us:8.1f} us/call  = {ours / floor:5.1f}x the floor")
    print(f"   official SDK              : {sdk * us:8.1f} us/call  = {sdk_ratio:5.1f}x the floor measured around it")
    print(f"   -> mcp_ref is {sdk_ratio / (ours / floor):.1f}x faster than the SDK over stdio\n")

    ours_h, sdk_h = ours_sse(calls // 3), sdk_sse(calls // 3)
    print("2. HTTP with SSE, sequential tools/call round trips")
    print(f"   mcp_ref                   : {ours_h * us:8.1f} us/call")
    print(f"   official SDK              : {sdk_h * us:8.1f} us/call")
    print(f"   -> mcp_ref is {sdk_h / ours_h:.1f}x faster than the SDK over SSE\n")

    sequential, concurrent = ours_concurrent(8, calls // 2)
    print("3. mcp_ref, one stdio session: one thread, then 8 threads at once")
    print(f"   {concurrent:8.0f} calls/s  = {concurrent / sequential:.1f}x one thread's {sequential:.0f} calls/s\n")

    ours_i, sdk_i = import_time("mcp_ref"), import_time("mcp")
    print("4. import time (fresh interpreter, minus a bare one)")
    print(f"   import mcp_ref            : {ours_i * 1000:8.1f} ms")
    print(f"   import mcp                : {sdk_i * 1000:8.1f} ms  = {sdk_i / max(ours_i, 1e-4):.0f}x mcp_ref")


if __name__ == "__main__":
    main()
