"""Server cases for tools: listing them, calling them, refusing bad calls, cancelling a running one.

Not a spec section: cases of the conformance checker (see __init__.py). The spec pages they
check (each case names its own):
  https://modelcontextprotocol.io/specification/2024-11-05/server/tools
  https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/cancellation

What these pages ask of a server, in short:

1. A server that has tools declares the ``tools`` capability and lists them, each with a name
   and an input schema of type object; a server that does not declare it refuses tools/list.
2. An unknown tool or a malformed call is a protocol error (-32602); a failure inside a tool is a
   result with ``isError: true``. Arguments are validated against the input schema.
3. A tool call the client cancels stops: no progress after the cancellation, and no answer.

A note on IDs: the index has no row per result field, so a case that checks a result's shape
cites the row of the page's capability (TOOL-05): declaring it commits the server to the page's
messages. Tools are only called with ``--call-tools``: they can have side effects.
"""

from __future__ import annotations

import re
import secrets
import time
from typing import Any

from . import result_shapes, shapes, tool_arguments
from .helpers import FILLER, MAX_ITEMS, caused_by_cancellation, first_page, refused, settle, still_serving
from .model import server_case
from .peer import waited
from .revisions import ID
from .server_check import ServerCheck, code_words
from .server_run import ToolTiming
from .tool_arguments import arguments_for, arguments_valid
from .wire import shown

TOOLS = "server/tools"
CANCELLATION = "basic/utilities/cancellation"


# --- server/tools --------------------------------------------------------------------------------


@server_case(TOOLS, "TOOL-05")
def tools_list_is_well_formed(t: ServerCheck) -> None:
    """tools/list returns a tools array; each tool has a name, an optional description and an
    inputSchema object of type "object"; names are unique; nextCursor, if present, is a string."""
    t.require("tools")
    _, reply, result = first_page(t, "tools/list", "tools", "TOOL-05")
    problems = result_shapes.list_result(result, "tools", result_shapes.tool)
    undescribed: list[str] = []
    for i, tool in enumerate(shapes.as_list(shapes.as_dict(result).get("tools"))):
        unmet, unsaid = schema_problems(shapes.as_dict(tool).get("inputSchema"), f"result.tools[{i}].inputSchema")
        problems += unmet
        undescribed += unsaid
    t.shape(problems, "TOOL-05", "the tools/list result", reply)
    t.check(not undescribed, "TOOL-05", f"the tools/list result names required arguments it does not describe: "
            f"{'; '.join(undescribed[:5])}: a model reading the schema cannot know what to send", reply.sent,
            shown(reply.got), level="SHOULD", rule=SCHEMA_RULE)
    names = [tool.get("name") for tool in t.info.tools or []]
    duplicates = sorted({str(n) for n in names if names.count(n) > 1})
    t.check(not duplicates, "TOOL-05", f"tool names listed twice: {', '.join(duplicates)}")


SCHEMA_RULE = ("A tool's inputSchema is a JSON Schema that describes its arguments: every required argument is "
               "among its properties, so that a model knows what to send")


def schema_problems(schema: Any, path: str) -> tuple[list[str], list[str]]:
    """(what makes ``schema`` unusable, what it leaves unsaid) for a tool's inputSchema. Unusable:
    it is not valid JSON Schema (checked against its $schema's metaschema, draft 7 when it names
    none, as mcp_ref's own tools are), or it requires an argument that its own
    ``additionalProperties: false`` forbids, so that no call can ever be valid. Unsaid: a
    required argument its properties do not describe."""
    if not isinstance(schema, dict):
        return [], []
    import jsonschema  # here, not at the top: most runs of the kit never read a schema

    unusable: list[str] = []
    try:
        jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator).check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = "".join(f"[{json_path(part)}]" for part in exc.path)
        unusable.append(f"{path}{where} is not valid JSON Schema: {exc.message}")
    properties = shapes.as_dict(schema.get("properties"))
    unsaid = []
    for name in shapes.as_list(schema.get("required")):
        if isinstance(name, str) and name not in properties:
            if schema.get("additionalProperties") is False:
                unusable.append(f"{path}.required names {shapes.json_text(name)}, which is not among its properties, "
                                "and additionalProperties is false: no arguments can ever meet this schema")
            else:
                unsaid.append(f"{path}.required names {shapes.json_text(name)}, which is not among its properties")
    return unusable, unsaid


def json_path(part: Any) -> str:
    return shapes.json_text(part)


@server_case(TOOLS, "TOOL-18")
def unknown_tool_is_a_protocol_error(t: ServerCheck) -> None:
    """Calling a tool name the server never listed is an error response (-32602 in the page's
    example), not a result with isError, nor -32601, which would say that tools/call itself is
    not served. Nothing runs, so this is always safe."""
    t.require("tools")
    peer = t.session()
    reply = peer.request("tools/call", {"name": f"{FILLER}-no-such-tool-{secrets.token_hex(3)}", "arguments": {}})
    t.answered(reply, "tools/call of an unknown tool")
    if not t.check(reply.is_error, "TOOL-18", "an unknown tool was answered with a result, not an error",
                   reply.sent, reply.got):
        return
    if t.check(reply.code != -32601, "TOOL-18", "an unknown tool was answered -32601 (Method not found), which says "
               "tools/call itself is not served: the method exists, its params name a tool that does not, which the "
               "page's example answers -32602 (Invalid params)", reply.sent, reply.got) and reply.code != -32602:
        t.note(f"unknown tool refused with {code_words(reply.code)}; the page's example uses -32602")


@server_case(TOOLS, "TOOL-08")
def tool_call_without_a_name_is_refused(t: ServerCheck) -> None:
    """tools/call without a name is refused with an error (-32602): the server validates its
    inputs. Safe: no tool can run without a name."""
    t.require("tools")
    peer = t.session()
    reply = peer.request("tools/call", {"arguments": {}})
    t.answered(reply, "tools/call without a name")
    t.check(reply.is_error, "TOOL-08", "tools/call without a name got a result", reply.sent, reply.got)
    if reply.is_error and reply.code != -32602:
        t.note(f"refused with {reply.code}; -32602 (Invalid params) says it best")


@server_case(TOOLS, "TOOL-05", "AR-04")
def tools_refused_when_undeclared(t: ServerCheck) -> None:
    """A server that does not declare tools does not serve tools/list."""
    if t.info.declares("tools"):
        t.skip("the server declares tools (the other tools cases check them)")
    refused(t, "tools/list", None, "TOOL-05", "tools")


def callable_tools(t: ServerCheck) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The tools (of the first MAX_ITEMS) the kit can make arguments for, with those arguments."""
    tools = [(tool, arguments_for(tool.get("inputSchema"))) for tool in (t.info.tools or [])[:MAX_ITEMS]]
    return [(tool, args) for tool, args in tools if args is not None]


def uncallable_tools(t: ServerCheck) -> list[str]:
    """The tools (of the first MAX_ITEMS) the kit cannot call, each with why: said, never silently."""
    made = [(tool, tool_arguments.make(tool.get("inputSchema"))) for tool in (t.info.tools or [])[:MAX_ITEMS]]
    return [f"{tool.get('name')}: {result.why}" for tool, result in made if result.arguments is None]


# A result whose text opens as a failure report does ("Error: ...", "Error executing tool x: ...",
# "LookupError: ...", "x failed: ...", a Python traceback). Without isError it claims a success.
FAILURE_OPENINGS = re.compile(
    r"^\s*(?:traceback \(most recent call last\)|(?:error|exception)\s*:"
    r"|error (?:executing|calling|running|invoking|in|while|during|occurred)\b"
    r"|[\w.-]+(?:\s+[\w.-]+){0,3}\s+failed\s*:)", re.IGNORECASE)
EXCEPTION_OPENING = re.compile(r"^\s*[A-Za-z_][\w.]*(?:Error|Exception)\b\s*[:(]")


def reads_like_a_failure(result: Any) -> str | None:
    """The first line of the first text item of a tool result, if it opens the way a failure report
    does (and the result does not set isError: true); else None."""
    if not isinstance(result, dict) or result.get("isError") is True:
        return None
    first: str | None = next((str(item["text"]) for item in shapes.as_list(result.get("content"))
                              if isinstance(item, dict) and item.get("type") == "text"
                              and isinstance(item.get("text"), str)), None)
    if first is None or not (FAILURE_OPENINGS.match(first) or EXCEPTION_OPENING.match(first)):
        return None
    return first.strip().splitlines()[0][:200]


TOOL_UNION = "CallToolResult.content"


@server_case(TOOLS, "TOOL-05", "TOOL-17", "LC-14", ID["negotiated"], ID["audio"], ID["link"], call_tools=True)
def tool_results_are_well_formed(t: ServerCheck) -> None:
    """With --call-tools: each tool whose input schema the kit can satisfy is called (with a
    progress token, within --call-timeout, which each progress notification restarts); its result
    is a content array of text, image (base64 with a MIME type) or resource items, isError a
    boolean if present; audio (2025-03-26) and resource_link (2025-06-18) items are judged on their
    revision's rows in a session that agreed on it, and are content types of a later revision in an
    older one (LC-14, from 2025-06-18 its NEGO row: the negotiated version). A
    -32603 for valid arguments, or a -32602 for arguments that meet the tool's inputSchema, is a
    tool failure that should have been an isError result (TOOL-17); so is a result whose text
    opens as a failure report does ("Error: ...", "x failed: ...") without isError: true. A tool
    that overruns the budget is one finding, and the next tools are still called. A summary note
    says what was done: tools called, answered with a result, with isError, refused as invalid
    params, not called and why. A tool not called is never part of a PASS; a run where no call
    returned a result judged nothing, and is not a PASS either (spec_notes/checker.md, "Issue 34")."""
    t.require("tools")
    peer = t.session()
    called = callable_tools(t)
    if not called:
        t.skip("no tool was called: " + "; ".join(uncallable_tools(t)))
    budget = t.run.options.call_timeout
    counts = dict.fromkeys(("result", "isError", "-32602", "error", "no answer"), 0)
    for number, (tool, arguments) in enumerate(called):
        name = tool.get("name")
        token = f"{FILLER}-tool-{number}-{secrets.token_hex(3)}"
        params = {"name": name, "arguments": arguments, "_meta": {"progressToken": token}}
        started = time.monotonic()
        reply = peer.wait(peer.send_request("tools/call", params), budget, progress_token=token,
                          limit=t.run.options.call_limit)
        t.run.tool_timings[str(name)] = ToolTiming(time.monotonic() - started, reply.progress, reply.answered)
        counts[outcome(reply)] += 1
        if not reply.answered:
            if reply.closed:
                t.fail("MSG-01", f"tools/call {name}: the connection ended before an answer", reply.sent,
                       reply.got_text(), knock_on=True)
            t.check(False, "MSG-01", f"tools/call {name}: no response within {waited(reply.waited)} (--call-timeout "
                    f"{budget:g} s, restarted by each of {reply.progress} progress notification(s)); the call was "
                    "cancelled and the next tools are still called", reply.sent, reply.got_text())
            peer.notify("notifications/cancelled", {"requestId": reply.request_id, "reason": "over --call-timeout"})
            continue
        if reply.is_error:
            valid = arguments_valid(tool.get("inputSchema"), arguments)
            if reply.code == -32602 and valid:
                t.check(False, "TOOL-17", f"{name} was refused with -32602 (Invalid params), though its arguments meet "
                        "its inputSchema (jsonschema says so): arguments the schema accepts are not invalid params, so "
                        "this is the tool failing as it ran, which is a result with isError: true (if the tool's "
                        "rules are stricter than its schema, its schema should say so)", reply.sent, reply.got)
            else:
                t.check(reply.code != -32603, "TOOL-17", f"{name} failed with -32603 instead of an isError result",
                        reply.sent, reply.got)
            t.note(f"{name}: error {code_words(reply.code)}")
            continue
        t.content(result_shapes.call_tool_result(reply.result, t.version), "TOOL-05", f"the result of {name}", reply,
                  TOOL_UNION)
        failure = reads_like_a_failure(reply.result)
        t.check(failure is None, "TOOL-17", f"the result of {name} reads like a failure report "
                f"({shapes.json_text(failure)}) but does not set isError: true, so a client takes it for a success "
                "(TOOL-19: a result without isError is one); a tool that fails says so with isError: true",
                reply.sent, reply.got)
    uncalled = uncallable_tools(t)
    summary = (f"called {len(called)} of {len(t.info.tools or [])} tool(s): {counts['result']} answered with a result, "
               f"{counts['isError']} with isError: true, {counts['-32602']} refused as invalid params (-32602), "
               f"{counts['error']} with another error, {counts['no answer']} not answered; {len(uncalled)} not called")
    t.notes.insert(0, f"summary: {summary}")
    t.note("called (with the time each took): " + ", ".join(
        f"{tool.get('name')} ({t.run.tool_timings[str(tool.get('name'))].seconds:.1f} s)" for tool, _ in called))
    for why in uncalled:
        t.note(f"not called (SKIP, not part of the verdict): {why}")
    if counts["result"] + counts["isError"] == 0:  # nothing was judged: not a PASS (with findings, their WARN/FAIL)
        t.skip(f"no tool call returned a result, so no result was judged: {summary}")


def outcome(reply: Any) -> str:
    """How a tools/call ended, for the summary: a result (with isError or not), -32602, another
    error, or no answer."""
    if not reply.answered:
        return "no answer"
    if reply.is_error:
        return "-32602" if reply.code == -32602 else "error"
    return "isError" if isinstance(reply.result, dict) and reply.result.get("isError") is True else "result"


SLOW = 1.0  # seconds: a tool that took this long (or reported progress twice) can be cancelled while it runs


@server_case(CANCELLATION, "CAN-04", "CAN-18", "CAN-06", call_tools=True)
def cancelled_tool_stops(t: ServerCheck) -> None:
    """With --call-tools: the slowest tool (one that took a second or more, or reported progress
    twice, when it was called) is called again and cancelled while it runs. Once the cancellation
    has had a moment to arrive, no progress for it follows (CAN-04, CAN-18: processing stops) and
    no response either (CAN-06); a response the cancellation caused (-32800, "cancelled") fails
    CAN-06 however soon it came: that moment excuses only a result already on its way."""
    t.require("tools")
    slow = sorted(((timing.seconds, name) for name, timing in t.run.tool_timings.items()
                   if timing.answered and (timing.seconds >= SLOW or timing.progress >= 2)), reverse=True)
    if not slow:
        t.skip("no tool was slow enough to be cancelled while running (--call-tools found none taking "
               f"{SLOW:g} s or reporting progress)")
    seconds, name = slow[0]
    tool, arguments = next((tool, args) for tool, args in callable_tools(t) if tool.get("name") == name)
    peer = t.session()
    token = f"{FILLER}-cancel-{secrets.token_hex(3)}"
    call = peer.send_request("tools/call", {"name": name, "arguments": arguments, "_meta": {"progressToken": token}})
    peer.collect(min(seconds / 3, 1.0))
    cancel = peer.notify("notifications/cancelled", {"requestId": call.request_id, "reason": "checking CAN-04"})
    settling = peer.collect(settle(t))  # progress or a result already on its way then is no fault
    after = peer.collect(min(seconds + settle(t), t.run.options.call_timeout))
    progress = [m for m in after if isinstance(m.msg, dict) and m.msg.get("method") == "notifications/progress"
                and shapes.as_dict(m.msg.get("params")).get("progressToken") == token]
    answers = [m for m in settling + after if isinstance(m.msg, dict) and "method" not in m.msg
               and m.msg.get("id") == call.request_id and (m in after or "result" not in m.msg)]
    t.check(not progress, "CAN-04", f"{name} kept running after its cancellation: {len(progress)} progress "
            "notification(s) followed", cancel, progress[0].raw if progress else None)
    caused = [m for m in answers if caused_by_cancellation(m.msg)]  # CAN-06: sent because of the cancellation
    t.check(not answers, "CAN-06", f"{name} was answered after its cancellation" + (
            ": the answer says it was cancelled, so the cancellation caused it, however soon it came (the receiver "
            "of a cancellation sends no response for the request)" if caused else ""), cancel,
            (caused or answers)[0].raw if answers else None)
    t.note(f"cancelled {name} (it took {seconds:.1f} s when called)")
    still_serving(t, peer, "CAN-04", "a cancelled tool call")


# A value of another type for each JSON Schema type: what a tool that skips the check may still run on.
WRONG_TYPE = {"string": 12345, "integer": FILLER, "number": FILLER, "boolean": FILLER, "array": FILLER,
              "object": FILLER}


def wrong_arguments(schema: Any) -> dict[str, Any]:
    """Arguments that break ``schema``: every property of a simple type given a value of another type."""
    properties = shapes.as_dict(shapes.as_dict(schema).get("properties"))
    return {name: WRONG_TYPE[prop["type"]] for name, prop in properties.items()
            if isinstance(prop, dict) and isinstance(prop.get("type"), str) and prop["type"] in WRONG_TYPE}


@server_case(TOOLS, "TOOL-08", ID["tool-input-errors"], call_tools=True)
def tool_arguments_are_validated(t: ServerCheck) -> None:
    """With --call-tools: a tool called without its required arguments, with arguments that are not
    an object, with every argument of the wrong type (a number for a string, a string for a
    number...), with a number outside its minimum or maximum, or with an argument its schema
    forbids (additionalProperties: false) beside valid ones, is refused (-32602) or fails with
    isError; it must not succeed. A tool that runs on arguments its schema rules out (adding two
    strings, say) was not checked before it ran. And the check accepts what the schema accepts: a
    tool that requires no argument, called without the optional "arguments" member, is not
    refused. A refusal with isError is accepted (the tools page also counts "invalid input data"
    among tool errors), and noted: the page lists invalid arguments among protocol errors. In a
    session of 2025-11-25, whose tools page makes input validation errors tool execution errors,
    isError is the answer, and a -32602 is a warning on that revision's row."""
    t.require("tools")
    peer = t.session()
    tools = (t.info.tools or [])[:MAX_ITEMS]
    tool = next((tool for tool in tools if shapes.as_dict(tool.get("inputSchema")).get("required")), None)
    calls: list[tuple[dict[str, Any], str, Any]] = []
    if tool is not None:
        calls += [(tool, "without its required arguments", {}), (tool, "with arguments that are not an object", FILLER)]
    for typed in tools:
        wrong = wrong_arguments(typed.get("inputSchema"))
        if wrong:
            calls.append((typed, f"with every argument of the wrong type ({', '.join(sorted(wrong))})", wrong))
        calls += [(typed, label, arguments) for label, arguments in out_of_bounds(typed.get("inputSchema"))]
    if not calls:
        t.skip("no tool has required or typed arguments")
    iserror: list[str] = []
    protocol: list[tuple[str, Any]] = []  # refused with an error response, in a 2025-11-25 session
    for tool, label, arguments in calls:
        reply = peer.request("tools/call", {"name": tool["name"], "arguments": arguments})
        t.answered(reply, f"tools/call {tool['name']} {label}")
        failed = reply.is_error or (isinstance(reply.result, dict) and reply.result.get("isError") is True)
        t.check(failed, "TOOL-08", f"{tool['name']} {label} succeeded: a server checks the arguments against the "
                "tool's inputSchema before it runs the tool", reply.sent, reply.got)
        if not reply.is_error and failed:
            iserror.append(f"{tool['name']} {label}")
        elif reply.is_error and t.since("2025-11-25") and isinstance(arguments, dict):
            # (arguments that are not an object break the request's own shape: a protocol error still)
            protocol.append((f"{tool['name']} {label}", reply))
    if protocol:
        first = protocol[0][1]
        t.check(False, t.rule("tool-input-errors"), f"{len(protocol)} call(s) with invalid arguments were refused with "
                f"an error response ({', '.join(what for what, _ in protocol[:3])}): in 2025-11-25, the agreed "
                "revision, an input validation error is a tool execution error, a result with isError: true, so the "
                "model can read it and try again", first.sent, first.got, level="SHOULD")
    if iserror and t.since("2025-11-25"):
        t.note(f"refused with an isError result, as 2025-11-25 asks: {'; '.join(iserror[:3])}")
    elif iserror:
        t.note(f"refused with an isError result, not an error response: {'; '.join(iserror[:3])}. The tools page lists "
               "invalid arguments among protocol errors (a JSON-RPC error, -32602), and \"invalid input data\" among "
               "tool errors: either is accepted")
    _booleans_for_numbers(t, peer, tools)
    _no_arguments(t, peer, tools)


def out_of_bounds(schema: Any) -> list[tuple[str, dict[str, Any]]]:
    """Calls that break ``schema`` in one argument alone, the others valid: a number just outside
    its minimum or maximum, and an argument the schema forbids (additionalProperties: false)."""
    base = arguments_for(schema)
    if base is None:
        return []
    calls = []
    for name, prop in shapes.as_dict(shapes.as_dict(schema).get("properties")).items():
        if not isinstance(prop, dict) or prop.get("type") not in ("integer", "number"):
            continue
        for bound, step, word in (("minimum", -1, "below its minimum"), ("maximum", 1, "above its maximum")):
            if shapes.is_number(prop.get(bound)):
                value = prop[bound] + step
                calls.append((f"with {name} = {shapes.json_text(value)}, {word} ({prop[bound]})", {**base, name: value}))
    if shapes.as_dict(schema).get("additionalProperties") is False:
        calls.append((f"with an argument its schema does not allow ({UNKNOWN_ARGUMENT}, beside valid ones)",
                      {**base, UNKNOWN_ARGUMENT: 1}))
    return calls


UNKNOWN_ARGUMENT = f"{FILLER}-unknown"


def _booleans_for_numbers(t: ServerCheck, peer: Any, tools: list[dict[str, Any]]) -> None:
    """true for an integer or a number, the other arguments valid: JSON Schema's numbers exclude
    booleans, but validators that convert (pydantic's lax mode, and so the official Python SDK)
    take true for 1. Lenient validation is still validation: noted, never failed."""
    for tool in tools:
        schema = tool.get("inputSchema")
        base = arguments_for(schema)
        numbers = [name for name, prop in shapes.as_dict(shapes.as_dict(schema).get("properties")).items()
                   if isinstance(prop, dict) and prop.get("type") in ("integer", "number")]
        if base is None or not numbers:
            continue
        reply = peer.request("tools/call", {"name": tool["name"], "arguments": {**base, **{n: True for n in numbers}}})
        t.answered(reply, f"tools/call {tool['name']} with true for {', '.join(numbers)}")
        if reply.is_result and shapes.as_dict(reply.result).get("isError") is not True:
            t.note(f"{tool['name']} took true for {', '.join(numbers)}: JSON Schema's integer and number exclude "
                   "booleans, though validators that convert (pydantic's lax mode) take true for 1")
        return


def _no_arguments(t: ServerCheck, peer: Any, tools: list[dict[str, Any]]) -> None:
    """A tool whose schema requires nothing, called without "arguments" (optional in 2024-11-05's
    CallToolRequest): arguments the schema accepts must not be refused. The quickest such tool
    is called (tools.tool-results-are-well-formed timed them)."""
    free = [tool for tool in tools if isinstance(tool.get("inputSchema"), dict) and arguments_for(tool["inputSchema"]) == {}]
    if not free:
        return
    timing = t.run.tool_timings
    tool = min(free, key=lambda tool: timing[str(tool.get("name"))].seconds if str(tool.get("name")) in timing else 1e9)
    reply = peer.wait(peer.send_request("tools/call", {"name": tool["name"]}), t.run.options.call_timeout)
    t.answered(reply, f"tools/call {tool['name']} without arguments")
    t.check(not reply.is_error, "TOOL-08", f"{tool['name']}, whose inputSchema requires no argument, was refused when "
            "called without the \"arguments\" member, which 2024-11-05 makes optional: a check against the schema "
            "accepts what the schema accepts", reply.sent, reply.got)
