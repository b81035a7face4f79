"""Which of a set of IDs is closest to what someone typed: the "did you mean" of ``mcp-ref spec``.

Not a spec section: part of the command line (the requirement indexes, requirements.py and
mcp_ref_check/requirements_2025_03_26.py, and spec_cmd.py use it). An ID is letters, a dash and a number padded
to two digits (``LC-08``); people type ``LC-8``, ``lc8``, ``lc 08``, or a wrong letter. Ranking by a
general text similarity gets the first of these wrong (difflib puts ``LC-18`` before ``LC-08``:
one letter added at the end beats one added in the middle), so ``closest`` first writes what was
typed the way the IDs are written, and then counts letters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache


def closest(given: str, ids: Iterable[str], n: int = 5) -> list[str]:
    """The IDs most like ``given``, closest first, at most ``n``: for "did you mean".

    ``given`` is first written the way the IDs are (``lc 8``, ``LC8`` and ``lc_08`` all become
    ``LC-08``: upper case, one dash, the number padded to two digits), then each ID is ranked by
    its edit distance to that form and to ``given`` as typed (letters added, dropped, changed or
    swapped), the nearer of the two first, their sum breaking ties, then the index's order. IDs
    more than two edits away from both are not suggested.
    """
    typed = given.strip().upper()
    shaped = _ID_SHAPE.fullmatch(typed)
    normal = f"{shaped.group(1)}-{int(shaped.group(2)):02d}" if shaped else typed
    ranked = []
    for order, candidate in enumerate(ids):
        if _surely_far(normal, candidate) and _surely_far(typed, candidate):
            continue  # (a quick bound first: most IDs are far from both, and the full count is slow)
        near, far = sorted((_edits(normal, candidate), _edits(typed, candidate)))
        ranked.append((near, near + far, order, candidate))
    return [candidate for *_, candidate in sorted(ranked)[:n]]


_ID_SHAPE = re.compile(r"([A-Z]+)[\s_-]*(\d{1,4})")


def _surely_far(a: str, b: str, most: int = 2) -> bool:
    """Whether ``a`` and ``b`` are certainly more than ``most`` edits apart, by a bound that costs
    little: an edit changes the count of at most one letter each way (a swap changes none), so the
    letters ``a`` has too many of, and those it has too few of, each need an edit of their own."""
    have, want = _letters(a), _letters(b)
    surplus = sum(max(0, n - want.get(c, 0)) for c, n in have.items())
    missing = sum(max(0, n - have.get(c, 0)) for c, n in want.items())
    return max(surplus, missing) > most or _edits(a, b, most) > most


@lru_cache(maxsize=4096)
def _letters(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for c in text:
        counts[c] = counts.get(c, 0) + 1
    return counts


def _edits(a: str, b: str, most: int | None = None) -> int:
    """How many one-letter insertions, deletions, substitutions or swaps of neighbours turn ``a``
    into ``b`` (the optimal string alignment distance). With ``most``, any distance over it may
    come back as ``most + 1``: the count stops once it cannot end at ``most`` or less (the lengths
    alone differ by more, or every cell of a row, and so of every row after it, is over it)."""
    if most is not None and abs(len(a) - len(b)) > most:
        return most + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if most is not None and min(current) > most and min(previous) > most:
            return most + 1
        previous2, previous = previous, current
    return previous[len(b)]
