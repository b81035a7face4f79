"""Client cases of revision 2026-07-28: the probe, the ``_meta`` of every request, and the retries
of multi round-trip requests.

Not a spec section: cases of ``mcp-ref check client --protocol-version 2026-07-28``, judged on
what the checking server of that revision recorded (client_stateless_server.py: each request and
the answer it got). The spec pages they check:
  https://modelcontextprotocol.io/specification/2026-07-28/basic/index
  https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio
  https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr

The checking server answers every ``tools/call`` with ``input_required`` first, so a client
command that calls a tool (``echo``) shows how it goes through the rounds; one that calls none
leaves the cases of the rounds SKIP.
"""

from __future__ import annotations

from typing import Any

from .client_check import ClientCheck
from .model import client_case
from .shapes import as_dict, json_text

LIFECYCLE = "basic/lifecycle"  # 2026-07-28's basic/versioning and its stdio probe
BASIC = "basic"
STATELESS = "stateless"
META = "io.modelcontextprotocol/"
VERSION_KEY, CAPABILITIES_KEY, CLIENT_INFO_KEY = META + "protocolVersion", META + "clientCapabilities", META + "clientInfo"
ACTIONS = ("accept", "decline", "cancel")


def requests(t: ClientCheck) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every request of the client, with the checking server's answer (SKIP when there is none)."""
    if not t.s.exchanges:
        t.skip("the client sent no request")
    return t.s.exchanges


def meta_of(msg: dict[str, Any]) -> dict[str, Any]:
    return as_dict(as_dict(msg.get("params")).get("_meta"))


def is_input_required(answer: dict[str, Any]) -> bool:
    return as_dict(answer.get("result")).get("resultType") == "input_required"


def retries(t: ClientCheck) -> list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
    """Each retry of the client, with the input_required answer it follows: (the request that got
    that answer, the answer, the retry). A retry is a request of the same method and tool, after
    an input_required answer, carrying inputResponses or requestState. SKIP when there is none."""
    found = []
    waiting: dict[tuple[str, Any], tuple[dict[str, Any], dict[str, Any]]] = {}
    for msg, answer in requests(t):
        params = as_dict(msg.get("params"))
        key = (str(msg.get("method")), params.get("name", params.get("uri")))
        if ("inputResponses" in params or "requestState" in params) and key in waiting:
            found.append((*waiting.pop(key), msg))
        if is_input_required(answer):
            waiting[key] = (msg, answer)
    if not found:
        called = any(msg.get("method") == "tools/call" for msg, _ in t.s.exchanges)
        t.skip("the client never retried a request answered input_required" + (
            "" if called else " (it called no tool: the checking server's tools/call always asks for input first)"))
    return found


@client_case(LIFECYCLE, "STDIO-06", transport="stdio", era=STATELESS)
def probes_with_server_discover(t: ClientCheck) -> None:
    """The client's first request is server/discover naming 2026-07-28 in _meta (a dual-era client
    probes so before anything else, STDIO-06, a SHOULD); a client that sends its requests of
    2026-07-28 straight away is fine too (STLS-18 lets it), and noted; one that starts with
    initialize, to a server that answers server/discover, is not probing (STDIO-06)."""
    first, _ = requests(t)[0]
    method = first.get("method")
    if method == "server/discover":
        t.note(f"the first request is server/discover, naming {json_text(meta_of(first).get(VERSION_KEY))}")
        return
    if VERSION_KEY in meta_of(first):
        t.note(f"the first request is {method}, of {json_text(meta_of(first)[VERSION_KEY])}: no probe, requests "
               "straight away (allowed: STLS-18)")
        return
    t.check(False, "STDIO-06", f"the first request is {json_text(method)} without a revision in _meta, not "
            "server/discover: a client of 2026-07-28 probes with server/discover first", json_text(first))


@client_case(BASIC, "STLS-09", era=STATELESS)
def every_request_carries_meta(t: ClientCheck) -> None:
    """Every request of the client carries in params._meta io.modelcontextprotocol/protocolVersion
    (a string) and io.modelcontextprotocol/clientCapabilities (an object), as 2026-07-28 has no
    handshake to agree on them once (STLS-09). An initialize (a dual-era client's fallback) is
    not judged here, and noted."""
    judged = 0
    for msg, _ in requests(t):
        if msg.get("method") == "initialize":
            t.note("the client sent initialize (the handshake's), to a server of 2026-07-28 that answered -32022")
            continue
        judged += 1
        meta = meta_of(msg)
        missing = [key for key, kind in ((VERSION_KEY, str), (CAPABILITIES_KEY, dict))
                   if not isinstance(meta.get(key), kind)]
        t.check(not missing, "STLS-09", f"a {json_text(msg.get('method'))} request lacks "
                f"{' and '.join(missing)} in _meta (or gives the wrong type)", json_text(msg))
    t.note(f"{judged} request(s) judged")


@client_case(BASIC, "STLS-11", era=STATELESS)
def requests_name_the_client(t: ClientCheck) -> None:
    """Every request of 2026-07-28 names the client in _meta under io.modelcontextprotocol/clientInfo,
    an object with a name and a version (STLS-11, a SHOULD)."""
    for msg, _ in requests(t):
        if msg.get("method") == "initialize":
            continue
        info = meta_of(msg).get(CLIENT_INFO_KEY)
        named = isinstance(info, dict) and isinstance(info.get("name"), str) and isinstance(info.get("version"), str)
        t.check(named, "STLS-11", f"a {json_text(msg.get('method'))} request's _meta has no {CLIENT_INFO_KEY} with a "
                f"name and a version (got {json_text(info)[:80]})", json_text(msg))


@client_case(BASIC, "MRTR-16", era=STATELESS)
def retries_have_a_new_id(t: ClientCheck) -> None:
    """A retry after input_required is a new request: its id differs from that of the request it
    retries (MRTR-16)."""
    for first, _, retry in retries(t):
        t.check(json_text(retry.get("id")) != json_text(first.get("id")), "MRTR-16", f"the retry reuses id "
                f"{json_text(retry.get('id'))}, the id of the request that got input_required", json_text(retry))


@client_case(BASIC, "MRTR-15", era=STATELESS)
def request_state_is_echoed_unchanged(t: ClientCheck) -> None:
    """A retry carries the requestState of the input_required answer byte for byte (the checking
    server's holds quotes, a backslash, non-ASCII and spaces), and none when that answer carried
    none (MRTR-15)."""
    for _, answer, retry in retries(t):
        given = as_dict(answer.get("result")).get("requestState")
        params = as_dict(retry.get("params"))
        if given is None:
            t.check("requestState" not in params, "MRTR-15", "the retry carries a requestState "
                    f"({json_text(params.get('requestState'))[:60]}), though the input_required answer gave none",
                    json_text(retry), json_text(answer))
        else:
            t.check(params.get("requestState") == given, "MRTR-15", f"the retry's requestState is "
                    f"{json_text(params.get('requestState'))[:80]}, not {json_text(given)}, the one given",
                    json_text(retry), json_text(answer))


def response_problem(method: Any, response: Any) -> str | None:
    """What is wrong with one input response to a request of ``method``, or None."""
    if not isinstance(response, dict):
        return f"is {json_text(response)[:40]}, not an object"
    if method == "elicitation/create" and response.get("action") not in ACTIONS:
        return f"has action {json_text(response.get('action'))}, not accept, decline or cancel"
    if method == "sampling/createMessage" and (response.get("role") not in ("user", "assistant")
                                               or not isinstance(response.get("content"), (dict, list))):
        return "is no sampled message (a role and content)"
    if method == "roots/list" and not isinstance(response.get("roots"), list):
        return "has no roots array"
    return None


@client_case(BASIC, "MRTR-14", era=STATELESS)
def input_responses_answer_what_was_asked(t: ClientCheck) -> None:
    """A retry's inputResponses answers every key of the inputRequests it follows, each with a
    result of the kind asked: an elicitation result with its action, a sampled message, a roots
    list (MRTR-14: every input asked is gathered before the retry)."""
    for _, answer, retry in retries(t):
        asked = as_dict(as_dict(answer.get("result")).get("inputRequests"))
        given = as_dict(as_dict(retry.get("params")).get("inputResponses"))
        missing = [key for key in asked if key not in given]
        t.check(not missing, "MRTR-14", f"the retry's inputResponses leaves out {', '.join(missing)}, asked for",
                json_text(retry), json_text(answer))
        for key, request in asked.items():
            problem = response_problem(as_dict(request).get("method"), given[key]) if key in given else None
            t.check(problem is None, "MRTR-14", f"inputResponses[{json_text(key)}] {problem}", json_text(retry),
                    json_text(answer))
