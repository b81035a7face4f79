"""Server cases for what the revisions after 2024-11-05 add on the server's side: tool annotations
(2025-03-26), titles, structured output and elicitation (2025-06-18), icons (2025-11-25), and
fields of a later revision kept out of an older revision's session.

Not a spec section: cases of the conformance checker (see __init__.py). The spec pages they check:
  https://modelcontextprotocol.io/specification/2025-03-26/server/tools (annotations)
  https://modelcontextprotocol.io/specification/2025-06-18/server/tools (title, outputSchema,
  structuredContent)
  https://modelcontextprotocol.io/specification/2025-06-18/client/elicitation
  https://modelcontextprotocol.io/specification/2025-11-25/basic (icons)

Each case applies the rule of the revision the run agreed on (revisions.py), and is SKIP in a
session of a revision that does not have it. Their IDs are the later revisions' (revisions.ID).
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema

from . import result_shapes, shapes
from .helpers import MAX_ITEMS
from .model import server_case
from .peer import Peer
from .revisions import BASE, ID, newer_than
from .server_check import ServerCheck
from .tool_arguments import arguments_for
from .wire import shown

TOOLS = "server/tools"
LIFECYCLE = "basic/lifecycle"


def listed_tools(t: ServerCheck) -> list[dict[str, Any]]:
    t.require("tools")
    if not t.info.tools:
        t.skip("the server lists no tool")
    return t.info.tools


@server_case(TOOLS, "TOOL-05")
def annotations_and_titles_are_well_formed(t: ServerCheck) -> None:
    """In a session of the revision that brought each field: a listed tool's annotations
    (2025-03-26) are an object whose title is a string and whose hints (readOnlyHint,
    destructiveHint, idempotentHint, openWorldHint) are booleans; its title (2025-06-18) is a
    string; its icons (2025-11-25) an array of objects each with a src. No sentence of those pages
    binds these shapes (their rows, ANNOT-01, TITLE-01, SCHEMA-13, say what the fields mean), so, as
    for every shape of the tools page, a malformed one is judged on TOOL-05, the row of the tools
    capability. Fields of a later revision than the session's are judged by
    lifecycle.no-later-fields-in-an-older-session."""
    t.require_revision("2025-03-26", "tool annotations")
    tools = listed_tools(t)
    judged = [("annotations", "2025-03-26", result_shapes.tool_annotations),
              ("title", "2025-06-18", result_shapes.title), ("icons", "2025-11-25", result_shapes.icons)]
    for key, revision, check in judged:
        if not t.since(revision):
            continue
        problems = [p for i, tool in enumerate(tools) for p in check(tool, f"tools[{i}]")]
        t.shape(problems, "TOOL-05", f"the tools' {key}", rule=f"A server that declares tools lists them in the "
                f"shapes of the agreed revision's tools page: a tool's {key} ({revision}, {ID[key]}) is well formed")
    annotated = sum(1 for tool in tools if isinstance(tool.get("annotations"), dict))
    titled = sum(1 for tool in tools if "title" in tool)
    t.note(f"{annotated} of {len(tools)} tool(s) carry annotations, {titled} a title")


@server_case(TOOLS, "TOOL-05", ID["output-schema"])
def output_schema_is_an_object_schema(t: ServerCheck) -> None:
    """In a session of 2025-06-18 or later: a tool's outputSchema, when present, is a JSON Schema
    object of type "object" (properties an object, required an array of strings), and a schema
    jsonschema accepts. Judged on TOOL-05, the row of the tools capability, as every shape of the
    tools page (OUT-02, the row for outputSchema, is a MAY: a tool may have one)."""
    t.require_revision("2025-06-18", "outputSchema")
    tools = listed_tools(t)
    problems: list[str] = []
    for i, tool in enumerate(tools):
        problems += result_shapes.output_schema(tool, f"tools[{i}]")
        schema = tool.get("outputSchema")
        if isinstance(schema, dict):
            try:
                jsonschema.validators.validator_for(schema).check_schema(schema)
            except jsonschema.SchemaError as exc:
                problems.append(f"tools[{i}].outputSchema is not a valid JSON Schema: {exc.message}")
    t.shape(problems, "TOOL-05", "the tools' outputSchema",
            rule=f"A tool's outputSchema (2025-06-18, {ID['output-schema']}) is a JSON Schema of type \"object\"")
    with_schema = [str(tool.get("name")) for tool in tools if "outputSchema" in tool]
    if not with_schema:
        t.note("no tool declares an outputSchema")


@server_case(TOOLS, ID["structured"], ID["structured-text"], call_tools=True)
def structured_content_conforms(t: ServerCheck) -> None:
    """With --call-tools, in a session of 2025-06-18 or later: each tool that declares an
    outputSchema (and whose input schema the kit can satisfy) is called, and its result, unless
    it is an isError result, carries structuredContent, an object that validates against that
    outputSchema (OUT-03); and, for clients that predate it, the same JSON serialized in a text
    content block (OUT-01, a SHOULD)."""
    t.require_revision("2025-06-18", "structured tool output")
    tools = [tool for tool in listed_tools(t) if isinstance(tool.get("outputSchema"), dict)][:MAX_ITEMS]
    if not tools:
        t.skip("no tool declares an outputSchema")
    peer = t.session()
    called = 0
    for tool in tools:
        arguments = arguments_for(tool.get("inputSchema"))
        if arguments is None:
            t.note(f"{tool.get('name')}: not called (the kit cannot make arguments for its input schema)")
            continue
        reply = peer.request("tools/call", {"name": tool.get("name"), "arguments": arguments},
                             timeout=t.run.options.call_timeout)
        t.answered(reply, f"tools/call {tool.get('name')}")
        result = reply.result
        if not reply.is_result or not isinstance(result, dict) or result.get("isError") is True:
            t.note(f"{tool.get('name')}: no result to judge ({shown(reply.got) if reply.got else 'no answer'})")
            continue
        called += 1
        structured = result.get("structuredContent")
        if not isinstance(structured, dict):
            t.check(False, ID["structured"], f"{tool.get('name')} declares an outputSchema, but its result carries "
                    f"{'no structuredContent' if structured is None else 'a structuredContent that is not an object'}",
                    reply.sent, shown(reply.got))
            continue
        texts = [item.get("text") for item in shapes.as_list(result.get("content"))
                 if isinstance(item, dict) and item.get("type") == "text"]
        t.check(any(_same_json(text, structured) for text in texts), ID["structured-text"],
                f"{tool.get('name')} returns structuredContent but no text content block holding that JSON, which "
                "clients that predate structured output read", reply.sent, shown(reply.got))
        try:
            jsonschema.validate(structured, tool["outputSchema"])
        except jsonschema.ValidationError as exc:
            where = "/".join(str(p) for p in exc.absolute_path) or "(the top)"
            t.check(False, ID["structured"], f"the structuredContent of {tool.get('name')} does not conform to its "
                    f"outputSchema at {where}: {exc.message}", reply.sent, shown(reply.got))
        except jsonschema.SchemaError:
            t.note(f"{tool.get('name')}: its outputSchema is not a valid schema (judged by "
                   "tools.output-schema-is-an-object-schema)")
    if not called:
        t.skip("no tool with an outputSchema returned a result to judge")


def _same_json(text: Any, value: Any) -> bool:
    try:
        return isinstance(text, str) and json.loads(text) == value
    except ValueError:
        return False


def later_fields(item: Any, fields: dict[str, str], version: str, path: str) -> list[str]:
    """The fields of ``item`` that a revision after ``version`` added: "path.field (revision)"."""
    later = newer_than(version)
    if not isinstance(item, dict):
        return []
    return [f"{path}.{key} ({revision})" for key, revision in fields.items() if key in item and revision in later]


@server_case(LIFECYCLE, "LC-14", fresh=True)
def no_later_fields_in_an_older_session(t: ServerCheck) -> None:
    """On a connection of its own that proposes 2024-11-05 alone, a server that agrees on it
    sends no field a later revision added: tools without annotations, title, outputSchema or icons;
    resources, templates and prompts without title or icons; with --call-tools, no structuredContent
    in a tool's result. Unknown fields are allowed (a client ignores them), so this is a warning:
    the session should stick to the version it negotiated (LC-14, a SHOULD in 2024-11-05). A server
    that answers another version is not judged here (lifecycle.answers-with-the-requested-version
    judges what it answers to the run's offer)."""
    peer = t.connect()
    peer.offer = BASE
    init = peer.initialize()
    if not init.is_result:
        t.fail("LC-07", "initialize proposing 2024-11-05 was not answered with a result", init.sent,
               init.got_text(), knock_on=not init.answered)
    agreed = shapes.as_dict(init.result).get("protocolVersion")
    if agreed != BASE:
        t.skip(f"proposed 2024-11-05 alone, the server answered {shapes.json_text(agreed)}")
    found: list[str] = []
    first_reply = None
    for capability, method, key, fields in (("tools", "tools/list", "tools", result_shapes.LATER_TOOL_FIELDS),
                                            ("resources", "resources/list", "resources", result_shapes.LATER_ITEM_FIELDS),
                                            ("resources", "resources/templates/list", "resourceTemplates",
                                             result_shapes.LATER_ITEM_FIELDS),
                                            ("prompts", "prompts/list", "prompts", result_shapes.LATER_ITEM_FIELDS)):
        if not t.info.declares(capability):
            continue
        reply = peer.request(method)
        items = shapes.as_list(shapes.as_dict(reply.result).get(key))
        here = [f for i, item in enumerate(items) for f in later_fields(item, fields, BASE, f"{key}[{i}]")]
        if here and first_reply is None:
            first_reply = reply
        found += here
        if key == "tools" and t.call_tools:
            found += _structured_in_old_session(t, peer, items)
    if found:
        t.check(False, "LC-14", f"in a session that agreed on 2024-11-05, the server sent fields of later revisions: "
                f"{', '.join(found[:8])}{' ...' if len(found) > 8 else ''}. A 2024-11-05 client ignores them "
                "(unknown fields are allowed), but the session should stick to the version it negotiated",
                first_reply.sent if first_reply else None, shown(first_reply.got) if first_reply else None,
                level="SHOULD")


def _structured_in_old_session(t: ServerCheck, peer: Peer, tools: list[Any]) -> list[str]:
    """With --call-tools: call (once each) the tools that declared an outputSchema in the run's own
    listing; a structuredContent in their result is a field of 2025-06-18."""
    found = []
    declared = {str(tool.get("name")): tool for tool in t.info.tools or [] if isinstance(tool.get("outputSchema"), dict)}
    for tool in tools[:MAX_ITEMS]:
        name = str(shapes.as_dict(tool).get("name"))
        if name not in declared:
            continue
        arguments = arguments_for(declared[name].get("inputSchema"))
        if arguments is None:
            continue
        reply = peer.request("tools/call", {"name": name, "arguments": arguments}, timeout=t.run.options.call_timeout)
        found += later_fields(reply.result, result_shapes.LATER_RESULT_FIELDS, BASE, f"the result of {name}")
    return found


# --- elicitation (2025-06-18) ------------------------------------------------------------------------


def elicitation_problems(request: dict[str, Any]) -> list[str]:
    """elicitation/create's params: a message string and a requestedSchema, a flat object schema
    whose properties are primitive (string, number, integer, boolean; enums of strings)."""
    problems: list[str] = []
    params = request.get("params")
    if not shapes.obj(params, "params", problems):
        return problems
    shapes.need(params, "params", "message", "string", problems)
    schema = shapes.need(params, "params", "requestedSchema", "object", problems)
    if schema is None:
        return problems
    if schema.get("type") != "object":
        problems.append(f"params.requestedSchema.type is {shapes.json_text(schema.get('type'))}, not \"object\"")
    properties = shapes.need(schema, "params.requestedSchema", "properties", "object", problems)
    for name, prop in (properties or {}).items():
        kind = shapes.as_dict(prop).get("type")
        if kind not in ("string", "number", "integer", "boolean"):
            problems.append(f"params.requestedSchema.properties.{name}.type is {shapes.json_text(kind)}: a requested "
                            "schema is flat, its properties of primitive types")
    return problems


@server_case(TOOLS, ID["elicit-request"], audit=True)
def elicitation_requests_are_well_formed(t: ServerCheck) -> None:
    """Every elicitation/create the server sent during the run, on any connection (the kit declares
    elicitation and declines on the shared session, when it agreed on 2025-06-18 or later; it is
    the audit of lifecycle.uses-only-client-capabilities that judges one sent where it was not
    declared), has a message and a flat requestedSchema of primitive properties. SKIP when the
    server sent none (a server elicits only when a tool needs it: with --call-tools)."""
    t.require_revision("2025-06-18", "elicitation")
    requests = [r for peer in t.run.peers for r in peer.server_requests if r.get("method") == "elicitation/create"]
    if not requests:
        t.skip("the server sent no elicitation/create" + ("" if t.call_tools else " (tools are called only with "
                                                         "--call-tools)"))
    declined = sum(len(peer.elicited) for peer in t.run.peers)
    t.note(f"{len(requests)} elicitation/create request(s), {declined} declined by the kit")
    for request in requests[:MAX_ITEMS]:
        t.shape(elicitation_problems(request), ID["elicit-request"], "an elicitation/create request",
                rule="elicitation/create has a message and a flat requestedSchema")
