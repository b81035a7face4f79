"""Server cases of revision 2026-07-28, the stateless one: discovery, the ``_meta`` of every
request, ``resultType``, caching hints, error codes, log levels per request, multi round-trip
requests and subscriptions (those two: server_stateless_rounds.py).

Not a spec section: cases of the conformance checker (see __init__.py), run only with
``mcp-ref check server --protocol-version 2026-07-28`` (``era="stateless"``; stateless_helpers.py
says which cases of the handshake's revisions run beside them). The spec pages they check:
  https://modelcontextprotocol.io/specification/2026-07-28/basic/index
  https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
  https://modelcontextprotocol.io/specification/2026-07-28/server/discover
  https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching
  https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging
  https://modelcontextprotocol.io/specification/2026-07-28/server/resources

There is no initialize: the run's connections ask ``server/discover`` instead, and every request
the kit sends carries the revision, the capabilities it brings (none, unless a case says) and
its name in ``_meta`` (peer.py). The transport's own cases are server_stateless_http.py.
"""

from __future__ import annotations

from typing import Any

from .model import server_case
from .peer import as_params
from .server_check import ServerCheck
from .shapes import json_text
from .stateless_helpers import (
    CAPABILITIES_KEY,
    EVERY_CAPABILITY,
    RESULT_TYPES,
    SERVER_INFO_KEY,
    VERSION_KEY,
    call_tool,
    stateless_peer,
    tool_survey,
)
from .wire import shown

BASIC = "basic"
MESSAGES = "basic/messages"
TOOLS = "server/tools"
RESOURCES = "server/resources"
LOGGING = "server/utilities/logging"
STATELESS = "stateless"

UNKNOWN_VERSION = "2099-12-31"  # a revision nobody speaks
DROPPED: tuple[tuple[str, dict[str, Any]], ...] = (("ping", {}), ("logging/setLevel", {"level": "info"}),
           ("resources/subscribe", {"uri": "mcp-ref-check://watched"}),
           ("resources/unsubscribe", {"uri": "mcp-ref-check://watched"}))


def meta_of(result: Any) -> dict[str, Any]:
    meta = result.get("_meta") if isinstance(result, dict) else None
    return meta if isinstance(meta, dict) else {}


def listing_method(t: ServerCheck) -> str:
    """A request every server of this revision answers: a list it declared, else server/discover."""
    for capability, method in (("tools", "tools/list"), ("prompts", "prompts/list"), ("resources", "resources/list")):
        if t.info.declares(capability):
            return method
    return "server/discover"


# --- discovery and versioning ----------------------------------------------------------------------


@server_case(BASIC, "DISC-01", "DISC-04", era=STATELESS)
def discover_result_is_well_formed(t: ServerCheck) -> None:
    """server/discover, asked with the kit's _meta, is answered with supportedVersions (an array of
    version strings that lists the revision the request named, since it was served), a
    capabilities object of objects, instructions a string if present (DISC-01), and the server's
    name and version in _meta under io.modelcontextprotocol/serverInfo (DISC-04, a SHOULD)."""
    peer = t.session()
    reply = peer.init
    assert reply is not None
    result = reply.result
    problems: list[str] = []
    versions = result.get("supportedVersions")
    if not isinstance(versions, list) or not versions or not all(isinstance(v, str) for v in versions):
        problems.append(f"supportedVersions is {json_text(versions)[:80]}, not a non-empty array of strings")
    elif t.version not in versions:
        problems.append(f"supportedVersions {json_text(versions)} leaves out {t.version}, which the request named "
                        "and the server served")
    capabilities = result.get("capabilities")
    if not isinstance(capabilities, dict):
        problems.append(f"capabilities is {json_text(capabilities)[:80]}, not an object")
    else:
        problems += [f"capabilities.{name} is {json_text(value)[:60]}, not an object"
                     for name, value in capabilities.items() if not isinstance(value, dict)]
    if "instructions" in result and not isinstance(result["instructions"], str):
        problems.append("instructions is not a string")
    t.shape(problems, "DISC-01", "the server/discover result", reply, rule="server/discover answers with "
            "supportedVersions, capabilities and, optionally, instructions (DISC-01)")
    info = meta_of(result).get(SERVER_INFO_KEY)
    t.check(isinstance(info, dict) and isinstance(info.get("name"), str) and isinstance(info.get("version"), str),
            "DISC-04", f"the server/discover result's _meta has no {SERVER_INFO_KEY} with a name and a version "
            f"(got {json_text(info)[:80]})", reply.sent, shown(reply.got))
    t.note(f"supportedVersions {json_text(versions)[:120]}; capabilities {', '.join(sorted(capabilities or {}))}")


@server_case(BASIC, "STLS-10", era=STATELESS)
def malformed_meta_is_32602(t: ServerCheck) -> None:
    """A request that names revision 2026-07-28 in _meta but lacks the required
    io.modelcontextprotocol/clientCapabilities, or gives it as something other than an object, is
    refused as malformed: error -32602 (STLS-10)."""
    peer = t.rough_session()
    method = listing_method(t)
    variants = (("without clientCapabilities", {VERSION_KEY: t.version}),
                ("with clientCapabilities a string", {VERSION_KEY: t.version, CAPABILITIES_KEY: "all"}))
    for what, meta in variants:
        reply = peer.request(method, {"_meta": meta})
        t.expect_error(reply, "STLS-10", f"{method} {what} in _meta", (-32602,))


@server_case(BASIC, "STLS-16", era=STATELESS)
def unsupported_version_is_32022(t: ServerCheck) -> None:
    """A request naming a revision the server does not implement (2099-12-31) gets error -32022
    whose data.supported lists the revisions the server does implement, as version strings
    (STLS-16); the list should name 2026-07-28, which this run speaks (noted otherwise)."""
    peer = t.session()
    method = listing_method(t)
    reply = peer.request(method, {"_meta": {VERSION_KEY: UNKNOWN_VERSION, CAPABILITIES_KEY: {}}})
    if not t.expect_error(reply, "STLS-16", f"{method} naming revision {UNKNOWN_VERSION}", (-32022,)):
        return
    if reply.code != -32022:
        return
    data = reply.error.get("data") if isinstance(reply.error, dict) else None
    supported = data.get("supported") if isinstance(data, dict) else None
    if not t.check(isinstance(supported, list) and bool(supported) and all(isinstance(v, str) for v in supported),
                   "STLS-16", f"the -32022 error's data.supported is {json_text(supported)[:80]}, not a non-empty "
                   "array of the version strings the server implements", reply.sent, shown(reply.got)):
        return
    assert isinstance(supported, list)
    if t.version not in supported:
        t.note(f"data.supported {json_text(supported)} leaves out {t.version}, though the server answers it")


@server_case(MESSAGES, "MSG-01", "STLS-28", era=STATELESS)
def dropped_methods_are_32601(t: ServerCheck) -> None:
    """Requests of 2026-07-28 for the methods it dropped (ping, logging/setLevel,
    resources/subscribe, resources/unsubscribe) are unknown methods: error -32601, as JSON-RPC
    answers any method the server does not have (MSG-01; STLS-28 says ping is gone, LOGX-04 and
    SUBS-11 the others)."""
    peer = t.session()
    for method, params in DROPPED:
        reply = peer.request(method, params)
        t.answered(reply, method)
        t.check(reply.is_error and reply.code == -32601, "MSG-01", f"{method} in a request of {t.version} was "
                f"answered {shown(reply.got)}, not -32601: the method is not part of this revision", reply.sent,
                shown(reply.got), rule=f"{method} is not a method of {t.version}: a server answers it as any "
                "method it does not have, -32601 (JSON-RPC)")


# --- what every result carries --------------------------------------------------------------------


def modern_results(t: ServerCheck) -> list[tuple[str, dict[str, Any], str]]:
    """Every result of the run that answered a request naming a revision in _meta: (method, the
    result, the raw response), from every connection of the run."""
    found = []
    for wire in list(t.run.wires):
        sent: dict[str, dict[str, Any]] = {}
        for entry in wire.sent_and_received():
            msg = entry.msg
            if not isinstance(msg, dict) or "id" not in msg:
                continue
            if entry.direction == "sent" and isinstance(msg.get("method"), str):
                if VERSION_KEY in meta_of(as_params(msg)):
                    sent[json_text(msg["id"])] = msg
            elif entry.direction == "got" and "result" in msg and "method" not in msg:
                request = sent.get(json_text(msg["id"]))
                if request is not None:
                    found.append((str(request["method"]), msg["result"], entry.data))
    return found


@server_case(BASIC, "RTYPE-01", audit=True, era=STATELESS)
def results_carry_a_result_type(t: ServerCheck) -> None:
    """Every result the server gave in this run, to a request of 2026-07-28, says what kind of result
    it is: resultType "complete" or "input_required" (RTYPE-01; a value of an extension the
    server advertises is noted, not failed)."""
    results = modern_results(t)
    if not results:
        t.skip("the run holds no result of a request of 2026-07-28")
    wrong = [(method, result, raw) for method, result, raw in results
             if not isinstance(result, dict) or not isinstance(result.get("resultType"), str)]
    other = [(m, r) for m, r, _ in results if isinstance(r, dict) and isinstance(r.get("resultType"), str)
             and r["resultType"] not in RESULT_TYPES]
    if wrong:
        methods = sorted({method for method, _, _ in wrong})
        t.check(False, "RTYPE-01", f"{len(wrong)} of {len(results)} result(s) carry no resultType string (methods: "
                f"{', '.join(methods)})", got=shown(wrong[0][2]))
    if other:
        t.note(f"{len(other)} result(s) have a resultType outside the core's (e.g. {json_text(other[0][1]['resultType'])} "
               f"for {other[0][0]}): only an extension the server advertises may add one (RTYPE-02)")
    t.note(f"{len(results)} result(s) judged")


@server_case(BASIC, "STLS-13", audit=True, era=STATELESS)
def results_name_the_server(t: ServerCheck) -> None:
    """Every result the server gave in this run, to a request of 2026-07-28, names the server in
    _meta under io.modelcontextprotocol/serverInfo, an object with a name (STLS-13, a SHOULD)."""
    results = modern_results(t)
    if not results:
        t.skip("the run holds no result of a request of 2026-07-28")
    unnamed = [(method, raw) for method, result, raw in results
               if not isinstance(meta_of(result).get(SERVER_INFO_KEY), dict)
               or not isinstance(meta_of(result)[SERVER_INFO_KEY].get("name"), str)]
    if unnamed:
        methods = sorted({method for method, _ in unnamed})
        t.check(False, "STLS-13", f"{len(unnamed)} of {len(results)} result(s) have no {SERVER_INFO_KEY} with a name "
                f"in _meta (methods: {', '.join(methods)})", got=shown(unnamed[0][1]))


@server_case(BASIC, "CACHE-01", "CACHE-05", era=STATELESS)
def cacheable_results_carry_ttl_and_scope(t: ServerCheck) -> None:
    """The complete results of server/discover, of the lists the server declares (tools, prompts,
    resources, resource templates) and of reading its first listed resource carry ttlMs, a whole
    number of milliseconds, and cacheScope, "public" or "private" (CACHE-01); ttlMs is never
    negative (CACHE-05)."""
    peer = t.session()
    asked: list[tuple[str, dict[str, Any]]] = [("server/discover", {})]
    for capability, methods in (("tools", ("tools/list",)), ("prompts", ("prompts/list",)),
                                ("resources", ("resources/list", "resources/templates/list"))):
        if t.info.declares(capability):
            asked += [(method, {}) for method in methods]
    first = next((r.get("uri") for r in t.info.resources or [] if isinstance(r.get("uri"), str)), None)
    if first is not None:
        asked.append(("resources/read", {"uri": first}))
    judged = 0
    for method, params in asked:
        reply = peer.request(method, params)
        t.answered(reply, method)
        result = reply.result
        if not reply.is_result or not isinstance(result, dict) or result.get("resultType") == "input_required":
            t.note(f"{method}: not a complete result ({shown(reply.got)[:100]}), not judged")
            continue
        judged += 1
        ttl, scope = result.get("ttlMs"), result.get("cacheScope")
        whole = isinstance(ttl, int) and not isinstance(ttl, bool)
        if t.check(whole or isinstance(ttl, float), "CACHE-01", f"the {method} result's ttlMs is "
                   f"{json_text(ttl)[:40]}, not a number of milliseconds", reply.sent, shown(reply.got)):
            t.check(isinstance(ttl, (int, float)) and ttl >= 0, "CACHE-05",
                    f"the {method} result's ttlMs is {json_text(ttl)}, negative", reply.sent, shown(reply.got))
        t.check(scope in ("public", "private"), "CACHE-01", f"the {method} result's cacheScope is "
                f"{json_text(scope)[:40]}, not \"public\" or \"private\"", reply.sent, shown(reply.got))
    t.note(f"{judged} cacheable result(s) judged: {', '.join(method for method, _ in asked)}")


@server_case(RESOURCES, "RREAD-03", "ERRC-05", era=STATELESS)
def unknown_resource_is_32602(t: ServerCheck) -> None:
    """resources/read of a URI no resource has is refused with -32602 (RREAD-03); never with
    -32002, the code of the handshake's revisions that 2026-07-28 retired (ERRC-05)."""
    t.require("resources")
    peer = t.session()
    reply = peer.request("resources/read", {"uri": "mcp-ref-check://no-such-resource/f3e9"})
    t.answered(reply, "resources/read of an unknown URI")
    if reply.is_error and reply.code == -32002:
        t.check(False, "ERRC-05", "an unknown resource was refused with -32002, a code 2026-07-28 retired (it is "
                "-32602 now)", reply.sent, shown(reply.got))
    t.expect_error(reply, "RREAD-03", "resources/read of an unknown URI", (-32602,))


# --- log messages only at a level asked for, per request -------------------------------------------


@server_case(LOGGING, "LOGX-01", call_tools=True, fresh=True, era=STATELESS)
def no_log_message_without_a_level(t: ServerCheck) -> None:
    """A tool that sends log messages when its request asks for them (io.modelcontextprotocol/logLevel
    "debug") sends none when the request names no level (LOGX-01). The tools are called once
    each with the level (the survey, with --call-tools); those that logged are called again
    without it. SKIP when no tool logs."""
    survey = tool_survey(t)
    loggers = [c for c in survey.called if c.logs]
    if not loggers:
        t.skip(f"none of the {len(survey.called)} tool(s) called sent a log message even with logLevel \"debug\", "
               "so there is nothing to withhold")
    peer = stateless_peer(t, EVERY_CAPABILITY)
    for called in loggers[:5]:
        reply, logs = call_tool(t, peer, called.tool, called.arguments)
        t.answered(reply, f"tools/call {called.tool}")
        t.check(logs == 0, "LOGX-01", f"tool {called.tool!r} sent {logs} log message(s) for a request whose _meta "
                "names no logLevel", reply.sent, shown(reply.got))
    t.note(f"tool(s) that log with a level: {', '.join(c.tool for c in loggers)}")
