"""The course's graders catch the wrong solutions a learner plausibly writes (mutation testing of the graders).

Not a spec page: the course teaches the pages its labs name (course/README.md). For each lab,
``WRONG`` lists plausible wrong solutions: the reference solution in course/solutions/ with one
TODO undone, or done the hasty way. Each is graded exactly as a learner's file is (course/grade.py
runs the lab README's command on it: real processes, the learner's program and the kit) and
must fail naming the requirement ID of its TODO; the grade must also point at that TODO. A lab
is done when no such wrong solution passes.

``NOT_GRADED`` lists the TODOs no 2024-11-05 rule lets the kit fail, each with the reason and
what a learner sees instead (a note, a person's check).

Run ``python -m tests.test_course_graders [LAB]`` to print each wrong solution's grade.
"""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .test_course import BY_NAME, grade


@dataclass(frozen=True)
class Wrong:
    """A wrong solution: ``edits`` (old, new) applied to the reference solution, each ``old`` found once."""

    todo: int
    what: str  # what the learner did, in words
    edits: tuple[tuple[str, str], ...]
    fails_on: str  # the requirement ID its grade must name
    says: tuple[str, ...] = ()  # what the grade's findings must say, each in some finding


def wrong(todo: int, what: str, fails_on: str, *edits: tuple[str, str], says: tuple[str, ...] = ()) -> Wrong:
    return Wrong(todo, what, edits, fails_on, says)


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
        wrong(2, "answers a ping under a new id of its own", "PING-01",
              ('''            self.send({"jsonrpc": "2.0", "id": incoming["id"], "result": {}})  # PING-01''',
               '''            self.send({"jsonrpc": "2.0", "id": self.next_id, "result": {}})''')),
        wrong(3, "kills the server without closing its stdin", "LC-16",
              ('''        self.process.stdin.close()
        for stop in''', '''        self.process.kill()
        for stop in''')),
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
        wrong(4, "lets an exception in a tool become -32603", "TOOL-17",
              ('''    try:
        text = run(**arguments)
    except Exception as exc:
        log(f"tool {name} failed: {exc!r}")
        return {"content": [{"type": "text", "text": f"{name} failed: {exc}"}], "isError": True}''',
               '''    text = run(**arguments)''')),
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
           "tests/test_course.py plays that person for the reference solution",
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


def grade_all(name: str, folder: Path) -> list[tuple[Wrong, Any]]:
    """Grade every wrong solution of a lab, a few at a time (each in a folder of its own)."""
    lab = BY_NAME[name]
    source = lab.solution.read_text(encoding="utf-8")
    jobs = []
    for number, entry in enumerate(WRONG[name]):
        path = folder / f"wrong{number}" / "starter.py"
        path.parent.mkdir(parents=True)
        path.write_text(mutate(source, entry.edits), encoding="utf-8")
        jobs.append((entry, path))
    with ThreadPoolExecutor(3) as pool:
        outcomes = list(pool.map(lambda job: grade.run(lab, job[1], timeout=90), jobs))
    return [(entry, outcome) for (entry, _), outcome in zip(jobs, outcomes, strict=True)]


def failing_ids(outcome: Any) -> set[str]:
    return {finding["id"] for case in outcome.failed for finding in case["findings"]}


def todos_pointed_at(outcome: Any, req_id: str) -> set[int]:
    lab = outcome.lab
    return {n for case in outcome.failed for f in case["findings"] if f["id"] == req_id
            for n in lab.todos_for(case["name"], req_id)}


def test_every_lab_has_a_table_and_every_todo_a_row() -> None:
    assert set(WRONG) == set(BY_NAME)
    for name, lab in BY_NAME.items():
        todos = {todo.number for todo in lab.todos}
        assert todos, f"{name}: the README's steps name no TODO"
        starter = lab.starter.read_text(encoding="utf-8")
        for todo in todos:
            assert f"TODO {todo} " in starter, f"{name}: the README names TODO {todo}, which the starter lacks"
        covered = {entry.todo for entry in WRONG[name]} | set(NOT_GRADED.get(name, {}))
        assert covered == todos, f"{name}: TODOs {sorted(todos - covered)} have no wrong solution and no reason"
        for entry in WRONG[name]:
            step = next(todo for todo in lab.todos if todo.number == entry.todo)
            assert entry.fails_on in step.ids or any(
                entry.fails_on in case.ids for case in _cases(step.cases)), f"{name}: {entry.what}: {entry.fails_on}"


def _cases(names: list[str]) -> list[Any]:
    from mcp_ref.tooling.check.registry import all_client_cases, all_server_cases

    return [case for case in all_server_cases() + all_client_cases() if case.name in names]


@pytest.mark.parametrize("name", sorted(WRONG))
def test_every_wrong_solution_fails_on_its_todos_rule(name: str, tmp_path: Path) -> None:
    problems = []
    for entry, outcome in grade_all(name, tmp_path):
        if outcome.exit_code != 1:
            problems.append(f"TODO {entry.todo}, {entry.what}: exit status {outcome.exit_code}, not 1\n{outcome.output}")
        elif entry.fails_on not in failing_ids(outcome):
            problems.append(f"TODO {entry.todo}, {entry.what}: failed on {sorted(failing_ids(outcome))}, not "
                            f"{entry.fails_on}\n{outcome.output}")
        elif missing := [text for text in entry.says if not any(text in finding["message"] for case in outcome.failed
                                                                for finding in case["findings"])]:
            problems.append(f"TODO {entry.todo}, {entry.what}: the grade does not say {missing}\n{outcome.output}")
        elif entry.todo not in todos_pointed_at(outcome, entry.fails_on):
            problems.append(f"TODO {entry.todo}, {entry.what}: the grade points at TODO "
                            f"{sorted(todos_pointed_at(outcome, entry.fails_on))}")
    assert not problems, "\n\n".join(problems)


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
    """NOT_GRADED: TODO 2 is a person's to grade; the person's check of tests/test_course.py catches a client
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


if __name__ == "__main__":
    import tempfile

    for lab_name in sys.argv[1:] or sorted(WRONG):
        with tempfile.TemporaryDirectory() as scratch:
            for row, graded in grade_all(lab_name, Path(scratch)):
                print(f"{lab_name}  TODO {row.todo}  {row.what}: exit {graded.exit_code}, fails on "
                      f"{sorted(failing_ids(graded))} (expected {row.fails_on}), points at TODO "
                      f"{sorted(todos_pointed_at(graded, row.fails_on))}")
