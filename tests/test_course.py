"""The lab course in course/ stays true: every lab's solution passes its check, every untouched
starter fails it for the lab's own reason, and the READMEs name only what exists.

Not a spec page: the course teaches the pages its labs name. Each check command is read from
the lab's README by course/grade.py and run exactly as a learner runs it (real subprocesses:
the learner's server or client, and the kit's checking peer).
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import mcp_ref
from mcp_ref.tooling import requirements

from .conftest import ROOT

COURSE = ROOT / "course"


def _load_grader() -> ModuleType:
    spec = importlib.util.spec_from_file_location("course_grade", COURSE / "grade.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


grade = _load_grader()
LABS = grade.labs()
BY_NAME = {lab.folder.name: lab for lab in LABS}
READMES = [COURSE / "README.md"] + [lab.folder / "README.md" for lab in LABS]
CASE_NAME = re.compile(r"`([a-z]+\.[a-z0-9-]+)`")
PATH = re.compile(r"`((?:course|mcp_ref|examples|tests|spec_notes|benchmarks)/[\w./-]*)`")


def test_the_course_has_its_labs() -> None:
    assert [lab.number for lab in LABS] == list(range(1, len(LABS) + 1))
    assert 6 <= len(LABS) <= 8
    for lab in LABS:
        assert lab.starter.is_file() and lab.solution.is_file(), lab.folder.name
        runs = lab.check + " " + (lab.server or "")  # the HTTP lab starts its server first
        assert str(lab.starter.relative_to(ROOT)) in runs, f"{lab.folder.name}: the check does not run the starter"
        assert lab.check.startswith(".venv/bin/mcp-ref check "), lab.check


@pytest.mark.parametrize("name", BY_NAME)
def test_the_solution_passes_its_check(name: str) -> None:
    lab = BY_NAME[name]
    outcome = grade.run(lab, solution=True, timeout=60)
    assert outcome.passed, outcome.output
    assert not [case for case in outcome.cases if case["status"] == "ERROR"], outcome.output
    tested = [case for case in outcome.cases if case["status"] == "PASS" and set(case["ids"]) & set(lab.ids)]
    assert tested, f"{name}: no case about the lab's own requirements ran:\n{outcome.output}"


@pytest.mark.parametrize("name", BY_NAME)
def test_the_untouched_starter_fails_for_the_labs_reason(name: str) -> None:
    lab = BY_NAME[name]
    outcome = grade.run(lab, solution=False, timeout=60)
    assert outcome.exit_code == 1, f"{name}: expected a failed check (1), not {outcome.exit_code}:\n{outcome.output}"
    strict = "--strict" in lab.check.split()
    failing = {case["name"]: case for case in outcome.cases
               if case["status"] == "FAIL" or (strict and case["status"] == "WARN")}
    ours = [case for case in failing.values() if set(case["ids"]) & set(lab.ids)]
    assert ours, f"{name}: the starter fails, but on none of the lab's IDs {lab.ids}:\n{outcome.output}"
    # The README says which cases the untouched starter fails: they must be among those it fails.
    readme = (lab.folder / "README.md").read_text(encoding="utf-8")
    said = next((p for p in readme.split("\n\n") if re.search(r"untouched\s+starter\s+fails", p)), "")
    promised = set(CASE_NAME.findall(re.split(r"untouched\s+starter\s+fails", said)[-1]))
    assert promised, f"{name}: the README does not say which cases the starter fails"
    named = {case["name"] for case in outcome.cases if case["status"] in ("FAIL", "WARN")}
    assert promised <= named, f"{name}: the README names {sorted(promised - named)}, which did not fail"


@pytest.mark.parametrize("readme", READMES, ids=lambda path: path.parent.name)
def test_readmes_name_only_what_exists(readme: Path) -> None:
    text = readme.read_text(encoding="utf-8")
    for path in PATH.findall(text):
        assert (ROOT / path).exists(), f"{readme.relative_to(ROOT)} names {path}, which does not exist"
    for req_id in set(grade.ID.findall(text)):
        assert req_id in requirements.REQUIREMENTS, f"{readme.relative_to(ROOT)} names {req_id}, not in the index"
    pages = set(requirements.PAGES.values())
    for url in re.findall(r"https://modelcontextprotocol\.io/specification/[^\s)`>\"]*", text):
        assert url.split("#")[0] in pages, f"{readme.relative_to(ROOT)} links {url}, not a 2024-11-05 page"
    for link in re.findall(r"\]\(([^)#:]+)\)", text):  # relative links between the course's pages
        assert (readme.parent / link).exists(), f"{readme.relative_to(ROOT)} links {link}, which does not exist"


@pytest.mark.parametrize("name", BY_NAME)
def test_the_reading_list_names_real_code(name: str) -> None:
    """Each name in a lab's "- mcp_ref:" reading item exists in a module that item names (or in mcp_ref)."""
    readme = (BY_NAME[name].folder / "README.md").read_text(encoding="utf-8")
    item = re.search(r"^- mcp_ref:(.*?)(?=^\S|^- |\n\n)", readme, re.M | re.S)
    assert item, f"{name}: the README has no '- mcp_ref:' reading item"
    modules = [importlib.import_module(f"mcp_ref.{module}") for module in re.findall(r"`mcp_ref/(\w+)\.py`", item[1])]
    assert modules, f"{name}: the reading item names no mcp_ref module"
    for dotted in re.findall(r"`([A-Za-z_][\w.]*)`", item[1]):
        assert any(_resolves(where, dotted) for where in [*modules, mcp_ref]), f"{name}: `{dotted}` is not in {modules}"


def _resolves(where: object, dotted: str) -> bool:
    for part in dotted.split("."):
        if not hasattr(where, part):
            return False
        where = getattr(where, part)
    return True


def test_the_course_readme_gives_lab_1s_own_check_command() -> None:
    text = (COURSE / "README.md").read_text(encoding="utf-8")
    assert BY_NAME["lab01-json-rpc-by-hand"].check in text.splitlines()
    assert "make demo" in text and "make test" in text


@pytest.mark.parametrize("answer, expected", [
    ("a\n", "lab06-canned-model says: (a canned model) You asked: 'What is MCP?'"),
    ("e\nIn my own words.\n", "lab06-canned-model says: In my own words."),
    ("r\n", "User rejected sampling request"),
])
def test_lab6_solution_lets_a_person_approve_edit_or_reject(answer: str, expected: str) -> None:
    """SAMP-01..04, which the kit cannot see: the person at the terminal decides."""
    lab = BY_NAME["lab06-sampling-client"]
    demo = f"{sys.executable} -m mcp_ref serve"
    done = subprocess.run([sys.executable, str(lab.solution), demo, "ask_model", '{"question": "What is MCP?"}'],
                          input=answer, capture_output=True, text=True, timeout=30, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout, done.stdout
    assert "[a]pprove, [e]dit, or [r]eject?" in done.stderr


def test_grade_py_reports_each_lab() -> None:
    done = subprocess.run([sys.executable, str(COURSE / "grade.py"), "2"], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "lab 02  FAIL" in done.stdout
    assert "FAIL  messages.unknown-method-is-32601  MSG-01" in done.stdout
