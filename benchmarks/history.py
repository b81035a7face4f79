"""What each change bought: stdio round trips of several git revisions of mcp_ref, side by side.

Not a spec section. Each revision is checked out into a temporary worktree; for each one a
worker process (this file with --worker, the revision first on PYTHONPATH) runs an mcp_ref
client against an mcp_ref server of the same revision. Rounds are interleaved between all
revisions and the floor (a raw newline-JSON echo over a pipe), so every contender sees the same
machine, and each is reported as a ratio to the floor measured in the same rounds. It also
reports the CPU time each side spent per call, which a busy machine disturbs much less than
wall time.

Run: python benchmarks/history.py REV [REV ...] [--calls N] [--rounds R]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PY = sys.executable
ARGS = {"a": 2, "b": 3}
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def worker() -> None:
    """Connect to a server of the revision on PYTHONPATH; answer 'N' on stdin with the timing of
    N sequential tools/call round trips as one JSON line."""
    from mcp_ref import Client

    with Client.stdio([PY, "-m", "mcp_ref", "serve"]) as client:
        server_pid = client.session._transport.process.pid  # type: ignore[attr-defined]
        for _ in range(100):
            client.call_tool("add", ARGS)
        print("ready", flush=True)
        for line in sys.stdin:
            calls = int(line)
            cpu0, server0, start = time.process_time(), cpu_seconds(server_pid), time.perf_counter()
            for _ in range(calls):
                client.call_tool("add", ARGS)
            wall = time.perf_counter() - start
            print(json.dumps({"wall": wall / calls, "client_cpu": (time.process_time() - cpu0) / calls,
                              "server_cpu": (cpu_seconds(server_pid) - server0) / calls}), flush=True)


class Contender:
    def __init__(self, rev: str, tree: Path) -> None:
        self.rev = rev
        env = dict(os.environ, PYTHONPATH=str(tree))
        self.proc = subprocess.Popen([PY, str(HERE / "history.py"), "--worker"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env, cwd=tree)
        assert self.proc.stdout is not None
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError(f"revision {rev} did not start")
        self.rounds: list[dict[str, float]] = []

    def round(self, calls: int) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{calls}\n")
        self.proc.stdin.flush()
        self.rounds.append(json.loads(self.proc.stdout.readline()))

    def median(self, key: str) -> float:
        return statistics.median(r[key] for r in self.rounds)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def main() -> None:
    if sys.argv[1:] == ["--worker"]:
        worker()
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revs", nargs="+")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from run import RawEcho, timed_round

    with tempfile.TemporaryDirectory(prefix="mcp_ref-history-") as tmp:
        contenders: list[Contender] = []
        floor = RawEcho()
        try:
            for rev in options.revs:
                tree = Path(tmp) / rev.replace("/", "_")
                subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(tree), rev], check=True)
                contenders.append(Contender(rev, tree))
            floors = []
            for _ in range(options.rounds):
                floors.append(timed_round(floor.call, options.calls))
                for contender in contenders:
                    contender.round(options.calls)
            base = statistics.median(floors)
            print(f"floor (raw JSON echo over a pipe): {base * 1e6:.1f} us/call; medians of {options.rounds} "
                  f"interleaved rounds of {options.calls} calls\n")
            print(f"{'revision':<12} {'us/call':>8} {'x floor':>8} {'client CPU us':>14} {'server CPU us':>14}")
            for c in contenders:
                print(f"{c.rev:<12} {c.median('wall') * 1e6:8.1f} {c.median('wall') / base:8.2f} "
                      f"{c.median('client_cpu') * 1e6:14.1f} {c.median('server_cpu') * 1e6:14.1f}")
        finally:
            floor.close()
            for contender in contenders:
                contender.close()
            for rev in options.revs:
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force",
                                str(Path(tmp) / rev.replace("/", "_"))], check=False, capture_output=True)


if __name__ == "__main__":
    main()
