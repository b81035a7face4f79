"""The HTTP server under ``SseApp``: werkzeug's threaded server, with bounds on slow clients.

Not a spec section. HTTP with SSE (basic/transports, see sse.py) needs a threaded HTTP server,
since every open event stream holds a thread. ``SseHttpServer`` runs an ``SseApp`` on
werkzeug's, and adds the two bounds werkzeug leaves to its user, so that a slow or hostile
client holds a thread for a bounded time only:

1. ``request_timeout`` (default 10 s): a request must arrive whole (request line, headers and
   body) within this many seconds of its connection opening. A half-sent request, or one sent
   a byte at a time to keep each read alive ("slowloris"), is cut off: the connection is
   closed, or a POST whose body stopped coming is answered 408.
2. ``write_timeout`` (default 30 s): one write to a client may wait this long for the client to
   take it. A client that stops reading its event stream is disconnected, and its session ends.

werkzeug closes each connection after one response, so there are no idle keep-alive
connections to bound.

The request log is ours, not werkzeug's: one plain line per request on the ``mcp_ref.http``
logger, ``127.0.0.1 POST /messages/ 202``, at level INFO, with no colour codes and no query
string, since the query carries the session id and the id is the session's only secret. Errors
the HTTP layer reports (a malformed request line, a failure inside the app) go to the same
logger at WARNING, with any query string hidden too. ``log_requests=False`` leaves the
request lines out. Under another WSGI server these two bounds are that server's settings
(gunicorn ``--timeout``, waitress ``channel_timeout``); the limits of ``SseApp`` itself (body
size, streams, queued messages) hold under any server.
"""

from __future__ import annotations

import io
import logging
import re
import socket
import sys
import threading
import time
import urllib.parse
from typing import Any, Protocol

from werkzeug.serving import ThreadedWSGIServer, WSGIRequestHandler


class App(Protocol):
    """The WSGI application served (sse.SseApp is one): it can be closed, and names the path of its
    event stream."""

    sse_path: str

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any: ...

    def close(self) -> None: ...

# Seconds a client has to send a whole request, from the moment it connects: a thread waiting
# for a request that never completes is a thread lost to every other client.
DEFAULT_REQUEST_TIMEOUT = 10.0
# Seconds one write to a client may block: a client that stops reading its stream would
# otherwise hold the thread writing to it for ever.
DEFAULT_WRITE_TIMEOUT = 30.0

log = logging.getLogger("mcp_ref.http")

# A query string (``?name=value...``), wherever it appears in a line about to be logged: ours
# carry session ids.
_QUERY = re.compile(r"\?[^\s\"'=?]*=[^\s\"']*")


def _hide_queries(text: str) -> str:
    """``text`` with every query string replaced by ``?...`` (a session id must not be logged),
    and control characters escaped (a client must not be able to write to the terminal)."""
    text = _QUERY.sub("?...", text)
    return "".join(ch if ch == "\n" or (32 <= ord(ch) < 127 or ord(ch) >= 160) else f"\\x{ord(ch):02x}"
                   for ch in text)


def show_request_log() -> None:
    """Make the INFO lines of ``mcp_ref.http`` visible: lower the logger's level to INFO when no
    one has set it, and give it a handler on stderr when logging has none configured (as for a
    script that never called ``logging.basicConfig``). Done once per process."""
    if log.level == logging.NOTSET and logging.getLogger("mcp_ref").level == logging.NOTSET:
        log.setLevel(logging.INFO)  # nobody chose a level for mcp_ref's loggers: show the lines
    if not log.hasHandlers():
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        log.addHandler(handler)


class _DeadlineReader(io.RawIOBase):
    """A connection's input for werkzeug, where every read ends by the request's deadline."""

    def __init__(self, sock: socket.socket, deadline: float, write_timeout: float):
        self._sock = sock
        self._deadline = deadline
        self._write_timeout = write_timeout

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        # After the deadline, only what has already arrived (timeout 0 reads without waiting).
        self._sock.settimeout(max(0.0, self._deadline - time.monotonic()))
        try:
            return self._sock.recv_into(buffer)
        except (BlockingIOError, TimeoutError):
            raise TimeoutError("the client did not send its whole request within request_timeout") from None
        finally:
            self._sock.settimeout(self._write_timeout)  # the socket's own timeout bounds writes


def _bounded_handler(request_timeout: float, write_timeout: float, log_requests: bool) -> type[WSGIRequestHandler]:
    """werkzeug's request handler with both bounds set, and our request log."""

    class BoundedHandler(WSGIRequestHandler):
        timeout = write_timeout  # socketserver puts it on the connection: each write waits at most this
        # socketserver's switch for TCP_NODELAY, off by default: an event written to a stream
        # whose previous one is not yet acknowledged would wait for the client's delayed ACK.
        disable_nagle_algorithm = True

        def setup(self) -> None:
            super().setup()
            self.rfile.close()  # replaced by a reader that keeps the request's deadline
            deadline = time.monotonic() + request_timeout
            self.rfile = io.BufferedReader(_DeadlineReader(self.connection, deadline, write_timeout))

        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            """One line per request: client address, method, path without its query, status."""
            if not log_requests:
                return
            path = urllib.parse.urlsplit(getattr(self, "path", "") or "").path[:200]
            method = getattr(self, "command", None) or "-"
            log.info("%s", _hide_queries(f"{self.address_string()} {method} {path or '-'} {code}"))

        def log(self, type: str, message: str, *args: Any) -> None:
            """werkzeug's other lines (``log_error``, ``log_message``) go to our logger, with any
            query string hidden: a malformed request line would otherwise be quoted whole."""
            text = _hide_queries(f"{self.address_string()} {message % args if args else message}")
            if type == "info":
                if log_requests:
                    log.info("%s", text)
            else:
                log.warning("%s", text)

    return BoundedHandler


class _QuietWSGIServer(ThreadedWSGIServer):
    """werkzeug's threaded server, reporting its errors (a failure inside the app) on our logger
    with query strings hidden, rather than on ``werkzeug``'s with a coloured handler of its own."""

    def log(self, type: str, message: str, *args: Any) -> None:
        log.warning("%s", _hide_queries(message % args if args else message))


class SseHttpServer:
    """An ``SseApp`` on werkzeug's threaded server (one thread per connection).

    ``with server.sse_server(port=0) as http: print(http.url)`` serves in the background until
    the block ends; ``serve_forever()`` serves on the calling thread. ``request_timeout`` and
    ``write_timeout`` (None: the defaults above) bound slow clients, see the module docstring.
    ``log_requests=True`` logs one line per request on ``mcp_ref.http`` and makes sure those
    lines are seen (``show_request_log``); they never hold a session id.
    """

    def __init__(self, app: App, host: str = "127.0.0.1", port: int = 8000, *, log_requests: bool = False,
                 request_timeout: float | None = None, write_timeout: float | None = None):
        self.app = app
        if log_requests:
            show_request_log()
        self.request_timeout = DEFAULT_REQUEST_TIMEOUT if request_timeout is None else request_timeout
        self.write_timeout = DEFAULT_WRITE_TIMEOUT if write_timeout is None else write_timeout
        handler = _bounded_handler(self.request_timeout, self.write_timeout, log_requests)
        self._wsgi = _QuietWSGIServer(host, port, app, handler)
        # On the listening socket too: a connection inherits it from the moment it is accepted.
        self._wsgi.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.host = host
        self.port = self._wsgi.server_port
        shown = f"[{host}]" if ":" in host else host
        self.url = f"http://{shown}:{self.port}{app.sse_path}"
        # The Streamable HTTP endpoint served beside it (streamable_http/server_app.py), if the app has one.
        streamable = getattr(app, "streamable", None)
        self.mcp_url = f"http://{shown}:{self.port}{streamable.path}" if streamable is not None else None
        self._thread: threading.Thread | None = None

    def serve_forever(self) -> None:
        try:
            self._wsgi.serve_forever()
        finally:
            self.app.close()

    def start(self) -> SseHttpServer:
        self._thread = threading.Thread(target=self.serve_forever, name="mcp_ref-sse-server", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop accepting, end every session, and release the port."""
        self.app.close()
        self._wsgi.shutdown()
        self._wsgi.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> SseHttpServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
