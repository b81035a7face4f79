"""A benchmark contender in a process of its own: a client connected to its server over stdio,
timing sequential tools/call round trips on demand. Not a spec section.

    python benchmarks/contender.py mcp_ref     mcp_ref's client and server
    python benchmarks/contender.py sdk         the official SDK's client and server

It prints ``ready`` once connected and warmed up; then for each line ``N`` on stdin it makes N
calls and prints one JSON line: seconds per call (wall), and the CPU seconds per call of the
client (this process) and of the server process. run.py and history.py alternate rounds between
contenders, so that all of them see the same machine: on a virtual machine the time of a round
trip can change several-fold from one second to the next.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PY = sys.executable
ARGS = {"a": 2, "b": 3}
WARM_UP = 100
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def report(calls: int, wall: float, client_cpu: float, server_cpu: float) -> None:
    print(json.dumps({"wall": wall / calls, "client_cpu": client_cpu / calls, "server_cpu": server_cpu / calls}),
          flush=True)


def ours() -> None:
    from mcp_ref import Client

    with Client.stdio([PY, "-m", "mcp_ref", "serve"]) as client:
        server_pid = client.session._transport.process.pid  # type: ignore[attr-defined]
        for _ in range(WARM_UP):
            client.call_tool("add", ARGS)
        print("ready", flush=True)
        for line in sys.stdin:
            calls = int(line)
            cpu0, server0, start = time.process_time(), cpu_seconds(server_pid), time.perf_counter()
            for _ in range(calls):
                client.call_tool("add", ARGS)
            report(calls, time.perf_counter() - start, time.process_time() - cpu0, cpu_seconds(server_pid) - server0)


def sdk() -> None:
    import anyio
    from mcp import Client, StdioServerParameters

    async def main() -> None:
        params = StdioServerParameters(command=PY, args=[str(HERE / "sdk_add_server.py")])
        async with Client(params, mode="legacy") as client:
            for _ in range(WARM_UP):
                await client.call_tool("add", ARGS)
            server_pid = _only_child()
            print("ready", flush=True)
            while line := await anyio.to_thread.run_sync(sys.stdin.readline):
                calls = int(line)
                cpu0, server0, start = time.process_time(), cpu_seconds(server_pid), time.perf_counter()
                for _ in range(calls):
                    await client.call_tool("add", ARGS)
                report(calls, time.perf_counter() - start, time.process_time() - cpu0,
                       cpu_seconds(server_pid) - server0)

    anyio.run(main)


def _only_child() -> int:
    pid = os.getpid()
    children: list[Any] = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return int(children[0])


if __name__ == "__main__":
    {"mcp_ref": ours, "sdk": sdk}[sys.argv[1]]()
