"""What the requirement indexes of the later revisions share: their Requirement, levels and lookups.

Not a spec section: the common half of ``requirements_2025_03_26.py``, ``requirements_2025_06_18.py``
and ``requirements_2025_11_25.py``. Each of those modules indexes what its revision adds to or
changes in the revision before it, with the same fields as the 2024-11-05 index
(``requirements.Requirement``: ``id``, ``page``, ``level``, ``side``, ``summary``); this module gives
them:

1. ``LaterRequirement``: a requirement whose ``url`` is its own page *of its own revision* (each
   index subclasses it, naming the revision in ``revision``), and whose ``strength`` reads any level
   the later indexes use (point 2).
2. The levels. A level is one keyword, or several joined by ``/`` in the order the sentence has them
   (``"MAY/MUST NOT"``), with ``" (lowercase)"`` after it where the spec wrote the word in plain prose
   rather than as a defined keyword (``"SHOULD (lowercase)"``, ``"MAY (lowercase)"``). The keywords are
   MUST, MUST NOT, REQUIRED, SHOULD, SHOULD NOT, RECOMMENDED, MAY and OPTIONAL. ``"INFO"`` marks a
   statement of fact with no keyword that code will want to cite (a removal, a default). Strength is
   as in requirements.py point 6: the strongest part, MUST > SHOULD > MAY; REQUIRED counts as MUST,
   RECOMMENDED as SHOULD, OPTIONAL and INFO as MAY.
3. ``lookup``, ``search`` and ``rows_on_page``: what each index's ``get``, ``search`` and ``on_page`` do.

The list of all the indexes, and lookups across them, is ``indexes.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, TypeVar

from .closeness import closest
from .requirements import Requirement

SPEC_ROOT = "https://modelcontextprotocol.io/specification"

# The keywords a level is made of, and the strength each reports as (point 2 above).
KEYWORD_STRENGTH: dict[str, str] = {
    "MUST": "MUST", "MUST NOT": "MUST", "REQUIRED": "MUST",
    "SHOULD": "SHOULD", "SHOULD NOT": "SHOULD", "RECOMMENDED": "SHOULD",
    "MAY": "MAY", "OPTIONAL": "MAY",
}  # fmt: skip
_ORDER = ["MUST", "SHOULD", "MAY"]


def level_parts(level: str) -> list[str]:
    """The keywords of a level, in order: ``"MAY/MUST NOT (lowercase)"`` -> ``["MAY", "MUST NOT"]``;
    ``[]`` for ``"INFO"``. ValueError for anything else: every level of a later index must parse."""
    if level == "INFO":
        return []
    parts = level.removesuffix(" (lowercase)").split("/")
    if not all(part in KEYWORD_STRENGTH for part in parts) or len(set(parts)) != len(parts):
        raise ValueError(f"not a level: {level!r}")
    return parts


def strength_of(level: str) -> str:
    """MUST, SHOULD or MAY: the strongest keyword of the level (INFO counts as MAY)."""
    strengths = [KEYWORD_STRENGTH[part] for part in level_parts(level)] or ["MAY"]
    return min(strengths, key=_ORDER.index)


@dataclass(frozen=True)
class LaterRequirement(Requirement):
    """A requirement of a revision after 2024-11-05: its URL is its page of that revision."""

    revision: ClassVar[str] = ""  # each index's subclass names its revision

    @property
    def url(self) -> str:
        base = f"{SPEC_ROOT}/{self.revision}"
        return f"{base}/{self.page}" if self.page else base

    @property
    def strength(self) -> str:
        return strength_of(self.level)


R = TypeVar("R", bound=LaterRequirement)


def lookup(requirement_id: str, table: Mapping[str, R], revision: str, example: str) -> R:
    """The requirement with this ID, in any case; KeyError naming close IDs of this index if unknown."""
    key = requirement_id.strip().upper()
    if key in table:
        return table[key]
    close = closest(requirement_id, table)
    hint = f"did you mean {', '.join(close)}?" if close else f"IDs of {revision} look like {example}"
    raise KeyError(f"unknown requirement ID {requirement_id!r}: {hint}")


def search(text: str, rows: Iterable[R]) -> list[R]:
    """Rows whose ID, page or summary contains ``text``, ignoring case, in the index's order."""
    needle = text.casefold()
    return [r for r in rows if any(needle in field.casefold() for field in (r.id, r.page, r.summary))]


def page_key(page: str, revision: str) -> str:
    """A URL, a page path or a last segment, reduced to the form of ``Requirement.page``
    (``https://.../2025-06-18/client/elicitation#x`` and ``2025-06-18/client/elicitation`` ->
    ``client/elicitation``)."""
    key = page.strip().split("#", 1)[0].split("?", 1)[0]
    if "://" in key:
        key = key.split("://", 1)[1].partition("/")[2]
    key = key.strip("/")
    for prefix in (f"specification/{revision}", revision):
        if key == prefix or key.startswith(prefix + "/"):
            key = key[len(prefix) :].strip("/")
    return key


def pages_of(rows: Iterable[LaterRequirement]) -> list[str]:
    """The pages an index has rows on, in the order they first appear."""
    return list(dict.fromkeys(r.page for r in rows))


def rows_on_page(page: str, rows: Sequence[R], revision: str) -> list[R]:
    """The rows of one page (path, last segment or URL), in the index's order; KeyError listing the
    index's pages when it has no row on that page."""
    pages = pages_of(rows)
    key = page_key(page, revision)
    if key not in pages:
        matches = [p for p in pages if p and p.rsplit("/", 1)[-1] == key]
        if len(matches) != 1:
            raise KeyError(f"revision {revision} has no requirements on page {page!r}; its pages: "
                           f"{', '.join(repr(p) for p in pages)}")
        key = matches[0]
    return [r for r in rows if r.page == key]
