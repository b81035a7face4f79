"""Lab 5, reference solution: resources, templates and subscriptions, with the standard library.

Spec page: server/resources
https://modelcontextprotocol.io/specification/2024-11-05/server/resources

What this lab adds to the server of labs 2 and 3, in order:

1. The server declares resources, with subscribe (RES-01, AR-03), and lists them: each has a
   URI with a scheme, a name, and a MIME type.
2. resources/read answers {"contents": [...]}: text as "text"; anything binary as "blob", the
   bytes in base64 (RES-10, RES-15). A URI that is missing or not a string is -32602 (RES-08);
   a URI we do not have is -32002, with the URI in "data" (RES-06).
3. resources/templates/list lists URI templates (here notes://{name}); reading a URI that
   matches a template works like reading a listed resource.
4. resources/subscribe and resources/unsubscribe remember which URIs the client wants to hear
   about and answer {}. The clock thread, started when the client says initialized, changes
   clock://now at once and then every second, and sends notifications/resources/updated for it
   only while the client is subscribed (RES-13).
   Two threads now write to stdout, so write() takes a lock: one message, one whole line.

Run it under the checker:
    .venv/bin/mcp-ref check server --stdio ".venv/bin/python course/solutions/lab05_resources.py" \
        --only server/resources --strict
"""

import base64
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
    """One item of a read result: text stays text, bytes go in base64 (RES-10, RES-15)."""
    if isinstance(data, bytes):
        return {"uri": uri, "mimeType": mime_type, "blob": base64.b64encode(data).decode("ascii")}
    return {"uri": uri, "mimeType": mime_type, "text": data}


def resources_list(params):
    return {"resources": [{"uri": uri, "name": name, "mimeType": mime_type}
                          for uri, (name, mime_type, _) in RESOURCES.items()]}


def templates_list(params):
    return {"resourceTemplates": [{"uriTemplate": template, "name": name, "mimeType": mime_type}
                                  for template, (name, mime_type, _) in TEMPLATES.items()]}


def required_uri(params):
    uri = params.get("uri")
    if not isinstance(uri, str):  # RES-08: validate before acting on it
        raise JsonRpcError(INVALID_PARAMS, 'Invalid params: "uri" must be a string')
    return uri


def resources_read(params):
    uri = required_uri(params)
    if uri in RESOURCES:
        _, mime_type, read = RESOURCES[uri]
        return {"contents": [contents(uri, mime_type, read())]}
    for template, (_, mime_type, read) in TEMPLATES.items():
        variables = match(template, uri)
        if variables is not None:
            try:
                return {"contents": [contents(uri, mime_type, read(**variables))]}
            except KeyError:
                break  # the template matches, but there is no such note
    raise JsonRpcError(RESOURCE_NOT_FOUND, f"Resource not found: {uri}", data={"uri": uri})  # RES-06


subscriptions = set()  # the URIs the client subscribed to


def subscribe(params):
    uri = required_uri(params)
    if uri not in RESOURCES:
        raise JsonRpcError(RESOURCE_NOT_FOUND, f"Resource not found: {uri}", data={"uri": uri})
    subscriptions.add(uri)
    return {}


def unsubscribe(params):
    subscriptions.discard(required_uri(params))
    return {}


def clock():
    """clock://now changes now, and then every second: tell the client, if it asked to hear about it (RES-13)."""
    while True:
        if "clock://now" in subscriptions:
            write({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "clock://now"}})
        time.sleep(1)


# --- the dispatch table and the loop --------------------------------------------------------------


def ping(params):
    return {}


METHODS = {
    "initialize": initialize, "ping": ping,
    "resources/list": resources_list, "resources/templates/list": templates_list, "resources/read": resources_read,
    "resources/subscribe": subscribe, "resources/unsubscribe": unsubscribe,
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
