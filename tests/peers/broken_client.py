"""A small MCP 2024-11-05 client over stdio in plain stdlib Python, for testing the checker.

    python broken_client.py [--break NAME[,NAME...]] SERVER_COMMAND

Without flags it follows every rule the client checker tests: ``mcp-ref check client -- python
broken_client.py {server}`` must pass. It declares roots and sampling, initializes, lists and
calls tools, answers whatever the server asks, and shuts the server down by closing its stdin.
Each ``--break NAME`` breaks exactly one rule (see BREAKS).
"""

from __future__ import annotations

import json
import queue
import shlex
import signal
import subprocess
import sys
import threading
from typing import Any

BREAKS = {
    "request-before-initialize": "send tools/list before initialize",
    "no-initialized": "never send notifications/initialized",
    "pipelined-request": "send tools/list before the initialize result",
    "bad-client-info": "send clientInfo without a version",
    "no-capabilities": "leave capabilities out of initialize",
    "reuse-id": "use the same request id twice",
    "null-id": "send a request with id null",
    "float-id": "send a request with a fractional id",
    "jsonrpc-1": 'send a request with "jsonrpc": "1.0"',
    "notification-with-id": "send notifications/initialized with an id",
    "no-ping-answer": "never answer ping",
    "unknown-method-32602": "answer unknown methods with -32602",
    "wrong-response-id": "answer an integer request id with a string",
    "result-and-error": "answer a ping with both result and error",
    "string-error-code": "send a string error code",
    "stdin-noise": "write a line of text that is not a message",
    "pretty-json": "write a message over several lines",
    "undeclared-capability": "ask for resources the server did not declare",
    "sigterm-server": "stop the server with SIGTERM without closing its stdin",
    "cancel-unknown": "cancel a request it never sent",
    "cancel-initialize": "cancel its initialize request",
    "duplicate-progress-token": "use one progress token for two requests in flight",
    "bad-roots": "offer a root that is not a file:// URI",
    "roots-changed-undeclared": "send roots/list_changed without declaring listChanged",
    "bad-sampling-result": "answer sampling without a model",
    "answers-notifications": "answer a notification",
    "ignore-version": "carry on when the server answers a protocol version it does not support",
    "server-discover": "probe server/discover (a newer revision's request) before initialize",
}
TIMEOUT = 10.0


class Client:
    def __init__(self, command: list[str], breaks: set[str]) -> None:
        self.breaks = breaks
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.inbox: queue.Queue[Any] = queue.Queue()
        self.early: dict[str, dict[str, Any]] = {}  # responses that arrived while waiting for another
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                self.inbox.put(json.loads(line))
            except ValueError:
                pass
        self.inbox.put(None)

    def write(self, msg: dict[str, Any], *, pretty: bool = False) -> None:
        assert self.proc.stdin is not None
        text = json.dumps(msg, indent=2) if pretty else json.dumps(msg, separators=(",", ":"))
        self.proc.stdin.write(text.encode() + b"\n")
        self.proc.stdin.flush()

    def raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def request(self, rid: Any, method: str, params: dict[str, Any] | None = None, **extra: Any) -> None:
        msg: dict[str, Any] = {"jsonrpc": extra.pop("jsonrpc", "2.0"), "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.write(msg)

    def wait(self, rid: Any) -> dict[str, Any] | None:
        """Answer whatever the server sends until the response to ``rid`` arrives."""
        if repr(rid) in self.early:
            return self.early.pop(repr(rid))
        while True:
            try:
                msg = self.inbox.get(timeout=TIMEOUT)
            except queue.Empty:
                return None
            if msg is None:
                return None
            if "method" in msg and "id" in msg:
                self.answer(msg)
            elif "method" in msg:
                if "answers-notifications" in self.breaks:
                    self.write({"jsonrpc": "2.0", "id": None, "result": {}})
            elif msg.get("id") == rid:
                return msg  # type: ignore[no-any-return]
            else:
                self.early[repr(msg.get("id"))] = msg

    def answer(self, msg: dict[str, Any]) -> None:
        method, rid = msg["method"], msg["id"]
        if method == "ping":
            if "no-ping-answer" in self.breaks:
                return
            reply: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "result": {}}
            if "result-and-error" in self.breaks and rid == 900002:
                reply["error"] = {"code": -32603, "message": "and an error"}
            if "wrong-response-id" in self.breaks and rid == 900002:
                reply["id"] = str(rid)
            self.write(reply)
        elif method == "roots/list":
            uri = "https://example.com/" if "bad-roots" in self.breaks else "file:///tmp/broken-client"
            self.write({"jsonrpc": "2.0", "id": rid, "result": {"roots": [{"uri": uri, "name": "tmp"}]}})
        elif method == "sampling/createMessage":
            result = {"role": "assistant", "content": {"type": "text", "text": "OK"}, "model": "broken"}
            if "bad-sampling-result" in self.breaks:
                del result["model"]
            self.write({"jsonrpc": "2.0", "id": rid, "result": result})
        else:
            code: Any = -32602 if "unknown-method-32602" in self.breaks else -32601
            if "string-error-code" in self.breaks:
                code = str(code)
            self.write({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": f"Method not found: {method}"}})

    def run(self) -> None:
        b = self.breaks
        if "request-before-initialize" in b:
            self.request(0, "tools/list")
            self.wait(0)
        roots: dict[str, Any] = {} if "roots-changed-undeclared" in b else {"listChanged": True}
        params: dict[str, Any] = {"protocolVersion": "2024-11-05", "capabilities": {"roots": roots, "sampling": {}},
                                  "clientInfo": {"name": "broken-client", "version": "1.0"}}
        if "bad-client-info" in b:
            del params["clientInfo"]["version"]
        if "no-capabilities" in b:
            del params["capabilities"]
        if "server-discover" in b:
            self.request("discover", "server/discover", {})
            self.wait("discover")
        self.request(1, "initialize", params)
        if "pipelined-request" in b:
            self.request(2, "tools/list")
        init = self.wait(1) or {}
        version = (init.get("result") or {}).get("protocolVersion")
        if version != "2024-11-05" and "ignore-version" not in b:
            self.stop()  # LC-26: a version it does not support: disconnect
            return
        if "cancel-initialize" in b:
            self.write({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
        if "notification-with-id" in b:
            self.request(99, "notifications/initialized")
        elif "no-initialized" not in b:
            self.write({"jsonrpc": "2.0", "method": "notifications/initialized"})
        if "stdin-noise" in b:
            self.raw(b"hello server\n")
        if "cancel-unknown" in b:
            self.write({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 12345}})
        if "roots-changed-undeclared" in b:
            self.write({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
        if "pipelined-request" not in b:
            if "duplicate-progress-token" in b:
                self.request(2, "tools/list", {"_meta": {"progressToken": "same"}})
                self.request(20, "prompts/list", {"_meta": {"progressToken": "same"}})
                self.wait(20)
                self.wait(2)
            else:
                self.request(2, "tools/list", {"_meta": {"progressToken": "list-tools"}})
                self.wait(2)
        else:
            self.wait(2)
        call_id: Any = {"reuse-id": 2, "null-id": None, "float-id": 3.5}.get(next(iter(b), ""), 3)
        self.request(call_id, "tools/call", {"name": "echo", "arguments": {"text": "hi"}},
                     jsonrpc="1.0" if "jsonrpc-1" in b else "2.0")
        self.wait(call_id)
        if "undeclared-capability" in b:
            self.request(4, "resources/list")
            self.wait(4)
        if "pretty-json" in b:
            self.write({"jsonrpc": "2.0", "id": 5, "method": "ping"}, pretty=True)
        self.stop()

    def stop(self) -> None:
        assert self.proc.stdin is not None
        if "sigterm-server" in self.breaks:
            self.proc.send_signal(signal.SIGTERM)
        else:
            self.proc.stdin.close()
        try:
            self.proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def main(argv: list[str]) -> int:
    breaks: set[str] = set()
    if argv and argv[0] == "--break":
        breaks, argv = set(argv[1].split(",")), argv[2:]
    unknown = breaks - set(BREAKS)
    if unknown or len(argv) != 1:
        sys.stderr.write(f"usage: broken_client.py [--break NAME] SERVER_COMMAND; known breaks: {', '.join(BREAKS)}\n")
        return 2
    Client(shlex.split(argv[0]), breaks).run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
