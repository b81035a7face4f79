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
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

MAX_SHOWN = 600  # characters of one message shown in a report


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
        out: dict[str, Any] = {"dir": self.direction, "data": self.data, "at": round(self.at, 3)}
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


class Wire:
    """What both transports share: the transcript and the queue of incoming messages."""

    kind = "wire"

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.transcript: list[Exchange] = []
        self._lock = threading.Lock()
        self._incoming: queue.Queue[Incoming | None] = queue.Queue()
        self._started = time.monotonic()
        self.closed_by_peer = False
        self.lines: list[bytes] = []  # a stdio peer's every raw line, in order (see _read_lines)

    def _record(self, direction: str, data: str, msg: Any = None, event: str | None = None) -> int:
        with self._lock:
            self.transcript.append(Exchange(direction, data, time.monotonic() - self._started, msg, event))
            return len(self.transcript) - 1

    def note(self, text: str) -> None:
        self._record("note", text)

    def _deliver(self, raw: bytes, event: str | None = None) -> None:
        text, msg, problem = parse(raw)
        seq = self._record("got", text, msg, event)
        self._incoming.put(Incoming(text, msg, seq, problem))

    def _read_lines(self, read: Callable[[int], bytes]) -> None:
        """Split what ``read`` returns into lines until end of stream (or a broken channel):
        each is recorded in ``lines`` and delivered; an unterminated last line is too."""
        buffer = b""
        try:
            while chunk := read(65536):
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    self.lines.append(line)
                    self._deliver(line)
        except (OSError, ValueError):  # ValueError: a read from a closed file
            pass
        if buffer:
            self.lines.append(buffer)
            self._deliver(buffer)

    def receive(self, timeout: float | None = None) -> Incoming | None:
        """The next message from the peer; None once the stream has ended."""
        try:
            item = self._incoming.get(timeout=self.timeout if timeout is None else max(timeout, 0.0))
        except queue.Empty:
            raise WaitTimeout() from None
        if item is None:
            self._incoming.put(None)  # stay at end of stream for later callers
        return item

    def send(self, msg: Any) -> str:
        """Send one message, compact JSON; return the text sent."""
        data = encode(msg)
        self.send_raw(data)
        return data.decode("utf-8")

    def send_raw(self, data: bytes) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def sent_and_received(self) -> list[Exchange]:
        with self._lock:
            return list(self.transcript)


# --- stdio ---------------------------------------------------------------------------------------


class StdioWire(Wire):
    """The server command as a child process; every line it writes on stdout is recorded."""

    kind = "stdio"

    def __init__(self, command: str | list[str], timeout: float) -> None:
        super().__init__(timeout)
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise ConnectFailed("the server command is empty")
        self.stderr_tail: deque[str] = deque(maxlen=20)
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         start_new_session=(os.name == "posix"))
        except OSError as exc:
            raise ConnectFailed(f"could not start {argv[0]!r}: {exc}") from exc
        threading.Thread(target=self._read_stdout, name="check-stdout", daemon=True).start()
        threading.Thread(target=self._read_stderr, name="check-stderr", daemon=True).start()

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        self._read_lines(getattr(self.proc.stdout, "read1", self.proc.stdout.read))
        self.closed_by_peer = True
        self._incoming.put(None)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        try:
            for raw in self.proc.stderr:
                self.stderr_tail.append(raw.decode("utf-8", "replace").rstrip())
        except (OSError, ValueError):
            pass

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


def http_request(url: str, method: str, body: bytes | None, headers: dict[str, str], timeout: float) -> HttpAnswer:
    """One plain HTTP request (a fresh connection); raises OSError if it cannot be made."""
    conn = _connection(url, timeout)
    try:
        conn.request(method, _target(url), body=body, headers=headers)
        response = conn.getresponse()
        data = response.read(65536)
        return HttpAnswer(response.status, {k.lower(): v for k, v in response.getheaders()},
                          data.decode("utf-8", "replace"))
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
        self._conn = _connection(url, timeout)
        try:
            self._conn.request("GET", _target(url), headers={"Accept": "text/event-stream", **self.headers})
            self._response = self._conn.getresponse()
        except OSError as exc:
            self._conn.close()
            raise ConnectFailed(f"could not open the event stream at {url}: {exc}") from exc
        self.status = self._response.status
        self.content_type = self._response.getheader("Content-Type", "") or ""
        self.note(f"GET {url} -> HTTP {self.status} ({self.content_type or 'no content type'})")
        if self.status != 200:
            self._conn.close()
            self._endpoint_ready.set()
            self._incoming.put(None)
            return
        if self._conn.sock is not None:
            self._conn.sock.settimeout(None)  # the reader blocks; close() wakes it
        threading.Thread(target=self._read_events, name="check-sse", daemon=True).start()

    def _read_events(self) -> None:
        parser = SseEventParser()
        try:
            while True:
                chunk = self._response.read1(65536)
                if not chunk:
                    break
                for name, data in parser.feed(chunk):
                    self.events.append((name, data))
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
        self._incoming.put(None)

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
        sock = self._conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._conn.close()
