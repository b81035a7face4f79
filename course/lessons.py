"""What a lab asks beyond what ``mcp-ref check`` can fail: the labs' own lessons, graded.

Not a spec section: part of the course's grader (course/grade.py runs these after a lab's check).

1. ``mcp-ref check`` judges any server in the world, so it fails only what the 2024-11-05 spec
   binds every server to. Where the spec leaves room (and the official Python SDK takes it), the
   kit only notes what it saw. A lab knows its own server, though: its tools, and what its README
   asks. A *lesson* is one such ask, graded: lab 3 asks that the server exit when its stdin
   closes; lab 4, that read_note's failure come back with ``"isError": true`` and that arguments
   which break a tool's schema be refused with error -32602; lab 8 (optional), that the server
   speak 2025-06-18 to a client that asks for it, and send what that revision added only then.
2. Each lesson has a name (``lab04.read-note-failure-is-iserror``), the requirement IDs it is
   about, and for each ID a rule in one line that says it is what this lab asks, not a MUST of
   the spec. The lab's README names the lesson in the step it grades, so a grade points at that TODO.
3. A lesson talks to the learner's server as a client does: it starts the program with the
   command and the environment of the lab's check, writes JSON lines, reads lines back (every
   wait bounded), and keeps the exact lines sent and received, which the feedback shows. It
   proposes 2024-11-05 in ``initialize``, or the ``version`` the lesson names (lab 8), and may
   open a second session with another proposal (``Program.another``).
4. A lesson gives a case shaped as in the kit's ``--json`` report (name, ids, status, findings
   with what was sent and what came back, notes), so grade.py shows, counts and records it as it
   does the kit's. grade.py runs the lessons only when the kit got a session with the program.
"""

from __future__ import annotations

import contextlib
import json
import queue
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

ANSWER_TIMEOUT = 10.0  # seconds a lesson waits for each answer
EXIT_TIMEOUT = 2.0  # seconds a server has to exit once its stdin closes (lab 3)
LAB_ASKS = "this lab asks"  # the level of a lesson's findings: the lab's own requirement, not the spec's MUST


@dataclass
class Exchange:
    """One request of a lesson: the line sent and the line that answered it, exactly as they went."""

    sent: str
    got: str | None  # None: no answer within ANSWER_TIMEOUT, or the server exited first
    answer: dict[str, Any] = field(default_factory=dict)

    @property
    def error_code(self) -> Any:
        error = self.answer.get("error")
        return error.get("code") if isinstance(error, dict) else None

    @property
    def result(self) -> Any:
        return self.answer.get("result")


class Program:
    """The learner's stdio server, started for one lesson: JSON lines in, JSON lines out."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: str):
        self.argv, self.env, self.cwd = argv, env, cwd
        self.hello: Exchange | None = None  # the initialize exchange (session() fills it in)
        self.process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.last_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        with self.process.stdout:  # closed here, by the one thread that reads it
            for line in self.process.stdout:
                self.lines.put(line)
        self.lines.put(b"")  # end of output: the server exited (or closed its stdout)

    def send(self, message: dict[str, Any]) -> str:
        line = json.dumps(message, separators=(",", ":"))
        try:
            assert self.process.stdin is not None
            self.process.stdin.write(line.encode("utf-8") + b"\n")
            self.process.stdin.flush()
        except OSError:  # the server is gone: the answer will not come, which request() says
            pass
        return line

    def request(self, method: str, params: dict[str, Any] | None = None) -> Exchange:
        """Send a request; wait for the line that answers it (other lines are passed over)."""
        self.last_id += 1
        sent = self.send({"jsonrpc": "2.0", "id": self.last_id, "method": method,
                          **({"params": params} if params is not None else {})})
        deadline = time.monotonic() + ANSWER_TIMEOUT
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            if not line:
                break
            text = line.decode("utf-8", "replace").rstrip("\r\n")
            try:
                message = json.loads(text)
            except ValueError:
                continue  # not a message: the kit grades what a server writes; a lesson looks for its answer
            answer_id = message.get("id") if isinstance(message, dict) else None
            if type(answer_id) is int and answer_id == self.last_id and "method" not in message:
                return Exchange(sent, text, message)
        return Exchange(sent, None)

    def close_input(self) -> None:
        """Close the server's stdin: the end of its input, as a client that is done does (LC-16)."""
        with contextlib.suppress(OSError):
            assert self.process.stdin is not None
            self.process.stdin.close()

    def another(self, version: str) -> Program:
        """The same program, started again in a session of its own whose initialize proposes
        ``version`` (the caller stops it). NoSession if it cannot be initialized."""
        return session(self.argv, self.env, self.cwd, version)[0]

    @property
    def agreed(self) -> Any:
        """The protocolVersion the program answered in initialize."""
        result = self.hello.result if self.hello is not None else None
        return result.get("protocolVersion") if isinstance(result, dict) else None

    def stop(self) -> None:
        self.close_input()
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(5)


class NoSession(Exception):
    """The lesson could not get through initialization with the program."""


def session(argv: list[str], env: dict[str, str], cwd: str, version: str = "2024-11-05") -> tuple[Program, Exchange]:
    """The program, started and initialized (initialize proposing ``version``, then
    notifications/initialized)."""
    try:
        program = Program(argv, env, cwd)
    except OSError as exc:
        raise NoSession(f"could not start {argv[0]}: {exc}") from exc
    hello = program.request("initialize", {"protocolVersion": version, "capabilities": {},
                                           "clientInfo": {"name": "course-grader", "version": "1.0"}})
    if not isinstance(hello.result, dict):
        program.stop()
        raise NoSession(f"initialize got {hello.got or f'no answer within {ANSWER_TIMEOUT:g} s'}")
    program.hello = hello
    program.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return program, hello


@dataclass
class Verdict:
    """What a lesson found: findings (in the kit's shape) and notes."""

    lesson: Lesson
    findings: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def fail(self, req_id: str, message: str, sent: str, got: str | None) -> None:
        self.findings.append({"id": req_id, "level": LAB_ASKS, "message": message, "rule": self.lesson.rules[req_id],
                              "sent": sent, "got": got if got is not None else "(nothing)"})

    def note(self, text: str) -> None:
        self.notes.append(text)


@dataclass(frozen=True)
class Lesson:
    """One thing a lab asks that the kit cannot fail in every server, and how to judge it."""

    name: str
    summary: str  # what it checks, in one sentence
    rules: dict[str, str]  # requirement ID -> the rule in one line, as this lab asks it
    judge: Callable[[Program, Verdict], None]
    version: str = "2024-11-05"  # the protocolVersion its session's initialize proposes

    @property
    def ids(self) -> list[str]:
        return list(self.rules)

    def run(self, argv: list[str], env: dict[str, str], cwd: str) -> dict[str, Any]:
        """Judge the program in a session of its own; the verdict as a case of the kit's report."""
        verdict = Verdict(self)
        try:
            program, _ = session(argv, env, cwd, self.version)
        except NoSession as exc:
            first = next(iter(self.rules))
            verdict.fail(first, f"the lesson could not start a session of its own with your program: {exc} (the kit "
                         "did: run grade.py again with -v to compare)", "initialize", None)
        else:
            try:
                self.judge(program, verdict)
            finally:
                program.stop()
        return {"name": self.name, "ids": self.ids, "level": LAB_ASKS, "lesson": True,
                "status": "FAIL" if verdict.findings else "PASS", "summary": self.summary, "detail": "",
                "findings": verdict.findings, "notes": verdict.notes}


# --- lab 3: a server exits when its input ends --------------------------------------------------


def exits_when_stdin_closes(program: Program, verdict: Verdict) -> None:
    ping = program.request("ping")
    program.close_input()
    try:
        code = program.process.wait(EXIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        verdict.fail("LC-16", f"the server was still running {EXIT_TIMEOUT:g} s after its stdin closed, so the grader "
                     "killed it: once its input ends, a stdio server's work is over. main()'s loop, `for line in "
                     "sys.stdin.buffer`, ends when stdin closes: return after it, and leave no thread running that "
                     "keeps the process alive", f"{ping.sent}, then closed the server's stdin",
                     f"{ping.got or '(no answer to ping)'}, then nothing: still running {EXIT_TIMEOUT:g} s later")
        return
    verdict.note(f"exited with status {code} once its stdin closed")


LAB03 = [
    Lesson("lab03.exits-when-stdin-closes",
           f"after a session, closing the server's stdin makes it exit within {EXIT_TIMEOUT:g} s",
           {"LC-16": f"this lab asks that the server exit by itself, within {EXIT_TIMEOUT:g} s, when the client closes "
                     "its stdin; the spec puts the shutdown on the client (LC-16, LC-17: close stdin, wait, then "
                     "SIGTERM), so `mcp-ref check` alone only notes a server that stays"},
           exits_when_stdin_closes),
]


# --- lab 4: isError for a tool that failed, -32602 for a call that is wrong ---------------------

MISSING_NOTE = "no-such-note"


def read_note_failure_is_iserror(program: Program, verdict: Verdict) -> None:
    call = program.request("tools/call", {"name": "read_note", "arguments": {"name": MISSING_NOTE}})
    asked = f"read_note, called for the note {MISSING_NOTE!r}, which does not exist,"
    if call.got is None:
        verdict.fail("TOOL-17", f"{asked} got no answer within {ANSWER_TIMEOUT:g} s", call.sent, call.got)
        return
    if "error" in call.answer:
        verdict.fail("TOOL-17", f"{asked} got error {call.error_code}: its arguments meet its schema, so the request "
                     "was right and the tool failed as it ran, which is a result with \"isError\": true, for the "
                     "model to read (and try another name)", call.sent, call.got)
        return
    result = call.result if isinstance(call.result, dict) else {}
    flag = result.get("isError")
    if flag is True:
        verdict.note(f"read_note, called for the note {MISSING_NOTE!r} (there is none), answered a result with "
                     "isError: true")
        return
    if "isError" not in result:
        how = "a result without \"isError\""
    elif isinstance(flag, str):
        how = f"a result with \"isError\": {json.dumps(flag)} (a string, not the boolean true)"
    else:
        how = f"a result with \"isError\": {json.dumps(flag)}"
    verdict.fail("TOOL-17", f"{asked} came back as {how}: the client takes this for a success (TOOL-19: only "
                 "\"isError\": true says the tool failed), and the model reads the failure's text as the note",
                 call.sent, call.got)


# Calls that break lab 4's schemas (the ones the starter gives, and read_note's of TODO 1), each in one
# way: (tool, arguments, how). A call is made only if the schema the server lists for the tool rules
# its arguments out, so a schema of TODO 1 written another way is never held against a learner.
BAD_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("add", {"a": 1}, "without its required argument b"),
    ("add", {"a": "1", "b": 2}, "with a string, \"1\", for the integer a"),
    ("add", {"a": True, "b": 2}, "with true for the integer a (in JSON, true is not an integer)"),
    ("read_note", {}, "without its required argument name"),
    ("read_note", {"name": "shopping", "page": 2}, "with an argument its schema does not allow (page)"),
    ("shout", {"text": "hi", "times": 11}, "with times = 11, above its maximum (10)"),
]


def rules_out(schema: Any, arguments: dict[str, Any]) -> bool | None:
    """Does this JSON Schema refuse these arguments? (jsonschema, which mcp_ref also uses for this.)
    None: it is no schema jsonschema can use, which the kit fails (tools.tools-list-is-well-formed)."""
    import jsonschema

    if not isinstance(schema, dict):
        return None
    try:
        return not jsonschema.validators.validator_for(schema)(schema).is_valid(arguments)
    except (jsonschema.exceptions.SchemaError, jsonschema.exceptions.UnknownType, TypeError, AttributeError):
        return None


def invalid_arguments_are_refused(program: Program, verdict: Verdict) -> None:
    listed = program.request("tools/list")
    tools = listed.result.get("tools") if isinstance(listed.result, dict) else None
    schemas = {tool.get("name"): tool.get("inputSchema") for tool in tools or [] if isinstance(tool, dict)}
    for name, arguments, how in BAD_CALLS:
        ruled_out = rules_out(schemas.get(name), arguments)
        if not ruled_out:
            why = (f"{name} is not in your server's tools/list" if name not in schemas else
                   f"the schema your server lists for {name} allows it" if ruled_out is False else
                   f"the schema your server lists for {name} is not one a validator can use")
            verdict.note(f"not called: {name} {how} ({why})")
            continue
        call = program.request("tools/call", {"name": name, "arguments": arguments})
        asked = f"{name}, called {how},"
        result = call.result if isinstance(call.result, dict) else {}
        if call.got is None:
            verdict.fail("TOOL-18", f"{asked} got no answer within {ANSWER_TIMEOUT:g} s (the calls after it were not "
                         "made)", call.sent, call.got)
            return
        elif call.error_code == -32602:
            continue
        elif "error" in call.answer:
            verdict.fail("TOOL-18", f"{asked} was refused with error {call.error_code}, not -32602 (Invalid params), "
                         "the code for a request whose params are wrong", call.sent, call.got)
        elif result.get("isError") is True:
            verdict.fail("TOOL-18", f"{asked} got a result with isError: true, not error -32602: the request itself "
                         "was wrong and nothing should have run, while an isError result tells the model that the "
                         "tool ran and failed", call.sent, call.got)
        else:
            verdict.fail("TOOL-08", f"{asked} succeeded (a result without isError): the tool ran on arguments its "
                         "inputSchema rules out, so the check before it (schema_problem) let them through",
                         call.sent, call.got)


LAB04 = [
    Lesson("lab04.read-note-failure-is-iserror",
           "read_note, called for a note that does not exist, answers a result with \"isError\": true",
           {"TOOL-17": "this lab asks that a tool that fails as it runs (read_note, for a note that does not exist) "
                       "answer a result with \"isError\": true (the boolean) and a text; `mcp-ref check` alone cannot "
                       "tell a bare message without isError from a tool that answers that text"},
           read_note_failure_is_iserror),
    Lesson("lab04.invalid-arguments-are-refused-with-32602",
           "arguments that break a tool's inputSchema are refused with error -32602, before the tool runs",
           {"TOOL-18": "this lab asks that arguments that break the tool's inputSchema be refused with error -32602, "
                       "as a request that is wrong in itself; the spec leaves room (it also counts invalid input "
                       "among tool errors, and the official Python SDK answers isError), so `mcp-ref check` alone "
                       "accepts either",
            "TOOL-08": "this lab asks that every call's arguments be checked against the tool's inputSchema before it "
                       "runs, strictly (true is not an integer in JSON); the official Python SDK takes true for 1, so "
                       "`mcp-ref check` alone only notes that"},
           invalid_arguments_are_refused),
]



# --- lab 8 (optional): what changed in 2025-06-18, sent only to a client that agreed on it -------

NEW = "2025-06-18"
BASE = "2024-11-05"
WORD_COUNT_CALL = {"name": "word_count", "arguments": {"text": "the model context protocol"}}


def answers_2025_06_18(program: Program, verdict: Verdict) -> None:
    hello = program.hello
    assert hello is not None
    if program.agreed != NEW:
        verdict.fail("LC-12", f"proposed {NEW}, the server answered {json.dumps(program.agreed)}: a server that speaks "
                     "the client's version answers with it, and this lab's server speaks 2025-06-18 too (put it in "
                     "SUPPORTED_VERSIONS, newest first)", hello.sent, hello.got)
        return
    verdict.note(f"proposed {NEW}, the server answered {NEW}")


def both_sessions(program: Program, verdict: Verdict, judge: Callable[[Program, str, Verdict], None]) -> None:
    """Judge the session the lesson opened (proposing 2025-06-18) by the version the server answered,
    then a second one proposing 2024-11-05, the same way."""
    judge(program, str(program.agreed), verdict)
    try:
        older = program.another(BASE)
    except NoSession as exc:
        first = next(iter(verdict.lesson.rules))
        verdict.fail(first, f"a second session, proposing {BASE}, could not be started: {exc}", "initialize", None)
        return
    try:
        judge(older, str(older.agreed), verdict)
    finally:
        older.stop()


def listed_tools(program: Program) -> tuple[Exchange, list[dict[str, Any]]]:
    listed = program.request("tools/list")
    tools = listed.result.get("tools") if isinstance(listed.result, dict) else None
    return listed, [tool for tool in tools or [] if isinstance(tool, dict)]


def title_and_annotations(program: Program, agreed: str, verdict: Verdict) -> None:
    listed, tools = listed_tools(program)
    if agreed == NEW:
        for tool in tools:
            missing = [field for field, kind in (("title", str), ("annotations", dict))
                       if not isinstance(tool.get(field), kind)]
            if missing:
                verdict.fail("LC-14", f"in a session of {NEW}, the tool {tool.get('name')!r} came without "
                             f"{' and '.join(missing)} (a string title, an annotations object): a client that agreed "
                             f"on {NEW} is sent what {NEW} added", listed.sent, listed.got)
                return
        verdict.note(f"in a session of {NEW}: every tool has a title and annotations")
        return
    sent = sorted({field for tool in tools for field in ("title", "annotations") if field in tool})
    if sent:
        verdict.fail("LC-14", f"in a session of {agreed}, tools/list sent {' and '.join(sent)}, which {agreed} does not "
                     f"have: only a client that agreed on {NEW} is sent them (the version is the session's, "
                     "connection[\"protocolVersion\"])", listed.sent, listed.got)
        return
    verdict.note(f"in a session of {agreed}: no title, no annotations")


def structured_output(program: Program, agreed: str, verdict: Verdict) -> None:
    import jsonschema

    listed, tools = listed_tools(program)
    schema = next((tool.get("outputSchema") for tool in tools if tool.get("name") == "word_count"), None)
    call = program.request("tools/call", WORD_COUNT_CALL)
    result = call.result if isinstance(call.result, dict) else {}
    if call.got is None or not result:
        verdict.fail("OUT-03", f"word_count, called in a session of {agreed}, got "
                     f"{'no answer' if call.got is None else 'no result'}", call.sent, call.got)
        return
    structured = result.get("structuredContent")
    if agreed != NEW:
        sent = (["outputSchema (in tools/list)"] if any("outputSchema" in tool for tool in tools) else []) + \
               (["structuredContent (in tools/call)"] if "structuredContent" in result else [])
        if sent:
            verdict.fail("LC-14", f"in a session of {agreed}, the server sent {' and '.join(sent)}, which {agreed} does "
                         f"not have: only a client that agreed on {NEW} is sent them",
                         listed.sent if "outputSchema" in sent[0] else call.sent,
                         listed.got if "outputSchema" in sent[0] else call.got)
            return
        verdict.note(f"in a session of {agreed}: no outputSchema, no structuredContent")
        return
    if not isinstance(schema, dict):
        verdict.fail("OUT-03", f"in a session of {NEW}, word_count lists no outputSchema" +
                     (" though its result has structuredContent: a client cannot check it against anything"
                      if structured is not None else ""), listed.sent, listed.got)
        return
    try:
        validator = jsonschema.validators.validator_for(schema)(schema)
        validator.check_schema(schema)
    except (jsonschema.exceptions.SchemaError, TypeError, AttributeError) as exc:
        verdict.fail("OUT-03", f"word_count's outputSchema is not valid JSON Schema: {str(exc).splitlines()[0]}",
                     listed.sent, listed.got)
        return
    if schema.get("type") != "object":
        verdict.fail("OUT-03", "word_count's outputSchema is not of type \"object\" (structuredContent is an object)",
                     listed.sent, listed.got)
        return
    if not isinstance(structured, dict):
        verdict.fail("OUT-03", f"word_count lists an outputSchema, but its result has "
                     f"{'no structuredContent' if structured is None else 'a structuredContent that is no object'}",
                     call.sent, call.got)
        return
    problem = next(iter(validator.iter_errors(structured)), None)
    if problem is not None:
        verdict.fail("OUT-03", f"word_count's structuredContent does not conform to its outputSchema: "
                     f"{problem.message}", call.sent, call.got)
        return
    texts = [item.get("text") for item in result.get("content") or [] if isinstance(item, dict)
             and item.get("type") == "text"]
    if not any(_json_of(text) == structured for text in texts):
        verdict.fail("OUT-01", "word_count's result has no text item holding the same JSON as its structuredContent: "
                     "a client of 2024-11-05 ways reads only content, so keep the JSON text beside it",
                     call.sent, call.got)
        return
    verdict.note(f"in a session of {NEW}: word_count's structuredContent conforms to its outputSchema, with the same "
                 "JSON as text")


def _json_of(text: Any) -> Any:
    try:
        return json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None


LAB08 = [
    Lesson("lab08.answers-2025-06-18",
           f"proposed {NEW}, the server answers {NEW}",
           {"LC-12": f"this lab asks that the server speak {NEW} as well as {BASE}: a client that proposes {NEW} gets "
                     f"{NEW}, one that proposes {BASE} gets {BASE} (the kit checks that one)"},
           answers_2025_06_18, version=NEW),
    Lesson("lab08.title-and-annotations-only-in-2025-06-18",
           f"tools/list gives every tool a title and annotations in a session of {NEW}, and none in one of {BASE}",
           {"LC-14": f"this lab asks that the server stick to the version of the session: what {NEW} added (a tool's "
                     f"title and annotations) goes to a client that agreed on {NEW}, and to no other"},
           lambda program, verdict: both_sessions(program, verdict, title_and_annotations), version=NEW),
    Lesson("lab08.structured-output-only-in-2025-06-18",
           f"in a session of {NEW} word_count has an outputSchema and returns conforming structuredContent with the "
           f"same JSON as text; in one of {BASE}, neither",
           {"OUT-03": f"this lab asks that word_count, in a session of {NEW}, list an outputSchema and return "
                       "structuredContent that conforms to it (a MUST of 2025-06-18 once a tool has an outputSchema)",
            "OUT-01": "this lab asks that the structured result keep its JSON as a text item too (a SHOULD of "
                       "2025-06-18: clients that read only content still get it)",
            "LC-14": f"this lab asks that the server stick to the version of the session: outputSchema and "
                     f"structuredContent go to a client that agreed on {NEW}, and to no other"},
           lambda program, verdict: both_sessions(program, verdict, structured_output), version=NEW),
]

LESSONS: dict[int, list[Lesson]] = {3: LAB03, 4: LAB04, 8: LAB08}  # lab number -> its lessons
