"""Interop: the official conformance suite's client scenarios, against a client program of ours.

https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle
For each client scenario of the suite's 2025-11-25 requirement set that is not about
authorization (the scored ones and those it runs without scoring), the suite starts a mock
server made for that scenario and runs tests/interop/conformance_client.py, a program on
``mcp_ref.Client.http(url)``, with the server's URL and the scenario's name
(``MCP_CONFORMANCE_SCENARIO``); the mock server grades what our client does:
``conformance client --command COMMAND --scenario NAME --spec-version 2025-11-25 --force``
(what ``--requirements 2025-11-25`` runs, one scenario at a time, so the authorization
scenarios stay out). The scenarios run side by side, one suite process each.

What it proves: every scenario passes all its checks (no failure, no warning) and our client
exits 0, except the scenarios in EXPECTED_TO_FAIL, each failing for the reason written there; a
scenario of that table that starts passing fails this test until it is removed from it
(suite_results.py). Checks that time the client are reported, never judged. The counts of each
scenario are printed (``pytest -rP`` shows them) and recorded as the property ``scenarios``.

The suite needs Node.js 22, which install_peers.py (``make test`` runs it) puts in .peers with
the suite; without them, ``MCP_REF_NODE=/path/to/node22``, or npx and a node 22 on PATH. Where
there is none, this test skips and says so.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from .node_peers import conformance_suite
from .suite_results import REQUIREMENTS, complaints, read_results, required_scenarios, table

CLIENT = Path(__file__).with_name("conformance_client.py")

# Scenario -> why it fails on this branch today (the check that fails, and what it says).
EXPECTED_TO_FAIL: dict[str, str] = {}


def test_the_conformance_suites_client_scenarios_against_our_client(tmp_path: Path, record_property: Any) -> None:
    suite = conformance_suite()
    scenarios = {name: scored for name, scored in required_scenarios(suite, "client", tmp_path).items()
                 if not name.startswith("auth/")}
    command = shlex.join([sys.executable, str(CLIENT)])  # the suite appends the URL and runs it with a shell
    started = time.monotonic()
    runs: dict[str, subprocess.Popen[str]] = {}
    try:
        for name in scenarios:
            with open(tmp_path / f"{name}.log", "w", encoding="utf-8") as log:  # the child has its own copy
                runs[name] = subprocess.Popen(
                    [*suite.argv, "client", "--command", command, "--scenario", name, "--spec-version", REQUIREMENTS,
                     "--force", "--timeout", "90000", "-o", str(tmp_path / "results" / name)],  # --force: as --requirements does
                    stdout=log, stderr=subprocess.STDOUT, text=True, env=suite.env, cwd=tmp_path)
        for run in runs.values():
            run.wait(timeout=100)  # the suite gives our client 90 s (a loaded machine), then stops it; pytest stops at 120
    finally:
        for run in runs.values():
            if run.poll() is None:
                run.kill()
                run.wait()
    took = time.monotonic() - started
    if not (tmp_path / "results").is_dir():
        pytest.skip(f"the conformance suite did not run (no network for npm?): "
                    f"{(tmp_path / f'{next(iter(scenarios))}.log').read_text(encoding='utf-8')[-400:]}")
    outcomes = read_results(tmp_path / "results", "", scenarios)
    for name, outcome in outcomes.items():
        outcome.client = how_our_client_ended((tmp_path / f"{name}.log").read_text(encoding="utf-8"))
    report = table(outcomes, EXPECTED_TO_FAIL, took, str(suite))
    print(report)
    record_property("scenarios", report)
    said = complaints(outcomes, scenarios, EXPECTED_TO_FAIL)
    assert not said, "\n".join(said) + "\n\n" + report
    assert {"initialize", "tools_call", "sse-retry"} <= set(outcomes)  # the scored scenarios ran, not a part


def how_our_client_ended(log: str) -> str:
    """From the suite's log of one scenario: "" when our client exited 0 in time, else how it
    ended, with the line it wrote last on stderr (conformance_client.py says what stopped it)."""
    said = re.findall(r"^conformance_client: .*$", log, re.MULTILINE)
    last = f" ({said[-1]})" if said else ""
    if "Client timed out" in log:
        return "our client did not finish in the suite's time" + last
    exited = re.search(r"Client exited with code (-?\d+)", log)
    return f"our client exited with {exited.group(1)}{last}" if exited else ""
