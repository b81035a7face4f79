"""The wire, explained: each message with its direction, its method, its spec page and the
requirement IDs it exercises.

Not a spec section: a teaching aid over all of them. ``Client(trace="explain")``, ``mcp-ref
request --explain`` and ``mcp-ref demo --explain`` print one line per message::

    client -> server  initialize  [basic/lifecycle LC-04 LC-05 LC-06 LC-11]
    client <- server  initialize: result  [basic/lifecycle LC-07 LC-12]
    client -> server  notifications/initialized  [basic/lifecycle LC-08]
    client -> server  tools/call  [server/tools TOOL-08]
    client <- server  tools/call: error -32602  [server/tools TOOL-18 TOOL-08]

How a line is made:

1. A request or notification is looked up by its method in ``METHODS``: the page, and the IDs
   a request of that kind exercises. A method 2024-11-05 does not define says so.
2. A response has no method: the explainer remembers, for each direction, the method of every
   request by its id, and a response sent the other way is matched to it. A result takes the
   IDs of the method's result; an error those of its code for that method (``tools/call`` and
   -32602 is TOOL-18), or, failing that, of the code alone (``ERRORS``).
3. A few things in the message add IDs of their own: a ``progressToken`` (PROG-01, PROG-02), a
   ``cursor`` or ``nextCursor`` (pagination), an ``isError`` result, images and embedded
   resources in content.
4. Look any ID up with ``mcp-ref spec ID``; the table below only names them.
5. Later revisions: a message or field that a revision after 2024-11-05 brought is labelled by
   that revision's page, written with the revision in front (``2025-06-18/client/elicitation``),
   and its IDs: ``elicitation/create`` and its result (``METHODS``, an entry with a ``revision``),
   and in ``LATER_FIELDS`` a tool's ``title``, ``annotations`` and ``outputSchema`` in a
   ``tools/list`` result, ``structuredContent``, audio and ``resource_link`` content, the
   ``completions`` and ``elicitation`` capabilities, a progress ``message``. The explainer reads
   the session's revision from the ``initialize`` result; a later field met in a session of an
   earlier revision also names LC-14 (each side sticks to the revision agreed on). In a
   2024-11-05 session of two sides that keep to it nothing of this shows. The
   ``MCP-Protocol-Version`` header of 2025-06-18 is HTTP's, not a message's: the explainer, which
   sees messages, does not show it (``mcp-ref request --http URL --trace`` does not either).
6. 2026-07-28, the revision without a handshake: its methods are in ``METHODS`` like any later
   one, and the fields of that revision in a message add their IDs (``labels``).
7. What the later revisions brought (their methods, ``LATER_FIELDS``, ``labels``) is a table of
   their room: mcp_ref/revisions/wire_labels.py.
"""

from __future__ import annotations

import json
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

from ..revisions.wire_labels import LATER_ERRORS, LATER_FIELDS, LATER_METHODS, labels, later_fields

BASE = "2024-11-05"  # lifecycle.PROTOCOL_VERSION: the revision whose pages need no prefix


@dataclass(frozen=True)
class Entry:
    """What a method exercises: its page, the IDs of a request (or notification) with that
    method, the IDs of its result, and the IDs behind each error code it may be answered with;
    ``revision``: the revision whose page it is (a method a later revision brought)."""

    page: str
    request: tuple[str, ...]
    result: tuple[str, ...] = ()
    errors: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    revision: str = BASE

    @property
    def where(self) -> str:
        return _page_of(self.revision, self.page)


def _page_of(revision: str, page: str) -> str:
    """A page as a label names it: ``server/tools`` for the base, ``2025-06-18/server/tools`` after."""
    return page if revision == BASE else f"{revision}/{page}"


def where_is(requirement_id: str) -> str:
    """The page of a requirement as a label names it: the 2024-11-05 index, or a later revision's
    (mcp_ref_check/indexes.py), the page written with that revision in front. KeyError for an ID
    no index knows."""
    from mcp_ref_check import indexes

    found = indexes.get(requirement_id)
    revision = indexes.revision_of(requirement_id)
    return (found.page or "overview") if revision == BASE else _page_of(revision, found.page)


_LIST_ERRORS: Mapping[int, tuple[str, ...]] = {-32602: ("PAG-09",)}  # a list method's bad params are its cursor

METHODS: dict[str, Entry] = {
    # basic/lifecycle
    "initialize": Entry("basic/lifecycle", ("LC-04", "LC-05", "LC-06", "LC-11"), ("LC-07", "LC-12"),
                        {-32602: ("LC-04", "LC-05", "LC-06")}),
    "notifications/initialized": Entry("basic/lifecycle", ("LC-08",)),
    # basic/utilities
    "ping": Entry("basic/utilities/ping", ("PING-05",), ("PING-01", "PING-12")),
    "notifications/cancelled": Entry("basic/utilities/cancellation", ("CAN-01", "CAN-20")),
    "notifications/progress": Entry("basic/utilities/progress", ("PROG-03", "PROG-04", "PROG-06")),
    # server/tools
    "tools/list": Entry("server/tools", ("TOOL-05",), (), _LIST_ERRORS),
    "tools/call": Entry("server/tools", ("TOOL-08",), ("TOOL-19",), {-32602: ("TOOL-18", "TOOL-08")}),
    "notifications/tools/list_changed": Entry("server/tools", ("TOOL-06",)),
    # server/resources
    "resources/list": Entry("server/resources", ("RES-01",), (), _LIST_ERRORS),
    "resources/templates/list": Entry("server/resources", ("RES-01",), ("RES-14",), _LIST_ERRORS),
    "resources/read": Entry("server/resources", ("RES-08",), ("RES-10", "RES-15"),
                            {-32002: ("RES-06",), -32602: ("RES-08",), -32603: ("RES-07",)}),
    "resources/subscribe": Entry("server/resources", ("RES-08", "AR-03"), (),
                                 {-32002: ("RES-06",), -32602: ("RES-08",)}),
    "resources/unsubscribe": Entry("server/resources", ("RES-12",)),
    "notifications/resources/updated": Entry("server/resources", ("RES-13", "AR-03")),
    "notifications/resources/list_changed": Entry("server/resources", ("RES-02", "RES-16")),
    # server/prompts
    "prompts/list": Entry("server/prompts", ("PRM-01",), (), _LIST_ERRORS),
    "prompts/get": Entry("server/prompts", ("PRM-14",), (),
                         {-32602: ("PRM-07", "PRM-08", "PRM-10"), -32603: ("PRM-09",)}),
    "notifications/prompts/list_changed": Entry("server/prompts", ("PRM-02",)),
    # server/utilities
    "completion/complete": Entry("server/utilities/completion", ("CMP-04", "CMP-08"), ("CMP-12",),
                                 {-32602: ("CMP-08",)}),
    "logging/setLevel": Entry("server/utilities/logging", ("LOG-02",), ("LOG-20",),
                              {-32602: ("LOG-03",), -32603: ("LOG-04",)}),
    "notifications/message": Entry("server/utilities/logging", ("LOG-01", "LOG-20")),
    # client/sampling and client/roots
    "sampling/createMessage": Entry("client/sampling", ("SAMP-05", "AR-05"), ("SAMP-09",),
                                    {-1: ("SAMP-07",), -32601: ("SAMP-05",)}),
    "roots/list": Entry("client/roots", ("ROOT-01",), ("ROOT-03", "ROOT-21"),
                        {-32601: ("ROOT-04",), -32603: ("ROOT-05",)}),
    "notifications/roots/list_changed": Entry("client/roots", ("ROOT-02", "ROOT-22")),
    # the methods later revisions brought (client/elicitation of 2025-06-18, server/discover of 2026-07-28, ...)
    **{method: Entry(*row) for method, row in LATER_METHODS.items()},
}


# The IDs behind an error code when the method has no entry of its own for it.
ERRORS: dict[int, tuple[str, ...]] = {
    -32700: ("MSG-01",),  # not JSON at all
    -32600: ("MSG-01",),  # not a valid message (before initialize: LC-01, added below)
    -32601: ("AR-01", "LC-21"),  # a known method the peer did not declare
    -32603: ("MSG-09",),  # the handler failed: a short message, no internals
    -32002: ("RES-06",),
    **LATER_ERRORS,
}

_MAX_REMEMBERED = 10_000  # request ids remembered per direction, oldest forgotten first


def _content_ids(method: str, result: dict[str, Any]) -> list[str]:
    """IDs for images and embedded resources in a tools/call or prompts/get result."""
    messages = result.get("messages")
    items = result.get("content") if method == "tools/call" else [
        m.get("content") for m in (messages if isinstance(messages, list) else []) if isinstance(m, dict)]
    kinds = {item.get("type") for item in items if isinstance(item, dict)} if isinstance(items, list) else set()
    ids = []
    if "image" in kinds and method == "prompts/get":
        ids.append("PRM-03")
    if "resource" in kinds:
        ids += ["TOOL-07"] if method == "tools/call" else ["PRM-04", "PRM-05", "PRM-06"]
    return ids


class Explainer:
    """A session ``trace`` hook that writes one explained line per message (see the module's
    docstring). ``side`` is the side the session belongs to, ``"client"`` or ``"server"``;
    ``write`` gets each line (without a newline). With ``show_json`` the message itself
    follows its line, indented. Safe to call from several threads."""

    def __init__(self, write: Callable[[str], None], *, side: str = "client", show_json: bool = False):
        if side not in ("client", "server"):
            raise ValueError(f"side must be 'client' or 'server', not {side!r}")
        peer = "server" if side == "client" else "client"
        self._arrows = {"->": f"{side} -> {peer}", "<-": f"{side} <- {peer}"}
        self._write = write
        self._show_json = show_json
        self._lock = threading.Lock()
        # The method of every request not yet answered, by the direction it travelled.
        self._asked: dict[str, OrderedDict[Any, str]] = {"->": OrderedDict(), "<-": OrderedDict()}
        self._initialized = False
        self._version: str | None = None  # the revision the initialize result agreed on

    def __call__(self, direction: str, data: bytes) -> None:
        with self._lock:
            try:
                explained = self.line(direction, data)
            except Exception as exc:  # whatever the peer sent, tracing must never cost a message
                explained = f"{self._arrows.get(direction, direction)}  (could not explain: {exc!r})"
            self._write(explained)
            if self._show_json:
                self._write("    " + data.decode("utf-8", "replace"))

    def line(self, direction: str, data: bytes) -> str:
        """The explained line for one message (and remember what a response will need)."""
        arrow = self._arrows.get(direction, direction)
        try:
            message = json.loads(data)
        except (ValueError, UnicodeDecodeError, RecursionError):
            return f"{arrow}  (not JSON)  [basic/messages: answered -32700]"
        if not isinstance(message, dict):
            return f"{arrow}  (not a JSON object)  [basic/messages MSG-01]"
        what, ids = self._explain(direction, message)
        return f"{arrow}  {what}  [{ids}]"

    def _explain(self, direction: str, message: dict[str, Any]) -> tuple[str, str]:
        method = message.get("method")
        if isinstance(method, str):
            if "id" in message:
                self._remember(direction, message["id"], method)
            return method, self._request_ids(method, message)
        if "result" in message or "error" in message:
            asked = self._asked["<-" if direction == "->" else "->"]
            key = _key(message.get("id"))
            method = asked.pop(key, None) if key is not None else None
            return self._response(method, message)
        return "(neither request, notification nor response)", "basic/messages MSG-01"

    def _remember(self, direction: str, request_id: Any, method: str) -> None:
        key = _key(request_id)
        if key is None:
            return
        asked = self._asked[direction]
        asked[key] = method
        if len(asked) > _MAX_REMEMBERED:
            asked.popitem(last=False)

    def _request_ids(self, method: str, message: dict[str, Any]) -> str:
        entry = METHODS.get(method)
        if entry is None:
            return "not a 2024-11-05 method: expect -32601"
        ids = list(entry.request)
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        meta = params.get("_meta")
        meta = meta if isinstance(meta, dict) else {}
        if "progressToken" in meta:
            ids += ["PROG-01", "PROG-02"]
        if "cursor" in params:
            ids += ["PAG-06", "PAG-07"]
        return _render(entry.where, ids + self._later(method, "request", params) + labels(method, params, "request"))

    def _later(self, method: str, kind: str, body: dict[str, Any]) -> list[str]:
        """The labels of the later revisions' fields in this message (``LATER_FIELDS``), as IDs and
        pages for ``_render``: a field newer than the session's revision also names LC-14."""
        out: list[str] = []
        for name in later_fields(method, kind, body):
            later = LATER_FIELDS[(method, kind, name)]
            out += [_PAGE_MARK + _page_of(later.revision, later.page), *later.ids]
            if self._version is not None and _older(self._version, later.revision):
                out.append("LC-14")
        return out

    def _response(self, method: str | None, message: dict[str, Any]) -> tuple[str, str]:
        entry = METHODS.get(method or "")
        name = method or f"(id {message.get('id')!r}: no request seen)"
        if "error" in message:
            error = message["error"] if isinstance(message["error"], dict) else {}
            code = error.get("code")
            if entry is None and code == -32601:  # JSON-RPC's own rule, no MCP requirement behind it
                return f"{name}: error {code}", "basic/messages: method not found"
            specific = entry.errors.get(code) if entry is not None and isinstance(code, int) else None
            ids = list(specific or (ERRORS.get(code, ()) if isinstance(code, int) else ()))
            if code == -32600 and method != "initialize" and not self._initialized:
                ids.append("LC-01")
            return f"{name}: error {code}", _render(entry.where if entry else "basic/messages", ids)
        result = message["result"] if isinstance(message.get("result"), dict) else {}
        if method == "initialize":
            self._initialized = True
            version = result.get("protocolVersion")
            self._version = version if isinstance(version, str) else None
        if entry is None:
            return f"{name}: result", "basic/messages MSG-05"
        ids = list(entry.result) if result.get("resultType") != "input_required" else []  # (not the final result)
        if method == "tools/call" and result.get("isError") is True:
            ids = ["TOOL-17"]
        if method in ("tools/call", "prompts/get"):
            ids += _content_ids(method, result)
        if "nextCursor" in result:
            ids += ["PAG-04", "PAG-11"]
        ids += self._later(str(method), "result", result) + labels(str(method), result, "result")
        return f"{name}: result", _render(entry.where, ids)


def _key(request_id: Any) -> tuple[str, Any] | None:
    """A dict key that keeps ``1`` and ``"1"`` apart; None for what cannot be an id."""
    if isinstance(request_id, bool) or not isinstance(request_id, (str, int)):
        return None
    return (type(request_id).__name__, request_id)


_PAGE_MARK = "page:"  # in the list _render gets: a page to show even without an ID of its own


def _older(version: str, revision: str) -> bool:
    """Whether a session of ``version`` predates ``revision`` (by the list of revisions, VER-02)."""
    from ..lifecycle import REVISIONS

    return version in REVISIONS and REVISIONS.index(version) < REVISIONS.index(revision)


def _render(page: str, ids: list[str]) -> str:
    """``"server/resources RES-08; architecture AR-03"``: the message's page with its IDs, then
    the IDs of other pages, grouped by their page (``where_is``: a later revision's page has the
    revision in front). An item ``page:P`` shows page P even if none of the IDs is on it."""
    groups: dict[str, list[str]] = {page: []}
    shown = {page}
    for item in dict.fromkeys(ids):
        if item.startswith(_PAGE_MARK):
            shown.add(item.removeprefix(_PAGE_MARK))
            groups.setdefault(item.removeprefix(_PAGE_MARK), [])
            continue
        groups.setdefault(where_is(item), []).append(item)
    return "; ".join(" ".join([where, *found]) for where, found in groups.items() if found or where in shown)


def tracer(side: str = "client", stream: TextIO | None = None, *, show_json: bool = False) -> Explainer:
    """An ``Explainer`` that prints to ``stream`` (default: stderr, as ``trace=True`` does).

    ``Client(trace="explain")`` is ``Client(trace=tracer())``; a server can pass
    ``tracer("server")`` to ``open_session``."""

    def write(text: str) -> None:
        target = stream if stream is not None else sys.stderr
        target.write(text + "\n")
        target.flush()

    return Explainer(write, side=side, show_json=show_json)
