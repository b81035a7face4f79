"""Client cases: what a 2024-11-05 client must and should do, judged on a recorded session.

Not a spec section: cases of the conformance checker (see __init__.py). The spec pages they
check (each case names its own):
  https://modelcontextprotocol.io/specification/2024-11-05/basic/lifecycle
  https://modelcontextprotocol.io/specification/2024-11-05/basic/messages
  https://modelcontextprotocol.io/specification/2024-11-05/basic/transports
  https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/ping
  https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/cancellation
  https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/progress
  https://modelcontextprotocol.io/specification/2024-11-05/client/roots
  https://modelcontextprotocol.io/specification/2024-11-05/client/sampling

What these pages ask of a client, in short:

1. Start with ``initialize`` (its version, capabilities and name), send nothing but pings until
   the answer, then send ``notifications/initialized``; use only what the server declared.
2. Speak JSON-RPC 2.0: unique string or integer ids, valid envelopes, notifications without id,
   responses with the request's id and exactly one of result and error; -32601 for a method it
   does not have; answer ping promptly.
3. Over stdio write nothing but messages, one per line; shut down by closing the server's stdin.
   Over SSE, POST every message to the endpoint the server announced.
4. Cancel only its own requests (never initialize); keep progress tokens unique; answer roots and
   sampling requests in the page's shapes when it declared those capabilities.

The checking server (client_check.py) recorded the session; each case judges part of it. A probe
the client left unanswered because it had already disconnected is SKIP, not FAIL.
"""

from __future__ import annotations

from typing import Any

from . import result_shapes, shapes
from .client_check import ClientCheck, Probe, server_capabilities
from .client_links import StdioLink, in_words
from .model import client_case
from .revisions import since
from .shapes import json_text
from .stateless_meta import probes_2026
from .stdio_relay import LINGER
from .wire import Incoming, shown

LIFECYCLE = "basic/lifecycle"
MESSAGES = "basic/messages"
TRANSPORTS = "basic/transports"
PING = "basic/utilities/ping"
CANCELLATION = "basic/utilities/cancellation"
PROGRESS = "basic/utilities/progress"

# Which server capability each method needs (completion/complete needs none in 2024-11-05, and
# completions from 2025-03-26, which the checking server then declares).
NEEDS = {"tools/": "tools", "prompts/": "prompts", "resources/": "resources", "logging/": "logging",
         "completion/": "completions"}


def messages(t: ClientCheck) -> list[Incoming]:
    return [m for m in t.s.from_client if isinstance(m.msg, dict)]


def requests(t: ClientCheck) -> list[Incoming]:
    return [m for m in messages(t) if isinstance(m.msg.get("method"), str) and "id" in m.msg]


def method_of(incoming: Incoming) -> str:
    return str(incoming.msg.get("method")) if isinstance(incoming.msg, dict) else ""


def probe(t: ClientCheck, name: str) -> Probe:
    """The probe ``name``, or skip when it was not sent or the client left before answering."""
    found = t.s.probes.get(name)
    if found is None:
        t.skip("the checking server never got to send this probe (the client left before initialized)")
    if found.reply is None and found.gone:
        t.skip("the client disconnected before answering this probe")
    return found


def initialized_at(t: ClientCheck) -> int | None:
    return next((m.seq for m in messages(t) if method_of(m) == "notifications/initialized"), None)


# --- basic/lifecycle -----------------------------------------------------------------------------


# Requests of later revisions that a client sends before initialize to find out what the server
# speaks, falling back to initialize when it is refused (-32601): one LC-09 warning, nothing more.
NEWER_PROBES = ("server/discover",)


@client_case(LIFECYCLE, "LC-01", "LC-04")
def initialize_comes_first(t: ClientCheck) -> None:
    """The client's first message, pings aside, is an initialize request. A later revision's
    probe that the client falls back from (server/discover) is judged once, by
    lifecycle.only-pings-before-the-initialize-result."""
    first = next((m for m in t.s.from_client if method_of(m) not in ("ping", *NEWER_PROBES)), None)
    if first is None:
        t.fail("LC-04", "the client never sent initialize")
    t.check(method_of(first) == "initialize" and "id" in first.msg, "LC-01",
            f"the first message is {method_of(first) or 'not a request'}, not initialize", got=shown(first.raw))
    probes = [method_of(m) for m in requests(t) if method_of(m) in NEWER_PROBES]
    if probes:
        t.note(f"probed {', '.join(sorted(set(probes)))} first, then initialized (see LC-09)")


@client_case(LIFECYCLE, "LC-04", "LC-05", "LC-06", "LC-11")
def initialize_params_are_well_formed(t: ClientCheck) -> None:
    """initialize carries a protocolVersion string, a capabilities object (roots with a boolean
    listChanged, sampling an object) and clientInfo with name and version strings."""
    init = next((m for m in requests(t) if method_of(m) == "initialize"), None)
    if init is None:
        t.fail("LC-04", "the client never sent initialize")
    problems = shapes.initialize_params(init.msg.get("params"))
    for prefix, req_id in (("params.protocolVersion", "LC-04"), ("params.capabilities", "LC-05"),
                           ("params.clientInfo", "LC-06")):
        mine = [p for p in problems if p.startswith(prefix)]
        if mine:
            t.check(False, req_id, "; ".join(mine), got=shown(init.raw))
    rest = [p for p in problems if not p.startswith(("params.protocolVersion", "params.capabilities", "params.clientInfo"))]
    t.check(not rest, "LC-04", "; ".join(rest), got=shown(init.raw))
    if t.s.proposed_version != t.s.version:
        t.note(f"proposed {json_text(t.s.proposed_version)}; the checking server answered {t.s.version}, and the "
               "cases grade at it")


@client_case(LIFECYCLE, "LC-08")
def sends_initialized(t: ClientCheck) -> None:
    """After the initialize result, the client sends notifications/initialized before any request
    other than ping."""
    if t.s.init_answered_at is None:
        t.skip("initialize was never answered")
    after = [m for m in messages(t) if m.seq > t.s.init_answered_at]
    done = initialized_at(t)
    early = [m for m in after if "id" in m.msg and isinstance(m.msg.get("method"), str) and method_of(m) != "ping"
             and (done is None or m.seq < done)]
    if early:
        t.fail("LC-08", f"sent {method_of(early[0])} before notifications/initialized", got=shown(early[0].raw))
    if done is None:
        if not after:
            t.skip(f"the client disconnected right after the initialize result (it may not accept {t.s.version})")
        t.fail("LC-08", "the client never sent notifications/initialized")


@client_case(LIFECYCLE, "LC-09")
def only_pings_before_the_initialize_result(t: ClientCheck) -> None:
    """Until the server has answered initialize, the client sends no request but ping. One
    exception, which a later revision asks for: a client that also speaks 2026-07-28 first probes
    with ``server/discover`` naming that revision in ``_meta`` (its backward compatibility,
    STDIO-06), and falls back to initialize when refused; that probe is noted, not counted. Any
    other request (a discover naming no such revision among them) is the one warning here."""
    limit = t.s.init_answered_at if t.s.init_answered_at is not None else float("inf")
    before = [m for m in requests(t) if m.seq < limit and method_of(m) not in ("ping", "initialize")]
    early = [m for m in before if not probes_2026(m.msg)]
    if len(early) < len(before):
        t.note("probed with server/discover naming 2026-07-28 before initialize, as that revision's backward "
               "compatibility asks of a client of both eras (STDIO-06): not counted against LC-09")
    t.check(not early, "LC-09", f"sent {', '.join(method_of(m) for m in early)} before the initialize result",
            got=shown(early[0].raw) if early else None)


@client_case(LIFECYCLE, "LC-26", "LC-13")
def disconnects_on_an_unsupported_version(t: ClientCheck) -> None:
    """Run a second time against a checking server that answers initialize with a version no client
    supports (1999-01-01), the client disconnects: it sends neither notifications/initialized nor
    any request after that answer, and lets go of the connection within the step timeout."""
    run = t.s.version_run
    if run is None:
        t.skip("the second run (a server answering 1999-01-01) was not made, or the client never connected to it")
    if run.init_answered_at is None:
        t.skip("in the second run the client never sent initialize")
    after = [m for m in run.from_client if m.seq > run.init_answered_at and isinstance(m.msg, dict)
             and isinstance(m.msg.get("method"), str) and m.msg.get("method") != "notifications/cancelled"]
    if after:
        t.fail("LC-26", f"offered protocol version 1999-01-01, the client carried on: it sent {method_of(after[0])}",
               got=shown(after[0].raw))
    gone = run.ended_at is not None and run.ended_at <= t.timeout
    t.check(gone, "LC-26", "offered protocol version 1999-01-01, the client stayed connected "
            + (f"for {run.ended_at:.1f} s" if run.ended_at is not None else "until the kit stopped it"))
    if gone:
        t.note(f"disconnected {run.ended_at:.1f} s after the unsupported version")


@client_case(LIFECYCLE, "LC-15")
def uses_only_declared_server_capabilities(t: ClientCheck) -> None:
    """The client requests only what the checking server declared (tools, prompts, logging; no
    resources)."""
    for incoming in requests(t):
        method = method_of(incoming)
        needed = next((cap for prefix, cap in NEEDS.items() if method.startswith(prefix)), None)
        if needed == "completions" and not since(t.s.version, "2025-03-26"):
            continue
        if needed is not None and needed not in server_capabilities(t.s.version):
            t.fail("LC-15", f"sent {method}, but the server did not declare {needed}", got=shown(incoming.raw))


@client_case(LIFECYCLE, "LC-16", "LC-17", transport="stdio")
def shuts_down_by_closing_stdin(t: ClientCheck) -> None:
    """To stop a stdio server, the client first closes the server's stdin (LC-16), then waits for it
    to exit; SIGTERM (and SIGKILL) come only if the server does not exit in time (LC-17). The kit's
    server takes half a second to exit once its stdin closes, so a client that signals or kills
    it without waiting is seen to, in every run."""
    if t.s.killed_by_kit:
        t.skip("the client was still running at --run-timeout, so the kit stopped it")
    link = t.s.link
    assert isinstance(link, StdioLink)
    events = [name for name, _ in link.events]
    # The relay reports exiting when it leaves by itself (LINGER seconds after its stdin closed),
    # and sigterm when signalled, saying whether its stdin was closed by then (it asks the pipe
    # in the signal handler: the client closed it first or it did not, whatever ran when). A
    # SIGKILL it cannot report: whether the kill came before or just after the stdin closed is
    # then a race between two processes, so that verdict names no order (the same every run).
    saw = f"what the kit's server process saw, in order: {in_words(events)}"
    if "exiting" in events:
        return
    if "sigterm" in events:
        t.check(False, "LC-16", "the client sent SIGTERM without closing stdin first: to stop a stdio server, close "
                "its stdin first and signal it only if it does not exit", got=saw)
    elif "sigterm-after-eof" in events:
        t.check(False, "LC-17", "the client closed the server's stdin, then sent it SIGTERM before the server had time "
                f"to exit (the kit's server takes {LINGER:g} s to exit once its stdin closes): wait for the server to "
                "exit, and signal it only if it does not within a reasonable time", got=saw)
    else:
        t.check(False, "LC-17", "the client killed the server (SIGKILL) before it could exit by itself: close its "
                f"stdin first (LC-16), then wait for it to exit (the kit's server takes {LINGER:g} s once its stdin "
                "closes), and signal it only if it does not exit within a reasonable time, SIGTERM before SIGKILL",
                got=saw)


# --- basic/messages ------------------------------------------------------------------------------


@client_case(MESSAGES, "MSG-01")
def messages_are_json_rpc_2(t: ClientCheck) -> None:
    """Every message the client sent is a JSON object with "jsonrpc": "2.0" that is a request, a
    notification or a response (no batches, no other JSON)."""
    for incoming in t.s.from_client:
        msg = incoming.msg
        if incoming.problem or msg is None:
            continue  # not JSON at all: the transport cases judge that
        problem = shapes.envelope_problem(msg)
        if problem is None and "params" in msg and not isinstance(msg["params"], dict):
            problem = "has params that are not an object"
        if problem:
            t.fail("MSG-01", f"a message {problem}", got=shown(incoming.raw))


@client_case(MESSAGES, "MSG-02", "MSG-03")
def request_ids_are_strings_or_integers(t: ClientCheck) -> None:
    """Every request id the client used is a string or an integer, never null."""
    for incoming in requests(t):
        rid = incoming.msg["id"]
        if rid is None:
            t.fail("MSG-03", f"{method_of(incoming)} has id null", got=shown(incoming.raw))
        if not (isinstance(rid, str) or shapes.is_int(rid)):
            t.fail("MSG-02", f"{method_of(incoming)} has id {json_text(rid)}, not a string or integer", got=shown(incoming.raw))


@client_case(MESSAGES, "MSG-04")
def request_ids_are_never_reused(t: ClientCheck) -> None:
    """No request id is used twice in the session."""
    seen: list[Any] = []
    for incoming in requests(t):
        rid = incoming.msg["id"]
        if any(type(rid) is type(s) and rid == s for s in seen):
            t.fail("MSG-04", f"id {json_text(rid)} was used again (by {method_of(incoming)})", got=shown(incoming.raw))
        seen.append(rid)


@client_case(MESSAGES, "MSG-08")
def notifications_carry_no_id(t: ClientCheck) -> None:
    """Notifications (notifications/...) are sent without an id."""
    for incoming in requests(t):
        if method_of(incoming).startswith("notifications/"):
            t.fail("MSG-08", f"{method_of(incoming)} was sent with an id", got=shown(incoming.raw))


@client_case(MESSAGES, "MSG-05", "MSG-06", "MSG-07")
def responses_answer_the_servers_requests(t: ClientCheck) -> None:
    """Every response the client sent carries the id of a request of the checking server (same
    type), sets exactly one of result and error, has an integer error code, and comes once."""
    ours = [p.request_id for p in t.s.probes.values()]
    answered: list[Any] = []
    for incoming in messages(t):
        msg = incoming.msg
        if "method" in msg or not ("result" in msg or "error" in msg or "id" in msg):
            continue
        rid = msg.get("id")
        if not any(type(rid) is type(o) and rid == o for o in ours):
            t.fail("MSG-05", f"a response carries id {json_text(rid)}, which the server never sent", got=shown(incoming.raw))
        if any(type(rid) is type(a) and rid == a for a in answered):
            t.fail("MSG-05", f"request {json_text(rid)} was answered twice", got=shown(incoming.raw))
        answered.append(rid)
        if ("result" in msg) == ("error" in msg):
            t.fail("MSG-06", "a response must set exactly one of result and error", got=shown(incoming.raw))
        if "error" in msg:
            error = msg["error"]
            if not isinstance(error, dict) or not shapes.is_int(error.get("code")) or not isinstance(error.get("message"), str):
                t.fail("MSG-07", "an error needs an integer code and a string message", got=shown(incoming.raw))


@client_case(MESSAGES, "MSG-01")
def unknown_method_is_32601(t: ClientCheck) -> None:
    """A request for a method no client has (mcp-ref-check/no-such-method) gets error -32601."""
    found = probe(t, "unknown-method")
    if found.reply is None:
        t.fail("MSG-01", "no response to a request for an unknown method", found.sent, f"(nothing within {t.timeout:g} s)")
    error = found.reply.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    t.check(code == -32601, "MSG-01", f"expected error -32601, got {shown(found.got)}", found.sent, found.got)


# --- basic/transports ----------------------------------------------------------------------------


@client_case(TRANSPORTS, "TR-05", "TR-02", transport="stdio")
def stdin_carries_only_messages(t: ClientCheck) -> None:
    """Every line the client wrote on the server's stdin is one whole JSON-RPC message: no blank
    line, no other text, no message split over lines."""
    link = t.s.link
    assert isinstance(link, StdioLink)
    split, garbage = shapes.stdout_fragments(link.lines)
    t.check(not split, "TR-02", "a message was split over several lines", got=shown("\\n".join(split[:4])))
    t.check(not garbage, "TR-05", f"{len(garbage)} line(s) written to the server's stdin are not MCP messages",
            got=shown(garbage[0]) if garbage and garbage[0] else "(a blank line)" if garbage else None)


@client_case(TRANSPORTS, "TR-11", transport="sse")
def posts_go_to_the_announced_endpoint(t: ClientCheck) -> None:
    """Every message is POSTed to the endpoint the server announced, one JSON-RPC message per
    POST body."""
    link = t.s.link
    wrong = [path for path, status in getattr(link, "posts", []) if status != 202]
    t.check(not wrong, "TR-11", f"POSTed to {wrong[0]}, not to the announced endpoint" if wrong else "")
    for incoming in t.s.from_client:
        if incoming.problem:
            t.fail("TR-11", f"a POST body is not one JSON-RPC message ({incoming.problem})", got=shown(incoming.raw))


# --- basic/utilities ------------------------------------------------------------------------------


@client_case(PING, "PING-01")
def ping_is_answered(t: ClientCheck) -> None:
    """A ping from the server is answered promptly with an empty result."""
    found = probe(t, "ping")
    if found.reply is None:
        t.fail("PING-01", "no response to ping", found.sent, f"(nothing within {t.timeout:g} s)")
    t.check("result" in found.reply, "PING-01", "ping was answered with an error", found.sent, found.got)
    t.shape_problems(result_shapes.empty_result(found.reply.get("result")) if "result" in found.reply else [],
                     "PING-01", "the ping result", found)


@client_case(PING, "PING-01")
def ping_is_answered_after_notifications(t: ClientCheck) -> None:
    """After a log message and tools and prompts list_changed notifications, the client still
    answers ping: notifications are handled without breaking the session."""
    found = probe(t, "ping-after-notifications")
    t.check(found.reply is not None and "result" in found.reply, "PING-01",
            "ping after the server's notifications got no result", found.sent,
            found.got or f"(nothing within {t.timeout:g} s)")


@client_case(CANCELLATION, "CAN-20", "CAN-01", "CAN-03", "CAN-19")
def cancels_only_its_own_requests(t: ClientCheck) -> None:
    """Every notifications/cancelled from the client names a request the client itself sent
    earlier, and never initialize."""
    sent: dict[str, str] = {}
    count = 0
    for incoming in messages(t):
        msg = incoming.msg
        if isinstance(msg.get("method"), str) and "id" in msg:
            sent[repr(msg["id"])] = str(msg["method"])
        elif msg.get("method") == "notifications/cancelled":
            count += 1
            params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
            target = repr(params.get("requestId"))
            if target not in sent:
                t.fail("CAN-20", f"cancelled request {json_text(params.get('requestId'))}, which the client never sent",
                       got=shown(incoming.raw))
            if sent[target] == "initialize":
                t.fail("CAN-03", "cancelled its initialize request", got=shown(incoming.raw))
    t.note(f"{count} cancellation(s) seen" if count else "the client cancelled nothing")


@client_case(PROGRESS, "PROG-01", "PROG-02")
def progress_tokens_are_unique(t: ClientCheck) -> None:
    """Progress tokens in the client's requests are strings or integers, never shared by two
    requests in flight at the same time."""
    active: dict[str, Any] = {}  # token -> request id still unanswered
    answered: set[str] = set()
    for entry in t.s.link.sent_and_received():
        msg = entry.msg
        if not isinstance(msg, dict):
            continue
        if entry.direction == "sent" and "id" in msg and "method" not in msg:
            answered.add(repr(msg["id"]))
            continue
        if entry.direction != "got" or "id" not in msg or not isinstance(msg.get("params"), dict):
            continue
        meta = msg["params"].get("_meta")
        if not isinstance(meta, dict) or "progressToken" not in meta:
            continue
        token = meta["progressToken"]
        if not (isinstance(token, str) or shapes.is_int(token)):
            t.fail("PROG-01", f"progress token {json_text(token)} is not a string or integer", got=shown(entry.data))
        holder = active.get(repr(token))
        if holder is not None and holder not in answered:
            t.fail("PROG-02", f"progress token {json_text(token)} is already used by a request in flight", got=shown(entry.data))
        active[repr(token)] = repr(msg["id"])
