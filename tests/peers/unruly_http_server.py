"""A Streamable HTTP MCP server in plain stdlib Python for testing the checker where the order of
messages on two streams matters. ``python unruly_http_server.py --mode MODE`` binds a free port of
127.0.0.1 and prints ``listening at URL`` first; see MODES.

It serves one endpoint, /mcp (revision 2025-03-26's transport, carrying 2024-11-05 messages):
``initialize`` starts a session (``Mcp-Session-Id``), a request without one is refused with HTTP
400 and one with an unknown or ended session with 404, notifications get 202, GET opens the
session's stream, DELETE ends it. Only in ``checks-origin-on-posts-only`` is any Origin checked. It declares no
capability and serves ``ping``. A request carrying ``_meta.progressToken`` is answered, and then
a progress notification for that token follows, where and when MODE says. In the two
``drops-...`` modes connections are kept alive (HTTP/1.1), and once, the request that follows a
ping on the same connection is read and left unanswered: the connection is closed under it,
cleanly or with a reset, as a server that closes idle kept-alive connections (Node after 5 s,
uvicorn after 5 s) does to a request that crosses its close; ``dropped`` is printed then. The
two ``drops-the-...`` modes do the same to the first GET, or the first DELETE (in a real run the
GET comes on the connection the initialize POST left idle; the DELETE on a fresh one, or one that
answered before); ``deleted`` is printed when a DELETE ends a session.
"""

from __future__ import annotations

import http.server
import json
import queue
import secrets
import socket
import struct
import sys
import threading
import time
from typing import Any

MODES = {
    "progress-on-the-post-stream": "answer a request with a progress token on an event stream, then send "
                                   "its progress on that same stream (after the response: wrong)",
    "progress-on-the-get-stream-at-once": "answer in JSON, and send the progress on the GET stream 0.3 s later "
                                          "(within the kit's slack: two streams that close are not ordered)",
    "progress-on-the-get-stream-later": "answer in JSON, and send the progress on the GET stream 2 s later "
                                        "(wrong: long after the response)",
    "drops-a-kept-alive-connection": "once, close a kept-alive connection under the request after a ping (FIN)",
    "resets-a-kept-alive-connection": "the same, with a reset (RST) instead of a clean close",
    "drops-the-get-on-a-kept-alive-connection": "once, close the connection under the first GET (which comes on "
                                                "the connection the initialize POST left idle)",
    "drops-the-delete-on-a-kept-alive-connection": "once, close the connection under the first DELETE",
    "checks-origin-on-posts-only": "refuse a POST whose Origin is not localhost's (403), but serve GET and DELETE "
                                   "whatever their Origin, and any Host name (SHTTP-06 asks every request checked)",
    "checks-neither-origin-nor-host": "serve any Origin and any Host name: no DNS-rebinding check at all",
    "speaks-2025-11-25-loosely": "agree on the client's version (any of the four), serve any MCP-Protocol-Version "
                                 "header (HDR-04 asks 400 for one it does not speak), and refuse a foreign Origin "
                                 "with 400, where 2025-11-25 asks 403",
}
REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LOCAL_ORIGINS = ("http://127.0.0.1", "http://localhost")
LATER = 2.0  # seconds; the kit does not judge the order of two streams within 1 s
SOON = 0.3  # seconds: after the response as the kit records it (the POST's reader is not beaten
#             to it by the GET's), yet well within the kit's slack
HOLD = LATER + 0.7  # in both GET modes the next such request waits this long: the client still listens

STREAMS: dict[str, queue.Queue[bytes]] = {}  # session id -> what its GET stream sends
TOKENS = {"seen": 0, "dropped": 0}
LOCK = threading.Lock()


def progress(token: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                       "params": {"progressToken": token, "progress": 1}}).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    mode = "progress-on-the-post-stream"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def send(self, status: int, body: bytes = b"", kind: str = "application/json",
             headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def drop_this_one(self) -> bool:
        """In the drops-/resets- modes: whether to close the connection under this request (once,
        the first request that follows a ping on its connection, or in the drops-the- modes the
        first GET or DELETE); closes it if so."""
        if self.mode.startswith("drops-the-"):
            if self.command.lower() != self.mode.split("-")[2]:
                return False
        elif not self.mode.endswith("-a-kept-alive-connection") or not getattr(self, "answered_a_ping", False):
            return False
        with LOCK:
            if TOKENS["dropped"]:
                return False
            TOKENS["dropped"] = 1
        self.rfile.read(int(self.headers.get("Content-Length") or 0))  # read, and never answered
        if self.mode.startswith("resets"):
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()
        print("dropped", flush=True)
        return True

    def foreign_origin(self) -> bool:
        origin = self.headers.get("Origin")
        return origin is not None and not origin.startswith(LOCAL_ORIGINS)

    def no_session(self) -> None:
        """SHTTP-38: no session id, 400; SHTTP-39: one the server does not have, 404."""
        status = 400 if self.headers.get("Mcp-Session-Id") is None else 404
        self.send(status, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"no such session"}}')

    def refused_with_400(self) -> bool:
        """speaks-2025-11-25-loosely: a foreign Origin is refused, on every method, with 400 (not 403)."""
        if self.mode == "speaks-2025-11-25-loosely" and self.foreign_origin():
            self.send(400, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Origin not allowed"}}')
            return True
        return False

    def do_POST(self) -> None:
        if self.drop_this_one():
            return
        if self.refused_with_400():
            return
        if self.mode == "checks-origin-on-posts-only" and self.foreign_origin():
            self.send(403, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Origin not allowed"}}')
            return
        try:
            msg = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        except ValueError:
            self.send(400, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}')
            return
        session = self.headers.get("Mcp-Session-Id")
        if not isinstance(msg, dict) or "id" not in msg or "method" not in msg:
            self.send(202)  # notifications and responses
            return
        if msg["method"] == "initialize":
            session = secrets.token_hex(8)
            STREAMS[session] = queue.Queue()
            proposed = (msg.get("params") or {}).get("protocolVersion")
            loose = self.mode == "speaks-2025-11-25-loosely" and proposed in REVISIONS
            result = {"protocolVersion": proposed if loose else "2024-11-05", "capabilities": {},
                      "serverInfo": {"name": "unruly-http", "version": "1.0"}}
            self.send(200, json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}).encode(),
                      headers={"Mcp-Session-Id": session})
            return
        if session not in STREAMS:
            self.no_session()
            return
        answer = (json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {}}) if msg["method"] == "ping" else
                  json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "Method not found"}}))
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        if "progressToken" not in meta:
            self.send(200, answer.encode())
            self.answered_a_ping = msg["method"] == "ping"
            return
        token = meta["progressToken"]
        with LOCK:
            TOKENS["seen"] += 1
            seen = TOKENS["seen"]
        if self.mode == "progress-on-the-post-stream":
            events = b"event: message\ndata: " + answer.encode() + b"\n\nevent: message\ndata: " + progress(token) + b"\n\n"
            self.send(200, events, kind="text/event-stream")
            return
        if seen == 2:
            time.sleep(HOLD)
        self.send(200, answer.encode())
        delay = LATER if self.mode == "progress-on-the-get-stream-later" else SOON
        threading.Timer(delay, STREAMS[session].put, args=(progress(token),)).start()

    def do_GET(self) -> None:
        if self.drop_this_one() or self.refused_with_400():
            return
        outbox = STREAMS.get(self.headers.get("Mcp-Session-Id") or "")
        if outbox is None:
            self.no_session()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.close_connection = True
        try:
            while True:
                try:
                    data = outbox.get(timeout=1.0)
                except queue.Empty:
                    self.wfile.write(b": keepalive\n\n")
                    self.wfile.flush()
                    continue
                self.wfile.write(b"event: message\ndata: " + data + b"\n\n")
                self.wfile.flush()
        except OSError:
            return

    def do_DELETE(self) -> None:
        if self.drop_this_one() or self.refused_with_400():
            return
        if STREAMS.pop(self.headers.get("Mcp-Session-Id") or "", None) is None:
            self.no_session()
            return
        self.send(200)
        print("deleted", flush=True)


def main() -> None:
    mode = sys.argv[sys.argv.index("--mode") + 1] if "--mode" in sys.argv else "progress-on-the-post-stream"
    if mode not in MODES:
        raise SystemExit(f"unknown mode {mode!r}; one of: {', '.join(MODES)}")
    Handler.mode = mode
    if "kept-alive" in mode:
        Handler.protocol_version = "HTTP/1.1"  # connections kept alive, as Node's and uvicorn's
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"listening at http://127.0.0.1:{server.server_address[1]}/mcp", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
