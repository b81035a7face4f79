"""The client's end of the HTTP with SSE transport: a GET for the event stream, a POST per message.

Spec page: basic/transports
Section: HTTP with SSE (the client's end; the server's is sse.py)
https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse

In short (the server's side and the whole picture are in sse.py):

1. The client opens the SSE endpoint with a GET and keeps the response open; its first event,
   ``endpoint``, names the URI to POST messages to (TR-11). We resolve it against the stream's
   URL and refuse one on another origin.
2. Each message from the server arrives as a ``message`` event; each message to the server is
   the body of one POST, answered 202; the JSON-RPC answer comes on the stream.
3. Every wait is bounded: opening the stream and the ``endpoint`` event by ``timeout``; each
   POST by the timeout the session gives it (a request's own, LC-24); the open stream may then
   stay idle as long as it likes (``Client(ping_interval=...)`` watches over it).

HTTP is requests (one ``requests.Session``, so POSTs reuse a kept-alive connection when the
server allows it; a POST that fails, with no byte of an answer, on one the server closed while
idle is sent once more on a fresh one: machinery/http/client_plumbing.py), and the event stream is
parsed by sseclient-py, fed with short reads so that each event is handled the moment it
arrives. The session does not consult the environment on every POST (``trust_env`` is off:
looking up proxy settings cost about a quarter of the client's CPU per POST); proxies and a CA
bundle named by the environment are read once, when the transport is made, and ``proxies=`` /
``verify=`` override them.

When the server cannot be reached, the error says so in one sentence of our own, what happened
and what to check (``could not connect to URL: nothing is listening at 127.0.0.1:8000
(connection refused); check that...``), never the text of requests' and urllib3's exceptions.
No message names the POST endpoint's query: it holds the session id, the session's only secret.
For the same reason urllib3's DEBUG lines about our POSTs show that query as ``?...`` (a filter
on its connection-pool logger, ``_HideEndpoints``, that touches only our open endpoints).
"""

from __future__ import annotations

import logging
import os
import threading
import time
import urllib.parse
from collections.abc import Iterator
from typing import TYPE_CHECKING

from .machinery.http.client_plumbing import HttpError as HttpError  # raised by the client ends of both HTTP transports
from .machinery.http.client_plumbing import first_words, resent_once, socket_of
from .machinery.http.client_plumbing import unreachable as unreachable  # shared with streamable_http/client_transport.py
from .messages import ConnectionClosed

if TYPE_CHECKING:
    pass

log = logging.getLogger("mcp_ref.sse")

READ_CHUNK = 64 * 1024


class _HideEndpoints(logging.Filter):
    """On urllib3's connection-pool logger: its DEBUG line for each request quotes the request's
    path and query, and the query of an endpoint holds a session id. Each open transport adds
    its endpoint's ``path?query`` here while it lives; in a record, that string becomes
    ``path?...``. Other requests' lines are left as they are."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._hidden: dict[str, str] = {}  # "/messages/?session_id=..." -> "/messages/?..."

    def hide(self, url: str) -> str:
        """Hide ``url``'s path and query from now on; returns the key to ``show`` it again."""
        parts = urllib.parse.urlsplit(url)
        secret = f"{parts.path}?{parts.query}"
        with self._lock:
            self._hidden[secret] = f"{parts.path}?..."
        return secret

    def show(self, secret: str) -> None:
        with self._lock:
            self._hidden.pop(secret, None)

    def filter(self, record: logging.LogRecord) -> bool:
        if self._hidden and isinstance(record.args, tuple):
            with self._lock:
                record.args = tuple(self._hidden.get(arg, arg) if isinstance(arg, str) else arg for arg in record.args)
        return True


_hide_endpoints = _HideEndpoints()
logging.getLogger("urllib3.connectionpool").addFilter(_hide_endpoints)


class SseClientTransport:
    """The client's end: a GET for the event stream, a POST per message, one requests.Session.

    The constructor opens the stream and reads it up to the ``endpoint`` event (TR-11), all
    within ``timeout``; it resolves the endpoint against ``url`` and refuses one on another
    origin. The stream may then stay idle as long as it likes (its read timeout is lifted).
    ``send`` POSTs one message within the timeout the session gives it, and raises
    ``TimeoutError`` when the server did not answer in time (the Transport contract).
    """

    def __init__(self, url: str, *, headers: dict[str, str] | None = None, timeout: float = 30.0,
                 proxies: dict[str, str] | None = None, verify: bool | str | None = None):
        import requests
        import sseclient

        self.url = url
        self.timeout = timeout
        self._http = requests.Session()
        self._http.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=32))
        self._http.mount("https://", requests.adapters.HTTPAdapter(pool_maxsize=32))
        self._http.headers.update(headers or {})
        # The environment once, here, rather than on every POST (see the module docstring).
        self._http.proxies = proxies if proxies is not None else requests.utils.get_environ_proxies(url)
        self._http.verify = verify if verify is not None else (
            os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE") or True)
        self._http.trust_env = False
        self._endpoint = ""
        self._hidden_endpoint = ""  # its key in _hide_endpoints, while this transport is open
        self._early: list[bytes] = []  # messages before the endpoint event (a server that breaks TR-11)
        self._closing = False
        # Until the endpoint has come, every wait ends by this moment (see _short_reads).
        self._setup_deadline: float | None = time.monotonic() + timeout
        try:
            self._response = self._http.get(url, stream=True, timeout=(timeout, timeout),  # LC-24
                                            headers={"Accept": "text/event-stream", "Cache-Control": "no-cache"})
        except requests.RequestException as exc:
            self._http.close()
            raise ConnectionClosed(f"could not connect to {url}: {unreachable(url, exc, timeout)}") from exc
        if self._response.status_code != 200:
            status, reason = self._response.status_code, self._response.reason
            why = first_words(self._response, timeout)  # the server's own reason, e.g. for a 421
            self.close()
            raise HttpError(f"GET {url} answered HTTP {status} {reason}: " + (why or "is this an MCP SSE endpoint?"),
                            status)
        if not self._response.headers.get("Content-Type", "").startswith("text/event-stream"):
            self.close()
            raise ConnectionClosed(f"GET {url} did not answer with text/event-stream; is this an MCP SSE endpoint?")
        self._socket = socket_of(self._response)
        self._events = sseclient.SSEClient(self._short_reads()).events()
        self._wait_for_endpoint()

    def _short_reads(self) -> Iterator[bytes]:
        """Whatever bytes have arrived, at once: iterating the response would hold events back."""
        while True:
            if self._setup_deadline is not None and self._socket is not None:
                # Each read waits only for what is left of the set-up time, so a server that
                # trickles bytes cannot stretch it either.
                self._socket.settimeout(max(0.001, self._setup_deadline - time.monotonic()))
            chunk = self._response.raw.read1(READ_CHUNK)
            if not chunk:
                return
            yield chunk

    def _wait_for_endpoint(self) -> None:
        """Read events up to the first ``endpoint`` (TR-11), within the set-up deadline; then lift
        the read timeout, so the open stream may stay idle (liveness is ping_interval's job)."""
        try:
            while not self._endpoint:
                if self._setup_deadline is not None and time.monotonic() > self._setup_deadline:
                    raise TimeoutError  # events came, but not the endpoint
                event = next(self._events)
                if event.event == "endpoint":  # TR-11
                    self._accept_endpoint(event.data)
                elif event.event == "message":
                    self._early.append(event.data.encode("utf-8"))
        except ConnectionClosed:
            self.close()
            raise
        except StopIteration:
            self.close()
            raise ConnectionClosed(f"the event stream at {self.url} ended before its endpoint event; "
                                   "is this an MCP SSE endpoint?") from None
        except Exception as exc:  # a read timed out (urllib3 wraps it), or the connection broke
            self.close()
            if self._setup_deadline is not None and time.monotonic() >= self._setup_deadline:
                raise ConnectionClosed(f"no endpoint event from {self.url} within {self.timeout:g} s; "
                                       "is this an MCP SSE endpoint?") from None
            raise ConnectionClosed(f"the event stream at {self.url} broke before its endpoint event "
                                   f"({type(exc).__name__}); check that the server is still running") from exc
        self._setup_deadline = None
        if self._socket is not None:
            self._socket.settimeout(None)
        else:
            log.warning("cannot reach the socket of the event stream at %s: it keeps a read timeout of %g s, "
                        "so it ends after that long without an event", self.url, self.timeout)

    def receive(self, timeout: float | None = None) -> bytes | None:
        # (A timeout is not honoured here: the engine's reader never passes one.)
        if self._early:
            return self._early.pop(0)
        while True:
            try:
                event = next(self._events)
            except StopIteration:
                return None
            except Exception:
                if self._closing:
                    return None  # we closed the stream ourselves
                raise
            if event.event == "message":
                return event.data.encode("utf-8")
            # other event types are ignored: some servers send "ping"; only the first endpoint counts

    def _accept_endpoint(self, data: str) -> None:
        endpoint = urllib.parse.urljoin(self.url, data.strip())
        if _origin(endpoint) != _origin(self.url):
            raise ConnectionClosed(f"refusing the endpoint {without_query(endpoint)!r}: it is on another origin "
                                   f"than the event stream {self.url!r}")
        self._hidden_endpoint = _hide_endpoints.hide(endpoint)
        self._endpoint = endpoint

    def send(self, data: bytes, timeout: float | None = None) -> None:
        import requests

        bound = self.timeout if timeout is None else timeout
        shown = without_query(self._endpoint)  # the query holds the session id: never in a message
        if bound <= 0:
            raise TimeoutError(f"no time left to POST to {shown}")
        try:
            # LC-24: both to connect and to wait for the answer, so a frozen server costs a
            # request no more than its own timeout; sent once more if it crossed the close of an
            # idle kept-alive connection (machinery/http/client_plumbing.py, point 7).
            response = resent_once(self._http, lambda left: self._http.post(
                self._endpoint, data=data, timeout=(left, left), headers={"Content-Type": "application/json"}), bound)
        except requests.Timeout:  # the session turns it into RequestTimeout for the caller
            raise TimeoutError(f"POST to {shown}: no answer within {bound:g} s") from None
        except requests.RequestException as exc:
            raise ConnectionClosed(f"could not POST to {shown}: {unreachable(self._endpoint, exc, bound)}") from exc
        if not 200 <= response.status_code < 300:
            raise HttpError(f"POST to {shown} answered HTTP {response.status_code} {response.reason}: "
                            f"{response.text[:200]}", response.status_code)

    def close(self) -> None:
        self._closing = True
        if getattr(self, "_hidden_endpoint", ""):
            _hide_endpoints.show(self._hidden_endpoint)
        sock = getattr(self, "_socket", None)
        if sock is not None:
            import socket

            try:
                sock.shutdown(socket.SHUT_RDWR)  # wakes the reader thread blocked in a read
            except OSError:
                pass
        try:
            self._response.close()
        except Exception:
            pass
        self._http.close()

    def describe_close(self) -> str:
        return "the server closed the event stream" if not self._closing else "the client closed the connection"


def without_query(url: str) -> str:
    """``url`` without its query and fragment: ``/messages/?session_id=...`` -> ``/messages/``."""
    return urllib.parse.urlsplit(url)._replace(query="", fragment="").geturl()


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, (parts.hostname or ""), parts.port or default
