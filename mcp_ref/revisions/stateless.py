"""Revision 2026-07-28 is stateless: each request carries all it needs, and the server serves it alone.

Spec page: basic/index
https://modelcontextprotocol.io/specification/2026-07-28/basic/index#statelessness
https://modelcontextprotocol.io/specification/2026-07-28/server/discover
(the overview's statelessness and ``_meta`` fields, and server/discover; which requests are of
this revision, and which are refused, is versioning.py).

What this revision changes, and how an mcp_ref ``Server`` serves it beside the handshake:

1. No ``initialize``, no session. Every request carries, in ``params._meta``, the revision it
   speaks and the capabilities the client brings to it (versioning.py checks them). Nothing is
   carried over from an earlier request on the same pipe or connection (STLS-03): a stdio
   process is not a conversation.
2. ``server/discover`` tells what the server is before anything else: the revisions it serves,
   its capabilities, its instructions, and its name in ``_meta`` (DISC-01, DISC-04).
3. Every result says what kind of result it is: ``resultType`` ``"complete"``, or
   ``"input_required"`` when the server needs the client's input first (RTYPE-01; mrtr.py is
   that pattern). Every result names the server in ``_meta`` (STLS-13). The lists and
   ``resources/read`` say how long they stay fresh and who may share them (``ttlMs``,
   ``cacheScope``: CACHE-01; we say 0, stale at once, and ``private``).
4. The log level is asked per request (``io.modelcontextprotocol/logLevel``); without it no log
   message is sent for that request (LOGX-01), and an unknown level is -32602 (LOGX-03). A
   resource that does not exist is -32602, no longer -32002 (RREAD-03, ERRC-05).
5. A dual-era server (STLS-21, STLS-25): a request whose ``_meta`` names a revision is served by
   this module, however the connection began; an ``initialize`` starts the handshake of
   lifecycle.py, as before. A server whose ``protocol_versions`` leave 2026-07-28 out is a
   server of the handshake only, and one that names 2026-07-28 alone refuses ``initialize``
   saying so (STLS-23, lifecycle.py).

How a request is served (``serve``): versioning.py's ``refusal`` checks the ``_meta``; then the
handler of the server's one dispatch table runs as it does for a session, but its
``ctx.session`` is a ``RequestView``: the connection's session, seen with a lifecycle made from
this request's ``_meta`` alone. So every page reads the client's capabilities, the revision and
the log level of this request, and what a handler asks of the client (``ctx.create_message``,
``ctx.list_roots``, ``ctx.elicit``) becomes an ``input_required`` round trip (mrtr.py) instead of
a request to the client.
"""

from __future__ import annotations

from typing import Any

from .. import logs, messages
from ..lifecycle import LifecycleState, Phase, implementation_info
from ..messages import InvalidParams, McpError
from . import mrtr, subscriptions
from .elicitation import URLElicitationRequired
from .versioning import (
    CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    DISCOVER,
    LOG_LEVEL_KEY,
    MISSING_CLIENT_CAPABILITY,
    SERVER_INFO_KEY,
    VERSION_KEY,
    addressed,
    modern_versions,
    refusal,
)

CACHEABLE = frozenset({DISCOVER, "tools/list", "prompts/list", "resources/list", "resources/templates/list",
                       "resources/read"})  # CACHE-01
TTL_MS, CACHE_SCOPE = 0, "private"  # stale at once; never shared between users (CACHE-05, CACHE-18)

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

    def missing_capability(self, capability: str, detail: dict[str, Any] | None = None) -> None:
        """A page found that the client did not declare ``capability``, or the part ``detail`` of it
        (lifecycle.require_peer, sampling.create_message, elicitation.py)."""
        raise mrtr.MissingCapability(capability, detail)  # STLS-12: -32021 for the request, not a tool error

    def request(self, method: str, params: dict[str, Any] | None = None, **_: Any) -> dict[str, Any]:
        answer: dict[str, Any] = self.asking.ask(method, params or {})
        return answer  # MRTR-01, MRTR-03: never a request of our own


def capabilities(server: Any, version: str) -> dict[str, Any]:
    """The server's capabilities in this revision: as declared by what is registered; the changes
    of each list, and the updates of resources, come through ``subscriptions/listen`` here
    (subscriptions.py)."""
    declared: dict[str, Any] = server.capabilities(version)
    return declared


def serve(server: Any, ctx: Any) -> dict[str, Any] | None:
    """Serve one request of this revision, on its own (points 1..5), with the server's dispatch
    table; raise ``McpError`` as a handler does. None for a request of the handshake's era
    (``initialize``, say), which the server serves as it always has."""
    if not addressed(server.protocol_versions, ctx.method, ctx.params):
        return None
    problem = refusal(server.protocol_versions, ctx.method, ctx.params)
    if problem is not None:
        raise problem
    meta = ctx.params["_meta"]
    version = meta[VERSION_KEY]
    if LOG_LEVEL_KEY in meta and meta[LOG_LEVEL_KEY] not in logs.LEVELS:  # LOGX-03 (a tuple: any JSON value may come)
        raise InvalidParams(f"Invalid params: _meta[{LOG_LEVEL_KEY!r}] must be one of {', '.join(logs.LEVELS)}")
    if ctx.method == DISCOVER:
        return answer(server, ctx.method, version, discover(server, version))
    if ctx.method == subscriptions.METHOD:  # the long request that replaced the GET stream
        return answer(server, ctx.method, version, subscriptions.listen(server, ctx, capabilities(server, version)))
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
        result = server._handle_request(ctx)  # STLS-27: the view's phase lets it by the gate to what it declared
    except mrtr.InputRequired as needed:  # MRTR-21..23: the client answers, then asks again
        if ctx.method not in mrtr.METHODS:  # MRTR-04: only these three may be answered so
            raise messages.InternalError(f"Internal error: a handler of {ctx.method} asked the client for "
                                         f"input, which {version} allows only in {', '.join(sorted(mrtr.METHODS))}") from None
        return answer(server, ctx.method, version, needed.result(), kind="input_required")
    except mrtr.MissingCapability as missing:  # STLS-12
        raise McpError(f"Missing required client capability: this request needs {missing.named!r}, which its "
                       f"{CAPABILITIES_KEY} leaves out", {"requiredCapabilities": missing.required},
                       code=MISSING_CLIENT_CAPABILITY) from None
    except URLElicitationRequired as needed:  # ERRC-05: no -32042 here; the URLs are asked in the result
        if "url" not in (lifecycle.peer_capabilities.get("elicitation") or {}):  # MRTR-11, STLS-12
            raise McpError("Missing required client capability: this request needs URL-mode elicitation",
                           {"requiredCapabilities": {"elicitation": {"url": {}}}}, code=MISSING_CLIENT_CAPABILITY) from None
        asked = {f"url-{n}": {"method": "elicitation/create", "params": {  # 2026-07-28 has no elicitationId
            key: value for key, value in item.items() if key != "elicitationId"}} for n, item in enumerate(
            needed.data["elicitations"], 1)}
        return answer(server, ctx.method, version, {"inputRequests": asked}, kind="input_required")
    except messages.ResourceNotFound as exc:  # RREAD-03, ERRC-05: -32602 here, -32002 before
        raise InvalidParams(exc.message, exc.data) from None
    return answer(server, ctx.method, version, result)


def discover(server: Any, version: str) -> dict[str, Any]:
    """The ``server/discover`` result (DISC-01): the revisions it serves in ``_meta``, its
    capabilities, its instructions."""
    result: dict[str, Any] = {"supportedVersions": modern_versions(server.protocol_versions),  # DISC-01, STLS-18
                              "capabilities": capabilities(server, version)}
    if server.instructions is not None:
        result["instructions"] = server.instructions
    return result


def answer(server: Any, method: str, version: str, result: dict[str, Any], kind: str = "complete") -> dict[str, Any]:
    """``result`` as this revision answers: its ``resultType`` (RTYPE-01), the server's name in
    ``_meta`` (STLS-13, DISC-04), and for a complete list or read how long it stays fresh (CACHE-01)."""
    info = implementation_info({"name": server.name, "version": server.version, **server.later_info}, version)
    meta: dict[str, Any] = result["_meta"] if isinstance(result.get("_meta"), dict) else {}
    answered = {"resultType": kind, **result, "_meta": {**meta, SERVER_INFO_KEY: info}}  # RTYPE-01, STLS-13
    # DISC-04: the discover result too: its name is in its _meta
    if kind == "complete" and method in CACHEABLE:
        answered.setdefault("ttlMs", TTL_MS)  # CACHE-05: never negative
        answered.setdefault("cacheScope", CACHE_SCOPE)  # CACHE-16: the same for every page
    return answered
