"""Hostile server cases (``mcp-ref check server --hostile``): input no good client sends, offered to
every implementation, judged per requirement.

Spec pages (each case names its own):
  https://modelcontextprotocol.io/specification/2024-11-05/basic/messages
  https://modelcontextprotocol.io/specification/2024-11-05/basic/transports
  https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/ping

Not a spec section of their own: the spec says what a server must answer and how, not how much
abuse it must take; these cases apply its rules under abuse. What every case checks afterwards:

1. the server keeps serving: a ping on the same connection (stdio) or on a new session (SSE) is
   answered within the step timeout: PING-01 (a receiver answers ping promptly);
2. it answers what must be answered: every request whose id could be read gets exactly one
   response (MSG-01, JSON-RPC), with that id (MSG-05);
3. it never writes invalid JSON or bytes that are not UTF-8 (MSG-01);
4. it does not hang: every wait of the kit is bounded, and a silence past it is a finding.

The cases are opt-in, run after every other case (they may kill a server), each on connections
of its own, and bounded in size and time: the biggest input is one 40 MiB line, the longest wait
a few steps.
"""

from __future__ import annotations

import json
import resource
import socket
import threading
import time
import urllib.parse
from typing import Any

from . import shapes
from .model import server_case
from .peer import Peer, waited
from .server_check import ServerCheck
from .sse_wire import SseWire, http_request
from .stdio_wire import StdioWire
from .wire import ConnectFailed, Incoming, WaitTimeout, shown

MESSAGES = "basic/messages"
TRANSPORTS = "basic/transports"
PING = "basic/utilities/ping"
DEPTH = 100_000  # nesting of the deep message
BIG = 40 * 1024 * 1024  # bytes of the line over the cap (above the usual caps: 32 MiB here, 4 MiB in many)
BURST = 500  # pings sent at once
STALL = 2000  # requests sent while the kit does not read
STALL_SECONDS = 2.0  # how long the kit does not read
IDLE = 1100  # idle connections over SSE
HALF_SENT = 60  # half-sent HTTP requests over SSE


# --- what every hostile case checks -------------------------------------------------------------


def hostile_session(t: ServerCheck) -> Peer:
    """A new, initialized connection of this case's own."""
    return t.fresh_session()


def keeps_serving(t: ServerCheck, peer: Peer, after: str) -> bool:
    """PING-01: after ``after``, a ping is answered within the step (a new session's over SSE,
    where the hostile connection may rightly have been refused)."""
    target = peer
    if isinstance(peer.wire, SseWire) and (peer.wire.closed_by_peer or not peer.wire.endpoint):
        target = hostile_session(t)
    reply = target.request("ping", timeout=t.timeout)
    ok = reply.is_result
    t.check(ok, "PING-01", f"after {after}, the server no longer answers ping "
            + ("(the connection ended)" if reply.closed else f"(nothing within {waited(reply.waited)})"),
            reply.sent, reply.got_text())
    return ok


def only_valid_json(t: ServerCheck, peer: Peer, what: str, since: int = 0) -> None:
    """MSG-01 (and TR-04 over stdio): everything the server wrote on this connection is a JSON-RPC
    message in valid UTF-8."""
    entries = peer.wire.sent_and_received()[since:]
    bad = [e for e in entries if e.direction == "got" and e.event != "endpoint"
           and (e.msg is None or shapes.envelope_problem(e.msg))]
    problems = dict(peer.wire.problems)
    if bad or problems:
        sample = bad[0].data if bad else next(iter(peer.wire.first_problem.values()), "")
        kinds = ", ".join(f"{kind} ({count})" for kind, count in problems.items()) or "not JSON-RPC"
        where = " on stdout" if isinstance(peer.wire, StdioWire) else ""
        t.check(False, "MSG-01", f"after {what}, the server wrote{where} something that is not a valid message: "
                f"{kinds}", got=shown(sample))


def drain(peer: Peer, seconds: float) -> list[Incoming]:
    """Everything that arrives for ``seconds``, or until the stream ends."""
    got: list[Incoming] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            item = peer.wire.receive(deadline - time.monotonic())
        except WaitTimeout:
            break
        if item is None:
            break
        got.append(item)
    return got


def answers_by_id(items: list[Incoming]) -> dict[str, list[Incoming]]:
    out: dict[str, list[Incoming]] = {}
    for item in items:
        msg = item.msg
        if isinstance(msg, dict) and "method" not in msg and ("result" in msg or "error" in msg):
            out.setdefault(repr(msg.get("id")), []).append(item)
    return out


def send_lines(t: ServerCheck, peer: Peer, lines: list[bytes], label: str) -> bool:
    """Send raw lines (stdio: one write, bounded; SSE: one POST each). False if the server stopped
    taking them."""
    wire = peer.wire
    if isinstance(wire, StdioWire):
        data = b"".join(line if line.endswith(b"\n") else line + b"\n" for line in lines)
        return wire.send_bounded(data, 4 * t.timeout, label)
    assert isinstance(wire, SseWire)
    return post_all(wire, lines, 4 * t.timeout) == len(lines)


def post_all(wire: SseWire, bodies: list[bytes], seconds: float, threads: int = 8) -> int:
    """POST ``bodies`` from ``threads`` threads at once, as a burst should come, for at most
    ``seconds``: a body not sent by then is not sent at all (the threads are daemons and stop at
    the deadline, so nothing is left behind to hold up the end of the run). Returns how many
    were sent."""
    deadline = time.monotonic() + seconds
    lock = threading.Lock()
    queue = list(reversed(bodies))
    sent = [0]

    def worker() -> None:
        while time.monotonic() < deadline:
            with lock:
                if not queue:
                    return
                body = queue.pop()
            wire.post(body)
            with lock:
                sent[0] += 1

    workers = [threading.Thread(target=worker, name="check-post", daemon=True) for _ in range(threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join(max(0.0, deadline - time.monotonic()) + wire.timeout)
    with lock:
        return sent[0]


# --- basic/messages -------------------------------------------------------------------------------

MALFORMED = [
    b'{"jsonrpc": "2.0", "id": "mcp-ref-check-cut", "method": "pi',  # cut in the middle
    b"\x00\x01\x02 binary \xff\xfe",
    b"[]", b"[1, 2, 3]", b"null", b"42", b'"a string"', b"{}", b'{"jsonrpc": "2.0"}',
    b'{"jsonrpc": "2.0", "id": {"an": "object"}, "method": "ping"}',
    b'{"jsonrpc": "2.0", "id": "mcp-ref-check-m5", "method": 5}',
    b'{"jsonrpc": "2.0", "id": "mcp-ref-check-p", "method": "ping", "params": "not an object"}',
    b'{"jsonrpc": "2.0", "id": 1e999, "method": "ping"}',
    b'{"jsonrpc": "2.0", "method": "notifications/initialized", "params": [1]}',
    b"{" * 64,
    b'{"jsonrpc": "2.0", "id": "mcp-ref-check-dup", "id": "again", "method": "ping"}',
    b"\xef\xbb\xbf" + b'{"jsonrpc": "2.0", "id": "mcp-ref-check-bom", "method": "ping"}',
]


@server_case(MESSAGES, "PING-01", "MSG-01", fresh=True, hostile=True)
def survives_malformed_and_truncated_lines(t: ServerCheck) -> None:
    """With --hostile: after a volley of broken input (a line cut mid-message, binary bytes,
    JSON that is not an object, a batch, a wrong-typed id or method or params, an id too big for
    any number, 64 opening braces, a duplicated key, a byte-order mark), everything the server
    wrote is valid JSON-RPC and it still answers ping."""
    peer = hostile_session(t)
    start = len(peer.wire.sent_and_received())
    if not send_lines(t, peer, MALFORMED, "a volley of malformed lines"):
        t.fail("PING-01", "the server stopped reading its input during a volley of malformed lines")
    drain(peer, min(0.5, t.timeout))
    keeps_serving(t, peer, "malformed and truncated lines")
    only_valid_json(t, peer, "malformed and truncated lines", start)


@server_case(MESSAGES, "PING-01", "MSG-01", fresh=True, hostile=True)
def survives_json_nested_100000_deep(t: ServerCheck) -> None:
    """With --hostile: a ping whose params nest arrays 100,000 deep (valid JSON that breaks
    recursive parsers) gets one answer or is refused, never a crash: the server then still
    answers ping, and wrote nothing that is not valid JSON-RPC."""
    peer = hostile_session(t)
    start = len(peer.wire.sent_and_received())
    deep = (b'{"jsonrpc":"2.0","id":"mcp-ref-check-deep","method":"ping","params":{"deep":'
            + b"[" * DEPTH + b"]" * DEPTH + b"}}")
    if not send_lines(t, peer, [deep], f"JSON nested {DEPTH} deep"):
        t.fail("PING-01", f"the server stopped reading its input on JSON nested {DEPTH} deep")
    got = answers_by_id(drain_until(peer, 1, t.timeout))
    if repr("mcp-ref-check-deep") not in got and repr(None) not in got:
        t.note("the deep message got no answer (a refusal over HTTP, or silence)")
    keeps_serving(t, peer, f"JSON nested {DEPTH} deep")
    only_valid_json(t, peer, f"JSON nested {DEPTH} deep", start)


@server_case(MESSAGES, "PING-01", "MSG-01", "MSG-05", fresh=True, hostile=True)
def survives_lone_surrogates(t: ServerCheck) -> None:
    """With --hostile: strings holding lone UTF-16 surrogates (\\ud800, \\udfff: valid JSON escapes
    that no UTF-8 text can hold) as a request id, a tool name and a resource URI. Each request is
    answered once, with its id as sent (MSG-05; for the id no UTF-8 text can hold, id null is
    accepted too), and nothing the server writes is invalid JSON or invalid UTF-8 (a server that
    echoes a surrogate raw writes bytes no client can decode)."""
    peer = hostile_session(t)
    start = len(peer.wire.sent_and_received())
    lines = [b'{"jsonrpc":"2.0","id":"mcp-ref-check-\\ud800","method":"ping"}',
             b'{"jsonrpc":"2.0","id":"mcp-ref-check-s2","method":"tools/call","params":{"name":"x\\udfffy","arguments":{}}}',
             b'{"jsonrpc":"2.0","id":"mcp-ref-check-s3","method":"resources/read","params":{"uri":"file:///\\ud83d"}}']
    if not send_lines(t, peer, lines, "lone surrogates"):
        t.fail("PING-01", "the server stopped reading its input on lone surrogates")
    got = answers_by_id(drain_until(peer, len(lines), t.timeout))
    for rid in ("mcp-ref-check-\ud800", "mcp-ref-check-s2", "mcp-ref-check-s3"):
        if isinstance(peer.wire, SseWire) and peer.wire.post_statuses and peer.wire.post_statuses[-1] >= 400:
            break  # refused over HTTP: an answer of its own kind
        count = len(got.get(repr(rid), []))
        if "\ud800" in rid and not count and got.get(repr(None)):
            # An id no UTF-8 text can hold: I-JSON (RFC 7493) forbids it, so an error with a null id
            # is a fair answer; an escaped echo is too.
            t.note("the request whose id holds a lone surrogate was answered with id null")
            continue
        t.check(count == 1, "MSG-01" if count == 0 else "MSG-05",
                f"the request with id {rid.encode('utf-8', 'backslashreplace').decode()!r} got {count} answers",
                got=shown(got[repr(rid)][0].raw) if count else None)
    keeps_serving(t, peer, "lone surrogates")
    only_valid_json(t, peer, "lone surrogates", start)


WRONG_TYPES: list[tuple[str, dict[str, Any] | list[Any] | str]] = [
    ("tools/call", {"name": 5, "arguments": {}}), ("tools/call", {"name": "x", "arguments": "not an object"}),
    ("tools/call", {"name": ["x"], "arguments": [], "_meta": 5}), ("tools/list", {"cursor": 5}),
    ("resources/read", {"uri": 5}), ("resources/read", {"uri": {"not": "a string"}}), ("resources/list", {"cursor": []}),
    ("resources/templates/list", {"cursor": {}}), ("resources/subscribe", {"uri": None}),
    ("prompts/get", {"name": [], "arguments": "x"}), ("prompts/get", {"name": "x", "arguments": 5}),
    ("prompts/list", {"cursor": True}), ("logging/setLevel", {"level": []}),
    ("completion/complete", {"ref": "x", "argument": 5}),
    ("completion/complete", {"ref": {"type": 5}, "argument": {"name": [], "value": {}}}),
    ("ping", {"_meta": "not an object"}), ("ping", []), ("tools/list", "params as a string"),
]


@server_case(MESSAGES, "MSG-01", "MSG-05", "PING-01", fresh=True, hostile=True)
def answers_wrong_types_in_every_params_field(t: ServerCheck) -> None:
    """With --hostile: a request for each method with a wrong type in each params field (numbers
    for names, strings for objects, params that are not an object) gets exactly one answer, an
    error or a result, never silence or a crash; the server then still answers ping."""
    peer = hostile_session(t)
    start = len(peer.wire.sent_and_received())
    sent: dict[str, str] = {}
    for number, (method, params) in enumerate(WRONG_TYPES):
        rid = f"mcp-ref-check-type-{number}"
        text = json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        sent[rid] = text
        send_lines(t, peer, [text.encode()], f"{method} with wrong types")
    got = answers_by_id(drain_until(peer, len(sent), 2 * t.timeout))
    refused = [s for s in getattr(peer.wire, "post_statuses", []) if s >= 400]
    missing = [rid for rid in sent if len(got.get(repr(rid), [])) == 0]
    twice = [rid for rid in sent if len(got.get(repr(rid), [])) > 1]
    if missing and len(missing) > len(refused):
        t.check(False, "MSG-01", f"{len(missing)} of {len(sent)} requests with wrong-typed params got no answer "
                f"(within {waited(2 * t.timeout)})", sent[missing[0]])
    t.check(not twice, "MSG-05", f"{len(twice)} request(s) with wrong-typed params were answered twice",
            sent[twice[0]] if twice else None)
    results = [rid for rid in sent if any("result" in shapes.as_dict(i.msg) for i in got.get(repr(rid), []))]
    if results:
        t.note(f"{len(results)} request(s) with wrong-typed params got a result, e.g. {shown(sent[results[0]])}")
    keeps_serving(t, peer, "requests with wrong-typed params")
    only_valid_json(t, peer, "requests with wrong-typed params", start)


@server_case(MESSAGES, "MSG-01", "MSG-05", "PING-01", fresh=True, hostile=True)
def answers_a_burst_of_concurrent_requests(t: ServerCheck) -> None:
    """With --hostile: 500 pings sent in one write, without waiting, each get exactly one answer
    with their own id, within a few steps, and the server still answers ping afterwards."""
    peer = hostile_session(t)
    lines = [json.dumps({"jsonrpc": "2.0", "id": f"mcp-ref-check-burst-{i}", "method": "ping"}).encode()
             for i in range(BURST)]
    if not send_lines(t, peer, lines, f"a burst of {BURST} pings"):
        t.fail("PING-01", f"the server stopped reading its input during a burst of {BURST} pings")
    got = answers_by_id(drain_until(peer, BURST, 4 * t.timeout))
    missing = [i for i in range(BURST) if len(got.get(repr(f"mcp-ref-check-burst-{i}"), [])) == 0]
    twice = [i for i in range(BURST) if len(got.get(repr(f"mcp-ref-check-burst-{i}"), [])) > 1]
    refused = [s for s in getattr(peer.wire, "post_statuses", []) if s >= 400]
    t.check(len(missing) <= len(refused), "MSG-01", f"{len(missing)} of {BURST} pings sent at once got no answer "
            f"within {4 * t.timeout:g} s", lines[missing[0]].decode() if missing else None)
    t.check(not twice, "MSG-05", f"{len(twice)} of {BURST} pings sent at once were answered twice")
    keeps_serving(t, peer, f"a burst of {BURST} pings")


def drain_until(peer: Peer, count: int, seconds: float) -> list[Incoming]:
    """What arrives until ``count`` responses came, or ``seconds`` passed."""
    got: list[Incoming] = []
    responses = 0
    deadline = time.monotonic() + seconds
    while responses < count and time.monotonic() < deadline:
        try:
            item = peer.wire.receive(deadline - time.monotonic())
        except WaitTimeout:
            break
        if item is None:
            break
        got.append(item)
        responses += isinstance(item.msg, dict) and "method" not in item.msg
    return got


# --- basic/transports -----------------------------------------------------------------------------


@server_case(TRANSPORTS, "PING-01", "MSG-01", fresh=True, hostile=True)
def survives_a_line_over_the_cap(t: ServerCheck) -> None:
    """With --hostile: one request of 40 MiB (a ping padded with a long string: over the line or
    body cap of most servers) is answered or refused (an error, HTTP 413), never a crash or a
    hang: the server takes it whole or discards it within a few steps, writes nothing invalid,
    and then still answers ping."""
    peer = hostile_session(t)
    start = len(peer.wire.sent_and_received())
    head = b'{"jsonrpc":"2.0","id":"mcp-ref-check-big","method":"ping","params":{"pad":"'
    data = head + b"x" * (BIG - len(head) - 3) + b'"}}'
    if isinstance(peer.wire, StdioWire):
        if not peer.wire.send_bounded(data + b"\n", 6 * t.timeout, f"a {BIG // (1024 * 1024)} MiB line"):
            t.fail("PING-01", f"the server stopped reading its stdin in the middle of a {BIG // (1024 * 1024)} MiB line")
    else:
        assert isinstance(peer.wire, SseWire) and peer.wire.endpoint is not None
        answer = bounded_http(peer.wire.endpoint, data, 6 * t.timeout)
        if isinstance(answer, str) and answer.startswith("no HTTP answer"):
            t.fail("PING-01", f"a {BIG // (1024 * 1024)} MiB POST body: {answer} (the server hangs)")
        # A server may refuse a body this big before reading it all (413, then closing the
        # connection under the kit's feet): a refusal, as long as it keeps serving.
        t.note(f"a {BIG // (1024 * 1024)} MiB POST body: " + (f"HTTP {answer}" if isinstance(answer, int) else answer))
    drain_until(peer, 1, t.timeout)
    keeps_serving(t, peer, f"a {BIG // (1024 * 1024)} MiB line")
    only_valid_json(t, peer, f"a {BIG // (1024 * 1024)} MiB line", start)


def bounded_http(url: str, body: bytes, seconds: float) -> int | str:
    """POST ``body``; the status, or what went wrong (no answer within ``seconds``)."""
    try:
        return http_request(url, "POST", body, {"Content-Type": "application/json"}, seconds).status
    except TimeoutError:
        return f"no HTTP answer within {seconds:g} s"
    except OSError as exc:
        return f"the connection failed ({exc})"


@server_case(TRANSPORTS, "PING-01", "MSG-01", fresh=True, hostile=True)
def survives_a_client_that_stops_reading(t: ServerCheck) -> None:
    """With --hostile: the kit sends 2000 requests and stops reading for two seconds, so the
    server's writes fill the pipe (or socket) and block. Over stdio, once the kit reads again,
    every request is answered and ping still works; over SSE, while one session is stalled, a
    second session is served within the step (one stalled client must not hold up the others)."""
    peer = hostile_session(t)
    method = next((m for c, m in (("tools", "tools/list"), ("prompts", "prompts/list"),
                                  ("resources", "resources/list")) if t.info.declares(c)), "ping")
    peer.wire.pause()
    lines = [json.dumps({"jsonrpc": "2.0", "id": f"mcp-ref-check-stall-{i}", "method": method}).encode()
             for i in range(STALL)]
    if isinstance(peer.wire, SseWire):
        wire = peer.wire
        threading.Thread(target=post_all, args=(wire, lines, STALL_SECONDS), daemon=True).start()
        time.sleep(STALL_SECONDS)
        other = hostile_session(t)
        reply = other.request("ping")
        t.check(reply.is_result, "PING-01", f"while another session did not read its stream, a ping on a second "
                f"session got {reply.got_text()}", reply.sent, reply.got_text())
        peer.wire.resume()
        return
    assert isinstance(peer.wire, StdioWire)
    data = b"".join(line + b"\n" for line in lines)
    stalled = time.monotonic()
    if not peer.wire.send_bounded(data, STALL_SECONDS, f"{STALL} {method} requests while not reading"):
        t.note("the server stopped reading its stdin while its stdout was full (back-pressure), as it may; "
               "the rest of the requests went in once the kit read again")
    time.sleep(max(0.0, STALL_SECONDS - (time.monotonic() - stalled)))
    peer.wire.resume()
    got = answers_by_id(drain_until(peer, STALL, 6 * t.timeout))
    missing = [i for i in range(STALL) if repr(f"mcp-ref-check-stall-{i}") not in got]
    t.check(not missing, "MSG-01", f"after the kit stopped reading for a while, {len(missing)} of {STALL} requests "
            f"were never answered (within {6 * t.timeout:g} s of reading again)", lines[missing[0]].decode() if missing
            else None)
    keeps_serving(t, peer, "a client that stopped reading")


def raise_file_limit(wanted: int) -> int:
    """Raise this process's open-file limit towards ``wanted``; return the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


def open_sockets(url: str, count: int, first: bytes, seconds: float) -> list[socket.socket]:
    """Up to ``count`` TCP connections to ``url``'s server within ``seconds``, each sending ``first``
    (may be empty), opened from 8 threads. A connection the server does not take within 2 s (its
    accept queue is full: the kernel retries a dropped SYN after 1 s) is given up; two in a row
    end a thread's attempt."""
    parts = urllib.parse.urlsplit(url)
    address = (parts.hostname or "127.0.0.1", parts.port or 80)
    deadline = time.monotonic() + seconds
    lock = threading.Lock()
    socks: list[socket.socket] = []

    def opener(share: int) -> None:
        failures = 0
        for _ in range(share):
            if failures >= 2 or time.monotonic() > deadline:
                return
            try:
                sock = socket.create_connection(address, timeout=2.0)
            except OSError:
                failures += 1
                continue
            failures = 0
            try:
                if first:
                    sock.sendall(first)
            except OSError:
                pass
            with lock:
                socks.append(sock)

    threads = [threading.Thread(target=opener, args=(count // 8 + (i < count % 8),), daemon=True) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()) + 3.0)
    with lock:
        return list(socks)


def new_session_served(t: ServerCheck, beside: str) -> None:
    """PING-01: beside ``beside``, a new session opens, is initialized and answers ping."""
    try:
        peer = t.connect()
    except ConnectFailed as exc:
        t.fail("PING-01", f"beside {beside}, a new session could not be opened: {exc}")
    init = peer.initialize()
    t.check(init.is_result, "PING-01", f"beside {beside}, a new session's initialize got {init.got_text()}",
            init.sent, init.got_text())
    if init.is_result:
        reply = peer.request("ping")
        t.check(reply.is_result, "PING-01", f"beside {beside}, ping got {reply.got_text()}", reply.sent,
                reply.got_text())


@server_case(TRANSPORTS, "PING-01", transport="sse", fresh=True, hostile=True)
def serves_beside_1100_idle_connections(t: ServerCheck) -> None:
    """With --hostile, over SSE: with 1,100 connections open that send nothing, a new session is
    still initialized and answers ping within the startup allowance and the step."""
    url = str(t.run.target.sse)
    room = raise_file_limit(IDLE + 200) - 100
    socks = open_sockets(url, min(IDLE, room), b"", max(10.0, 4 * t.timeout))
    try:
        t.note(f"{len(socks)} idle connections open (the kit's own file limit allows {room})")
        new_session_served(t, f"{len(socks)} idle connections")
    finally:
        for sock in socks:
            sock.close()


@server_case(TRANSPORTS, "PING-01", transport="sse", fresh=True, hostile=True)
def serves_beside_half_sent_requests(t: ServerCheck) -> None:
    """With --hostile, over SSE: with 60 connections that sent half a request (the headers of a
    POST promising a body that never comes, or half a header) and then stall, a new session is
    still initialized and answers ping."""
    url = str(t.run.target.sse)
    parts = urllib.parse.urlsplit(url)
    host = f"{parts.hostname}:{parts.port}"
    post = (f"POST {parts.path or '/'} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            "Content-Length: 100000\r\n\r\n{\"jsonrpc\": \"2.0\", ").encode()
    half = f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {host}\r\nAccept: text/ev".encode()
    socks = (open_sockets(url, HALF_SENT // 2, post, max(5.0, 2 * t.timeout))
             + open_sockets(url, HALF_SENT // 2, half, max(5.0, 2 * t.timeout)))
    try:
        new_session_served(t, f"{len(socks)} half-sent requests")
    finally:
        for sock in socks:
            sock.close()
