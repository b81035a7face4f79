"""Lab 5 starter: resources, templates and subscriptions, with the standard library.

The JSON-RPC layer (lab 2) and the lifecycle (lab 3) are given. The server lists its
resources and reads the easy ones; the rest is yours: binary contents, errors, templates and
subscriptions. Fix the TODOs, then run the check from this lab's README until it passes.

Spec page: server/resources
https://modelcontextprotocol.io/specification/2024-11-05/server/resources
"""

import datetime
import json
import re
import sys
import threading
import time
import traceback

SUPPORTED_VERSIONS = ["2024-11-05"]  # newest first

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
RESOURCE_NOT_FOUND = -32002  # MCP's own code (RES-06)

# --- from lab 2: framing and classification -------------------------------------------------------


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


WRITE_LOCK = threading.Lock()  # new in lab 5: the clock thread writes too; lines must not mix


def write(message):
    line = json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    with WRITE_LOCK:
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


# --- from lab 3: the lifecycle --------------------------------------------------------------------

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
        "capabilities": {"resources": {"subscribe": True}},  # LC-02, RES-01: what we really have
        "serverInfo": {"name": "lab05-server", "version": "1.0"},  # LC-03, LC-07
        "instructions": "A course server with notes, a clock and some bytes to read.",
    }


def on_initialized(params):
    if connection["phase"] == AWAITING_INITIALIZED:
        connection["phase"] = OPERATING  # LC-08: normal operation begins
        threading.Thread(target=clock, daemon=True).start()  # new in lab 5: the clock starts with the session


# --- new in lab 5: resources ----------------------------------------------------------------------

NOTES = {"shopping": "eggs, flour, milk", "mcp": "a protocol between models and the tools they use"}


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


# uri -> (name, mimeType, a function returning str for text or bytes for binary)
RESOURCES = {
    "notes://shopping": ("shopping list", "text/plain", lambda: NOTES["shopping"]),
    "notes://mcp": ("what MCP is", "text/plain", lambda: NOTES["mcp"]),
    "clock://now": ("the time, changing every second", "text/plain", now),
    "data://bytes": ("every byte value, 0 to 255", "application/octet-stream", lambda: bytes(range(256))),
}

# uriTemplate -> (name, mimeType, a function of the template's variables)
TEMPLATES = {
    "notes://{name}": ("a note, by name", "text/plain", lambda name: NOTES[name]),
}


def match(template, uri):
    """The variables if ``uri`` matches ``template`` (simple {name} parts, no slashes), else None."""
    parts = re.split(r"\{(\w+)\}", template)  # literal, variable, literal, ...
    pattern = "".join(re.escape(part) if i % 2 == 0 else f"(?P<{part}>[^/]+)" for i, part in enumerate(parts))
    found = re.fullmatch(pattern, uri)
    return found.groupdict() if found else None


def contents(uri, mime_type, data):
    """One item of a read result."""
    if isinstance(data, bytes):
        # TODO 1 (RES-10, RES-15): a blob is the bytes in base64, as ASCII text (import base64;
        #   base64.b64encode). str(data) is Python's b'\x00\x01...' spelling, which no client
        #   can decode.
        return {"uri": uri, "mimeType": mime_type, "blob": str(data)}
    return {"uri": uri, "mimeType": mime_type, "text": data}


def resources_list(params):
    return {"resources": [{"uri": uri, "name": name, "mimeType": mime_type}
                          for uri, (name, mime_type, _) in RESOURCES.items()]}


# TODO 3 (RES-01): resources/templates/list, answering {"resourceTemplates": [...]} built from
#   TEMPLATES (each with uriTemplate, name and mimeType). Add it to METHODS below.


def resources_read(params):
    # TODO 2 (RES-08, RES-06): check that "uri" is a string (else -32602), and answer a URI we
    #   do not have with error -32002 (RESOURCE_NOT_FOUND) and {"uri": ...} as its data. Today a
    #   missing resource raises KeyError, which the dispatcher answers -32603.
    # TODO 3: a URI that matches a template (use match()) is read through TEMPLATES.
    uri = params["uri"]
    _, mime_type, read = RESOURCES[uri]
    return {"contents": [contents(uri, mime_type, read())]}


subscriptions = set()  # the URIs the client subscribed to

# TODO 4 (RES-01, AR-03): initialize promises "subscribe": true, so serve resources/subscribe
#   (remember the URI, answer {}) and resources/unsubscribe (forget it, answer {}).


def clock():
    """clock://now changes now, and then every second."""
    while True:
        # TODO 5 (RES-13): send this only while the client is subscribed to clock://now.
        write({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "clock://now"}})
        time.sleep(1)


# --- the dispatch table and the loop --------------------------------------------------------------


def ping(params):
    return {}


METHODS = {
    "initialize": initialize, "ping": ping,
    "resources/list": resources_list, "resources/read": resources_read,
}
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
