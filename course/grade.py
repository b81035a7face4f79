"""Grade the labs: run each lab's check command, exactly as its README gives it, and report.

Not a spec section: the course's grader (course/README.md, "Grading").

    .venv/bin/python course/grade.py                every lab, on course/labNN-*/starter.py
    .venv/bin/python course/grade.py 2 3            labs 2 and 3 only
    .venv/bin/python course/grade.py --solutions    the reference solutions instead (a sanity check)
    .venv/bin/python course/grade.py -v             also print each check's whole report

1. A lab's README holds its check command in the first ``sh`` block under "## Check your work":
   the line that starts with ``.venv/bin/mcp-ref check``. A line there that starts with
   ``.venv/bin/python course/`` is a server to start first (the HTTP lab): it is started with
   ``--port 0``, must print ``serving on URL``, and the check is pointed at that URL.
2. The command runs from the repository's root, with ``.venv/bin/`` meaning the folder of the
   Python running this script, and ``--json`` added so the failed cases can be listed with
   their requirement IDs.
3. A lab passes when its command exits 0. Exit status: 0 when every lab graded passed.
"""

from __future__ import annotations

import argparse
import json
import queue
import re
import shlex
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

COURSE = Path(__file__).resolve().parent
ROOT = COURSE.parent
VENV_BIN = ".venv/bin/"
ID = re.compile(r"\b[A-Z]{2,5}-\d{2}\b")
URL = re.compile(r"serving on (http://\S+)")


@dataclass
class Lab:
    """One lab, as its README describes it."""

    number: int
    folder: Path
    title: str
    check: str  # the check command, as written in the README
    server: str | None  # a server to start first, as written in the README
    ids: list[str] = field(default_factory=list)  # every requirement ID the README names

    @property
    def starter(self) -> Path:
        return self.folder / "starter.py"

    @property
    def solution(self) -> Path:
        return COURSE / "solutions" / (self.folder.name.replace("-", "_") + ".py")


def check_block(readme: str) -> list[str]:
    """The command lines of the first sh block under "## Check your work"."""
    section = readme.split("## Check your work", 1)
    if len(section) < 2:
        return []
    block = re.search(r"```sh\n(.*?)```", section[1], re.S)
    return [line.strip() for line in block.group(1).splitlines()] if block else []


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
        found.append(Lab(int(folder.name[3:5]), folder, title, check, server, ids))
    return found


@dataclass
class Outcome:
    """What one run of a lab's check gave."""

    lab: Lab
    exit_code: int
    output: str
    cases: list[dict[str, Any]]  # from the kit's --json report: name, ids, status, detail, ...

    @property
    def passed(self) -> bool:
        return self.exit_code == 0

    @property
    def failed(self) -> list[dict[str, Any]]:
        return [case for case in self.cases if case["status"] in ("FAIL", "WARN", "ERROR")]


def argv_of(line: str, lab: Lab, solution: bool) -> list[str]:
    """A README command line as an argument list for this Python's venv (and the solution)."""
    if solution:
        line = line.replace(str(lab.starter.relative_to(ROOT)), str(lab.solution.relative_to(ROOT)))
    bin_folder = str(Path(sys.executable).parent) + "/"
    if " " in bin_folder:
        raise ValueError(f"the grader cannot run from a folder with spaces in its name: {bin_folder}")
    return shlex.split(line.replace(VENV_BIN, bin_folder), comments=True)


def start_server(argv: list[str], timeout: float) -> tuple[subprocess.Popen[str], str]:
    """Start the lab's server on a free port; return it and the URL it says it serves on."""
    if "--port" in argv:
        argv[argv.index("--port") + 1] = "0"
    process = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
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


def run(lab: Lab, solution: bool = False, timeout: float = 120.0) -> Outcome:
    """Run ``lab``'s check command on its starter (or on its reference solution)."""
    argv = argv_of(lab.check, lab, solution)
    server = None
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report.json"
        at = argv.index("check") + 2  # after "check server" or "check client"
        argv[at:at] = ["--json", str(report)]
        try:
            if lab.server is not None:
                server, url = start_server(argv_of(lab.server, lab, solution), timeout=15.0)
                argv[argv.index("--sse") + 1] = url
            done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        finally:
            if server is not None:
                stop(server)
        cases = json.loads(report.read_text(encoding="utf-8"))["cases"] if report.exists() else []
    return Outcome(lab, done.returncode, done.stdout + done.stderr, cases)


def main() -> int:
    parser = argparse.ArgumentParser(description="Grade the course's labs with mcp-ref check.")
    parser.add_argument("numbers", nargs="*", type=int, help="the labs to grade (default: all)")
    parser.add_argument("--solutions", action="store_true", help="grade the reference solutions instead")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each check's whole report")
    args = parser.parse_args()
    chosen = [lab for lab in labs() if not args.numbers or lab.number in args.numbers]
    all_passed = True
    for lab in chosen:
        outcome = run(lab, solution=args.solutions)
        all_passed &= outcome.passed
        print(f"lab {lab.number:02d}  {'PASS' if outcome.passed else 'FAIL'}  {lab.title}")
        for case in outcome.failed:
            print(f"         {case['status']}  {case['name']}  {' '.join(case['ids'])}")
        if outcome.failed == [] and not outcome.passed:
            print("         " + (outcome.output.strip().splitlines() or ["(no output)"])[-1])
        if args.verbose:
            print(outcome.output)
    return 0 if all_passed else 1


if __name__ == "__main__":
    sys.exit(main())
