"""Lab 4 starter: tools, on the standard-library server of labs 2 and 3.

The JSON-RPC layer (lab 2) and the lifecycle (lab 3) are given. The tools below work when
everything goes well, but tools/call treats every problem the same way, as a failed tool.
Fix the TODOs, then run the check from this lab's README until it passes.

Spec page: server/tools
https://modelcontextprotocol.io/specification/2024-11-05/server/tools
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
        "capabilities": {"tools": {}},  # LC-02: what we really have, nothing more
        "serverInfo": {"name": "lab04-server", "version": "1.0"},  # LC-03, LC-07
        "instructions": "A course server with four small tools.",
    }


def on_initialized(params):
    if connection["phase"] == AWAITING_INITIALIZED:
        connection["phase"] = OPERATING  # LC-08: normal operation begins


# --- new in lab 4: tools --------------------------------------------------------------------------

NOTES = {"shopping": "eggs, flour, milk", "mcp": "a protocol between models and the tools they use"}


def add(a, b):
    return str(a + b)


def read_note(name):
    if name not in NOTES:
        raise LookupError(f"there is no note called {name!r}; try one of {sorted(NOTES)}")
    return NOTES[name]


def shout(text, times=1):
    return " ".join([text.upper()] * times)


def list_notes():
    return ", ".join(sorted(NOTES))


# name -> (description, inputSchema, the function that runs it)
TOOLS = {
    "add": ("Add two integers.", {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
        "additionalProperties": False,
    }, add),
    # TODO 1 (TOOL-05): every tool needs an inputSchema of type "object" that describes its
    #   arguments. read_note takes one, "name", a string, and cannot run without it.
    "read_note": ("Read one of the server's notes.", {}, read_note),
    "shout": ("Repeat a text in capitals.", {
        "type": "object",
        "properties": {"text": {"type": "string"}, "times": {"type": "integer", "minimum": 1, "maximum": 10}},
        "required": ["text"],
        "additionalProperties": False,
    }, shout),
    "list_notes": ("The names of the server's notes.", {  # no argument at all: "arguments" may be left out
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }, list_notes),
}

JSON_TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "object": dict, "array": list}


def fits(value, json_type):
    """Does ``value`` have this JSON Schema type? (bool is an int in Python, not in JSON.)"""
    if isinstance(value, bool):
        return json_type == "boolean"
    return isinstance(value, JSON_TYPES[json_type])


def schema_problem(arguments, schema):
    """The first way ``arguments`` break ``schema``, or None. Only the keywords our tools use."""
    # TODO 3 (TOOL-08): find the problems: a required argument missing, an argument of the wrong
    #   type (use fits()), an argument the schema does not know ("additionalProperties": false),
    #   a number outside "minimum"/"maximum". Return a short text naming the argument.
    return None


def tools_list(params):
    return {"tools": [{"name": name, "description": description, "inputSchema": schema}
                      for name, (description, schema, _) in TOOLS.items()]}


def tools_call(params):
    # TODO 2 (TOOL-08, TOOL-18): a request that is wrong in itself is a protocol error, not a
    #   failed tool: a missing or non-string "name", a tool we do not have, "arguments" that are
    #   not an object (left out, they are no arguments: {}). Answer each with
    #   raise JsonRpcError(INVALID_PARAMS, "..."), before anything runs.
    # TODO 3 (TOOL-08): then check the arguments against the tool's inputSchema (schema_problem
    #   above) and answer -32602 naming the problem.
    # TODO 4 (TOOL-17): what is left, a failure while the tool runs, is a result with
    #   "isError": true. Keep the try/except below for that, and only for that.
    name = params.get("name")
    try:
        _, schema, run = TOOLS[name]
        text = run(**params.get("arguments", {}))
    except Exception as exc:
        log(f"tool {name} failed: {exc!r}")
        return {"content": [{"type": "text", "text": f"{name} failed: {exc}"}], "isError": True}
    return {"content": [{"type": "text", "text": text}]}


# --- the dispatch table and the loop --------------------------------------------------------------


def ping(params):
    return {}


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
