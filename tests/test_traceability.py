"""Traceability: every requirement ID has a note, every note points at code and tests that exist,
and the code cites each requirement it enforces.

Not a spec page of its own. The chain a reader follows is ID -> spec_notes row -> code (a
``# ID`` comment at the enforcing line) -> test. These tests fail when a link breaks: an ID
without a row, a row naming a function or a test that was renamed or deleted, an ID whose row
names code but whose code carries no ``# ID`` comment (or carries it in another file), and a
malformed ID cell. (IDs cited in the code but missing from the index: tests/check/test_requirements.py.)
Whether the named test really fails without the behaviour is the mutants' job (tests/mutants.py).
"""

from __future__ import annotations

import ast
import fnmatch
import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from mcp_ref_check import indexes, notes

from .conftest import ROOT

ROWS = notes.read_notes(ROOT / "spec_notes")
# Every index is held to the same rules: 2024-11-05 and each later revision's (indexes.py).
REQUIREMENTS = indexes.everything()


@cache
def functions_in(path: Path) -> frozenset[str]:
    """The names of every function defined in a test file (module level or in a class)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return frozenset(node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef))


def test_the_notes_were_read() -> None:
    assert len(ROWS) > 140
    assert sum(1 for row in ROWS if row.code) > 100 and sum(1 for row in ROWS if row.tests) > 100


@pytest.mark.parametrize(("cell", "ids"), [
    ("LC-08", ["LC-08"]),
    ("LC-16..18", ["LC-16", "LC-17", "LC-18"]),
    ("LC-04..06, LC-11", ["LC-04", "LC-05", "LC-06", "LC-11"]),
    ("PROG-03..05, 07, 12", ["PROG-03", "PROG-04", "PROG-05", "PROG-07", "PROG-12"]),
    ("SAMP-06, 10, 14..15", ["SAMP-06", "SAMP-10", "SAMP-14", "SAMP-15"]),
    ("(no capability)", []),
])  # fmt: skip
def test_id_cells_expand_ranges_and_bare_numbers(cell: str, ids: list[str]) -> None:
    assert notes.expand_ids(cell) == ids


def test_every_requirement_has_a_row() -> None:
    noted = {i for row in ROWS for i in row.ids}
    missing = [i for i in REQUIREMENTS if i not in noted]
    assert not missing, f"IDs without a row in spec_notes/: {missing}"


def test_every_id_in_a_row_is_in_the_index() -> None:
    unknown = [(row.where, i) for row in ROWS for i in row.ids if i not in REQUIREMENTS]
    assert not unknown, f"rows naming IDs the index does not know: {unknown}"


def test_every_code_name_in_a_row_exists() -> None:
    index = notes.CodeIndex()
    missing = [(row.where, name) for row in ROWS for name in row.code if not index.locate(name)]
    assert not missing, f"code named in spec_notes but not found in mcp_ref/ (renamed? qualify it): {missing}"


def test_every_test_in_a_row_exists() -> None:
    missing = []
    for row in ROWS:
        for test in row.tests:
            path, _, name = test.partition("::")
            if not (ROOT / path).is_file():
                missing.append((row.where, test))
            elif name and not fnmatch.filter(functions_in(ROOT / path), name.split("[")[0]):
                missing.append((row.where, test))
    assert not missing, f"tests named in spec_notes that do not exist: {missing}"


def test_every_id_whose_row_names_code_is_cited_in_a_comment_of_that_code() -> None:
    index = notes.CodeIndex()
    cited = notes.comment_citations()
    uncited, elsewhere = [], []
    for requirement_id in REQUIREMENTS:
        rows = [row for row in ROWS if requirement_id in row.ids and row.code]
        if not rows:
            continue
        places = {path for path, _ in cited.get(requirement_id, [])}
        files = {path for row in rows for name in row.code for path, _ in index.locate(name)}
        if not places:
            uncited.append(requirement_id)
        elif not places & files:
            elsewhere.append((requirement_id, sorted(files), sorted(places)))
    assert not uncited, f"IDs whose note names code, yet no `# ID` comment in mcp_ref/ cites them: {uncited}"
    assert not elsewhere, f"(ID, files the note names, files citing it): cite the ID where the note says: {elsewhere}"


def test_comment_citations_ignore_docstrings_and_the_files_that_only_name_ids() -> None:
    cited = notes.comment_citations()
    assert "LC-20" not in cited  # named in docstrings and notes only: it points at LC-13
    lines = (ROOT / "mcp_ref" / "lifecycle.py").read_text(encoding="utf-8").splitlines()
    comment = next(n for n, line in enumerate(lines, start=1) if line.strip().startswith("# LC-12: the proposal"))
    assert ("mcp_ref/lifecycle.py", comment) in cited["LC-12"]
    paths = {path for places in cited.values() for path, _ in places}
    only_naming = ("mcp_ref_check/requirements.py", "mcp_ref/cli/explain.py", "mcp_ref_check/")
    assert not {p for p in paths if p.startswith(only_naming)}


# --- mcp-ref spec ----------------------------------------------------------------------------------


def spec(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcp_ref", "spec", *args], capture_output=True, text=True,
                          timeout=60, cwd=cwd, env=env)


def test_the_streamable_http_index_is_in_the_notes_and_cited_in_its_modules() -> None:
    shttp = [i for i in REQUIREMENTS if i.startswith("SHTTP-")]
    rows = [row for row in ROWS if row.note == "basic-transports-streamable-http.md"]
    assert {i for row in rows for i in row.ids} == set(shttp)
    cited = notes.comment_citations()
    files = {path for requirement_id in shttp for path, _ in cited.get(requirement_id, [])}
    assert {"mcp_ref/streamable_http/server_app.py", "mcp_ref/streamable_http/client_transport.py"} <= files


def test_spec_of_an_id_says_what_it_is_where_the_code_cites_it_and_which_tests_prove_it() -> None:
    proc = spec("lc-08")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.splitlines()[:4] == [
        "LC-08  MUST  (client)",
        "page:      basic/lifecycle",
        "url:       https://modelcontextprotocol.io/specification/2024-11-05/basic/lifecycle",
        f"summary:   {REQUIREMENTS['LC-08'].summary}",
    ]
    cited = out.split("cited at:\n")[1].split("proved by:\n")[0].splitlines()
    for path, line in notes.comment_citations()["LC-08"]:
        source = (ROOT / path).read_text(encoding="utf-8").splitlines()[line - 1].strip()
        assert f"  {path}:{line}: {source}" in cited
    proved = out.split("proved by:\n")[1].split("checked by")[0].splitlines()
    assert "  tests/pages/test_lifecycle.py::test_phase_gate" in proved
    assert "client lifecycle.sends-initialized" in out.split("checked by (mcp-ref check):\n")[1]


def test_spec_of_a_page_lists_its_requirements() -> None:
    proc = spec("server/tools")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("server/tools  https://modelcontextprotocol.io/specification/2024-11-05/server/tools")
    base = lines[2:lines.index("", 2)]  # the 2024-11-05 rows, then each later revision's rows of the page
    assert [line.split()[0] for line in base] == [f"TOOL-{n:02d}" for n in range(1, 20)]
    later = proc.stdout.split("\n\n", 2)[2]
    assert "revision 2025-06-18, what it added or changed on this page:" in later and "OUT-03" in later
    unknown = spec("TOOL-8")
    assert unknown.returncode == 2 and "did you mean" in unknown.stderr and "server/tools" in unknown.stderr


def test_spec_without_spec_notes_says_so(tmp_path: Path) -> None:
    for package in ("mcp_ref", "mcp_ref_check"):  # the two packages of an installed mcp-ref, and no notes
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    proc = spec("TOOL-18", cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert "spec_notes/ is not beside this installed package" in proc.stdout
    assert "mcp_ref/tools.py:" in proc.stdout.split("cited at:\n")[1]


def test_docstrings_and_notes_point_at_nothing_outside_the_repository() -> None:
    """A clone alone must explain itself: no ``../shared/...``, no file that only the project's
    authors have (the requirement list, the design notes)."""
    outside = ("../shared", "shared/spec", "REQUIREMENTS-2024-11-05", "PITFALLS.md", "DESIGN.md", "STYLE.md")
    files = [*(ROOT / "mcp_ref").rglob("*.py"), *(ROOT / "spec_notes").glob("*.md")]
    found = [(str(path.relative_to(ROOT)), word) for path in files for word in outside
             if word in path.read_text(encoding="utf-8")]
    assert len(files) > 50 and not found, found
