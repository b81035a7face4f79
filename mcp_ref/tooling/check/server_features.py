"""Server cases for the server features: tools, resources, prompts.

Spec pages:
  https://modelcontextprotocol.io/specification/2024-11-05/server/tools
  https://modelcontextprotocol.io/specification/2024-11-05/server/resources
  https://modelcontextprotocol.io/specification/2024-11-05/server/prompts

What these pages ask of a server, in short:

1. A server that has tools, resources or prompts declares the capability; it then answers the
   page's methods with results of the page's shapes. A server that does not declare one refuses
   its methods (the gating cases).
2. Tools: an unknown tool or a malformed call is a protocol error (-32602); a failure inside a
   tool is a result with ``isError: true``. Inputs are validated.
3. Resources: every listed resource can be read; text is text and binary is valid base64; an
   unknown URI is -32002; subscribing needs the ``subscribe`` flag, and updates come only for
   subscribed URIs.
4. Prompts: getting a listed prompt with its required arguments gives messages of the page's
   shapes (images in base64 with a MIME type, embedded resources with URI and MIME type); an
   unknown name or a missing required argument is -32602.

A note on IDs: the index has no row per result field, so a case that checks a result's shape
cites the row of the page's capability (TOOL-05, RES-01, PRM-01): declaring it commits the server
to the page's messages. Reading lists, resources and prompts is treated as safe; tools are only
called with ``--call-tools``.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

from . import shapes
from .helpers import settle, still_serving
from .model import server_case
from .peer import Peer, Reply, waited
from .server_check import ServerCheck
from .server_run import ToolTiming

TOOLS = "server/tools"
CANCELLATION = "basic/utilities/cancellation"
RESOURCES = "server/resources"
PROMPTS = "server/prompts"
MAX_ITEMS = 20  # resources read / prompts got / tools called per case
FILLER = "mcp-ref-check"


def first_page(t: ServerCheck, method: str, key: str, capability_id: str) -> tuple[Peer, Reply, Any]:
    peer = t.session()
    reply = peer.request(method)
    result = t.expect_result(reply, capability_id, method, peer=peer)
    return peer, reply, result


def refused(t: ServerCheck, method: str, params: dict[str, Any] | None, req_id: str, capability: str) -> None:
    """Gating: ``method`` of an undeclared capability must not succeed."""
    peer = t.session()
    reply = peer.request(method, params)
    t.answered(reply, f"{method} without the {capability} capability")
    t.check(not reply.is_result, req_id, f"{method} was served although {capability} was not declared",
            reply.sent, reply.got)
    if reply.is_error and reply.code != -32601:
        t.note(f"{method} was refused with {reply.code}; -32601 (Method not found) says it best")


# --- server/tools --------------------------------------------------------------------------------


@server_case(TOOLS, "TOOL-05")
def tools_list_is_well_formed(t: ServerCheck) -> None:
    """tools/list returns a tools array; each tool has a name, an optional description and an
    inputSchema object of type "object"; names are unique; nextCursor, if present, is a string."""
    t.require("tools")
    _, reply, result = first_page(t, "tools/list", "tools", "TOOL-05")
    t.shape(shapes.list_result(result, "tools", shapes.tool), "TOOL-05", "the tools/list result", reply)
    names = [tool.get("name") for tool in t.info.tools or []]
    duplicates = sorted({str(n) for n in names if names.count(n) > 1})
    t.check(not duplicates, "TOOL-05", f"tool names listed twice: {', '.join(duplicates)}")


@server_case(TOOLS, "TOOL-18")
def unknown_tool_is_a_protocol_error(t: ServerCheck) -> None:
    """Calling a tool name the server never listed is an error response (-32602 in the page's
    example), not a result with isError. Nothing runs, so this is always safe."""
    t.require("tools")
    peer = t.session()
    reply = peer.request("tools/call", {"name": f"{FILLER}-no-such-tool-{secrets.token_hex(3)}", "arguments": {}})
    t.answered(reply, "tools/call of an unknown tool")
    if not t.check(reply.is_error, "TOOL-18", "an unknown tool was answered with a result, not an error",
                   reply.sent, reply.got):
        return
    if reply.code != -32602:
        t.note(f"unknown tool refused with {reply.code}; the page's example uses -32602")


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


def arguments_for(schema: Any) -> dict[str, Any] | None:
    """Arguments satisfying a simple input schema (the required properties only), or None."""
    if not isinstance(schema, dict):
        return None
    properties = shapes.as_dict(schema.get("properties"))
    arguments: dict[str, Any] = {}
    for name in schema.get("required") or []:
        value = _value_for(properties.get(name))
        if value is _UNSATISFIABLE:
            return None
        arguments[name] = value
    return arguments


_UNSATISFIABLE = object()


def _value_for(prop: Any) -> Any:
    if not isinstance(prop, dict):
        return _UNSATISFIABLE
    if "default" in prop:
        return prop["default"]
    if isinstance(prop.get("enum"), list) and prop["enum"]:
        return prop["enum"][0]
    if "const" in prop:
        return prop["const"]
    kind = prop.get("type")
    if kind == "string" and "pattern" not in prop and "format" not in prop:
        return FILLER.ljust(int(prop.get("minLength", 0)), "x")[: int(prop.get("maxLength", 10**6))]
    if kind in ("integer", "number"):
        low, high = prop.get("minimum"), prop.get("maximum")
        value = 1 if low is None else low
        return value if high is None or value <= high else _UNSATISFIABLE
    return {"boolean": False, "array": [], "object": {}, "null": None}.get(str(kind), _UNSATISFIABLE)


def callable_tools(t: ServerCheck) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    tools = [(tool, arguments_for(tool.get("inputSchema"))) for tool in (t.info.tools or [])[:MAX_ITEMS]]
    return [(tool, args) for tool, args in tools if args is not None]


TOOL_UNION = "CallToolResult.content: TextContent, ImageContent or EmbeddedResource"


@server_case(TOOLS, "TOOL-05", "TOOL-17", "LC-14", call_tools=True)
def tool_results_are_well_formed(t: ServerCheck) -> None:
    """With --call-tools: each tool whose input schema the kit can satisfy is called (with a
    progress token, within --call-timeout, which each progress notification restarts); its result
    is a content array of text, image (base64 with a MIME type) or resource items, isError a
    boolean if present. Content types of later revisions are LC-14 (the negotiated version). A
    -32603 for valid arguments is a tool failure that should have been an isError result. A tool
    that overruns the budget is one finding, and the next tools are still called."""
    t.require("tools")
    peer = t.session()
    called = callable_tools(t)
    if not called:
        t.skip("no tool has an input schema the kit can satisfy")
    budget = t.run.options.call_timeout
    for number, (tool, arguments) in enumerate(called):
        name = tool.get("name")
        token = f"{FILLER}-tool-{number}-{secrets.token_hex(3)}"
        params = {"name": name, "arguments": arguments, "_meta": {"progressToken": token}}
        started = time.monotonic()
        reply = peer.wait(peer.send_request("tools/call", params), budget, progress_token=token,
                          limit=t.run.options.call_limit)
        t.run.tool_timings[str(name)] = ToolTiming(time.monotonic() - started, reply.progress, reply.answered)
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
            t.check(reply.code != -32603, "TOOL-17", f"{name} failed with -32603 instead of an isError result",
                    reply.sent, reply.got)
            t.note(f"{name}: error {reply.code}")
            continue
        t.content(shapes.call_tool_result(reply.result), "TOOL-05", f"the result of {name}", reply, TOOL_UNION)
    t.note(f"called {len(called)} tool(s): " + ", ".join(
        f"{tool.get('name')} ({t.run.tool_timings[str(tool.get('name'))].seconds:.1f} s)" for tool, _ in called))


SLOW = 1.0  # seconds: a tool that took this long (or reported progress twice) can be cancelled while it runs


@server_case(CANCELLATION, "CAN-04", "CAN-18", "CAN-06", call_tools=True)
def cancelled_tool_stops(t: ServerCheck) -> None:
    """With --call-tools: the slowest tool (one that took a second or more, or reported progress
    twice, when it was called) is called again and cancelled while it runs. Once the cancellation
    has had a moment to arrive, no progress for it follows (CAN-04, CAN-18: processing stops) and
    no response either (CAN-06)."""
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
    peer.collect(settle(t))  # a message already on its way when the cancellation arrived is no fault
    after = peer.collect(min(seconds + settle(t), t.run.options.call_timeout))
    progress = [m for m in after if isinstance(m.msg, dict) and m.msg.get("method") == "notifications/progress"
                and shapes.as_dict(m.msg.get("params")).get("progressToken") == token]
    answers = [m for m in after if isinstance(m.msg, dict) and "method" not in m.msg
               and m.msg.get("id") == call.request_id]
    t.check(not progress, "CAN-04", f"{name} kept running after its cancellation: {len(progress)} progress "
            "notification(s) followed", cancel, progress[0].raw if progress else None)
    t.check(not answers, "CAN-06", f"{name} was answered after its cancellation", cancel,
            answers[0].raw if answers else None)
    t.note(f"cancelled {name} (it took {seconds:.1f} s when called)")
    still_serving(t, peer, "CAN-04", "a cancelled tool call")


@server_case(TOOLS, "TOOL-08", call_tools=True)
def tool_arguments_are_validated(t: ServerCheck) -> None:
    """With --call-tools: a tool with required arguments, called without them, or with arguments
    that are not an object, is refused (-32602) or fails with isError; it must not succeed."""
    t.require("tools")
    peer = t.session()
    tool = next((tool for tool in t.info.tools or [] if (tool.get("inputSchema") or {}).get("required")), None)
    if tool is None:
        t.skip("no tool has required arguments")
    for label, arguments in (("without its required arguments", {}), ("with arguments that are not an object", FILLER)):
        reply = peer.request("tools/call", {"name": tool["name"], "arguments": arguments})
        t.answered(reply, f"tools/call {tool['name']} {label}")
        failed = reply.is_error or (isinstance(reply.result, dict) and reply.result.get("isError") is True)
        t.check(failed, "TOOL-08", f"{tool['name']} {label} succeeded", reply.sent, reply.got)


# --- server/resources ----------------------------------------------------------------------------


@server_case(RESOURCES, "RES-01")
def resources_list_is_well_formed(t: ServerCheck) -> None:
    """resources/list returns a resources array; each resource has a uri with a scheme and a name,
    optional description, mimeType (strings), size (integer) and annotations."""
    t.require("resources")
    _, reply, result = first_page(t, "resources/list", "resources", "RES-01")
    t.shape(shapes.list_result(result, "resources", shapes.resource), "RES-01", "the resources/list result", reply)


@server_case(RESOURCES, "RES-01")
def templates_list_is_well_formed(t: ServerCheck) -> None:
    """resources/templates/list returns a resourceTemplates array; each has a uriTemplate with
    balanced braces and a name."""
    t.require("resources")
    _, reply, result = first_page(t, "resources/templates/list", "resourceTemplates", "RES-01")
    t.shape(shapes.list_result(result, "resourceTemplates", shapes.template), "RES-01",
            "the resources/templates/list result", reply)


@server_case(RESOURCES, "RES-01", "RES-10", "RES-15")
def listed_resources_can_be_read(t: ServerCheck) -> None:
    """Each listed resource (up to 20) reads as a contents array of text items (uri, text) or
    blob items (uri, valid base64 blob)."""
    t.require("resources")
    resources = [r for r in t.info.resources or [] if isinstance(r.get("uri"), str)][:MAX_ITEMS]
    if not resources:
        t.skip("the server lists no resource")
    peer = t.session()
    for resource in resources:
        reply = peer.request("resources/read", {"uri": resource["uri"]})
        t.answered(reply, f"resources/read {resource['uri']}")
        if reply.is_error:
            t.note(f"{resource['uri']} is listed but reading it failed with {reply.code}")
            continue
        if len(reply.got or "") > 4 * 1024 * 1024:
            t.note(f"{resource['uri']} is {len(reply.got or '')} characters long: not checked further")
            continue
        problems = shapes.read_result(reply.result)
        t.shape([p for p in problems if "base64" in p], "RES-10", f"reading {resource['uri']}", reply)
        t.shape([p for p in problems if "base64" not in p], "RES-01", f"reading {resource['uri']}", reply)


@server_case(RESOURCES, "RES-06")
def unknown_resource_is_32002(t: ServerCheck) -> None:
    """Reading a URI the server does not have gets error -32002 (Resource not found)."""
    t.require("resources")
    peer = t.session()
    reply = peer.request("resources/read", {"uri": f"{FILLER}://no-such-resource/{secrets.token_hex(4)}"})
    t.expect_error(reply, "RES-06", "reading an unknown resource", (-32002,))


@server_case(RESOURCES, "RES-08")
def read_without_a_uri_is_refused(t: ServerCheck) -> None:
    """resources/read without a uri, or with a uri that is not a string, is refused with an error:
    the server validates resource URIs."""
    t.require("resources")
    peer = t.session()
    for params in ({}, {"uri": 42}):
        reply = peer.request("resources/read", params)
        t.answered(reply, "resources/read with a bad uri")
        t.check(reply.is_error, "RES-08", "resources/read with a missing or non-string uri got a result",
                reply.sent, reply.got)


@server_case(RESOURCES, "RES-01", "AR-03")
def subscribe_and_unsubscribe(t: ServerCheck) -> None:
    """With resources.subscribe declared, subscribing to a listed resource and unsubscribing
    again each return an empty result."""
    t.require("resources", "subscribe")
    resources = [r for r in t.info.resources or [] if isinstance(r.get("uri"), str)]
    if not resources:
        t.skip("the server lists no resource to subscribe to")
    peer = t.session()
    uri = resources[0]["uri"]
    for method in ("resources/subscribe", "resources/unsubscribe"):
        reply = peer.request(method, {"uri": uri})
        result = t.expect_result(reply, "RES-01", f"{method} {uri}", peer=peer)
        t.shape(shapes.empty_result(result), "RES-01", f"the {method} result", reply)


@server_case(RESOURCES, "AR-03")
def subscribe_refused_when_undeclared(t: ServerCheck) -> None:
    """A server with resources but without resources.subscribe does not accept subscriptions."""
    t.require("resources")
    if t.info.declares("resources", "subscribe"):
        t.skip("the server declares resources.subscribe")
    uri = next((r["uri"] for r in t.info.resources or [] if isinstance(r.get("uri"), str)), f"{FILLER}://x")
    refused(t, "resources/subscribe", {"uri": uri}, "AR-03", "resources.subscribe")


@server_case(RESOURCES, "RES-01")
def resources_refused_when_undeclared(t: ServerCheck) -> None:
    """A server that does not declare resources does not serve resources/list."""
    if t.info.declares("resources"):
        t.skip("the server declares resources (the other resources cases check them)")
    refused(t, "resources/list", None, "RES-01", "resources")


@server_case(RESOURCES, "RES-13", audit=True)
def updates_only_for_subscriptions(t: ServerCheck) -> None:
    """notifications/resources/updated arrives only on a connection that subscribed to that URI
    (or to a URI it lies under, which the spec allows)."""
    for peer in t.run.peers:
        subscribed = set()
        for entry in peer.wire.sent_and_received():
            msg = entry.msg
            if entry.direction == "sent" and isinstance(msg, dict) and msg.get("method") == "resources/subscribe":
                params = msg.get("params") or {}
                subscribed.add(str(params.get("uri")))
        for note in peer.notifications:
            if note.get("method") != "notifications/resources/updated":
                continue
            uri = str((note.get("params") or {}).get("uri"))
            if not any(uri == s or uri.startswith(s.rstrip("/") + "/") for s in subscribed):
                t.fail("RES-13", f"an update for {uri}, which this connection never subscribed to", got=str(note))


# --- server/prompts ------------------------------------------------------------------------------


@server_case(PROMPTS, "PRM-01")
def prompts_list_is_well_formed(t: ServerCheck) -> None:
    """prompts/list returns a prompts array; each prompt has a name, an optional description and
    optional arguments, each with a name and a boolean required."""
    t.require("prompts")
    _, reply, result = first_page(t, "prompts/list", "prompts", "PRM-01")
    t.shape(shapes.list_result(result, "prompts", shapes.prompt), "PRM-01", "the prompts/list result", reply)


def required_arguments(prompt: dict[str, Any]) -> list[str]:
    arguments = shapes.as_list(prompt.get("arguments"))
    return [a["name"] for a in arguments if isinstance(a, dict) and a.get("required") is True and isinstance(a.get("name"), str)]


def _row_for(problem: str) -> str:
    """Which prompts row a shape problem breaks: images PRM-03, embedded resources PRM-04/06."""
    if ".content.data" in problem or ".content.mimeType" in problem:
        return "PRM-03"
    if ".content.resource" in problem:
        return "PRM-04" if ".uri" in problem else "PRM-06" if ("text" in problem or "blob" in problem) else "PRM-01"
    return "PRM-01"


def _prompt_findings(t: ServerCheck, name: str, reply: Reply) -> None:
    """Shape problems of a prompts/get result, each against the row that covers it."""
    foreign, problems = shapes.outside_union(shapes.get_prompt_result(reply.result))
    t.content(foreign, "PRM-01", f"prompt {name}", reply, "PromptMessage.content: TextContent, ImageContent or "
              "EmbeddedResource")
    for row in ("PRM-01", "PRM-03", "PRM-04", "PRM-06"):
        t.shape([p for p in problems if _row_for(p) == row], row, f"prompt {name}", reply)
    messages = reply.result.get("messages") if isinstance(reply.result, dict) else None
    for i, message in enumerate(messages if isinstance(messages, list) else []):
        item = message.get("content") if isinstance(message, dict) else None
        if isinstance(item, dict) and item.get("type") == "resource" and isinstance(item.get("resource"), dict):
            t.check(isinstance(item["resource"].get("mimeType"), str), "PRM-05",
                    f"the resource embedded in message {i} of prompt {name} has no mimeType", reply.sent, reply.got)


@server_case(PROMPTS, "PRM-01", "PRM-03", "PRM-04", "PRM-05", "PRM-06", "LC-14")
def listed_prompts_can_be_got(t: ServerCheck) -> None:
    """Each listed prompt (up to 20), got with its required arguments filled in, returns messages
    with role user or assistant and text, image (base64, MIME type) or embedded-resource content
    (URI, MIME type, text or base64 blob); content types of later revisions are LC-14."""
    t.require("prompts")
    prompts = [p for p in t.info.prompts or [] if isinstance(p.get("name"), str)][:MAX_ITEMS]
    if not prompts:
        t.skip("the server lists no prompt")
    peer = t.session()
    for prompt in prompts:
        arguments = {name: FILLER for name in required_arguments(prompt)}
        reply = peer.request("prompts/get", {"name": prompt["name"], "arguments": arguments})
        t.answered(reply, f"prompts/get {prompt['name']}")
        if reply.is_error:
            t.note(f"prompt {prompt['name']} refused the kit's filler arguments ({reply.code})")
            continue
        _prompt_findings(t, prompt["name"], reply)


@server_case(PROMPTS, "PRM-07")
def unknown_prompt_is_32602(t: ServerCheck) -> None:
    """Getting a prompt name the server never listed gets error -32602."""
    t.require("prompts")
    peer = t.session()
    reply = peer.request("prompts/get", {"name": f"{FILLER}-no-such-prompt-{secrets.token_hex(3)}"})
    t.expect_error(reply, "PRM-07", "prompts/get of an unknown prompt", (-32602,))


@server_case(PROMPTS, "PRM-08", "PRM-10")
def missing_required_argument_is_32602(t: ServerCheck) -> None:
    """Getting a prompt without one of its required arguments gets error -32602."""
    t.require("prompts")
    prompt = next((p for p in t.info.prompts or [] if required_arguments(p)), None)
    if prompt is None:
        t.skip("no listed prompt has a required argument")
    peer = t.session()
    reply = peer.request("prompts/get", {"name": prompt["name"], "arguments": {}})
    t.expect_error(reply, "PRM-08", f"prompts/get {prompt['name']} without {required_arguments(prompt)[0]}", (-32602,))


@server_case(PROMPTS, "PRM-01")
def prompts_refused_when_undeclared(t: ServerCheck) -> None:
    """A server that does not declare prompts does not serve prompts/list."""
    if t.info.declares("prompts"):
        t.skip("the server declares prompts (the other prompts cases check them)")
    refused(t, "prompts/list", None, "PRM-01", "prompts")

