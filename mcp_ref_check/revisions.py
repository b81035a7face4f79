"""The revisions the checker grades at: which it offers, which it accepts, and whose rule (and
requirement ID) applies to a session that agreed on one of them.

Not a spec section: the conformance checker's view of mcp_ref's revisions (mcp_ref/lifecycle.py:
``REVISIONS``, ``since``). Each later revision is indexed against the one before it
(spec_notes/revisions-index.md): a rule a revision left alone keeps its 2024-11-05 ID, a rule it
changed or added has an ID of that revision's (``BATCH-NN``, ``OUT-NN``, ``HDR-NN``...).

1. *Offer*: the kit's client proposes the newest revision and accepts an answer naming any of
   the four (``SUPPORTED``), as mcp_ref's own client does; ``--protocol-version V`` makes it
   propose and accept V alone (``offered``). The checking server of ``check client`` answers the
   client's proposal when it is one of the four, else its newest (``answer_to``); pinned, it
   answers V whatever was proposed.
2. *Grading*: once a session agreed on a version, a case whose rule a later revision changed
   asks ``rule_for(RULE, version)``: the requirement ID of the newest revision, at or before the
   agreed one, that has a row for that rule. ``since(version, rev)`` says whether a session
   speaks what ``rev`` brought (content types, fields, the header).
3. ``ID``: every requirement ID of a later revision that a case cites, in one table (the case
   modules name them from here, so ``--list`` shows them and a renumbering is one edit).
4. ``elicitation_modes``: the elicitation modes a client's capability declares in a session of a
   given revision, by mcp_ref's own rule (mcp_ref/revisions/elicitation.py), for both sides of
   the kit: the checking server probes only a declared mode, and a server is judged on the modes
   the kit declared.
"""

from __future__ import annotations

from typing import Any

from mcp_ref.lifecycle import (
    LATEST_PROTOCOL_VERSION,
    REVISIONS,
    STATELESS_REVISIONS,
    SUPPORTED_PROTOCOL_VERSIONS,
    since,
)
from mcp_ref.revisions.elicitation import _modes as declared_modes

__all__ = ["BASE", "ID", "LATEST", "PINNABLE", "REVISIONS", "RULES", "STATELESS", "SUPPORTED", "answer_to",
           "content_kinds", "elicitation_modes", "is_stateless", "newer_than", "offered", "rule_for", "since"]

BASE = REVISIONS[0]  # 2024-11-05: the base of mcp_ref, and of the course's labs
LATEST = LATEST_PROTOCOL_VERSION
SUPPORTED = SUPPORTED_PROTOCOL_VERSIONS  # newest first
# 2026-07-28 has no handshake: the kit speaks it only when pinned (--protocol-version 2026-07-28),
# in a run of its own (server_stateless.py, client_stateless.py); never proposed in initialize.
STATELESS = STATELESS_REVISIONS[0]
PINNABLE = SUPPORTED + STATELESS_REVISIONS  # what --protocol-version accepts


def is_stateless(version: str | None) -> bool:
    """Whether a run pinned to ``version`` speaks a revision without a handshake."""
    return version in STATELESS_REVISIONS


def offered(pinned: str | None) -> tuple[str, ...]:
    """The versions the kit speaks in this run, newest first: ``pinned`` alone, or all four."""
    return (pinned,) if pinned is not None else SUPPORTED


def answer_to(proposed: object, pinned: str | None) -> str:
    """The checking server's answer to a client's proposal (LC-12): the proposal if it is one the
    server speaks, else its newest; pinned, the pinned version whatever was proposed."""
    speaks = offered(pinned)
    return proposed if isinstance(proposed, str) and proposed in speaks else speaks[0]


def newer_than(version: str) -> tuple[str, ...]:
    """The revisions after ``version`` (for "a field of a later revision")."""
    return REVISIONS[REVISIONS.index(version) + 1:] if version in REVISIONS else REVISIONS[1:]


# The requirement IDs of the later revisions that cases cite (spec_notes/revisions-index.md). Where
# a revision added a field but no sentence of its pages binds its shape (annotations, title,
# outputSchema, icons, an elicitation result), the shape is judged, as in 2024-11-05, on the row of
# the capability that commits the peer to the page's messages (TOOL-05, ELIC-05), and the case
# lists the revision's row for the feature beside it.
ID = {
    "batch-receive": "BATCH-01",  # 2025-03-26: sending batches is optional, receiving them is not
    "batch-dropped": "DROP-01",  # 2025-06-18: batches are gone again (INFO: an array is again no message)
    "completions": "CMPL-01",  # 2025-03-26: a server declares completions to offer completion/complete
    "completions-codes": "CMPL-02",  # 2025-03-26: -32601 when completions are not offered
    "annotations": "ANNOT-01",  # 2025-03-26: tool annotations, hints a client treats as untrusted
    "audio": "PRMA-01",  # 2025-03-26: audio content is base64 data with a valid MIME type
    "title": "TITLE-01",  # 2025-06-18: title, a display name
    "output-schema": "OUT-02",  # 2025-06-18: a tool may give an outputSchema
    "structured": "OUT-03",  # 2025-06-18: with an outputSchema, every structured result conforms to it
    "structured-text": "OUT-01",  # 2025-06-18: structuredContent also goes, serialized, in a text block
    "link": "LINK-01",  # 2025-06-18: resource_link content (uri, name) in a tool result
    "negotiated": "NEGO-01",  # 2025-06-18: both sides MUST keep to the negotiated version and capabilities
    "header": "HDR-01",  # 2025-06-18: the client sends MCP-Protocol-Version on every HTTP request after init
    "header-value": "HDR-02",  # 2025-06-18: that header holds the version agreed at initialization
    "header-400": "HDR-04",  # 2025-06-18: an invalid or unsupported MCP-Protocol-Version gets 400 Bad Request
    "elicit-capability": "ELIC-05",  # 2025-06-18: a client declares elicitation to receive elicitation/create
    "elicit-request": "ELIC-06",  # 2025-06-18: requestedSchema is a flat object of primitive properties (INFO)
    "elicit-content": "ELIC-09",  # 2025-06-18: elicited content is checked against requestedSchema
    "origin-403": "SHTC-03",  # 2025-11-25: an invalid Origin gets 403 Forbidden
    "icons": "SCHEMA-13",  # 2025-11-25: icons are https: or data: URIs (the row binds the client that shows them)
    "tool-input-errors": "TNAME-07",  # 2025-11-25: invalid tool input is a tool execution error (isError)
    "error-id": "SCHEMA-02",  # 2025-11-25: an error response may leave out an id it could not read
    "elicit-modes": "ELICU-04",  # 2025-11-25: no elicitation in a mode the client did not declare
    "elicit-mode": "ELICU-05",  # 2025-11-25: every elicitation/create has a message, and a mode (form may omit it)
    "elicit-form": "ELICU-07",  # 2025-11-25: a form-mode request says mode "form" or nothing, with a requestedSchema
    "elicit-url": "ELICU-09",  # 2025-11-25: a URL-mode request has mode "url", a message, a valid url, an elicitationId
}

# Rules a later revision changed: (revision, requirement ID), oldest first. ``rule_for`` picks the
# row of the newest revision at or before the session's. 2025-06-18 took batches out again: an
# array is once more one invalid message, JSON-RPC's -32600 (MSG-01), as in 2024-11-05.
RULES: dict[str, tuple[tuple[str, str], ...]] = {
    "batch": ((BASE, "MSG-01"), ("2025-03-26", ID["batch-receive"]), ("2025-06-18", "MSG-01")),
    "completions": ((BASE, "CMP-12"), ("2025-03-26", ID["completions"])),
    "tool-input-errors": ((BASE, "TOOL-08"), ("2025-11-25", ID["tool-input-errors"])),
    "origin": (("2025-03-26", "SHTTP-06"), ("2025-11-25", ID["origin-403"])),
    "error-id": ((BASE, "MSG-03"), ("2025-11-25", ID["error-id"])),
    "negotiated": ((BASE, "LC-14"), ("2025-06-18", ID["negotiated"])),
}


def rule_for(rule: str, version: str) -> str:
    """The requirement ID that ``rule`` has in a session that agreed on ``version``."""
    rows = RULES[rule]
    chosen = rows[0][1]
    for revision, req_id in rows:
        if since(version, revision):
            chosen = req_id
    return chosen


def content_kinds(version: str) -> tuple[str, ...]:
    """The content types of a session's revision: audio from 2025-03-26, resource_link from 2025-06-18."""
    kinds: tuple[str, ...] = ("text", "image", "resource")
    if since(version, "2025-03-26"):
        kinds += ("audio",)
    if since(version, "2025-06-18"):
        kinds += ("resource_link",)
    return kinds


def elicitation_modes(capability: Any, version: str) -> frozenset[str]:
    """The elicitation modes a client that declared ``capability`` (its ``elicitation`` object, or
    None) takes in a session of ``version``: none before 2025-06-18 or without the capability;
    form alone in 2025-06-18, whatever the object holds (no modes yet, ELIC-05); from 2025-11-25
    the modes it names, an empty object meaning form alone (ELICU-03), as mcp_ref's client and
    server read it (mcp_ref/revisions/elicitation.py, ``_modes``)."""
    if not isinstance(capability, dict) or not since(version, "2025-06-18"):
        return frozenset()
    if not since(version, "2025-11-25"):
        return frozenset({"form"})
    return frozenset(declared_modes(capability))
