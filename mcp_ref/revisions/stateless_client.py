"""The client of revision 2026-07-28: find the server's era with ``server/discover``, then name the revision in every request.

Spec page: basic/versioning
https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
https://modelcontextprotocol.io/specification/2026-07-28/basic/index#meta
https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio#backward-compatibility
https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#request-metadata
https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
https://modelcontextprotocol.io/specification/2026-07-28/server/discover
(the client's side of the pages whose server side is stateless.py, mrtr.py and stateless_http.py).

What a client of both eras does, and how ``mcp_ref.Client`` does it:

1. Before anything else it asks ``server/discover``, its newest revision without a handshake in
   ``_meta`` (``discovered``). A result means a server of this era: no ``initialize``, no
   ``notifications/initialized``; the result gives the server's revisions, capabilities,
   instructions and, in its ``_meta``, its name. Error -32022 means a server of this era that
   wants another revision: its ``data.supported`` names them, and the client takes one it also
   speaks, or gives up saying that none is shared. Any other error, or no answer within
   ``PROBE_TIMEOUT``, means a server of the handshake: the client runs ``initialize`` as before.
   The era belongs to the server, so it is found once per connection.
2. ``Client(protocol_versions=...)`` chooses: every revision (``ALL_VERSIONS``, the default,
   ``DEFAULT_VERSIONS``), the probe, then either era; handshake revisions only, no probe at all,
   the client of before 2026-07-28; ``2026-07-28`` only, the probe and never the handshake (a
   server of the handshake is an error that says so). Over HTTP with SSE, the transport of the
   handshake's revisions alone, there is no probe (``over_sse``). A server still starting when the probe gave
   up answers the ``initialize`` that follows with -32022 naming 2026-07-28: the client then asks
   ``server/discover`` again, without the probe's short bound (``rediscovered``).
3. Every request of this era carries, in ``params._meta`` beside whatever the caller put there
   (a ``progressToken``), the revision, the capabilities the client brings, and its name
   (``request``), and the log level ``set_logging_level`` chose, if any (``Connection``: what the
   client keeps about one connection of this era). What the revision took away has a stand-in
   (client_subscriptions.py, which ``Client`` calls first: ``ping`` asks ``server/discover``, the
   log level goes with each request, ``resources/subscribe`` becomes ``subscriptions/listen``);
   the rest (``initialize`` asked by hand) fails here, and nothing is sent.
4. A result says what kind it is: no ``resultType`` is a complete one, a kind the client does
   not know is an error. ``input_required`` (only for ``tools/call``, ``prompts/get`` and
   ``resources/read``) lists in ``inputRequests`` what the server would once have asked with a
   request of its own (sampling, roots, elicitation). The client answers each with the handlers
   it already has, exactly as for that request (``Client.request_handlers``, the one dispatch
   table), and sends the same request again under a new id, with ``inputResponses`` and the
   server's ``requestState`` as it came (none if none came). The rounds share the caller's one
   timeout, are at most ``MAX_ROUNDS``, and the caller sees only the final result. A question
   the client cannot answer (no handler for it) ends the call with that error: no retry.
5. Over Streamable HTTP (streamable_http/client_transport.py): each POST names, in headers, the
   revision (equal to the one in ``_meta``), the method and, for the three methods about one
   named thing, its name or URI (Base64 in ``=?base64?...?=`` when it is not plain visible
   ASCII, or looks like that form); there is no session, no GET stream, no DELETE. A 4xx whose
   body is a JSON-RPC error for the request is that request's answer (so -32022 is read as on
   stdio); any other 4xx ends the probe as a server of the handshake, and ``Client.http`` falls
   back as before. A request is cancelled by closing its response stream, never by a
   ``notifications/cancelled`` POST; over stdio by that notification, as before. Streams are not
   resumed in this revision: a request whose response stream broke while the server is still
   there (the transport's own error answer, streamable_http/client_transport.py) is sent again
   as a new request under a new id, the same round, within the same timeout, at most
   ``MAX_RESENDS`` times (``request``; then the error says how many times it was sent).

The ``Mcp-Param-*`` headers are param_headers.py's.
"""

from __future__ import annotations

import base64
import json
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import Any

from ..lifecycle import REVISIONS, STATELESS_REVISIONS, Phase, checked_versions, implementation_info
from ..machinery.http.client_plumbing import HttpError, read_body
from ..messages import CONNECTION_CLOSED, ConnectionClosed, McpError, MethodNotFound, RequestTimeout, printable
from ..session import RequestContext
from .mrtr import ASKED, METHODS
from .versioning import (
    CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    DISCOVER,
    GONE,
    LOG_LEVEL_KEY,
    MODERN_ERRORS,
    SERVER_INFO_KEY,
    UNSUPPORTED_PROTOCOL_VERSION,
    VERSION_KEY,
)

__all__ = ["ALL_VERSIONS", "DEFAULT_VERSIONS", "MAX_ROUNDS", "PROBE_TIMEOUT", "discovered", "handshake_versions",
           "http_headers", "offered", "over_sse", "rediscovered", "refused", "request"]

# What a Client offers when not told (point 2): every revision, newest first. The client probes,
# and a server of both eras (mcp_ref's Server by default; the official SDKs since 2026-07-28) is
# reached in 2026-07-28, a server of the handshake in the newest revision it shares with us.
ALL_VERSIONS = tuple(reversed(REVISIONS + STATELESS_REVISIONS))
DEFAULT_VERSIONS = ALL_VERSIONS
PROBE_TIMEOUT = 5.0  # seconds a client of both eras waits for server/discover before taking silence as "legacy"
MAX_ROUNDS = 16  # input_required rounds of one request before the client gives up
MAX_RESENDS = 2  # times one request whose response stream broke is sent again (point 5)
NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}  # what Mcp-Name repeats
SENTINEL = ("=?base64?", "?=")


class UnusableResult(McpError):
    """A result this client cannot take as it is: an unknown ``resultType`` (RTYPE-03), an
    ``input_required`` where the revision allows none, or malformed ``inputRequests``."""


def handshake_versions(versions: tuple[str, ...]) -> tuple[str, ...]:
    """The revisions with the ``initialize`` handshake among a client's ``protocol_versions``."""
    return tuple(version for version in versions if version in REVISIONS)


def offered(versions: Any) -> tuple[str, ...]:
    """What a ``Client`` given ``protocol_versions=versions`` offers, newest first: ``DEFAULT_VERSIONS``
    for None, else ``versions`` checked (a ValueError naming what mcp_ref speaks)."""
    return DEFAULT_VERSIONS if versions is None else checked_versions(versions)


def over_sse(versions: Any) -> tuple[str, ...]:
    """What a client offers over HTTP with SSE (sse_client.py), the transport of the handshake's
    revisions alone: 2026-07-28 runs over stdio and Streamable HTTP only, so no probe is made there.
    A ValueError when ``versions`` leaves nothing (2026-07-28 alone: ``Client.http`` reaches it)."""
    kept = handshake_versions(offered(versions))
    if not kept:
        raise ValueError(f"protocol_versions={list(offered(versions))!r}: HTTP with SSE carries only the revisions "
                         f"with a handshake ({REVISIONS[0]} to {REVISIONS[-1]}); use Client.http for 2026-07-28")
    return kept


def meta(client: Any, params: dict[str, Any] | None, version: str) -> dict[str, Any]:
    """``params`` (a copy) with the ``_meta`` fields of this era, beside the caller's own."""
    given = dict(params or {})
    own: dict[str, Any] = given["_meta"] if isinstance(given.get("_meta"), dict) else {}
    given["_meta"] = {**own, VERSION_KEY: version,  # STLS-09: the revision and the capabilities,
                      CAPABILITIES_KEY: client.session.lifecycle.capabilities,  # on every request
                      CLIENT_INFO_KEY: implementation_info(client.client_info, version)}  # STLS-11
    level = connection(client.session).log_level
    if level is not None:  # LOGX-02: the level set_logging_level chose, on every request
        given["_meta"][LOG_LEVEL_KEY] = level
    return given


@dataclass
class Connection:
    """What a client keeps about one connection of this era (nothing at all is kept by the server)."""

    log_level: str | None = None  # client_subscriptions.py, point 2
    uris: list[str] = field(default_factory=list)  # (point 3 there) the URIs subscribe_resource asked for
    listening: Any = None  # the open subscriptions/listen request (an OutgoingRequest), if any
    # Subscription id -> the filter its acknowledgement honours, until ``listen`` takes it (an
    # acknowledgement may come before ``start_request`` has returned the request's id): at most
    # MAX_WAITING, so a server sending acknowledgements of its own invention fills nothing.
    acknowledged: dict[Any, dict[str, Any]] = field(default_factory=dict)
    changed: threading.Condition = field(default_factory=threading.Condition)  # an acknowledgement came
    lock: threading.Lock = field(default_factory=threading.Lock)  # one change of subscription at a time


# One entry per session of this era, gone with its session (a weak key): owned here, bounded by the sessions.
_connections: weakref.WeakKeyDictionary[Any, Connection] = weakref.WeakKeyDictionary()
_table_lock = threading.Lock()


def connection(session: Any) -> Connection:
    """What this client keeps about the connection of ``session``: made the first time it is asked for."""
    with _table_lock:
        kept = _connections.get(session)
        if kept is None:  # (not setdefault: a Connection, with its lock and condition, is made once)
            kept = _connections[session] = Connection()
        return kept


# --- finding the era (point 1) -------------------------------------------------------------------


def discovered(client: Any, *, patient: bool = False) -> bool:
    """Probe with ``server/discover``; True when the server is of this era (its answer is kept in
    the session's lifecycle, as an ``initialize`` result is), False to run the handshake.
    ``patient``: the server is known to be of this era; wait as long as for any request."""
    modern = [version for version in client.protocol_versions if version in STATELESS_REVISIONS]
    legacy = handshake_versions(client.protocol_versions)
    if not modern:
        return False  # pinned to revisions with a handshake: no probe, as before
    session = client.session
    capabilities = dict(session.lifecycle.capabilities)
    if isinstance(capabilities.get("roots"), dict):  # this era has no notifications/roots/list_changed
        capabilities["roots"] = {key: value for key, value in capabilities["roots"].items() if key != "listChanged"}
    session.lifecycle.capabilities = capabilities
    bound = min(PROBE_TIMEOUT, session.default_timeout) if legacy and not patient else session.default_timeout
    tried: list[str] = []
    version = modern[0]
    while True:
        tried.append(version)
        try:  # STDIO-06, DISC-02: the first request
            # STLS-24, STDIO-08: even for a client of this era alone
            result: dict[str, Any] = session.request(DISCOVER, meta(client, {}, version), timeout=bound)
        except ConnectionClosed:
            raise  # no server left to fall back to
        except TimeoutError:
            if not legacy:
                raise _legacy_only(client, f"did not answer server/discover within {bound:g} s") from None
            return False  # silence: a server of the handshake, which may not answer an unknown request
        except McpError as exc:
            if exc.code == UNSUPPORTED_PROTOCOL_VERSION:  # a server of this era: never the handshake
                supported = exc.data.get("supported") if isinstance(exc.data, dict) else None
                offered = supported if isinstance(supported, list) else []
                # STLS-17: one we speak too (the one we asked in, once more: a server may refuse a first request)
                common = [v for v in modern if v in offered and tried.count(v) < 2]
                if common:
                    version = common[0]
                    continue
                if legacy and any(v in legacy for v in offered):
                    return False  # it names a revision of the handshake that we speak as well
                raise McpError(f"the server speaks {', '.join(map(str, offered)) or 'no revision it names'}, and this "
                               f"client {', '.join(client.protocol_versions)}: no revision in common", exc.data,
                               code=UNSUPPORTED_PROTOCOL_VERSION) from None
            if exc.code in MODERN_ERRORS:  # HTTPX-24: of this era, and it refused us
                raise
            if not legacy:
                raise _legacy_only(client, f"answered server/discover with error {exc.code} ({exc.message})") from None
            return False  # STDIO-07: whatever the error, it is a server of the handshake
        _checked(result, DISCOVER)
        served = result.get("supportedVersions")
        if not isinstance(served, list) or not all(isinstance(v, str) for v in served):  # STDIO-06
            # No DiscoverResult (a server of the handshake that answers any method it does not know
            # with an empty result, as the conformance suite's do): "anything else" is the handshake.
            if not legacy:
                raise _legacy_only(client, "answered server/discover with no supportedVersions (no DiscoverResult)")
            return False
        if version not in served:  # DISC-03: one of its revisions from now on
            common = [v for v in modern if v in served and v not in tried]
            if not common:
                raise McpError(f"the server's server/discover names {', '.join(map(str, served))}, and this client "
                               f"speaks {', '.join(client.protocol_versions)}: no revision in common",
                               {"supported": served}, code=UNSUPPORTED_PROTOCOL_VERSION)
            version = common[0]
            continue
        _keep(session.lifecycle, result, version)
        return True


def rediscovered(client: Any, exc: McpError) -> Any:
    """``initialize`` after the probe was refused with -32022 naming a revision of this era that
    we speak: the server was still starting when the probe gave up, and is of this era after all.
    Ask ``server/discover`` again (bounded by the client's timeout now) and return the client;
    any other error is raised as it came (point 2)."""
    supported = exc.data.get("supported") if isinstance(exc.data, dict) else None
    modern = [v for v in client.protocol_versions if v in STATELESS_REVISIONS]
    if exc.code != UNSUPPORTED_PROTOCOL_VERSION or not isinstance(supported, list) or not set(modern) & set(supported):
        raise exc
    if not discovered(client, patient=True):
        raise exc
    return client


def _legacy_only(client: Any, what: str) -> McpError:
    return McpError(f"the server {what}: it is a server of the initialize handshake (2025-11-25 or earlier), and "
                    f"this client speaks only {', '.join(client.protocol_versions)}; add a revision with the "
                    "handshake to protocol_versions= to reach it")


def _keep(lifecycle: Any, result: dict[str, Any], version: str) -> None:
    """The DiscoverResult, where the properties of ``Client`` read an ``initialize`` result."""
    own: dict[str, Any] = result["_meta"] if isinstance(result.get("_meta"), dict) else {}
    info = own.get(SERVER_INFO_KEY, result.get("serverInfo"))  # (in _meta; an early server put it beside)
    capabilities, instructions = result.get("capabilities"), result.get("instructions")
    lifecycle.protocol_version = version
    lifecycle.peer_capabilities = capabilities if isinstance(capabilities, dict) else {}
    lifecycle.peer_info = info if isinstance(info, dict) else None
    lifecycle.instructions = instructions if isinstance(instructions, str) else None
    lifecycle.phase = Phase.OPERATING


# --- requests of this era (points 3 and 4) ---------------------------------------------------------


def refused(version: str | None, method: str) -> None:
    """Raise ``MethodNotFound``, before anything is sent, for a method this revision dropped."""
    if version in STATELESS_REVISIONS and method in GONE:
        raise MethodNotFound(f"{method} is not part of {version}, which this server speaks (no handshake, no "
                             "session): nothing was sent")


def request(client: Any, method: str, params: dict[str, Any] | None, *, timeout: float | None = None,
            on_progress: Any = None) -> dict[str, Any]:
    """Send a request of this era and return its complete result, answering the server's
    ``inputRequests`` on the way (point 4), all within ``timeout``."""
    session, version = client.session, client.protocol_version
    refused(version, method)
    budget = session.default_timeout if timeout is None else timeout
    deadline = time.monotonic() + budget
    given, asked = dict(params or {}), dict(params or {})
    resent = 0
    for round_ in range(MAX_ROUNDS):
        left = budget if round_ == 0 else deadline - time.monotonic()  # (the first: the caller's timeout itself)
        if left <= 0:
            raise RequestTimeout(f"{method} got no complete result within {budget:g} s (the server kept asking for input)")
        try:  # MRTR-16: every round a request of its own, under a new id
            result: dict[str, Any] = session.request(method, meta(client, asked, version), timeout=left,
                                                     on_progress=on_progress)
        except McpError as exc:
            if not _lost(session, exc):
                raise
            if resent == MAX_RESENDS:
                raise McpError(f"{exc.message} (sent {resent + 1} times, each under a new id)", exc.data,
                               code=exc.code) from None
            resent += 1
            continue  # HTTPX-11: its stream broke, the server is there: the same round again, a new id
        if _checked(result, method) == "complete":
            return result
        answers = {key: _answer(client, key, question) for key, question in result["inputRequests"].items()}
        asked = {**given, "inputResponses": answers}  # MRTR-14: every question answered first
        if "requestState" in result:  # MRTR-13, MRTR-15: as it came, never read; none if none came
            asked["requestState"] = result["requestState"]
        # MRTR-17: what one result asked goes into the retry of that request only
    raise McpError(f"{method}: the server still asked for input after {MAX_ROUNDS} rounds; gave up")


def _lost(session: Any, exc: McpError) -> bool:
    """Whether ``exc`` is one request lost with its HTTP stream while the connection stands: the
    Streamable HTTP transport's own answer for it (-32000, its ``data`` says so), the session open."""
    made_by = exc.data.get("transport") if isinstance(exc.data, dict) else None
    return exc.code == CONNECTION_CLOSED and made_by == "streamable-http" and not session.closed.is_set()


def _checked(result: dict[str, Any], method: str) -> str:
    """The kind of ``result``: ``complete`` or ``input_required`` (well formed); else UnusableResult."""
    kind: str = result.get("resultType", "complete")  # RTYPE-04: none means complete (an earlier server)
    if kind == "complete":
        return kind
    if kind != "input_required":  # RTYPE-03: a kind we do not know is no result
        raise UnusableResult(f"the server answered {method} with a result of unknown resultType {printable(str(kind))!r}")
    if method not in METHODS:  # MRTR-04, broken by the server
        raise UnusableResult(f"the server asked for input in answer to {method}, which only "
                             f"{', '.join(sorted(METHODS))} may do")
    questions = result.get("inputRequests", {})
    if not isinstance(questions, dict) or not all(isinstance(q, dict) for q in questions.values()):
        raise UnusableResult(f"the server answered {method} with inputRequests that are not a map of requests")
    result.setdefault("inputRequests", {})  # MRTR-14: without questions, the retry may go at once
    return kind


def _answer(client: Any, key: str, question: dict[str, Any]) -> dict[str, Any]:
    """The client's answer to one input request, from the handler of its method in the client's
    one dispatch table, exactly as when a server of the handshake sent it."""
    method, params = question.get("method"), question.get("params")
    if method not in ASKED:  # MRTR-05: nothing else may be asked
        raise UnusableResult(f"the server asked ({key!r}) for {printable(str(method))!r}, which is no request a "
                             f"server may make of a client ({', '.join(sorted(ASKED))})")
    ctx = RequestContext(client.session, None, method, params if isinstance(params, dict) else {})
    try:
        answer: dict[str, Any] = client._handle_request(ctx)
    except McpError as exc:  # no handler, no capability, a refusal: the call ends here, no retry
        raise McpError.from_error({"code": exc.code, "data": exc.data, "message": "the server needs input this client "
                                   f"cannot give ({key!r}, {method}): {exc.message}"}) from None
    return answer


# --- Streamable HTTP (point 5) -------------------------------------------------------------------


def http_headers(msg: dict[str, Any]) -> dict[str, str]:
    """The headers of a POST of this era (none for any other message): the revision of its
    ``_meta``, its method and, for the three methods about one thing, that thing's name."""
    params: dict[str, Any] = msg["params"] if isinstance(msg.get("params"), dict) else {}
    own: dict[str, Any] = params["_meta"] if isinstance(params.get("_meta"), dict) else {}
    if VERSION_KEY not in own or "method" not in msg:
        return {}
    return {"MCP-Protocol-Version": str(own[VERSION_KEY]), **standard_headers(msg)}  # HTTPX-13: equal to the _meta's


def standard_headers(msg: dict[str, Any]) -> dict[str, str]:
    """``Mcp-Method``, and for the three methods about one named thing ``Mcp-Name``."""
    params: dict[str, Any] = msg["params"] if isinstance(msg.get("params"), dict) else {}
    headers = {"Mcp-Method": msg["method"]} if isinstance(msg.get("method"), str) else {}  # HTTPX-03, HTTPX-18
    if msg.get("method") in NAMED and isinstance(params.get(NAMED[msg["method"]]), str):
        headers["Mcp-Name"] = header_value(params[NAMED[msg["method"]]])  # HTTPX-18, HTTPX-19
    return headers


def header_value(text: str) -> str:
    """``text`` as it may stand in a header: as it is when plain visible ASCII (inner spaces
    allowed), else (or when it looks like the encoded form) ``=?base64?<UTF-8, Base64>?=``."""
    plain = text == text.strip() and all(" " <= c <= "~" for c in text)
    if plain and not (text.startswith(SENTINEL[0]) and text.endswith(SENTINEL[1])):
        return text
    return SENTINEL[0] + base64.b64encode(text.encode("utf-8")).decode("ascii") + SENTINEL[1]  # HTTPX-19


def error_answer(body: bytes, msg: dict[str, Any]) -> bytes | None:
    """A 4xx body that is a JSON-RPC error answering ``msg`` (a request of this era), as the
    message to hand the session (a null id taken as ours: the POST says whose it is); else None."""
    try:
        answer = json.loads(body)
    except ValueError:
        return None
    if (not isinstance(answer, dict) or not isinstance(answer.get("error"), dict) or "id" not in msg
            or answer.get("id") not in (None, msg["id"]) or not isinstance(answer["error"].get("code"), int)):
        return None
    return json.dumps({**answer, "id": msg["id"]}).encode("utf-8")  # HTTPX-24: read as on stdio


def take_refusal(transport: Any, response: Any, msg: dict[str, Any], deadline: float) -> None:
    """A POST of this era answered with an HTTP error status: its body, when a JSON-RPC error for
    the request, is the request's answer (HTTPX-24: -32022 keeps the client in this era, any other
    code is for the caller); anything else fails the POST with ``HttpError``, as before this era."""
    try:
        body = read_body(response, deadline, transport.max_message_bytes)
    except (OSError, ValueError) as exc:
        body = f"(its body could not be read: {exc})".encode()
    finally:
        response.close()
    answer = error_answer(body, msg)
    if answer is None:
        why = printable(body[:200].decode("utf-8", "replace")) or "is this an MCP endpoint?"
        raise HttpError(f"POST to {transport.url} answered HTTP {response.status_code} {response.reason}: {why}",
                        response.status_code)
    transport._deliver(answer)
