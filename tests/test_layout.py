"""The house a student reads: the spec at the top of mcp_ref/, the rest in rooms of their own.

Not one spec page: DESIGN.md's layout, kept true. A student who opens ``mcp_ref/`` sees one module
per spec page of 2024-11-05 that holds behaviour (its docstring names the page on a line
``Spec page: <page>``), the two faces, and three others (shared content shapes, the engine, the
demo server). One floor down, each module saying it is not a spec section: how it runs
(``machinery/``: threads, stdio, http), the Python conveniences (``functions/``), several
processes behind one endpoint (``scaleout/``) and the command line (``cli/``); the later
transport has a room of its own (``streamable_http/``, revision 2025-03-26), and the conformance
checker a package of its own beside the library (``mcp_ref_check/``). The engine stays small,
no module grows past what one sitting can read, and the library stays under 13,000 lines. The
tests mirror the code: each module has ``tests/<room>/test_<module>.py`` or is named in
``TESTED_ELSEWHERE`` with the test file that exercises it. The import arrows between the layers
are import-linter contracts (setup.cfg), checked here too so that `make test` fails when an
arrow goes the wrong way.
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
CHECKER = ROOT / "mcp_ref_check"
TESTS = ROOT / "tests"
SPEC_PAGE = re.compile(r"^Spec page: ([a-z0-9/_-]+)$", re.M)

# Every page of 2024-11-05 that holds behaviour, and the module that holds it.
PAGE_MODULES = {
    "basic/messages": {"messages"},
    "basic/lifecycle": {"lifecycle"},
    "basic/transports": {"stdio", "sse", "sse_client"},  # (and streamable_http/: the page of 2025-03-26)
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
ROOMS = ("machinery", "functions", "scaleout", "cli")  # not a spec section, any of them
LATER = "streamable_http"  # the transport of 2025-03-26, in a room of its own
REVISIONS = "revisions"  # the later revisions with a handshake, each a delta module, and their new pages
LIBRARY_LINES = 13_000

# The test folder of each room, and of the top of mcp_ref/ (pages; the faces and the engine).
TEST_ROOMS = {"machinery": "machinery", "functions": "functions", "scaleout": "scaleout", "cli": "cli",
              "streamable_http": "streamable_http", "revisions": "revisions"}
ENGINE_TESTS = FACES | {"session"}
# Modules without a test file of their own, and the test file that exercises them.
TESTED_ELSEWHERE = {
    "content.py": "pages/test_tools.py",  # the content shapes, in every tool's result
    "demo_server.py": "cli/test_main.py",  # mcp-ref demo and serve
    "cli/demo.py": "cli/test_main.py",
    "cli/inspect_cmd.py": "cli/test_habits.py",
    "cli/request_cmd.py": "cli/test_main.py",
    "revisions/wire_labels.py": "cli/test_explain.py",  # the explainer's labels of the later revisions
    "functions/convert.py": "functions/test_hints.py",  # JSON values to the types the hints ask for
    "functions/decorators.py": "pages/test_tools.py",  # @server.tool and its kin, in every page's tests
    "functions/kinds.py": "functions/test_signatures.py",
    "machinery/http/client_plumbing.py": "machinery/test_reach.py",
    "machinery/http/werkzeug_server.py": "pages/test_sse_client.py",
    "machinery/transport.py": "engine/test_reader.py",
    "scaleout/redis_relay.py": "scaleout/test_relay.py",
    "streamable_http/session_transport.py": "streamable_http/test_server_app.py",
}


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
    for room in [PACKAGE / name for name in ROOMS] + [CHECKER]:
        assert (room / "__init__.py").is_file(), f"{room.relative_to(ROOT)}/ is a package"
        for path in sorted(room.rglob("*.py")):
            text = docstring(path)
            assert text, f"{path.relative_to(ROOT)} has no docstring"
            if path.name != "__init__.py":
                assert "not a spec section" in text.lower().replace("\n", " "), (
                    f"{path.relative_to(ROOT)}: its docstring should say it is not a spec section")
            assert not SPEC_PAGE.search(text), f"{path.relative_to(ROOT)} declares a spec page: it belongs at the top"


def test_the_later_transport_is_a_room_of_its_own_that_names_its_revision() -> None:
    room = PACKAGE / LATER
    assert not (PACKAGE / f"{LATER}.py").exists() and (room / "__init__.py").is_file()
    for path in sorted(room.glob("*.py")):
        text = docstring(path)
        assert "2025-03-26" in text, f"{path.relative_to(ROOT)}: its docstring should name the revision it belongs to"
        if SPEC_PAGE.search(text):
            assert "https://modelcontextprotocol.io/specification/2025-03-26/basic/transports" in text


def test_each_later_revision_is_a_module_that_names_its_revision_and_its_new_pages_sit_beside_it() -> None:
    """The revisions room: one delta module per revision after 2024-11-05, whose
    docstring links its changelog; any other module is a page a revision brought, naming its
    spec page and that revision's URL; the room's __init__ lists them in reading order."""
    room = PACKAGE / REVISIONS
    deltas = {p.stem for p in room.glob("v2*.py")}
    assert deltas == {"v2025_03_26", "v2025_06_18", "v2025_11_25", "v2026_07_28"}
    for stem in sorted(deltas):
        revision = stem[1:].replace("_", "-")
        text = docstring(room / f"{stem}.py")
        assert f"https://modelcontextprotocol.io/specification/{revision}/changelog" in text, stem
        assert f"{stem}.py" in docstring(room / "__init__.py"), f"revisions/__init__.py should list {stem}.py"
    for path in sorted(p for p in room.glob("*.py") if p.stem not in deltas and p.name != "__init__.py"):
        text = docstring(path)
        pages = SPEC_PAGE.findall(text)
        assert pages, f"{path.relative_to(ROOT)}: a module of the revisions room is a delta or a page"
        assert re.search(rf"https://modelcontextprotocol.io/specification/20\d\d-\d\d-\d\d/{pages[0]}", text), path


def test_the_library_stays_under_its_line_budget() -> None:
    """The library a student reads (the later transport's room included) under 13,000 lines,
    the later revisions' room aside (issue 33); the checker, beside it, is not part of it."""
    lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in PACKAGE.rglob("*.py")
                if REVISIONS not in p.relative_to(PACKAGE).parts)
    assert lines < LIBRARY_LINES, f"mcp_ref/ is {lines} lines"


def test_the_tests_mirror_the_code() -> None:
    """Every module of mcp_ref/ has tests/<room>/test_<module>.py (a page's in tests/pages/, a
    face's or the engine's in tests/engine/), or is in TESTED_ELSEWHERE with a test file that
    exists; nothing in TESTED_ELSEWHERE has a test file of its own (then it leaves the list)."""
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name in ("__init__.py", "__main__.py"):
            continue
        relative = path.relative_to(PACKAGE).as_posix()
        room = relative.split("/")[0] if "/" in relative else None
        if room is None:
            folder = "engine" if path.stem in ENGINE_TESTS else "pages"
        else:
            folder = TEST_ROOMS[room]
        own = TESTS / folder / f"test_{path.stem}.py"
        elsewhere = TESTED_ELSEWHERE.get(relative)
        if own.is_file():
            assert elsewhere is None, f"{relative} has {own.relative_to(ROOT)}: take it out of TESTED_ELSEWHERE"
        elif elsewhere is None:
            missing.append(f"{relative}: no {own.relative_to(ROOT)}")
        else:
            assert (TESTS / elsewhere).is_file(), f"{relative}: TESTED_ELSEWHERE names tests/{elsewhere}, which is gone"
    assert not missing, "modules without tests: " + "; ".join(missing)


def test_every_test_file_is_in_a_room_and_every_helper_in_support_or_peers() -> None:
    """At the top of tests/ only the tests of the house itself (layout, README, examples,
    traceability, mutants, the walk, the repository); no helper beside them."""
    top = {p.name for p in TESTS.glob("*.py")}
    helpers = {name for name in top if not name.startswith("test_")} - {"__init__.py", "conftest.py", "mutants.py"}
    assert not helpers, f"helpers at the top of tests/ (they belong in tests/support/ or tests/peers/): {helpers}"
    for folder in [p for p in TESTS.iterdir() if p.is_dir() and not p.name.startswith((".", "__"))]:
        assert (folder / "__init__.py").is_file(), f"tests/{folder.name}/ has no __init__.py"
        assert docstring(folder / "__init__.py"), f"tests/{folder.name}/__init__.py should say what the folder holds"


def test_the_engine_is_small_and_no_module_is_long() -> None:
    engine = [p for p in PACKAGE.rglob("*.py") if re.search(r"^class Session\b", p.read_text(encoding="utf-8"), re.M)]
    assert [p.name for p in engine] == ["session.py"]
    # The engine grows only with what an engine must do: it stood at 400 lines until it learned to
    # say what arrived while a request waited in vain (issue 31); no module may pass 450.
    assert len(engine[0].read_text(encoding="utf-8").splitlines()) <= 430
    # The two faces may run to 480: each lists every option of its four ways to connect or serve, for
    # help() and editors, and the later revisions added options to each (issue 35).
    limit = {"client.py": 480, "server.py": 480}
    long = {str(p.relative_to(ROOT)): n for p in [*PACKAGE.rglob("*.py"), *CHECKER.rglob("*.py")]
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > limit.get(p.name if p.parent == PACKAGE else "", 450)}
    assert not long, f"modules over their limit (450 lines; the faces 480): {long}"


def test_every_page_module_names_its_url() -> None:
    for page, names in PAGE_MODULES.items():
        for name in names:
            url = f"https://modelcontextprotocol.io/specification/2024-11-05/{page}"
            assert url in docstring(PACKAGE / f"{name}.py"), f"{name}.py should link {url}"


@pytest.mark.skipif(shutil.which("lint-imports", path=str(Path(sys.executable).parent)) is None,
                    reason="import-linter is not installed (the test and lint extras install it)")
def test_the_import_contracts_hold() -> None:
    """The layers of setup.cfg: the command line on top, then the demo server, the faces, the
    pages, the Python side, the later transport, the transports, the engine, the base protocol
    it keeps, content, scale-out, machinery and messages at the bottom; the library never
    imports the checker or the command line; no circle anywhere."""
    proc = subprocess.run([str(Path(sys.executable).parent / "lint-imports"), "--no-cache"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]


def test_each_lab_sends_the_student_into_the_library_module_of_its_page() -> None:
    """Each lab's "Read first" names the mcp_ref module that implements its page, and that module exists."""
    labs = sorted((ROOT / "course").glob("lab*/README.md"))
    assert len(labs) == 8  # lab 8 (optional) included
    for readme in labs:
        text = readme.read_text(encoding="utf-8")
        read_first = text.split("## Read first", 1)[1].split("\n## ", 1)[0]
        named = re.findall(r"`(mcp_ref/[\w/]+\.py)`", read_first)
        assert named, f"{readme.relative_to(ROOT)}: its Read first names no mcp_ref module"
        for module in named:
            assert (ROOT / module).is_file(), f"{readme.relative_to(ROOT)} names {module}, which does not exist"
        assert any(SPEC_PAGE.search(docstring(ROOT / m)) for m in named), (
            f"{readme.relative_to(ROOT)}: none of {named} is a page module")
