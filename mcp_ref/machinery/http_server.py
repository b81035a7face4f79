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
connections to bound. Under another WSGI server these two bounds are that server's settings
(gunicorn ``--timeout``, waitress ``channel_timeout``); the limits of ``SseApp`` itself (body
size, streams, queued messages) hold under any server.
"""

from __future__ import annotations

import io
import logging
import socket
import threading
import time
from typing import Any, Protocol

from werkzeug.serving import WSGIRequestHandler, make_server


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


def _bounded_handler(request_timeout: float, write_timeout: float) -> type[WSGIRequestHandler]:
    """werkzeug's request handler with both bounds set."""

    class BoundedHandler(WSGIRequestHandler):
        timeout = write_timeout  # socketserver puts it on the connection: each write waits at most this

        def setup(self) -> None:
            super().setup()
            self.rfile.close()  # replaced by a reader that keeps the request's deadline
            deadline = time.monotonic() + request_timeout
            self.rfile = io.BufferedReader(_DeadlineReader(self.connection, deadline, write_timeout))

    return BoundedHandler


class SseHttpServer:
    """An ``SseApp`` on werkzeug's threaded server (one thread per connection).

    ``with server.sse_server(port=0) as http: print(http.url)`` serves in the background until
    the block ends; ``serve_forever()`` serves on the calling thread. ``request_timeout`` and
    ``write_timeout`` (None: the defaults above) bound slow clients, see the module docstring.
    """

    def __init__(self, app: App, host: str = "127.0.0.1", port: int = 8000, *, log_requests: bool = False,
                 request_timeout: float | None = None, write_timeout: float | None = None):
        self.app = app
        if not log_requests:
            logging.getLogger("werkzeug").setLevel(logging.WARNING)
        self.request_timeout = DEFAULT_REQUEST_TIMEOUT if request_timeout is None else request_timeout
        self.write_timeout = DEFAULT_WRITE_TIMEOUT if write_timeout is None else write_timeout
        handler = _bounded_handler(self.request_timeout, self.write_timeout)
        self._wsgi = make_server(host, port, app, threaded=True, request_handler=handler)
        self.host = host
        self.port = self._wsgi.server_port
        shown = f"[{host}]" if ":" in host else host
        self.url = f"http://{shown}:{self.port}{app.sse_path}"
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
