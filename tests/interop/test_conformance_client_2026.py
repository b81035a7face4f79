"""Interop: the official conformance suite's client scenarios of revision 2026-07-28, against our client.

https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
The suite's mock servers, written by nobody here, grade what tests/interop/conformance_client.py
(``mcp_ref.Client.http``, offering every revision, so it probes with ``server/discover``) does:

- ``request-metadata``: every POST carries ``MCP-Protocol-Version`` equal to the ``_meta``
  revision, the ``_meta`` holds the revision, the capabilities (each an object) and the client's
  name, and a first request refused with -32022 is sent again in a revision the server named;
- ``sep-2322-client-request-state``: an ``input_required`` result is answered and the request
  sent again under a new id with the ``requestState`` unchanged (none when none came), what one
  call was asked never leaks into another, and a result without ``resultType`` is complete;
- ``tools_call``: the tool called with the arguments its schema asks for (the scenario's server
  serves the revisions with a handshake: our client's probe falls back).

Which scenarios run is the suite's own list for the requirement set 2026-07-28, authorization
apart (``conformance list --client --requirements 2026-07-28``).

``conformance client --command COMMAND --scenario NAME --spec-version 2026-07-28``, one suite
process per scenario, side by side. What it proves: every check of both scenarios passes (no
failure, no warning) and our client exits 0. Needs Node.js 22 and the suite (install_peers.py);
skips without them, as tests/interop/test_conformance_client.py does.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from .node_peers import conformance_suite
from .suite_results import complaints, read_results, required_scenarios, table
from .test_conformance_client import CLIENT, how_our_client_ended

REVISION = "2026-07-28"


def test_the_conformance_suites_2026_07_28_client_scenarios_against_our_client(tmp_path: Path,
                                                                              record_property: Any) -> None:
    suite = conformance_suite()
    scenarios = {name: scored for name, scored in required_scenarios(suite, "client", tmp_path, REVISION).items()
                 if not name.startswith("auth/")}
    command = shlex.join([sys.executable, str(CLIENT)])
    started = time.monotonic()
    runs: dict[str, subprocess.Popen[str]] = {}
    try:
        for name in scenarios:
            with open(tmp_path / f"{name}.log", "w", encoding="utf-8") as log:
                runs[name] = subprocess.Popen(
                    [*suite.argv, "client", "--command", command, "--scenario", name, "--spec-version", REVISION,
                     "--timeout", "60000", "-o", str(tmp_path / "results" / name)],
                    stdout=log, stderr=subprocess.STDOUT, text=True, env=suite.env, cwd=tmp_path)
        for run in runs.values():
            run.wait(timeout=90)
    finally:
        for run in runs.values():
            if run.poll() is None:
                run.kill()
                run.wait()
    if not (tmp_path / "results").is_dir():
        pytest.skip(f"the conformance suite did not run: "
                    f"{(tmp_path / f'{next(iter(scenarios))}.log').read_text(encoding='utf-8')[-400:]}")
    outcomes = read_results(tmp_path / "results", "", scenarios)
    for name, outcome in outcomes.items():
        outcome.client = how_our_client_ended((tmp_path / f"{name}.log").read_text(encoding="utf-8"))
    report = table(outcomes, {}, time.monotonic() - started, str(suite), REVISION)
    print(report)
    record_property("scenarios", report)
    said = complaints(outcomes, scenarios, {})
    assert not said, "\n".join(said) + "\n\n" + report
    assert {"request-metadata", "sep-2322-client-request-state", "tools_call"} <= set(outcomes)
    assert outcomes["request-metadata"].passed == 8 and outcomes["sep-2322-client-request-state"].passed == 5
