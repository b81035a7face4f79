"""What each change bought: round trips of several git revisions of mcp_ref, side by side.

Not a spec section. Each revision is checked out into a temporary worktree; for each one a
contender process (contender.py, the revision first on PYTHONPATH and as the working
directory) runs an mcp_ref client against an mcp_ref server of the same revision:

    --transport stdio      over a pipe (``python -m mcp_ref serve``), beside the raw pipe echo
    --transport werkzeug   over HTTP+SSE on Server.serve_sse, beside the raw echo on werkzeug
    --transport waitress   over HTTP+SSE under waitress, beside the raw echo on waitress

Rounds alternate between all revisions and the floor, the order reversed every other round
(rounds.py), so every contender sees the same machine. Reported per revision: the median time
per call, the median over rounds of its ratio to the first revision *in the same round* (with
the lowest and highest), and the CPU per call of client and server over all rounds.

Run: python benchmarks/history.py REV [REV ...] [--transport T] [--rounds R]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from rounds import Contender, alternate, ratio_per_round  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revs", nargs="+")
    parser.add_argument("--transport", choices=("stdio", "werkzeug", "waitress"), default="stdio")
    parser.add_argument("--rounds", type=int, default=9)
    options = parser.parse_args()
    ours_kind = "mcp_ref-stdio" if options.transport == "stdio" else f"mcp_ref-{options.transport}"

    with tempfile.TemporaryDirectory(prefix="mcp_ref-history-") as tmp:
        contenders: list[Contender] = []
        trees: list[Path] = []
        try:
            contenders.append(Contender(f"raw-{options.transport}", label="floor"))
            for rev in options.revs:
                tree = Path(tmp) / rev.replace("/", "_")
                subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(tree), rev], check=True)
                trees.append(tree)
                contenders.append(Contender(ours_kind, label=rev, env=dict(os.environ, PYTHONPATH=str(tree)), cwd=tree))
            alternate(contenders, options.rounds)
            floor, first = contenders[0], contenders[1]
            print(f"{options.transport}: medians of {options.rounds} rounds, the order reversed every other round; "
                  f"ratios taken round by round\n")
            print(f"{'':<12} {'us/call':>9} {'x floor':>8} {'x ' + first.label:>22} {'client CPU us':>14} "
                  f"{'server CPU us':>14}")
            for c in contenders:
                ratio = ratio_per_round(c, first)
                low, high = min(ratio.get_values()), max(ratio.get_values())
                versus = f"{ratio.median():.3f} ({low:.2f}-{high:.2f})"
                print(f"{c.label:<12} {c.median() * 1e6:9.1f} {ratio_per_round(c, floor).median():8.2f} {versus:>22} "
                      f"{c.cpu('client') * 1e6:14.1f} {c.cpu('server') * 1e6:14.1f}")
        finally:
            for contender in contenders:
                contender.close()
            for tree in trees:
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)],
                               check=False, capture_output=True)


if __name__ == "__main__":
    main()
