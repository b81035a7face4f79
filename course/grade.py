"""Grade the labs: run each lab's check command, exactly as its README gives it, on your copy of the lab.

Not a spec section: the course's grader (course/README.md, "Grading").

    .venv/bin/python course/grade.py --start 2      copy lab 2's starter to course/work/, your own copy
    .venv/bin/python course/grade.py 2              grade your copy of lab 2: what fails, and why
    .venv/bin/python course/grade.py                every lab you started
    .venv/bin/python course/grade.py 2 -v           also every case that passed, with the kit's notes
    .venv/bin/python course/grade.py --solutions    the reference solutions instead (a sanity check)
    .venv/bin/python course/grade.py --starters     the starters as committed (what `make test` checks)

1. You work in ``course/work/labNN-.../starter.py``, a copy of the lab's starter that ``--start``
   makes and git ignores: the files of the course stay as they are, so doing the labs never
   changes what ``make test`` checks. ``--work DIR`` puts the copies somewhere else.
2. A lab's README holds its check command in the first ``sh`` block under "## Check your work":
   the line that starts with ``.venv/bin/mcp-ref check``. A line there that starts with
   ``.venv/bin/python course/`` is a server to start first (the HTTP lab): it is started with
   ``--port 0``, must print ``serving on URL``, and the check is pointed at that URL.
3. The command runs from the repository's root, with ``.venv/bin/`` meaning the folder of the
   Python running this script, the program graded put in place of ``course/work/...``, and
   ``--json`` added so every case can be read back with its findings, and ``--protocol-version
   2024-11-05``: the labs teach that revision, and the kit grades a peer at the one it agrees on.
4. For each case that fails, the grade shows what the kit sent, what came back, which rule that
   breaks (its ID, and the rule in one line), and where to read more: ``mcp-ref spec ID``, and
   the TODO of your file that the README's steps tie to that case or ID. When the kit could not
   even start a session (exit status 2: no answer to ``initialize``), the grade shows why, and
   the TODOs of the IDs that reason names.
5. The same program gets the same grade on every machine and every run: the check runs with a
   fixed environment (``graded_environment``): no ``PYTHON*`` variable of yours reaches it
   (``PYTHONUNBUFFERED=1``, set by PyCharm and many container images, would flush a server's
   output that the lab's own code must flush), a UTF-8 locale (``C.UTF-8``) with Python's standard
   streams in strict UTF-8 (``PYTHONIOENCODING=utf-8:strict``, as in a desktop's UTF-8 locale),
   and a fixed ``PYTHONHASHSEED``.
6. Then the lab's own lessons run (course/lessons.py): what the lab asks beyond what the kit can
   fail in every server (lab 3: exit when stdin closes; lab 4: isError for read_note's failure,
   -32602 for arguments that break a schema). Each talks to your program as a client does and
   gives a case shaped as the kit's, shown the same way. They run only when the kit got a
   session with your program (not when it exits with status 2).
7. A lab passes when its command exits 0 and every lesson of the lab passes. Exit status: 0 when
   every lab graded passed.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lessons  # course/lessons.py, beside this file

COURSE = Path(__file__).resolve().parent
ROOT = COURSE.parent
WORK = COURSE / "work"
VENV_BIN = ".venv/bin/"
COURSE_REVISION = "2024-11-05"  # the revision the labs teach, and the one the kit grades them at
ID = re.compile(r"\b[A-Z]{2,6}-\d{2}\b")
CASE = re.compile(r"`((?:[a-z]+|lab\d{2})\.[a-z0-9-]+)`")  # a case of the kit, or a lesson (lab04.name)
URL = re.compile(r"serving on (http://\S+)")
TODO_STEP = re.compile(r"^\d+\. \*\*TODO (\d+)\*\* \(([^)]*)\):(.*?)(?=^\d+\. |^\S|\n\n|\Z)", re.M | re.S)


@dataclass
class Todo:
    """One numbered TODO of a lab, as the README's steps describe it."""

    number: int
    ids: list[str]  # the requirement IDs the step names
    cases: list[str]  # the kit's cases that grade it, as the step names them


@dataclass
class Lab:
    """One lab, as its README describes it."""

    number: int
    folder: Path
    title: str
    check: str  # the check command, as written in the README
    server: str | None  # a server to start first, as written in the README
    ids: list[str] = field(default_factory=list)  # every requirement ID the README names
    todos: list[Todo] = field(default_factory=list)

    @property
    def starter(self) -> Path:
        return self.folder / "starter.py"

    @property
    def solution(self) -> Path:
        return COURSE / "solutions" / (self.folder.name.replace("-", "_") + ".py")

    def work(self, work: Path = WORK) -> Path:
        """The learner's own copy of the starter (made by ``--start``)."""
        return work / self.folder.name / "starter.py"

    @property
    def graded_path(self) -> str:
        """The program the README's commands run: the learner's copy, relative to the root."""
        return str(self.work().relative_to(ROOT))

    def todos_for(self, case: str, req_id: str, case_ids: tuple[str, ...] | list[str] = ()) -> list[int]:
        """The TODOs a failing case points at: those whose step names the case, else its ID. A finding
        on an ID that is neither the case's (``case_ids``) nor the step's (a framing slip seen by an
        id case, say) goes by its ID alone."""
        named = [todo.number for todo in self.todos if case in todo.cases
                 and (not case_ids or req_id in case_ids or req_id in todo.ids)]
        return named or [todo.number for todo in self.todos if req_id in todo.ids]


def check_block(readme: str) -> list[str]:
    """The command lines of the first sh block under "## Check your work"."""
    section = readme.split("## Check your work", 1)
    if len(section) < 2:
        return []
    block = re.search(r"```sh\n(.*?)```", section[1], re.S)
    return [line.strip() for line in block.group(1).splitlines()] if block else []


def todos_of(readme: str) -> list[Todo]:
    """The steps "N. **TODO N** (IDs): ... `case.name` ..." of a README."""
    return [Todo(int(m.group(1)), ID.findall(m.group(2)), CASE.findall(m.group(3))) for m in TODO_STEP.finditer(readme)]


def labs() -> list[Lab]:
    """Every lab of the course, in order."""
    found = []
    for folder in sorted(COURSE.glob("lab[0-9][0-9]-*")):
        readme = (folder / "README.md").read_text(encoding="utf-8")
        lines = check_block(readme)
        check = next((line for line in lines if line.startswith(VENV_BIN + "mcp-ref check")), None)
        if check is None:
            raise ValueError(f"{folder.name}/README.md has no check command under '## Check your work'")
        server = next((line for line in lines if line.startswith(VENV_BIN + "python course/")), None)
        title = readme.splitlines()[0].lstrip("# ").strip()
        ids = sorted(set(ID.findall(readme)), key=readme.index)
        found.append(Lab(int(folder.name[3:5]), folder, title, check, server, ids, todos_of(readme)))
    return found


@dataclass
class Outcome:
    """What one run of a lab's check gave."""

    lab: Lab
    program: Path
    exit_code: int
    output: str
    cases: list[dict[str, Any]]  # from the kit's --json report: name, ids, status, findings, notes...
    reason: str | None = None  # why the kit could not run at all (exit status 2), from its --json report
    lessons_not_run: str | None = None  # why the lab's lessons were not run (the kit got no session)

    @property
    def passed(self) -> bool:
        return self.exit_code == 0

    @property
    def strict(self) -> bool:
        return "--strict" in self.lab.check.split()

    @property
    def failed(self) -> list[dict[str, Any]]:
        """The cases that make the lab fail (WARN too when the command has --strict)."""
        bad = ("FAIL", "ERROR") + (("WARN",) if self.strict else ())
        return [case for case in self.cases if case["status"] in bad]

    def count(self, status: str) -> int:
        return sum(case["status"] == status for case in self.cases)


def shown_path(path: Path) -> str:
    """A path as the commands show it: relative to the repository's root when it is inside it."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path.resolve())


def argv_of(line: str, lab: Lab, program: Path) -> list[str]:
    """A README command line as an argument list for this Python's venv, grading ``program``."""
    line = line.replace(lab.graded_path, shown_path(program))
    bin_folder = str(Path(sys.executable).parent) + "/"
    if " " in bin_folder or " " in shown_path(program):
        raise ValueError(f"the grader cannot run from a folder with spaces in its name: {bin_folder}")
    return shlex.split(line.replace(VENV_BIN, bin_folder), comments=True)


def graded_environment() -> dict[str, str]:
    """The environment the check, and so the graded program, runs in: yours without any PYTHON*
    variable (PYTHONUNBUFFERED, PYTHONIOENCODING, PYTHONUTF8... change how a program's output is
    buffered and encoded, and a grade must not depend on them), in a UTF-8 locale, with strict
    UTF-8 on the standard streams and a fixed hash seed (the order of a set of strings is then the
    same in every run)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("PYTHON")}
    # utf-8:strict, as in a desktop's UTF-8 locale: in the C locale Python would read stdin with
    # surrogateescape, and a server that reads text would survive bytes that are not UTF-8 only here.
    env.update({"LC_ALL": "C.UTF-8", "LANG": "C.UTF-8", "PYTHONIOENCODING": "utf-8:strict", "PYTHONHASHSEED": "0"})
    return env


def start_server(argv: list[str], timeout: float) -> tuple[subprocess.Popen[str], str]:
    """Start the lab's server on a free port; return it and the URL it says it serves on."""
    if "--port" in argv:
        argv[argv.index("--port") + 1] = "0"
    process = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, env=graded_environment())
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in process.stdout or []:
            lines.put(line)
        lines.put("")  # end of output: the server exited

    threading.Thread(target=read, daemon=True).start()
    try:
        while line := lines.get(timeout=timeout):
            found = URL.search(line)
            if found:
                return process, found.group(1)
    except queue.Empty:
        pass
    stop(process)
    raise RuntimeError(f"the server did not print 'serving on URL' (within {timeout:g} s): {' '.join(argv)}")


def stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    try:
        process.wait(5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)


def run(lab: Lab, program: Path, timeout: float = 120.0, verbose: bool = False) -> Outcome:
    """Run ``lab``'s check command on ``program`` (the learner's copy, the starter or a solution)."""
    argv = argv_of(lab.check, lab, program)
    server = None
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report.json"
        at = argv.index("check") + 2  # after "check server" or "check client"
        # The labs teach 2024-11-05: the kit speaks it alone, so a grade never depends on what a
        # later revision changed (the kit grades at the revision it agrees on: --protocol-version).
        argv[at:at] = ["--json", str(report), "--protocol-version", COURSE_REVISION] + (["-v"] if verbose else [])
        try:
            if lab.server is not None:
                server, url = start_server(argv_of(lab.server, lab, program), timeout=15.0)
                argv[argv.index("--sse") + 1] = url
            done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                                  env=graded_environment())
        finally:
            if server is not None:
                stop(server)
        written = json.loads(report.read_text(encoding="utf-8")) if report.exists() else {}
    outcome = Outcome(lab, program, done.returncode, done.stdout + done.stderr, written.get("cases", []),
                      written.get("reason"))
    add_lessons(outcome, argv)
    return outcome


def add_lessons(outcome: Outcome, check: list[str]) -> None:
    """Run the lab's lessons (course/lessons.py) on the program the check started (its --stdio
    command), in the same environment, and add each as a case; a failed lesson fails the lab. Not
    when the kit could not get a session: its reason is then the grade."""
    chosen = lessons.LESSONS.get(outcome.lab.number, [])
    if not chosen:
        return
    if outcome.reason is not None or outcome.exit_code not in (0, 1):
        names = ", ".join(lesson.name for lesson in chosen)
        outcome.lessons_not_run = f"this lab's own checks ({names}) were not run: they need a session with your " \
                                  "program, which the kit could not get (see above)"
        return
    argv = shlex.split(check[check.index("--stdio") + 1])
    found = [lesson.run(argv, graded_environment(), str(ROOT)) for lesson in chosen]
    outcome.cases += found
    if outcome.exit_code == 0 and any(case["status"] != "PASS" for case in found):
        outcome.exit_code = 1


# --- what a learner reads --------------------------------------------------------------------------


MAX_SHOWN = 6  # findings shown per case (-v shows them all)


def feedback(outcome: Outcome) -> list[str]:
    """The lines that explain a failing lab: each failing case with what was sent and what came back,
    then, once per rule it breaks, the rule in one line and where to read more. When the kit could
    not run at all, why, and the rules that reason names."""
    lab, program = outcome.lab, shown_path(outcome.program)
    lines = []
    if outcome.reason is not None and not outcome.cases:
        lines.append(f"  the kit could not start a session with your program: {outcome.reason}")
        for req_id in dict.fromkeys(ID.findall(outcome.reason)):
            lines += rule_lines(lab, program, None, req_id, summary_of(req_id))
        if outcome.lessons_not_run:
            lines.append(f"  {outcome.lessons_not_run}")
        return lines
    for case in outcome.failed:
        lines += case_lines(lab, program, case)
    return lines


def case_lines(lab: Lab, program: str, case: dict[str, Any], shown: int = MAX_SHOWN) -> list[str]:
    """One failing case (the kit's, or a lesson's): its findings with what was sent and what came
    back (the first ``shown``), the rules they break, and its notes."""
    lines = []
    findings = [f for f in case["findings"] if f["level"] != "MAY"]
    todos = sorted({n for f in findings for n in lab.todos_for(case["name"], f["id"], case["ids"])})
    lines.append(f"  {case['status']}  {case['name']}" + (f"  (TODO {', '.join(map(str, todos))})" if todos else ""))
    if case["status"] == "ERROR":
        lines.append(f"    the checker itself failed, not your program: {case['detail']}")
    for finding in findings[:shown]:
        lines.append(f"    {finding['id']} ({finding['level']}): {finding['message']}")
        if finding.get("headers"):
            lines.append("      headers sent: " + ", ".join(f"{k}: {v}" for k, v in finding["headers"].items()))
        for label in ("sent", "got"):
            if finding.get(label) is not None:
                lines.append(f"      {label + ':':<5} {shorten(finding[label])}")
    if len(findings) > shown:
        lines.append(f"    ... and {len(findings) - shown} more of the same case (-v shows them)")
    for req_id, rule in dict.fromkeys((f["id"], f["rule"]) for f in findings):
        lines += rule_lines(lab, program, case["name"], req_id, rule, case["ids"])
    for note in case.get("notes", []):
        lines.append(f"    note: {note}")
    return lines


def rule_lines(lab: Lab, program: str, case: str | None, req_id: str, rule: str,
               case_ids: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The rule a finding breaks, in one line, and where to read more: ``mcp-ref spec ID`` and the
    TODO the README's steps tie to the case or the ID (``case`` None: a reason the kit could not
    start, which names no case). When no TODO is about the ID, the code the starter gives does it."""
    todo = pointed_todos(lab, case, req_id, case_ids)
    if todo:
        where = f", and TODO {', '.join(map(str, todo))} in {program}"
    elif case is None and lab.todos_for("", req_id):  # several TODOs share the ID: the reason says which part
        where = " (the reason above says what to look at)"
    elif req_id in lab.ids:
        where = f" (no TODO of this lab is about {req_id}: the code the starter gives does it, so compare yours with it)"
    else:
        where = ""
    return [f"    rule {req_id}: {rule}", f"      read: {VENV_BIN}mcp-ref spec {req_id}{where}"]


def pointed_todos(lab: Lab, case: str | None, req_id: str, case_ids: list[str] | tuple[str, ...] = ()) -> list[int]:
    """The TODOs a grade points at for ``req_id``: those tied to the case (or to the ID); for a
    reason that names no case, the one TODO whose step names the ID, if only one does."""
    if case is not None:
        return lab.todos_for(case, req_id, case_ids)
    todos = lab.todos_for("", req_id)
    return todos if len(todos) == 1 else []


def summary_of(req_id: str) -> str:
    """A requirement's one-line summary, from the index that comes with the kit."""
    from mcp_ref_check import requirements

    try:
        return str(requirements.get(req_id).summary)
    except (KeyError, LookupError, ValueError):
        return "(not in the requirement index)"


def unjudged(outcome: Outcome) -> list[str]:
    """What the kit saw and noted without grading it (no 2024-11-05 rule binds your program there):
    the notes of its informative cases that name a requirement, shown even when the lab passes;
    not those on a requirement a lesson of the lab graded (the lesson's verdict says it)."""
    graded = {req_id for case in outcome.cases if case.get("lesson") for req_id in case["ids"]}
    return [f"  note (not graded): {case['name']}: {note}" for case in outcome.cases
            if case.get("level") == "INFO" and not graded & set(case["ids"])
            for note in case.get("notes", []) if ID.match(note)]


def shorten(text: str, limit: int = 400) -> str:
    """A message as the grade shows it: cut at ``limit``, with Unicode's line breaks (legal inside
    a JSON string, raw) escaped, so that one message stays on one line of the terminal."""
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def summary(outcome: Outcome, argv_hint: str) -> str:
    """How many cases passed and were skipped, and how to see them."""
    own = sum(case["status"] == "PASS" for case in outcome.cases if case.get("lesson"))
    return (f"  {outcome.count('PASS')} case(s) passed" + (f" ({own} of them this lab's own lessons)" if own else "") +
            f", {outcome.count('SKIP')} skipped (not this lab's, or not applicable); to see every case with its notes: "
            f"{argv_hint}")


def report(outcome: Outcome, verbose: bool, flags: str = "") -> None:
    lab = outcome.lab
    print(f"lab {lab.number:02d}  {'PASS' if outcome.passed else 'FAIL'}  {lab.title}")
    print(f"  graded: {shown_path(outcome.program)}")
    if verbose:
        print(outcome.output.rstrip())
        print("\n".join(lesson_lines(outcome)))
        return
    if not outcome.passed:
        lines = feedback(outcome)
        if not lines:  # no case to show: the check could not run (the reason is its last line)
            lines = ["  " + (outcome.output.strip().splitlines() or ["(no output)"])[-1]]
        print("\n".join(lines))
    if unjudged(outcome):
        print("\n".join(unjudged(outcome)))
    print(summary(outcome, f"{VENV_BIN}python course/grade.py {lab.number}{flags} -v"))


def lesson_lines(outcome: Outcome) -> list[str]:
    """With -v, after the kit's report: each lesson of the lab, passed or not, with its notes."""
    lessons_run = [case for case in outcome.cases if case.get("lesson")]
    if not lessons_run:
        return [f"  {outcome.lessons_not_run}"] if outcome.lessons_not_run else []
    lines = ["This lab's own checks (course/lessons.py), beyond what the kit can fail in every server:"]
    for case in lessons_run:
        if case["status"] != "PASS":
            lines += case_lines(outcome.lab, shown_path(outcome.program), case, shown=len(case["findings"]))
            continue
        lines.append(f"  PASS  {case['name']}: {case['summary']}")
        lines += [f"    note: {note}" for note in case["notes"]]
    return lines


def start(lab: Lab, work: Path) -> None:
    """Copy the lab's starter to the learner's own folder (never over their work)."""
    copy = lab.work(work)
    if copy.exists():
        print(f"lab {lab.number:02d}: already started, your file is {shown_path(copy)} (kept as it is; delete it "
              "to start again)")
        return
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(lab.starter, copy)
    print(f"lab {lab.number:02d}: your file is {shown_path(copy)} (a copy of {shown_path(lab.starter)}; git "
          f"ignores it). Read {shown_path(lab.folder / 'README.md')}, fix the TODOs, then grade it with "
          f"{VENV_BIN}python course/grade.py {lab.number}" + (f" --work {work}" if work != WORK else ""))


def main() -> int:
    parser = argparse.ArgumentParser(description="Grade the course's labs with mcp-ref check.")
    parser.add_argument("numbers", nargs="*", type=int, help="the labs (default: every lab you started)")
    parser.add_argument("--start", action="store_true", help="copy the starters of these labs to your work folder")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--solutions", action="store_true", help="grade the reference solutions instead")
    which.add_argument("--starters", action="store_true", help="grade the starters as committed")
    parser.add_argument("--work", type=Path, default=WORK, help="your work folder (default course/work)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print the kit's whole report, every case")
    args = parser.parse_args()
    every = labs()
    unknown = sorted(set(args.numbers) - {lab.number for lab in every})
    if unknown:
        print(f"grade.py: no lab {', '.join(map(str, unknown))} (the labs are 1 to {len(every)})", file=sys.stderr)
        return 2
    chosen = [lab for lab in every if not args.numbers or lab.number in args.numbers]
    if args.start:
        if not args.numbers:
            print("grade.py: --start needs the lab numbers, e.g. --start 2", file=sys.stderr)
            return 2
        for lab in chosen:
            start(lab, args.work)
        return 0
    if args.solutions or args.starters:
        programs = [(lab, lab.solution if args.solutions else lab.starter) for lab in chosen]
    else:
        programs = [(lab, lab.work(args.work)) for lab in chosen if lab.work(args.work).exists()]
        for lab in chosen:
            if not lab.work(args.work).exists():
                print(f"lab {lab.number:02d}  not started: {VENV_BIN}python course/grade.py --start {lab.number} "
                      f"makes your copy")
        if not programs:
            return 0 if not args.numbers else 1
    all_passed = True
    for lab, program in programs:
        outcome = run(lab, program, verbose=args.verbose)
        all_passed &= outcome.passed
        flags = " --solutions" if args.solutions else " --starters" if args.starters else ""
        if args.work != WORK:
            flags += f" --work {args.work}"
        report(outcome, args.verbose, flags)
    return 0 if all_passed else 1


if __name__ == "__main__":
    sys.exit(main())
