"""Roots: the client tells the server which parts of the file system it may work in.

Spec page: client/roots
https://modelcontextprotocol.io/specification/2024-11-05/client/roots

In short:

1. A client with roots declares the ``roots`` capability, with ``listChanged`` when it will
   say that they changed (ROOT-01).
2. The server asks with ``roots/list``; the answer is ``{"roots": [{"uri", "name"?}]}``. Each
   ``uri`` is a ``file://`` URI in this revision (ROOT-03, ROOT-21).
3. When the roots change, the client sends ``notifications/roots/list_changed`` (ROOT-02); the
   server then asks again (ROOT-22).
4. A client without roots answers -32601 (ROOT-04); an internal failure is -32603 (ROOT-05).

Client side: ``Client(roots=...)`` (a list, or a callable returning one) and
``client.set_roots(...)``; ``check_roots`` validates them (ROOT-07). Server side:
``list_roots`` (what ``ctx.list_roots`` calls) and ``Server.on_roots_changed``.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable
from typing import Any, Union

from .lifecycle import require_peer
from .messages import InternalError, MethodNotFound

Roots = Union[list[dict[str, Any]], Callable[[], list[dict[str, Any]]]]


def check_roots(roots: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """ROOT-03, ROOT-07: each root is ``{"uri": "file://...", "name"?: str}`` without ``..`` segments."""
    checked = []
    for root in roots:
        uri = root.get("uri") if isinstance(root, dict) else None
        if not isinstance(uri, str) or not uri.startswith("file://"):  # ROOT-03, ROOT-21
            raise ValueError(f"a root must be a dict with a file:// uri, got {root!r}")
        # ROOT-07: decode before looking, so %2e%2e (or %2E.) is caught as the ".." it means, and
        # an encoded slash cannot hide one inside a segment.
        if ".." in urllib.parse.unquote(urllib.parse.urlparse(uri).path).split("/"):
            raise ValueError(f"a root uri must not contain '..' segments (plain or percent-encoded): {uri!r}")
        if "name" in root and not isinstance(root["name"], str):
            raise ValueError(f"a root's name must be a string, got {root!r}")
        checked.append(dict(root))
    return checked


def answer(roots: Roots | None) -> dict[str, Any]:
    """Client side: the ``roots/list`` result."""
    if roots is None:  # ROOT-04
        raise MethodNotFound("Method not found: this client has no roots")
    try:
        current = roots() if callable(roots) else roots
        return {"roots": check_roots(current)}
    except Exception as exc:  # ROOT-05
        raise InternalError(f"could not list roots: {exc}") from exc


def list_roots(session: Any, *, timeout: float | None = None) -> list[dict[str, Any]]:
    """Server side: ask the client for its roots (ROOT-17: only if it declared them)."""
    require_peer(session, "roots", "roots/list")
    result = session.request("roots/list", timeout=timeout)
    roots = result.get("roots")
    if not isinstance(roots, list):
        raise InternalError("the client answered roots/list without a roots list")
    return roots
