"""The Streamable HTTP client resumes an event stream that ends or breaks before it is done: it waits
the server's ``retry`` time (a second if it named none), GETs the endpoint with ``Last-Event-ID``
naming the last whole event received, and takes the answer from that response, for a POST's
stream and for the GET stream alike; where it cannot (no id, the GET refused, no progress after
MAX_TRIES tries) the call fails at once with an error saying the stream ended before answering,
and a call that times out, or a client that closes, during the wait ends it without a GET. The
peer is tests/peers/resuming_server.py, a real subprocess on a real socket, which logs every GET
with its Last-Event-ID and how long after the end of the stream it came; the event-stream parser
that keeps the ids and the retry time (``sse_events`` with a ``Cursor``) is checked on its own at
the end. Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery
(SHTTP-31..33, SHTC-04..13; the client's side is mcp_ref/revisions/stream_resumption.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_ref import Client, ConnectionClosed, McpError, RequestTimeout
from mcp_ref.machinery.http.client_plumbing import Cursor, sse_events
from mcp_ref.revisions.stream_resumption import DEFAULT_DELAY, MAX_TRIES

from ..conftest import Waiters
from ..support.schema_tap import SchemaTap

SERVER = Path(__file__).resolve().parents[1] / "peers" / "resuming_server.py"
DONE = {"content": [{"type": "text", "text": "slow: done"}]}  # what the server's tool answers
SLACK_MS = 50  # the server measures the wait; clocks and scheduling may shave a little off it
LONG_RETRY_MS = 20000  # a wait that must be cut short, never sat out
READER = "mcp_ref-http-response"  # the name of the transport's thread that reads a POST's stream


class Peer:
    """resuming_server.py in ``mode``: its URL, and every line it printed after it (JSON objects,
    read by a thread as they come). Closing its stdin stops it."""

    def __init__(self, mode: str, retry_ms: int | None) -> None:
        command = [sys.executable, str(SERVER), "--mode", mode]
        command += ["--retry-ms", str(retry_ms)] if retry_ms is not None else []
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        first = self.proc.stdout.readline()
        assert first.startswith("listening at "), f"the server said {first!r}"
        self.url = first.split(" at ", 1)[1].strip()
        self.said: list[dict[str, Any]] = []
        self._changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._changed:
                self.said.append(json.loads(line))
                self._changed.notify_all()

    def gets(self) -> list[dict[str, Any]]:
        """Every GET the server received, in order."""
        with self._changed:
            return [line for line in self.said if "get" in line]

    def resumed(self) -> list[dict[str, Any]]:
        """The GETs that carried ``Last-Event-ID``."""
        return [get for get in self.gets() if get["last_event_id"] is not None]

    def wait_for(self, found: Callable[[list[dict[str, Any]]], bool], what: str) -> None:
        """Until ``found(what the server printed)`` (10 s at most: a liveness bound, not a speed)."""
        with self._changed:
            assert self._changed.wait_for(lambda: found(self.said), 10), f"{what}: the server printed {self.said}"

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


@pytest.fixture
def serve() -> Iterator[Callable[..., Peer]]:
    """Factory: ``serve(mode, retry_ms=None)`` starts resuming_server.py; stopped at teardown."""
    peers: list[Peer] = []

    def start(mode: str, retry_ms: int | None = None) -> Peer:
        peers.append(Peer(mode, retry_ms))
        return peers[-1]

    yield start
    for peer in peers:
        peer.close()


def readers() -> set[threading.Thread]:
    return {thread for thread in threading.enumerate() if thread.name == READER}


def new_readers(before: set[threading.Thread]) -> set[threading.Thread]:
    """The reader threads started since ``before``, once there is one (10 s at most)."""
    deadline = time.monotonic() + 10
    while not (started := readers() - before) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert started, "no thread reads the POST's stream"
    return started


def wait_gone(threads: set[threading.Thread]) -> None:
    """The threads end within 5 s (a liveness bound: a wait that was not cut short lasts 20 s)."""
    for thread in threads:
        thread.join(5)
    assert not [thread for thread in threads if thread.is_alive()], "the stream's reader still waits to resume"


def stream_ended_before_answering(failed: pytest.ExceptionInfo[McpError], why: str = "") -> None:
    """The error the transport makes for a request whose stream can be neither read on nor resumed:
    raised at once, not at the call's timeout, saying why resuming stopped where it was tried."""
    assert not isinstance(failed.value, TimeoutError)
    assert failed.value.code == -32000
    said = f" ({why})" if why else ""
    assert f"the server ended the stream{said} before answering to tools/call" in failed.value.message
    assert failed.value.data["transport"] == "streamable-http"


# --- a stream resumed ------------------------------------------------------------------------


@pytest.mark.parametrize("retry_ms", [150, None], ids=["retry-150ms", "no-retry-waits-1s"])
def test_a_stream_ended_after_its_priming_event_is_resumed_with_the_answer(
        serve: Callable[..., Peer], tap: SchemaTap, retry_ms: int | None) -> None:
    """SHTC-04..08, SHTTP-32: the POST's stream is an id, a retry time and no data, then its end
    (the conformance suite's sse-retry scenario); the client GETs with that id after the retry
    time (a second when none was named) and the call returns the answer carried there."""
    peer = serve("ends-after-priming", retry_ms)
    with Client.http(peer.url, timeout=10, fallback=False, trace=tap) as client:
        assert client.call_tool("slow", {}) == DONE
        client.ping()  # and the session goes on
    opened, resumed = peer.gets()[0], peer.resumed()
    assert [get["last_event_id"] for get in resumed] == ["post1-1"] and resumed[0]["status"] == 200
    assert resumed[0]["session"] == opened["session"] is not None  # SHTTP-37: in the session
    waited_ms = retry_ms if retry_ms is not None else DEFAULT_DELAY * 1000  # SHTC-08
    assert resumed[0]["since_end_ms"] >= waited_ms - SLACK_MS


def test_a_stream_broken_in_the_middle_of_an_event_is_resumed_from_the_last_whole_event(
        serve: Callable[..., Peer], tap: SchemaTap) -> None:
    """Two log messages with ids, half of a third, then the connection breaks (the chunked body
    never ends): the GET names the second id, not the third (an event counts only once whole),
    and every message arrives once: the two, then the third and the answer from the resumed
    stream (SHTTP-32, SHTTP-33)."""
    peer = serve("breaks-mid-stream", 150)
    logged: list[str] = []
    with Client.http(peer.url, timeout=10, fallback=False, trace=tap,
                     on_log_message=lambda params: logged.append(params["data"])) as client:
        assert client.call_tool("slow", {}) == DONE
    assert {"ended": "post1", "how": "break"} in peer.said
    resumed = peer.resumed()
    assert [get["last_event_id"] for get in resumed] == ["post1-2"]
    assert resumed[0]["since_end_ms"] >= 150 - SLACK_MS
    assert logged == ["one", "two", "three"]


def test_the_get_stream_ended_by_the_server_is_reopened_from_its_last_event_id(
        serve: Callable[..., Peer], tap: SchemaTap) -> None:
    """SHTC-13, SHTTP-28: the GET stream (the one opened after initialize) sends a notification with
    an id and a retry time, then ends; the client hears the notification and opens the stream
    again after the retry time, with that id."""
    peer = serve("get-stream-ids", 300)
    changed: list[str] = []
    with Client.http(peer.url, timeout=10, fallback=False, trace=tap, on_list_changed=changed.append) as client:
        peer.wait_for(lambda said: any(line.get("last_event_id") == "get-1" for line in said), "the GET from get-1")
        assert client.call_tool("slow", {}) == DONE
    first, again = peer.gets()[:2]
    assert first["last_event_id"] is None and first["status"] == 200
    assert again["last_event_id"] == "get-1" and again["session"] == first["session"]
    assert again["since_end_ms"] >= 300 - SLACK_MS
    assert changed == ["tools"]


# --- a stream that cannot be resumed -----------------------------------------------------------


@pytest.mark.parametrize(("mode", "retry_ms", "tries", "status", "why"), [
    ("no-ids", None, 0, None, ""),  # nothing to resume from: no GET with Last-Event-ID at all
    ("refuses-resumption", 100, 1, 405,  # the GET refused: not asked again
     "resuming it from event 'post1-1' was refused: HTTP 405, no event stream"),
    ("never-answers", 100, MAX_TRIES, 200,  # each GET ends with no new event: MAX_TRIES from one id
     f"{MAX_TRIES} tries to resume it from event 'post1-1' brought nothing new"),
])
def test_a_stream_that_cannot_be_resumed_fails_its_call_saying_why_and_the_session_goes_on(
        serve: Callable[..., Peer], tap: SchemaTap, mode: str, retry_ms: int | None, tries: int, status: int | None,
        why: str) -> None:
    peer = serve(mode, retry_ms)
    with Client.http(peer.url, timeout=10, fallback=False, trace=tap) as client:
        with pytest.raises(McpError) as failed:
            client.call_tool("slow", {})
        stream_ended_before_answering(failed, why)
        time.sleep(0.3)  # time for one more try, were one (wrongly) made
        client.ping()  # only that call failed
    resumed = peer.resumed()
    assert [get["last_event_id"] for get in resumed] == ["post1-1"] * tries
    assert all(get["status"] == status and get["since_end_ms"] >= (retry_ms or 0) - SLACK_MS for get in resumed)


# --- the wait cut short --------------------------------------------------------------------------


def test_a_call_that_times_out_during_the_wait_fails_with_a_timeout_and_is_not_resumed(
        serve: Callable[..., Peer], tap: SchemaTap) -> None:
    """The server asks for 20 s; the call's own timeout (0.5 s) ends it first: RequestTimeout,
    the wait is over (the stream's reader ends) and no GET with Last-Event-ID is ever sent."""
    peer = serve("ends-after-priming", LONG_RETRY_MS)
    with Client.http(peer.url, timeout=10, fallback=False, trace=tap) as client:
        before = readers()
        waiting = Waiters(lambda: client.call_tool("slow", {}, timeout=0.5), 1)
        reading = new_readers(before)  # it reads the stream, then waits to resume it
        [outcome] = waiting.join(10)
        assert isinstance(outcome, RequestTimeout) and isinstance(outcome, TimeoutError), outcome
        wait_gone(reading)
        client.ping()
    assert {"ended": "post1", "how": "end"} in peer.said and peer.resumed() == []


def test_closing_the_client_during_the_wait_ends_it_and_the_call(serve: Callable[..., Peer], tap: SchemaTap) -> None:
    """The server asks for 20 s; the client closes meanwhile: the waiting call fails with the
    connection's end (not at its timeout), the wait is over, and no GET is sent."""
    peer = serve("ends-after-priming", LONG_RETRY_MS)
    client = Client.http(peer.url, timeout=10, fallback=False, trace=tap)
    try:
        before = readers()
        waiting = Waiters(lambda: client.call_tool("slow", {}), 1)
        reading = new_readers(before)
        peer.wait_for(lambda said: {"ended": "post1", "how": "end"} in said, "the end of the POST's stream")
        time.sleep(0.2)  # the client has read the end by now, and waits
    finally:
        client.close()
    [outcome] = waiting.join(10)
    assert isinstance(outcome, ConnectionClosed) and "closed" in str(outcome), outcome
    wait_gone(reading)
    assert peer.resumed() == []


# --- the parser's cursor -------------------------------------------------------------------------

ANSWER = '{"jsonrpc":"2.0","id":1,"result":{}}'

# (what the table row shows, the chunks, the cursor before, the events yielded, the cursor after)
CURSOR_CASES: list[tuple[str, list[bytes], Cursor, list[str], Cursor]] = [
    ("priming event: not yielded, id and retry kept", [b"id: e1\nretry: 500\ndata: \n\n"], Cursor(), [],
     Cursor("e1", 500)),
    ("priming event without a data line", [b"id: e1\nretry: 500\n\n"], Cursor(), [], Cursor("e1", 500)),
    ("priming, then the answer without an id", [b"id: e1\nretry: 500\ndata: \n\n", f"data: {ANSWER}\n\n".encode()],
     Cursor(), [ANSWER], Cursor("e1", 500)),
    ("an id stays for later events without one", [b"id: a\ndata: x\n\ndata: y\n\n: comment\n\n"], Cursor(),
     ["x", "y"], Cursor("a")),
    ("a resumed stream starts from the cursor's id", [b"data: y\n\n"], Cursor("a", 100), ["y"], Cursor("a", 100)),
    ("a later id replaces it", [b"id: a\ndata: x\n\nid: b\ndata: y\n\n"], Cursor(), ["x", "y"], Cursor("b")),
    ("an empty id clears it", [b"id: a\ndata: x\n\nid: \ndata: y\n\n"], Cursor(), ["x", "y"], Cursor()),
    ("an empty id with no space clears it too", [b"id:\n\n"], Cursor("a"), [], Cursor()),
    ("retry: digits only", [b"retry: 100\n\nretry: 1.5\n\nretry: abc\n\nretry: -5\n\nretry: \n\n"], Cursor(), [],
     Cursor(None, 100)),
    ("retry: non-ASCII digits ignored", ["retry: \u0661\u0662\n\nretry: \u00b2\n\n".encode()], Cursor(None, 7), [],
     Cursor(None, 7)),
    ("an id of 256 characters is kept", [b"id: " + b"i" * 256 + b"\n\n"], Cursor("a"), [], Cursor("i" * 256)),
    ("an id of 300 characters is not", [b"id: " + b"i" * 300 + b"\ndata: y\n\n"], Cursor("a"), ["y"], Cursor("a")),
    ("an id with a control character is not", [b"id: a\x01b\ndata: y\n\n"], Cursor("a"), ["y"], Cursor("a")),
    ("an id with NUL is not", [b"id: a\x00b\n\n"], Cursor("a"), [], Cursor("a")),
    ("an id that is not ASCII is not", ["id: \u00e9t\u00e9\ndata: y\n\n".encode()], Cursor("a"), ["y"], Cursor("a")),
    ("an id in an event cut before its blank line does not count", [b"id: a\ndata: x\n\nid: b\ndata: {\"jsonrpc\""],
     Cursor(), ["x"], Cursor("a")),
    ("an id line cut in the middle does not count", [b"id: a\ndata: x\n\nid: b"], Cursor(), ["x"], Cursor("a")),
    ("CRLF line endings", [b"id: a\r\nretry: 200\r\ndata: x\r\n\r\nid: b\r\n\r\n"], Cursor(), ["x"], Cursor("b", 200)),
    ("data split over chunks", [b"id: a\nda", b"ta: {\"k\"", b": 1}\n", b"\r", b"\n", b"id: b\r", b"\n\r", b"\n"],
     Cursor(), ['{"k": 1}'], Cursor("b")),
    ("several data lines joined", [b"id: a\ndata: x\ndata:\ndata: y\n\n"], Cursor(), ["x\n\ny"], Cursor("a")),
]


@pytest.mark.parametrize(("chunks", "before", "events", "after"), [case[1:] for case in CURSOR_CASES],
                         ids=[case[0] for case in CURSOR_CASES])
def test_sse_events_keeps_the_last_event_id_and_the_retry_time_in_its_cursor(
        chunks: list[bytes], before: Cursor, events: list[str], after: Cursor) -> None:
    cursor = Cursor(before.last_event_id, before.retry_ms)
    assert list(sse_events(iter(chunks), 1 << 20, cursor)) == [("message", data) for data in events]
    assert cursor == after
