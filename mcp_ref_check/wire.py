"""Recording connections to a peer under test: what the stdio and the SSE wire share.

Not a spec section: the checker's transport layer, its common part (stdio_wire.py and
sse_wire.py are the two transports). It deliberately does not use mcp_ref's own session engine,
because a case must be able to send what a good client never would (broken JSON, a null id, a
POST to a made-up session) and to see exactly what the peer wrote (a banner on stdout, a
pretty-printed message split over lines).

1. A *wire* is one connection: ``stdio_wire.StdioWire`` spawns the server command and reads its
   stdout line by line; ``sse_wire.SseWire`` opens the event stream with a GET and POSTs each
   message to the ``endpoint`` it announced. Both record every byte exchanged in ``transcript``
   (``Exchange`` entries, parsed where possible), so a failing case can show "sent ... got ...".
2. ``receive(timeout)`` returns the next message from the peer, ``None`` at end of stream, and
   raises ``WaitTimeout`` when the peer stays silent: every wait in the kit is bounded.
3. Everything is bounded whatever the peer sends (the constants below), and ``kill_all`` ends
   every connection and process of a run at once (a run stopped by a signal).
4. ``peer.Peer`` speaks the client's side of MCP on a wire (see peer.py).
"""

from __future__ import annotations

import http.server
import json
import os
import queue
import signal
import subprocess
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

MAX_SHOWN = 600  # characters of one message shown in a report
MAX_LINE = 16 * 1024 * 1024  # bytes of one line (or SSE event) the kit reads; a longer one is cut and reported
MAX_KEPT_TEXT = 1024 * 1024  # characters of one message kept in a transcript (the JSON report writes it whole)
MAX_KEPT_LINE = 64 * 1024  # bytes of one raw line (or SSE event) kept beside the transcript, for the stdout audits
MAX_TRANSCRIPT = 5000  # entries kept per connection; later ones are counted, not kept
MAX_TRANSCRIPT_BYTES = 8 * 1024 * 1024  # characters kept per connection
MAX_QUEUED = 1000  # messages read but not yet taken by a case; past it the reader waits (the peer's writes block)
OVER_CAP = f"a line over the kit's cap of {MAX_LINE // (1024 * 1024)} MiB"
LOG_WINDOW = 1.0  # seconds over which the rate of log notifications is measured (LOG-05)


class WaitTimeout(Exception):
    """The peer sent nothing within the step timeout."""


class ConnectFailed(Exception):
    """The server could not be reached at all (exit status 2)."""


@dataclass
class Exchange:
    """One entry of a transcript: ``direction`` is "sent", "got" or "note" (an HTTP status...)."""

    direction: str
    data: str
    at: float
    msg: Any = None  # the parsed JSON, when the data was a JSON text
    event: str | None = None  # the SSE event name a message arrived in
    stream: str | None = None  # Streamable HTTP: the stream it came on ("POST 3": the third POST's, or "GET")

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"dir": self.direction, "data": self.data, "at": round(self.at, 3)}
        if self.event is not None:
            out["event"] = self.event
        if self.stream is not None:
            out["stream"] = self.stream
        return out


@dataclass
class Incoming:
    """One message from the peer: its raw text, and the parsed JSON (None if it did not parse)."""

    raw: str
    msg: Any
    seq: int  # position in the wire's transcript
    problem: str | None = None  # why it is not a message, when it is not

    @property
    def is_object(self) -> bool:
        return isinstance(self.msg, dict)


def shown(text: str | None) -> str:
    """A message shortened for a report."""
    if text is None:
        return "(nothing)"
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")  # line breaks to a terminal
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + f"... ({len(text)} characters)"


def encode(msg: Any) -> bytes:
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def parse(raw: bytes) -> tuple[str, Any, str | None]:
    """(text, JSON value or None, problem or None) for one message as received."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return raw.decode("utf-8", "replace"), None, f"not UTF-8 ({exc.reason})"
    try:
        return text, json.loads(text), None
    except ValueError as exc:
        return text, None, f"not JSON ({exc})"
    except RecursionError:  # valid JSON, perhaps, nested deeper than Python's parser goes
        return text, None, "nested too deep for the kit to read (JSON deeper than Python's recursion limit)"


LIVE: weakref.WeakSet[Wire] = weakref.WeakSet()  # every connection the kit has open


class Wire:
    """What both transports share: the transcript and the queue of incoming messages.

    Everything is bounded, whatever the peer sends: a line (``MAX_LINE``), the text kept of one
    message, the transcript (``MAX_TRANSCRIPT`` entries, ``MAX_TRANSCRIPT_BYTES``: later entries
    are counted in ``cut``), the raw lines kept, and the queue of messages no case has taken yet
    (``MAX_QUEUED``: past it the reader waits, so a flooding peer is slowed, not stored).
    """

    kind = "wire"

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.transcript: list[Exchange] = []
        self.cut = 0  # transcript entries not kept (past the bounds)
        self._kept_bytes = 0
        self._lock = threading.Lock()
        self._incoming: queue.Queue[Incoming | None] = queue.Queue(MAX_QUEUED)
        self._started = time.monotonic()
        self._ending = False  # the kit is closing this wire: the reader stops waiting on the queue
        self.closed_by_peer = False
        self.ended = threading.Event()  # the peer's stream has ended (see closed_by_peer)
        self.lines: list[bytes] = []  # a stdio peer's raw lines, in order (see _read_lines), bounded
        self.problems: dict[str, int] = {}  # what was wrong with what arrived: "not JSON", "over the cap"...
        self.first_problem: dict[str, str] = {}  # the first instance of each, for a diagnosis
        self.received = 0  # messages (or lines) delivered in all
        self.log_count = 0  # notifications/message received
        self.log_peak = 0  # the most notifications/message within LOG_WINDOW seconds
        self._log_times: deque[float] = deque()
        self._reading = threading.Event()  # cleared: the kit stops reading (a stalled client, --hostile)
        self._reading.set()
        self._partial = bytearray()  # what the peer wrote after its last newline, not yet a line

    def pause(self) -> None:
        """Stop reading what the peer sends (its writes fill the pipe or socket, then block)."""
        self._reading.clear()

    def resume(self) -> None:
        self._reading.set()

    def _record(self, direction: str, data: str, msg: Any = None, event: str | None = None,
                stream: str | None = None) -> int:
        with self._lock:
            if len(self.transcript) >= MAX_TRANSCRIPT or self._kept_bytes >= MAX_TRANSCRIPT_BYTES:
                self.cut += 1
                return -1
            if len(data) > MAX_KEPT_TEXT:
                data = data[:MAX_KEPT_TEXT] + f"... ({len(data)} characters in all; the rest was not kept)"
            self._kept_bytes += len(data)
            self.transcript.append(Exchange(direction, data, time.monotonic() - self._started, msg, event, stream))
            return len(self.transcript) - 1

    def note(self, text: str) -> None:
        self._record("note", text)

    def problem(self, kind: str, example: str) -> None:
        """Count something wrong with what the peer sent (for a diagnosis if nothing else works)."""
        with self._lock:
            self.problems[kind] = self.problems.get(kind, 0) + 1
            self.first_problem.setdefault(kind, example[:300])

    def _deliver(self, raw: bytes, event: str | None = None, problem: str | None = None, counted: bool = False,
                 stream: str | None = None) -> None:
        if problem is None:
            text, msg, problem = parse(raw)
        else:
            text, msg = raw[:MAX_SHOWN].decode("utf-8", "replace"), None
        if problem is not None and not counted:
            self.problem(problem.split(" (")[0], text)
        elif isinstance(msg, dict) and msg.get("method") == "notifications/message":
            self._count_log()
        seq = self._record("got", text, msg, event, stream)
        self.received += 1
        item = Incoming(text, msg, seq, problem)
        while not self._ending:
            try:
                self._incoming.put(item, timeout=0.2)
                return
            except queue.Full:
                continue

    def _count_log(self) -> None:
        now = time.monotonic()
        self.log_count += 1
        self._log_times.append(now)
        while self._log_times and self._log_times[0] < now - LOG_WINDOW:
            self._log_times.popleft()
        self.log_peak = max(self.log_peak, len(self._log_times))

    def _end(self) -> None:
        """The peer's stream ended: wake every reader (without waiting on a full queue)."""
        self.ended.set()
        while True:
            try:
                self._incoming.put_nowait(None)
                return
            except queue.Full:
                try:
                    self._incoming.get_nowait()  # drop the oldest unread message to make room for the end
                except queue.Empty:
                    pass

    def _read_lines(self, read: Callable[[int], bytes]) -> None:
        """Split what ``read`` returns into lines until end of stream (or a broken channel):
        each is recorded in ``lines`` and delivered; an unterminated last line is too. A line
        longer than MAX_LINE is not kept: it is delivered as a problem, and skipped to its end."""
        buffer = self._partial
        skipping = 0  # bytes of an over-long line seen so far (0: not skipping)
        try:
            while self._reading.wait() and (chunk := read(65536)):
                start = 0
                while True:
                    cut = chunk.find(b"\n", start)
                    if cut < 0:
                        piece = chunk[start:]
                        if skipping:
                            skipping += len(piece)
                        elif len(buffer) + len(piece) > MAX_LINE:
                            skipping = len(buffer) + len(piece)
                            self.problem(OVER_CAP, f"{bytes(buffer[:200])!r}...")  # known now, before its end
                            buffer.clear()
                        else:
                            buffer += piece
                        break
                    piece = chunk[start:cut]
                    start = cut + 1
                    if skipping or len(buffer) + len(piece) > MAX_LINE:
                        size = (skipping or len(buffer)) + len(piece)
                        skipping = 0
                        buffer.clear()
                        self._line(b"", problem=f"{OVER_CAP} ({size} bytes)", counted=True)
                        continue
                    buffer += piece
                    self._line(bytes(buffer))
                    buffer.clear()
        except (OSError, ValueError):  # ValueError: a read from a closed file
            pass
        if skipping:
            self._line(b"", problem=f"{OVER_CAP} ({skipping} bytes)", counted=True)
        elif buffer:
            self._line(bytes(buffer))
            buffer.clear()

    def unterminated(self) -> bytes:
        """The start (200 bytes at most) of what the peer has written since its last newline: a
        message still on its way, or one written without the newline that ends it."""
        return bytes(self._partial[:200])

    def _line(self, line: bytes, problem: str | None = None, counted: bool = False) -> None:
        if len(self.lines) < MAX_TRANSCRIPT:
            self.lines.append(line if len(line) <= MAX_KEPT_LINE else line[:MAX_KEPT_LINE])
        self._deliver(line, problem=problem, counted=counted)

    def receive(self, timeout: float | None = None) -> Incoming | None:
        """The next message from the peer; None once the stream has ended."""
        try:
            item = self._incoming.get(timeout=self.timeout if timeout is None else max(timeout, 0.0))
        except queue.Empty:
            raise WaitTimeout() from None
        if item is None:
            try:
                self._incoming.put_nowait(None)  # stay at end of stream for later callers
            except queue.Full:
                pass
        return item

    def refused_without_session(self, request_id: Any) -> int | None:
        """The HTTP status with which the request ``request_id`` was refused before any session
        existed (Streamable HTTP's SHTTP-38); None on the other transports."""
        return None

    def describe_end(self) -> str:
        """How the peer's side ended, in words."""
        return "ended the connection"

    def diagnosis(self) -> str:
        """What was wrong with what the peer sent, for a connection that never worked."""
        parts = []
        for kind, count in self.problems.items():
            first = self.first_problem.get(kind)
            what = {"not JSON": "a line that is not JSON (TR-04: only MCP messages on stdout)",
                    "not UTF-8": "bytes that are not UTF-8"}.get(kind, kind)
            if kind == "not JSON" and first is not None and first.strip() in ("{", "["):
                what = "a line that is not JSON (pretty-printed JSON, it seems: each message is one line, TR-02)"
            parts.append(f"{what}, {count} time(s), first: {shown(first) if first else '(a blank line)'}")
        tail = self.unterminated()
        if tail:
            parts.append(f"bytes with no newline after them, {shown(tail.decode('utf-8', 'replace'))} (each message "
                         "ends with a newline, TR-02)")
        return "; ".join(parts)

    def send(self, msg: Any) -> str:
        """Send one message, compact JSON; return the text sent."""
        data = encode(msg)
        self.send_raw(data)
        return data.decode("utf-8")

    def send_raw(self, data: bytes) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def kill(self) -> None:
        """End the connection at once (a run being stopped)."""
        self.close()

    def sent_and_received(self) -> list[Exchange]:
        with self._lock:
            return list(self.transcript)


CLIENTS: weakref.WeakSet[subprocess.Popen[bytes]] = weakref.WeakSet()  # clients under test still running


def kill_all() -> None:
    """At once: SIGKILL the process group of every server (and client) the kit started, and close
    every other connection, so that every wait of the run ends (a run stopped by a signal)."""
    for wire in list(LIVE):
        wire.kill()
    for proc in list(CLIENTS):
        try:
            if os.name == "posix":
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.kill()
        except OSError:
            pass


def local_http_server(link: Any, name: str) -> http.server.ThreadingHTTPServer:
    """An HTTP server on a free port of 127.0.0.1, serving on a daemon thread named ``name``, that
    hands every GET, POST and DELETE to ``link.handle_get``, ``handle_post``, ``handle_delete``
    (a method the link lacks is answered 501 by the standard library). For the links that play
    the server's part of an HTTP transport to a client under test."""
    handler = type("LinkHandler", (http.server.BaseHTTPRequestHandler,), {"log_message": _quiet})
    for verb in ("GET", "POST", "DELETE"):
        handle = getattr(link, f"handle_{verb.lower()}", None)
        if handle is not None:
            setattr(handler, f"do_{verb}", lambda request, handle=handle: handle(request))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name=name, daemon=True).start()
    return server


def _quiet(request: http.server.BaseHTTPRequestHandler, format: str, *args: Any) -> None:
    """No access log on stderr: the link records what matters in its transcript."""
