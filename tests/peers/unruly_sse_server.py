"""An HTTP+SSE MCP server in plain stdlib Python for testing the checker against transport-level
misbehaviour. ``python unruly_sse_server.py --mode MODE`` binds a free port of 127.0.0.1 and
prints ``listening at URL`` first; see MODES. Without a misbehaviour it answers like a small
correct 2024-11-05 server (initialize, ping, tools/list, tools/call; a foreign Host name gets 421,
a foreign Origin 403, an unknown session 404).
"""

from __future__ import annotations

import http.server
import json
import os
import queue
import secrets
import socket
import struct
import sys
import threading
import time
import urllib.parse
from typing import Any

MODES = {
    "good": "behave",
    "any-origin": "accept any Origin and any Host name (no DNS-rebinding protection)",
    "sampling-on-subscribe": "offer a resource; on resources/subscribe ask the client to sample (it declared no "
                             "sampling), then fail the subscribe when the client refuses",
    "no-endpoint": "open the event stream but never send the endpoint event",
    "hang-unknown-session": "leave a POST for an unknown session without any answer",
    "exit-after-posts": "exit (the whole process) after the 12th POST, mid-run",
    "answers-out-of-order": "answer every other ping 0.2 s late, so that the next one's answer overtakes it "
                            "(JSON-RPC lets answers come in any order)",
    "few-workers": "serve at most 40 connections at a time, each waiting for its request without a time limit: "
                   "idle or half-sent connections starve everyone else",
    "drops-a-kept-alive-connection": "once, read the POST that follows a ping's on the same kept-alive connection "
                                     "and close the connection under it (FIN), as servers that close idle "
                                     "connections do to a request crossing the close; prints 'dropped'",
    "resets-a-kept-alive-connection": "the same, with a reset (RST) instead of a clean close",
}

SESSIONS: dict[str, queue.Queue[bytes | None]] = {}
POSTS = 0
DROPPED = {"done": False}
LOCK = threading.Lock()


RESOURCE = {"uri": "test://one", "name": "one", "mimeType": "text/plain"}
PENDING: dict[str, Any] = {}  # session -> the id of a subscribe waiting for the client's sampling answer


def answer(msg: dict[str, Any]) -> dict[str, Any] | None:
    method = msg.get("method")
    params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
    if method == "initialize":
        capabilities: dict[str, Any] = {"tools": {}}
        if Handler.mode == "sampling-on-subscribe":
            capabilities["resources"] = {"subscribe": True}
        return {"protocolVersion": "2024-11-05", "capabilities": capabilities,
                "serverInfo": {"name": "unruly-sse", "version": "1.0"}}
    if Handler.mode == "sampling-on-subscribe":
        if method == "resources/list":
            return {"resources": [RESOURCE]}
        if method == "resources/templates/list":
            return {"resourceTemplates": []}
        if method in ("resources/read", "resources/unsubscribe") and not isinstance(params.get("uri"), str):
            raise LookupError("uri must be a string")
        if method == "resources/read":
            if params["uri"] != RESOURCE["uri"]:
                raise FileNotFoundError(params["uri"])
            return {"contents": [{"uri": RESOURCE["uri"], "mimeType": "text/plain", "text": "one"}]}
        if method == "resources/unsubscribe":
            return {}
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": [{"name": "echo", "inputSchema": {"type": "object", "properties": {}}}]}
    if method == "tools/call":
        if (msg.get("params") or {}).get("name") != "echo":
            raise LookupError("Unknown tool")
        return {"content": [{"type": "text", "text": "ok"}]}
    return None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    mode = "good"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def foreign(self) -> bool:
        if self.mode == "any-origin":
            return False
        origin = self.headers.get("Origin")
        host = urllib.parse.urlsplit("//" + (self.headers.get("Host") or "")).hostname
        if host not in ("127.0.0.1", "localhost"):  # a DNS-rebinding page's own host name
            self.send_response(421)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return True
        if origin and urllib.parse.urlsplit(origin).hostname not in ("127.0.0.1", "localhost"):
            self.send_response(403)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return True
        return False

    def do_GET(self) -> None:
        if self.foreign():
            return
        session = secrets.token_hex(8)
        outbox: queue.Queue[bytes | None] = queue.Queue()
        SESSIONS[session] = outbox
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.close_connection = True
        try:
            if self.mode != "no-endpoint":
                self.wfile.write(f"event: endpoint\ndata: /messages?session={session}\n\n".encode())
                self.wfile.flush()
            while True:
                try:
                    data = outbox.get(timeout=1.0)
                except queue.Empty:
                    self.wfile.write(b": keepalive\n\n")
                    self.wfile.flush()
                    continue
                if data is None:
                    return
                self.wfile.write(b"event: message\ndata: " + data + b"\n\n")
                self.wfile.flush()
        except OSError:
            return
        finally:
            SESSIONS.pop(session, None)

    def do_POST(self) -> None:
        global POSTS
        if self.foreign():
            return
        session = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query).get("session", [""])[0]
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.drop_this_one():
            return
        with LOCK:
            POSTS += 1
            count = POSTS
        if self.mode == "exit-after-posts" and count > 12:
            os._exit(0)
        outbox = SESSIONS.get(session)
        if outbox is None:
            if self.mode == "hang-unknown-session":
                time.sleep(3600)
            self.reply(404, b"unknown session")
            return
        try:
            msg = json.loads(body)
        except ValueError:
            self.reply(400, b"not JSON")
            return
        if (isinstance(msg, dict) and msg.get("method") == "resources/subscribe" and "id" in msg
                and self.mode == "sampling-on-subscribe"):
            # The sampling request goes out on the stream before this POST is answered: a client
            # sees the server's request while its own POST is still in flight.
            PENDING[session] = msg["id"]
            outbox.put(json.dumps({"jsonrpc": "2.0", "id": "server-sampling", "method": "sampling/createMessage",
                                   "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                                              "maxTokens": 5}}).encode())
            time.sleep(0.3)
            self.reply(202, b"Accepted")
            return
        self.reply(202, b"Accepted")
        if isinstance(msg, dict) and msg.get("id") == "server-sampling" and session in PENDING:
            rid = PENDING.pop(session)  # the client answered our sampling request: the subscribe follows it
            outcome: dict[str, Any] = ({"error": {"code": -32603, "message": "sampling failed"}} if "error" in msg
                                       else {"result": {}})
            outbox.put(json.dumps({"jsonrpc": "2.0", "id": rid, **outcome}).encode())
            return
        if isinstance(msg, dict) and "id" in msg and isinstance(msg.get("method"), str):
            try:
                result = answer(msg)
            except FileNotFoundError as exc:
                response: dict[str, Any] = {"jsonrpc": "2.0", "id": msg["id"],
                                            "error": {"code": -32002, "message": f"Resource not found: {exc}"}}
            except LookupError as exc:
                response = {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32602, "message": str(exc)}}
            else:
                response = ({"jsonrpc": "2.0", "id": msg["id"], "result": result} if result is not None else
                            {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "Method not found"}})

            data = json.dumps(response, separators=(",", ":")).encode()
            self.answered_a_ping = msg.get("method") == "ping"
            if self.mode == "answers-out-of-order" and msg.get("method") == "ping" and count % 2:
                threading.Timer(0.2, outbox.put, args=(data,)).start()  # the next ping's answer overtakes it
                return
            outbox.put(data)

    def drop_this_one(self) -> bool:
        """In the drops-/resets- modes, once: close the connection under the POST that follows a
        ping's on it, leaving it unanswered (its body is read)."""
        if not self.mode.endswith("-a-kept-alive-connection") or not getattr(self, "answered_a_ping", False):
            return False
        with LOCK:
            if DROPPED["done"]:
                return False
            DROPPED["done"] = True
        if self.mode.startswith("resets"):
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()
        print("dropped", flush=True)
        return True

    def reply(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class FewWorkers(http.server.ThreadingHTTPServer):
    """At most 40 connections are served at once; the accept loop waits for a free worker."""

    workers = threading.BoundedSemaphore(40)

    def process_request(self, request: Any, client_address: Any) -> None:
        self.workers.acquire()
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        super().shutdown_request(request)
        self.workers.release()


def main() -> int:
    Handler.mode = sys.argv[sys.argv.index("--mode") + 1] if "--mode" in sys.argv else "good"
    cls = FewWorkers if Handler.mode == "few-workers" else http.server.ThreadingHTTPServer
    cls.request_queue_size = 128  # as real servers do: a burst of connections waits instead of being dropped
    server = cls(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"listening at http://127.0.0.1:{server.server_address[1]}/sse", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
