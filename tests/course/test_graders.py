"""The course's graders catch the wrong solutions a learner plausibly writes (mutation testing of the graders).

Not a spec page: the course teaches the pages its labs name (course/README.md). For each lab,
``WRONG`` lists plausible wrong solutions: the reference solution in course/solutions/ with one
TODO undone, or done the hasty way. Each is graded exactly as a learner's file is (course/grade.py
runs the lab README's command on it, then the lab's own lessons of course/lessons.py: real
processes, the learner's program, the kit and the lessons' client) and must fail naming the
requirement ID of its TODO; the grade must also point at that TODO. A lab is done when no such
wrong solution passes. What the kit alone cannot fail in every server (a lab 3 server that stays
after its stdin closes; a lab 4 server that takes true for an integer, refuses bad arguments with
an isError result, or returns a tool's failure without isError) its lab's lessons fail.

``NOT_GRADED`` lists the TODOs no 2024-11-05 rule lets the kit fail, each with the reason and
what a learner sees instead (a note, a person's check).

Run ``python -m tests.course.test_graders [LAB]`` to print each wrong solution's grade.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .test_labs import BY_NAME, grade, signature


@dataclass(frozen=True)
class Wrong:
    """A wrong solution: ``edits`` (old, new) applied to the reference solution, each ``old`` found once."""

    todo: int | None  # None: not a TODO's, the code the starter gives, rewritten the hasty way
    what: str  # what the learner did, in words
    edits: tuple[tuple[str, str], ...]
    fails_on: str  # the requirement ID its grade must name
    says: tuple[str, ...] = ()  # what the grade's findings must say, each in some finding (or in the reason)
    exit: int = 1  # 2: the kit could not even start a session; the grade shows why (its reason)
    rule: str = ""  # what the rule line of the finding on ``fails_on`` must say (the rule the case judged)
    alone: bool = False  # one mistake, one finding: no other case fails
    runs: int = 1  # copies graded at once, which must get the same grade (a verdict that once raced: 3)


def wrong(todo: int | None, what: str, fails_on: str, *edits: tuple[str, str], says: tuple[str, ...] = (),
          exit: int = 1, rule: str = "", alone: bool = False, runs: int = 1) -> Wrong:
    return Wrong(todo, what, edits, fails_on, says, exit, rule, alone, runs)


LAB1_CLOSE = '''        self.process.stdin.close()
        for stop in (None, self.process.terminate, self.process.kill):
            if stop is not None:
                stop()
            try:
                self.process.wait(timeout=2)
                return
            except subprocess.TimeoutExpired:
                continue'''
LAB2_DECODE_THEN_PARSE = ('''        message = json.loads(line)
    except ValueError:  # not JSON, or not UTF-8 (UnicodeDecodeError is a ValueError)''',
                          '''        message = json.loads(line.decode("utf-8"))
    except json.JSONDecodeError:''')
LAB2_SAFETY_NET = ('''        reply = handle_line(line)
        if reply is not None:''', '''        try:
            reply = handle_line(line)
        except Exception:  # a safety net, as in the starter
            reply = error(None, INTERNAL_ERROR, "Internal error")
        if reply is not None:''')
LAB2_BOOL_IS_AN_INT = ('''    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))''',
                       '''    return isinstance(value, str) or isinstance(value, int)''')
LAB2_ONE_IF = ('''    if not isinstance(message, dict):  # 2024-11-05 has no batches: an array is invalid too
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
    raise InvalidMessage('not a request, a notification or a response', readable_id)''',
              '''    if "method" not in message and "result" not in message and "error" not in message:
        raise InvalidMessage("not a request, a notification or a response", message.get("id"))
    if "method" not in message:
        return "response"
    return "request" if "id" in message else "notification"''')

LAB8_NEGOTIATE = '''    return proposed if proposed in SUPPORTED_VERSIONS else SUPPORTED_VERSIONS[0]'''
LAB8_ONLY_NEW = '''        if speaks_new_version():  # LC-14: only to a client that agreed on 2025-06-18'''
LAB8_STRUCTURED = ('''        result["structuredContent"] = json.loads(text)  '''
                   '''# OUT-03: the same object, which fits OUTPUT_SCHEMAS[name]''')
LAB4_FAILURE = '''        return {"content": [{"type": "text", "text": f"{name} failed: {exc}"}], "isError": True}'''
LAB4_REFUSAL = '''        raise JsonRpcError(INVALID_PARAMS, f"Invalid params: {name}: {problem}")'''

WRONG: dict[str, list[Wrong]] = {
    "lab01-json-rpc-by-hand": [
        wrong(1, "never says notifications/initialized", "LC-08",
              ('        server.notify("notifications/initialized")  # LC-08', "        pass")),
        wrong(1, "says initialized, without the notifications/ prefix", "LC-08",
              ('        server.notify("notifications/initialized")  # LC-08', '        server.notify("initialized")')),
        wrong(2, "never answers the server's requests", "PING-01",
              ('''        if "method" not in incoming or "id" not in incoming:
            return''', '''        return''')),
        wrong(2, "answers every request of the server with an empty result", "MSG-01",
              ('''        if incoming["method"] == "ping":''', '''        if True:''')),
        wrong(2, "answers every request of the server with -32601, ping too", "PING-01",
              ('''        if incoming["method"] == "ping":''', '''        if False:''')),
        wrong(2, "answers with its error code as a string", "MSG-07",
              ('''"error": {"code": -32601,''', '''"error": {"code": "-32601",''')),
        wrong(2, "answers the server's requests with their ids turned into strings", "MSG-05",
              ('''            self.send({"jsonrpc": "2.0", "id": incoming["id"], "result": {}})  # PING-01
        else:
            self.send({"jsonrpc": "2.0", "id": incoming["id"],''',
               '''            self.send({"jsonrpc": "2.0", "id": str(incoming["id"]), "result": {}})  # PING-01
        else:
            self.send({"jsonrpc": "2.0", "id": str(incoming["id"]),''')),
        wrong(1, "sends notifications/initialized as a request, with an id", "MSG-08",
              ('        server.notify("notifications/initialized")  # LC-08',
               '        server.request("notifications/initialized")')),
        wrong(1, "sends notifications/initialized before the initialize result", "LC-01",
              ('''        reply = server.request("initialize", {''', '''        server.notify("notifications/initialized")
        reply = server.request("initialize", {'''), ('        server.notify("notifications/initialized")  # LC-08', "")),
        wrong(2, "answers a ping under a new id of its own", "PING-01",
              ('''            self.send({"jsonrpc": "2.0", "id": incoming["id"], "result": {}})  # PING-01''',
               '''            self.send({"jsonrpc": "2.0", "id": self.next_id, "result": {}})''')),
        wrong(3, "kills the server without closing its stdin", "LC-17",
              ('''        self.process.stdin.close()
        for stop in''', '''        self.process.kill()
        for stop in'''), says=("the client killed the server (SIGKILL) before it could exit by itself",), runs=3),
        wrong(3, "closes the server's stdin, then kills it at once", "LC-17",
              (LAB1_CLOSE, '''        self.process.stdin.close()
        self.process.kill()
        self.process.wait(timeout=2)'''), runs=3,
              says=("the client killed the server (SIGKILL) before it could exit by itself",)),
        wrong(3, "closes the server's stdin, then sends it SIGTERM at once", "LC-17",
              (LAB1_CLOSE, '''        self.process.stdin.close()
        self.process.terminate()
        self.process.wait(timeout=2)'''), says=("then sent it SIGTERM before the server had time to exit",), runs=3),
        wrong(3, "sends the server SIGTERM instead of closing its stdin", "LC-16",
              ("        self.process.stdin.close()\n        for stop in",
               "        self.process.terminate()\n        for stop in")),
    ],
    "lab02-stdio-server": [
        wrong(1, "prints its banner on stdout", "TR-04",
              ('    log("lab02 server: reading JSON-RPC lines on stdin")', '    print("lab02 server: ready", flush=True)')),
        wrong(1, "echoes each line it reads on stdout, to debug", "TR-04",
              ("        reply = handle_line(line)",
               '        print("read:", line.decode("utf-8", "replace").strip(), flush=True)\n        reply = handle_line(line)')),
        wrong(2, "answers a line that is not JSON with the safety net's -32603", "MSG-01",
              ('''        return error(None, PARSE_ERROR, "Parse error: the line is not JSON")''',
               '''        return error(None, INTERNAL_ERROR, "Internal error")''')),
        wrong(2, "says nothing to a line that is not JSON", "MSG-01",
              ('''        return error(None, PARSE_ERROR, "Parse error: the line is not JSON")''', "        return None")),
        wrong(2, "decodes UTF-8 first and catches only JSON's errors (the issue's first hasty lab 2)", "MSG-01",
              LAB2_DECODE_THEN_PARSE, LAB2_SAFETY_NET, LAB2_BOOL_IS_AN_INT,
              says=("bytes that are not UTF-8 got error -32603", "a ping whose id is true got a result")),
        wrong(3, "forgets that True is an int in Python", "MSG-01", LAB2_BOOL_IS_AN_INT),
        wrong(3, "checks the envelope with one if (the issue's second hasty lab 2)", "MSG-01",
              LAB2_ONE_IF, LAB2_SAFETY_NET,
              ('''    request_id, method = message["id"], message["method"]''',
               '''    request_id, method = message.get("id"), message.get("method")'''),
              says=("[] (an empty batch) got error -32603", "a request whose method is a number got error -32601",
                    "a ping whose params are an array got a result")),
        wrong(3, "does not check that params are an object", "MSG-01",
              ('''        if "params" in message and not isinstance(message["params"], dict):
            raise InvalidMessage('"params" must be an object', readable_id)
''', "")),
        wrong(3, "does not check that the method is a string", "MSG-01",
              ('''        if not isinstance(message["method"], str):
            raise InvalidMessage('"method" must be a string', readable_id)
''', "")),
        wrong(3, 'takes "id": null for a notification', "MSG-01",
              ('''        if "id" not in message:
            return "notification"''', '''        if message.get("id") is None:
            return "notification"''')),
        wrong(3, "lets batches (arrays) through to the safety net", "MSG-01",
              ('''    if not isinstance(message, dict):  # 2024-11-05 has no batches: an array is invalid too
        raise InvalidMessage("expected a JSON object")''', '''    if not isinstance(message, (dict, list)):
        raise InvalidMessage("expected a JSON object")'''), LAB2_SAFETY_NET),
        wrong(4, "answers notifications (with -32601)", "MSG-01",
              ('''    if kind != "request":''', '''    if kind == "response":'''),
              ('''    request_id, method = message["id"], message["method"]''',
               '''    request_id, method = message.get("id"), message["method"]''')),
        wrong(4, "answers responses it never asked for", "MSG-01",
              ('''    if kind != "request":''', '''    if kind == "notification":'''),
              ('''    request_id, method = message["id"], message["method"]''',
               '''    request_id, method = message["id"], message.get("method")''')),
        wrong(5, "answers an unknown method with -32603", "MSG-01",
              ('''        return error(request_id, METHOD_NOT_FOUND, f"Method not found: {method}")''',
               '''        return error(request_id, INTERNAL_ERROR, "Internal error")''')),
        wrong(5, "answers an unknown method with id null", "MSG-01",
              ('''        return error(request_id, METHOD_NOT_FOUND, f"Method not found: {method}")''',
               '''        return error(None, METHOD_NOT_FOUND, f"Method not found: {method}")'''),
              says=("an answer with id null",)),
        wrong(2, "takes a blank line for the end of its input", "MSG-01",
              ('''        if not line.strip():
            continue''', '''        if not line.strip():
            break'''), says=("after a blank line, the server no longer answers ping: it exited",)),
        wrong(2, "refuses a valid line that ends in spaces or \\r\\n, with a hasty check for cut-off lines", "MSG-01",
              ('''    try:
        message = json.loads(line)''', '''    text = line.decode("utf-8", "replace").rstrip("\\n")
    if text.startswith("{") and not text.endswith("}"):  # a message cut off in the middle
        return error(None, PARSE_ERROR, "Parse error: the line is cut off")
    try:
        message = json.loads(line)'''), says=("a ping with spaces and a tab after it got error -32700",
                                                  "a ping ending in a Windows line end (\\r\\n) got error -32700")),
        wrong(2, "answers -32700 without an id member", "MSG-01",
              ('''        return error(None, PARSE_ERROR, "Parse error: the line is not JSON")''',
               '''        return {"jsonrpc": "2.0", "error": {"code": PARSE_ERROR, "message": "Parse error"}}'''),
              says=("got an error with no id member",)),
        wrong(2, "reads its input as text, and dies on bytes that are not UTF-8", "MSG-01",
              ("    for line in sys.stdin.buffer:", "    for line in sys.stdin:"),
              says=("after bytes that are not UTF-8, the server no longer answers ping: it exited with status 1",)),
        wrong(None, "splits its input with str.splitlines()", "TR-02",
              ('''    for line in sys.stdin.buffer:  # splits on b"\\n" only; ends when stdin closes
        if not line.strip():
            continue
        reply = handle_line(line)
        if reply is not None:
            write(reply)''', '''    for chunk in iter(lambda: os.read(0, 65536), b""):  # whatever has arrived
        for text in chunk.decode("utf-8", "replace").splitlines():
            if text.strip():
                reply = handle_line(text.encode("utf-8"))
                if reply is not None:
                    write(reply)'''), ("import json\n", "import json\nimport os\n"),
              says=("str.splitlines()",)),
        wrong(3, 'accepts "jsonrpc": "2.1"', "MSG-01",
              ('''    if message.get("jsonrpc") != "2.0":''', '''    if not str(message.get("jsonrpc", "")).startswith("2"):'''),
              says=('a request with "jsonrpc": "2.1" got a result',)),
        wrong(3, "answers an invalid envelope with id null, though its id could be read", "MSG-01",
              ('''        return error(exc.request_id, INVALID_REQUEST, f"Invalid Request: {exc}")''',
               '''        return error(None, INVALID_REQUEST, f"Invalid Request: {exc}")'''),
              says=("got its error with id null, though the message's id",)),
        wrong(3, "takes id 0 for no id (tests the id for truth)", "MSG-02",
              ('''        if "id" not in message:
            return "notification"''', '''        if not message.get("id"):
            return "notification"'''), says=("0 is a valid request id",), exit=2),
        wrong(3, "answers id 0 with id null (request_id or None)", "MSG-05",
              ('''    request_id, method = message["id"], message["method"]''',
               '''    request_id, method = message["id"] or None, message["method"]'''),
              says=("an answer with id null",), exit=2),
        wrong(4, "answers a notification whose method lacks the notifications/ prefix", "MSG-01",
              ('''    if kind != "request":
        return None  # notifications and responses are never answered (MSG-08)
    request_id, method = message["id"], message["method"]''', '''    if kind == "response" or (kind == "notification"
                              and message["method"].startswith("notifications/")):  # a notification?
        return None
    request_id, method = message.get("id"), message["method"]'''),
              says=("answered a notification whose method has no notifications/ prefix",)),
        wrong(None, "never flushes what it writes", "MSG-01",
              ('''    sys.stdout.buffer.write(line.encode("utf-8") + b"\\n")
    sys.stdout.buffer.flush()''', '''    sys.stdout.buffer.write(line.encode("utf-8") + b"\\n")'''),
              says=("its output came only when the kit closed its stdin",), exit=2),
        wrong(None, "ends its messages with no newline", "TR-02",
              ('''    sys.stdout.buffer.write(line.encode("utf-8") + b"\\n")''',
               '''    sys.stdout.buffer.write(line.encode("utf-8"))'''),
              says=("bytes with no newline after them",), exit=2),
        wrong(None, "pretty-prints its answers", "TR-02",
              ('''    line = json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)''',
               '''    line = json.dumps(message, indent=2, ensure_ascii=False, allow_nan=False)'''),
              says=("pretty-printed JSON, it seems",), exit=2),
        wrong(None, "sends its error codes as strings", "MSG-07",
              ('''"error": {"code": code, "message": message}}''', '''"error": {"code": str(code), "message": message}}'''),
              says=("(a string: error codes are integers, MSG-07), not an integer",), alone=True),
        wrong(None, "sends its errors without a message", "MSG-07",
              ('''"error": {"code": code, "message": message}}''', '''"error": {"code": code}}'''),
              says=("an error has no message",), rule="holds an integer code (MSG-07) and a string message"),
        wrong(5, "answers an unknown method with -32602", "MSG-01",
              ('''        return error(request_id, METHOD_NOT_FOUND, f"Method not found: {method}")''',
               '''        return error(request_id, INVALID_PARAMS, f"Invalid params: {method}")''')),
    ],
    "lab03-lifecycle": [
        wrong(1, "echoes the version the client proposed", "LC-12",
              ('''    return proposed if proposed in SUPPORTED_VERSIONS else SUPPORTED_VERSIONS[0]''', "    return proposed")),
        wrong(1, "accepts any version that looks like a date", "LC-12",
              ('''    return proposed if proposed in SUPPORTED_VERSIONS else SUPPORTED_VERSIONS[0]''',
               '''    return proposed if re.fullmatch(r"\\d{4}-\\d{2}-\\d{2}", proposed) else SUPPORTED_VERSIONS[0]'''),
              ("import json\n", "import json\nimport re\n")),
        wrong(1, "accepts any version newer than its own", "LC-12",
              ('''    return proposed if proposed in SUPPORTED_VERSIONS else SUPPORTED_VERSIONS[0]''',
               '''    return proposed if proposed >= SUPPORTED_VERSIONS[0] else SUPPORTED_VERSIONS[0]'''),
              says=("proposed 2999-12-31, the server answered \"2999-12-31\"",)),
        wrong(1, "refuses a version it does not speak with -32600", "LC-12",
              ('''    return proposed if proposed in SUPPORTED_VERSIONS else SUPPORTED_VERSIONS[0]''',
               '''    if proposed not in SUPPORTED_VERSIONS:
        raise JsonRpcError(INVALID_REQUEST, f"Invalid Request: we do not speak {proposed}")
    return proposed'''), says=("was refused with -32600",)),
        wrong(2, "puts the version beside serverInfo, not in it", "LC-07",
              ('''"serverInfo": {"name": "lab03-server", "version": "1.0"},''',
               '''"serverInfo": {"name": "lab03-server"}, "version": "1.0",''')),
        wrong(3, "refuses every request until notifications/initialized, ping too", "PING-01",
              ('''    if connection["phase"] == AWAITING_INITIALIZE and method not in SERVED_BEFORE_INITIALIZE:''',
               '''    if connection["phase"] == AWAITING_INITIALIZED and method != "initialize":
        raise JsonRpcError(INVALID_REQUEST, "Invalid Request: send notifications/initialized first")
    if connection["phase"] == AWAITING_INITIALIZE and method not in SERVED_BEFORE_INITIALIZE:''')),
        wrong(3, "refuses a request that comes before initialize with id null", "MSG-01",
              ('''        gate(method)
''', '''        if connection["phase"] == AWAITING_INITIALIZE and method not in SERVED_BEFORE_INITIALIZE:
            return error(None, INVALID_REQUEST, "Invalid Request: send initialize first")
        gate(method)
'''), says=("an answer with id null",)),
        wrong(2, "leaves the version out of serverInfo", "LC-07",
              ('''"serverInfo": {"name": "lab03-server", "version": "1.0"}''', '''"serverInfo": {"name": "lab03-server"}''')),
        wrong(2, "gives the version as a number", "LC-07",
              ('''"serverInfo": {"name": "lab03-server", "version": "1.0"}''',
               '''"serverInfo": {"name": "lab03-server", "version": 1.0}''')),
        wrong(3, "lets only initialize through before initialize, not ping", "PING-01",
              ('''SERVED_BEFORE_INITIALIZE = {"initialize", "ping"}''', '''SERVED_BEFORE_INITIALIZE = {"initialize"}''')),
        wrong(3, "ignores a request that comes before initialize, without an answer", "MSG-01",
              ('''        gate(method)
''', '''        if connection["phase"] == AWAITING_INITIALIZE and method not in SERVED_BEFORE_INITIALIZE:
            return None  # not yet: ignore it
''')),
        # The lab's own lesson, lab03.exits-when-stdin-closes (course/lessons.py): the kit only notes these.
        wrong(None, "never exits when its stdin closes (it takes end of input for 'no data yet' and polls)", "LC-16",
              ('''def main():
    for line in sys.stdin.buffer:
        if line.strip():''', '''def main():
    while True:
        line = sys.stdin.buffer.readline()
        if not line:  # nothing to read yet: wait for more
            time.sleep(0.1)
            continue
        if line.strip():'''), ("import json\n", "import json\nimport time\n"),
              says=("the server was still running 2 s after its stdin closed",), alone=True),
        wrong(None, "exits only 5 s after its stdin closes", "LC-16",
              ("    # LC-16: stdin closed, the client is done with us: return, and the process exits.",
               "    time.sleep(5)  # a moment for anything still on its way"), ("import json\n", "import json\nimport time\n"),
              says=("then nothing: still running 2 s later",), alone=True),
        wrong(None, "keeps a heartbeat thread running (not a daemon), so the process outlives its input", "LC-16",
              ('''def main():
    for line in sys.stdin.buffer:''', '''def heartbeat():
    while True:
        time.sleep(1)
        log("lab03 server: still here")


def main():
    threading.Thread(target=heartbeat).start()
    for line in sys.stdin.buffer:'''), ("import json\n", "import json\nimport threading\nimport time\n"),
              says=("leave no thread running that keeps the process alive",), alone=True),
    ],
    "lab04-tools": [
        wrong(1, "leaves read_note's inputSchema empty", "TOOL-05",
              ('''    "read_note": ("Read one of the server's notes.", {
        "type": "object",
        "properties": {"name": {"type": "string", "description": "the note's name, e.g. shopping"}},
        "required": ["name"],
        "additionalProperties": False,
    }, read_note),''', '''    "read_note": ("Read one of the server's notes.", {}, read_note),''')),
        wrong(1, "describes the argument, not the object that holds it", "TOOL-05",
              ('''        "properties": {"name": {"type": "string", "description": "the note's name, e.g. shopping"}},''',
               '''        "type": "string",'''),
              ('''    "read_note": ("Read one of the server's notes.", {
        "type": "object",''', '''    "read_note": ("Read one of the server's notes.", {''')),
        wrong(2, "answers an unknown tool with an isError result", "TOOL-18",
              ('''        raise JsonRpcError(INVALID_PARAMS, f"Invalid params: unknown tool {name!r}")''',
               '''        return {"content": [{"type": "text", "text": f"no tool {name!r}"}], "isError": True}''')),
        wrong(2, "answers a call without a name with an isError result", "TOOL-08",
              ('''        raise JsonRpcError(INVALID_PARAMS, 'Invalid params: tools/call needs "name" (a string)')''',
               '''        return {"content": [{"type": "text", "text": "which tool?"}], "isError": True}''')),
        wrong(3, "checks no argument against the schema", "TOOL-08",
              ('''    problem = schema_problem(arguments, schema)''', '''    problem = None''')),
        wrong(3, "checks that required arguments are there, not their types", "TOOL-08",
              ('''        if "type" in rule and not fits(value, rule["type"]):
            return f"argument {name!r} must be of type {rule['type']}"
''', "")),
        wrong(4, "returns a tool's failure without isError", "TOOL-17",
              ('''        return {"content": [{"type": "text", "text": f"{name} failed: {exc}"}], "isError": True}''',
               '''        return {"content": [{"type": "text", "text": f"{name} failed: {exc}"}]}'''),
              says=("reads like a failure report",)),
        wrong(4, 'sets isError to the string "true"', "TOOL-05",
              ('''        return {"content": [{"type": "text", "text": f"{name} failed: {exc}"}], "isError": True}''',
               '''        return {"content": [{"type": "text", "text": f"{name} failed: {exc}"}], "isError": "true"}'''),
              says=("result.isError is string, not boolean", '"isError": "true" (a string, not the boolean true)'),
              rule="isError, when present, is a boolean"),
        wrong(4, "answers a tool's failure with -32602", "TOOL-17",
              ('''        return {"content": [{"type": "text", "text": f"{name} failed: {exc}"}], "isError": True}''',
               '''        raise JsonRpcError(INVALID_PARAMS, f"Invalid params: {name} failed: {exc}")'''),
              says=("though its arguments meet its inputSchema",)),
        wrong(2, "answers an unknown tool with -32601", "TOOL-18",
              ('''        raise JsonRpcError(INVALID_PARAMS, f"Invalid params: unknown tool {name!r}")''',
               '''        raise JsonRpcError(METHOD_NOT_FOUND, f"Method not found: {name}")'''),
              says=("answered -32601 (Method not found)",)),
        wrong(2, 'refuses a call without "arguments", which 2024-11-05 makes optional', "TOOL-08",
              ('''    arguments = params.get("arguments", {})''', '''    arguments = params.get("arguments")'''),
              says=('when called without the "arguments" member',)),
        wrong(1, 'gives an argument the type "str"', "TOOL-05",
              ('''{"name": {"type": "string", "description": "the note's name, e.g. shopping"}}''',
               '''{"name": {"type": "str", "description": "the note's name, e.g. shopping"}}'''),
              says=("is not valid JSON Schema",), rule="a JSON Schema of type"),
        wrong(1, "requires an argument its properties do not describe", "TOOL-05",
              ('''        "required": ["name"],''', '''        "required": ["note"],'''),
              says=("no arguments can ever meet this schema",)),
        wrong(1, "gives required as a string, not an array", "TOOL-05",
              ('''        "required": ["name"],''', '''        "required": "name",'''),
              says=("required is string, not array",)),
        wrong(3, "ignores minimum and maximum", "TOOL-08",
              ('''        if "minimum" in rule and value < rule["minimum"]:
            return f"argument {name!r} must be at least {rule['minimum']}"
        if "maximum" in rule and value > rule["maximum"]:
            return f"argument {name!r} must be at most {rule['maximum']}"
''', ""), says=("below its minimum",)),
        wrong(3, "drops arguments the schema does not know, instead of refusing them", "TOOL-08",
              ('''        if name not in properties:
            if schema.get("additionalProperties") is False:
                return f"unexpected argument {name!r}"
            continue''', '''        if name not in properties:
            continue'''), ('''        text = run(**arguments)''', '''        known = schema.get("properties", {})
        text = run(**{k: v for k, v in arguments.items() if k in known})'''),
              says=("with an argument its schema does not allow",)),
        wrong(4, "lets an exception in a tool become -32603", "TOOL-17",
              ('''    try:
        text = run(**arguments)
    except Exception as exc:
        log(f"tool {name} failed: {exc!r}")
        return {"content": [{"type": "text", "text": f"{name} failed: {exc}"}], "isError": True}''',
               '''    text = run(**arguments)''')),
        # The lab's own lessons (course/lessons.py): what the lab asks, which the kit alone only notes or cannot see.
        wrong(4, "returns a tool's failure as its bare message, without isError", "TOOL-17",
              (LAB4_FAILURE, '''        return {"content": [{"type": "text", "text": str(exc)}]}'''),
              says=('came back as a result without "isError"',), alone=True),
        wrong(4, "returns a tool's failure as its bare message, with isError false", "TOOL-17",
              (LAB4_FAILURE, '''        return {"content": [{"type": "text", "text": str(exc)}], "isError": False}'''),
              says=('came back as a result with "isError": false',), alone=True),
        wrong(4, "answers a tool's failure with its own -32603", "TOOL-17",
              (LAB4_FAILURE, '''        raise JsonRpcError(INTERNAL_ERROR, f"Internal error: {name} failed: {exc}")'''),
              says=("which does not exist, got error -32603",)),
        wrong(3, "takes true for an integer (fits() rewritten without its bool test)", "TOOL-08",
              ('''    if isinstance(value, bool):
        return json_type == "boolean"
    return isinstance(value, JSON_TYPES[json_type])''', '''    return isinstance(value, JSON_TYPES[json_type])'''),
              says=("with true for the integer a (in JSON, true is not an integer), succeeded",), alone=True),
        wrong(3, "refuses invalid arguments with an isError result, not -32602", "TOOL-18",
              (LAB4_REFUSAL, '''        return {"content": [{"type": "text", "text": f"{name}: {problem}"}], "isError": True}'''),
              says=("got a result with isError: true, not error -32602",), alone=True),
        wrong(3, "refuses invalid arguments with -32600", "TOOL-18",
              (LAB4_REFUSAL, '''        raise JsonRpcError(INVALID_REQUEST, f"Invalid Request: {name}: {problem}")'''),
              says=("was refused with error -32600, not -32602",), alone=True),
        wrong(3, "checks no required argument (the tool then fails on the missing one, with isError)", "TOOL-18",
              ('''    for name in schema.get("required", []):
        if name not in arguments:
            return f"missing required argument {name!r}"
''', ""), says=("add, called without its required argument b, got a result with isError: true",), alone=True),
        wrong(3, "puts the try around the argument check too, so a refusal becomes an isError result", "TOOL-18",
              ('''    problem = schema_problem(arguments, schema)
    if problem is not None:
        raise JsonRpcError(INVALID_PARAMS, f"Invalid params: {name}: {problem}")
    # 2. The tool runs. If it fails, that is a result with isError, for the model to read (TOOL-17).
    try:
        text = run(**arguments)''', '''    try:
        problem = schema_problem(arguments, schema)
        if problem is not None:
            raise JsonRpcError(INVALID_PARAMS, f"Invalid params: {name}: {problem}")
        text = run(**arguments)'''), says=("got a result with isError: true, not error -32602",), alone=True),
    ],
    "lab05-resources": [
        wrong(1, "sends Python's spelling of the bytes as the blob", "RES-10",
              ('''"blob": base64.b64encode(data).decode("ascii")''', '''"blob": str(data)''')),
        wrong(1, "sends the bytes as text", "RES-15",
              ('''        return {"uri": uri, "mimeType": mime_type, "blob": base64.b64encode(data).decode("ascii")}''',
               '''        return {"uri": uri, "mimeType": mime_type, "text": data.decode("latin-1")}''')),
        wrong(2, "lets an unknown URI become -32603", "RES-06",
              ('''    raise JsonRpcError(RESOURCE_NOT_FOUND, f"Resource not found: {uri}", data={"uri": uri})  # RES-06''',
               '''    raise LookupError(uri)''')),
        wrong(2, "answers an unknown URI with -32602", "RES-06",
              ('''    raise JsonRpcError(RESOURCE_NOT_FOUND, f"Resource not found: {uri}", data={"uri": uri})  # RES-06''',
               '''    raise JsonRpcError(INVALID_PARAMS, f"Invalid params: no resource {uri}")''')),
        wrong(2, "answers an unknown URI with empty contents", "RES-06",
              ('''    raise JsonRpcError(RESOURCE_NOT_FOUND, f"Resource not found: {uri}", data={"uri": uri})  # RES-06''',
               '''    return {"contents": []}''')),
        wrong(3, "does not serve resources/templates/list", "RES-01",
              ('''"resources/templates/list": templates_list, ''', "")),
        wrong(3, "names the template's field uri instead of uriTemplate", "RES-01",
              ('{"resourceTemplates": [{"uriTemplate": template,', '{"resourceTemplates": [{"uri": template,')),
        wrong(4, "does not serve resources/subscribe and resources/unsubscribe", "RES-01",
              ('''    "resources/subscribe": subscribe, "resources/unsubscribe": unsubscribe,
''', "")),
        wrong(4, "serves resources/subscribe but not resources/unsubscribe", "RES-01",
              ('''"resources/subscribe": subscribe, "resources/unsubscribe": unsubscribe,''',
               '''"resources/subscribe": subscribe,''')),
        wrong(5, "tells the client about every tick, subscribed or not", "RES-13",
              ('''        if "clock://now" in subscriptions:
            write(''', '''        if True:
            write(''')),
    ],
    "lab06-sampling-client": [
        wrong(1, "answers roots/list with an empty object", "ROOT-01",
              ('''    return {"roots": [{"uri": Path.cwd().as_uri(), "name": "the current directory"}]}''', "    return {}")),
        wrong(1, "gives a root as a path, not a file:// URI", "ROOT-03",
              ('''"uri": Path.cwd().as_uri()''', '''"uri": str(Path.cwd())''')),
        wrong(3, "answers sampling with an empty object", "SAMP-05",
              ('''    return {"role": "assistant", "content": {"type": "text", "text": draft},
            "model": "lab06-canned-model", "stopReason": "endTurn"}''', "    return {}")),
        wrong(3, "answers with the text itself as content", "SAMP-05",
              ('''"content": {"type": "text", "text": draft},''', '''"content": draft,''')),
        wrong(3, "leaves the model out", "SAMP-05",
              ('"model": "lab06-canned-model", "stopReason": "endTurn"}', '"stopReason": "endTurn"}')),
    ],
    "lab07-http-sse": [
        wrong(1, "accepts every Origin", "TR-06",
              ('''        allowed_origins=[UI_ORIGIN],  # TR-06: browsers may call us from this page only''',
               '''        allowed_origins=["*"],''')),
        wrong(1, "adds every origin to the web app's", "TR-06",
              ('''        allowed_origins=[UI_ORIGIN],  # TR-06: browsers may call us from this page only''',
               '''        allowed_origins=[UI_ORIGIN, "*"],''')),
        wrong(2, "accepts every Host name", "TR-06",
              ('''        # allowed_hosts: left at mcp_ref's default, 127.0.0.1, localhost and ::1 (DNS rebinding)''',
               '''        allowed_hosts=["*"],''')),
    ],
    # Lab 8 (optional): what 2025-06-18 added, sent only in a session that agreed on it. The kit proposes
    # 2024-11-05; the lab's own lessons (course/lessons.py) propose 2025-06-18, then 2024-11-05.
    "lab08-what-changed": [
        wrong(1, "answers its newest version to every client", "LC-12",
              (LAB8_NEGOTIATE, '''    return SUPPORTED_VERSIONS[0]'''),
              says=('the server chose "2025-06-18"',), alone=True),
        wrong(2, "sends title and annotations to a 2024-11-05 client too", "LC-14",
              (LAB8_ONLY_NEW, '''        if True:'''),
              ('''            if name in OUTPUT_SCHEMAS:
                tool["outputSchema"]''', '''            if name in OUTPUT_SCHEMAS and speaks_new_version():
                tool["outputSchema"]'''),
              # (the kit's lifecycle.no-later-fields-in-an-older-session sees it too)
              says=("in a session of 2024-11-05, tools/list sent annotations and title",)),
        wrong(3, "sends structuredContent without an outputSchema", "OUT-03",
              ('''            if name in OUTPUT_SCHEMAS:
                tool["outputSchema"] = OUTPUT_SCHEMAS[name]  # OUT-03
''', ""), says=("word_count lists no outputSchema though its result has structuredContent",), alone=True),
        wrong(3, "sends structuredContent that does not conform to its outputSchema", "OUT-03",
              (LAB8_STRUCTURED, '''        result["structuredContent"] = {"count": json.loads(text)}'''),
              says=("word_count's structuredContent does not conform to its outputSchema",), alone=True),
        wrong(3, "drops the JSON text once it sends structuredContent", "OUT-01",
              (LAB8_STRUCTURED, '''        result = {"content": [], "structuredContent": json.loads(text)}'''),
              says=("no text item holding the same JSON",), alone=True),
        wrong(3, "sends structuredContent to a 2024-11-05 client too", "LC-14",
              ('''    if name in OUTPUT_SCHEMAS and speaks_new_version():  # LC-14''', '''    if name in OUTPUT_SCHEMAS:'''),
              says=("in a session of 2024-11-05, the server sent structuredContent (in tools/call)",), alone=True),
        wrong(3, "lists the outputSchema to a 2024-11-05 client too", "LC-14",
              (LAB8_ONLY_NEW, '''        if name in OUTPUT_SCHEMAS:
            tool["outputSchema"] = OUTPUT_SCHEMAS[name]
        if speaks_new_version():'''),
              # (the kit's lifecycle.no-later-fields-in-an-older-session sees it too)
              says=("in a session of 2024-11-05, the server sent outputSchema (in tools/list)",)),
        wrong(2, "sends a title but no annotations", "LC-14",
              ('''            tool["title"], tool["annotations"] = TITLES_AND_ANNOTATIONS[name]''',
               '''            tool["title"] = TITLES_AND_ANNOTATIONS[name][0]'''),
              says=("came without annotations",), alone=True),
        wrong(1, "speaks 2025-06-18 alone", "LC-12",
              ('''SUPPORTED_VERSIONS = ["2025-06-18", "2024-11-05"]''', '''SUPPORTED_VERSIONS = ["2025-06-18"]'''),
              says=('the server chose "2025-06-18"',)),
    ],
}

# TODOs no 2024-11-05 rule lets the kit fail: lab -> {todo: why, and what the learner sees instead}.
NOT_GRADED = {
    "lab03-lifecycle": {
        3: "a server with no phase gate at all: LC-01 binds the client, which starts the conversation; the kit "
           "notes a request served before initialize (grade.py 3 -v), and fails only a gate done the hasty way",
        4: "a second initialize: the kit never sends one on a connection (no rule the kit can see is broken)",
    },
    "lab06-sampling-client": {
        2: "a person approving, editing or rejecting (SAMP-01..04) is not on the wire: a person grades it, and "
           "tests/course/test_labs.py plays that person for the reference solution",
    },
}
NO_GATE = ('''    if connection["phase"] == AWAITING_INITIALIZE and method not in SERVED_BEFORE_INITIALIZE:
        raise JsonRpcError(INVALID_REQUEST, f"Invalid Request: {method} before initialize; send initialize first")''',
           "")


def mutate(source: str, edits: tuple[tuple[str, str], ...]) -> str:
    """The solution with ``edits`` made; each edited text must be in it exactly once."""
    for old, new in edits:
        assert source.count(old) == 1, f"the reference solution no longer has (exactly once): {old!r}"
        source = source.replace(old, new)
    return source


# The grade each wrong solution got when the table was last recorded (signature() of test_course): a
# grade that differs, in any run on any machine, fails. Record again after changing the table or
# the kit on purpose: python -m tests.course.test_graders --record
GRADES = Path(__file__).with_name("grades.json")


def recorded() -> dict[str, Any]:
    return json.loads(GRADES.read_text(encoding="utf-8")) if GRADES.exists() else {}


def grade_copies(name: str, edits: tuple[tuple[str, str], ...], folder: Path, runs: int = 1) -> list[Any]:
    """Grade the lab's solution with ``edits`` made, ``runs`` times at once (each copy in a folder of its own)."""
    lab = BY_NAME[name]
    source = mutate(lab.solution.read_text(encoding="utf-8"), edits)
    paths = []
    for number in range(runs):
        path = folder / f"copy{number}" / "starter.py"
        path.parent.mkdir(parents=True)
        path.write_text(source, encoding="utf-8")
        paths.append(path)
    with ThreadPoolExecutor(runs) as pool:
        return list(pool.map(lambda path: grade.run(lab, path, timeout=90), paths))


def failing_ids(outcome: Any) -> set[str]:
    """The requirement IDs a failing grade names: its failing cases' findings, or its reason (exit status 2)."""
    if outcome.reason is not None and not outcome.cases:
        return set(grade.ID.findall(outcome.reason))
    return {finding["id"] for case in outcome.failed for finding in case["findings"]}


def todos_pointed_at(outcome: Any, req_id: str) -> set[int]:
    """The TODOs the grade points at for ``req_id`` (grade.feedback's "read: ..." lines)."""
    lab = outcome.lab
    if outcome.reason is not None and not outcome.cases:
        return set(grade.pointed_todos(lab, None, req_id))
    return {n for case in outcome.failed for f in case["findings"] if f["id"] == req_id
            for n in grade.pointed_todos(lab, case["name"], req_id, case["ids"])}


def said(outcome: Any) -> list[str]:
    """Every message of the grade's failing findings, with what came back, and its reason."""
    return [f["message"] + " " + (f.get("got") or "") for case in outcome.failed for f in case["findings"]] + [
        outcome.reason or ""]


def problems_of(entry: Wrong, outcome: Any) -> list[str]:
    """What is wrong with the grade of a wrong solution (nothing, when it fails as it must, and says why)."""
    if outcome.exit_code != entry.exit:
        return [f"exit status {outcome.exit_code}, not {entry.exit}"]
    if entry.fails_on not in failing_ids(outcome):
        return [f"failed on {sorted(failing_ids(outcome))}, not {entry.fails_on}"]
    out = [f"the grade does not say {text!r}" for text in entry.says if not any(text in m for m in said(outcome))]
    pointed = todos_pointed_at(outcome, entry.fails_on)
    if entry.todo is not None and entry.todo not in pointed:
        out.append(f"the grade points at TODO {sorted(pointed)}, not {entry.todo}")
    if entry.todo is None and pointed:
        out.append(f"the grade points at TODO {sorted(pointed)}, though no TODO is about this")
    rules = [f["rule"] for case in outcome.failed for f in case["findings"] if f["id"] == entry.fails_on]
    if entry.rule and not any(entry.rule in rule for rule in rules):
        out.append(f"no rule line says {entry.rule!r}: {rules}")
    if entry.alone and len(outcome.failed) != 1:
        out.append(f"{len(outcome.failed)} cases fail, not one: {[case['name'] for case in outcome.failed]}")
    feedback = "\n".join(grade.feedback(outcome))
    if f"rule {entry.fails_on}: " not in feedback:
        out.append(f"the feedback has no rule line for {entry.fails_on}")
    return out


def test_every_lab_has_a_table_and_every_todo_a_row() -> None:
    assert set(WRONG) == set(BY_NAME)
    for name, lab in BY_NAME.items():
        todos = {todo.number for todo in lab.todos}
        assert todos, f"{name}: the README's steps name no TODO"
        starter = lab.starter.read_text(encoding="utf-8")
        for todo in todos:
            assert f"TODO {todo} " in starter, f"{name}: the README names TODO {todo}, which the starter lacks"
        covered = {entry.todo for entry in WRONG[name]} | set(NOT_GRADED.get(name, {}))
        assert covered - {None} == todos, f"{name}: TODOs {sorted(todos - covered)} have no wrong solution and no reason"
        for entry in WRONG[name]:
            if entry.todo is None:  # the code the starter gives: its ID is one the lab names
                assert entry.fails_on in lab.ids, f"{name}: {entry.what}: {entry.fails_on} is not one of the lab's IDs"
                continue
            step = next(todo for todo in lab.todos if todo.number == entry.todo)
            assert entry.fails_on in step.ids or any(
                entry.fails_on in case.ids for case in _cases(step.cases)), f"{name}: {entry.what}: {entry.fails_on}"


def _cases(names: list[str]) -> list[Any]:
    """The kit's cases, and the lab's lessons (course/lessons.py), of these names."""
    from mcp_ref_check.case_registry import all_client_cases, all_server_cases

    lessons = [lesson for each in grade.lessons.LESSONS.values() for lesson in each]
    return [case for case in all_server_cases() + all_client_cases() + lessons if case.name in names]


ENTRIES = [(name, number) for name in sorted(WRONG) for number in range(len(WRONG[name]))]
# ``make test`` grades a fixed tenth of each lab's table (its first row among them), and every row graded several times at
# once, as it runs a sample of the mutants (tests/mutants.py): each grading starts the kit and the
# learner's program, and the whole table would take the suite past five minutes. ``make course``
# (MCP_REF_COURSE=all) grades every row; CI runs it after ``make test``.
EVERY_ROW = os.environ.get("MCP_REF_COURSE") == "all"


def sampled(name: str, number: int) -> bool:
    return EVERY_ROW or number % 10 == 0 or WRONG[name][number].runs > 1


@pytest.mark.parametrize("name, number", ENTRIES, ids=[f"{name[:5]}-{WRONG[name][n].what}" for name, n in ENTRIES])
def test_a_wrong_solution_fails_on_its_todos_rule_the_same_way_every_time(name: str, number: int,
                                                                          tmp_path: Path) -> None:
    if not sampled(name, number):
        pytest.skip("graded by make course (MCP_REF_COURSE=all), which grades every wrong solution")
    entry = WRONG[name][number]
    outcomes = grade_copies(name, entry.edits, tmp_path, runs=entry.runs)
    problems = problems_of(entry, outcomes[0])
    assert not problems, f"TODO {entry.todo}, {entry.what}: " + "; ".join(problems) + "\n" + outcomes[0].output
    grades = {json.dumps(signature(outcome)) for outcome in outcomes}
    assert len(grades) == 1, f"{entry.what}: {len(outcomes)} runs at once, {len(grades)} different grades:\n" + \
        "\n".join(outcome.output for outcome in outcomes)
    assert signature(outcomes[0]) == recorded().get(name, {}).get(entry.what), (
        f"{entry.what}: not the grade recorded in {GRADES.name} (if the change is meant, record again: python -m "
        f"tests.course.test_graders --record)\n{outcomes[0].output}")


def test_the_recorded_grades_are_those_of_the_table() -> None:
    """Every row has its recorded grade, and nothing else is recorded (a row renamed or dropped)."""
    rows = {name: {entry.what for entry in entries} for name, entries in WRONG.items()}
    assert all(len(WRONG[name]) == len(rows[name]) for name in WRONG), "two rows of a lab share a description"
    assert {name: set(grades) for name, grades in recorded().items()} == rows, \
        "record again: python -m tests.course.test_graders --record"


NEVER_FLUSHES = ("""    sys.stdout.buffer.write(line.encode("utf-8") + b"\\n")
    sys.stdout.buffer.flush()""", """    sys.stdout.buffer.write(line.encode("utf-8") + b"\\n")""")


def test_the_lessons_are_not_run_when_the_kit_gets_no_session(tmp_path: Path) -> None:
    """A lab 4 server that never flushes: the kit's reason is the grade (exit status 2), and the
    lab's lessons are said not to have run, rather than failed on top of it."""
    lab = BY_NAME["lab04-tools"]
    path = tmp_path / "starter.py"
    path.write_text(mutate(lab.solution.read_text(encoding="utf-8"), (NEVER_FLUSHES,)), encoding="utf-8")
    outcome = grade.run(lab, path, timeout=90)
    assert outcome.exit_code == 2 and not [case for case in outcome.cases if case.get("lesson")], outcome.output
    shown = "\n".join(grade.feedback(outcome))
    assert "(lab04.read-note-failure-is-iserror, lab04.invalid-arguments-are-refused-with-32602) were not run" in shown


def test_a_lab_3_server_with_no_gate_passes_but_is_noted(tmp_path: Path) -> None:
    """NOT_GRADED: the kit does not fail a server without a phase gate; the learner sees a note."""
    lab = BY_NAME["lab03-lifecycle"]
    path = tmp_path / "starter.py"
    path.write_text(mutate(lab.solution.read_text(encoding="utf-8"), (NO_GATE,)), encoding="utf-8")
    outcome = grade.run(lab, path, timeout=90)
    assert outcome.passed, outcome.output
    case = next(c for c in outcome.cases if c["name"] == "lifecycle.survives-a-request-before-initialize")
    assert any("served before initialize" in note for note in case["notes"]), case


def test_a_lab_6_client_that_asks_nobody_fails_the_persons_check() -> None:
    """NOT_GRADED: TODO 2 is a person's to grade; the person's check of tests/course/test_labs.py catches a client
    that approves without asking."""
    lab = BY_NAME["lab06-sampling-client"]
    hasty = mutate(lab.solution.read_text(encoding="utf-8"), (('''    if not APPROVE_ALL:
        print("\\n--- the server asks your model ---", file=sys.stderr)''', '''    if False:
        print("\\n--- the server asks your model ---", file=sys.stderr)'''),))
    demo = f"{sys.executable} -m mcp_ref serve"
    done = subprocess.run([sys.executable, "-c", hasty, demo, "ask_model", '{"question": "What is MCP?"}'],
                          input="r\n", capture_output=True, text=True, timeout=30, cwd=grade.ROOT)
    assert done.returncode == 0, done.stderr
    assert "User rejected sampling request" not in done.stdout  # the person said no, and nobody asked them
    assert "[a]pprove, [e]dit, or [r]eject?" not in done.stderr


def record() -> None:
    """Grade every row once, a few at a time, and write the grades to GRADES."""
    import tempfile

    jobs = [(name, entry) for name in sorted(WRONG) for entry in WRONG[name]]
    with tempfile.TemporaryDirectory() as scratch, ThreadPoolExecutor(3) as pool:
        outcomes = list(pool.map(lambda job: grade_copies(job[0], job[1].edits, Path(scratch) / str(id(job[1])))[0],
                                 jobs))
    grades: dict[str, dict[str, Any]] = {}
    for (name, entry), outcome in zip(jobs, outcomes, strict=True):
        grades.setdefault(name, {})[entry.what] = signature(outcome)
        print(f"{name}  TODO {entry.todo}  {entry.what}: {'; '.join(problems_of(entry, outcome)) or 'fails as it must'}")
    GRADES.write_text(json.dumps(grades, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    import tempfile

    if sys.argv[1:] == ["--record"]:
        record()
        sys.exit(0)
    for lab_name in sys.argv[1:] or sorted(WRONG):
        for row in WRONG[lab_name]:
            with tempfile.TemporaryDirectory() as scratch:
                graded = grade_copies(lab_name, row.edits, Path(scratch), runs=1)[0]
            print(f"{lab_name}  TODO {row.todo}  {row.what}: exit {graded.exit_code}, fails on "
                  f"{sorted(failing_ids(graded))} (expected {row.fails_on}), points at TODO "
                  f"{sorted(todos_pointed_at(graded, row.fails_on))}; {'; '.join(problems_of(row, graded)) or 'as it must'}")
