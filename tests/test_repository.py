"""The repository itself: what a fresh clone holds, and what its test run tells a newcomer.

Not a spec page. A clone stays small (no file over 1 MB is tracked: a wheel or a capture
belongs in a cache, not in every clone forever), and ``make test`` ends with one line saying
which optional parts did not run here and how to enable each (optional_parts.py), even with
``-q``, which hides the report header.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT
from .support.optional_parts import summary_line

MAX_TRACKED_BYTES = 1024 * 1024


def tracked_files() -> list[str]:
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed: the tracked files cannot be listed")
    listed = subprocess.run([git, "ls-files", "-z"], cwd=ROOT, capture_output=True, timeout=60)
    if listed.returncode != 0:
        pytest.skip(f"not a git checkout ({listed.stderr.decode(errors='replace').strip()[:200]})")
    return [name for name in listed.stdout.decode("utf-8", "surrogateescape").split("\0") if name]


def test_no_tracked_file_is_over_1_mb() -> None:
    files = tracked_files()
    assert len(files) > 100  # the listing worked: the package, its tests, the notes
    sizes = {name: (ROOT / name).stat().st_size for name in files if (ROOT / name).is_file()}
    too_large = {name: size for name, size in sizes.items() if size > MAX_TRACKED_BYTES}
    assert too_large == {}, "tracked files over 1 MB (git rm them; caches hold downloads)"


# --- the line at the end of a run ------------------------------------------------------------------


def fake_program(folder: Path, name: str, prints: str) -> Path:
    path = folder / name
    path.write_text(f"#!/bin/sh\necho {prints}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.mark.skipif(os.name != "posix", reason="the stand-in node and npx are shell scripts")
def test_a_quiet_run_ends_saying_what_was_skipped_and_how_to_enable_it(tmp_path: Path) -> None:
    """Without the schema and with Node 20, `pytest -q` says so in its last line."""
    node = fake_program(tmp_path, "node", "v20.1.0")
    fake_program(tmp_path, "npx", "")  # present, so the test reaches its Node version check
    env = {**os.environ, "MCP_REF_NODE": str(node), "MCP_REF_SCHEMA": str(tmp_path / "schema.json"),
           "PATH": f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}"}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
                          "tests/interop/test_conformance_suite.py::test_the_conformance_suites_server_scenarios_against_our_endpoint"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    *_, line, counts = run.stdout.strip().splitlines()  # just above the counts, which -q still shows
    assert counts.startswith("2 skipped in ")  # (one run per requirement set: 2025-11-25, 2026-07-28)
    assert line == (f"optional parts skipped: schema checks ({tmp_path / 'schema.json'} is absent: put the "
                    "project's shared/ folder beside the clone, as ../shared); Node 22 peers, 2 tests (make peers "
                    "installs Node 22 in .peers where npm is present, or point MCP_REF_NODE at one)")


def test_the_line_names_each_part_once_with_its_count_and_counts_the_rest() -> None:
    schema = ROOT.parent / "shared" / "spec" / "2024-11-05" / "schema.json"
    reasons = ["needs Node.js 22 or later (found v20.1); point MCP_REF_NODE at one to run it"] * 2 + [
        "npx is not installed (Node.js and npm): the TypeScript peers cannot run here",
        f"the shared requirement list is absent ({schema.parent})",
        "not a git checkout", "needs Linux /proc to list processes"]
    assert summary_line(reasons, schema_present=False, schema_path=schema) == (
        "optional parts skipped: schema checks (../shared/spec/2024-11-05/schema.json is absent: put the project's "
        "shared/ folder beside the clone, as ../shared); Node 22 peers, 2 tests (make peers installs Node 22 in "
        ".peers where npm is present, or point MCP_REF_NODE at one); TypeScript peers, 1 test (install Node.js and "
        "npm (npx)); checks against the "
        "shared requirement list and spec pages, 1 test (put the project's shared/ folder beside the clone, as "
        "../shared); 2 other skips (pytest -rs says why)")
    assert summary_line([], schema_present=True, schema_path=schema) == "optional parts: none skipped"
