"""Lab 8 starter (optional): what changed, on the server of lab 4.

Labs 2 to 4 are given: this server speaks 2024-11-05 and serves five tools. Make it speak
2025-06-18 as well, and send what 2025-06-18 added (a tool's title and annotations, a structured
result with its outputSchema) to a client that agreed on 2025-06-18, and to no other. Fix the
TODOs, then grade it with the command of this lab's README.

Spec pages: basic/lifecycle and server/tools, of revisions 2024-11-05 and 2025-06-18
https://modelcontextprotocol.io/specification/2024-11-05/basic/lifecycle
https://modelcontextprotocol.io/specification/2025-06-18/server/tools
"""

import json
import sys
import traceback

# TODO 1 (LC-12): speak 2025-06-18 too, newest first. negotiate_version() below then answers a
#   client with its own version when we speak it; a 2024-11-05 client must still get 2024-11-05.
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
        "serverInfo": {"name": "lab08-server", "version": "1.0"},  # LC-03, LC-07
        "instructions": "A course server with five small tools.",
    }


def on_initialized(params):
    if connection["phase"] == AWAITING_INITIALIZED:
        connection["phase"] = OPERATING  # LC-08: normal operation begins


# --- from lab 4: tools ----------------------------------------------------------------------------

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


def word_count(text):
    """Its answer is JSON: the same object, in a session of 2025-06-18, is its structuredContent."""
    return json.dumps({"words": len(text.split()), "characters": len(text)})


# name -> (description, inputSchema, the function that runs it)
TOOLS = {
    "add": ("Add two integers.", {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
        "additionalProperties": False,
    }, add),
    "read_note": ("Read one of the server's notes.", {
        "type": "object",
        "properties": {"name": {"type": "string", "description": "the note's name, e.g. shopping"}},
        "required": ["name"],
        "additionalProperties": False,
    }, read_note),
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
    "word_count": ("Count the words and characters of a text; the answer is a JSON object.", {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
        "additionalProperties": False,
    }, word_count),
}

# --- new in lab 8: what 2025-06-18 added, for a client that agreed on it ------------------------

NEW_VERSION = "2025-06-18"

# What a tool may say beside its name from 2025-06-18 on: a title, for people, and annotations,
# hints about what it does (annotations came in 2025-03-26, title in 2025-06-18). name -> (title, annotations)
TITLES_AND_ANNOTATIONS = {
    "add": ("Add two integers", {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False}),
    "read_note": ("Read a note", {"readOnlyHint": True, "openWorldHint": False}),
    "shout": ("Shout a text", {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False}),
    "list_notes": ("List the notes", {"readOnlyHint": True, "openWorldHint": False}),
    "word_count": ("Count words", {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False}),
}

# The shape of a tool's structured result (2025-06-18, OUT-03): name -> its outputSchema.
# TODO 3 (OUT-03, OUT-01, LC-14): describe word_count's answer, {"words": 4, "characters": 26}, as
#   a JSON Schema of type "object" (both integers, both required).
OUTPUT_SCHEMAS = {}


def speaks_new_version():
    """Did this session agree on 2025-06-18? (LC-14: what a revision added goes only to a client
    that agreed on it; an older client may not know the fields, or may refuse them.)"""
    return connection["protocolVersion"] == NEW_VERSION

JSON_TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "object": dict, "array": list}


def fits(value, json_type):
    """Does ``value`` have this JSON Schema type? (bool is an int in Python, not in JSON.)"""
    if isinstance(value, bool):
        return json_type == "boolean"
    return isinstance(value, JSON_TYPES[json_type])


def schema_problem(arguments, schema):
    """The first way ``arguments`` break ``schema``, or None. Only the keywords our tools use."""
    properties = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in arguments:
            return f"missing required argument {name!r}"
    for name, value in arguments.items():
        if name not in properties:
            if schema.get("additionalProperties") is False:
                return f"unexpected argument {name!r}"
            continue
        rule = properties[name]
        if "type" in rule and not fits(value, rule["type"]):
            return f"argument {name!r} must be of type {rule['type']}"
        if "minimum" in rule and value < rule["minimum"]:
            return f"argument {name!r} must be at least {rule['minimum']}"
        if "maximum" in rule and value > rule["maximum"]:
            return f"argument {name!r} must be at most {rule['maximum']}"
    return None


def tools_list(params):
    tools = []
    for name, (description, schema, _) in TOOLS.items():
        tool = {"name": name, "description": description, "inputSchema": schema}
        # TODO 2 (LC-14): in a session of 2025-06-18 (speaks_new_version()), give the tool its
        #   "title" and "annotations" from TITLES_AND_ANNOTATIONS; in a session of 2024-11-05, neither.
        # TODO 3 (OUT-03, OUT-01, LC-14): in a session of 2025-06-18, a tool of OUTPUT_SCHEMAS gets
        #   its "outputSchema" too.
        tools.append(tool)
    return {"tools": tools}


def tools_call(params):
    # 1. Protocol errors: the request itself is wrong, nothing runs (TOOL-08, TOOL-18).
    name = params.get("name")
    if not isinstance(name, str):
        raise JsonRpcError(INVALID_PARAMS, 'Invalid params: tools/call needs "name" (a string)')
    if name not in TOOLS:
        raise JsonRpcError(INVALID_PARAMS, f"Invalid params: unknown tool {name!r}")
    arguments = params.get("arguments", {})
    if not isinstance(arguments, dict):
        raise JsonRpcError(INVALID_PARAMS, 'Invalid params: "arguments" must be an object')
    _, schema, run = TOOLS[name]
    problem = schema_problem(arguments, schema)
    if problem is not None:
        raise JsonRpcError(INVALID_PARAMS, f"Invalid params: {name}: {problem}")
    # 2. The tool runs. If it fails, that is a result with isError, for the model to read (TOOL-17).
    try:
        text = run(**arguments)
    except Exception as exc:
        log(f"tool {name} failed: {exc!r}")
        return {"content": [{"type": "text", "text": f"{name} failed: {exc}"}], "isError": True}
    result = {"content": [{"type": "text", "text": text}]}
    # TODO 3 (OUT-03, OUT-01, LC-14): in a session of 2025-06-18, the result of a tool of
    #   OUTPUT_SCHEMAS carries "structuredContent": the object its text holds, which must fit the
    #   outputSchema. Keep the text item: a client that reads only "content" still gets the JSON.
    return result


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
