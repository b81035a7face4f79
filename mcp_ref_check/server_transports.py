"""Server cases for the transports: stdio, and HTTP with SSE.

Not a spec section: cases of the conformance checker (see __init__.py). The spec page they
check is basic/transports (and basic/lifecycle, section Shutdown):
  https://modelcontextprotocol.io/specification/2024-11-05/basic/transports

What the page asks of a server, in short:

1. stdio: the server writes nothing on stdout but MCP messages, one per line, with no newline
   inside a message (logs go to stderr). When its stdin closes, it exits.
2. HTTP with SSE: a GET on the SSE endpoint opens a ``text/event-stream`` whose first event,
   ``endpoint``, gives the URI to POST messages to; the server's messages arrive as ``message``
   events. The server validates ``Origin`` (DNS rebinding) and should authenticate connections.

Decisions: "exit when stdin closes": the stdio shutdown sequence binds the client (LC-16, LC-17),
and 2024-11-05 asks nothing of the server there, so a server that stays is only noted. The
POST status codes are not in the spec: any 2xx accepts a message; an unknown session that is
accepted is judged against TR-08 (the server cannot have authenticated it).
"""

from __future__ import annotations

import json
import secrets
import urllib.parse

from .helpers import FOREIGN_HOST, FOREIGN_ORIGIN, REBINDING, one_cause
from .model import server_case
from .server_check import ServerCheck
from .shapes import is_message as _is_message
from .shapes import stdout_fragments
from .sse_wire import SseWire, http_request
from .stdio_wire import StdioWire
from .wire import shown

TRANSPORTS = "basic/transports"


@server_case(TRANSPORTS, "TR-04", transport="stdio", audit=True)
def stdout_carries_only_messages(t: ServerCheck) -> None:
    """Every line the server wrote on stdout, in every connection of the run, is a JSON-RPC
    message (no banner, no log line, no blank line, nothing that is not UTF-8)."""
    t.session().request("ping")  # at least one exchange in the operating phase
    for wire in t.run.wires:
        if isinstance(wire, StdioWire):
            _, garbage = stdout_fragments(wire.lines)
            if garbage:
                t.fail("TR-04", f"the server wrote {len(garbage)} line(s) on stdout that are not MCP messages",
                       got=shown(garbage[0]) if garbage[0] else "(a blank line)")


@server_case(TRANSPORTS, "TR-02", transport="stdio", audit=True)
def messages_have_no_embedded_newlines(t: ServerCheck) -> None:
    """No message on stdout is split over several lines (pretty-printed JSON, a raw newline in a
    string): each message is exactly one line."""
    t.session().request("ping")  # at least one exchange in the operating phase
    for wire in t.run.wires:
        if isinstance(wire, StdioWire):
            split, _ = stdout_fragments(wire.lines)
            if split:
                t.fail("TR-02", "a message spans several lines of stdout", got=shown("\\n".join(split[:4])))


@server_case(TRANSPORTS, "LC-16", "LC-17", transport="stdio", fresh=True, informative=True)
def exits_when_stdin_closes(t: ServerCheck) -> None:
    """After initialization, closing the server's stdin makes it exit by itself within the step
    timeout. Informative: the stdio shutdown sequence binds the client (close stdin, wait, then
    SIGTERM: LC-16, LC-17), and 2024-11-05 asks nothing of the server here; one that stays is
    noted, since every client will have to signal it."""
    peer = t.fresh_session()
    assert isinstance(peer.wire, StdioWire)
    peer.wire.close_input()
    code = peer.wire.wait_exit(t.timeout)
    if code is None:  # informative: a finding here is a note, "LC-16: ...", which course/grade.py shows too
        t.check(False, "LC-16", f"the server was still running {t.timeout:g} s after its stdin closed: a client "
                "following LC-16 and LC-17 will have to send it SIGTERM")
    else:
        t.note(f"exited with status {code} once its stdin closed")


# --- HTTP with SSE -------------------------------------------------------------------------------


def _stream(t: ServerCheck, headers: dict[str, str] | None = None) -> SseWire:
    """A new event stream of this case's own, with extra request headers."""
    wire = t.open_wire(headers)
    assert isinstance(wire, SseWire)
    return wire


@server_case(TRANSPORTS, "TR-09", "TR-11", transport="sse", fresh=True)
def sse_stream_starts_with_the_endpoint_event(t: ServerCheck) -> None:
    """A GET on the SSE URL answers 200 with a text/event-stream whose first event is endpoint,
    carrying a URI to POST to."""
    wire = _stream(t)
    t.check(wire.status == 200, "TR-09", f"the GET answered HTTP {wire.status}")
    t.check(wire.content_type.split(";")[0].strip() == "text/event-stream", "TR-09",
            f"the GET answered Content-Type {wire.content_type!r}, not text/event-stream")
    if wire.status != 200:
        return
    endpoint = wire.wait_endpoint()
    first = wire.events[0][0] if wire.events else None
    t.check(endpoint is not None and first == "endpoint", "TR-11",
            f"the first event is {first!r}, not endpoint" if first else f"no event within {t.timeout:g} s")
    if endpoint is not None and urllib.parse.urlsplit(endpoint).netloc != urllib.parse.urlsplit(wire.url).netloc:
        t.note(f"the endpoint {endpoint} is on another origin than the stream; many clients refuse that")


@server_case(TRANSPORTS, "TR-10", "TR-11", transport="sse", fresh=True)
def sse_post_is_accepted_and_answered_on_the_stream(t: ServerCheck) -> None:
    """A POST of initialize to the endpoint is accepted with a 2xx status, and the response
    arrives on the stream as a message event."""
    peer = t.connect()
    assert isinstance(peer.wire, SseWire)
    if peer.wire.wait_endpoint() is None:
        t.fail("TR-11", "no endpoint event, so there is nowhere to POST")
    reply = peer.initialize()
    status = peer.wire.post_statuses[0] if peer.wire.post_statuses else None
    t.check(status is not None and 200 <= status < 300, "TR-10", f"the POST answered HTTP {status}", reply.sent)
    t.check(reply.answered, "TR-11", "the initialize response did not arrive on the stream", reply.sent,
            reply.got_text())


@server_case(TRANSPORTS, "TR-11", transport="sse", audit=True)
def sse_messages_arrive_as_message_events(t: ServerCheck) -> None:
    """Every JSON-RPC message the server sent in the run came in an event named message."""
    for wire in t.run.wires:
        for entry in wire.sent_and_received():
            if entry.direction == "got" and entry.event not in (None, "endpoint", "message") and _is_message(entry.msg):
                t.fail("TR-11", f"a message arrived in an event named {entry.event!r}", got=shown(entry.data))


def _sse_foreign_origin(t: ServerCheck) -> tuple[list[str], list[tuple[str, str, str | None, str | None, dict[str, str]]]]:
    """A GET, and a POST to a live session, with a foreign Origin: (what was refused, and for each
    thing served: (what, the finding's message, sent, got, headers sent))."""
    refused: list[str] = []
    served: list[tuple[str, str, str | None, str | None, dict[str, str]]] = []
    foreign = _stream(t, {"Origin": FOREIGN_ORIGIN})
    if foreign.status == 200:
        served.append(("GET", "an event stream was opened for a foreign Origin", f"GET {foreign.url}",
                       f"HTTP {foreign.status} {foreign.content_type}", foreign.sent_headers))
    else:
        refused.append("GET")
    wire = _stream(t)
    endpoint = wire.wait_endpoint()
    if endpoint is None:
        t.skip("no endpoint event arrived on a normal stream")
    body = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "mcp-ref-check", "version": "0"}}})
    answer = wire.post(body.encode(), headers={"Origin": FOREIGN_ORIGIN})
    sent_headers = answer.sent_headers if answer else {"Origin": FOREIGN_ORIGIN}
    try:
        came = wire.receive(min(1.0, t.timeout))
    except Exception:
        came = None
    if answer is None or answer.status < 400:
        served.append(("POST", f"a POST with a foreign Origin answered HTTP {answer.status if answer else None}",
                       body, None, sent_headers))
    if came is not None and _is_message(came.msg):
        served.append(("POST", "the request POSTed with a foreign Origin was served", body, came.raw, sent_headers))
    if not any(what == "POST" for what, *_ in served):
        refused.append("POST")
    return refused, served


def _sse_foreign_host(t: ServerCheck) -> SseWire:
    port = urllib.parse.urlsplit(str(t.run.target.sse)).port
    return _stream(t, {"Host": f"{FOREIGN_HOST}:{port}" if port else FOREIGN_HOST})


@server_case(TRANSPORTS, "TR-06", transport="sse", fresh=True)
def sse_refuses_a_foreign_origin(t: ServerCheck) -> None:
    """A GET, and a POST to a live session, carrying Origin: http://mcp-ref-check.invalid (a web
    page on another site, as in DNS rebinding) are refused, and the POSTed request is not served.
    A server that checks neither Origin nor Host gets one finding here saying both (one cause)."""
    refused, served = _sse_foreign_origin(t)
    if served and not refused:
        host = _sse_foreign_host(t)
        if host.status == 200:  # TR-06: one cause, no DNS-rebinding check at all
            _, _, sent, got, headers = served[0]
            methods = sorted({what for what, *_ in served})
            t.fail("TR-06", one_cause("the SSE endpoint", methods, host.sent_headers["Host"]), sent, got, headers=headers)
    for _, message, sent, got, headers in served:
        t.check(False, "TR-06", message, sent, got, headers=headers)


@server_case(TRANSPORTS, "TR-06", transport="sse", fresh=True, at_most="SHOULD")
def sse_refuses_a_foreign_host(t: ServerCheck) -> None:
    """A GET on the SSE URL carrying Host: mcp-ref-check.invalid and no Origin (what a DNS-rebinding
    page sends) is refused. TR-06 names the Origin header, and gives DNS rebinding as its purpose;
    the Origin check alone cannot stop this GET, so serving it is a warning, not a failure. A
    server that checks no Origin either is judged once, by transports.sse-refuses-a-foreign-origin."""
    foreign = _sse_foreign_host(t)
    if foreign.status != 200:
        return
    if "transports.sse-refuses-a-foreign-origin" in t.run.selected:
        refused, served = _sse_foreign_origin(t)
        if served and not refused:
            t.note("the server checks neither Host nor Origin: one cause, judged once, by "
                   "transports.sse-refuses-a-foreign-origin")
            return
    t.fail("TR-06", f"an event stream was opened for a foreign Host name: {REBINDING}",
           f"GET {foreign.url}", f"HTTP {foreign.status} {foreign.content_type}", headers=foreign.sent_headers)


@server_case(TRANSPORTS, "TR-11", transport="sse", fresh=True)
def sse_sessions_are_separate(t: ServerCheck) -> None:
    """Two streams get two different endpoints, and a request POSTed to one stream's endpoint is
    answered on that stream only."""
    first, second = t.connect(), t.connect()
    a, b = first.wire, second.wire
    assert isinstance(a, SseWire) and isinstance(b, SseWire)
    if a.wait_endpoint() is None or b.wait_endpoint() is None:
        t.fail("TR-11", "a stream sent no endpoint event")
    t.check(a.endpoint != b.endpoint, "TR-11", f"two streams were given the same endpoint {a.endpoint}")
    first.initialize()
    second.initialize()
    reply = first.request("ping", request_id="mcp-ref-check-stream-a")
    t.check(reply.answered, "TR-11", "a ping POSTed to the first stream's endpoint was not answered there",
            reply.sent, reply.got_text())
    leaked = [m for m in second.collect(min(0.5, t.timeout)) if isinstance(m.msg, dict)
              and m.msg.get("id") == "mcp-ref-check-stream-a"]
    t.check(not leaked, "TR-11", "the answer for the first stream arrived on the second", reply.sent,
            leaked[0].raw if leaked else None)


@server_case(TRANSPORTS, "TR-08", transport="sse", fresh=True)
def sse_unknown_session_is_refused(t: ServerCheck) -> None:
    """A POST to the endpoint with a made-up session id is refused with a 4xx status (the usual
    404), not accepted into a void, nor left hanging without an answer."""
    wire = _stream(t)
    endpoint = wire.wait_endpoint()
    if endpoint is None:
        t.skip("no endpoint event arrived")
    parts = urllib.parse.urlsplit(endpoint)
    query = urllib.parse.parse_qsl(parts.query)
    if not query:
        t.skip("the endpoint URI has no query parameter to alter")
    forged = urllib.parse.urlencode([(k, secrets.token_hex(16)) for k, _ in query])
    url = urllib.parse.urlunsplit(parts._replace(query=forged))
    body = b'{"jsonrpc":"2.0","id":"mcp-ref-check-forged","method":"ping"}'
    try:
        answer = http_request(url, "POST", body, {"Content-Type": "application/json"}, t.timeout)
    except TimeoutError:
        t.fail("TR-08", f"a POST for an unknown session got no HTTP answer within {t.timeout:g} s: the "
               "connection hangs instead of being refused", f"POST {url} {body.decode()}",
               f"(no status line within {t.timeout:g} s)")
    except OSError as exc:
        t.skip(f"the POST could not be made: {exc}")
    t.check(400 <= answer.status < 500, "TR-08", f"a POST for an unknown session answered HTTP {answer.status}",
            f"POST {url} {body.decode()}", f"HTTP {answer.status} {answer.body[:200]}", headers=answer.sent_headers)


@server_case(TRANSPORTS, "MSG-01", transport="sse", fresh=True)
def sse_malformed_body_is_refused(t: ServerCheck) -> None:
    """A POST whose body is not JSON is refused with 400, or accepted and answered with -32700 on
    the stream; it is never silently dropped."""
    peer = t.fresh_session()
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"'
    probe = peer.probe(body)  # judged on what came back for this body alone (see peer.Peer.probe)
    if not probe.statuses:
        t.fail("MSG-01", "the POST could not be made", body.decode())
    if probe.refused_by_http:
        return
    got = probe.answers[0] if probe.answers else None
    code = (got.msg.get("error") or {}).get("code") if got is not None and isinstance(got.msg, dict) else None
    t.check(code == -32700, "MSG-01", f"a malformed body was accepted (HTTP {probe.statuses[0]}) and never answered "
            "with -32700", body.decode(), got.raw if got else None)
