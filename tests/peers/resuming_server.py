"""A Streamable HTTP MCP server in plain stdlib Python whose event streams end (or break) before
they are done, for testing the client's resumption of them (Last-Event-ID, retry).

``python resuming_server.py --mode MODE [--retry-ms N]`` binds a free port of 127.0.0.1 and prints
``listening at URL`` first. It stops by itself when its stdin closes (start it with
``stdin=subprocess.PIPE``; a ``/dev/null`` stdin stops it at once) or after IDLE seconds without a
request, so no test can leave it behind. ``--retry-ms N`` puts ``retry: N`` in the first event of
the stream that MODE ends early; without it the stream names no retry time.

It serves one endpoint, /mcp (HTTP/1.1, kept-alive connections, event streams chunked):
``initialize`` is answered in JSON with an ``Mcp-Session-Id`` (protocolVersion the client's if it is
one of REVISIONS, else 2025-11-25; capabilities ``{"tools": {}}``), a notification or a response
gets 202, ``tools/list`` lists one tool, ``slow``, ``ping`` is answered, DELETE ends the session
(200). ``tools/call`` is answered on an event stream as MODE says (see MODES). A POST's stream is
named ``post<n>`` and its events ``post<n>-1``, ``post<n>-2``...; the GET stream's ``get-1``...: unique
across the session, each naming its stream (SHTTP-31, SHTC-12). A GET with ``Last-Event-ID``
continues the stream that id belongs to with the events after it (SHTTP-32, SHTTP-33).

What it saw is printed on stdout, one JSON object a line, for the test to read:
``{"get": ..., "last_event_id": ID or null, "session": ..., "since_end_ms": MS or null}`` for every
GET (``since_end_ms``: the milliseconds since the server ended the stream the id names, measured
before the end was written, so never less than what the client waited), ``{"status": ...}`` in
the same object: how it was answered; and ``{"ended": STREAM, "how": "end" | "break"}`` when the
server ends or breaks a stream.
"""

from __future__ import annotations

import http.server
import json
import os
import secrets
import socket
import sys
import threading
import time
from typing import Any

MODES = {
    "ends-after-priming": "tools/call: a priming event (id, retry, empty data), then the response ends; a GET "
                          "with Last-Event-ID gets the answer (the conformance suite's sse-retry scenario)",
    "breaks-mid-stream": "tools/call: two log messages with ids, half of a third, then the connection breaks "
                         "(no end of the chunked body); a GET with Last-Event-ID gets the third and the answer",
    "no-ids": "tools/call: a log message without an id, then the response ends: nothing to resume from",
    "refuses-resumption": "as ends-after-priming, but a GET with Last-Event-ID is answered 405",
    "never-answers": "as ends-after-priming, but a GET with Last-Event-ID gets an event stream that ends at once, "
                     "with no event",
    "get-stream-ids": "tools/call answered in JSON; the GET stream sends notifications/tools/list_changed with an "
                      "id (and retry) and ends; a GET with Last-Event-ID is held open, quiet",
}
REVISIONS = ("2025-03-26", "2025-06-18", "2025-11-25")
IDLE = 60.0  # seconds without a request, and the server stops
HOLD = 30.0  # seconds a quiet GET stream is held open at most
SLOW = {"name": "slow", "description": "answers on a stream that ends before its answer",
        "inputSchema": {"type": "object", "properties": {}}}

LOCK = threading.Lock()
STATE: dict[str, Any] = {"posts": 0, "last_request": time.monotonic()}
SESSIONS: dict[str, threading.Event] = {}  # session id -> set once DELETEd
STREAMS: dict[str, list[tuple[str, bytes]]] = {}  # stream name -> its events, (id, data), in order
ENDED: dict[str, float] = {}  # stream name -> when the server last ended (or broke) it (time.monotonic)


def say(**fields: Any) -> None:
    with LOCK:
        print(json.dumps(fields), flush=True)


def event(data: bytes, event_id: str | None = None, retry_ms: int | None = None) -> bytes:
    lines = ([f"id: {event_id}".encode()] if event_id is not None else []) + (
        [f"retry: {retry_ms}".encode()] if retry_ms is not None else [])
    return b"\n".join([*lines, b"data: " + data]) + b"\n\n"


def message(msg: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **msg}).encode()


def logged(text: str) -> bytes:
    return message({"method": "notifications/message", "params": {"level": "info", "data": text}})


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    mode = "ends-after-priming"
    retry_ms: int | None = None

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def reply(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        if body:
            self.send_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    # --- event streams, chunked ----------------------------------------------------------------

    def open_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.close_connection = True  # one stream a connection

    def chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_stream(self, name: str) -> None:
        """End the response cleanly (the last chunk), as a server that polls does (SHTC-05)."""
        with LOCK:
            ENDED[name] = time.monotonic()  # before the end is written: the client cannot see it sooner
        say(ended=name, how="end")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def break_stream(self, name: str) -> None:
        """Close the connection in the middle of the chunked body: the response never ends."""
        with LOCK:
            ENDED[name] = time.monotonic()
        say(ended=name, how="break")
        self.wfile.flush()
        self.connection.shutdown(socket.SHUT_RDWR)

    def send_from(self, name: str, index: int) -> None:
        """The events of stream ``name`` from ``index`` on, then the end."""
        for event_id, data in STREAMS[name][index:]:
            self.chunk(event(data, event_id))
        self.end_stream(name)

    # --- the methods ---------------------------------------------------------------------------

    def do_POST(self) -> None:
        STATE["last_request"] = time.monotonic()
        try:
            msg = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        except ValueError:
            self.reply(400, message({"id": None, "error": {"code": -32700, "message": "Parse error"}}))
            return
        if not isinstance(msg, dict) or "id" not in msg or "method" not in msg:
            self.reply(202)  # notifications and responses
            return
        method, request_id = msg["method"], msg["id"]
        if method == "initialize":
            session = secrets.token_hex(8)
            SESSIONS[session] = threading.Event()
            proposed = (msg.get("params") or {}).get("protocolVersion")
            tools = {"listChanged": True} if self.mode == "get-stream-ids" else {}
            result = {"protocolVersion": proposed if proposed in REVISIONS else "2025-11-25",
                      "capabilities": {"tools": tools}, "serverInfo": {"name": "resuming", "version": "1.0"}}
            self.reply(200, message({"id": request_id, "result": result}), {"Mcp-Session-Id": session})
            return
        if self.headers.get("Mcp-Session-Id") not in SESSIONS:
            self.reply(404 if self.headers.get("Mcp-Session-Id") else 400,
                       message({"id": None, "error": {"code": -32000, "message": "no such session"}}))
            return
        if method == "ping":
            self.reply(200, message({"id": request_id, "result": {}}))
        elif method == "tools/list":
            self.reply(200, message({"id": request_id, "result": {"tools": [SLOW]}}))
        elif method == "tools/call":
            self.call(request_id)
        else:
            self.reply(200, message({"id": request_id, "error": {"code": -32601, "message": "Method not found"}}))

    def call(self, request_id: Any) -> None:
        answer = message({"id": request_id, "result": {"content": [{"type": "text", "text": "slow: done"}]}})
        if self.mode == "get-stream-ids":
            self.reply(200, answer)
            return
        with LOCK:
            STATE["posts"] += 1
            name = f"post{STATE['posts']}"
        self.open_stream()
        if self.mode == "no-ids":
            STREAMS[name] = []
            self.chunk(event(logged("working")))
            self.end_stream(name)
        elif self.mode == "breaks-mid-stream":
            STREAMS[name] = [(f"{name}-1", logged("one")), (f"{name}-2", logged("two")), (f"{name}-3", logged("three")),
                             (f"{name}-4", answer)]
            self.chunk(event(logged("one"), f"{name}-1", self.retry_ms))
            self.chunk(event(logged("two"), f"{name}-2"))
            self.chunk(event(logged("three"), f"{name}-3")[:-12])  # cut before its blank line: it does not count
            self.break_stream(name)
        else:  # SHTC-04: an event with an id and no data first; SHTC-07: the retry time before the end
            STREAMS[name] = [(f"{name}-1", b""), (f"{name}-2", answer)]
            self.chunk(event(b"", f"{name}-1", self.retry_ms))
            self.end_stream(name)

    def do_GET(self) -> None:
        STATE["last_request"] = time.monotonic()
        session, last = self.headers.get("Mcp-Session-Id"), self.headers.get("Last-Event-ID")
        name, _, number = (last or "").rpartition("-")
        with LOCK:
            ended = ENDED.get(name)
        since = round((time.monotonic() - ended) * 1000, 1) if last is not None and ended is not None else None
        if session not in SESSIONS:
            status = 404 if session else 400
        elif last is None:
            status = 200 if self.mode == "get-stream-ids" else 405  # SHTTP-25: no stream of its own
        elif name not in STREAMS or not number.isdigit() or int(number) > len(STREAMS[name]):
            status = 400  # an id this server never gave
        else:
            status = 405 if self.mode == "refuses-resumption" else 200
        say(get=self.path, last_event_id=last, session=session, since_end_ms=since, status=status)
        if status != 200:
            self.reply(status, headers={"Allow": "POST, DELETE"} if status == 405 else None)
            return
        self.open_stream()
        try:
            if last is None:  # the GET stream: one notification with an id, then the end (SHTC-05)
                STREAMS["get"] = [("get-1", message({"method": "notifications/tools/list_changed"}))]
                self.chunk(event(STREAMS["get"][0][1], "get-1", self.retry_ms))
                self.end_stream("get")
            elif self.mode == "never-answers":
                self.chunk(b": nothing new\n\n")
                self.end_stream(name)
            elif name == "get":  # the GET stream resumed: nothing more to say; held open, quiet
                deleted, deadline = SESSIONS[session or ""], time.monotonic() + HOLD
                while not deleted.wait(0.5) and time.monotonic() < deadline:
                    self.chunk(b": keepalive\n\n")
                self.end_stream(name)
            else:
                self.send_from(name, int(number))
        except OSError:  # the client went away
            self.close_connection = True

    def do_DELETE(self) -> None:
        STATE["last_request"] = time.monotonic()
        deleted = SESSIONS.get(self.headers.get("Mcp-Session-Id") or "")
        if deleted is None:
            self.reply(404)
            return
        deleted.set()
        self.reply(200)


def stop_when_left_alone() -> None:
    """Stop when stdin closes (the test is done, or died) or after IDLE seconds without a request."""

    def on_eof() -> None:
        sys.stdin.buffer.read()
        os._exit(0)

    threading.Thread(target=on_eof, daemon=True).start()
    while time.monotonic() - STATE["last_request"] < IDLE:
        time.sleep(1.0)
    os._exit(0)


def main() -> None:
    args = sys.argv[1:]
    mode = args[args.index("--mode") + 1] if "--mode" in args else "ends-after-priming"
    if mode not in MODES:
        raise SystemExit(f"unknown mode {mode!r}; one of: {', '.join(MODES)}")
    Handler.mode = mode
    if "--retry-ms" in args:
        Handler.retry_ms = int(args[args.index("--retry-ms") + 1])
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"listening at http://127.0.0.1:{server.server_address[1]}/mcp", flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    stop_when_left_alone()


if __name__ == "__main__":
    main()
