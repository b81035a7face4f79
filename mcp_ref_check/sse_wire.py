"""The HTTP+SSE wire: an event stream opened with a GET, a POST per message, every byte recorded.

Not a spec section: the checker's HTTP with SSE transport (wire.py holds what it shares with
the stdio wire), with the small HTTP helpers the SSE cases use on their own: ``http_request``
(one plain request on a fresh connection) and ``host_header``.
"""

from __future__ import annotations

import http.client
import socket
import threading
import urllib.parse
from dataclasses import dataclass, field

from .wire import LIVE, MAX_KEPT_LINE, MAX_LINE, MAX_TRANSCRIPT, ConnectFailed, Wire, parse


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


def open_connection(url: str, timeout: float) -> http.client.HTTPConnection:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConnectFailed(f"not an http(s) URL: {url!r}")
    cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    return cls(parts.hostname, parts.port, timeout=timeout)


def request_target(url: str) -> str:
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
    conn = open_connection(url, timeout)
    try:
        conn.request(method, request_target(url), body=body, headers=headers)
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
        self._conn = open_connection(url, timeout)
        self._sock: socket.socket | None = None
        LIVE.add(self)
        try:
            self._conn.request("GET", request_target(url), headers={"Accept": "text/event-stream", **self.headers})
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
                        self.events.append((name, data[:MAX_KEPT_LINE]))
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
        self.note(f"POST {request_target(target)} -> HTTP {answer.status}" + (f" {answer.body[:120]!r}" if answer.body else ""))
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
