"""Pagination of the list methods: opaque cursors in, ``nextCursor`` out.

Spec page: server/utilities/pagination
https://modelcontextprotocol.io/specification/2024-11-05/server/utilities/pagination

In short:

1. ``tools/list``, ``prompts/list``, ``resources/list`` and ``resources/templates/list`` return
   one page at a time. A request may carry ``params.cursor``; a result may carry
   ``nextCursor``, meaning "ask again with this to get more" (PAG-10, PAG-11).
2. The server picks the page size; clients assume nothing about it (PAG-01).
3. Cursors are opaque to clients: never parsed, changed or kept across sessions (PAG-06..08).
   A missing ``nextCursor`` is the end (PAG-04).
4. A server should keep cursors stable and answer an invalid one with -32602 (PAG-02, PAG-03,
   PAG-09).

Our cursor is ``<hex of the JSON [list, index, key]>.<signature>``: which list it pages (so a
``tools/list`` cursor is refused by ``prompts/list``), the position after the last item sent,
and that item's key (tool name, URI...). If the list changed since, the key finds the place
again, so items are neither skipped nor repeated because of an insertion or removal elsewhere
(PAG-02). The signature is an HMAC with a key this process draws at random when it starts:
a cursor we did not mint, or one that was altered, is refused with -32602 (PAG-09) instead of
being guessed at; so is a cursor from before a restart, which PAG-08 tells clients not to keep.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from . import messages
from .messages import InvalidParams, McpError

T = TypeVar("T")

DEFAULT_PAGE_SIZE = 50
MAX_PAGES = 10_000  # a client-side guard against a server that never stops paging


_CURSOR_KEY = os.urandom(32)  # per process: cursors do not outlive it (PAG-08)


def _signature(payload: str) -> str:
    # hashlib and hmac are imported here, not at the top: hashlib loads OpenSSL, which a client
    # (or a server that never pages) need not pay for at import time.
    import hashlib
    import hmac

    return hmac.new(_CURSOR_KEY, payload.encode("ascii"), hashlib.sha256).hexdigest()[:24]


def _encode_cursor(field: str, index: int, key: str) -> str:
    payload = json.dumps([field, index, key]).encode().hex()
    return f"{payload}.{_signature(payload)}"


def _decode_cursor(field: str, cursor: str) -> tuple[int, str]:
    """The (index, key) in a cursor this process minted for the list ``field``; else -32602."""
    import hmac

    payload, _, signature = cursor.partition(".")
    if payload.isascii() and signature.isascii() and hmac.compare_digest(signature, _signature(payload)):
        minted_for, index, key = json.loads(bytes.fromhex(payload))
        if minted_for == field:
            return index, key
        problem = f"it pages {minted_for}, not {field}"
    else:
        problem = "it is not one this server issued (or it was altered, or the server restarted)"
    raise InvalidParams(f'Invalid params: "cursor" {messages.printable(cursor[:80])!r}: {problem}',  # PAG-03, PAG-09
                        {"field": "cursor"})


def paginate(
    items: Sequence[T], key: Callable[[T], str], field: str, params: dict[str, Any], page_size: int | None
) -> tuple[list[T], str | None]:
    """One page of ``items`` of the list ``field`` for a list request's ``params``, and the
    cursor of the next page."""
    start = 0
    cursor = messages.param(params, "cursor", "string", required=False)
    if cursor is not None:  # PAG-10: resume after the cursor
        index, last_key = _decode_cursor(field, cursor)
        # PAG-02: the cursor names the last item sent, so changes elsewhere skip and repeat nothing
        if 0 < index <= len(items) and key(items[index - 1]) == last_key:
            start = index
        else:  # the list changed: resume after the same item if it is still there
            keys = [key(item) for item in items]
            start = keys.index(last_key) + 1 if last_key in keys else min(index, len(items))
    if page_size is None:
        return list(items[start:]), None
    page = list(items[start:start + page_size])
    end = start + len(page)
    next_cursor = _encode_cursor(field, end, key(page[-1])) if page and end < len(items) else None
    return page, next_cursor


def list_result(items: Sequence[Any], key: Callable[[Any], str], field: str, params: dict[str, Any],
                page_size: int | None, version: str | None = None) -> dict[str, Any]:
    """Server side: the result of a list method, ``{field: [...], "nextCursor"?: ...}``, for one
    page of ``items`` (each with a ``to_wire(version)``: as a session of that revision sees it)."""
    page, next_cursor = paginate(items, key, field, params, page_size)
    result: dict[str, Any] = {field: [item.to_wire(version) for item in page]}
    if next_cursor is not None:
        result["nextCursor"] = next_cursor  # PAG-11: there may be more
    return result


def list_all(request: Callable[[str, dict[str, Any] | None], dict[str, Any]], method: str, field: str) -> list[Any]:
    """Client side: call ``method`` page after page until no ``nextCursor`` (PAG-04, PAG-05)."""
    items: list[Any] = []
    params: dict[str, Any] | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        result = request(method, params)
        page = result.get(field)
        if not isinstance(page, list):
            raise McpError(f"server answered {method} without a {field!r} list")
        items.extend(page)  # PAG-01, PAG-05: a page of any size, or everything at once
        cursor = result.get("nextCursor")
        if cursor is None:  # PAG-04: no nextCursor, no more pages
            return items
        if cursor in seen:  # the server sent the same cursor twice: it would loop forever
            raise McpError(f"server repeated the cursor {cursor!r} while paging {method}")
        seen.add(cursor)
        params = {"cursor": cursor}  # PAG-06, PAG-07: passed back untouched
    raise McpError(f"server returned more than {MAX_PAGES} pages for {method}")
