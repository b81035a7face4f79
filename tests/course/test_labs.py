"""The lab course in course/ stays true: every lab's solution passes its check, every untouched
starter fails it for the lab's own reason, the READMEs name only what exists, and a learner's
work lives in a copy git ignores, so doing the labs never changes what these tests check.

Not a spec page: the course teaches the pages its labs name. Each check command is read from
the lab's README by course/grade.py and run exactly as a learner runs it (real subprocesses:
the learner's server or client, and the kit's checking peer).
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import mcp_ref
from mcp_ref_check import indexes, requirements

from ..conftest import ROOT

COURSE = ROOT / "course"


def _load_grader() -> ModuleType:
    if str(COURSE) not in sys.path:  # grade.py imports its neighbour lessons.py, as it does when run as a script
        sys.path.insert(0, str(COURSE))
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
CASE_NAME = re.compile(r"`((?:[a-z]+|lab\d{2})\.[a-z0-9-]+)`")  # a case of the kit, or a lab's lesson
PATH = re.compile(r"`((?:course|mcp_ref|examples|tests|spec_notes|benchmarks)/[\w./-]*)`")


def test_the_course_has_its_labs() -> None:
    assert [lab.number for lab in LABS] == list(range(1, len(LABS) + 1))
    assert 6 <= len(LABS) <= 8
    for lab in LABS:
        assert lab.starter.is_file() and lab.solution.is_file(), lab.folder.name
        runs = lab.check + " " + (lab.server or "")  # the HTTP lab starts its server first
        assert lab.graded_path in runs, f"{lab.folder.name}: the check does not run the learner's copy"
        assert lab.graded_path.startswith("course/work/"), lab.graded_path
        assert lab.check.startswith(".venv/bin/mcp-ref check "), lab.check


@pytest.mark.parametrize("name", BY_NAME)
def test_the_solution_passes_its_check_and_gets_the_same_grade_every_time(name: str) -> None:
    lab = BY_NAME[name]
    with ThreadPoolExecutor(3) as pool:  # three runs at once: a grade must not depend on timing
        outcomes = list(pool.map(lambda _: grade.run(lab, lab.solution, timeout=60), range(3)))
    outcome = outcomes[0]
    assert outcome.passed, outcome.output
    assert not [case for case in outcome.cases if case["status"] == "ERROR"], outcome.output
    tested = [case for case in outcome.cases if case["status"] == "PASS" and set(case["ids"]) & set(lab.ids)]
    assert tested, f"{name}: no case about the lab's own requirements ran:\n{outcome.output}"
    assert len({json.dumps(signature(each)) for each in outcomes}) == 1, "\n".join(each.output for each in outcomes)


def signature(outcome: Any) -> dict[str, Any]:
    """A grade as a learner reads it, minus what may honestly vary (times waited, the path of the
    graded copy): the exit status, the reason the kit could not run (if any), every case that did
    not pass or skip with its status and the IDs of its findings, and how many passed and skipped."""
    reason = (outcome.reason or "").replace(str(outcome.program), "PROGRAM")
    reason = reason.replace(str(Path(sys.executable).parent), "BIN").replace(str(ROOT), "ROOT")
    return {"exit": outcome.exit_code, "reason": re.sub(r"\d+(\.\d+)? s\b", "N s", reason) or None,
            "cases": {case["name"]: " ".join([case["status"], *sorted({f["id"] for f in case["findings"]})])
                      for case in outcome.cases if case["status"] not in ("PASS", "SKIP")},
            "passed": outcome.count("PASS"), "skipped": outcome.count("SKIP")}


@pytest.mark.parametrize("name", BY_NAME)
def test_the_untouched_starter_fails_for_the_labs_reason(name: str) -> None:
    lab = BY_NAME[name]
    outcome = grade.run(lab, lab.starter, timeout=60)
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
    assert promised == set(failing), f"{name}: the README says the starter fails {sorted(promised)}; it fails " \
                                     f"{sorted(failing)}"


@pytest.mark.parametrize("name", BY_NAME)
def test_each_todo_of_a_starter_names_the_requirements_its_readme_step_names(name: str) -> None:
    """A learner reads the TODO in the file and the step in the README: both say which rules it is about."""
    lab = BY_NAME[name]
    starter = lab.starter.read_text(encoding="utf-8")
    for todo in lab.todos:
        said = re.findall(rf"TODO {todo.number} \(([^)]*)\)", starter)
        assert said, f"{name}: the starter has no 'TODO {todo.number} (IDs)'"
        for text in said:
            assert grade.ID.findall(text) == todo.ids, f"{name}, TODO {todo.number}: the starter says {text!r}, " \
                                                         f"the README {todo.ids}"


@pytest.mark.parametrize("readme", READMES, ids=lambda path: path.parent.name)
def test_readmes_name_only_what_exists(readme: Path) -> None:
    text = readme.read_text(encoding="utf-8")
    for path in PATH.findall(text):
        if path.startswith("course/work/"):  # the learner's copies: made by `grade.py --start`
            starter = ROOT / "course" / path.removeprefix("course/work/")
            assert path == "course/work/" or (path.endswith("/starter.py") and starter.exists()), path
            continue
        assert (ROOT / path).exists(), f"{readme.relative_to(ROOT)} names {path}, which does not exist"
    for req_id in set(grade.ID.findall(text)):
        assert req_id in KNOWN_IDS, f"{readme.relative_to(ROOT)} names {req_id}, not in the index"
    pages = set(requirements.PAGES.values())
    for url in re.findall(r"https://modelcontextprotocol\.io/specification/[^\s)`>\"]*", text):
        assert url.split("#")[0] in pages or _later_page(url), f"{readme.relative_to(ROOT)} links {url}, not a spec page"
    for link in re.findall(r"\]\(([^)#:]+)\)", text):  # relative links between the course's pages
        assert (readme.parent / link).exists(), f"{readme.relative_to(ROOT)} links {link}, which does not exist"


# The IDs a README may name: the 2024-11-05 index, and (lab 8, optional) the later revisions'.
KNOWN_IDS = set(indexes.everything())
SPEC = ROOT.parent / "shared" / "spec"


def _later_page(url: str) -> bool:
    """A page of a later revision (lab 8 reads 2025-06-18's): one of mcp_ref's revisions, a page of
    the base or the revision's changelog or elicitation page; where ../shared/spec is present, a page
    of that revision's docs."""
    from mcp_ref.lifecycle import REVISIONS

    revision, _, page = url.split("#")[0].removeprefix("https://modelcontextprotocol.io/specification/").partition("/")
    if revision not in REVISIONS[1:]:
        return False
    docs = SPEC / revision / "docs"
    if docs.is_dir():
        return (docs / f"{page}.mdx").is_file() or (docs / page / "index.mdx").is_file()
    base = {url.removeprefix(requirements._SPEC_URL + "/") for url in requirements.PAGES.values()}
    return page in base | {"changelog", "client/elicitation"}


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


def grade_py(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(COURSE / "grade.py"), *args], capture_output=True, text=True,
                          timeout=90, cwd=ROOT)


def test_a_learner_starts_a_lab_in_a_copy_and_grade_py_explains_what_fails(tmp_path: Path) -> None:
    work = str(tmp_path / "work")
    assert "not started" in grade_py("2", "--work", work).stdout
    started = grade_py("--start", "2", "--work", work)
    copy = tmp_path / "work" / "lab02-stdio-server" / "starter.py"
    assert started.returncode == 0 and copy.read_text() == BY_NAME["lab02-stdio-server"].starter.read_text()
    copy.write_text(copy.read_text() + "\n# my work\n")
    assert "already started" in grade_py("--start", "2", "--work", work).stdout
    assert copy.read_text().endswith("# my work\n")  # starting again keeps the learner's work
    done = grade_py("2", "--work", work)
    out = done.stdout
    assert done.returncode == 1 and "lab 02  FAIL" in out, out + done.stderr
    # Each failing case: what went wrong, what was sent and what came back, the rule in one line,
    # where to read more (mcp-ref spec ID and the TODO of the learner's file), and how to see the rest.
    assert "FAIL  messages.unknown-method-is-32601  (TODO 5)" in out
    assert "FAIL  transports.stdout-carries-only-messages  (TODO 1)" in out
    assert "      sent: " in out and "      got:  " in out
    assert "    rule MSG-01: Shape every message as JSON-RPC 2.0" in out
    assert f"      read: .venv/bin/mcp-ref spec MSG-01, and TODO 5 in {copy}" in out
    assert f"to see every case with its notes: .venv/bin/python course/grade.py 2 --work {work} -v" in out
    verbose = grade_py("2", "--work", work, "-v").stdout
    assert "PASS  ping.ping-before-initialize" in verbose  # the passing cases, with -v


def test_the_course_readme_shows_a_failing_grade_as_grade_py_prints_it(tmp_path: Path) -> None:
    """course/README.md, "Grading": a lab 2 server that takes True for a valid id, graded."""
    work = tmp_path / "work"
    grade_py("--start", "2", "--work", str(work))
    copy = work / "lab02-stdio-server" / "starter.py"
    solution = BY_NAME["lab02-stdio-server"].solution.read_text()
    copy.write_text(solution.replace("(isinstance(value, int) and not isinstance(value, bool))", "isinstance(value, int)"))
    done = grade_py("2", "--work", str(work))
    printed = done.stdout.replace(str(copy), "course/work/lab02-stdio-server/starter.py").replace(f" --work {work}", "")
    readme = (COURSE / "README.md").read_text(encoding="utf-8")
    shown = readme.split("## Grading", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    assert printed == shown, printed


def test_grade_py_grades_the_committed_starters_and_the_solutions() -> None:
    assert "lab 02  FAIL" in grade_py("2", "--starters").stdout
    solved = grade_py("2", "--solutions")
    assert solved.returncode == 0 and "lab 02  PASS" in solved.stdout, solved.stdout


def test_the_learners_copies_are_ignored_by_git() -> None:
    """Doing the labs leaves `git status` clean and `make test` as it was: course/work/ is ignored."""
    probe = "course/work/lab02-stdio-server/starter.py"
    done = subprocess.run(["git", "check-ignore", "-q", probe], cwd=ROOT, capture_output=True, text=True, timeout=30)
    if done.returncode == 128:
        pytest.skip("not a git checkout")
    assert done.returncode == 0, f"{probe} is not ignored by git"


def test_every_case_a_step_names_is_in_the_kit() -> None:
    from mcp_ref_check.case_registry import all_client_cases, all_server_cases

    names = {case.name for case in all_server_cases() + all_client_cases()}
    names |= {lesson.name for lessons in grade.lessons.LESSONS.values() for lesson in lessons}  # course/lessons.py
    for lab in LABS:
        for todo in lab.todos:
            assert set(todo.cases) <= names, f"{lab.folder.name}, TODO {todo.number}: {set(todo.cases) - names}"


def test_each_lesson_is_its_labs_and_says_so() -> None:
    """course/lessons.py: a lesson is named in its lab's README (so a step can point at it), and each
    of its rules says it is what the lab asks, not a MUST of the spec."""
    for number, lessons in grade.lessons.LESSONS.items():
        lab = next(lab for lab in LABS if lab.number == number)
        readme = (lab.folder / "README.md").read_text(encoding="utf-8")
        for lesson in lessons:
            assert lesson.name.startswith(f"lab{number:02d}."), lesson.name
            assert f"`{lesson.name}`" in readme, f"{lab.folder.name}/README.md does not name {lesson.name}"
            assert set(lesson.ids) <= set(lab.ids), f"{lesson.name}: {lesson.ids} are not all the lab's IDs"
            for rule in lesson.rules.values():
                assert rule.startswith("this lab asks"), rule
