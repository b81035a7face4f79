"""Elicitation: a server asks the user, through the client, for information it needs.

Spec page: client/elicitation
New in revision 2025-06-18; URL mode, titled enums and defaults came with 2025-11-25.
https://modelcontextprotocol.io/specification/2025-06-18/client/elicitation
https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation

In short:

1. A client that can ask its user declares the ``elicitation`` capability; a server asks only
   such clients, and only in a session of 2025-06-18 or later. From 2025-11-25 on the capability
   names the modes it takes, ``{"form": {}, "url": {}}``; an empty object still means form only.
2. Form mode: the server sends ``elicitation/create`` with a ``message`` for the user and a
   ``requestedSchema``: a JSON Schema object that is flat, each property a string, number,
   integer, boolean or enum (elicitation_schema.py has the rules and what 2025-11-25 added to them).
3. The user answers, declines or dismisses; the client answers ``{"action": "accept" | "decline" |
   "cancel", "content"?}``, with ``content`` (values that fit the schema) only for ``accept``.
   The server should check that content against its schema before it trusts it.
4. URL mode (2025-11-25): for what must not pass through the client (a password, a payment, a
   third party's OAuth consent) the server sends ``mode: "url"``, a ``url`` and an
   ``elicitationId`` instead of a schema. The client shows the whole URL, opens it only with the
   user's consent, and answers with an ``action`` alone: ``accept`` means "the user agreed to go
   there", not "it is done". When the interaction is over, the server may tell the client that
   asked with ``notifications/elicitation/complete`` (the id); a client ignores an id it does not
   know or already saw completed.
5. A server that cannot serve a request until the user has been to a URL may answer it with
   error -32042 (URL elicitation required), listing those URL elicitations in ``data``.
6. A client asked in a mode it did not declare answers -32602; so does one sent a URL that is not
   valid, such as one holding a control character (ESC, CR, a bidi override), which could hide
   the real URL behind a fake one on the user's screen.

Server side: ``elicit`` and ``elicit_url`` (what ``ctx.elicit`` and ``ctx.elicit_url`` call) refuse
locally, sending nothing, what this client or this session cannot take, check the schema before
sending and the answer after; ``notify_complete`` sends the notification of item 4;
``URLElicitationRequired`` is the error of item 5. Client side: ``Client(elicitation_handler=...,
elicitation_url=...)``, through ``AnsweringElicitation``; ``answer`` checks each request, hands its
params to the handler and checks what it returns; ``Completions`` lets through only the
notifications item 4 allows. A person at a terminal can be the handler: ``ask_in_terminal``
(elicitation_terminal.py).
"""

from __future__ import annotations

import threading
import unicodedata
import urllib.parse
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..lifecycle import require_peer, since
from ..messages import InvalidParams, McpError, MethodNotFound, param, printable
from .elicitation_schema import Schema, checked_content, requested_schema, schema_problem

ElicitationHandler = Callable[[dict[str, Any]], dict[str, Any]]
ACTIONS = ("accept", "decline", "cancel")
URL_ELICITATION_REQUIRED = -32042  # the error of item 5 (2025-11-25)
METHOD = "elicitation/create"
COMPLETE = "notifications/elicitation/complete"


def capability(version: str, *, url: bool = False) -> dict[str, Any]:
    """What a client with a handler declares, for the revision it offers: ``{}`` in 2025-06-18;
    from 2025-11-25 on the modes by name (form always, url when its handler takes it)."""
    if not since(version, "2025-11-25"):
        return {}  # ELIC-05: declared (only) with a handler; no modes yet in 2025-06-18
    return {"form": {}, "url": {}} if url else {"form": {}}  # revisions/v2025_11_25.py, item 2


def _modes(declared: Any) -> set[str]:
    """The modes an ``elicitation`` capability allows (item 1: empty means form only)."""
    if not isinstance(declared, dict):
        return set()
    modes = {mode for mode in ("form", "url") if isinstance(declared.get(mode), dict)}
    return modes or {"form"}


# --- the server's side ---------------------------------------------------------------------------


class URLElicitationRequired(McpError):
    """Raise this from a handler (a tool, say) that cannot go on until the user has completed the
    URL elicitations it lists (item 5): each is ``{"elicitationId", "url", "message"}``. The client
    gets error -32042 with them in ``data["elicitations"]`` (``mode: "url"`` added)."""

    code = URL_ELICITATION_REQUIRED

    def __init__(self, elicitations: list[dict[str, Any]], message: str = "This request needs a URL elicitation first"):
        listed = [url_params(e.get("message", ""), e.get("url", ""), e.get("elicitationId", ""))
                  for e in elicitations]
        if not listed:  # revisions/v2025_11_25.py, item 2: the error lists at least one
            raise ValueError("URLElicitationRequired needs at least one elicitation")
        super().__init__(message, {"elicitations": listed})


def url_params(message: str, url: str, elicitation_id: str) -> dict[str, Any]:
    """The params of a URL-mode ``elicitation/create``; ValueError if one of them is not usable."""
    if not isinstance(message, str) or not isinstance(elicitation_id, str) or not elicitation_id:
        raise ValueError("a URL elicitation needs a message (str) and a non-empty elicitation id (str)")
    if _url_problem(url):
        raise ValueError(f"a URL elicitation needs an absolute URL: {_url_problem(url)}")
    return {"mode": "url", "message": message, "url": url, "elicitationId": elicitation_id}


def _url_problem(url: Any) -> str | None:
    """Why ``url`` is not a URL a client may show and a person may open; None if it is one. A
    character that no valid URL holds and that a terminal or a page would not show as itself (a
    control such as ESC, CR or NUL; a bidi override such as U+202E; a blank) could hide the real URL
    behind a fake one, where the client must show the whole of it (item 4): such a URL is refused."""
    if not isinstance(url, str):
        return f"a string, not {type(url).__name__}"
    hidden = [char for char in url if unicodedata.category(char)[0] in "CZ"]
    if hidden:  # ELICU-29: the whole URL, as it is, before consent
        return f"{printable(url)!r} holds {hidden[0]!r}, a control or blank character that no URL holds"
    parts = urllib.parse.urlsplit(url)
    if not parts.scheme or not parts.netloc:  # revisions/v2025_11_25.py, item 2: a valid URL
        return f"{printable(url)!r} has no scheme or host"
    return None


def _require_mode(session: Any, mode: str) -> None:
    """Refuse locally, sending nothing: a session older than the mode, or a client without it."""
    version = session.lifecycle.protocol_version
    revision = "2025-06-18" if mode == "form" else "2025-11-25"
    error: McpError | None = None
    if not since(version, revision):  # revisions/v2025_06_18.py, item 1; v2025_11_25.py, item 2
        what = "elicitation" if mode == "form" else "URL-mode elicitation"
        error = MethodNotFound(f"the client cannot be asked: this session speaks MCP {version}, "
                               f"and {what} came with {revision}")
    else:
        require_peer(session, "elicitation", METHOD)  # the client declared elicitation (item 1)
        if mode not in _modes(session.lifecycle.peer_capabilities.get("elicitation")):
            getattr(session, "missing_capability", lambda *_: None)("elicitation", {mode: {}})  # 2026-07-28: -32021
            error = MethodNotFound(f"the client did not declare {mode}-mode elicitation, so it cannot be asked "
                                   f"for it (it declared {sorted(_modes(session.lifecycle.peer_capabilities['elicitation']))})")
    if error is not None:
        error.failed_request = METHOD
        raise error


def _answer_problem(result: Any, schema: dict[str, Any] | None) -> str | None:
    """Why the client's answer is not an elicitation result (for ``schema``: form mode); None if it is."""
    if not isinstance(result, dict) or result.get("action") not in ACTIONS:
        return f'its "action" must be one of {", ".join(ACTIONS)}'
    content = result.get("content")
    if result["action"] != "accept" or content is None:
        return None if result["action"] != "accept" or schema is None else 'an "accept" needs "content"'
    if schema is None:
        return 'a URL-mode answer carries no "content"'
    try:
        checked_content(content, schema)  # item 3: the server checks content before trusting it
    except ValueError as exc:
        return str(exc)
    return None


def _ask(session: Any, params: dict[str, Any], schema: dict[str, Any] | None, timeout: float | None) -> dict[str, Any]:
    result: dict[str, Any] = session.request(METHOD, params, timeout=timeout)
    problem = _answer_problem(result, schema)
    if problem is not None:  # a client that answers garbage: the caller hears it, clearly
        error = McpError(f"the client's answer to {METHOD} is not usable: {printable(problem)}")
        error.failed_request = METHOD
        raise error
    return result


def elicit(session: Any, message: str, schema: Schema, *, timeout: float | None = None) -> dict[str, Any]:
    """Server side, form mode: ask the user, through the client, for what ``schema`` describes
    (the wire's ``requestedSchema``, or the Pythonic form of elicitation_schema.requested_schema).
    Returns the client's answer as on the wire, ``{"action", "content"?}``, its content checked.
    ValueError for a schema outside the rules (nothing is sent); ``McpError`` when this client
    or session cannot be asked (nothing is sent) or answered something unusable."""
    if not isinstance(message, str):
        raise TypeError(f"elicit needs a message for the user (str), not {type(message).__name__}")
    version = session.lifecycle.protocol_version
    wire = requested_schema(schema, version)  # item 2: checked here, before anything is sent
    _require_mode(session, "form")
    params: dict[str, Any] = {"message": message, "requestedSchema": wire}
    if since(version, "2025-11-25"):
        params = {"mode": "form", **params}  # revisions/v2025_11_25.py, item 2: a field older peers never see
    return _ask(session, params, wire, timeout)


def elicit_url(session: Any, message: str, url: str, *, elicitation_id: str,
               timeout: float | None = None) -> dict[str, Any]:
    """Server side, URL mode (2025-11-25): ask the user to go to ``url``. Returns ``{"action"}``;
    ``accept`` means the user agreed to open it. Keep ``elicitation_id`` with what you need to finish
    the interaction, and call ``notify_complete(session, elicitation_id)`` when it is done."""
    params = url_params(message, url, elicitation_id)  # before anything is sent
    _require_mode(session, "url")
    if since(session.lifecycle.protocol_version, "2026-07-28"):  # CFEAT-03: that revision dropped the id
        params.pop("elicitationId")
    return _ask(session, params, None, timeout)


class Eliciting:
    """The two helpers a server's ``ctx`` takes from this page (server.RequestContext): the user
    is asked through the client of ``self.session``."""

    session: Any

    def elicit(self, message: str, requested_schema: dict[str, Any], *,
               timeout: float | None = None) -> dict[str, Any]:
        """Ask the user, through the client, for what ``requested_schema`` describes (a session of
        2025-06-18 or later): the wire's flat object schema, or ``{"name": str, "age": int, "size":
        ["S", "M"]}`` (elicitation_schema.py). Returns the answer as on the wire, ``{"action":
        "accept" | "decline" | "cancel", "content"?}``, its content checked against the schema.
        ValueError for a schema outside the rules; ``McpError`` if the client did not declare
        elicitation or the session is older (nothing is sent), or if its answer is unusable. A
        person may take a while: give ``timeout`` (default: the session's). In 2026-07-28 the
        question travels in the request's result (mrtr.py)."""
        return elicit(self.session, message, requested_schema, timeout=timeout)

    def elicit_url(self, message: str, url: str, *, elicitation_id: str,
                   timeout: float | None = None) -> dict[str, Any]:
        """URL-mode elicitation (2025-11-25): ask the user to open ``url``; returns ``{"action"}``.
        When the interaction there is over, ``revisions.elicitation.notify_complete(ctx.session,
        elicitation_id)`` tells this client. ``McpError`` without sending anything if the client did
        not declare URL mode or the session is older."""
        return elicit_url(self.session, message, url, elicitation_id=elicitation_id, timeout=timeout)


def notify_complete(session: Any, elicitation_id: str) -> bool:
    """Server side: ``notifications/elicitation/complete`` for a URL elicitation that is over, to
    the session that asked it (item 4: to that client only; give the ``ctx.session`` of the
    request that asked). Whether it was sent: not to a client without URL mode, nor once closed."""
    if not since(session.lifecycle.protocol_version, "2025-11-25") or "url" not in _modes(
            session.lifecycle.peer_capabilities.get("elicitation")):
        return False  # revisions/v2025_11_25.py, item 2: only a client that can have asked hears it
    try:
        session.notify(COMPLETE, {"elicitationId": elicitation_id})
    except McpError:
        return False  # the session closed meanwhile
    return True


# --- the client's side ---------------------------------------------------------------------------


def _check_request(params: dict[str, Any], modes: set[str], version: str | None) -> str:
    """Client side: the mode of a well-formed request this client declared; InvalidParams otherwise."""
    param(params, "message", "string")
    mode = str(params.get("mode", "form"))  # item 6: no mode means form
    if mode not in ("form", "url") or mode not in modes:  # item 6: a mode we did not declare: -32602
        raise InvalidParams(f"Invalid params: this client takes no {printable(mode)!r}-mode elicitation",
                            {"field": "mode"})
    if mode == "url":
        if not since(version, "2026-07-28"):  # CFEAT-03: 2026-07-28 dropped the id (the round is the request)
            param(params, "elicitationId", "string")
        problem = _url_problem(params.get("url"))
        if problem is not None:
            raise InvalidParams(f'Invalid params: "url" is not a valid absolute URL: {problem}', {"field": "url"})
        return mode
    problem = schema_problem(params.get("requestedSchema"), None, strict=False)
    if problem is not None:
        raise InvalidParams(f"Invalid params: requestedSchema: {printable(problem)}", {"field": "requestedSchema"})
    return mode


def answer(handler: ElicitationHandler | None, ctx: Any, completions: Completions | None = None) -> dict[str, Any]:
    """Client side: answer ``elicitation/create`` with the handler's result, both checked."""
    lifecycle = ctx.session.lifecycle
    if handler is None or not since(lifecycle.protocol_version, "2025-06-18"):  # never declared, never asked
        raise MethodNotFound("Method not found: elicitation/create (this client declared no elicitation)")
    modes = _modes(lifecycle.capabilities.get("elicitation")) if since(lifecycle.protocol_version, "2025-11-25") \
        else {"form"}  # 2025-06-18 had form mode only
    mode = _check_request(ctx.params, modes, lifecycle.protocol_version)
    result = handler(ctx.params)
    problem = _answer_problem(result, ctx.params["requestedSchema"] if mode == "form" else None)
    if problem is not None:  # a bug in the host's handler: loud here (logged), -32603 to the server
        raise TypeError(f"the elicitation handler returned {result!r}: {problem}")
    if result["action"] == "accept" and mode == "url" and completions is not None and "elicitationId" in ctx.params:
        completions.asked(ctx.params["elicitationId"])
    return {"action": result["action"], **({"content": result["content"]} if result["action"] == "accept"
                                            and mode == "form" else {})}


class AnsweringElicitation:
    """The client's side of this page, which ``client.Client`` takes: its handler and URL mode
    (``_take_elicitation``), the answer to ``elicitation/create``, and the notifications of item 4
    that reach its ``on_notification``."""

    _on_notification: Callable[[str, dict[str, Any]], None] | None

    def _take_elicitation(self, handler: ElicitationHandler | None, url: bool) -> None:
        if url and handler is None:  # a capability is declared only with a handler to serve it
            raise ValueError("elicitation_url=True says that the elicitation_handler takes URL mode: give one")
        self.elicitation_handler = handler
        self.elicitation_url = url  # its handler takes URL mode (2025-11-25)
        self._url_elicitations = Completions()  # the URL elicitations our user accepted

    def _elicitation_capability(self, version: str) -> dict[str, Any]:
        """``{"elicitation": ...}`` to declare when offering ``version`` (only with a handler, ELIC-05), else ``{}``."""
        if self.elicitation_handler is None or not since(version, "2025-06-18"):
            return {}
        return {"elicitation": capability(version, url=self.elicitation_url)}

    def _answer_elicitation(self, ctx: Any) -> dict[str, Any]:
        return answer(self.elicitation_handler, ctx, self._url_elicitations)

    def _elicitation_completed(self, params: dict[str, Any]) -> None:
        """Once, for a URL elicitation our user accepted, to ``on_notification``."""
        if self._url_elicitations.arrived(params) and self._on_notification is not None:
            self._on_notification(COMPLETE, params)


class Completions:
    """Client side: the URL elicitations this client's user accepted, so that only a
    ``notifications/elicitation/complete`` naming one of them, once, reaches the host (item 4).
    Bounded: past ``limit`` the oldest are forgotten (their completion is then ignored)."""

    def __init__(self, limit: int = 1000):
        self.limit = limit
        self._ids: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()  # guards _ids: the pool's threads add, the reader thread takes

    def asked(self, elicitation_id: str) -> None:
        with self._lock:
            self._ids[elicitation_id] = None
            while len(self._ids) > self.limit:
                self._ids.popitem(last=False)

    def arrived(self, params: dict[str, Any]) -> bool:
        """Whether this notification names an elicitation still open (and it is closed now)."""
        elicitation_id = params.get("elicitationId")
        with self._lock:  # item 4: an unknown or already completed id is ignored
            return isinstance(elicitation_id, str) and self._ids.pop(elicitation_id, False) is None
