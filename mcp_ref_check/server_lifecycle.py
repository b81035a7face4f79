"""Server cases for the lifecycle: initialize and version negotiation, what comes before the
handshake ends, and staying for the whole run.

Not a spec section: cases of the conformance checker (see __init__.py). The spec page they
check: https://modelcontextprotocol.io/specification/2024-11-05/basic/lifecycle

What this page asks of a server, in short: answer ``initialize`` with the version (the client's
if supported, else one of its own), its capabilities and its name and version; after it, send
no request but ping until the client says ``initialized``; use only what the client declared.

Several cases judge the whole run's traffic (``audit=True``): they run last, over every
connection the kit opened.
"""

from __future__ import annotations

from typing import Any

from . import shapes
from .helpers import settle, some_list_method
from .model import server_case
from .revisions import BASE, ID, elicitation_modes, rule_for, since
from .server_check import ServerCheck, code_words
from .wire import shown

LIFECYCLE = "basic/lifecycle"


@server_case(LIFECYCLE, "LC-07", "LC-03")
def initialize_result_is_well_formed(t: ServerCheck) -> None:
    """The initialize result has a protocolVersion string, a capabilities object and serverInfo
    with name and version strings; instructions, if present, is a string."""
    reply = t.session().init
    assert reply is not None
    t.shape(shapes.initialize_result(reply.result), "LC-07", "the initialize result", reply)


@server_case(LIFECYCLE, "LC-07", "LC-02")
def capabilities_are_well_formed(t: ServerCheck) -> None:
    """Each capability the server declares is an object, and its flags (listChanged, subscribe)
    are booleans. Capabilities the kit does not know are allowed (the set is open)."""
    reply = t.session().init
    assert reply is not None
    t.shape(shapes.server_capabilities(t.info.capabilities), "LC-07", "the declared capabilities", reply)


@server_case(LIFECYCLE, "LC-12", "VER-01")
def answers_with_the_requested_version(t: ServerCheck) -> None:
    """Offered the newest revision the kit speaks (with --protocol-version, that one alone), the
    server answers with a version the kit speaks: the one proposed if it supports it, else an
    older revision of its own (noted: the run then grades at it). A version the kit did not offer
    fails: pinned to one, the run has no other to grade at."""
    reply = t.session().init
    assert reply is not None
    proposed, version = t.info.offered[0], t.info.answered_version
    if version == proposed:
        return
    if version in t.info.offered:
        t.note(f"proposed {proposed}, the server chose {version}, an older revision the kit speaks: every case "
               f"grades at {version}")
        return
    speaks = "the only version this run speaks (--protocol-version)" if len(t.info.offered) == 1 else (
        f"the kit speaks {', '.join(t.info.offered)}")
    t.check(False, "LC-12", f"proposed {proposed} ({speaks}), the server chose {shapes.json_text(version)}: a server "
            "that supports the proposed version answers with it, and one that does not answers with one it "
            "supports, which the client must then speak too", reply.sent, reply.got)


# Versions nobody defined: one older than MCP itself, and one far in the future (a server that
# takes any newer version for one it speaks echoes the second).
UNKNOWN_VERSIONS = ("1999-01-01", "2999-12-31")


@server_case(LIFECYCLE, "LC-12", fresh=True)
def answers_an_unknown_version_with_its_own(t: ServerCheck) -> None:
    """Proposed a version nobody defined (1999-01-01, then 2999-12-31, each on a connection of its
    own), the server answers with a version it does support, not an echo of the proposal: no
    server speaks a version that does not exist yet. Decision (the spec leaves this open): the
    page's example error -32602 with the supported versions is accepted too, as the page itself
    shows it."""
    for proposed in UNKNOWN_VERSIONS:
        peer = t.connect()
        reply = peer.initialize(version=proposed)
        t.answered(reply, f"initialize with protocolVersion {proposed}")
        if reply.is_error:
            t.check(reply.code == -32602, "LC-12", f"an unsupported version ({proposed}) was refused with "
                    f"{code_words(reply.code)}; the page's example uses -32602, and the rule asks for a version "
                    "instead", reply.sent, reply.got)
            t.note(f"refused the unknown version {proposed} with an error (the page's example) instead of offering "
                   "its own")
            continue
        result = reply.result if isinstance(reply.result, dict) else {}
        version = result.get("protocolVersion")
        t.check(isinstance(version, str) and version not in UNKNOWN_VERSIONS, "LC-12",
                f"proposed {proposed}, the server answered {shapes.json_text(version)}: it must answer with a version "
                "it supports" + (", and nobody supports a version from the future" if proposed > "2024-11-05" else ""),
                reply.sent, reply.got)


@server_case(LIFECYCLE, "MSG-01", "LC-07", fresh=True)
def survives_a_request_before_initialize(t: ServerCheck) -> None:
    """A request other than ping sent before initialize gets an answer (JSON-RPC answers every
    request), and the server can be initialized afterwards. How it answers is its choice: keeping
    the initialization first binds the client, which starts the conversation (LC-01), so a server
    that serves the early request is only noted."""
    peer = t.connect()
    method = some_list_method(t)
    if method == "ping":
        method = "tools/list"
    early = peer.request(method)
    t.answered(early, f"{method} before initialize")
    if early.is_result:
        t.note(f"{method} was served before initialize (LC-01 binds the client, which sent it; no 2024-11-05 "
               "rule says how a server answers it)")
    init = peer.initialize()
    t.answered(init, "initialize after an early request")
    t.check(init.is_result, "LC-07", "after an early request, initialize was refused", init.sent, init.got)


@server_case(LIFECYCLE, "LC-10", fresh=True)
def sends_no_request_before_initialized(t: ServerCheck) -> None:
    """Between its initialize result and the client's initialized notification, the server sends
    no request other than ping (log notifications are allowed). The kit declares roots and
    sampling here, so a request is judged on its timing alone."""
    peer = t.connect()
    init = peer.initialize(initialized=False, capabilities={"roots": {}, "sampling": {}})
    if not init.is_result:
        t.fail("LC-07", "initialize was not answered with a result", init.sent, init.got_text(), knock_on=not init.answered)
    peer.collect(settle(t))
    early = [r for r in peer.server_requests if r.get("method") != "ping"]
    t.check(not early, "LC-10", f"sent {', '.join(str(r.get('method')) for r in early)} before notifications/initialized",
            got=shown(shapes.json_text(early[0])) if early else None)
    peer.notify("notifications/initialized")


# The requests a server may send a client, the client capability each needs, and the revision
# that brought it.
SERVER_REQUESTS = {"ping": (None, BASE), "roots/list": ("roots", BASE), "sampling/createMessage": ("sampling", BASE),
                   "elicitation/create": ("elicitation", "2025-06-18")}


@server_case(LIFECYCLE, "LC-15", "ROOT-17", "LC-14", ID["negotiated"], audit=True)
def uses_only_client_capabilities(t: ServerCheck) -> None:
    """Every request the server sent, on any connection of the run, is one the revision of that
    connection's session has, and the kit declared its capability there. The kit declares two
    sets of client capabilities only: roots and sampling on the connection of
    lifecycle.sends-no-request-before-initialized; and, when it offers 2025-06-18 or later,
    elicitation ``{}`` (form mode alone from 2025-11-25) on each connection the run itself
    initializes (the shared session, the one for malformed input, and those that see whether the
    server is still there), where it declines every elicitation/create (the shapes of those are
    judged by tools.elicitation-requests-are-well-formed). So roots/list where roots were not
    declared (ROOT-17), sampling/createMessage and elicitation/create where their capability was not
    (LC-15), from 2025-11-25 an elicitation/create in a mode the kit did not declare (ELICU-04: a
    URL-mode one, since the kit declares form alone), and methods the session's revision does not
    have, such as elicitation/create before 2025-06-18 (LC-14; from 2025-06-18 its NEGO row: the
    negotiated version), are each reported, with how often they came."""
    seen: dict[str, tuple[int, dict[str, Any], str]] = {}
    undeclared_modes: dict[str, tuple[int, dict[str, Any], str, Any]] = {}
    for peer in t.run.peers:
        version = peer.agreed or t.version
        for request in peer.server_requests:
            method = str(request.get("method"))
            needs, brought = SERVER_REQUESTS.get(method, (None, None))
            known = brought is not None and since(version, brought)
            if method != "ping" and not (known and needs is not None and needs in peer.declared):
                count, first, _ = seen.get(method, (0, request, version))
                seen[method] = (count + 1, first, version if known else f"!{version}")
            elif method == "elicitation/create" and since(version, "2025-11-25"):
                mode = shapes.as_dict(request.get("params")).get("mode", "form")
                declared = peer.declared.get("elicitation")
                if mode in ("form", "url") and mode not in elicitation_modes(declared, version):
                    count, first, _, _ = undeclared_modes.get(mode, (0, request, version, declared))
                    undeclared_modes[mode] = (count + 1, first, version, declared)
    for method, (count, first, session) in seen.items():
        times = f" ({count} times)" if count > 1 else ""
        if session.startswith("!"):
            version = session[1:]
            t.check(False, rule_for("negotiated", version), f"sent {method}{times}, which is no request of {version}, "
                    "the negotiated version (a client of that version has no such method)",
                    got=shown(shapes.json_text(first)))
        elif method == "roots/list":
            t.check(False, "ROOT-17", f"sent roots/list to a client that did not declare roots{times}",
                    got=shown(shapes.json_text(first)))
        else:
            needs = SERVER_REQUESTS[method][0]
            t.check(False, "LC-15", f"sent {method} to a client that did not declare {needs}{times}",
                    got=shown(shapes.json_text(first)))
    for mode, (count, first, version, declared) in undeclared_modes.items():
        times = f" ({count} times)" if count > 1 else ""
        modes = " and ".join(sorted(elicitation_modes(declared, version))) or "no"
        t.check(False, ID["elicit-modes"], f"sent a {mode}-mode elicitation/create{times} to a client that declared "
                f"elicitation {shapes.json_text(declared)}, which in {version} means {modes} mode only",
                got=shown(shapes.json_text(first)))


@server_case(LIFECYCLE, "LC-15", audit=True)
def list_changed_only_when_promised(t: ServerCheck) -> None:
    """notifications/{tools,resources,prompts}/list_changed arrive only when the server declared
    that capability with listChanged: true (a capability used without being negotiated); each
    kind sent without it is reported."""
    seen: dict[str, tuple[int, dict[str, Any]]] = {}
    for peer in t.run.peers:
        for note in peer.notifications:
            method = str(note.get("method"))
            for feature in ("tools", "resources", "prompts"):
                if method == f"notifications/{feature}/list_changed" and not t.info.declares(feature, "listChanged"):
                    count, first = seen.get(method, (0, note))
                    seen[method] = (count + 1, first)
    for method, (count, first) in seen.items():
        feature = method.split("/")[1]
        t.check(False, "LC-15", f"sent {method} without declaring {feature}.listChanged"
                + (f" ({count} times)" if count > 1 else ""), got=shown(shapes.json_text(first)))


@server_case(LIFECYCLE, "MSG-01", "PING-01", audit=True)
def keeps_answering(t: ServerCheck) -> None:
    """The server stays for the whole run: it neither exits nor stops answering while the kit
    still has requests for it. If it goes away, this is the one finding that says how and when
    (the cases it kept from running are SKIP, not failures)."""
    if t.run.gone is not None:
        t.fail(t.run.gone_id, t.run.gone)
