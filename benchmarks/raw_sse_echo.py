"""The floor of HTTP with SSE: the least any MCP round trip over this stack must cost. Not a spec section.

The server is a bare WSGI app with no library of ours: ``GET /sse`` opens a stream whose first
event names the POST endpoint; each ``POST /messages/?session_id=...`` is decoded as JSON,
answered 202, and a result for it is written on that session's stream, as an MCP server would.
It runs on the same servers as mcp_ref's (werkzeug's threaded server, or waitress with the
same settings as servers.py), in a process of its own:

    python benchmarks/raw_sse_echo.py werkzeug|waitress

which prints the stream's URL on its first line of stdout, then serves until killed (and answers
``nodelay`` lines on stdin, see nodelay.py). ``RawSseClient`` is the client side: the same
``requests`` library as mcp_ref's client, one session for the POSTs, the stream read with short
reads on a thread of its own, and each answer handed to the caller through a queue.
"""

from __future__ import annotations

import json
import queue
import secrets
import sys
import threading
from collections.abc import Iterator
from typing import Any

HEADERS = [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")]


class EchoApp:
    """The WSGI app: one queue of outgoing events per open stream."""

    def __init__(self) -> None:
        self.streams: dict[str, queue.SimpleQueue[bytes]] = {}

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if environ["PATH_INFO"] == "/sse":
            session_id = secrets.token_hex(16)
            outbox: queue.SimpleQueue[bytes] = queue.SimpleQueue()
            self.streams[session_id] = outbox
            start_response("200 OK", HEADERS)
            return self._stream(session_id, outbox)
        session_id = environ.get("QUERY_STRING", "").partition("session_id=")[2]
        length = int(environ.get("CONTENT_LENGTH") or 0)
        msg = json.loads(environ["wsgi.input"].read(length))
        outbox = self.streams[session_id]
        if "id" in msg:  # a request: answer it on the stream, as a server answers tools/call
            args = (msg.get("params") or {}).get("arguments") or {}
            result = {"content": [{"type": "text", "text": str(args.get("a", 0) + args.get("b", 0))}]}
            answer = json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}, separators=(",", ":"))
            outbox.put(b"event: message\ndata: " + answer.encode() + b"\n\n")
        start_response("202 Accepted", [("Content-Type", "text/plain"), ("Content-Length", "8")])
        return [b"Accepted"]

    def _stream(self, session_id: str, outbox: queue.SimpleQueue[bytes]) -> Iterator[bytes]:
        try:
            yield b"event: endpoint\ndata: /messages/?session_id=" + session_id.encode() + b"\n\n"
            while True:
                try:
                    yield outbox.get(timeout=1.0)
                except queue.Empty:  # idle: a comment, so that a client gone is found by the write
                    yield b": keepalive\n\n"
        finally:
            self.streams.pop(session_id, None)


class RawSseClient:
    """One connection to the echo: ``call(request_dict)`` POSTs it and returns its answer."""

    def __init__(self, url: str) -> None:
        import requests

        self._http = requests.Session()
        self._http.trust_env = False  # as mcp_ref's client: no proxy look-up per POST
        self._stream = self._http.get(url, stream=True, headers={"Accept": "text/event-stream"}, timeout=(30, 300))
        self._answers: queue.SimpleQueue[bytes] = queue.SimpleQueue()
        self._endpoint: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.endpoint = url.rsplit("/", 1)[0] + self._endpoint.get(timeout=30)
        self.next_id = 0

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = self._stream.raw.read1(65536)
            except Exception:  # closed under us
                return
            if not chunk:
                return
            buffer += chunk
            while b"\n\n" in buffer:
                event, buffer = buffer.split(b"\n\n", 1)
                kind, _, data = event.partition(b"\ndata: ")
                if kind.startswith(b":"):  # a comment
                    continue
                if kind == b"event: endpoint":
                    self._endpoint.put(data.decode())
                else:
                    self._answers.put(data)

    def call(self, arguments: dict[str, Any]) -> Any:
        self.next_id += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
                           "params": {"name": "add", "arguments": arguments}}, separators=(",", ":"))
        self._http.post(self.endpoint, data=body, headers={"Content-Type": "application/json"}).raise_for_status()
        return json.loads(self._answers.get(timeout=30))

    def close(self) -> None:
        import socket

        try:  # wake the reader blocked in its read (as mcp_ref's client does), then close
            self._stream.raw._fp.fp.raw._sock.shutdown(socket.SHUT_RDWR)
        except (AttributeError, OSError):
            pass
        self._reader.join(timeout=5)
        self._stream.close()
        self._http.close()


def main(kind: str) -> None:
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
    import nodelay

    app = EchoApp()
    nodelay.answer_on_stdin()
    if kind == "werkzeug":
        import socket

        from werkzeug.serving import WSGIRequestHandler, make_server

        class Handler(WSGIRequestHandler):
            disable_nagle_algorithm = True  # socketserver's switch: TCP_NODELAY on each connection

            def log_request(self, *args: Any) -> None:
                pass

        http = make_server("127.0.0.1", 0, app, threaded=True, request_handler=Handler)
        http.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # inherited on accept
        print(f"http://127.0.0.1:{http.server_port}/sse", flush=True)
        http.serve_forever()
        return
    import waitress

    served = waitress.create_server(app, host="127.0.0.1", port=0, threads=128, connection_limit=1000)
    print(f"http://127.0.0.1:{served.effective_port}/sse", flush=True)  # type: ignore[union-attr]
    served.run()


if __name__ == "__main__":
    main(sys.argv[1])
