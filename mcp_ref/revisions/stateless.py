"""Revision 2026-07-28 has no handshake: each request says which revision it speaks, and is served alone.

Spec page: basic/versioning
https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
https://modelcontextprotocol.io/specification/2026-07-28/basic/index#meta
https://modelcontextprotocol.io/specification/2026-07-28/server/discover
(the page of versioning, with the ``_meta`` fields of basic/index and server/discover).

What this revision changes, and how an mcp_ref ``Server`` serves it beside the handshake:

1. No ``initialize``, no session. Every request carries, in ``params._meta``, the revision it
   speaks (``io.modelcontextprotocol/protocolVersion``) and the capabilities the client brings to
   it (``io.modelcontextprotocol/clientCapabilities``); the client's name may come too
   (``io.modelcontextprotocol/clientInfo``). A request without the two required fields is
   malformed: -32602 (STLS-09, STLS-10). Nothing is carried over from an earlier request on the
   same pipe or connection (STLS-03): a stdio process is not a conversation.
2. A request naming a revision the server does not serve gets -32022, with the revisions it
   does serve in ``data.supported`` (STLS-16); the client picks one of them and asks again.
3. ``server/discover`` tells what the server is before anything else: the revisions it serves,
   its capabilities, its instructions, and its name in ``_meta`` (DISC-01, DISC-04).
4. Every result says what kind of result it is: ``resultType`` ``"complete"``, or
   ``"input_required"`` when the server needs the client's input first (RTYPE-01; mrtr.py is
   that pattern). Every result names the server in ``_meta`` (STLS-13). The lists and
   ``resources/read`` say how long they stay fresh and who may share them (``ttlMs``,
   ``cacheScope``: CACHE-01; we say 0, stale at once, and ``private``).
5. Gone from this revision, so answered -32601 here: ``ping``, ``logging/setLevel`` (the level is
   asked per request, ``io.modelcontextprotocol/logLevel``, and without it no log message is
   sent: LOGX-01), ``resources/subscribe`` and ``resources/unsubscribe`` (STLS-28, LOGX-04). A
   resource that does not exist is -32602, no longer -32002 (RREAD-03, ERRC-05).
6. A dual-era server (STLS-21, STLS-25): a request whose ``_meta`` names a revision is served by
   this module, however the connection began; an ``initialize`` starts the handshake of
   lifecycle.py, as before. A server whose ``protocol_versions`` leave 2026-07-28 out is a
   server of the handshake only, and one that names 2026-07-28 alone refuses ``initialize``
   saying so (STLS-23, lifecycle.py).

How a request is served (``serve``): ``refusal`` checks the ``_meta`` (the HTTP endpoint makes the
same check before anything else: revisions/stateless_http.py); then the handler of the server's
one dispatch table runs as it does for a session, but its ``ctx.session`` is a ``RequestView``:
the connection's session, seen with a lifecycle made from this request's ``_meta`` alone. So
every page reads the client's capabilities, the revision and the log level of this request, and
what a handler asks of the client (``ctx.create_message``, ``ctx.list_roots``, ``ctx.elicit``)
becomes an ``input_required`` round trip (mrtr.py) instead of a request to the client.
"""

from __future__ import annotations

from typing import Any

from .. import logs, messages
from ..lifecycle import STATELESS_REVISIONS, LifecycleState, Phase, implementation_info
from ..messages import InvalidParams, McpError, MethodNotFound
from . import mrtr

REVISION = "2026-07-28"
PREFIX = "io.modelcontextprotocol/"  # the reserved prefix of the protocol's own _meta keys
VERSION_KEY = PREFIX + "protocolVersion"
CAPABILITIES_KEY = PREFIX + "clientCapabilities"
CLIENT_INFO_KEY = PREFIX + "clientInfo"
SERVER_INFO_KEY = PREFIX + "serverInfo"
LOG_LEVEL_KEY = PREFIX + "logLevel"

# The codes this revision gives the range -32020..-32099 it keeps for itself (ERRC-04).
HEADER_MISMATCH = -32020  # an HTTP header that disagrees with the body (stateless_http.py)
MISSING_CLIENT_CAPABILITY = -32021  # STLS-12
UNSUPPORTED_PROTOCOL_VERSION = -32022  # STLS-16
MODERN_ERRORS = frozenset({HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION})

DISCOVER = "server/discover"
GONE = frozenset({"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"})
CACHEABLE = frozenset({DISCOVER, "tools/list", "prompts/list", "resources/list", "resources/templates/list",
                       "resources/read"})  # CACHE-01
TTL_MS, CACHE_SCOPE = 0, "private"  # stale at once; never shared between users (CACHE-05, CACHE-18)


class UnsupportedProtocolVersion(McpError):
    """-32022: the request names a revision this server does not serve; ``data`` lists those it does."""

    code = UNSUPPORTED_PROTOCOL_VERSION


def is_modern(params: Any) -> bool:
    """Whether a request's params name their revision in ``_meta``: a request of 2026-07-28 or later."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and VERSION_KEY in meta


def modern_versions(spoken: tuple[str, ...]) -> list[str]:
    """The revisions without a handshake among ``spoken`` (a server's ``protocol_versions``)."""
    return [version for version in spoken if version in STATELESS_REVISIONS]


def addressed(spoken: tuple[str, ...], method: str, params: Any) -> bool:
    """Whether this module serves the request: the server serves 2026-07-28, and the request names
    its revision (or is ``server/discover``, which only this revision has)."""
    return bool(modern_versions(spoken)) and (is_modern(params) or method == DISCOVER)


def refusal(spoken: tuple[str, ...], method: str, params: Any) -> McpError | None:
    """Why a request of this revision cannot be served, or None: a revision the server does not
    serve (-32022), a missing or malformed required ``_meta`` field or log level (-32602), a
    method this revision dropped (-32601). The same check over stdio and over HTTP."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict) or VERSION_KEY not in meta:  # STLS-10: no revision named
        return InvalidParams(f"Invalid params: a request of {REVISION} names its revision in "
                             f"_meta[{VERSION_KEY!r}] (or send initialize first, for the handshake)")
    version, served = meta[VERSION_KEY], modern_versions(spoken)
    if version not in served:  # STLS-16: the revisions it does serve, so the client can choose
        return UnsupportedProtocolVersion(
            f"Unsupported protocol version: {messages.printable(str(version))!r}; this server serves "
            f"{', '.join(served)} in _meta", {"supported": served, "requested": version})
    if not isinstance(meta.get(CAPABILITIES_KEY), dict):  # STLS-09, STLS-10: required, an object
        return InvalidParams(f"Invalid params: _meta[{CAPABILITIES_KEY!r}] must be an object (empty if "
                             "the client brings no capability)")
    if CLIENT_INFO_KEY in meta and not isinstance(meta[CLIENT_INFO_KEY], dict):
        return InvalidParams(f"Invalid params: _meta[{CLIENT_INFO_KEY!r}] must be an object")
    if LOG_LEVEL_KEY in meta and meta[LOG_LEVEL_KEY] not in logs.SEVERITY:  # LOGX-03
        return InvalidParams(f"Invalid params: _meta[{LOG_LEVEL_KEY!r}] must be one of {', '.join(logs.LEVELS)}")
    if method in GONE:  # STLS-26, STLS-28, LOGX-04: not part of this revision
        return MethodNotFound(f"Method not found: {method} is not part of {version}")
    return None


class RequestView:
    """The connection's session as one request of this revision sees it: its own ``lifecycle``
    (the request's revision and client capabilities, the server's capabilities for them), its
    own ``state`` (the request's log level; the rate limits stay the connection's), and
    ``request``, which asks the client through the request's result (mrtr.py). Everything else
    (``notify`` for progress and log messages, ``default_timeout``, ...) is the session's."""

    def __init__(self, session: Any, lifecycle: LifecycleState, state: dict[str, Any], asking: mrtr.Asking) -> None:
        self._session, self.lifecycle, self.state, self.asking = session, lifecycle, state, asking

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    def request(self, method: str, params: dict[str, Any] | None = None, **_: Any) -> dict[str, Any]:
        answer: dict[str, Any] = self.asking.ask(method, params or {})
        return answer  # MRTR-01, MRTR-03: never a request of our own


def capabilities(server: Any, version: str) -> dict[str, Any]:
    """The server's capabilities in this revision: as declared by what is registered, without
    the promises it cannot keep here (no ``subscriptions/listen`` yet: no ``listChanged``, no
    ``subscribe``; no ``logging`` without a level asked)."""
    declared: dict[str, Any] = server.capabilities(version)
    for name in ("tools", "prompts", "resources"):
        if name in declared:
            declared[name] = {}
    return declared


def serve(server: Any, ctx: Any) -> dict[str, Any]:
    """Serve one request of this revision, on its own (points 1..5), with the server's dispatch
    table; raise ``McpError`` as a handler does."""
    problem = refusal(server.protocol_versions, ctx.method, ctx.params)
    if problem is not None:
        raise problem
    meta = ctx.params["_meta"]
    version = meta[VERSION_KEY]
    if ctx.method == DISCOVER:
        return answer(server, ctx.method, version, discover(server, version))
    handler = server.request_handlers.get(ctx.method)
    if handler is None:
        raise MethodNotFound(f"Method not found: {ctx.method}")
    lifecycle = LifecycleState()  # STLS-03: made from this request alone
    lifecycle.phase, lifecycle.protocol_version = Phase.OPERATING, version
    lifecycle.peer_capabilities, lifecycle.peer_info = meta[CAPABILITIES_KEY], meta.get(CLIENT_INFO_KEY)
    lifecycle.capabilities = capabilities(server, version)
    state = {"rate_limits": ctx.session.state.setdefault("rate_limits", {})}
    if LOG_LEVEL_KEY in meta:
        state[logs.STATE_KEY] = meta[LOG_LEVEL_KEY]  # LOGX-02: at this level or above, for this request
    else:
        lifecycle.capabilities.pop("logging", None)  # LOGX-01: no level asked, no log message sent
    asking = mrtr.Asking(mrtr.state_key(server), ctx.method, ctx.params)
    ctx.session = RequestView(ctx.session, lifecycle, state, asking)
    try:
        result = server.checked_call(ctx, handler)  # STLS-27: only what it declared, within its rate
    except mrtr.InputRequired as needed:  # MRTR-21..23: the client answers, then asks again
        if ctx.method not in mrtr.METHODS:  # MRTR-04: only these three may be answered so
            raise messages.InternalError(f"Internal error: a handler of {ctx.method} asked the client for "
                                         f"input, which {version} allows only in {', '.join(sorted(mrtr.METHODS))}") from None
        return answer(server, ctx.method, version, needed.result(), kind="input_required")
    except messages.ResourceNotFound as exc:  # RREAD-03, ERRC-05: -32602 here, -32002 before
        raise InvalidParams(exc.message, exc.data) from None
    return answer(server, ctx.method, version, result)


def discover(server: Any, version: str) -> dict[str, Any]:
    """The ``server/discover`` result (DISC-01): the revisions it serves in ``_meta``, its
    capabilities, its instructions."""
    result: dict[str, Any] = {"supportedVersions": modern_versions(server.protocol_versions),
                              "capabilities": capabilities(server, version)}
    if server.instructions is not None:
        result["instructions"] = server.instructions
    return result


def answer(server: Any, method: str, version: str, result: dict[str, Any], kind: str = "complete") -> dict[str, Any]:
    """``result`` as this revision answers: its ``resultType`` (RTYPE-01), the server's name in
    ``_meta`` (STLS-13, DISC-04), and for a complete list or read how long it stays fresh (CACHE-01)."""
    info = implementation_info({"name": server.name, "version": server.version, **server.later_info}, version)
    meta: dict[str, Any] = result["_meta"] if isinstance(result.get("_meta"), dict) else {}
    answered = {"resultType": kind, **result, "_meta": {**meta, SERVER_INFO_KEY: info}}
    if kind == "complete" and method in CACHEABLE:
        answered.setdefault("ttlMs", TTL_MS)  # CACHE-05: never negative
        answered.setdefault("cacheScope", CACHE_SCOPE)  # CACHE-16: the same for every page
    return answered
