"""What each change bought: stdio round trips of several git revisions of mcp_ref, side by side.

Not a spec section. Each revision is checked out into a temporary worktree; for each one a
contender process (contender.py, the revision first on PYTHONPATH) runs an mcp_ref client
against an mcp_ref server of the same revision. Rounds are interleaved between all
revisions and the floor (a raw newline-JSON echo over a pipe), so every contender sees the same
machine, and each is reported as a ratio to the floor measured in the same rounds. It also
reports the CPU time each side spent per call, which a busy machine disturbs much less than
wall time.

Run: python benchmarks/history.py REV [REV ...] [--calls N] [--rounds R]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revs", nargs="+")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from run import Contender, RawEcho, timed_round

    with tempfile.TemporaryDirectory(prefix="mcp_ref-history-") as tmp:
        contenders: list[Any] = []
        floor = RawEcho()
        try:
            for rev in options.revs:
                tree = Path(tmp) / rev.replace("/", "_")
                subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(tree), rev], check=True)
                contender = Contender("mcp_ref", env=dict(os.environ, PYTHONPATH=str(tree)), cwd=tree)
                contender.kind = rev
                contenders.append(contender)
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
                print(f"{c.kind:<12} {c.median('wall') * 1e6:8.1f} {c.median('wall') / base:8.2f} "
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
