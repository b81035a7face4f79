"""A server of revision 2026-07-28 broken in one way per run, for tests/check/test_stateless.py.

    python broken_stateless_server.py --mode MODE          (stdio)
    python broken_stateless_server.py --mode http-MODE     (prints "listening at URL")

It is mcp_ref's demo server (right in every way) behind a small relay of the standard library
that changes one thing in what passes, so that everything else stays right and the checker must
fail exactly the rule the mode breaks (several modes, comma-separated, break several rules at
once). ``good`` and ``http-good`` change nothing. Over stdio the
demo server is ``mcp-ref serve``, a child process; over HTTP it is served in this process (with a
generous ``quick_answer``, so that a 404 never depends on timing), the relay in front of it.

Over stdio (each line is a message):
- ``no-result-type``: results lose their resultType (RTYPE-01)
- ``code-32002``: a -32602 answer to resources/read becomes -32002 (ERRC-05, RREAD-03)
- ``accepts-tampered-state``: a requestState the server never gave is swapped for the last one it
  gave, so the server completes the retry (MRTR-07)
- ``negative-ttl``: ttlMs becomes -1000 (CACHE-05)
- ``no-server-info``: results lose io.modelcontextprotocol/serverInfo (STLS-13, DISC-04)
- ``logs-without-level``: requests without a log level get "debug" (LOGX-01)
- ``asks-undeclared``: every request claims every client capability, so the server asks whatever it
  likes (MRTR-11)
- ``accepts-missing-capabilities``: a _meta without clientCapabilities gets {} (STLS-10)
- ``no-32022``: -32022 becomes -32602 without data (STLS-16)
- ``serves-ping``: ping is answered {} (the dropped methods)
- ``early-change``: a tools list_changed comes before the subscription's acknowledgment (SUBS-02)
- ``untagged``: change notifications lose their subscriptionId (SUBS-10)
- ``foreign-tag``: change notifications carry another subscription's id (a client's SUBS-05)
- ``unacknowledged-uris``: acknowledgements leave resourceSubscriptions out (a client's SUBS-04)
- ``mute-listen``: subscriptions/listen requests are swallowed (never acknowledged)
- ``mute-after-discover``: only the first server/discover is answered; later ones are swallowed
  (a client's ping_interval, which asks server/discover in this revision)
Over HTTP:
- ``http-no-header-checks``: the headers are rewritten from the body before the server sees them
  (HTTPX-14, HTTPX-21)
- ``http-session-id``: every answer carries an Mcp-Session-Id (HTTPX-25)
- ``http-always-200``: every 4xx becomes 200 (HTTPX-15, HTTPX-16)
- ``http-break-first-call``: the event stream of the first ``tools/call`` ends before its answer
  (the server got the request; its answer is lost on the way): a client's HTTPX-11
- ``http-break-every-call``: the same for every ``tools/call``
"""

from __future__ import annotations

import argparse
import http.client
import http.server
import json
import subprocess
import sys
import threading
import urllib.parse
from typing import Any

META = "io.modelcontextprotocol/"
SERVE = [sys.executable, "-m", "mcp_ref", "serve"]


class Relay:
    """What the stdio modes change, on each message in (from the client) and out (from the server)."""

    def __init__(self, mode: str) -> None:
        self.modes = set(mode.split(","))
        self.methods: dict[str, str] = {}  # request id (as JSON) -> method
        self.states: list[str] = []  # requestStates the server gave
        self.lock = threading.Lock()
        self.discovers = 0  # server/discover requests seen (mute-after-discover)

    def inbound(self, msg: Any) -> tuple[Any, Any]:
        """(what goes on to the server or None, an answer of the relay's own or None)."""
        if not isinstance(msg, dict) or not isinstance(msg.get("params", {}), dict):
            return msg, None
        method, params = msg.get("method"), msg.get("params") or {}
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else None
        if "id" in msg and isinstance(method, str):
            with self.lock:
                self.methods[json.dumps(msg["id"])] = method
        if "mute-listen" in self.modes and method == "subscriptions/listen":
            return None, None
        if "mute-after-discover" in self.modes and method == "server/discover":
            with self.lock:
                self.discovers += 1
                if self.discovers > 1:
                    return None, None
        if "serves-ping" in self.modes and method == "ping" and meta is not None and META + "protocolVersion" in meta:
            return None, {"jsonrpc": "2.0", "id": msg.get("id"), "result": {
                "resultType": "complete", "_meta": {META + "serverInfo": {"name": "broken", "version": "1"}}}}
        if meta is not None and META + "protocolVersion" in meta:
            if "logs-without-level" in self.modes:
                meta.setdefault(META + "logLevel", "debug")
            if "asks-undeclared" in self.modes and isinstance(meta.get(META + "clientCapabilities"), dict):
                meta[META + "clientCapabilities"] = {"elicitation": {}, "sampling": {}, "roots": {}}
            if "accepts-missing-capabilities" in self.modes:
                meta.setdefault(META + "clientCapabilities", {})
        if "accepts-tampered-state" in self.modes and isinstance(params.get("requestState"), str):
            with self.lock:
                if params["requestState"] not in self.states and self.states:
                    params["requestState"] = self.states[-1]
        early = None
        if "early-change" in self.modes and method == "subscriptions/listen":
            early = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                     "params": {"_meta": {META + "subscriptionId": msg.get("id")}}}
        return msg, early

    def outbound(self, msg: Any) -> Any:
        if not isinstance(msg, dict):
            return msg
        method = self.methods.get(json.dumps(msg.get("id")), "") if "id" in msg else ""
        result, error = msg.get("result"), msg.get("error")
        if isinstance(result, dict):
            if "no-result-type" in self.modes:
                result.pop("resultType", None)
            if "negative-ttl" in self.modes and "ttlMs" in result:
                result["ttlMs"] = -1000
            if "no-server-info" in self.modes and isinstance(result.get("_meta"), dict):
                result["_meta"].pop(META + "serverInfo", None)
            if isinstance(result.get("requestState"), str):
                with self.lock:
                    self.states.append(result["requestState"])
        if isinstance(error, dict):
            if "code-32002" in self.modes and method == "resources/read" and error.get("code") == -32602:
                error["code"] = -32002
            if "no-32022" in self.modes and error.get("code") == -32022:
                error["code"] = -32602
                error.pop("data", None)
        params = msg.get("params")
        if "untagged" in self.modes and str(msg.get("method", "")).endswith("list_changed") and isinstance(params, dict):
            if isinstance(params.get("_meta"), dict):
                params["_meta"].pop(META + "subscriptionId", None)
        if "foreign-tag" in self.modes and str(msg.get("method", "")).startswith("notifications/") and \
                isinstance(params, dict) and isinstance(params.get("_meta"), dict) and \
                isinstance(params["_meta"].get(META + "subscriptionId"), int) and "acknowledged" not in msg["method"]:
            params["_meta"][META + "subscriptionId"] += 1000
        if "unacknowledged-uris" in self.modes and msg.get("method") == "notifications/subscriptions/acknowledged":
            if isinstance(params, dict) and isinstance(params.get("notifications"), dict):
                params["notifications"].pop("resourceSubscriptions", None)
        return msg


def stdio(mode: str) -> None:
    relay = Relay(mode)
    child = subprocess.Popen(SERVE, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    out = sys.stdout.buffer
    write_lock = threading.Lock()

    def write(msg: Any) -> None:
        with write_lock:
            out.write(json.dumps(msg).encode("utf-8") + b"\n")
            out.flush()

    def pump_out() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                with write_lock:
                    out.write(line)
                    out.flush()
                continue
            write(relay.outbound(msg))

    reader = threading.Thread(target=pump_out, daemon=True)
    reader.start()
    for line in sys.stdin.buffer:
        try:
            msg = json.loads(line)
        except ValueError:
            msg = None
        if not isinstance(msg, dict):  # not a JSON object: the server's to answer, as it came
            child.stdin.write(line)
            child.stdin.flush()
            continue
        forward, own = relay.inbound(msg)
        if own is not None and forward is not None:  # a message of the relay's before the request
            write(own)
        if forward is not None:
            child.stdin.write(json.dumps(forward).encode("utf-8") + b"\n")
            child.stdin.flush()
        elif own is not None:
            write(own)
    child.stdin.close()
    child.wait(10)
    reader.join(5)


def serve_http(mode: str) -> None:
    from mcp_ref.demo_server import server as demo

    served = demo.sse_server(streamable_options={"quick_answer": 2.0})
    upstream = urllib.parse.urlsplit(served.url.rsplit("/", 1)[0] + "/mcp")
    modes = {one.removeprefix("http-") for one in mode.split(",")}
    calls = [0]  # tools/call POSTs seen (break-first-call, break-every-call)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {name: value for name, value in self.headers.items()
                       if name.lower() not in ("host", "content-length", "connection")}
            if "no-header-checks" in modes:
                try:
                    msg = json.loads(body)
                except ValueError:
                    msg = None
                if isinstance(msg, dict):
                    params: dict[str, Any] = msg["params"] if isinstance(msg.get("params"), dict) else {}
                    meta: dict[str, Any] = params["_meta"] if isinstance(params.get("_meta"), dict) else {}
                    for name in list(headers):
                        if name.lower() in ("mcp-protocol-version", "mcp-method", "mcp-name"):
                            del headers[name]
                    if isinstance(meta.get(META + "protocolVersion"), str):
                        headers["MCP-Protocol-Version"] = meta[META + "protocolVersion"]
                    if isinstance(msg.get("method"), str):
                        headers["Mcp-Method"] = msg["method"]
                    named = params.get("uri" if msg.get("method") == "resources/read" else "name")
                    if msg.get("method") in ("tools/call", "prompts/get", "resources/read") and isinstance(named, str):
                        headers["Mcp-Name"] = named
            conn = http.client.HTTPConnection(upstream.hostname or "127.0.0.1", upstream.port, timeout=60)
            conn.request("POST", upstream.path, body=body, headers=headers)
            answer = conn.getresponse()
            if b'"tools/call"' in body:
                calls[0] += 1
                if "break-every-call" in modes or "break-first-call" in modes and calls[0] == 1:
                    answer.read()  # the server answered; the answer is lost on the way
                    conn.close()
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Connection", "close")
                    self.end_headers()  # a stream that opens, and ends before the answer
                    self.close_connection = True
                    return
            status = 200 if "always-200" in modes and 400 <= answer.status < 500 else answer.status
            self.send_response(status)
            for name, value in answer.getheaders():
                if name.lower() not in ("transfer-encoding", "connection", "content-length", "date", "server"):
                    self.send_header(name, value)
            if "session-id" in modes:
                self.send_header("Mcp-Session-Id", "broken-session-1")
            stream = (answer.getheader("Content-Type") or "").startswith("text/event-stream")
            if stream:
                self.send_header("Connection", "close")
                self.end_headers()
                try:
                    while chunk := answer.read1(65536):
                        self.wfile.write(chunk)
                        self.wfile.flush()
                except OSError:
                    pass
                self.close_connection = True
            else:
                data = answer.read()
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            conn.close()

        def do_GET(self) -> None:
            self.send_response(405)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_DELETE = do_GET

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"listening at http://127.0.0.1:{server.server_address[1]}/mcp", flush=True)
    server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="good")
    args = parser.parse_args()
    (serve_http if args.mode.startswith("http-") else stdio)(args.mode)


if __name__ == "__main__":
    main()
