"""Revision 2026-07-28 names its revision in every request: which requests are of it, and which cannot be served.

Spec page: basic/versioning
https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
https://modelcontextprotocol.io/specification/2026-07-28/basic/index#meta

1. There is no handshake to agree on a revision: every request of 2026-07-28 names its revision
   in ``params._meta`` (``io.modelcontextprotocol/protocolVersion``), beside the capabilities the
   client brings to it (``io.modelcontextprotocol/clientCapabilities``), both required (STLS-09),
   and perhaps the client's name (``io.modelcontextprotocol/clientInfo``, STLS-11). A request that
   names its revision there is of this era (``is_modern``); one without, of the handshake's.
2. A request missing a required field is malformed: -32602 (STLS-10). One naming a revision the
   server does not serve gets -32022, its ``data.supported`` listing those it serves, so that the
   client can pick one and ask again (STLS-16, STLS-17).
3. The methods this revision dropped (``initialize``, ``ping``, ``logging/setLevel``,
   ``resources/subscribe``, ``resources/unsubscribe``) are unknown to it: -32601.
4. The codes -32020..-32099 belong to the specification (ERRC-04): -32020 a header that disagrees
   with the body (stateless_http.py), -32021 a client capability the request needs but did not
   bring, -32022 an unsupported revision. A client that gets one of them knows the server is of
   this era even when the rest of the answer is strange (HTTPX-24).

``refusal`` is the one check of points 1..3, made by the server over stdio (stateless.py) and by
the HTTP endpoint before it opens anything (stateless_http.py). It imports no page, so that the
transport may use it.
"""

from __future__ import annotations

from typing import Any

from .. import messages
from ..lifecycle import STATELESS_REVISIONS
from ..messages import InvalidParams, McpError, MethodNotFound

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
LISTEN = "subscriptions/listen"  # (subscriptions.py)
OWN = frozenset({DISCOVER, LISTEN})  # the requests this revision's room serves itself, beside the dispatch table
GONE = frozenset({"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"})


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
    its revision. A request that does not is of the handshake's era, where ``server/discover`` is
    unknown (-32601 at once: the probe of a newer client, which then falls back, DESIGN point 4).
    A server of this era alone serves every request here but ``initialize`` (lifecycle.py refuses
    it, STLS-23): one that does not name its revision is malformed (STLS-10), with no handshake to
    fall back on."""
    served = modern_versions(spoken)
    only_modern = len(served) == len(spoken) and method != "initialize"
    return bool(served) and (is_modern(params) or only_modern)


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
    if method in GONE:  # STLS-26, STLS-28: not part of this revision
        return MethodNotFound(f"Method not found: {method} is not part of {version}")  # LOGX-04: setLevel too
    return None
