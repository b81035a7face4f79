"""The official conformance suite's results, read and judged: what test_conformance_suite.py
(server scenarios) and test_conformance_client.py (client scenarios) share.

Not a spec page. How the suite reports, and how we read it:

1. ``conformance list --requirements REVISION`` names the scenarios a revision requires, under
   "Server scenarios" and "Client scenarios" (scored), then the ones it runs but never scores
   (``- NAME [server]``, ``- NAME [client]``). We run both kinds and judge both the same way.
2. With ``-o FOLDER``, each scenario run leaves ``FOLDER/[server-]<scenario>-<timestamp>/checks.json``:
   a list of checks, each with an ``id`` and a ``status``: SUCCESS, FAILURE, WARNING (a SHOULD
   not met), INFO or SKIPPED, and a message (``errorMessage``, else ``details.message``).
3. A scenario passes when none of its checks is a FAILURE or a WARNING (and, for a client
   scenario, our client program exited 0): the suite's own verdict for clients, and stricter than
   its server summary, which ignores warnings. Checks that time something (TIMED_CHECKS) are
   reported and never judged: the house asserts no durations (DESIGN.md).
4. Each test keeps a table EXPECTED_TO_FAIL, scenario -> why. ``complaints`` names every scenario
   that fails and is not in it, every one in it that passes now ("remove X from
   EXPECTED_TO_FAIL"), and every one in it the suite did not run: the table can only shrink,
   and it stays exact.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from .node_peers import NodePackage

REQUIREMENTS = "2025-11-25"  # the revision whose required scenarios we run (the suite's --requirements)

# Checks whose verdict is a duration measured on this machine: reported, never asserted.
TIMED_CHECKS = {
    "client-sse-retry-timing": "the suite times the client's reconnection against the SSE retry field "
                               "(500 ms, 50 ms early to 200 ms late): under load that measures the machine",
}

_TIMESTAMP = re.compile(r"-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$")


@dataclass
class Outcome:
    """One scenario's run: the counts of its checks, and what went wrong."""

    scenario: str
    scored: bool
    passed: int = 0
    failed: int = 0
    warnings: int = 0
    problems: list[str] = field(default_factory=list)  # "check-id: message", each FAILURE or WARNING judged
    timed: list[str] = field(default_factory=list)  # "check-id STATUS: message", reported only
    client: str = ""  # client scenarios: how our client program ended, when not with 0

    @property
    def ok(self) -> bool:
        return not self.problems and not self.client

    def why(self) -> str:
        return "; ".join([*self.problems, *([self.client] if self.client else [])]) or "passes"


def required_scenarios(suite: NodePackage, side: str, cwd: Path, requirements: str = REQUIREMENTS) -> dict[str, bool]:
    """Every ``side`` ("server" or "client") scenario the suite runs for ``requirements`` (a
    revision) -> whether it is scored, in the suite's order."""
    try:
        listed = subprocess.run([*suite.argv, "list", f"--{side}", "--requirements", requirements],
                                capture_output=True, text=True, timeout=90, env=suite.env, cwd=cwd)
    except subprocess.TimeoutExpired:
        if not suite.fetched:
            raise
        pytest.skip("the conformance suite did not start within 90 s (npm still fetching it?)")
    if listed.returncode != 0 and suite.fetched:
        pytest.skip(f"the conformance suite did not run (no network for npm?): {(listed.stdout + listed.stderr)[-400:]}")
    assert listed.returncode == 0, f"conformance list failed: {listed.stdout}{listed.stderr}"
    scenarios: dict[str, bool] = {}
    section = ""
    for line in listed.stdout.splitlines():
        if not line.startswith(" "):
            section = line.split(" scenarios", 1)[0].lower() if " scenarios (" in line else "other"
        elif item := re.fullmatch(r"\s+- (\S+)", line):
            if section == side:
                scenarios[item.group(1)] = True
        elif item := re.fullmatch(r"\s+- (\S+) \[(\w+)\]", line):
            if item.group(2) == side:
                scenarios.setdefault(item.group(1), False)
    assert scenarios, f"conformance list named no {side} scenarios:\n{listed.stdout}"
    return scenarios


def read_results(folder: Path, prefix: str, scored: dict[str, bool]) -> dict[str, Outcome]:
    """The outcome of each scenario whose ``checks.json`` lies under ``folder``, in a folder named
    ``<prefix><scenario>-<timestamp>`` (the suite's server runs write the prefix ``server-``)."""
    outcomes: dict[str, Outcome] = {}
    for checks_file in sorted(folder.rglob("checks.json")):
        scenario = _TIMESTAMP.sub("", checks_file.parent.name).removeprefix(prefix)
        outcome = outcomes[scenario] = Outcome(scenario, scored.get(scenario, False))
        for check in json.loads(checks_file.read_text(encoding="utf-8")):
            status = check.get("status")
            message = check.get("errorMessage") or (check.get("details") or {}).get("message") or check.get("description")
            if check.get("id") in TIMED_CHECKS:
                outcome.timed.append(f"{check.get('id')} {status}: {message}")
                continue
            outcome.passed += status == "SUCCESS"
            outcome.failed += status == "FAILURE"
            outcome.warnings += status == "WARNING"
            if status in ("FAILURE", "WARNING"):
                outcome.problems.append(f"{check.get('id')}{' (warning)' if status == 'WARNING' else ''}: {message}")
    in_order = [name for name in scored if name in outcomes] + sorted(set(outcomes) - set(scored))
    return {name: outcomes[name] for name in in_order}  # the suite's order


def complaints(outcomes: dict[str, Outcome], expected: dict[str, bool], expected_to_fail: dict[str, str]) -> list[str]:
    """What is wrong with this run, given the scenarios that should have run and the table."""
    said = [f"{name} did not run (no checks.json)" for name in expected if name not in outcomes]
    for name, outcome in outcomes.items():
        if name in expected_to_fail and outcome.ok:
            said.append(f"{name} passes now: remove {name} from EXPECTED_TO_FAIL")
        elif name not in expected_to_fail and not outcome.ok:
            said.append(f"{name} should pass: {outcome.why()}")
    said += [f"EXPECTED_TO_FAIL names {name}, which the suite did not run: remove {name} from EXPECTED_TO_FAIL"
             for name in expected_to_fail if name not in outcomes]
    return said


def table(outcomes: dict[str, Outcome], expected_to_fail: dict[str, str], took: float, origin: str,
          requirements: str = REQUIREMENTS) -> str:
    """The per-scenario counts, one line each, for the test's output (``pytest -rP`` shows it)."""
    lines = [f"conformance suite ({origin}), requirements {requirements}, {len(outcomes)} scenarios in {took:.1f} s",
             f"{'scenario':40} {'scored':6} {'pass':>4} {'fail':>4} {'warn':>4}  verdict"]
    for name, o in outcomes.items():
        verdict = "ok" if o.ok else ("expected to fail: " if name in expected_to_fail else "FAILS: ") + o.why()
        if o.ok and not o.passed + o.failed + o.warnings:
            verdict = "ok (no check judged: each said INFO or SKIPPED)"
        if o.timed:
            verdict += f" [timed, not judged: {'; '.join(o.timed)}]"
        lines.append(f"{name:40} {'yes' if o.scored else 'no':6} {o.passed:4} {o.failed:4} {o.warnings:4}  {verdict}")
    return "\n".join(lines)
