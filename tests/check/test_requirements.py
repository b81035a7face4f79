"""The requirement index (mcp_ref_check/requirements.py) against the shared requirement list.

Not a spec page of its own. Where ../shared/spec/REQUIREMENTS-2024-11-05.md is present the
index must carry the same IDs in the same order, with the same levels, on the page of the
section each row sits in; where it is absent those tests skip and say so. The other tests
(summaries in our own words, lookups, cheap import, every cited ID known) need only the repo.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from mcp_ref_check import requirements
from mcp_ref_check.requirements import REQUIREMENTS, Requirement, get, on_page, search

from ..conftest import ROOT

SHARED = Path(__file__).resolve().parents[3] / "shared"
LIST_PATH = SHARED / "spec" / "REQUIREMENTS-2024-11-05.md"
DOCS = SHARED / "spec" / "2024-11-05" / "docs"
needs_list = pytest.mark.skipif(not LIST_PATH.is_file(), reason=f"the shared requirement list is absent ({LIST_PATH})")

# Every level the index uses: the list's keyword column, normalised as normalise_level() does.
LEVELS = {
    "MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY", "MUST/MAY", "MUST/MUST NOT", "MUST/SHOULD", "MAY/MUST",
    "SHOULD/MAY", "MUST (lowercase)", "MUST NOT (lowercase)", "SHOULD (lowercase)", "REQUIRES", "INFO",
}  # fmt: skip

# The list's Who column -> side, as the module docstring states it; and the rows it overrides.
SIDE_OF_WHO = {
    "Client": "client", "Host": "client", "Host/UI": "client", "Server": "server",
    "Both": "both", "Impl": "both", "Any": "both", "Sender": "both", "Responder": "both",
    "Requester": "both", "Receiver": "both", "Client/Server": "both", "—": "both",
}  # fmt: skip
SERVER_ONLY_IMPL_ROWS = {"CMP-08", "CMP-09", "CMP-10", "CMP-11", "LOG-16", "LOG-17", "LOG-18", "LOG-19"}


@dataclass
class Row:
    id: str
    kw: str
    who: str
    text: str
    src: str
    section: str
    section_pages: tuple[str, ...]


def page_of(doc_path: str) -> str:
    """``basic/index.mdx`` -> ``basic``; ``index.mdx`` -> ``""``; ``server/tools.mdx`` -> ``server/tools``."""
    return doc_path.removesuffix(".mdx").removesuffix("index").rstrip("/")


def read_list() -> list[Row]:
    rows: list[Row] = []
    section, pages = "", ()
    for line in LIST_PATH.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"#{2,3} (\d+)([a-z]?)\. (.*)", line)
        if heading:
            number, sub, title = heading.groups()
            named = tuple(page_of(p) for p in re.findall(r"`([^`_][^`]*\.mdx)`", title))
            # A subsection that names no page of its own (4a, versioning) belongs to its section's page.
            section, pages = number + sub, named or (pages if sub else ())
            continue
        cells = line.split(" | ")
        if re.match(r"\| [A-Z]+-\d+$", cells[0]):
            rows.append(Row(cells[0][2:], cells[1], cells[2], " | ".join(cells[3:-1]), cells[-1], section, pages))
    return rows


def normalise_level(kw: str) -> str:
    """The list's Kw cell as ``Requirement.level`` spells it: keywords upper-case, single spaces, no
    spaces around ``/``, a trailing "(lowercase)" note kept as written."""
    kw, lowercase, _ = " ".join(kw.split()).partition(" (lowercase)")
    return re.sub(r" ?/ ?", "/", kw.upper()) + lowercase


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def shared_run(a: str, b: str, n: int = 8) -> str | None:
    """The first run of ``n`` consecutive words that ``a`` and ``b`` share, if any."""
    wa, wb = words(a), words(b)
    runs_b = {tuple(wb[i : i + n]) for i in range(len(wb) - n + 1)}
    for i in range(len(wa) - n + 1):
        if tuple(wa[i : i + n]) in runs_b:
            return " ".join(wa[i : i + n])
    return None


# --- against the shared list ---------------------------------------------------------------


@needs_list
def test_same_ids_in_the_same_order_as_the_shared_list() -> None:
    listed = [row.id for row in read_list()]
    assert len(listed) == 262
    assert list(REQUIREMENTS) == listed


@needs_list
def test_same_level_for_every_id() -> None:
    wrong = {row.id: (normalise_level(row.kw), REQUIREMENTS[row.id].level) for row in read_list()
             if REQUIREMENTS[row.id].level != normalise_level(row.kw)}  # fmt: skip
    assert not wrong, f"id: (level in the list, level in the index): {wrong}"
    assert {normalise_level(row.kw) for row in read_list()} == LEVELS


@needs_list
def test_page_is_the_page_of_the_rows_section() -> None:
    for row in read_list():
        page = REQUIREMENTS[row.id].page
        assert row.section_pages, f"{row.id}: section {row.section} names no spec page"
        assert page in row.section_pages, f"{row.id} is in section {row.section} ({row.section_pages}), not {page!r}"
        cited = re.findall(r"`([^`_][^`]*\.mdx):", row.src)
        if cited:  # section 3 holds two pages; the row's source line says which
            assert page == page_of(cited[0]), f"{row.id}: its source is {cited[0]}, its page {page!r}"


@needs_list
def test_side_follows_the_who_column() -> None:
    for row in read_list():
        expected = "server" if row.id in SERVER_ONLY_IMPL_ROWS else SIDE_OF_WHO[row.who]
        assert REQUIREMENTS[row.id].side == expected, f"{row.id}: Who {row.who!r}"


@needs_list
def test_no_summary_copies_its_requirement_text() -> None:
    copies = {row.id: run for row in read_list() if (run := shared_run(REQUIREMENTS[row.id].summary, row.text))}
    assert not copies, f"summaries sharing 8 consecutive words with the spec's sentence: {copies}"


@pytest.mark.skipif(not DOCS.is_dir(), reason=f"the shared spec pages are absent ({DOCS})")
def test_every_page_is_a_page_of_the_spec() -> None:
    for page in requirements.PAGES:
        base = DOCS / page if page else DOCS
        assert base.with_suffix(".mdx").is_file() or (base / "index.mdx").is_file(), page


# --- the index on its own --------------------------------------------------------------------


def test_each_row_is_well_formed() -> None:
    assert len(REQUIREMENTS) == 262
    for key, r in REQUIREMENTS.items():
        assert key == r.id and re.fullmatch(r"[A-Z]{2,5}-\d{2}", r.id)
        assert r.level in LEVELS, r
        assert r.strength in ("MUST", "SHOULD", "MAY"), r
        assert r.side in ("client", "server", "both"), r
        assert r.url == requirements.PAGES[r.page]
        assert r.url.startswith("https://modelcontextprotocol.io/specification/2024-11-05")


def test_summaries_are_single_lines_in_our_words_without_keywords() -> None:
    for r in REQUIREMENTS.values():
        assert r.summary and r.summary == r.summary.strip() and "\n" not in r.summary, r.id
        assert len(r.summary) <= 120, f"{r.id}: {len(r.summary)} characters"
        assert r.summary[0].isupper(), f"{r.id}: start with a capital (an imperative)"
        # The level carries the strength; a summary that repeats it reads as a copy of the spec.
        keyword = re.search(r"(?i:\b(must|shall|should|may|recommended)\b)|\b(REQUIRED|OPTIONAL)\b", r.summary)
        assert keyword is None, f"{r.id}: keyword {keyword.group(0)!r} in the summary"


def test_summaries_are_distinct() -> None:
    seen: dict[str, str] = {}
    for r in REQUIREMENTS.values():
        assert r.summary.casefold() not in seen, f"{r.id} repeats {seen[r.summary.casefold()]}"
        seen[r.summary.casefold()] = r.id


def test_strength_folds_levels_into_three() -> None:
    expected = {"LC-08": "MUST", "MSG-03": "MUST", "LC-12": "MUST", "VER-01": "MUST", "CMP-12": "MUST",
                "AR-04": "MUST", "LC-09": "SHOULD", "CAN-17": "SHOULD", "TOOL-18": "SHOULD",
                "LC-19": "MAY", "VER-02": "MAY"}  # fmt: skip
    assert {key: get(key).strength for key in expected} == expected


def test_url_of_a_page_and_of_the_overview() -> None:
    assert get("TOOL-08").url == "https://modelcontextprotocol.io/specification/2024-11-05/server/tools"
    assert get("OV-01").url == "https://modelcontextprotocol.io/specification/2024-11-05"
    assert get("PING-01").url.endswith("/2024-11-05/basic/utilities/ping")


def test_get_ignores_case_and_spaces() -> None:
    assert get("lc-08") is get("LC-08") is get(" Lc-08 ") is REQUIREMENTS["LC-08"]
    assert isinstance(get("tool-18"), Requirement)


def test_get_unknown_id_suggests_close_ones() -> None:
    with pytest.raises(KeyError, match=r"did you mean.*TOOL-08"):
        get("TOOL-8")
    with pytest.raises(KeyError, match=r"'LC-99'.*did you mean LC-"):
        get("LC-99")
    with pytest.raises(KeyError, match="IDs look like LC-08"):
        get("nothing like an id")


def test_on_page_accepts_path_last_part_and_url() -> None:
    tools = on_page("server/tools")
    assert [r.id for r in tools] == [f"TOOL-{n:02d}" for n in range(1, 20)]
    assert on_page("tools") == tools
    assert on_page("https://modelcontextprotocol.io/specification/2024-11-05/server/tools") == tools
    assert on_page("https://modelcontextprotocol.io/specification/2024-11-05/server/tools/#security-considerations") == tools
    assert [r.id for r in on_page("ping")] == [f"PING-{n:02d}" for n in range(1, 13)]
    assert [r.id for r in on_page("basic")] == ["BASE-01", "BASE-02", "BASE-03"]


def test_on_page_overview_and_unknown_pages() -> None:
    overview = on_page("")
    assert [r.id for r in overview] == [f"OV-{n:02d}" for n in range(1, 16)]
    assert on_page("https://modelcontextprotocol.io/specification/2024-11-05") == overview
    with pytest.raises(KeyError, match="server/tools"):  # the message lists the pages
        on_page("server/widgets")


def test_every_page_has_requirements_and_every_requirement_a_page() -> None:
    assert sum(len(on_page(page)) for page in requirements.PAGES) == 262


def test_search_looks_at_id_page_and_summary() -> None:
    assert [r.id for r in search("sigkill")] == ["LC-18"]
    assert {r.id for r in search("tool-1")} >= {"TOOL-10", "TOOL-19"}
    assert {r.id for r in search("UTILITIES/COMPLETION")} == {f"CMP-{n:02d}" for n in range(1, 13)}
    assert search("no requirement says this") == []


def test_every_id_cited_in_the_code_and_the_notes_exists() -> None:
    cited: dict[str, set[str]] = {}
    for path in [*(ROOT / "mcp_ref").rglob("*.py"), *(ROOT / "spec_notes").rglob("*.md")]:
        for found in re.findall(r"\b(?!UTF-)[A-Z]{2,6}-\d{2}\b", path.read_text(encoding="utf-8")):
            cited.setdefault(found, set()).add(str(path.relative_to(ROOT)))
    from mcp_ref_check import indexes  # 2024-11-05 and every later revision's index

    unknown = {key: sorted(paths) for key, paths in cited.items() if key not in indexes.everything()}
    assert not unknown, f"IDs cited but not in the index: {unknown}"
    assert len(cited) > 100  # the scan found the citations


def test_import_mcp_ref_does_not_load_the_index() -> None:
    code = "import sys, mcp_ref; print('mcp_ref_check.requirements' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"
