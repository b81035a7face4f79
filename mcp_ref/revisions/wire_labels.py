"""The later revisions on the wire: what each brought to a message, as ``mcp-ref request --explain`` labels it.

Spec page: changelog
The changelog of each revision after 2024-11-05, as it shows in the messages, for the explainer
(cli/explain.py), which labels each message with its spec page and the requirement IDs it
exercises. Its own tables are those of 2024-11-05; what came later is here, in the later
revisions' room, so that a reader of one delta (v2025_03_26.py .. v2026_07_28.py) finds its
traces on the wire beside it.
https://modelcontextprotocol.io/specification/2025-03-26/changelog
https://modelcontextprotocol.io/specification/2025-06-18/changelog
https://modelcontextprotocol.io/specification/2025-11-25/changelog
https://modelcontextprotocol.io/specification/2026-07-28/changelog

1. ``LATER_METHODS``: each method a later revision added, by (its page, the IDs a request of it
   exercises, those of its result, those of each error code it may get, the revision):
   ``elicitation/create`` (2025-06-18) and its completion notice (2025-11-25); in 2026-07-28
   ``server/discover``, the probe that replaces ``initialize``, and ``subscriptions/listen`` with
   its acknowledgement, the stream that replaces the GET stream.
2. ``LATER_FIELDS``: a field a later revision brought to a message of the base (a capability, a
   field of a tool or of a result, a kind of content), by (method, kind of message, field);
   ``later_fields`` finds them in a message.
3. ``LATER_ERRORS``: the codes of the specification's own range that 2026-07-28 defined.
4. ``labels``: what the fields of 2026-07-28 exercise in a message: a request naming that
   revision in ``_meta`` (STLS-09, STLS-11), a retry bringing ``inputResponses`` and
   ``requestState`` back (the client's IDs of the rounds), an ``input_required`` result
   (RTYPE-01 and the IDs of that method's rounds), a result with caching hints (``ttlMs`` and
   ``cacheScope``: CACHE-01, CACHE-05).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .versioning import REVISION, VERSION_KEY

__all__ = ["LATER_ERRORS", "LATER_FIELDS", "LATER_METHODS", "LaterField", "labels", "later_fields"]

Ids = tuple[str, ...]

# method -> (its page, the IDs of a request, of its result, of each error code, the revision)
LATER_METHODS: dict[str, tuple[str, Ids, Ids, dict[int, Ids], str]] = {
    "elicitation/create": ("client/elicitation", ("ELIC-05",), ("ELIC-09",), {-32601: ("ELIC-05",)}, "2025-06-18"),
    "notifications/elicitation/complete": ("client/elicitation", ("ELICU-11",), (), {}, "2025-11-25"),
    "server/discover": ("server/discover", ("DISC-02", "STDIO-06"), ("DISC-01", "DISC-03"),
                        {-32022: ("STLS-16", "STLS-17")}, REVISION),
    "subscriptions/listen": ("basic/patterns/subscriptions", ("SUBS-04", "SUBS-06"), ("SUBS-07",), {}, REVISION),
    "notifications/subscriptions/acknowledged": ("basic/patterns/subscriptions", ("SUBS-02", "SUBS-10"), (), {},
                                                 REVISION),
}
LATER_ERRORS = {-32021: ("STLS-12",), -32022: ("STLS-16",)}  # a capability the request lacks; a version not spoken
ROUNDS = {"tools/call": "MRTR-21", "prompts/get": "MRTR-22", "resources/read": "MRTR-23"}  # (2026-07-28)


@dataclass(frozen=True)
class LaterField:
    """A field a later revision brought to a message of the base: where it is, and its label."""

    revision: str
    page: str
    ids: tuple[str, ...] = ()


# What a message may carry that 2024-11-05 did not have, by (method, kind of message, field).
LATER_FIELDS: dict[tuple[str, str, str], LaterField] = {
    ("initialize", "request", "elicitation"): LaterField("2025-06-18", "client/elicitation", ("ELIC-05",)),
    ("initialize", "result", "completions"): LaterField("2025-03-26", "server/utilities/completion"),
    ("notifications/progress", "request", "message"): LaterField("2025-03-26", "basic/utilities/progress"),
    ("tools/list", "result", "annotations"): LaterField("2025-03-26", "server/tools", ("ANNOT-01",)),
    ("tools/list", "result", "title"): LaterField("2025-06-18", "server/tools"),
    ("tools/list", "result", "outputSchema"): LaterField("2025-06-18", "server/tools", ("OUT-03",)),
    ("tools/call", "result", "structuredContent"): LaterField("2025-06-18", "server/tools", ("OUT-03", "OUT-01")),
    ("tools/call", "result", "audio"): LaterField("2025-03-26", "server/tools"),
    ("tools/call", "result", "resource_link"): LaterField("2025-06-18", "server/tools"),
    ("prompts/get", "result", "audio"): LaterField("2025-03-26", "server/prompts"),
    ("prompts/get", "result", "resource_link"): LaterField("2025-06-18", "server/prompts"),
}


def later_fields(method: str, kind: str, body: dict[str, Any]) -> list[str]:
    """The names of ``LATER_FIELDS`` keys present in a request's params or a result: a capability,
    a field of a tool (``tools/list``), of the result itself, or a content type."""
    found: set[str] = set(body)
    capabilities = body.get("capabilities")
    if isinstance(capabilities, dict):
        found |= set(capabilities)
    if method == "tools/list" and isinstance(body.get("tools"), list):
        found |= {name for tool in body["tools"] if isinstance(tool, dict) for name in tool}
    messages = body.get("messages")
    items = body.get("content") if method == "tools/call" else [
        m.get("content") for m in (messages if isinstance(messages, list) else []) if isinstance(m, dict)]
    if isinstance(items, list):
        found |= {item["type"] for item in items if isinstance(item, dict) and isinstance(item.get("type"), str)}
    return [name for (m, k, name) in LATER_FIELDS if m == method and k == kind and name in found]


def labels(method: str, body: dict[str, Any], kind: str) -> list[str]:
    """The IDs the fields of 2026-07-28 exercise in a request's params (``kind`` "request") or in
    a result ("result") of ``method``; none in a message of another revision."""
    meta = body.get("_meta")
    out: list[str] = []
    if kind == "request" and isinstance(meta, dict) and meta.get(VERSION_KEY) == REVISION:
        out += ["STLS-09", "STLS-11"]
    if kind == "request" and "inputResponses" in body:  # a retry: every answer, the state as it came, a new id
        out += ["MRTR-14", "MRTR-15", "MRTR-16"]
    if kind == "result" and body.get("resultType") == "input_required":
        out += ["RTYPE-01", ROUNDS.get(method, "MRTR-04")]
    if kind == "result" and "ttlMs" in body:  # a list, a read or server/discover: how long it may be kept
        out += ["CACHE-01", "CACHE-05"]
    return out
