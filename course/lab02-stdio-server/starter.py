"""Lab 2 starter: an MCP server over stdio with nothing but the standard library.

It runs, and it even answers initialize and ping, but it gets JSON-RPC wrong in five places.
Fix each TODO, then run the check from this lab's README until it passes.

Spec pages: basic/messages, basic/transports (stdio), basic/utilities/ping
https://modelcontextprotocol.io/specification/2024-11-05/basic/messages
https://modelcontextprotocol.io/specification/2024-11-05/basic/transports
https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/ping
"""

import json
import sys
import traceback

PROTOCOL_VERSION = "2024-11-05"

# The JSON-RPC error codes you will need.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


def log(*parts):
    """Print for a human: on stderr."""
    print(*parts, file=sys.stderr, flush=True)


def write(message):
    """Send one message: compact JSON on one line, UTF-8, flushed at once (TR-02)."""
    line = json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    sys.stdout.buffer.write(line.encode("utf-8") + b"\n")
    sys.stdout.buffer.flush()


def error(request_id, code, message):
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


# --- the methods this server has ------------------------------------------------------------------


def initialize(params):
    # Lab 3 does this properly; for now, a fixed answer.
    return {"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
            "serverInfo": {"name": "lab02-server", "version": "1.0"}}


def ping(params):
    return {}


METHODS = {"initialize": initialize, "ping": ping}


# --- one line in, at most one message out ---------------------------------------------------------


def handle_line(line):
    """The answer to one line, or None when nothing is to be sent back."""
    # TODO 2 (MSG-01): a line that is not JSON (bytes that are not UTF-8 included) must be
    #   answered with error -32700 and "id": null. Today json.loads raises, and main()'s safety
    #   net answers -32603: the wrong code. (JSON with whitespace around it is fine JSON.)
    message = json.loads(line)

    # TODO 3 (MSG-01, MSG-02, MSG-05): check the envelope before trusting it. Valid JSON that is
    #   not a JSON-RPC 2.0 message (not an object, "jsonrpc" missing or not exactly "2.0", no
    #   "method" and no result/error, a method that is not a string, params that are not an
    #   object, an id that is neither a string nor an integer) is answered -32600, with the
    #   message's id if you can read one, else null. Careful: True is an int in Python, but not
    #   an id in JSON; and 0 is an id like any other.

    # TODO 4 (MSG-01, MSG-08): a notification (a method and no "id", whatever the method's
    #   name) is never answered, and neither is a response (an "id" with "result" or "error").
    #   Return None for both.

    request_id = message.get("id")
    try:
        # TODO 5 (MSG-01): an unknown method is error -32601 (Method not found). Today
        #   METHODS[...] raises KeyError, and the except below answers -32603.
        handler = METHODS[message["method"]]
        return {"jsonrpc": "2.0", "id": request_id, "result": handler(message.get("params", {}))}
    except Exception:  # a handler that crashes: -32603, and a message that leaks nothing
        log(traceback.format_exc())
        return error(request_id, INTERNAL_ERROR, "Internal error")


def main():
    print("lab02 server: ready", flush=True)  # TODO 1 (TR-04): stdout is for protocol messages only.
    for line in sys.stdin.buffer:  # splits on b"\n" only; the loop ends when stdin closes
        if not line.strip():
            continue
        try:
            reply = handle_line(line)
        except Exception:  # a safety net: whatever goes wrong, the client gets an answer
            log(traceback.format_exc())
            reply = error(None, INTERNAL_ERROR, "Internal error")
        if reply is not None:
            write(reply)


if __name__ == "__main__":
    main()
