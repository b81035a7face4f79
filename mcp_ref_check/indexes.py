"""Every requirement index the project keeps, and one lookup across them.

Not a spec section: the place that knows which indexes there are. The IDs of revision 2024-11-05
live in requirements.py (LC-08, TOOL-18, ...); each later revision with a handshake has an index
of what it added or changed: requirements_2025_03_26.py (the Streamable HTTP transport, SHTTP-NN,
and the rest of that revision: BATCH, ANNOT, ...), requirements_2025_06_18.py (ELIC, OUTPUT, HDR,
...), requirements_2025_11_25.py (ELICU, TNAME, SCHEMA, TASK, ...) and, for the stateless revision
without a handshake, requirements_2026_07_28.py (STLS, MRTR, SUBS, HTTPX, CACHE, ...). Their
prefixes never collide, so an ID names one requirement of one revision.

``get(id)`` finds an ID in whichever index holds it (a KeyError with the closest IDs of all
otherwise); ``everything()`` is the union, in the order 2024-11-05 first; ``revision_of(id)``
says which revision's index holds it; ``on_page(page)`` lists, for a page such as
``client/elicitation``, the rows of every revision that has it. The checker's cases, ``mcp-ref
spec`` and the traceability tests all look IDs up here.
"""

from __future__ import annotations

from functools import cache
from types import ModuleType
from typing import Any

from .closeness import closest

# The indexes, oldest revision first: (revision, module name in this package).
INDEXES = (
    ("2024-11-05", "requirements"),
    ("2025-03-26", "requirements_2025_03_26"),
    ("2025-06-18", "requirements_2025_06_18"),
    ("2025-11-25", "requirements_2025_11_25"),
    ("2026-07-28", "requirements_2026_07_28"),
)


@cache
def _modules() -> tuple[tuple[str, ModuleType], ...]:
    import importlib

    return tuple((revision, importlib.import_module(f".{name}", __package__)) for revision, name in INDEXES)


@cache
def everything() -> dict[str, Any]:
    """Every requirement of every index, by ID."""
    merged: dict[str, Any] = {}
    for _, module in _modules():
        merged.update(module.REQUIREMENTS)
    return merged


@cache
def _revisions() -> dict[str, str]:
    return {req_id: revision for revision, module in _modules() for req_id in module.REQUIREMENTS}


def revision_of(requirement_id: str) -> str:
    """The revision whose index holds this ID; KeyError if none does."""
    return _revisions()[requirement_id.strip().upper()]


def get(requirement_id: str) -> Any:
    """The requirement with this ID (any case), from whichever index holds it."""
    key = requirement_id.strip().upper()
    found = everything().get(key)
    if found is not None:
        return found
    close = closest(requirement_id, everything())
    hint = f"did you mean {', '.join(close)}?" if close else "IDs look like LC-08, SHTTP-10 or ELIC-03"
    raise KeyError(f"unknown requirement ID {requirement_id!r}: {hint}")


def on_page(page: str) -> list[tuple[str, list[Any]]]:
    """For a page path (``client/elicitation``) or its last part, the rows of each revision's
    index on that page, oldest revision first; only revisions with rows there."""
    key = page.strip().strip("/").split("#", 1)[0]
    if "/specification/" in key:  # a URL: keep what follows the revision
        key = key.split("/specification/", 1)[1].split("/", 1)[-1]
    found = []
    for revision, module in _modules():
        rows = [r for r in module.REQUIREMENTS.values() if r.page == key or (key and r.page.rsplit("/", 1)[-1] == key)]
        if rows:
            found.append((revision, rows))
    return found
