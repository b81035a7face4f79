"""What the peer sent that no request of ours was waiting for, kept to explain a wait that ends.

Not a spec section: the engine's memory of basic/messages gone wrong, for the error a caller
reads. https://modelcontextprotocol.io/specification/2024-11-05/basic/messages

1. The session's reader keeps the last ``KEPT_UNMATCHED`` things it could not match
   (``Unmatched``): an answer whose id is not one we wait for (MSG-05: an id comes back as it
   was sent, its type too), a line that is not JSON, a message that is not JSON-RPC, one over
   the size limit.
2. A request that times out says what came while it waited (``since``): a peer that answers
   with ``"id": "2"`` for our ``2``, or prints each message over several lines, did answer, and
   a longer timeout would not help.
3. An answer over the size limit is dropped unread, but its first bytes may still say whom it
   was for (``meant_for``): that request fails at once, naming the limit, instead of waiting out
   its timeout.
"""

from __future__ import annotations

import collections
import re
import time
from collections.abc import Container, Mapping
from typing import Any, TypeVar

from ... import messages
from ...messages import RequestId

Pending = TypeVar("Pending")  # what the engine's pending table holds for each id (outgoing.OutgoingRequest)

KEPT_UNMATCHED = 32  # messages that matched no request of ours, kept to explain a timeout


class Unmatched:
    """What the peer sent that matched no request of ours, the last ``KEPT_UNMATCHED`` of it, each
    with the time it came: ``add(kind, words)``, and ``since(start)`` says it in one sentence."""

    def __init__(self) -> None:
        self._seen: collections.deque[tuple[float, str, str]] = collections.deque(maxlen=KEPT_UNMATCHED)

    def add(self, kind: str, words: str) -> None:
        self._seen.append((time.monotonic(), kind, words))

    def answer(self, request_id: Any, pending: Container[RequestId]) -> None:
        """An answer whose id names no request we wait for (MSG-05: ids come back unchanged)."""
        if isinstance(request_id, str) and request_id.isdigit() and int(request_id) in pending:
            self.add("answer", f'an answer with id "{request_id}", a string, where ours is the integer '
                               f"{request_id}: an id must come back as it was sent, its type too")
        elif messages.is_valid_id(request_id):
            self.add("answer", f"an answer with id {_shown(request_id)}, which no request of ours waits for")
        else:
            self.add("answer", f"an answer with id {_shown(request_id)}, which is not a valid id")

    def since(self, start: float) -> str:
        """What came since ``start`` (time.monotonic), kind by kind, or "" if nothing did."""
        kinds: dict[str, list[str]] = {}
        for when, kind, words in self._seen:
            if when >= start:
                kinds.setdefault(kind, []).append(words)
        parts = [words[0] + (f" (and {len(words) - 1} more like it)" if len(words) > 1 else "")
                 for words in kinds.values()]
        if len(kinds.get("not JSON", [])) > 1:
            parts.append("does the peer print each message over several lines? Over stdio every message is one line")
        return "; ".join(parts)


def _shown(value: Any) -> str:
    """A JSON value as JSON, cut short: an id is shown as it was on the wire."""
    try:
        text = messages.encode(value).decode()
    except messages.NotJson:
        text = repr(value)
    return messages.printable(text if len(text) <= 60 else text[:57] + "...")


_ANSWER_ID = re.compile(rb'"id"\s*:\s*(-?[0-9]{1,18})[\s,}]')


def meant_for(head: bytes, pending: Mapping[RequestId, Pending]) -> Pending | None:
    """The request of ours a message discarded unread was meant to answer: the one whose id its
    first bytes carry, or the only one waiting; None for what looks like a request or notification."""
    if b'"method"' in head:
        return None
    found = _ANSWER_ID.search(head)
    if found is not None:
        return pending.get(int(found[1]))
    return next(iter(pending.values())) if len(pending) == 1 else None
