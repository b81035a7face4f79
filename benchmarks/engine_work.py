"""The Python work per tools/call with no I/O, as a pyperf benchmark: what a change to the engine
costs, without the machine's wake-ups in the way. Not a spec section.

    python benchmarks/engine_work.py [pyperf options] -o FILE

``server``: the demo server's session handles a tools/call it is given (decode, classify, the
dispatch table, the tool, encoding the answer) and writes the answer to a transport that keeps
nothing. ``client``: a client session sends tools/call and takes each answer from an in-process
peer that answers at once. pyperf calibrates the loops and spreads the values over worker
processes; history.py's ``--work`` runs it for several revisions, alternately, and compares them
with ``pyperf compare_to``.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pyperf


def encode(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


class Sink:
    """A transport that never delivers anything and keeps nothing it is sent."""

    def receive(self, timeout: float | None = None) -> bytes | None:
        threading.Event().wait(timeout if timeout is not None else 3600)
        raise TimeoutError

    def send(self, data: bytes, timeout: float | None = None) -> None:
        pass

    def close(self) -> None:
        pass

    def describe_close(self) -> str:
        return "closed"


def server_work(loops: int) -> float:
    from mcp_ref.demo_server import server

    session = server.open_session(Sink())
    hello = {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}}
    for msg in ({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello},
                {"jsonrpc": "2.0", "method": "notifications/initialized"}):
        session._dispatch(encode(msg))
    requests = [encode({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                        "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}) for i in range(loops)]
    start = time.perf_counter()
    for data in requests:
        job = session._dispatch(data)
        if job is not None:
            job()
    return time.perf_counter() - start


if __name__ == "__main__":
    runner = pyperf.Runner()
    runner.bench_time_func("server work per tools/call", server_work)
