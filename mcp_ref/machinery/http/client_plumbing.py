"""The client's HTTP plumbing: one requests session, bounded reads, and an event-stream parser.

Not a spec section: what streamable_http/client_transport.py stands on (and ``HttpError``, which the
client ends of both HTTP transports raise for a refused request). In short:

1. ``http_session(url, headers, proxies, verify)``: one ``requests.Session`` (kept-alive
   connections are reused), with the caller's headers on every request. It does not consult
   the environment on every request (``trust_env`` off: proxy lookups cost a quarter of a
   client's CPU per POST); proxies and a CA bundle named by the environment are read once, here,
   and ``proxies=`` / ``verify=`` override them.
2. ``socket_of(response)``: the socket under a streaming response, so a read can be bounded by a
   deadline, an idle stream's read timeout lifted, and a blocked reader woken by shutting the
   socket down.
3. ``short_reads(response, deadline)``: whatever bytes have arrived, at once (iterating a
   response would hold events back until a buffer fills), each read ending by ``deadline()``.
4. ``read_body(response, deadline, limit)``: a whole body within a deadline and a size;
   ``open_event_stream(session, url, headers, timeout)``: a GET answered with an event stream.
5. ``sse_events(chunks, limit, cursor)``: ``(event, data)`` for each event of a
   ``text/event-stream``: lines ending in LF or CRLF, ``event:`` and ``data:`` fields (several
   ``data:`` lines joined with newlines), comments and unknown fields skipped, an event
   dispatched at a blank line, and not at all when its data is empty (an event that only carries
   an id). ``id:`` and ``retry:`` are kept in the ``Cursor`` given, for resuming the stream
   (revisions/stream_resumption.py). An event larger than ``limit`` bytes is an error (a hostile
   server must not fill memory).
6. ``why_refused(response, timeout)``: why the server refused a request, in its own words when
   its body is a JSON-RPC error, else the body's first words.
7. ``closed_before_answering(exc)``: whether a request failed on a kept-alive connection that the
   server had closed while it was idle (the server never answered it: it may be sent once more,
   after ``drop_idle_connections(session)``; ``resent_once`` does both, for every request a
   client sends on a kept-alive connection: a POST, the GET that opens a stream, the DELETE).
8. ``stop_reading(sock, response)``: a reader blocked on a response wakes now; a
   ``ResponseStream`` is a streaming response with its socket, stopped by ``abandon()``, and
   ``answers(data, request_id)`` tells whether a message read from it is the awaited answer.
9. ``unreachable(url, exc, timeout, endpoint)``: why a server could not be reached, in one
   sentence of our own, what happened and then what to check (``nothing is listening at
   127.0.0.1:8000 (connection refused); check that the server is running and ...``), never
   the text of requests' and urllib3's exceptions. Both HTTP clients say it (``could_not_reach``
   puts ``could not connect to URL`` or ``could not reach URL any more`` in front).
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ... import messages
from ...messages import CONNECTION_CLOSED, McpError, RequestId

READ_CHUNK = 64 * 1024


class HttpError(McpError):
    """Local: an HTTP request of an HTTP transport failed (HTTP with SSE, Streamable HTTP);
    ``status`` is the HTTP status, and the message says why, in the server's words if it gave any."""

    code = CONNECTION_CLOSED

    def __init__(self, message: str, status: int):
        super().__init__(message, {"status": status})
        self.status = status


def http_session(url: str, headers: dict[str, str] | None, proxies: dict[str, str] | None,
                 verify: bool | str | None) -> Any:
    """A ``requests.Session`` for ``url`` (point 1)."""
    import requests

    session = requests.Session()
    session.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=32))
    session.mount("https://", requests.adapters.HTTPAdapter(pool_maxsize=32))
    session.headers.update(headers or {})
    session.proxies = proxies if proxies is not None else requests.utils.get_environ_proxies(url)
    session.verify = verify if verify is not None else (
        os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE") or True)
    session.trust_env = False
    return session


def socket_of(response: Any) -> socket.socket | None:
    """The socket under a streaming requests response, or None.

    urllib3 does not expose it; we look along http.client's attributes and give up if they
    change (reads are then bounded per read only, and a blocked reader wakes at the next byte
    or at end of stream; the transport tests would show it).
    """
    try:
        sock = response.raw._fp.fp.raw._sock
        return sock if isinstance(sock, socket.socket) else None
    except AttributeError:
        return None


def short_reads(response: Any, deadline: Callable[[], float | None] = lambda: None) -> Iterator[bytes]:
    """The body's bytes as they arrive; every read ends by ``deadline()`` (``time.monotonic``;
    None: no limit beyond the socket's own timeout). ``TimeoutError`` when a read runs out."""
    sock = socket_of(response)
    while True:
        limit = deadline()
        try:
            if limit is not None and sock is not None and sock.fileno() >= 0:
                sock.settimeout(max(0.001, limit - time.monotonic()))
            chunk = response.raw.read1(READ_CHUNK)
        except Exception as exc:  # urllib3 wraps a socket timeout in its own errors
            if limit is not None and time.monotonic() >= limit:
                raise TimeoutError("the body did not arrive in time") from None
            raise OSError(f"the connection broke: {exc}") from exc
        if not chunk:
            return
        yield chunk


def read_body(response: Any, deadline: float, limit: int) -> bytes:
    """The whole body, by ``deadline``, of at most ``limit`` bytes (``ValueError`` beyond)."""
    body = bytearray()
    for chunk in short_reads(response, lambda: deadline):
        body += chunk
        if len(body) > limit:
            raise ValueError(f"the body is larger than {limit} bytes")
    return bytes(body)


def open_event_stream(session: Any, url: str, headers: dict[str, str], timeout: float) -> tuple[Any, int]:
    """GET ``url`` for an event stream, waiting ``timeout`` for the answer to begin: ``(response,
    200)`` when one is open; ``(None, status)`` when the server answered anything else (that
    response closed). Raises what requests raises."""
    response = resent_once(session, lambda left: session.get(url, headers=headers, timeout=(left, left), stream=True),
                           timeout)  # (the GET after a POST takes that POST's kept-alive connection)
    kind = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
    if response.status_code == 200 and kind == "text/event-stream":
        return response, 200
    response.close()
    return None, int(response.status_code)


def first_words(response: Any, timeout: float, limit: int = 200) -> str:
    """The start of an error response's body, for an exception's message: at most ``limit``
    characters, read within ``timeout``; "" if it cannot be read."""
    sock = socket_of(response)
    try:
        if sock is not None:
            sock.settimeout(timeout)
        body: bytes = response.raw.read(limit, decode_content=True) or b""
    except Exception:  # a broken or stalled body: the status line alone will have to do
        return ""
    return " ".join(body.decode("utf-8", "replace").split())[:limit]


@dataclass
class Cursor:
    """Where an event stream stands, as its ``id:`` and ``retry:`` fields left it: the id of the
    last event received (sent back as ``Last-Event-ID`` to resume the stream) and the delay the
    server asked a client to wait before reconnecting, in milliseconds."""

    last_event_id: str | None = None
    retry_ms: int | None = None


MAX_EVENT_ID = 256  # characters: an id is sent back in a header, so a longer one is not kept


def sse_events(chunks: Iterator[bytes], limit: int, cursor: Cursor) -> Iterator[tuple[str, str]]:
    """``(event type, data)`` for each event in the stream (point 5); the type defaults to
    ``message``; ``cursor`` keeps the ids and the retry. ``ValueError`` for an event over ``limit``
    bytes or a line that is not UTF-8."""
    buffer = b""
    event, size, event_id = "", 0, cursor.last_event_id
    data: list[str] = []
    for chunk in chunks:
        buffer += chunk
        if len(buffer) > limit:
            raise ValueError(f"an event of the stream is larger than {limit} bytes")
        while True:
            cut = buffer.find(b"\n")
            if cut < 0:
                break
            raw, buffer = buffer[:cut], buffer[cut + 1:]
            line = (raw[:-1] if raw.endswith(b"\r") else raw).decode("utf-8")
            if not line:  # a blank line ends the event; its id counts even when it has no data
                cursor.last_event_id = event_id
                if data and (joined := "\n".join(data)):
                    yield event or "message", joined
                event, data, size = "", [], 0
                continue
            if line.startswith(":"):
                continue  # a comment (keepalives)
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)
                size += len(value)
                if size > limit:
                    raise ValueError(f"an event of the stream is larger than {limit} bytes")
            elif name == "id" and len(value) <= MAX_EVENT_ID and all(0x20 <= ord(c) <= 0x7E for c in value):
                event_id = value or None  # an empty id clears it (SSE); one we could not send back is not kept
            elif name == "retry" and value.isascii() and value.isdigit():
                cursor.retry_ms = int(value)


# --- what a refused or broken request says ---------------------------------------------------------


def why_refused(response: Any, timeout: float) -> str:
    """Why the server refused: the message of a JSON-RPC error body, else the body's first words."""
    text = first_words(response, timeout, limit=300)
    try:
        message = json.loads(text)["error"]["message"]
        if isinstance(message, str):
            return messages.printable(message)[:200]
    except (ValueError, KeyError, TypeError):
        pass
    return text[:200] or "is this an MCP endpoint?"


def closed_before_answering(exc: Exception) -> bool:
    """Whether a request failed because the server closed the connection without a byte of an
    answer: what a kept-alive connection that the server closed while idle does to the next
    request sent on it (Node and uvicorn close idle ones after 5 s). The close comes cleanly (the
    answer's status line never comes), or as a reset (the server's system resets a connection
    closed with our request unread), or breaks our write. The server never answered that
    request, so it is sent once more, on a fresh connection, as browsers do; a refused or
    unreachable server is not this."""
    text = repr(exc)
    return any(kind in text for kind in ("RemoteDisconnected", "BadStatusLine", "ConnectionResetError",
                                         "BrokenPipeError"))


class ResponseStream:
    """One streaming response (a POST's event stream, or the GET stream), read by a thread of
    its own until the answer to ``request_id`` (for the GET stream: none); ``abandon`` stops it.
    It may stay quiet as long as its request runs (the GET stream: as long as the session lasts;
    ``Client(ping_interval=...)`` watches over the connection), so its reads wait for no deadline."""

    def __init__(self, response: Any, request_id: RequestId, method: str) -> None:
        self.request_id = request_id
        self.method = method
        self.abandoned = threading.Event()  # we closed it ourselves: cancelled, or the transport closed
        self.carry_on(response)

    def abandon(self) -> None:
        self.abandoned.set()  # (which also wakes a reader waiting to resume it)
        stop_reading(self.socket, self.response)

    def carry_on(self, response: Any) -> None:
        """Read ``response`` from now on: the stream's own, or the one that resumed it."""
        self.response, self.socket = response, socket_of(response)
        if self.socket is not None:
            self.socket.settimeout(None)
        if self.abandoned.is_set():  # abandoned meanwhile: it set the flag before it read the socket
            stop_reading(self.socket, self.response)


def answers(data: bytes, request_id: RequestId) -> bool:
    """Whether ``data`` is the answer (a response) to ``request_id``."""
    try:
        msg = json.loads(data)
    except ValueError:
        return False
    if not isinstance(msg, dict) or "method" in msg:
        return False
    answer_id = msg.get("id")
    return answer_id == request_id and type(answer_id) is type(request_id)


def stop_reading(sock: Any, response: Any) -> None:
    """Stop reading a response now: shutting the socket wakes a reader blocked on it."""
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
    try:
        response.close()
    except Exception:
        pass


def resent_once(session: Any, send: Callable[[float], Any], bound: float) -> Any:
    """``send(seconds)`` (one request: a POST, a GET, a DELETE), given ``bound`` seconds; if it
    failed on a connection the server had closed while idle (``closed_before_answering``), once
    more on a fresh connection, given what is left of ``bound``. Raises what the last attempt
    raised (requests' exceptions)."""
    deadline = time.monotonic() + bound
    try:
        return send(bound)
    except Exception as exc:
        if not closed_before_answering(exc) or time.monotonic() >= deadline:
            raise
    drop_idle_connections(session)  # the kept-alive connections go: the next request opens a fresh one
    return send(deadline - time.monotonic())


def drop_idle_connections(session: Any) -> None:
    """Close the connections ``session`` keeps alive for reuse (those in use go on): the next
    request opens a fresh one."""
    for adapter in session.adapters.values():
        adapter.poolmanager.clear()


# --- why a server could not be reached (point 9) ----------------------------------------------------


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and everything behind it: requests wraps urllib3's exceptions, which wrap the
    socket's, through ``__cause__``, ``__context__``, ``reason`` and ``args``."""
    seen: set[int] = set()
    waiting: list[Any] = [exc]
    while waiting:
        current = waiting.pop(0)
        if not isinstance(current, BaseException) or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        waiting += [current.__cause__, current.__context__, getattr(current, "reason", None), *current.args]


@dataclass(frozen=True)
class Endpoint:
    """What kind of URL a client was given, for ``unreachable``'s advice: its name and an example."""

    name: str
    example: str


SSE_ENDPOINT = Endpoint("SSE endpoint", "http://127.0.0.1:8000/sse")
MCP_ENDPOINT = Endpoint("MCP endpoint", "http://127.0.0.1:8000/mcp")  # Streamable HTTP's one endpoint


def could_not_reach(url: str, exc: BaseException, timeout: float, *, reached: bool, endpoint: Endpoint) -> str:
    """``could not connect to URL: ...`` before the server ever answered, ``could not reach URL any
    more: ...`` after; then ``unreachable``'s sentence."""
    what = f"could not reach {url} any more" if reached else f"could not connect to {url}"
    return f"{what}: {unreachable(url, exc, timeout, endpoint)}"


def unreachable(url: str, exc: BaseException, timeout: float, endpoint: Endpoint = SSE_ENDPOINT) -> str:
    """Why an HTTP request to ``url`` failed, in words of our own: what happened, then what to
    check (point 9). ``exc`` is what requests raised; only its causes are read, never its text.
    ``endpoint`` says which kind of URL it should have been."""
    import http.client
    import socket
    import ssl

    import requests

    parts = urllib.parse.urlsplit(url)
    try:
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:
        port = None
    where = f"{parts.hostname}:{port}" if parts.hostname else repr(url)
    causes = list(_causes(exc))

    def found(*kinds: type[BaseException]) -> BaseException | None:
        return next((cause for cause in causes if isinstance(cause, kinds)), None)

    if found(requests.exceptions.InvalidSchema, requests.exceptions.MissingSchema):
        return f"this is not an http:// or https:// URL; write it in full, e.g. {endpoint.example}"
    if found(requests.exceptions.InvalidURL):
        return f"this URL cannot be read; write it in full, e.g. {endpoint.example}"
    if found(requests.exceptions.ProxyError):
        return (f"the proxy on the way to {where} refused to connect; check the HTTP_PROXY, HTTPS_PROXY and "
                "NO_PROXY variables (or pass proxies=)")
    if found(ConnectionRefusedError):
        return (f"nothing is listening at {where} (connection refused); check that the server is running and "
                "that the URL has the host and port it listens on")
    if found(socket.gaierror):
        return f"the host name {parts.hostname!r} could not be resolved; check its spelling in the URL"
    if found(ssl.SSLError, requests.exceptions.SSLError):
        return (f"the TLS handshake with {where} failed; check that the server speaks https (else write "
                "http://) and that its certificate is trusted (verify=)")
    if found(requests.exceptions.ConnectTimeout):
        return (f"{where} did not accept the connection within {timeout:g} s; check the host and port, and that "
                "no firewall drops the connection")
    if found(requests.exceptions.Timeout, TimeoutError, socket.timeout):
        return (f"{where} accepted the connection but sent no answer within {timeout:g} s; check that the URL "
                f"is the server's {endpoint.name} and that the server is not stuck")
    if found(ConnectionResetError, http.client.RemoteDisconnected, BrokenPipeError):
        return (f"{where} closed the connection without an HTTP answer; check that the port belongs to an "
                "HTTP server (not another service) and that the server did not stop")
    error = found(OSError)
    detail = f"{error.strerror.lower()}" if isinstance(error, OSError) and error.strerror else type(exc).__name__
    return f"{where} could not be reached ({detail}); check the URL and the network"
