"""Recording connections to a server under test: raw stdio lines and raw HTTP with SSE.

Not a spec section: the checker's transport layer. It deliberately does not use mcp_ref's own
session engine, because a case must be able to send what a good client never would (broken
JSON, a null id, a POST to a made-up session) and to see exactly what the peer wrote (a banner
on stdout, a pretty-printed message split over lines).

1. A *wire* is one connection: ``StdioWire`` spawns the server command and reads its stdout line
   by line; ``SseWire`` opens the event stream with a GET and POSTs each message to the
   ``endpoint`` it announced. Both record every byte exchanged in ``transcript`` (``Exchange``
   entries, parsed where possible), so a failing case can show "sent ... got ...".
2. ``receive(timeout)`` returns the next message from the peer, ``None`` at end of stream, and
   raises ``WaitTimeout`` when the peer stays silent: every wait in the kit is bounded.
3. ``peer.Peer`` speaks the client's side of MCP on a wire (see peer.py).
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import shlex
import signal
import socket
import subprocess
import threading
import time
import urllib.parse
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MAX_SHOWN = 600  # characters of one message shown in a report
MAX_LINE = 16 * 1024 * 1024  # bytes of one line (or SSE event) the kit reads; a longer one is cut and reported
MAX_KEPT_TEXT = 64 * 1024  # characters of one message kept in a transcript
MAX_REPORT_TEXT = 4000  # characters of one message written in a JSON report
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

    def as_dict(self) -> dict[str, Any]:
        data = self.data if len(self.data) <= MAX_REPORT_TEXT else (
            self.data[:MAX_REPORT_TEXT] + f"... ({len(self.data)} characters kept in all)")
        out: dict[str, Any] = {"dir": self.direction, "data": data, "at": round(self.at, 3)}
        if self.event is not None:
            out["event"] = self.event
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

    def pause(self) -> None:
        """Stop reading what the peer sends (its writes fill the pipe or socket, then block)."""
        self._reading.clear()

    def resume(self) -> None:
        self._reading.set()

    def _record(self, direction: str, data: str, msg: Any = None, event: str | None = None) -> int:
        with self._lock:
            if len(self.transcript) >= MAX_TRANSCRIPT or self._kept_bytes >= MAX_TRANSCRIPT_BYTES:
                self.cut += 1
                return -1
            if len(data) > MAX_KEPT_TEXT:
                data = data[:MAX_KEPT_TEXT] + f"... ({len(data)} characters in all; the rest was not kept)"
            self._kept_bytes += len(data)
            self.transcript.append(Exchange(direction, data, time.monotonic() - self._started, msg, event))
            return len(self.transcript) - 1

    def note(self, text: str) -> None:
        self._record("note", text)

    def problem(self, kind: str, example: str) -> None:
        """Count something wrong with what the peer sent (for a diagnosis if nothing else works)."""
        with self._lock:
            self.problems[kind] = self.problems.get(kind, 0) + 1
            self.first_problem.setdefault(kind, example[:300])

    def _deliver(self, raw: bytes, event: str | None = None, problem: str | None = None, counted: bool = False) -> None:
        if problem is None:
            text, msg, problem = parse(raw)
        else:
            text, msg = raw[:MAX_SHOWN].decode("utf-8", "replace"), None
        if problem is not None and not counted:
            self.problem(problem.split(" (")[0], text)
        elif isinstance(msg, dict) and msg.get("method") == "notifications/message":
            self._count_log()
        seq = self._record("got", text, msg, event)
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
        buffer = bytearray()
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

    def _line(self, line: bytes, problem: str | None = None, counted: bool = False) -> None:
        if len(self.lines) < MAX_TRANSCRIPT:
            self.lines.append(line if len(line) <= MAX_KEPT_TEXT else line[:MAX_KEPT_TEXT])
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

    def describe_end(self) -> str:
        """How the peer's side ended, in words."""
        return "ended the connection"

    def diagnosis(self) -> str:
        """What was wrong with what the peer sent, for a connection that never worked."""
        parts = []
        for kind, count in self.problems.items():
            what = {"not JSON": "a line that is not JSON (TR-04: only MCP messages on stdout)",
                    "not UTF-8": "bytes that are not UTF-8"}.get(kind, kind)
            parts.append(f"{what}, {count} time(s), first: {shown(self.first_problem.get(kind))}")
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


# --- stdio ---------------------------------------------------------------------------------------

EXIT_GRACE = 0.5  # seconds the stdout of an exited server may stay open before the kit stops waiting


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


class StdioWire(Wire):
    """The server command as a child process; every line it writes on stdout is recorded."""

    kind = "stdio"

    def __init__(self, command: str | list[str], timeout: float) -> None:
        super().__init__(timeout)
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise ConnectFailed("the server command is empty")
        self.stderr_tail: deque[str] = deque(maxlen=20)
        self.exit_code: int | None = None
        self.orphaned = False  # the process exited while a child of it still held its stdout
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         start_new_session=(os.name == "posix"))
        except OSError as exc:
            raise ConnectFailed(f"could not start {argv[0]!r}: {exc}") from exc
        LIVE.add(self)
        threading.Thread(target=self._read_stdout, name="check-stdout", daemon=True).start()
        threading.Thread(target=self._read_stderr, name="check-stderr", daemon=True).start()
        threading.Thread(target=self._watch, name="check-exit", daemon=True).start()

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        self._read_lines(getattr(self.proc.stdout, "read1", self.proc.stdout.read))
        self.closed_by_peer = True
        self._end()

    def _watch(self) -> None:
        """Notice the server's exit even when a grandchild still holds its stdout open."""
        self.exit_code = self.proc.wait()
        if self.ended.wait(EXIT_GRACE):
            return
        self.orphaned = True
        self.note(f"the server process exited with status {self.exit_code}, but its stdout stayed open "
                  "(a child process holds it): the connection is treated as ended")
        self.closed_by_peer = True
        self._end()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        try:
            while line := self.proc.stderr.readline(4096):
                self.stderr_tail.append(line.decode("utf-8", "replace").rstrip())
        except (OSError, ValueError):
            pass

    def describe_end(self) -> str:
        """How the server's side ended, in words: its exit status if it exited."""
        code = self.wait_exit(EXIT_GRACE)  # its stdout has just closed: the exit is usually a moment away
        if code is None:
            return "closed its stdout"
        return f"exited with status {code}"

    def send_raw(self, data: bytes) -> None:
        """Write ``data`` and a newline (unless it already ends with one)."""
        line = data if data.endswith(b"\n") else data + b"\n"
        text, msg, _ = parse(line.rstrip(b"\n"))
        self._record("sent", text, msg)
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line)
            self.proc.stdin.flush()
        except (OSError, ValueError):
            self.note("could not write: the server's stdin is closed")

    def send_bounded(self, data: bytes, seconds: float, label: str) -> bool:
        """Write ``data`` (any size, already framed) within ``seconds``, or give up: False when the
        server stopped reading its stdin. Recorded as a note (``label``), not as a message."""
        self.note(f"wrote {label} ({len(data)} bytes)")
        assert self.proc.stdin is not None
        stdin = self.proc.stdin

        def write() -> None:
            try:
                stdin.write(data)
                stdin.flush()
            except (OSError, ValueError):
                pass

        writer = threading.Thread(target=write, name="check-write", daemon=True)
        writer.start()
        writer.join(seconds)
        if writer.is_alive():
            self.note(f"the server had not read {label} after {seconds:g} s")
            return False
        return True

    def close_input(self) -> None:
        """Close the server's stdin (the first step of a stdio shutdown)."""
        self.note("closed the server's stdin")
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        except OSError:
            pass

    def wait_exit(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def close(self) -> None:
        """Close stdin, then SIGTERM and SIGKILL the process group, briefly waiting each time."""
        self._ending = True
        self._reading.set()
        if self.proc.poll() is None:
            try:
                if self.proc.stdin is not None:
                    self.proc.stdin.close()
            except OSError:
                pass
            if self.wait_exit(0.5) is None:
                self._signal(signal.SIGTERM)
                if self.wait_exit(1.0) is None:
                    self._signal(signal.SIGKILL)
                    self.wait_exit(1.0)
        if os.name == "posix":
            self._signal(signal.SIGKILL)  # grandchildren of a wrapper command
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        LIVE.discard(self)

    def kill(self) -> None:
        """At once: SIGKILL the process group (a run being stopped)."""
        self._ending = True
        self._signal(signal.SIGKILL)

    def _signal(self, sig: int) -> None:
        try:
            if os.name == "posix":
                os.killpg(self.proc.pid, sig)
            else:
                self.proc.send_signal(sig)
        except (ProcessLookupError, PermissionError, OSError):
            pass


# --- HTTP with SSE -------------------------------------------------------------------------------


class SseEventParser:
    """Server-sent events from a byte stream: ``feed()`` bytes, get (event, data) pairs back."""

    def __init__(self) -> None:
        self._buffer = b""
        self._event = ""
        self._data: list[str] = []

    def feed(self, chunk: bytes) -> list[tuple[str, str]]:
        self._buffer += chunk
        events: list[tuple[str, str]] = []
        if len(self._buffer) > MAX_LINE and b"\n" not in self._buffer and b"\r" not in self._buffer:
            size = len(self._buffer)
            self._buffer, self._data = b"", []
            events.append(("", f"a line over the kit's cap of {MAX_LINE // (1024 * 1024)} MiB ({size} bytes)"))
            return events
        while True:
            cut = min((i for i in (self._buffer.find(b"\n"), self._buffer.find(b"\r")) if i >= 0), default=-1)
            if cut < 0:
                return events
            line = self._buffer[:cut].decode("utf-8", "replace")
            step = 2 if self._buffer[cut:cut + 2] == b"\r\n" else 1
            if self._buffer[cut:cut + 1] == b"\r" and cut + 1 == len(self._buffer):
                return events  # a lone CR at the end: wait to see whether LF follows
            self._buffer = self._buffer[cut + step:]
            if not line:
                if self._data:
                    events.append((self._event or "message", "\n".join(self._data)))
                self._event, self._data = "", []
            elif line.startswith(":"):
                continue  # a comment (keepalive)
            else:
                name, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if name == "event":
                    self._event = value
                elif name == "data":
                    if sum(map(len, self._data)) + len(value) > MAX_LINE:
                        self._data = []
                        events.append(("", f"an event over the kit's cap of {MAX_LINE // (1024 * 1024)} MiB"))
                    else:
                        self._data.append(value)


def _connection(url: str, timeout: float) -> http.client.HTTPConnection:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConnectFailed(f"not an http(s) URL: {url!r}")
    cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    return cls(parts.hostname, parts.port, timeout=timeout)


def _target(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


@dataclass
class HttpAnswer:
    status: int
    headers: dict[str, str]
    body: str
    sent_headers: dict[str, str] = field(default_factory=dict)  # what the kit sent, Host included


def host_header(url: str) -> str:
    """The Host header http.client sends for ``url``."""
    parts = urllib.parse.urlsplit(url)
    default = 443 if parts.scheme == "https" else 80
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    return host if parts.port in (None, default) else f"{host}:{parts.port}"


def http_request(url: str, method: str, body: bytes | None, headers: dict[str, str], timeout: float) -> HttpAnswer:
    """One plain HTTP request (a fresh connection); raises OSError if it cannot be made or is not
    answered within ``timeout`` (socket.timeout, a subclass)."""
    conn = _connection(url, timeout)
    try:
        conn.request(method, _target(url), body=body, headers=headers)
        response = conn.getresponse()
        data = response.read(65536)
        return HttpAnswer(response.status, {k.lower(): v for k, v in response.getheaders()},
                          data.decode("utf-8", "replace"), {"Host": host_header(url), **headers})
    except http.client.HTTPException as exc:
        raise OSError(f"not an HTTP answer: {exc!r}") from exc
    finally:
        conn.close()


class SseWire(Wire):
    """An event stream opened with a GET; each message we send is a POST to the ``endpoint``.

    ``status`` and ``content_type`` describe the GET's answer; ``events`` lists every event's
    name and data; ``endpoint`` is the announced URI resolved against ``url`` (None until it
    arrives). ``post_statuses`` holds the status of each POST.
    """

    kind = "sse"

    def __init__(self, url: str, timeout: float, headers: dict[str, str] | None = None) -> None:
        super().__init__(timeout)
        self.url = url
        self.headers = dict(headers or {})
        self.events: list[tuple[str, str]] = []
        self.endpoint: str | None = None
        self.endpoint_raw: str | None = None
        self._endpoint_ready = threading.Event()
        self.post_statuses: list[int] = []
        self.status = 0
        self.content_type = ""
        self._closing = False
        self.sent_headers = {"Host": host_header(url), "Accept": "text/event-stream", **self.headers}
        self._conn = _connection(url, timeout)
        self._sock: socket.socket | None = None
        LIVE.add(self)
        try:
            self._conn.request("GET", _target(url), headers={"Accept": "text/event-stream", **self.headers})
            self._sock = self._conn.sock  # http.client lets go of it for a response that ends the connection
            self._response = self._conn.getresponse()
        except ConnectionRefusedError as exc:
            self._conn.close()
            raise ConnectFailed(f"connection refused at {url} (nothing listens there)") from exc
        except TimeoutError as exc:
            self._conn.close()
            raise ConnectFailed(f"the GET {url} got no answer within {timeout:g} s") from exc
        except (OSError, http.client.HTTPException) as exc:
            self._conn.close()
            raise ConnectFailed(f"could not open the event stream at {url}: {exc}") from exc
        self.status = self._response.status
        self.content_type = self._response.getheader("Content-Type", "") or ""
        self.note(f"GET {url} -> HTTP {self.status} ({self.content_type or 'no content type'})")
        if self.status != 200:
            self._conn.close()
            self._endpoint_ready.set()
            self._end()
            return
        if self._sock is not None:
            self._sock.settimeout(None)  # the reader blocks however long the stream is quiet; close() wakes it
        threading.Thread(target=self._read_events, name="check-sse", daemon=True).start()

    def _read_events(self) -> None:
        parser = SseEventParser()
        try:
            while True:
                self._reading.wait()
                chunk = self._response.read1(65536)
                if not chunk:
                    break
                for name, data in parser.feed(chunk):
                    if not name:  # the parser's report of an over-long line or event
                        self._deliver(b"", problem=data)
                        continue
                    if len(self.events) < MAX_TRANSCRIPT:
                        self.events.append((name, data[:MAX_KEPT_TEXT]))
                    if name == "endpoint":
                        self._on_endpoint(data)
                    else:
                        self._deliver(data.encode("utf-8"), event=name)
        except Exception:  # closed under our feet, or the stream broke: either way it has ended
            pass
        if not self._closing:
            self.closed_by_peer = True
            self.note("the server closed the event stream")
        self._endpoint_ready.set()
        self._end()

    def describe_end(self) -> str:
        return "closed the event stream"

    def _on_endpoint(self, data: str) -> None:
        self._record("got", data, event="endpoint")
        if self.endpoint_raw is None:
            self.endpoint_raw = data
            self.endpoint = urllib.parse.urljoin(self.url, data.strip())
            self._endpoint_ready.set()

    def wait_endpoint(self, timeout: float | None = None) -> str | None:
        self._endpoint_ready.wait(self.timeout if timeout is None else timeout)
        return self.endpoint

    def post(self, data: bytes, *, url: str | None = None, headers: dict[str, str] | None = None) -> HttpAnswer | None:
        """POST ``data`` to the endpoint (or ``url``); record it and the status. None if it could not be sent."""
        target = url or self.wait_endpoint()
        text, msg, _ = parse(data)
        self._record("sent", text, msg)
        if target is None:
            self.note("no endpoint event arrived, so there is nowhere to POST")
            return None
        try:
            answer = http_request(target, "POST", data, {"Content-Type": "application/json", **self.headers,
                                                         **(headers or {})}, self.timeout)
        except OSError as exc:
            self.note(f"POST {target} failed: {exc}")
            return None
        self.post_statuses.append(answer.status)
        self.note(f"POST {_target(target)} -> HTTP {answer.status}" + (f" {answer.body[:120]!r}" if answer.body else ""))
        return answer

    def send_raw(self, data: bytes) -> None:
        self.post(data)

    def close(self) -> None:
        self._closing = True
        self._ending = True
        self._reading.set()
        LIVE.discard(self)
        sock = self._sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._conn.close()
