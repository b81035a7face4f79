"""Server cases for the base utilities: ping, cancellation, progress.

Not a spec section: cases of the conformance checker (see __init__.py). The spec pages they
check (each case names its own):
  https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/ping
  https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/cancellation
  https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/progress

What these pages ask of a server, in short:

1. Answer ping with ``{}`` at any time (before initialization too), promptly.
2. Ignore cancellations of unknown or finished requests, and malformed ones, and survive the race
   of a cancellation crossing its response.
3. Serve requests that carry a progress token like any other; send progress only for tokens of
   requests in flight, with growing values, never after the response.
"""

from __future__ import annotations

import secrets
from typing import Any

from . import result_shapes, shapes
from .helpers import settle, some_list_method, still_serving
from .model import server_case
from .server_check import ServerCheck
from .wire import encode, shown

PING = "basic/utilities/ping"
CANCELLATION = "basic/utilities/cancellation"
PROGRESS = "basic/utilities/progress"


# --- basic/utilities/ping ------------------------------------------------------------------------


@server_case(PING, "PING-01")
def ping_returns_an_empty_result(t: ServerCheck) -> None:
    """ping is answered with an empty result, {} (a _meta member is allowed)."""
    peer = t.session()
    reply = peer.request("ping")
    result = t.expect_result(reply, "PING-01", "ping", no_answer_id="PING-01")
    t.shape(result_shapes.empty_result(result), "PING-01", "the ping result", reply)


@server_case(PING, "PING-01", fresh=True)
def ping_before_initialize(t: ServerCheck) -> None:
    """ping is answered even before initialize (the only request a client may send then)."""
    peer = t.connect()
    reply = peer.request("ping")
    t.expect_result(reply, "PING-01", "ping before initialize", no_answer_id="PING-01")


@server_case(PING, "PING-01", fresh=True)
def ping_before_initialized(t: ServerCheck) -> None:
    """ping is answered between the initialize result and the initialized notification."""
    peer = t.connect()
    init = peer.initialize(initialized=False)
    if not init.is_result:
        t.fail("LC-07", "initialize was not answered with a result", init.sent, init.got_text(), knock_on=not init.answered)
    reply = peer.request("ping")
    t.expect_result(reply, "PING-01", "ping before notifications/initialized", no_answer_id="PING-01")


@server_case(PING, "PING-01", "PING-12")
def pipelined_pings_are_all_answered(t: ServerCheck) -> None:
    """Ten pings sent back to back, without waiting, with and without params, each get one
    empty result."""
    peer = t.session()
    replies = [peer.send_request("ping", {} if i % 2 else None) for i in range(9)]
    replies.append(peer.send_request("ping", {"_meta": {}}))
    for reply in replies:
        peer.wait(reply)
        t.expect_result(reply, "PING-01", "a pipelined ping", no_answer_id="PING-01")


# --- basic/utilities/cancellation ----------------------------------------------------------------


@server_case(CANCELLATION, "CAN-14", "CAN-07")
def ignores_cancellation_of_unknown_requests(t: ServerCheck) -> None:
    """A cancellation naming a request id the server never saw is ignored: no response, and the
    session goes on."""
    peer = t.session()
    probe = peer.probe(encode({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
        "requestId": f"mcp-ref-check-never-sent-{secrets.token_hex(3)}", "reason": "checking that unknown ids are ignored"}}))
    t.check(probe.barrier.is_result, "CAN-14", "after a cancellation of an unknown request, the server no longer "
            "answers ping", probe.sent, probe.barrier.got_text(), knock_on=not probe.barrier.answered)
    t.check(not probe.answers, "CAN-14", "the server answered the cancellation", probe.sent,
            probe.answers[0].raw if probe.answers else None)


@server_case(CANCELLATION, "CAN-15", "CAN-08")
def ignores_cancellation_of_finished_requests(t: ServerCheck) -> None:
    """A cancellation of a request that was already answered is ignored."""
    peer = t.session()
    done = peer.request("ping")
    t.answered(done, "ping")
    peer.notify("notifications/cancelled", {"requestId": done.request_id, "reason": "too late on purpose"})
    still_serving(t, peer, "CAN-15", "a cancellation of a finished request")


@server_case(CANCELLATION, "CAN-16")
def ignores_malformed_cancellations(t: ServerCheck) -> None:
    """Malformed cancellations (no params, no requestId, an object as requestId) are ignored and
    the server keeps serving."""
    peer = t.rough_session()
    for params in (None, {}, {"requestId": {"not": "an id"}}, {"requestId": None}):
        peer.notify("notifications/cancelled", params)
    still_serving(t, peer, "CAN-16", "malformed cancellations")


@server_case(CANCELLATION, "CAN-11")
def survives_a_cancellation_racing_its_response(t: ServerCheck) -> None:
    """A request cancelled in the same breath as it is sent may be answered or not (the race the
    page describes), but at most once, and the server keeps serving."""
    peer = t.rough_session()
    method = some_list_method(t)
    raced = peer.send_request(method)
    peer.notify("notifications/cancelled", {"requestId": raced.request_id, "reason": "racing on purpose"})
    still_serving(t, peer, "CAN-11", "a cancellation that raced its response")
    peer.collect(settle(t))
    answers = [s for s in peer.stray if isinstance(s.msg, dict) and s.msg.get("id") == raced.request_id]
    t.check(len(answers) <= 1, "CAN-11", "the cancelled request was answered more than once", raced.sent,
            answers[-1].raw if answers else None)


# --- basic/utilities/progress --------------------------------------------------------------------


@server_case(PROGRESS, "BASE-02", "PROG-10")
def progress_tokens_are_accepted(t: ServerCheck) -> None:
    """Requests carrying _meta.progressToken (a string, an integer) are served like any other;
    sending progress is optional."""
    peer = t.session()
    number = secrets.randbelow(10**6) * 10
    for method in dict.fromkeys(["ping", some_list_method(t)]):
        # A token of each kind, each unique in the run, so that the audit below can tell which
        # request a late notification belongs to.
        for token in (f"mcp-ref-check-{secrets.token_hex(4)}", number):
            number += 1
            reply = peer.request(method, {"_meta": {"progressToken": token}})
            t.expect_result(reply, "BASE-02", f"{method} with a progress token")


# Over Streamable HTTP a response and a notification may come on two streams (a POST's and the
# GET's), read by two threads: their order as seen is not the server's. Within this many seconds
# of each other the kit does not judge which came first.
CROSS_STREAM_SLACK = 1.0


@server_case(PROGRESS, "PROG-06", "PROG-08", "PROG-09", "PROG-15", audit=True)
def progress_notifications_follow_the_rules(t: ServerCheck) -> None:
    """Every notifications/progress of the run names the token of a request of ours still in
    flight, arrives before that request's response, and has a numeric progress that grows with
    each notification (total, if given, a number). The kit never reuses a token, so a token
    names one request."""
    seen = 0
    for wire in t.run.wires:
        tokens: dict[Any, Any] = {}  # progress token -> request id
        finished: dict[Any, tuple[float, str | None]] = {}  # answered request ids (repr): when, on which stream
        last: dict[Any, float] = {}
        for entry in wire.sent_and_received():
            msg = entry.msg
            if not isinstance(msg, dict):
                continue
            if entry.direction == "sent" and "id" in msg and isinstance(msg.get("params"), dict):
                meta = msg["params"].get("_meta")
                if isinstance(meta, dict) and "progressToken" in meta:
                    tokens[repr(meta["progressToken"])] = repr(msg["id"])
            elif entry.direction == "got" and "method" not in msg and "id" in msg:
                finished.setdefault(repr(msg["id"]), (entry.at, entry.stream))
            elif entry.direction == "got" and msg.get("method") == "notifications/progress":
                seen += 1
                params = shapes.as_dict(msg.get("params"))
                token = repr(params.get("progressToken"))
                if token not in tokens:
                    t.fail("PROG-08", "progress for a token no request of ours carried", got=shown(entry.data))
                if tokens[token] in finished:
                    answered_at, answer_stream = finished[tokens[token]]
                    if entry.stream == answer_stream or entry.at - answered_at > CROSS_STREAM_SLACK:
                        where = ("" if entry.stream == answer_stream else
                                 f" ({entry.at - answered_at:.1f} s after it, on the {entry.stream} stream)")
                        t.fail("PROG-15", f"progress after the request's response{where}", got=shown(entry.data))
                    t.note(f"a progress notification came on the {entry.stream} stream as the response came on "
                           f"{answer_stream}'s: two streams are not ordered, so which the server sent first is unknown")
                progress = params.get("progress")
                if not shapes.is_number(progress):
                    t.fail("PROG-06", "progress is not a number", got=shown(entry.data))
                assert isinstance(progress, (int, float))
                if "total" in params and not shapes.is_number(params["total"]):
                    t.fail("PROG-06", "total is not a number", got=shown(entry.data))
                if token in last and not progress > last[token]:
                    t.fail("PROG-06", f"progress went from {last[token]} to {progress}", got=shown(entry.data))
                last[token] = progress
    t.note(f"{seen} progress notification(s) seen" if seen else "no progress notification was sent in this run")
