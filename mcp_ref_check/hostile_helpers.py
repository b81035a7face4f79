"""What every hostile case checks, and the tools it uses to abuse a server within bounds.

Not a spec section: helpers of the conformance checker's ``--hostile`` cases (server_hostile.py,
server_hostile_transports.py). The spec says what a server must answer and how, not how much
abuse it must take; these cases apply its rules under abuse. What every hostile case checks afterwards:

1. the server keeps serving: a ping on the same connection (stdio) or on a new session (SSE) is
   answered within the step timeout: PING-01 (a receiver answers ping promptly);
2. it answers what must be answered: every request whose id could be read gets exactly one
   response (MSG-01, JSON-RPC), with that id (MSG-05);
3. it never writes invalid JSON or bytes that are not UTF-8 (MSG-01);
4. it does not hang: every wait of the kit is bounded, and a silence past it is a finding.

The tools: raw lines or POSTs sent in bursts with a deadline (``send_lines``, ``post_all``),
reading whatever arrives for a while (``drain``, ``drain_until``), and, over SSE, many idle or
half-sent TCP connections (``open_sockets``).
"""

from __future__ import annotations

import resource
import socket
import threading
import time
import urllib.parse

from . import shapes
from .peer import Peer, waited
from .server_check import ServerCheck
from .sse_wire import SseWire, http_request
from .stdio_wire import StdioWire
from .wire import ConnectFailed, Incoming, WaitTimeout, shown


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
    return drain_until(peer, -1, seconds)


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


def drain_until(peer: Peer, count: int, seconds: float) -> list[Incoming]:
    """What arrives until ``count`` responses came (-1: no count), or ``seconds`` passed, or the
    stream ended."""
    got: list[Incoming] = []
    responses = 0
    deadline = time.monotonic() + seconds
    while responses != count and time.monotonic() < deadline:
        try:
            item = peer.wire.receive(deadline - time.monotonic())
        except WaitTimeout:
            break
        if item is None:
            break
        got.append(item)
        responses += isinstance(item.msg, dict) and "method" not in item.msg
    return got


def bounded_http(url: str, body: bytes, seconds: float) -> int | str:
    """POST ``body``; the status, or what went wrong (no answer within ``seconds``)."""
    try:
        return http_request(url, "POST", body, {"Content-Type": "application/json"}, seconds).status
    except TimeoutError:
        return f"no HTTP answer within {seconds:g} s"
    except OSError as exc:
        return f"the connection failed ({exc})"


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
