"""Lab 3 starter: the lifecycle, on the standard-library server of lab 2.

The JSON-RPC layer from lab 2 is given (it is the reference solution of lab 2). The lifecycle
below runs, but badly: see the TODOs on version negotiation, the initialize result and the
phase gate. Fix them, then run the check from this lab's README until it passes.

Spec page: basic/lifecycle
https://modelcontextprotocol.io/specification/2024-11-05/basic/lifecycle
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
    # TODO 3 (LC-01, PING-01, MSG-01): before initialize, serve only initialize and ping: raise
    #   JsonRpcError(INVALID_REQUEST, ...) for anything else, with a message that says what to
    #   send first. Today every method is served in every phase.
    # TODO 4 (not checked by the kit): refuse a second initialize the same way.


def negotiate_version(proposed):
    """The protocol version this connection will use."""
    # TODO 1 (LC-12): answer the client's version only if it is one of SUPPORTED_VERSIONS;
    #   otherwise answer our newest. Today we echo whatever the client proposed.
    return proposed


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
        # TODO 2 (LC-07, LC-03): serverInfo needs a name and a version (strings).
        "serverInfo": {"name": "lab03-server"},
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
