"""A small MCP 2024-11-05 server over stdio in plain stdlib Python, for testing the checker.

Without flags it follows every rule the server checker tests: ``mcp-ref check server --stdio
"python broken_server.py"`` must pass. Each ``--break NAME`` breaks exactly one rule, so a test
can show the checker fails it on the right requirement ID (see BREAKS for the list).
``--long-description`` (no rule broken) gives its first tool a description of about 6,000 characters,
so that a tools/list result is longer than any report would show.

It offers two tools (``echo`` and ``count``, which reports progress), a text and a binary
resource, a template, a prompt with a required argument and one embedding a resource, logging,
completion, and pages of one item so that cursors are followed.
"""

from __future__ import annotations

import base64
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

BREAKS = {
    "no-ping": "answer ping after initialization with -32601",
    "ping-before-init-error": "refuse ping before initialize",
    "echo-version": "answer initialize with whatever version was proposed",
    "serve-before-init": "serve requests before initialize",
    "request-before-initialized": "send roots/list (to a client with roots) before the initialized notification",
    "stdout-banner": "print a banner on stdout",
    "pretty-ping": "pretty-print the response to ping, over several lines",
    "no-exit-on-eof": "keep running after stdin closes",
    "unknown-method-32602": "answer unknown methods with -32602",
    "silent-parse-error": "say nothing to a line that is not JSON",
    "silent-invalid-request": "say nothing to an invalid envelope",
    "silent-without-an-id": "say nothing to invalid input whose answer would need id null (answer the rest)",
    "answers-notifications": "answer an unknown notification",
    "answers-every-notification": "answer every notification, initialized included, with -32601 and id null",
    "int-ids": "answer numeric string ids with integers",
    "result-and-error": "put both result and error in completion errors",
    "string-error-code": "send a string error code for an unknown prompt",
    "reuse-request-id": "send two pings to the client with the same id",
    "roots-request": "ask a client without roots for its roots",
    "undeclared-list-changed": "send tools/list_changed without declaring listChanged",
    "serve-undeclared-prompts": "serve prompts without declaring them",
    "unknown-tool-iserror": "answer an unknown tool with an isError result",
    "tool-without-name-ok": "answer tools/call without a name with a result",
    "unknown-resource-32602": "answer an unknown resource with -32602",
    "bad-blob": "send a blob that is not base64",
    "read-without-uri-ok": "answer resources/read without a uri with a result",
    "prompt-missing-argument-ok": "get a prompt without its required argument",
    "embedded-without-mime-type": "embed a resource without mimeType in a prompt",
    "bad-log-level-ok": "accept an unknown log level",
    "log-below-level": "send a debug message after any setLevel",
    "too-many-completions": "return 101 completion values",
    "completion-accepts-garbage": "answer malformed completion params with a result",
    "bad-cursor-ok": "answer an unknown cursor with the first page",
    "looping-cursor": "hand out the same cursor again on the last page",
    "progress-after-response": "send progress for a ping after answering it",
    "crash-on-unknown-cancel": "exit when a cancellation names an unknown request",
    "elicitation-request": "send elicitation/create (a request of later revisions) once initialized",
    "resource-link": "return resource_link content (a type of later revisions) from echo",
    "log-flood": "send 300 log messages at once after logging/setLevel",
    "sampling-then-fail-subscribe": "ask a client without sampling to sample on subscribe, then fail the subscribe",
    "ignore-cancel": "keep running a cancelled slow tool: progress and an answer follow the cancellation",
    "answer-cancelled": "answer a cancelled slow tool at once with -32800 (Request cancelled)",
    "stuck-tool": "list a tool first that never answers",
    "slow-start": "start slowly (10 s) every time but the first (with --state PATH)",
}

LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
TOOLS = [
    {"name": "slow", "description": "Take 1.2 s, with progress; stops when cancelled.",
     "inputSchema": {"type": "object", "properties": {}}},
    {"name": "echo", "description": "Echo text.",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
    {"name": "count", "description": "Count to 3 with progress.", "inputSchema": {"type": "object", "properties": {}}},
]
RESOURCES = [{"uri": "test://text", "name": "text", "mimeType": "text/plain"},
             {"uri": "test://blob", "name": "blob", "mimeType": "application/octet-stream"}]
TEMPLATES = [{"uriTemplate": "test://items/{item}", "name": "item"}]
PROMPTS = [{"name": "greet", "arguments": [{"name": "name", "required": True}]}, {"name": "embed"}]


def valid_id(value: Any) -> bool:
    """A request id: a string or an integer (a JSON boolean is not one, though Python's bool is an int)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


class Invalid(Exception):
    def __init__(self, code: Any, message: str):
        super().__init__(message)
        self.code, self.message = code, message


class Deferred(Exception):
    """The request is answered later (by a thread), or never."""


class BrokenServer:
    def __init__(self, breaks: set[str]) -> None:
        self.breaks = breaks
        self.lock = threading.Lock()
        self.cancelled: set[str] = set()
        self.rid: Any = None
        self.pending_subscribe: Any = None
        self.phase = "new"  # new -> initializing -> operating
        self.seen_ids: set[str] = set()
        self.running: set[str] = set()  # the slow tool calls under way (repr of their ids)

    def write(self, msg: dict[str, Any], *, pretty: bool = False) -> None:
        text = json.dumps(msg, indent=2 if pretty else None, separators=None if pretty else (",", ":"))
        with self.lock:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()

    def capabilities(self) -> dict[str, Any]:
        caps: dict[str, Any] = {"tools": {"listChanged": "undeclared-list-changed" not in self.breaks},
                                "resources": {"subscribe": True}, "prompts": {}, "logging": {}}
        if "undeclared-list-changed" in self.breaks:
            caps["tools"] = {}
        if "serve-undeclared-prompts" in self.breaks:
            del caps["prompts"]
        return caps

    # --- dispatch ------------------------------------------------------------------------------

    def on_line(self, line: bytes) -> None:
        try:
            msg = json.loads(line)
        except ValueError:
            if "silent-parse-error" not in self.breaks:
                self.write({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
            return
        if self.invalid(msg):
            rid = msg.get("id") if isinstance(msg, dict) and valid_id(msg.get("id")) else None
            if "silent-invalid-request" in self.breaks or (rid is None and "silent-without-an-id" in self.breaks):
                return  # the official SDKs drop what fails their schema; an answer here would need id null
            self.write({"jsonrpc": "2.0", "id": rid, "error": {"code": -32600, "message": "Invalid Request"}})
            return
        if "method" not in msg:
            if msg.get("id") == "server-sampling" and self.pending_subscribe is not None:
                rid, self.pending_subscribe = self.pending_subscribe, None
                if "error" in msg:
                    self.write({"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": "sampling failed"}})
                else:
                    self.write({"jsonrpc": "2.0", "id": rid, "result": {}})
            return  # a response to one of our pings
        if "id" not in msg:
            self.on_notification(msg["method"], msg.get("params") or {})
            return
        rid = msg["id"]
        self.seen_ids.add(repr(rid))
        self.rid = rid
        try:
            result = self.on_request(msg["method"], msg.get("params") if isinstance(msg.get("params"), dict) else {})
        except Deferred:
            return
        except Invalid as exc:
            error = {"jsonrpc": "2.0", "id": rid, "error": {"code": exc.code, "message": exc.message}}
            if "result-and-error" in self.breaks and msg["method"] == "completion/complete":
                error["result"] = {}
            self.write(error)
            return
        if "int-ids" in self.breaks and isinstance(rid, str) and rid.isdigit():
            rid = int(rid)
        self.write({"jsonrpc": "2.0", "id": rid, "result": result}, pretty="pretty-ping" in self.breaks
                   and msg["method"] == "ping" and self.phase == "operating")
        self.after(msg["method"], msg.get("params") or {})

    def after(self, method: str, params: dict[str, Any]) -> None:
        """Things a broken server does once it has answered."""
        declared = params.get("capabilities") if isinstance(params.get("capabilities"), dict) else {}
        if method == "initialize" and "request-before-initialized" in self.breaks and "roots" in declared:
            self.write({"jsonrpc": "2.0", "id": "early", "method": "roots/list"})
        if method == "logging/setLevel" and "log-flood" in self.breaks:
            for i in range(300):
                self.write({"jsonrpc": "2.0", "method": "notifications/message",
                            "params": {"level": "emergency", "data": f"flood {i}"}})
        if method == "logging/setLevel" and "log-below-level" in self.breaks:
            self.write({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "debug", "data": "x"}})
        meta = params.get("_meta") if isinstance(params, dict) else None
        if method == "ping" and "progress-after-response" in self.breaks and isinstance(meta, dict) and "progressToken" in meta:
            self.write({"jsonrpc": "2.0", "method": "notifications/progress",
                        "params": {"progressToken": meta["progressToken"], "progress": 1}})

    @staticmethod
    def invalid(msg: Any) -> bool:
        """Not a JSON-RPC 2.0 message: not an object, no "jsonrpc": "2.0", no string method and no
        result or error, params that are not an object, a request id that is not a string or integer."""
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
            return True
        if "method" not in msg:
            return not ("result" in msg or "error" in msg)
        if not isinstance(msg["method"], str) or not isinstance(msg.get("params", {}), dict):
            return True
        return "id" in msg and not valid_id(msg["id"])

    def on_notification(self, method: str, params: dict[str, Any]) -> None:
        if "answers-every-notification" in self.breaks:  # what a server that never asks "is there an id?" does
            self.write({"jsonrpc": "2.0", "id": None, "error": {"code": -32601, "message": f"Method not found: {method}"}})
        if method == "notifications/initialized" and self.phase == "initializing":
            self.phase = "operating"
            if "reuse-request-id" in self.breaks:
                for _ in range(2):
                    self.write({"jsonrpc": "2.0", "id": "server-ping", "method": "ping"})
            if "roots-request" in self.breaks:
                self.write({"jsonrpc": "2.0", "id": "server-roots", "method": "roots/list"})
            if "undeclared-list-changed" in self.breaks:
                self.write({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            if "elicitation-request" in self.breaks:
                self.write({"jsonrpc": "2.0", "id": "server-elicit", "method": "elicitation/create",
                            "params": {"message": "Your name?", "requestedSchema": {"type": "object", "properties": {}}}})
        elif method == "notifications/cancelled":
            target = params.get("requestId") if isinstance(params, dict) else None
            self.cancelled.add(repr(target))
            if "answer-cancelled" in self.breaks and repr(target) in self.running:  # what the SDKs' servers do
                self.write({"jsonrpc": "2.0", "id": target, "error": {"code": -32800, "message": "Request cancelled"}})
            if "crash-on-unknown-cancel" in self.breaks and isinstance(target, (str, int)) and repr(target) not in self.seen_ids:
                sys.exit(3)
        elif "answers-notifications" in self.breaks:
            self.write({"jsonrpc": "2.0", "id": "notification", "error": {"code": -32601, "message": "no"}})

    def on_request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "ping":
            if self.phase == "new" and "ping-before-init-error" in self.breaks:
                raise Invalid(-32600, "initialize first")
            if self.phase == "operating" and "no-ping" in self.breaks:
                raise Invalid(-32601, "no ping here")
            return {}
        if method == "initialize":
            if self.phase != "new":
                raise Invalid(-32600, "already initialized")
            version = params.get("protocolVersion")
            self.phase = "initializing"
            chosen = version if "echo-version" in self.breaks else "2024-11-05"
            return {"protocolVersion": chosen, "capabilities": self.capabilities(),
                    "serverInfo": {"name": "broken-server", "version": "1.0"}}
        handler = getattr(self, "do_" + method.replace("/", "_"), None)
        if handler is None:
            raise Invalid(-32602 if "unknown-method-32602" in self.breaks else -32601, f"Method not found: {method}")
        if self.phase != "operating" and "serve-before-init" not in self.breaks:
            raise Invalid(-32600, f"{method} before initialization")
        result: dict[str, Any] = handler(params)
        return result

    # --- pagination: one item per page ---------------------------------------------------------

    def page(self, items: list[dict[str, Any]], key: str, params: dict[str, Any]) -> dict[str, Any]:
        cursor = params.get("cursor")
        index = 0
        if cursor is not None:
            valid = [f"page-{key}-{i}" for i in range(1, len(items))]
            if cursor not in valid:
                if "bad-cursor-ok" not in self.breaks:
                    raise Invalid(-32602, f"unknown cursor {cursor!r}")
            else:
                index = int(cursor.rsplit("-", 1)[1])
        result: dict[str, Any] = {key: items[index:index + 1]}
        if index + 1 < len(items):
            result["nextCursor"] = f"page-{key}-{index + 1}"
        elif "looping-cursor" in self.breaks:
            result["nextCursor"] = f"page-{key}-1"
        return result

    # --- tools ---------------------------------------------------------------------------------

    def do_tools_list(self, params: dict[str, Any]) -> dict[str, Any]:
        stuck = [{"name": "stuck", "inputSchema": {"type": "object"}}] if "stuck-tool" in self.breaks else []
        return self.page(stuck + TOOLS, "tools", params)

    def do_tools_call(self, params: dict[str, Any]) -> dict[str, Any]:
        name = params.get("name")
        if not isinstance(name, str):
            if "tool-without-name-ok" in self.breaks:
                return {"content": []}
            raise Invalid(-32602, "tools/call needs a name")
        arguments = params.get("arguments", {})
        if name == "stuck" and "stuck-tool" in self.breaks:
            raise Deferred()  # never answered
        if name == "slow":
            token = (params.get("_meta") or {}).get("progressToken")
            threading.Thread(target=self.slow, args=(self.rid, token), daemon=True).start()
            raise Deferred()
        if name not in ("echo", "count"):
            if "unknown-tool-iserror" in self.breaks:
                return {"content": [{"type": "text", "text": "no such tool"}], "isError": True}
            raise Invalid(-32602, f"Unknown tool: {name}")
        if not isinstance(arguments, dict) or (name == "echo" and not isinstance(arguments.get("text"), str)):
            raise Invalid(-32602, "Invalid arguments")
        if name == "count":
            token = (params.get("_meta") or {}).get("progressToken")
            for step in range(1, 4):
                if token is not None:
                    self.write({"jsonrpc": "2.0", "method": "notifications/progress",
                                "params": {"progressToken": token, "progress": step, "total": 3}})
            return {"content": [{"type": "text", "text": "3"}]}
        if "resource-link" in self.breaks:
            return {"content": [{"type": "text", "text": arguments["text"]},
                                {"type": "resource_link", "uri": "test://text", "name": "text"}]}
        return {"content": [{"type": "text", "text": arguments["text"]}]}

    def slow(self, rid: Any, token: Any) -> None:
        """The slow tool: four steps of 0.3 s, each with progress; a cancellation stops it."""
        self.running.add(repr(rid))
        for step in range(1, 5):
            time.sleep(0.3)
            if repr(rid) in self.cancelled and "ignore-cancel" not in self.breaks:
                self.running.discard(repr(rid))
                return
            if token is not None:
                self.write({"jsonrpc": "2.0", "method": "notifications/progress",
                            "params": {"progressToken": token, "progress": step, "total": 4}})
        self.running.discard(repr(rid))
        self.write({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "done"}]}})

    # --- resources -----------------------------------------------------------------------------

    def do_resources_list(self, params: dict[str, Any]) -> dict[str, Any]:
        return self.page(RESOURCES, "resources", params)

    def do_resources_templates_list(self, params: dict[str, Any]) -> dict[str, Any]:
        return self.page(TEMPLATES, "resourceTemplates", params)

    def do_resources_read(self, params: dict[str, Any]) -> dict[str, Any]:
        uri = params.get("uri")
        if not isinstance(uri, str):
            if "read-without-uri-ok" in self.breaks:
                return {"contents": []}
            raise Invalid(-32602, "resources/read needs a uri")
        if uri == "test://text":
            return {"contents": [{"uri": uri, "mimeType": "text/plain", "text": "hello"}]}
        if uri == "test://blob":
            blob = "not base64!" if "bad-blob" in self.breaks else base64.b64encode(b"\x00\x01").decode()
            return {"contents": [{"uri": uri, "mimeType": "application/octet-stream", "blob": blob}]}
        if uri.startswith("test://items/"):
            return {"contents": [{"uri": uri, "text": uri}]}
        raise Invalid(-32602 if "unknown-resource-32602" in self.breaks else -32002, f"Resource not found: {uri}")

    def do_resources_subscribe(self, params: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(params.get("uri"), str):
            raise Invalid(-32602, "needs a uri")
        if "sampling-then-fail-subscribe" in self.breaks:
            self.pending_subscribe = self.rid
            self.write({"jsonrpc": "2.0", "id": "server-sampling", "method": "sampling/createMessage", "params": {
                "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}})
            raise Deferred()
        return {}

    def do_resources_unsubscribe(self, params: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(params.get("uri"), str):
            raise Invalid(-32602, "needs a uri")
        return {}

    # --- prompts -------------------------------------------------------------------------------

    def do_prompts_list(self, params: dict[str, Any]) -> dict[str, Any]:
        return self.page(PROMPTS, "prompts", params)

    def do_prompts_get(self, params: dict[str, Any]) -> dict[str, Any]:
        name = params.get("name")
        arguments = params.get("arguments") or {}
        if name == "greet":
            if not isinstance(arguments.get("name"), str) and "prompt-missing-argument-ok" not in self.breaks:
                raise Invalid(-32602, "greet needs a name")
            return {"messages": [{"role": "user", "content": {"type": "text", "text": f"Hello {arguments.get('name')}"}}]}
        if name == "embed":
            resource = {"uri": "test://text", "mimeType": "text/plain", "text": "hello"}
            if "embedded-without-mime-type" in self.breaks:
                del resource["mimeType"]
            return {"messages": [{"role": "user", "content": {"type": "resource", "resource": resource}}]}
        raise Invalid("-32602" if "string-error-code" in self.breaks else -32602, f"Unknown prompt: {name}")

    # --- logging and completion ----------------------------------------------------------------

    def do_logging_setLevel(self, params: dict[str, Any]) -> dict[str, Any]:
        if params.get("level") not in LEVELS and "bad-log-level-ok" not in self.breaks:
            raise Invalid(-32602, f"unknown level {params.get('level')!r}")
        return {}

    def do_completion_complete(self, params: dict[str, Any]) -> dict[str, Any]:
        ref, argument = params.get("ref"), params.get("argument")
        template = TEMPLATES[0]["uriTemplate"]
        known = isinstance(ref, dict) and ((ref.get("type") == "ref/prompt" and ref.get("name") == "greet")
                                           or (ref.get("type") == "ref/resource" and ref.get("uri") == template))
        if not (known and isinstance(argument, dict)) and "completion-accepts-garbage" not in self.breaks:
            raise Invalid(-32602, "unknown reference or malformed argument")
        count = 101 if "too-many-completions" in self.breaks else 2
        return {"completion": {"values": [f"v{i}" for i in range(count)], "total": count, "hasMore": False}}


def main() -> int:
    breaks = set(sys.argv[sys.argv.index("--break") + 1].split(",")) if "--break" in sys.argv else set()
    unknown = breaks - set(BREAKS)
    if unknown:
        sys.stderr.write(f"unknown break(s): {', '.join(sorted(unknown))}; known: {', '.join(BREAKS)}\n")
        return 2
    if "slow-start" in breaks:
        state = Path(sys.argv[sys.argv.index("--state") + 1])
        if state.exists():
            time.sleep(10)  # every start after the first is slow: a loaded machine
        state.touch()
    if "stdout-banner" in breaks:
        print("broken-server 1.0 starting", flush=True)
    server = BrokenServer(breaks)
    if "--long-description" in sys.argv:
        TOOLS[0]["description"] = " ".join(f"word{i:04}" for i in range(667))  # 6,002 characters
    for line in sys.stdin.buffer:
        if line.strip():
            server.on_line(line)
    if "no-exit-on-eof" in breaks:
        time.sleep(60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
