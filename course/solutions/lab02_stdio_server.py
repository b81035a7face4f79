"""Lab 2, reference solution: an MCP server over stdio with nothing but the standard library.

Spec pages: basic/messages, basic/transports (stdio), basic/utilities/ping
https://modelcontextprotocol.io/specification/2024-11-05/basic/messages
https://modelcontextprotocol.io/specification/2024-11-05/basic/transports
https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/ping

What it does, in order, for every line that arrives on stdin:

1. Framing (TR-02): one line is one message; we write one compact line per answer, flushed at
   once, and nothing else ever goes to stdout (TR-04: logs go to stderr).
2. Parsing: a line that is not JSON is answered -32700 with "id": null.
3. Classification (MSG-01): a request has a string "method" and an id (a string or an integer,
   never null, never a bool); a notification has a method and no id; a response has an id and
   a result or an error. Anything else is answered -32600.
4. Notifications and responses are never answered (MSG-08).
5. Requests: an unknown method is -32601; a known one is answered with the request's id,
   exactly as it came (MSG-05), and either a result or an error, never both (MSG-06).
   A handler that crashes gives -32603, with a short message that leaks nothing.

Run it under the checker:
    .venv/bin/mcp-ref check server --stdio ".venv/bin/python course/solutions/lab02_stdio_server.py" \
        --only basic/messages basic/utilities/ping basic/transports --strict
"""

import json
import sys
import traceback

PROTOCOL_VERSION = "2024-11-05"

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


def log(*parts):
    """Everything for a human goes to stderr: stdout carries protocol messages only (TR-04)."""
    print(*parts, file=sys.stderr, flush=True)


def write(message):
    """One message, one line (TR-02): compact JSON, strict (no NaN), UTF-8, flushed now."""
    line = json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    sys.stdout.buffer.write(line.encode("utf-8") + b"\n")
    sys.stdout.buffer.flush()


def error(request_id, code, message):
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def is_valid_id(value):
    """A request id is a string or an integer. bool is an int in Python, but not in JSON."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


# --- the methods this server has ------------------------------------------------------------------


def initialize(params):
    # Lab 3 does this properly (version negotiation, LC-12); here: a fixed answer.
    return {"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
            "serverInfo": {"name": "lab02-server", "version": "1.0"}}


def ping(params):
    return {}  # PING-01: an empty result, at once


METHODS = {"initialize": initialize, "ping": ping}


# --- classification -------------------------------------------------------------------------------


class InvalidMessage(Exception):
    """Valid JSON, but not a JSON-RPC 2.0 message: answered -32600."""

    def __init__(self, reason, request_id=None):
        super().__init__(reason)
        self.request_id = request_id


def classify(message):
    """Return "request", "notification" or "response", or raise InvalidMessage."""
    if not isinstance(message, dict):  # 2024-11-05 has no batches: an array is invalid too
        raise InvalidMessage("expected a JSON object")
    readable_id = message.get("id") if is_valid_id(message.get("id")) else None
    if message.get("jsonrpc") != "2.0":
        raise InvalidMessage('"jsonrpc" must be "2.0"', readable_id)
    if "method" in message:
        if not isinstance(message["method"], str):
            raise InvalidMessage('"method" must be a string', readable_id)
        if "params" in message and not isinstance(message["params"], dict):
            raise InvalidMessage('"params" must be an object', readable_id)
        if "id" not in message:
            return "notification"
        if readable_id is None:
            raise InvalidMessage('"id" must be a string or an integer')
        return "request"
    if "id" in message and ("result" in message or "error" in message):
        return "response"
    raise InvalidMessage('not a request, a notification or a response', readable_id)


def handle_line(line):
    """The answer to one line, or None when nothing is to be sent back."""
    try:
        message = json.loads(line)
    except ValueError:  # not JSON, or not UTF-8 (UnicodeDecodeError is a ValueError)
        return error(None, PARSE_ERROR, "Parse error: the line is not JSON")
    try:
        kind = classify(message)
    except InvalidMessage as exc:
        return error(exc.request_id, INVALID_REQUEST, f"Invalid Request: {exc}")
    if kind != "request":
        return None  # notifications and responses are never answered (MSG-08)
    request_id, method = message["id"], message["method"]
    handler = METHODS.get(method)
    if handler is None:
        return error(request_id, METHOD_NOT_FOUND, f"Method not found: {method}")
    try:
        return {"jsonrpc": "2.0", "id": request_id, "result": handler(message.get("params", {}))}
    except Exception:
        log(traceback.format_exc())
        return error(request_id, INTERNAL_ERROR, "Internal error")


def main():
    log("lab02 server: reading JSON-RPC lines on stdin")
    for line in sys.stdin.buffer:  # splits on b"\n" only; ends when stdin closes
        if not line.strip():
            continue
        reply = handle_line(line)
        if reply is not None:
            write(reply)


if __name__ == "__main__":
    main()
