"""Interop: the official conformance suite's server scenarios, straight against our /mcp endpoint.

https://modelcontextprotocol.io/specification/2025-11-25/basic/transports
https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
The suite (``@modelcontextprotocol/conformance``, pinned in install_peers.py) runs every server
scenario of a requirement set, the scored ones and those it runs without scoring (``conformance
server --url URL --requirements R``), with the TypeScript SDK's client over Streamable HTTP, as a
host would, against ``mcp-ref serve tests/interop/conformance_server.py:server --transport http``
(every tool, resource and prompt the scenarios call by name). No bridge: the suite speaks to our
endpoint itself. Two sets: 2025-11-25 (the handshake; the suite offers 2025-11-25 and we agree),
and 2026-07-28 (no handshake: each request names its revision, served by revisions/stateless.py,
stateless_http.py and mrtr.py), on the same endpoint of the same server.

What it proves: every scenario passes all its checks (no failure, no warning), except those in
EXPECTED_TO_FAIL, each failing for the reason written there; a scenario of that table that
starts passing fails this test until it is removed from it (suite_results.py). The counts of
each scenario are printed (``pytest -rP`` shows them) and recorded as the property ``scenarios``.

The suite needs Node.js 22, which install_peers.py (``make test`` runs it) puts in .peers with
the suite; without them, ``MCP_REF_NODE=/path/to/node22``, or npx and a node 22 on PATH. Where
there is none, this test skips and says so.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from ..conftest import SseServerProcess
from .node_peers import conformance_suite
from .suite_results import REQUIREMENTS, Outcome, complaints, read_results, required_scenarios, table

# Scenario -> why it fails on this branch today (the check that fails, and what it says).
EXPECTED_TO_FAIL: dict[str, str] = {}  # every server scenario of the 2025-11-25 set passes
_TASKS = "the tasks extension (io.modelcontextprotocol/tasks, unscored) is not implemented: no task is ever created"
EXPECTED_TO_FAIL_2026: dict[str, str] = {
    **{f"tasks-{name}": _TASKS for name in ("lifecycle", "capability-negotiation", "wire-fields", "request-state-removal",
                                            "mrtr-input", "request-headers", "dispatch-and-envelope",
                                            "required-task-error", "mrtr-composition")},
}
SETS = {REQUIREMENTS: EXPECTED_TO_FAIL, "2026-07-28": EXPECTED_TO_FAIL_2026}


@pytest.mark.parametrize("requirements", list(SETS))
def test_the_conformance_suites_server_scenarios_against_our_endpoint(requirements: str, tmp_path: Path,
                                                                      record_property: Any) -> None:
    suite = conformance_suite()
    expected_to_fail = SETS[requirements]
    scenarios = required_scenarios(suite, "server", tmp_path, requirements)
    server = SseServerProcess("tests/interop/conformance_server.py:server", "--transport", "http")
    started = time.monotonic()
    try:
        run = subprocess.run([*suite.argv, "server", "--url", server.url, "--requirements", requirements,
                              "-o", str(tmp_path / "results")],
                             capture_output=True, text=True, timeout=100, env=suite.env, cwd=tmp_path)  # pytest stops at 120
    finally:
        server.close()
    took = time.monotonic() - started
    if not (tmp_path / "results").is_dir():
        pytest.skip(f"the conformance suite did not run (no network for npm?): {(run.stdout + run.stderr)[-400:]}")
    outcomes = read_results(tmp_path / "results", "server-", scenarios)
    report = table(outcomes, expected_to_fail, took, str(suite), requirements)
    print(report)
    record_property("scenarios", report)
    said = complaints(outcomes, scenarios, expected_to_fail)
    assert not said, "\n".join(said) + "\n\n" + report
    assert sum(o.scored for o in outcomes.values()) >= 30  # the whole requirement set ran, not a part


def test_the_table_of_expected_failures_only_shrinks_and_stays_exact(tmp_path: Path) -> None:
    """What the two suite tests assert, on results written by hand (no Node needed): a scenario
    that fails must be in the table, one in the table that passes must leave it, and the table
    names nothing that did not run. A warning fails a scenario; a timed check is only reported."""
    def ran(scenario: str, *checks: dict[str, object]) -> None:
        folder = tmp_path / f"server-{scenario}-2026-11-28T07-48-41-395Z"
        folder.mkdir()
        (folder / "checks.json").write_text(json.dumps(list(checks)), encoding="utf-8")

    ran("fixed-now", {"id": "a", "status": "SUCCESS"}, {"id": "wire-schema-valid", "status": "SUCCESS"})
    ran("still-broken", {"id": "b", "status": "FAILURE", "errorMessage": "no audio"})
    ran("regressed", {"id": "c", "status": "WARNING", "details": {"message": "no Last-Event-ID"}})
    ran("slow-machine", {"id": "client-sse-retry-timing", "status": "FAILURE", "errorMessage": "late"},
        {"id": "d", "status": "INFO"})
    expected = {"fixed-now": True, "still-broken": True, "regressed": True, "slow-machine": False, "never-ran": True}
    outcomes = read_results(tmp_path, "server-", expected)
    assert list(outcomes) == ["fixed-now", "still-broken", "regressed", "slow-machine"]  # the suite's order
    assert (outcomes["fixed-now"].passed, outcomes["still-broken"].failed, outcomes["regressed"].warnings) == (2, 1, 1)
    assert outcomes["slow-machine"].ok and outcomes["slow-machine"].timed == ["client-sse-retry-timing FAILURE: late"]
    table_ = {"fixed-now": "audio", "still-broken": "audio", "gone": "a scenario the suite dropped"}
    assert complaints(outcomes, expected, table_) == [
        "never-ran did not run (no checks.json)",
        "fixed-now passes now: remove fixed-now from EXPECTED_TO_FAIL",
        "regressed should pass: c (warning): no Last-Event-ID",
        "EXPECTED_TO_FAIL names gone, which the suite did not run: remove gone from EXPECTED_TO_FAIL"]
    exact = {"still-broken": "audio", "regressed": "a SHOULD"}  # every failure listed, nothing else
    assert complaints(outcomes, {k: v for k, v in expected.items() if k != "never-ran"}, exact) == []
    assert Outcome("x", True, client="our client exited with 1").why() == "our client exited with 1"
