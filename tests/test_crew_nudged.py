"""A nudged crew (crew.py, rule 3): over SSE and Streamable HTTP the standby sleeps through
requests, and takes the reading over only when a message waits while the reader is busy.

Not one spec page: the engine's promise that a long request never stops the reading (a ping
is still answered, a cancellation still seen), kept without the standby's timed wake-ups.
Real servers on 127.0.0.1 and raw HTTP as the client; the transport's own class for the end
of input. Each of the first five fails if the transports never call ``message_arrived``.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from mcp_ref import RequestContext, Server
from mcp_ref.sse import _StreamTransport

from . import test_transports_streamable_http as shttp
from .test_transports_sse import INIT, RawStream, post

INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
PROMPTLY = 1.0  # seconds: "at once" on a loaded machine, and far below the long call's HOLD
HOLD = 5.0  # seconds the long call runs unless released or cancelled


class Holding:
    """A server with a tool that holds until released or cancelled, and says when it started
    and when it saw its cancellation."""

    def __init__(self) -> None:
        self.server = Server("nudged")
        self.started = threading.Event()
        self.release = threading.Event()
        self.cancelled = threading.Event()

        @self.server.tool()
        def hold(ctx: RequestContext) -> str:
            self.started.set()
            deadline = time.monotonic() + HOLD
            while not self.release.is_set() and time.monotonic() < deadline:
                if ctx.cancelled.wait(0.01):
                    self.cancelled.set()
                    return "cancelled"
            return "held"


def call_hold(request_id: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "hold", "arguments": {}}}


def cancel(request_id: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id, "reason": "stop"}}


@pytest.fixture
def holding() -> Iterator[Holding]:
    holding = Holding()
    yield holding
    holding.release.set()


@pytest.fixture
def sse(holding: Holding) -> Iterator[tuple[RawStream, str]]:
    """An SSE session, initialized, with the long call running."""
    with holding.server.sse_server(keepalive=0.3) as http:
        stream = RawStream(http.url)
        event, endpoint = stream.next_event()
        assert event == "endpoint"
        endpoint = http.url.rsplit("/sse", 1)[0] + endpoint
        try:
            assert post(endpoint, INIT).status_code == 202
            assert next_message(stream)["id"] == 1  # (passing over keep-alive comments)
            assert post(endpoint, INITIALIZED).status_code == 202
            assert post(endpoint, call_hold(2)).status_code == 202
            assert holding.started.wait(5)
            yield stream, endpoint
        finally:
            holding.release.set()
            stream.close()


def next_message(stream: RawStream) -> dict[str, Any]:
    while True:
        event, data = stream.next_event()
        if event == "message":
            return json.loads(data)  # type: ignore[no-any-return]


def test_sse_a_ping_during_a_long_call_is_answered_at_once(sse: tuple[RawStream, str]) -> None:
    stream, endpoint = sse
    start = time.monotonic()
    assert post(endpoint, {"jsonrpc": "2.0", "id": 3, "method": "ping"}).status_code == 202
    answer = next_message(stream)
    took = time.monotonic() - start
    assert answer == {"jsonrpc": "2.0", "id": 3, "result": {}}  # before the long call's answer
    assert took < PROMPTLY, f"the ping waited {took:.2f} s for the long call"


def test_sse_a_cancellation_during_a_long_call_reaches_its_handler_at_once(
        sse: tuple[RawStream, str], holding: Holding) -> None:
    _, endpoint = sse
    start = time.monotonic()
    assert post(endpoint, cancel(2)).status_code == 202
    assert holding.cancelled.wait(HOLD), "the handler never saw its cancellation"
    took = time.monotonic() - start
    assert took < PROMPTLY, f"the cancellation reached the handler after {took:.2f} s"


@pytest.fixture
def streamable(holding: Holding) -> Iterator[tuple[str, str]]:
    """A Streamable HTTP session, initialized, with the long call running (its POST open)."""
    with holding.server.sse_server(keepalive=0.3) as http:
        url = shttp.url_of(http)
        session = shttp.start_session(url)
        opened: list[requests.Response] = []
        caller = threading.Thread(target=lambda: opened.append(shttp.post(url, call_hold(2), session, stream=True)),
                                  daemon=True)
        caller.start()
        try:
            assert holding.started.wait(5)
            yield url, session
        finally:
            holding.release.set()
            caller.join(10)
            for response in opened:
                response.close()


def test_streamable_http_a_ping_during_a_long_call_is_answered_at_once(streamable: tuple[str, str]) -> None:
    url, session = streamable
    start = time.monotonic()
    answer = shttp.post(url, {"jsonrpc": "2.0", "id": 3, "method": "ping"}, session)
    took = time.monotonic() - start
    assert answer.status_code == 200
    body = answer.json() if answer.headers["Content-Type"].startswith("application/json") else shttp.messages_of(answer)[0]
    assert body == {"jsonrpc": "2.0", "id": 3, "result": {}}
    assert took < PROMPTLY, f"the ping waited {took:.2f} s for the long call"


def test_streamable_http_a_cancellation_during_a_long_call_reaches_its_handler_at_once(
        streamable: tuple[str, str], holding: Holding) -> None:
    url, session = streamable
    start = time.monotonic()
    assert shttp.post(url, cancel(2), session).status_code == 202
    assert holding.cancelled.wait(HOLD), "the handler never saw its cancellation"
    took = time.monotonic() - start
    assert took < PROMPTLY, f"the cancellation reached the handler after {took:.2f} s"


def test_the_end_of_input_during_a_long_call_is_read_at_once(holding: Holding) -> None:
    """The end-of-input marker is nudged too: the session ends after END_OF_INPUT_GRACE (1.5 s),
    not when the long call ends (HOLD)."""
    transport = _StreamTransport(100, None)
    session = holding.server.open_session(transport)
    session.start()
    try:
        for message in (INIT, INITIALIZED, call_hold(2)):
            transport.deliver(json.dumps(message).encode())
        assert holding.started.wait(5)
        start = time.monotonic()
        transport.close()  # the end of input, as SseApp.close() ends every session
        assert session.closed.wait(HOLD), "the session never ended"
        took = time.monotonic() - start
        assert took < 1.5 + PROMPTLY, f"the session ended {took:.2f} s after its input"
    finally:
        session.close()


def voluntary_switches(thread: threading.Thread) -> int:
    with open(f"/proc/self/task/{thread.native_id}/status") as status:
        for line in status:
            if line.startswith("voluntary_ctxt_switches:"):
                return int(line.split()[1])
    raise AssertionError("no voluntary_ctxt_switches")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/task")
def test_a_quiet_sse_session_s_standby_sleeps_through_its_requests(holding: Holding) -> None:
    """What the nudge is for: quick requests, a few milliseconds apart, wake the standby of an
    SSE session never (a crew that is not nudged checks its reader about twice per request)."""
    with holding.server.sse_server(keepalive=30) as http:
        earlier = set(threading.enumerate())
        stream = RawStream(http.url)
        try:
            event, endpoint = stream.next_event()
            endpoint = http.url.rsplit("/sse", 1)[0] + endpoint
            assert post(endpoint, INIT).status_code == 202
            next_message(stream)
            assert post(endpoint, INITIALIZED).status_code == 202
            ping = {"jsonrpc": "2.0", "id": 0, "method": "tools/list"}  # a request the crew runs (not inline)
            assert post(endpoint, ping).status_code == 202
            next_message(stream)
            # The crew's one member: the standby, while the POSTs' threads read (crew.py, rule 8).
            standbys = [t for t in set(threading.enumerate()) - earlier if t.name.startswith("nudged-session-")]
            assert len(standbys) == 1, [t.name for t in threading.enumerate()]
            before = voluntary_switches(standbys[0])
            for n in range(1, 41):
                assert post(endpoint, dict(ping, id=n)).status_code == 202
                assert next_message(stream)["id"] == n
                time.sleep(0.008)  # longer than STANDBY_DELAY: each request on a quiet session
            woken = voluntary_switches(standbys[0]) - before
            assert woken < 10, f"the standby woke {woken} times in 40 requests"
        finally:
            stream.close()
