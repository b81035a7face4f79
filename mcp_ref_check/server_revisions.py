"""Server cases for what the revisions after 2024-11-05 add on the server's side: tool annotations
(2025-03-26), titles, structured output and elicitation (2025-06-18), icons (2025-11-25), and
fields of a later revision kept out of an older revision's session.

Not a spec section: cases of the conformance checker (see __init__.py). The spec pages they check:
  https://modelcontextprotocol.io/specification/2025-03-26/server/tools (annotations)
  https://modelcontextprotocol.io/specification/2025-06-18/server/tools (title, outputSchema,
  structuredContent)
  https://modelcontextprotocol.io/specification/2025-06-18/client/elicitation
  https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation (URL mode, choices, defaults)
  https://modelcontextprotocol.io/specification/2025-11-25/basic (icons)

Each case applies the rule of the revision the run agreed on (revisions.py), and is SKIP in a
session of a revision that does not have it. Their IDs are the later revisions' (revisions.ID).
"""

from __future__ import annotations

import json
import unicodedata
import urllib.parse
from typing import Any

import jsonschema

from mcp_ref.revisions.elicitation_schema import schema_problem

from . import result_shapes, shapes
from .helpers import MAX_ITEMS
from .model import server_case
from .peer import Peer
from .revisions import BASE, ID, LATEST, newer_than, rule_for, since
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


# --- elicitation (2025-06-18; URL mode, multiple and titled choices, defaults 2025-11-25) -------------

ELICITATION_RULE = ("elicitation/create has a message and a requestedSchema, a flat object of primitive properties by "
                    "the rules of the session's revision (2025-11-25 adds multiple and titled choices, and defaults)")


def elicitation_problems(request: dict[str, Any], version: str = LATEST) -> dict[str, list[str]]:
    """What is wrong with an ``elicitation/create`` the server sent in a session that agreed on
    ``version`` (the newest if not given), by the requirement ID each verdict rests on; ``{}``
    when nothing is.

    - 2025-06-18 has form mode alone: params hold a message string and a requestedSchema object
      (ELIC-06, the one row of that revision that gives the request's shape). A ``mode: "url"``
      request is none of that revision: the negotiated version (NEGO-01) judges it.
    - 2025-11-25: a message string and a mode, "form" or "url", which form mode may leave out
      (ELICU-05); a form-mode request carries a requestedSchema object (ELICU-07); a URL-mode one
      a url, an absolute URL without control characters, and an elicitationId string (ELICU-09).
    - Either: the requestedSchema is judged by mcp_ref's own rules for the session's revision
      (``elicitation_schema.schema_problem``, not strict: unknown keywords of a peer's schema are
      ignored), under ELIC-06, the row that says what a requested schema is (2025-11-25 widened
      it, with multiple and titled choices and defaults, but gave it no row of its own).
    - A revision before 2025-06-18 has no elicitation/create at all (the negotiated version's row).
    """
    verdicts: dict[str, list[str]] = {}

    def add(req_id: str, problems: list[str]) -> None:
        if problems:
            verdicts.setdefault(req_id, []).extend(problems)

    if not since(version, "2025-06-18"):
        add(rule_for("negotiated", version), [f"elicitation/create came with 2025-06-18; this session agreed on {version}"])
        return verdicts
    later = since(version, "2025-11-25")
    request_id = ID["elicit-mode"] if later else ID["elicit-request"]  # the rows of the request's own fields
    problems: list[str] = []
    if not shapes.obj(request.get("params"), "params", problems):
        add(request_id, problems)
        return verdicts
    params = shapes.as_dict(request.get("params"))
    mode = params.get("mode", "form")
    if mode == "url" and not later:
        add(rule_for("negotiated", version), [f'params.mode is "url": URL mode came with 2025-11-25; this session '
                                              f"agreed on {version}"])
        return verdicts
    shapes.need(params, "params", "message", "string", problems)
    if later and mode not in ("form", "url"):
        problems.append(f'params.mode is {shapes.json_text(mode)}, not "form" or "url"')
    if mode == "url":  # (2025-11-25 only, by now)
        add(ID["elicit-url"], problems + url_mode_problems(params))
        return verdicts
    add(request_id, problems)
    if later and mode != "form":
        return verdicts  # no mode to judge the rest by
    problems = []
    schema = shapes.need(params, "params", "requestedSchema", "object", problems)
    add(ID["elicit-form"] if later else ID["elicit-request"], problems)
    if schema is not None:
        problem = schema_problem(schema, version, strict=False)
        add(ID["elicit-request"], [f"params.requestedSchema: {problem}"] if problem is not None else [])
    return verdicts


def url_mode_problems(params: dict[str, Any]) -> list[str]:
    """A URL-mode request's own fields (2025-11-25): an elicitationId string and a url that is a
    valid URL (the schema's ``format: uri``), here: a string without control characters, with a
    scheme and a host (as mcp_ref's client checks it, revisions/elicitation.py)."""
    problems: list[str] = []
    shapes.need(params, "params", "elicitationId", "string", problems)
    url = shapes.need(params, "params", "url", "string", problems)
    if url is None:
        return problems
    controls = sorted({f"U+{ord(c):04X}" for c in url if unicodedata.category(c) == "Cc"})
    if controls:
        problems.append(f"params.url holds control character(s) {', '.join(controls)}")
        return problems
    try:
        parts = urllib.parse.urlsplit(url)
        absolute = bool(parts.scheme and parts.netloc)
    except ValueError:  # an unbalanced [ in the host, say
        absolute = False
    if not absolute:
        problems.append(f"params.url {shapes.json_text(url)} is not an absolute URL (a scheme and a host)")
    return problems


@server_case(TOOLS, ID["elicit-request"], ID["elicit-mode"], ID["elicit-form"], ID["elicit-url"], ID["negotiated"],
             audit=True)
def elicitation_requests_are_well_formed(t: ServerCheck) -> None:
    """Every elicitation/create the server sent during the run, on any connection, is well formed
    for the revision that connection's session agreed on (the kit declares elicitation, form mode
    alone, and declines on its shared sessions when it offers 2025-06-18 or later; it is the audit
    of lifecycle.uses-only-client-capabilities that judges one sent where elicitation, or its mode,
    was not declared). 2025-06-18: a message and a requestedSchema (ELIC-06; a URL-mode request is
    none of that revision: NEGO-01). 2025-11-25: a message, and a mode that form mode may leave out
    (ELICU-05); a form-mode request carries a requestedSchema (ELICU-07), a URL-mode one an absolute
    url and an elicitationId (ELICU-09). The requestedSchema is a flat object of primitive
    properties by the rules of the session's revision, mcp_ref's own (ELIC-06; 2025-11-25 adds
    multiple and titled choices, and defaults). SKIP when the server sent none (a server elicits
    only when a tool needs it: with --call-tools)."""
    t.require_revision("2025-06-18", "elicitation")
    sent = [(peer.agreed or t.version, request) for peer in t.run.peers for request in peer.server_requests
            if request.get("method") == "elicitation/create"]
    if not sent:
        t.skip("the server sent no elicitation/create" + ("" if t.call_tools else " (tools are called only with "
                                                         "--call-tools)"))
    declined = sum(len(peer.elicited) for peer in t.run.peers)
    t.note(f"{len(sent)} elicitation/create request(s), {declined} declined by the kit")
    judged = [(version, request) for version, request in sent if since(version, "2025-06-18")]
    if len(judged) < len(sent):
        t.note(f"{len(sent) - len(judged)} sent in a session of a revision without elicitation: judged by "
               "lifecycle.uses-only-client-capabilities")
    verdicts: dict[str, list[str]] = {}
    for version, request in judged[:MAX_ITEMS]:
        label = f"elicitation/create {shapes.json_text(request.get('id'))} ({version})"
        for req_id, problems in elicitation_problems(request, version).items():
            verdicts.setdefault(req_id, []).extend(f"{label}: {problem}" for problem in problems)
    for req_id, problems in verdicts.items():
        t.shape(problems, req_id, "an elicitation/create request",
                rule=ELICITATION_RULE if req_id == ID["elicit-request"] else None)
