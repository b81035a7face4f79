"""``mcp-ref spec ID_OR_PAGE``: a requirement, and where the project meets it.

Not a spec section: the command-line face of the requirement index (requirements.py) and of
``spec_notes/`` (notes.py). For an ID it prints, in this order:

1. the ID, its level and who has to act, its spec page and the page's URL, and the summary
   (in our words; read the spec page for the exact wording);
2. what mcp_ref does about it, from the spec_notes row (and where the row is);
3. ``cited at``: every ``# ID`` comment of the implementation (``file:line`` and the line), which
   sits at the line that enforces the requirement;
4. ``proved by``: the tests the notes name for it;
5. ``checked by``: the conformance checker's cases that judge a peer on it (``mcp-ref check``).

For a page (``server/tools``, ``tools`` or a spec URL) it lists the page's requirements, one a
line. The notes live next to the package in a clone; an installed package without them says
so and still prints the rest.
"""

from __future__ import annotations

import sys
import textwrap

from . import notes
from .closeness import closest
from .requirements import PAGES, Requirement, on_page

_WIDTH = 100


def run_spec(what: str) -> int:
    """Print an ID (``LC-08``, any case; or one of a later revision's index: ``SHTTP-10``,
    ``ELIC-03``, ``TNAME-04``; indexes.py) or a page; 2 with the closest IDs (or pages) when it
    is neither. A page a later revision added or changed lists that revision's rows too."""
    from . import indexes

    try:
        print(render_requirement(indexes.get(what)))
        return 0
    except KeyError:
        pass
    later = [(revision, rows) for revision, rows in indexes.on_page(what) if revision != "2024-11-05"]
    try:
        page = on_page(what)
    except KeyError:
        if not later:
            print(f"mcp-ref: {not_found(what, list(indexes.everything()))}", file=sys.stderr)
            return 2
        page = []
    blocks = [render_page(page)] if page else []
    blocks += [f"revision {revision}, what it added or changed on this page:\n" + render_page(rows)
               for revision, rows in later]
    print("\n\n".join(blocks))
    return 0


def not_found(what: str, ids: list[str]) -> str:
    """What to say of something that is neither an ID nor a page: the closest IDs (requirements.
    closest: ``LC-8`` suggests LC-08 first), or for words without a digit, the closest pages."""
    if any(ch.isdigit() for ch in what):
        close = closest(what, ids)
        hint = f"did you mean {', '.join(close)}?" if close else "IDs look like LC-08, TOOL-18, SHTTP-10 or ELIC-03."
        return f"unknown requirement ID {what!r}: {hint} Or give a page such as server/tools."
    import difflib  # only on the error path

    names = sorted({name for page in PAGES if page for name in (page, page.rsplit("/", 1)[-1])})
    close = difflib.get_close_matches(what.strip().lower(), names, n=3, cutoff=0.6)
    hint = f"did you mean {', '.join(close)}?" if close else f"pages: {', '.join(page for page in PAGES if page)}."
    return f"{what!r} is neither a requirement ID (such as LC-08) nor a spec page: {hint}"


def render_page(requirements: list[Requirement]) -> str:
    first = requirements[0]
    lines = [f"{first.page or '(overview)'}  {first.url}  ({len(requirements)} requirements)", ""]
    lines += [f"{r.id:8} {r.level:20} {r.side:6}  {r.summary}" for r in requirements]
    return "\n".join(lines)


def render_requirement(r: Requirement) -> str:
    lines = [
        f"{r.id}  {r.level}  ({r.side})",
        f"page:      {r.page or '(overview)'}",
        f"url:       {r.url}",
        f"summary:   {r.summary}",
    ]
    directory = notes.notes_directory()
    rows = notes.rows_for(r.id, notes.read_notes(directory)) if directory else []
    for row in rows:
        lines += _wrapped(f"we do:     {row.text} ({row.where})", "           ")
    lines.append("cited at:")
    comments = {(path, number) for path, number in notes.comment_citations().get(r.id, [])}
    cited = [(path, number, text) for path, number, text in notes.citations(r.id) if (path, number) in comments]
    lines += [f"  {path}:{number}: {_clip(text)}" for path, number, text in cited] or ["  (no code cites it)"]
    lines.append("proved by:")
    if directory is None:
        lines.append("  (spec_notes/ is not beside this installed package: a clone of the repository has it)")
    else:
        tests = list(dict.fromkeys(test for row in rows for test in row.tests))
        lines += [f"  {test}" for test in tests] or ["  (no test: the note says why)"]
    cases = _checker_cases(r.id)
    if cases:
        lines.append("checked by (mcp-ref check):")
        lines += [f"  {name}" for name in cases]
    return "\n".join(lines)


def _checker_cases(requirement_id: str) -> list[str]:
    from .case_registry import all_client_cases, all_server_cases

    return [f"{case.side} {case.name}" for case in [*all_server_cases(), *all_client_cases()]
            if requirement_id in case.ids]


def _clip(text: str, width: int = 90) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _wrapped(text: str, indent: str) -> list[str]:
    return textwrap.wrap(text, _WIDTH, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)
