"""The mutants (tests/mutants.py) stay true: each still applies to the code as it is, every MUST
requirement with code has one, each names a test its note names, and a fixed sample of them is
killed on every run. ``make mutants`` runs them all.

Not a spec page of its own: it checks that the tests spec_notes names for a requirement fail
when that requirement's code is taken away.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_ref_check import indexes, notes

from .conftest import ROOT
from .mutants import MUTANTS, copy_repository, run_mutant

ROWS = notes.read_notes(ROOT / "spec_notes")
REQUIREMENTS = indexes.everything()  # the MUSTs of every revision's index have mutants too

# Spread over the pages, each with a quick test; among them requirements whose tests once let
# their mutant survive (MSG-08, PAG-07, PING-01, ROOT-05).
SAMPLE = ["MSG-08", "PAG-07", "PING-01", "ROOT-05", "LC-08", "TOOL-08", "PROG-15", "RES-15", "AR-01", "CMP-12"]


def test_every_mutation_still_applies_to_exactly_one_place() -> None:
    stale = [(m.name, original) for m in MUTANTS for original, _ in m.changes
             if (ROOT / m.file).read_text(encoding="utf-8").count(original) != 1]
    assert not stale, f"mutants whose original text is gone or ambiguous (update tests/mutants.py): {stale}"
    assert all(original != replacement for m in MUTANTS for original, replacement in m.changes)


def test_every_mutated_file_is_still_python() -> None:
    """A mutant whose change breaks the syntax (say, its text matched the start of a longer line)
    could never be killed by its test: it would only be an error."""
    broken = []
    for m in MUTANTS:
        text = (ROOT / m.file).read_text(encoding="utf-8")
        for original, replacement in m.changes:
            text = text.replace(original, replacement, 1)
        try:
            compile(text, m.file, "exec")
        except SyntaxError as exc:
            broken.append((m.name, f"line {exc.lineno}: {exc.msg}"))
    assert not broken, f"mutants that do not compile (update tests/mutants.py): {broken}"


def test_every_must_requirement_with_code_has_a_mutant() -> None:
    with_code = {i for row in ROWS if row.code for i in row.ids}
    must = {i for i in with_code if REQUIREMENTS[i].strength == "MUST"}
    assert len(must) > 70
    missing = sorted(must - {m.id for m in MUTANTS})
    assert not missing, f"MUST requirements whose note names code but which have no mutant: {missing}"


def test_each_mutant_names_a_test_its_note_names() -> None:
    """So ``mcp-ref spec ID`` lists, under "proved by", a test that really fails without the code."""
    wrong = []
    for m in MUTANTS:
        named = {test for row in ROWS if m.id in row.ids for test in row.tests}
        if m.test.split("[")[0] not in named:
            wrong.append((m.id, m.test, sorted(named)))
    assert not wrong, f"(ID, mutant's test, tests the note names): {wrong}"


@pytest.mark.parametrize("requirement_id", SAMPLE)
def test_a_sample_of_mutants_is_killed(requirement_id: str, tmp_path: Path) -> None:
    (mutant,) = [m for m in MUTANTS if m.id == requirement_id][:1]
    outcome = run_mutant(mutant, copy_repository(tmp_path / "copy"))
    assert outcome.status == "killed", (
        f"{mutant.id}: with {mutant.original!r} replaced by {mutant.replacement!r} in {mutant.file}, "
        f"{mutant.test} {outcome.status}:\n{outcome.detail}")
