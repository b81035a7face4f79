"""Lab 3, reference solution: the lifecycle, on the standard-library server of lab 2.

Spec page: basic/lifecycle
https://modelcontextprotocol.io/specification/2024-11-05/basic/lifecycle

What this lab adds to lab 2, in order:

1. Version negotiation (LC-12, VER-01): the client proposes a protocolVersion; if we support
   it we answer with it, otherwise with our newest. Never echo a version we do not speak.
2. The initialize result (LC-07, LC-03): protocolVersion, the capabilities we really have
   (here: tools), and serverInfo with a name and a version.
3. The phase gate (LC-01): before initialize only initialize and ping are served; any other
   known method gets -32600 saying "send initialize first". A second initialize is refused too.
   Unknown methods stay -32601 in every phase.
4. notifications/initialized moves the connection to "operating" (LC-08). Until then a server
   sends the client no request but ping (LC-10); this one never sends requests at all.
5. When stdin closes, the loop ends and the process exits (LC-16: the client's polite shutdown).

Run it under the checker:
    .venv/bin/mcp-ref check server --stdio ".venv/bin/python course/solutions/lab03_lifecycle.py" \
        --only basic/lifecycle basic/utilities/ping LC-16 --strict
"""

import json
import sys
import traceback

SUPPORTED_VERSIONS = ["2024-11-05"]  # newest first

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

# --- from lab 2: framing and classification -------------------------------------------------------


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def write(message):
    line = json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    sys.stdout.buffer.write(line.encode("utf-8") + b"\n")
    sys.stdout.buffer.flush()


def error(request_id, code, message, data=None):
    body = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": body}


class JsonRpcError(Exception):
    """Raised by a handler (or the gate) to answer with an error."""

    def __init__(self, code, message, request_id=None, data=None):
        super().__init__(message)
        self.code = code
        self.request_id = request_id
        self.data = data


def is_valid_id(value):
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def classify(message):
    if not isinstance(message, dict):
        raise JsonRpcError(INVALID_REQUEST, "Invalid Request: expected a JSON object")
    readable_id = message.get("id") if is_valid_id(message.get("id")) else None
    if message.get("jsonrpc") != "2.0":
        raise JsonRpcError(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', readable_id)
    if "method" in message:
        if not isinstance(message["method"], str):
            raise JsonRpcError(INVALID_REQUEST, 'Invalid Request: "method" must be a string', readable_id)
        if "params" in message and not isinstance(message["params"], dict):
            raise JsonRpcError(INVALID_REQUEST, 'Invalid Request: "params" must be an object', readable_id)
        if "id" not in message:
            return "notification"
        if readable_id is None:
            raise JsonRpcError(INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer')
        return "request"
    if "id" in message and ("result" in message or "error" in message):
        return "response"
    raise JsonRpcError(INVALID_REQUEST, "Invalid Request: not a request, notification or response", readable_id)


# --- new in lab 3: the lifecycle ------------------------------------------------------------------

# The phases of the one connection a stdio server has, and what each one serves.
AWAITING_INITIALIZE = "awaiting initialize"
AWAITING_INITIALIZED = "awaiting notifications/initialized"
OPERATING = "operating"
SERVED_BEFORE_INITIALIZE = {"initialize", "ping"}  # LC-01: ping is allowed at any time

connection = {"phase": AWAITING_INITIALIZE, "protocolVersion": None, "clientInfo": None}


def gate(method):
    """Refuse a known method the current phase does not serve (LC-01)."""
    if method == "initialize" and connection["phase"] != AWAITING_INITIALIZE:
        raise JsonRpcError(INVALID_REQUEST, "Invalid Request: initialize was already received")
    if connection["phase"] == AWAITING_INITIALIZE and method not in SERVED_BEFORE_INITIALIZE:
        raise JsonRpcError(INVALID_REQUEST, f"Invalid Request: {method} before initialize; send initialize first")


def negotiate_version(proposed):
    """LC-12: the client's version if we speak it, else our newest."""
    return proposed if proposed in SUPPORTED_VERSIONS else SUPPORTED_VERSIONS[0]


def initialize(params):
    proposed = params.get("protocolVersion")
    if not isinstance(proposed, str):
        raise JsonRpcError(INVALID_PARAMS, 'Invalid params: initialize needs "protocolVersion" (a string)')
    connection["protocolVersion"] = negotiate_version(proposed)
    connection["clientInfo"] = params.get("clientInfo")
    connection["phase"] = AWAITING_INITIALIZED
    return {
        "protocolVersion": connection["protocolVersion"],
        "capabilities": {"tools": {}},  # LC-02: what we really have, nothing more
        "serverInfo": {"name": "lab03-server", "version": "1.0"},  # LC-03, LC-07
        "instructions": "A course server: it echoes.",
    }


def on_initialized(params):
    if connection["phase"] == AWAITING_INITIALIZED:
        connection["phase"] = OPERATING  # LC-08: normal operation begins


# --- the methods ----------------------------------------------------------------------------------


def ping(params):
    return {}


ECHO = {"name": "echo", "description": "Say the text back.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}


def tools_list(params):
    return {"tools": [ECHO]}


def tools_call(params):
    # Lab 4 does tools properly (argument checks, isError); here: just enough to echo.
    text = str((params.get("arguments") or {}).get("text", ""))
    return {"content": [{"type": "text", "text": text}]}


METHODS = {"initialize": initialize, "ping": ping, "tools/list": tools_list, "tools/call": tools_call}
NOTIFICATIONS = {"notifications/initialized": on_initialized}


def notify(message):
    """Run a notification's handler, if we have one. Whatever happens, nothing is answered."""
    handler = NOTIFICATIONS.get(message["method"])
    try:
        if handler is not None:
            handler(message.get("params", {}))
    except Exception:
        log(traceback.format_exc())


def handle_line(line):
    try:
        message = json.loads(line)
    except ValueError:
        return error(None, PARSE_ERROR, "Parse error: the line is not JSON")
    request_id = None
    try:
        kind = classify(message)
        if kind == "notification":
            notify(message)
            return None
        if kind == "response":
            return None
        request_id, method = message["id"], message["method"]
        if method not in METHODS:
            raise JsonRpcError(METHOD_NOT_FOUND, f"Method not found: {method}")
        gate(method)
        return {"jsonrpc": "2.0", "id": request_id, "result": METHODS[method](message.get("params", {}))}
    except JsonRpcError as exc:
        return error(exc.request_id if request_id is None else request_id, exc.code, str(exc), exc.data)
    except Exception:
        log(traceback.format_exc())
        return error(request_id, INTERNAL_ERROR, "Internal error")


def main():
    for line in sys.stdin.buffer:
        if line.strip():
            reply = handle_line(line)
            if reply is not None:
                write(reply)
    # LC-16: stdin closed, the client is done with us: return, and the process exits.


if __name__ == "__main__":
    main()
