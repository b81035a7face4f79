"""The house a student reads: the spec at the top of mcp_ref/, the rest in rooms of their own.

Not one spec page: DESIGN.md's layout, kept true. A student who opens ``mcp_ref/`` sees one module
per spec page that holds behaviour (its docstring names the page on a line ``Spec page: <page>``),
the two faces, and three others (shared content shapes, the engine, the demo server); how it
runs, the Python conveniences and the tooling are one floor down, each module saying it is not a
spec section. The engine stays small, and no module grows past what one sitting can read. The
import arrows between the layers are import-linter contracts (setup.cfg), checked here too so
that `make test` fails when an arrow goes the wrong way.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

PACKAGE = ROOT / "mcp_ref"
SPEC_PAGE = re.compile(r"^Spec page: ([a-z0-9/_-]+)$", re.M)

# Every page of 2024-11-05 that holds behaviour, and the module that holds it.
PAGE_MODULES = {
    "basic/messages": {"messages"},
    "basic/lifecycle": {"lifecycle"},
    "basic/transports": {"stdio", "sse", "sse_client"},  # (and streamable_http*.py: the page of 2025-03-26)
    "basic/utilities/ping": {"ping"},
    "basic/utilities/cancellation": {"cancellation"},
    "basic/utilities/progress": {"progress"},
    "server/tools": {"tools"},
    "server/resources": {"resources"},
    "server/prompts": {"prompts"},
    "server/utilities/logging": {"logs"},
    "server/utilities/pagination": {"pagination"},
    "server/utilities/completion": {"completion"},
    "client/sampling": {"sampling"},
    "client/roots": {"roots"},
}
FACES = {"client", "server"}
OTHERS = {"content", "session", "demo_server"}  # shared content shapes, the engine, the demo server
ROOMS = ("machinery", "python", "tooling")


def docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""


def top_modules() -> dict[str, Path]:
    return {p.stem: p for p in PACKAGE.glob("*.py") if p.stem not in ("__init__", "__main__")}


def test_each_page_has_its_module_at_the_top_and_says_so() -> None:
    modules = top_modules()
    declared: dict[str, set[str]] = {}
    for name, path in modules.items():
        for page in SPEC_PAGE.findall(docstring(path)):
            declared.setdefault(page, set()).add(name)
    for page, expected in PAGE_MODULES.items():
        assert expected <= declared.get(page, set()), f"{page} should be declared by {sorted(expected)}"
    pages = {name for names in declared.values() for name in names} - FACES
    strangers = set(modules) - pages - FACES - OTHERS
    assert not strangers, f"modules at the top of mcp_ref/ that are no spec page, face or one of {OTHERS}: {strangers}"
    assert len(OTHERS) <= 3


def test_the_rooms_below_hold_no_spec_page_and_say_so() -> None:
    for room in ROOMS:
        assert (PACKAGE / room / "__init__.py").is_file(), f"mcp_ref/{room}/ is a package"
        for path in sorted((PACKAGE / room).rglob("*.py")):
            text = docstring(path)
            assert text, f"{path.relative_to(ROOT)} has no docstring"
            if path.name != "__init__.py":
                assert "not a spec section" in text.lower().replace("\n", " "), (
                    f"{path.relative_to(ROOT)}: its docstring should say it is not a spec section")
            assert not SPEC_PAGE.search(text), f"{path.relative_to(ROOT)} declares a spec page: it belongs at the top"


def test_the_engine_is_small_and_no_module_is_long() -> None:
    engine = [p for p in PACKAGE.rglob("*.py") if re.search(r"^class Session\b", p.read_text(encoding="utf-8"), re.M)]
    assert [p.name for p in engine] == ["session.py"]
    # The engine grows only with what an engine must do: it stood at 400 lines until it learned to
    # say what arrived while a request waited in vain (issue 31); no module may pass 450.
    assert len(engine[0].read_text(encoding="utf-8").splitlines()) <= 430
    long = {str(p.relative_to(ROOT)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 450}
    assert not long, f"modules over 450 lines: {long}"


def test_every_page_module_names_its_url() -> None:
    for page, names in PAGE_MODULES.items():
        for name in names:
            url = f"https://modelcontextprotocol.io/specification/2024-11-05/{page}"
            assert url in docstring(PACKAGE / f"{name}.py"), f"{name}.py should link {url}"


@pytest.mark.skipif(shutil.which("lint-imports", path=str(Path(sys.executable).parent)) is None,
                    reason="import-linter is not installed (the test and lint extras install it)")
def test_the_import_contracts_hold() -> None:
    """The layers of setup.cfg: tooling on top, then the demo server, the faces, the pages, the
    Python side, the transports, the engine, the base protocol it keeps, content, machinery and
    messages at the bottom; no circle anywhere."""
    proc = subprocess.run([str(Path(sys.executable).parent / "lint-imports"), "--no-cache"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]


def test_each_lab_sends_the_student_into_the_library_module_of_its_page() -> None:
    """Each lab's "Read first" names the mcp_ref module that implements its page, and that module exists."""
    labs = sorted((ROOT / "course").glob("lab*/README.md"))
    assert len(labs) == 7
    for readme in labs:
        text = readme.read_text(encoding="utf-8")
        read_first = text.split("## Read first", 1)[1].split("\n## ", 1)[0]
        named = re.findall(r"`(mcp_ref/[\w/]+\.py)`", read_first)
        assert named, f"{readme.relative_to(ROOT)}: its Read first names no mcp_ref module"
        for module in named:
            assert (ROOT / module).is_file(), f"{readme.relative_to(ROOT)} names {module}, which does not exist"
        assert any(SPEC_PAGE.search(docstring(ROOT / m)) for m in named), (
            f"{readme.relative_to(ROOT)}: none of {named} is a page module")
