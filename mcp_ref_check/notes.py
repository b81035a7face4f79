"""Reading ``spec_notes/`` and finding where the code cites a requirement.

Not a spec section: the traceability tools behind ``mcp-ref spec`` and tests/test_traceability.py.

Every page of the spec has a note in ``spec_notes/`` (next to the package in a clone), with a
table per page section: requirement ID -> what we do -> the code that does it -> the tests that
prove it. This module reads those tables and answers three questions about an ID:

1. What do the notes say? ``read_notes()`` returns every row, with its ID cell expanded
   (``LC-16..18`` -> LC-16, LC-17, LC-18; ``PROG-03..05, 07`` -> PROG-03..05 and PROG-07), its
   code names (``Session.start_request``) and its tests (``tests/test_x.py::test_y``).
2. Where does the code cite it? ``citations(id)`` greps the package for the ID as a whole word
   and returns ``(path, line number, line)``; ``comment_citations()`` maps each ID to the
   ``# ID`` comments of the implementation (the index, the explainer's table and the checker,
   which name IDs without enforcing them, are left out).
3. Where is a code name? ``CodeIndex().locate("Session.start_request")`` finds a name the notes
   use, by reading the package's source (nothing is imported): a module (``messages.py``,
   ``lifecycle``), a top-level name, or an attribute of a class (a method, a class constant or
   an attribute set on ``self``).

The note tables are parsed by their header row: the ``ID`` column (or, in a table without one,
the IDs that open the first cell), ``code`` and ``test``. A cell that says ``same`` repeats the
row above; a test written ``::test_y`` is in the file named before it in the same cell.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the clone (or site-packages), holding both packages
PACKAGE = ROOT / "mcp_ref"  # the library, whose lines enforce the requirements
CHECKER = ROOT / "mcp_ref_check"  # this package: the index, the notes' reader, the checker

# Files of the library that name IDs without enforcing them: the explainer's table. (All of
# mcp_ref_check names IDs without enforcing them: the index, and the checker judging others.)
NOT_ENFORCING = ("cli/explain.py",)

_ID = r"[A-Z]{2,6}-\d{2}"
_ID_WORD = re.compile(rf"(?<![A-Za-z0-9-])({_ID})(?!\d)")
_ID_PART = re.compile(r"(?:([A-Z]{2,6})-)?(\d{2})(?:\.\.(?:[A-Z]{2,6}-)?(\d{2}))?")
_LEADING_IDS = re.compile(rf"^((?:{_ID}(?:\.\.\d{{2}})?(?:, ?)?)+)")
_TICKS = re.compile(r"`([^`]+)`")


@dataclass(frozen=True)
class NoteRow:
    """One row of a note's table."""

    note: str  # the note's file name, e.g. "basic-lifecycle.md"
    line: int
    ids: tuple[str, ...]
    text: str  # "what we do"
    code: tuple[str, ...]  # names as the note writes them: "Session.start_request", "messages.py"
    tests: tuple[str, ...]  # "tests/pages/test_lifecycle.py::test_phase_gate", or a whole file

    @property
    def where(self) -> str:
        return f"spec_notes/{self.note}:{self.line}"


def notes_directory() -> Path | None:
    """``spec_notes/`` beside the package (a clone or an editable install); None if absent."""
    path = ROOT / "spec_notes"
    return path if path.is_dir() else None


def expand_ids(cell: str) -> list[str]:
    """Every ID an ID cell names: ``"LC-16..18, VER-01"`` -> LC-16, LC-17, LC-18, VER-01.

    A bare number continues the prefix before it (``"PROG-03..05, 07"``); text that is not an
    ID (``"(no capability)"``) names nothing.
    """
    ids: list[str] = []
    prefix = ""
    for part in cell.split(","):
        match = _ID_PART.fullmatch(part.strip())
        if not match or not (match.group(1) or prefix):
            continue
        prefix = match.group(1) or prefix
        first, last = int(match.group(2)), int(match.group(3) or match.group(2))
        ids += [f"{prefix}-{n:02d}" for n in range(first, last + 1)]
    return ids


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split(" | ")]


def _tests(cell: str, previous: tuple[str, ...]) -> tuple[str, ...]:
    if cell.strip().lower().startswith("same"):
        return previous
    tests: list[str] = []
    current_file = ""
    for name in _TICKS.findall(cell):
        if name.startswith("::"):
            if current_file:
                tests.append(current_file + name)
            continue
        path, sep, test = name.partition("::")
        if not path.endswith(".py") or "." in path.removesuffix(".py").replace("/", ""):
            continue  # not a test: `conftest.TRANSPORTS`, a code name
        current_file = path if path.startswith("tests/") else f"tests/{path}"
        tests.append(current_file + sep + test)
    return tuple(tests)


def _code(cell: str, previous: tuple[str, ...]) -> tuple[str, ...]:
    if cell.strip().lower().startswith("same"):
        return previous
    return tuple(_TICKS.findall(cell))


def read_note(path: Path) -> list[NoteRow]:
    """The rows of every requirement table in one note."""
    rows: list[NoteRow] = []
    header: list[str] | None = None
    previous_code: tuple[str, ...] = ()
    previous_tests: tuple[str, ...] = ()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.startswith("|"):
            header = None
            continue
        cells = _cells(line)
        if header is None:
            header = [cell.lower() for cell in cells]
            continue
        if set(line.strip()) <= set("|-: "):
            continue
        row = dict(zip(header, cells, strict=False))  # a short row leaves cells out
        if "id" in row:
            ids = expand_ids(row["id"])
        else:
            leading = _LEADING_IDS.match(cells[0])
            ids = expand_ids(leading.group(1)) if leading else []
        code = _code(row.get("code", ""), previous_code)
        tests = _tests(row.get("test", ""), previous_tests)
        rows.append(NoteRow(path.name, number, tuple(ids), row.get("what we do", row.get("how", cells[0])), code, tests))
        previous_code, previous_tests = code, tests
    return rows


def read_notes(directory: Path | None = None) -> list[NoteRow]:
    """Every row of every page note (the checker's case table, ``checker.md``, and the walk of one
    call, ``walk-tools-call.md``, are not page notes)."""
    directory = directory or notes_directory()
    if directory is None:
        return []
    rows: list[NoteRow] = []
    for path in sorted(directory.glob("*.md")):
        if path.name not in ("README.md", "checker.md", "walk-tools-call.md"):
            rows += read_note(path)
    return rows


def rows_for(requirement_id: str, rows: list[NoteRow] | None = None) -> list[NoteRow]:
    """The note rows that name this ID."""
    return [row for row in (read_notes() if rows is None else rows) if requirement_id in row.ids]


# --- citations in the code -----------------------------------------------------------------------


def package_sources(package: Path = PACKAGE) -> Iterator[Path]:
    yield from sorted(package.rglob("*.py"))


def enforcing_sources(package: Path = PACKAGE) -> Iterator[Path]:
    """The implementation's modules: the package without the files that only name IDs."""
    for path in package_sources(package):
        relative = path.relative_to(package).as_posix()
        if not relative.startswith(NOT_ENFORCING):
            yield path


def citations(requirement_id: str, package: Path = PACKAGE) -> list[tuple[str, int, str]]:
    """Every line of the implementation naming the ID as a whole word: (path, number, line)."""
    found = []
    for path in enforcing_sources(package):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if requirement_id in _ID_WORD.findall(line):
                found.append((f"{package.name}/{path.relative_to(package).as_posix()}", number, line.strip()))
    return found


def comment_citations(package: Path = PACKAGE) -> dict[str, list[tuple[str, int]]]:
    """ID -> every ``# ...`` comment of the implementation that names it: (path, line)."""
    cited: dict[str, list[tuple[str, int]]] = {}
    for path in enforcing_sources(package):
        relative = f"{package.name}/{path.relative_to(package).as_posix()}"
        source = path.read_text(encoding="utf-8")
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                for found in _ID_WORD.findall(token.string):
                    cited.setdefault(found, []).append((relative, token.start[0]))
    return cited


# --- code names ----------------------------------------------------------------------------------


@dataclass
class _Module:
    path: Path
    names: dict[str, int] = field(default_factory=dict)  # top-level name -> line
    members: dict[str, dict[str, int]] = field(default_factory=dict)  # class -> member -> line


def _targets(node: ast.stmt) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return list(node.targets)
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        return [node.target]
    return []


def _read_module(path: Path) -> _Module:
    module = _Module(path)
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            module.names[node.name] = node.lineno
        for target in _targets(node):
            if isinstance(target, ast.Name):
                module.names[target.id] = node.lineno
        if isinstance(node, ast.ClassDef):
            members = module.members.setdefault(node.name, {})
            for item in ast.walk(node):
                if not isinstance(item, ast.stmt) or item is node:
                    continue
                if isinstance(item, (ast.FunctionDef, ast.ClassDef)):
                    members.setdefault(item.name, item.lineno)
                for target in _targets(item):
                    if isinstance(target, ast.Name):
                        members.setdefault(target.id, item.lineno)
                    elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                            and target.value.id == "self":
                        members.setdefault(target.attr, item.lineno)
    return module


class CodeIndex:
    """Where the names used by the notes are defined, read from the source of the library and
    of the checker (``lifecycle`` is mcp_ref/lifecycle.py; ``mcp_ref_check.wire`` is the checker's)."""

    def __init__(self, package: Path = PACKAGE, checker: Path = CHECKER):
        self.package, self.checker = package, checker

    @cached_property
    def modules(self) -> dict[str, _Module]:
        """Module name (``lifecycle``, ``machinery.threads.pool``, ``mcp_ref_check.wire``) -> its definitions."""
        found = {path.relative_to(self.package).with_suffix("").as_posix().replace("/", "."): _read_module(path)
                 for path in package_sources(self.package)}
        if self.checker.is_dir():
            found.update({path.relative_to(self.checker.parent).with_suffix("").as_posix().replace("/", "."):
                          _read_module(path) for path in package_sources(self.checker)})
        return found

    def locate(self, name: str) -> list[tuple[str, int]]:
        """Where ``name`` is defined: (path relative to the repository, line); [] if nowhere.

        ``name`` as the notes write it: ``messages.py``; ``lifecycle.negotiate_version``;
        ``Session._on_response``; ``ToolRegistry.add/remove`` (both); ``Client(roots=...)``
        (the class). Each part of a ``/`` list must be found.
        """
        name = name.split("(", 1)[0].strip()
        if name.endswith(".py"):  # machinery/threads/pool.py, or mcp_ref_check/wire.py
            if (self.package / name).is_file():
                return [(f"{self.package.name}/{name}", 1)]
            return [(name, 1)] if name.startswith(f"{self.checker.name}/") and (self.checker.parent / name).is_file() else []
        head, _, last = name.rpartition(".")
        found: list[tuple[str, int]] = []
        for part in last.split("/"):
            where = self._locate_one(f"{head}.{part}" if head else part)
            if not where:
                return []
            found += where
        return found

    def _locate_one(self, dotted: str) -> list[tuple[str, int]]:
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):  # the longest module prefix first: mcp_ref_check.wire.Wire
            module = self.modules.get(".".join(parts[:cut]))
            if module is not None:
                rest = parts[cut:]
                return self._in_module(module, rest) if rest else [(self._relative(module), 1)]
        return [where for module in self.modules.values() for where in self._in_module(module, parts)]

    def _in_module(self, module: _Module, parts: list[str]) -> list[tuple[str, int]]:
        if parts[0] not in module.names:
            return []
        line = module.names[parts[0]]
        if len(parts) == 2:
            line = module.members.get(parts[0], {}).get(parts[1], 0)
        elif len(parts) > 2:
            line = 0
        return [(self._relative(module), line)] if line else []

    def _relative(self, module: _Module) -> str:
        return module.path.relative_to(self.package.parent).as_posix()
