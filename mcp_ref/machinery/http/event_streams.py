"""Writing event streams from a WSGI application: formatting, keep-alive, and noticing a client that left.

Not a spec section: the plumbing under the HTTP responses of streamable_http/server_app.py. An event stream
(``text/event-stream``) is a response that stays open while the server writes events into it;
each event here is ``event: message`` with one JSON-RPC message as its ``data``. In short:

1. ``sse_event(event, data)`` is one event's bytes (compact JSON never holds a newline, so one
   ``data:`` line carries it whole).
2. A WSGI server cannot tell the application that a client hung up until a write fails, and an
   idle stream writes nothing. So the writer polls the client's socket (werkzeug and gunicorn put
   it in the environ): readable with nothing to read means the client closed its end
   (``peer_gone``). ``poll`` is used, not ``select``, so any descriptor number works.
3. Where the socket cannot be polled (another WSGI server, or TLS), idle streams write a comment
   line every second instead, and the write to a departed client fails within a few seconds.
4. Every idle stream writes a comment (``: keepalive``) after ``keepalive`` seconds of silence,
   so proxies do not drop it; a stream with nothing to say yet opens with a comment, since a
   WSGI server sends the headers only with the first bytes of the body.

``SseStreamWriter.events(source)`` does all of that for a source of messages (``get(timeout)``:
the next message, None at the end, ``queue.Empty`` when none came in time).
"""

from __future__ import annotations

import queue
import select
import socket
import ssl
import time
import urllib.parse
from collections.abc import Callable, Iterator
from typing import Any, Protocol

# Seconds between checks that an idle stream's client is still there.
POLL_SECONDS = 0.5
# Seconds of silence before a comment line, on a stream whose socket cannot be polled: the
# write is then how a departed client is found.
BLIND_KEEPALIVE_SECONDS = 1.0

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}  # proxies: do not buffer or cache
# The first bytes of a stream with nothing to say yet: a WSGI server sends the response's headers
# with the first bytes of its body (PEP 3333), and the client waits for those headers.
OPENING = b": stream open\n\n"


LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def hostname(host: str) -> str:
    """A ``Host`` header's name: ``example.com:8000`` -> ``example.com``; ``[::1]:8000`` -> ``::1``."""
    return urllib.parse.urlsplit(f"//{host}").hostname or ""


def origin_allowed(origin: str | None, allowed_origins: frozenset[str] | None) -> bool:
    """Whether a request's ``Origin`` may reach a local server (the pages' DNS-rebinding check): no
    Origin (not a browser), one of ``allowed_origins`` (``*``: any), or, by default, a localhost one."""
    if origin is None:
        return True  # not a browser: Origin is what browsers send, and what rebinding abuses
    if allowed_origins is not None:
        return "*" in allowed_origins or origin in allowed_origins
    parts = urllib.parse.urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.hostname in LOCAL_HOSTS


def sse_event(event: str, data: bytes) -> bytes:
    """One server-sent event. ``data`` must hold no newline (compact JSON never does)."""
    return b"event: " + event.encode() + b"\ndata: " + data + b"\n\n"


class Source(Protocol):
    """Where a stream's messages come from: ``get(timeout)`` returns the next (None: the end) or
    raises ``queue.Empty``."""

    def get(self, timeout: float | None = None) -> bytes | None: ...


def client_socket(environ: dict[str, Any]) -> socket.socket | None:
    """The client's socket, if the WSGI server put it in the environ (werkzeug, gunicorn)."""
    found = environ.get("werkzeug.socket") or environ.get("gunicorn.socket")
    return found if isinstance(found, socket.socket) else None


def pollable(sock: socket.socket | None) -> socket.socket | None:
    """The socket if peeking at it can tell that its client left (not under TLS), else None."""
    return sock if sock is not None and not isinstance(sock, ssl.SSLSocket) else None


def peer_gone(sock: socket.socket | None) -> bool:
    """Whether the client closed its end: it sends nothing more on a stream, so readable means EOF."""
    if sock is None:
        return False  # cannot tell: the next write (at the latest the blind keepalive) will
    if sock.fileno() < 0:
        return True
    try:
        return _readable_now(sock) and sock.recv(1, socket.MSG_PEEK) == b""
    except ValueError:  # a TLS socket takes no MSG_PEEK: we cannot tell, the next write will
        return False
    except OSError:  # reset by the client
        return True


def _readable_now(sock: socket.socket) -> bool:
    if hasattr(select, "poll"):  # poll, unlike select, works for any descriptor number
        poller = select.poll()
        poller.register(sock, select.POLLIN)
        return bool(poller.poll(0))
    return bool(select.select([sock], [], [], 0)[0])  # Windows: no poll, and no such limit in its select


class SseStreamWriter:
    """Turns a ``Source`` into the bytes of an event stream, with keep-alive and departure checks.

    ``watched`` is the client's socket when it can be polled (``pollable(client_socket(environ))``).
    ``still_wanted()``, if given, is asked every ``check_every`` seconds while the stream is idle;
    False ends the stream (a relayed stream whose session's holder is gone, say).
    """

    def __init__(self, watched: socket.socket | None, keepalive: float,
                 still_wanted: Callable[[], bool] | None = None, check_every: float = 2.0):
        self.watched = watched
        self.keepalive = keepalive if watched is not None else min(keepalive, BLIND_KEEPALIVE_SECONDS)
        self.still_wanted = still_wanted
        self.check_every = check_every

    def next_message(self, source: Source, deadline: float | None = None) -> bytes | None:
        """The next message, waiting until ``deadline`` (``time.monotonic``; None: no limit) while
        checking on the client; None if the source ended or the client left; ``queue.Empty`` at
        the deadline. Writes nothing: for the wait before a response's headers are chosen."""
        checked = time.monotonic()
        while True:
            wait = POLL_SECONDS if deadline is None else min(POLL_SECONDS, max(0.0, deadline - time.monotonic()))
            try:
                return source.get(timeout=wait)
            except queue.Empty:
                if deadline is not None and time.monotonic() >= deadline:
                    raise
            if peer_gone(self.watched):
                return None
            if self.still_wanted is not None and time.monotonic() - checked >= self.check_every:
                checked = time.monotonic()
                if not self.still_wanted():
                    return None

    def events(self, source: Source, is_last: Callable[[bytes], bool] = lambda data: False) -> Iterator[bytes]:
        """Every message of ``source`` as a ``message`` event, until the source ends, the client
        leaves, or ``is_last(message)`` says the message just written was the last."""
        last_write = checked = time.monotonic()
        while True:
            try:
                data = source.get(timeout=POLL_SECONDS)
            except queue.Empty:
                if peer_gone(self.watched):
                    return
                now = time.monotonic()
                if self.still_wanted is not None and now - checked >= self.check_every:
                    checked = now
                    if not self.still_wanted():
                        return
                if now - last_write >= self.keepalive:
                    last_write = now
                    yield b": keepalive\n\n"  # a comment: idle proxies keep the connection
                continue
            if data is None:
                return
            yield sse_event("message", data)
            last_write = time.monotonic()
            if is_last(data):
                return
