"""What a run of the suite could not do here, and how to enable it: the line ending every run.

Not a spec page: a newcomer's ``make test`` (``pytest -q``, which hides the report header) ends
with one line naming the optional parts that did not run, each with what enables it, e.g.::

    optional parts skipped: schema checks (../shared/spec/2024-11-05/schema.json is absent: put
    the project's shared/ folder beside the clone, as ../shared); Node 22 peers, 1 test (make
    peers installs Node 22 in .peers where npm is present, or point MCP_REF_NODE at one)

or ``optional parts: none skipped``. A part is recognised by the words of its tests' skip reasons
(the table below): a new kind of optional test adds a row. Skips of no known part are counted,
and ``pytest -rs`` lists their reasons.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SHARED_HINT = "put the project's shared/ folder beside the clone, as ../shared"


@dataclass(frozen=True)
class OptionalPart:
    name: str
    words: tuple[str, ...]  # a skip whose reason holds one of these belongs to this part
    enable: str


SCHEMA = OptionalPart("schema checks", ("schema-checked", "no schema file"), SHARED_HINT)
PARTS = [
    SCHEMA,
    OptionalPart("Node 22 peers", ("needs Node.js",),
                 "make peers installs Node 22 in .peers where npm is present, or point MCP_REF_NODE at one"),
    OptionalPart("TypeScript peers", ("npx is not installed",), "install Node.js and npm (npx)"),
    OptionalPart("TypeScript peers from npm", ("no network for npm", "npm still fetching"),
                 "let npm reach its registry once; the packages are cached after that"),
    OptionalPart("the course's whole table of wrong solutions", ("graded by make course",),
                 "make course grades every one; CI runs it after make test"),
    OptionalPart("checks against the shared requirement list and spec pages",
                 ("the shared requirement list is absent", "the shared spec pages are absent"), SHARED_HINT),
]


def skip_reason(report: Any) -> str:
    """The reason of one skipped test's report (``Skipped: `` taken off)."""
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return str(reason).removeprefix("Skipped: ")


def summary_line(reasons: Sequence[str], schema_present: bool, schema_path: Path) -> str:
    """The one line: each optional part that did not run (with how many of its tests skipped,
    and how to enable it), then the number of other skips."""
    counts = {part.name: 0 for part in PARTS}
    others = 0
    for reason in reasons:
        part = next((p for p in PARTS if any(word in reason for word in p.words)), None)
        if part is None:
            others += 1
        else:
            counts[part.name] += 1
    shown = []
    for part in PARTS:
        count = counts[part.name]
        if part is SCHEMA and not schema_present:
            shown.append(f"{part.name} ({_near(schema_path)} is absent: {part.enable})")
        elif count:
            shown.append(f"{part.name}, {count} test{'s' if count > 1 else ''} ({part.enable})")
    if others:
        shown.append(f"{others} other skip{'s' if others > 1 else ''} (pytest -rs says why)")
    return "optional parts skipped: " + "; ".join(shown) if shown else "optional parts: none skipped"


def _near(path: Path) -> str:
    """``../shared/...`` when the path lies in the shared folder beside the clone, as the README
    names it; any other path as it is."""
    shared = Path(__file__).resolve().parents[3] / "shared"  # beside the clone
    try:
        return "../shared/" + path.resolve().relative_to(shared).as_posix()
    except ValueError:
        return str(path)
