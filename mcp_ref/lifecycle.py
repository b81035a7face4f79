"""Lifecycle: initialization, version and capability negotiation, and the phase gate.

Spec page: basic/lifecycle
https://modelcontextprotocol.io/specification/2024-11-05/basic/lifecycle

In short:

1. Initialization comes first (LC-01..03). The client sends ``initialize`` with the protocol
   version it wants (its latest, LC-11), its capabilities and its name/version (LC-04..06).
2. The server answers with the version to use: the client's if it supports it, otherwise one of
   its own, preferably its latest (LC-12). It also sends its capabilities, its name/version and
   optional ``instructions`` (LC-07). This page is revision 2024-11-05; mcp_ref also speaks the
   three later revisions that keep this handshake (2025-03-26, 2025-06-18, 2025-11-25), each a
   delta described in mcp_ref/revisions/. Which ones a side offers is the one thing this page
   takes from outside: each function below is given the tuple ``supported``, newest first.
3. A client that cannot use the version in the answer disconnects (LC-13, LC-26).
4. The client then sends ``notifications/initialized`` (LC-08) and normal operation begins.
   Until the server has answered ``initialize`` the client sends nothing but pings (LC-09);
   until ``initialized`` arrives the server sends nothing but pings and log messages (LC-10).
5. There is no shutdown message: either side closes the transport (see stdio.py for the
   child-process sequence, LC-16..19).

The server's side of this is a small state machine (``Phase`` and ``LifecycleState.gate``):
before ``initialize`` only ``initialize`` and ``ping`` are served; after it, everything but a
second ``initialize``. Unknown methods are answered -32601 in every phase (newer clients probe
with ``server/discover`` before ``initialize``); a known method in the wrong phase gets -32600
with a message that says what to send first. Both answers are immediate: a request is never
left unanswered. A request that arrives after the ``initialize`` answer but before
``notifications/initialized`` is served (LC-09 lets the client send it; over HTTP+SSE the two
messages can arrive in either order).
"""

from __future__ import annotations

import enum
import logging
from typing import Any

from .messages import InvalidParams, InvalidRequest, McpError, MethodNotFound, param

log = logging.getLogger("mcp_ref.lifecycle")

PROTOCOL_VERSION = "2024-11-05"  # the revision of this page: mcp_ref's base
# The revisions mcp_ref speaks, in the order they were published, which is the only order there
# is between them (VER-02: a version string is compared for equality, never read as a date).
# Each later one is a delta on this base, described in mcp_ref/revisions/.
REVISIONS = (PROTOCOL_VERSION, "2025-03-26", "2025-06-18", "2025-11-25")  # those with this handshake
SUPPORTED_PROTOCOL_VERSIONS = tuple(reversed(REVISIONS))  # newest first; LC-25: a side may speak several
LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0]
# 2026-07-28 dropped this page's handshake: every request names its revision (revisions/stateless.py).
# It follows the others in the order ``since`` reads, and is never offered in ``initialize``.
STATELESS_REVISIONS = ("2026-07-28",)
ALL_REVISIONS = REVISIONS + STATELESS_REVISIONS


def since(version: str | None, revision: str) -> bool:
    """Whether a session that agreed on ``version`` speaks what ``revision`` brought: the hook
    through which the pages of this base add a later revision's fields (VER-02: by the list's
    order, not by the dates). An unknown or missing version speaks only the base."""
    return version in ALL_REVISIONS and ALL_REVISIONS.index(version) >= ALL_REVISIONS.index(revision)


def checked_versions(versions: Any) -> tuple[str, ...]:
    """The ``protocol_versions=`` a Client or Server was given, newest first; a ValueError that
    lists what mcp_ref speaks for anything else (an empty list, an unknown or misspelled version)."""
    if isinstance(versions, str):
        versions = [versions]
    newest_first = tuple(reversed(ALL_REVISIONS))
    if not versions or any(v not in ALL_REVISIONS for v in versions):
        raise ValueError(f"protocol_versions={list(versions)!r}: mcp_ref speaks {', '.join(newest_first)}; "
                         "give a non-empty list of those")
    return tuple(v for v in newest_first if v in versions)


class Phase(enum.Enum):
    """The phases of a connection, as the server sees them."""

    AWAITING_INITIALIZE = "awaiting initialize"
    AWAITING_INITIALIZED = "initialize answered, awaiting notifications/initialized"
    OPERATING = "operating"


# What a server serves in each phase. Unknown methods are not the gate's business: they get
# -32601 in every phase (see Server._handle_request).
SERVED_BEFORE_INITIALIZE = frozenset({"initialize", "ping"})  # LC-01: ping is always allowed
# Once initialize is answered, every known method except a second initialize is served, even
# before notifications/initialized arrives: the client may send requests as soon as it has the
# result (LC-09), and over HTTP+SSE its initialized notification and its next request travel
# in separate POSTs that can overtake each other.


class UnsupportedProtocolVersion(InvalidParams):
    """The server chose a protocol version this client does not support (LC-13, LC-26)."""


class LifecycleState:
    """What one side knows of the lifecycle of one connection."""

    def __init__(self) -> None:
        self.phase = Phase.AWAITING_INITIALIZE
        self.protocol_version: str | None = None
        self.peer_info: dict[str, Any] | None = None  # clientInfo or serverInfo
        self.peer_capabilities: dict[str, Any] = {}
        self.instructions: str | None = None  # what the server told the client
        self.capabilities: dict[str, Any] = {}  # what this side declared

    def gate(self, method: str) -> None:
        """Raise InvalidRequest if ``method`` (a method the server knows) may not be served now."""
        if method == "initialize":
            if self.phase is not Phase.AWAITING_INITIALIZE:  # one initialize per session
                raise InvalidRequest("Invalid Request: the session is already initialized")
            return
        if self.phase is Phase.AWAITING_INITIALIZE and method not in SERVED_BEFORE_INITIALIZE:  # LC-01
            raise InvalidRequest(f"Invalid Request: {method} before initialize; send initialize first")
        if self.phase is Phase.AWAITING_INITIALIZED and method != "ping":  # LC-09: served anyway
            log.debug("serving %s before notifications/initialized arrived", method)


# --- the server's side -------------------------------------------------------------------------


def negotiate_version(requested: str, supported: tuple[str, ...] = SUPPORTED_PROTOCOL_VERSIONS) -> str:
    """LC-12: echo a supported version; otherwise answer with our latest one."""
    # LC-12: the proposal if we support it, else our newest. VER-02: versions are compared for
    # equality only; their dates are never read as an order.
    return requested if requested in supported else supported[0]


def accept_initialize(state: LifecycleState, params: dict[str, Any],
                      supported: tuple[str, ...] = SUPPORTED_PROTOCOL_VERSIONS) -> str:
    """Check an ``initialize`` request, record what the client said, return the version to use."""
    requested = param(params, "protocolVersion", "string")  # LC-04, LC-11: e.g. "2024-11-05"
    spoken, supported = supported, tuple(v for v in supported if v in REVISIONS)  # (never one without a handshake)
    if not supported:  # STLS-23: a server of 2026-07-28 alone says what it speaks instead
        raise InvalidParams(f"this server speaks only {', '.join(spoken)}, which has no initialize: send each "
                            "request with its version in _meta", {"supported": list(spoken)})
    capabilities = param(params, "capabilities", "object")  # LC-05: possibly empty
    client_info = param(params, "clientInfo", "object")  # LC-06
    param(client_info, "name", "string", path="clientInfo.")
    param(client_info, "version", "string", required=False, path="clientInfo.")  # lenient: old clients omit it
    state.protocol_version = negotiate_version(requested, supported)  # VER-01, LC-14: one version per session
    state.peer_capabilities = capabilities  # LC-02: what the client can do, for this session
    state.peer_info = client_info  # LC-03: who the client is
    state.phase = Phase.AWAITING_INITIALIZED
    return state.protocol_version


def accept_initialized(state: LifecycleState) -> None:
    """``notifications/initialized`` arrived: normal operation begins (LC-08)."""
    if state.phase is Phase.AWAITING_INITIALIZED:
        state.phase = Phase.OPERATING  # LC-08: operation begins with the client's notification


# The fields later revisions added to a side's name and version (``serverInfo``, ``clientInfo``), and
# the revision that added each: a peer of an older revision is not sent them.
LATER_INFO_FIELDS = {"title": "2025-06-18", "description": "2025-11-25", "websiteUrl": "2025-11-25",
                     "icons": "2025-11-25"}  # revisions/v2025_06_18.py, item 4; v2025_11_25.py, item 1


def implementation_info(info: dict[str, Any], version: str | None) -> dict[str, Any]:
    """``info`` (``{"name", "version", ...}``) with only the fields a session of ``version`` knows."""
    return {key: value for key, value in info.items()
            if key not in LATER_INFO_FIELDS or since(version, LATER_INFO_FIELDS[key])}


def initialize_result(
    protocol_version: str, capabilities: dict[str, Any], server_info: dict[str, Any], instructions: str | None
) -> dict[str, Any]:
    """LC-07: the server's answer to ``initialize``."""
    result: dict[str, Any] = {
        "protocolVersion": protocol_version,  # LC-07, LC-12
        "capabilities": capabilities,  # LC-02
        "serverInfo": server_info,  # LC-03
    }
    if instructions is not None:
        result["instructions"] = instructions
    return result


def require_peer(session: Any, capability: str, method: str) -> None:
    """Server side: refuse, without sending anything, a request the client cannot serve yet or at
    all (sampling/createMessage, roots/list). The error carries ``failed_request`` like any
    request that failed."""
    error: McpError | None = None
    if session.lifecycle.phase is not Phase.OPERATING:  # LC-10
        error = McpError(f"cannot send {method} before the client has sent notifications/initialized")
    elif not isinstance(session.lifecycle.peer_capabilities.get(capability), dict):  # ROOT-17, AR-05
        getattr(session, "missing_capability", lambda *_: None)(capability)  # 2026-07-28's -32021: revisions/stateless.py
        error = MethodNotFound(f"the client did not declare the {capability!r} capability, so it cannot answer {method}")
    if error is not None:
        error.failed_request = method
        raise error


# --- the client's side -------------------------------------------------------------------------


def initialize_params(client_info: dict[str, Any], capabilities: dict[str, Any],
                      supported: tuple[str, ...] = SUPPORTED_PROTOCOL_VERSIONS) -> dict[str, Any]:
    """LC-04..06, LC-11: what the client proposes (our latest version)."""
    return {
        "protocolVersion": supported[0],  # LC-04, LC-11
        "capabilities": capabilities,  # LC-02, LC-05
        "clientInfo": client_info,  # LC-03, LC-06
    }


def accept_initialize_result(state: LifecycleState, result: dict[str, Any],
                             supported: tuple[str, ...] = SUPPORTED_PROTOCOL_VERSIONS) -> None:
    """Check the server's answer; raise UnsupportedProtocolVersion if we cannot use it."""
    version = result.get("protocolVersion")
    if version not in supported:  # LC-13, LC-26: the caller disconnects
        raise UnsupportedProtocolVersion(
            f"server chose protocol version {version!r}, but this client supports only "
            f"{', '.join(supported)}; disconnected",
            {"supported": list(supported), "requested": version},
        )
    capabilities = result.get("capabilities")
    server_info = result.get("serverInfo")
    state.protocol_version = version  # LC-14: kept for the whole session
    state.peer_capabilities = capabilities if isinstance(capabilities, dict) else {}  # LC-02
    state.peer_info = server_info if isinstance(server_info, dict) else None
    instructions = result.get("instructions")
    state.instructions = instructions if isinstance(instructions, str) else None
    state.phase = Phase.OPERATING
