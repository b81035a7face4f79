"""Hostile server cases for the transports (``mcp-ref check server --hostile``): a line over any cap,
a client that stops reading, and over SSE a crowd of idle or half-sent connections.

Not a spec section: cases of the conformance checker (see __init__.py), run only with
``--hostile``. The spec pages they check (each case names its own):
  https://modelcontextprotocol.io/specification/2024-11-05/basic/transports
  https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/ping

They judge what server_hostile.py judges (see hostile_helpers.py): the server keeps serving
(PING-01), answers what it could read (MSG-01) and writes nothing invalid. The biggest input is
one 40 MiB line, the longest wait a few steps.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.parse

from .hostile_helpers import (
    answers_by_id,
    bounded_http,
    drain_until,
    hostile_session,
    keeps_serving,
    new_session_served,
    only_valid_json,
    open_sockets,
    post_all,
    raise_file_limit,
)
from .model import server_case
from .server_check import ServerCheck
from .sse_wire import SseWire
from .stdio_wire import StdioWire

TRANSPORTS = "basic/transports"
BIG = 40 * 1024 * 1024  # bytes of the line over the cap (above the usual caps: 32 MiB here, 4 MiB in many)
STALL = 2000  # requests sent while the kit does not read
STALL_SECONDS = 2.0  # how long the kit does not read
IDLE = 1100  # idle connections over SSE
HALF_SENT = 60  # half-sent HTTP requests over SSE


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
