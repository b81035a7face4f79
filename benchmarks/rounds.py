"""Rounds alternated between contender processes, kept as pyperf benchmarks. Not a spec section.

This machine's round-trip time moves several-fold from one minute to the next, so a figure
means something only beside another measured in the same minutes. Every measurement here is
therefore a series of *rounds*: in each round every contender (contender.py, a process of its
own with its server in another) makes its calls, one after the other, the order reversed every
other round so that nobody always follows the same neighbour.

Each contender's rounds become a ``pyperf.Benchmark`` (one run per round, its value the seconds
per call, ``loops`` the calls it made), so medians, percentiles and the comparison with its
significance test (``python -m pyperf compare_to``) are pyperf's, not ours. The calls per
round are calibrated as pyperf calibrates loops: doubled until one round lasts ``MIN_TIME``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyperf

HERE = Path(__file__).resolve().parent
PY = sys.executable
MIN_TIME = 0.2  # seconds one round of one contender should last (pyperf's default is 0.1)


class Contender:
    """A contender.py process of ``kind``; ``env`` and ``cwd`` let history.py run another revision."""

    def __init__(self, kind: str, *, label: str | None = None, env: dict[str, str] | None = None,
                 cwd: Path | None = None) -> None:
        self.kind = kind
        self.label = label or kind
        self.proc = subprocess.Popen([PY, str(HERE / "contender.py"), kind], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env, cwd=cwd or HERE.parent)
        if self._line() != "ready":
            raise RuntimeError(f"the {kind} contender did not start")
        self.calls = 1
        self.rounds: list[dict[str, float]] = []

    def _line(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline().strip()

    def ask(self, command: str) -> Any:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        line = self._line()
        if not line:
            raise RuntimeError(f"the {self.kind} contender ended")
        return json.loads(line)

    def calibrate(self) -> None:
        """Calls per round: doubled until one round takes ``MIN_TIME`` (pyperf's rule for loops)."""
        while True:
            took = self.ask(str(self.calls))["wall"] * self.calls
            if took >= MIN_TIME or self.calls >= 1 << 20:
                return
            self.calls *= 2

    def round(self) -> None:
        self.rounds.append(self.ask(str(self.calls)))

    def benchmark(self, name: str, key: str = "wall") -> pyperf.Benchmark:
        """The rounds as a pyperf benchmark of seconds per call (``key``: wall, client_cpu or
        server_cpu; the CPU of a round is read in clock ticks, so it is kept only summed over
        all rounds: see ``cpu``)."""
        runs = [pyperf.Run([r[key]], metadata={"name": name, "loops": int(r["calls"]), "unit": "second"},
                           collect_metadata=False) for r in self.rounds]
        return pyperf.Benchmark(runs)

    def median(self, key: str = "wall") -> float:
        return float(self.benchmark(self.label, key).median())

    def cpu(self, side: str) -> float:
        """CPU seconds per call of ``side`` (client or server) over all rounds: one round lasts a
        few clock ticks, so only the sum is precise."""
        calls = sum(r["calls"] for r in self.rounds)
        return sum(r[f"{side}_cpu"] * r["calls"] for r in self.rounds) / calls

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def alternate(contenders: Sequence[Contender], rounds: int) -> None:
    """Calibrate each contender, then ``rounds`` rounds, the order reversed every other round."""
    for contender in contenders:
        contender.calibrate()
    for number in range(rounds):
        for contender in (contenders if number % 2 == 0 else list(reversed(contenders))):
            contender.round()


def ratio_per_round(a: Contender, b: Contender) -> pyperf.Benchmark:
    """``a``'s time over ``b``'s, round by round, as a benchmark (for its median and range)."""
    runs = [pyperf.Run([x["wall"] / y["wall"]], metadata={"name": f"{a.label} / {b.label}", "unit": "second"},
                       collect_metadata=False) for x, y in zip(a.rounds, b.rounds, strict=True)]
    return pyperf.Benchmark(runs)


def save(contenders: Sequence[Contender], name: str, folder: Path) -> list[Path]:
    """One pyperf JSON file per contender, each holding benchmark ``name``, so that
    ``python -m pyperf compare_to --table FILE...`` can compare them."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for contender in contenders:
        path = folder / f"{contender.label.replace('/', '_')}.json"
        suite = pyperf.BenchmarkSuite([contender.benchmark(name)])
        suite.dump(str(path), replace=True)
        paths.append(path)
    return paths


def compare_to(paths: Sequence[Path]) -> str:
    """pyperf's own comparison of the files (the first is the reference), as a table."""
    result = subprocess.run([PY, "-m", "pyperf", "compare_to", "--table", *map(str, paths)],
                            capture_output=True, text=True, check=False)
    return result.stdout.strip() or result.stderr.strip()
