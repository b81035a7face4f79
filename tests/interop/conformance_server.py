"""The server the official conformance suite's server scenarios run against
(``conformance server --url URL``; tests/interop/test_conformance_suite.py): an mcp_ref Server
offering every tool, resource and prompt the scenarios of the suite's 2025-11-25 requirement set
call by name, with the content each scenario's description asks for. Served with
``mcp-ref serve tests/interop/conformance_server.py:server --transport http``.

What later revisions add is written here already, in the shape the scenarios check, so each
such scenario passes the day mcp_ref learns it and fails until then for that reason only
(test_conformance_suite.py's EXPECTED_TO_FAIL says which, and why):

1. audio content (2025-03-26): ``test_audio_content`` returns a result dict with an audio item;
   a library that knows no audio item sends it as JSON text instead;
2. elicitation (2025-06-18, with the defaults and enum schemas of 2025-11-25): three tools ask
   through ``ctx.elicit(message, requested_schema)``, and fail saying so while the request
   context has no ``elicit``;
3. JSON Schema 2020-12 tool schemas (2025-11-25): ``json_schema_2020_12_tool`` declares one,
   which must reach ``tools/list`` with every keyword kept;
4. SSE polling (2025-11-25): ``test_reconnection`` is an ordinary tool here; a server that may
   close a call's event stream early and let the client resume it is a later feature.
5. Requests that ask for input (2026-07-28, revisions/mrtr.py): the ``test_input_required_result_*``
   tools and prompt ask the client under the keys each scenario names, with ``mrtr.ask``; the
   tools the stateless scenario calls by name ask with ``ctx.elicit`` and log with ``ctx.log``
   as any tool does.
"""

from __future__ import annotations

import base64
import io
import time
import wave
from typing import Any

from mcp_ref import EmbeddedResource, Image, RequestContext, Server
from mcp_ref.revisions import mrtr

# A 1x1 red PNG.
PIXEL = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")


def silence(samples: int = 8) -> bytes:
    """A tiny WAV file: a few samples of silence, 8 kHz, mono, 16 bits."""
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(8000)
        wav.writeframes(b"\0\0" * samples)
    return out.getvalue()

server = Server("mcp-ref-conformance", version="0.1.0")


@server.tool()
def test_simple_text() -> str:
    """Returns a simple text."""
    return "This is a simple text response for testing."


@server.tool()
def test_image_content() -> Image:
    """Returns an image."""
    return Image(PIXEL, "image/png")


@server.tool()
def test_embedded_resource() -> EmbeddedResource:
    """Returns an embedded resource."""
    return EmbeddedResource("test://embedded-resource", "This is an embedded resource content.", "text/plain")


@server.tool()
def test_multiple_content_types() -> list[object]:
    """Returns text, an image and an embedded resource."""
    return ["Multiple content types test:", Image(PIXEL, "image/png"),
            EmbeddedResource("test://mixed-content-resource", '{"test":"data","value":123}', "application/json")]


@server.tool()
def test_tool_with_logging(ctx: RequestContext) -> str:
    """Logs three messages while it runs."""
    for n, text in enumerate(("Tool execution started", "Tool processing data", "Tool execution completed")):
        if n:
            time.sleep(0.05)
        ctx.log("info", text)
    return "Logged three messages."


@server.tool()
def test_error_handling() -> str:
    """Always fails."""
    raise RuntimeError("This tool intentionally returns an error for testing")


@server.tool()
def test_tool_with_progress(ctx: RequestContext) -> str:
    """Reports progress 0, 50 and 100 of 100."""
    for n, value in enumerate((0, 50, 100)):
        if n:
            time.sleep(0.05)
        ctx.report_progress(value, 100)
    return "Progress reported."


@server.tool()
def test_sampling(ctx: RequestContext, prompt: str) -> str:
    """Asks the client's model."""
    reply = ctx.create_message([prompt], 100)
    return f"LLM response: {reply['content'].get('text', '')}"


@server.tool()
def test_audio_content() -> dict[str, Any]:
    """Returns a short WAV file as audio content."""
    audio = {"type": "audio", "data": base64.b64encode(silence()).decode("ascii"), "mimeType": "audio/wav"}
    return {"content": [audio]}


def elicit(ctx: RequestContext, message: str, schema: dict[str, Any]) -> str:
    """Ask the user through the client (elicitation/create) and describe the answer in one line."""
    ask = getattr(ctx, "elicit", None)
    if ask is None:
        raise NotImplementedError("mcp_ref's request context has no elicit() yet: elicitation (2025-06-18) "
                                  "is not built on this branch")
    answer = ask(message, schema)
    return f"action={answer.get('action')}, content={answer.get('content')}"


@server.tool()
def test_elicitation(ctx: RequestContext, message: str) -> str:
    """Asks the user for a username and an email address."""
    schema = {"type": "object", "required": ["username", "email"],
              "properties": {"username": {"type": "string", "description": "Your user name"},
                             "email": {"type": "string", "description": "Your email address"}}}
    return f"User response: {elicit(ctx, message, schema)}"


@server.tool()
def test_elicitation_sep1034_defaults(ctx: RequestContext) -> str:
    """Asks the user for five values of the primitive types, each with a default."""
    schema = {"type": "object", "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "default": True}}}
    return f"Elicitation completed: {elicit(ctx, 'Check the defaults and accept them.', schema)}"


@server.tool()
def test_elicitation_sep1330_enums(ctx: RequestContext) -> str:
    """Asks the user to choose, once in each of the five ways an enum can be written."""
    def titled(**choices: str) -> list[dict[str, str]]:
        return [{"const": value, "title": title} for value, title in choices.items()]

    schema = {"type": "object", "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {"type": "string", "oneOf": titled(value1="First", value2="Second", value3="Third")},
        "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["One", "Two", "Three"]},
        "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
        "titledMulti": {"type": "array", "items": {"anyOf": titled(value1="First", value2="Second")}}}}
    return f"Elicitation completed: {elicit(ctx, 'Pick one of each.', schema)}"


# A tool schema written in JSON Schema 2020-12 with the keywords a lossy library would drop: the
# dialect, definitions with an anchor, a reference, composition, a condition, closed properties.
SCHEMA_2020_12: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                          "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"},
                   "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                   "phone": {"type": "string"}, "email": {"type": "string"}},
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


@server.tool(input_schema=SCHEMA_2020_12)
def json_schema_2020_12_tool(name: str = "", address: dict[str, str] | None = None, contactMethod: str = "",  # noqa: N803
                             phone: str = "", email: str = "") -> str:
    """A tool whose input schema uses JSON Schema 2020-12."""
    return f"Contact {name or 'someone'} by {contactMethod or ('phone' if phone else 'email')}."


@server.tool(input_schema={"type": "object", "required": ["region", "priority"], "properties": {
    "region": {"type": "string", "x-mcp-header": "Region"}, "priority": {"type": "integer", "x-mcp-header": "Priority"}}})
def test_custom_headers(region: str, priority: int) -> str:
    """Arguments mirrored in Mcp-Param-* headers (2026-07-28: the suite's custom header scenario)."""
    return f"{region}/{priority}"


@server.tool()
def test_reconnection() -> str:
    """Answers at once (the suite's SSE polling scenario calls it; see the module's docstring)."""
    return "Reconnection test completed."


@server.resource("test://static-text", name="static-text", description="A static text resource.",
                 mime_type="text/plain")
def static_text() -> str:
    return "This is the content of the static text resource."


@server.resource("test://static-binary", name="static-binary", description="A static binary resource.",
                 mime_type="image/png")
def static_binary() -> bytes:
    return PIXEL


@server.resource("test://watched-resource", name="watched-resource", description="A resource to subscribe to.",
                 mime_type="text/plain")
def watched_resource() -> str:
    return "Watched resource content."


@server.resource_template("test://template/{id}/data", name="template-data", description="Data by id.",
                          mime_type="application/json")
def template_data(id: str) -> dict[str, object]:
    return {"id": id, "templateTest": True, "data": f"Data for ID: {id}"}


@server.prompt()
def test_simple_prompt() -> str:
    """A simple prompt."""
    return "This is a simple prompt for testing."


@server.prompt()
def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
    """A prompt with two arguments."""
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@server.prompt()
def test_prompt_with_embedded_resource(resourceUri: str) -> list[object]:  # noqa: N803 - the suite's name
    """A prompt embedding a resource."""
    return [EmbeddedResource(resourceUri, "Embedded resource content for testing.", "text/plain"),
            "Please process the embedded resource above."]


@server.prompt()
def test_prompt_with_image() -> list[object]:
    """A prompt with an image."""
    return [Image(PIXEL, "image/png"), "Please analyze the image above."]


server.add_completion("ref/prompt", "test_prompt_with_arguments", "arg1", ["paris", "park", "party", "test"])


# --- 2026-07-28: requests that ask the client for input (the input-required-result-* scenarios) ---


def form(message: str, field: str, kind: str = "string") -> dict[str, Any]:
    """An ``elicitation/create`` request for one required field."""
    return {"method": "elicitation/create", "params": {"message": message, "requestedSchema": {
        "type": "object", "properties": {field: {"type": kind}}, "required": [field]}}}


def given(answer: dict[str, Any], field: str) -> Any:
    return (answer.get("content") or {}).get(field)


@server.tool()
def test_input_required_result_elicitation(ctx: RequestContext) -> str:
    """Asks the user's name, then greets them."""
    answer = mrtr.ask(ctx, {"user_name": form("What is your name?", "name")})["user_name"]
    return f"Hello, {given(answer, 'name')}!"


@server.tool()
def test_input_required_result_sampling(ctx: RequestContext) -> str:
    """Asks the client's model for a greeting."""
    reply = ctx.create_message(["Generate a greeting"], 50)
    return f"The model said: {reply.get('content')}"


@server.tool()
def test_input_required_result_list_roots(ctx: RequestContext) -> str:
    """Lists the client's roots."""
    return f"The client has {len(ctx.list_roots())} roots"


@server.tool()
def test_input_required_result_request_state(ctx: RequestContext) -> str:
    """Asks for a confirmation; its answer comes back with the request state."""
    answer = mrtr.ask(ctx, {"confirm": form("Please confirm", "ok", "boolean")})["confirm"]
    return f"state-ok: confirmed {given(answer, 'ok')}"


@server.tool()
def test_input_required_result_multiple_inputs(ctx: RequestContext) -> str:
    """Asks three things at once: a name, a greeting from the model, the roots."""
    answers = mrtr.ask(ctx, {
        "user_name": form("What is your name?", "name"),
        "greeting": {"method": "sampling/createMessage", "params": {"messages": [
            {"role": "user", "content": {"type": "text", "text": "Generate a greeting"}}], "maxTokens": 50}},
        "client_roots": {"method": "roots/list", "params": {}}})
    return f"Got {', '.join(sorted(answers))}"


@server.tool()
def test_input_required_result_multi_round(ctx: RequestContext) -> str:
    """Asks a name, then a colour: two rounds before the result."""
    name = given(mrtr.ask(ctx, {"step1": form("Step 1: What is your name?", "name")})["step1"], "name")
    color = given(mrtr.ask(ctx, {"step2": form("Step 2: What is your favorite color?", "color")})["step2"], "color")
    return f"{name} likes {color}"


@server.tool()
def test_input_required_result_tampered_state(ctx: RequestContext) -> str:
    """Asks for a confirmation; a state altered on its way back is refused."""
    answer = mrtr.ask(ctx, {"confirm": form("Please confirm", "ok", "boolean")})["confirm"]
    return f"confirmed {given(answer, 'ok')}"


@server.tool()
def test_input_required_result_capabilities(ctx: RequestContext) -> str:
    """Asks only what the request's client capabilities allow: the model if it may, else the user."""
    declared = ctx.session.lifecycle.peer_capabilities
    if "sampling" in declared:
        return f"The model said: {ctx.create_message(['Say hello'], 20).get('content')}"
    if "elicitation" in declared:
        return f"Hello, {given(ctx.elicit('What is your name?', {'name': str}), 'name')}!"
    return "nothing to ask"


@server.tool()
def test_missing_capability(ctx: RequestContext) -> str:
    """Needs the client's model: a request whose client did not declare sampling is refused (-32021)."""
    return f"The model said: {ctx.create_message(['Say hello'], 20).get('content')}"


@server.tool()
def test_streaming_elicitation(ctx: RequestContext) -> str:
    """Reports progress, then asks the user: the question travels in the result, never as a request."""
    ctx.report_progress(1, 2)
    return f"Hello, {given(ctx.elicit('What is your name?', {'name': str}), 'name')}!"


@server.tool()
def test_logging_tool(ctx: RequestContext) -> str:
    """Logs at three levels (sent only when the request asked for a level)."""
    for level in ("debug", "info", "warning"):
        ctx.log(level, f"a {level} message")
    return "logged"


@server.prompt()
def test_input_required_result_prompt(ctx: RequestContext) -> str:
    """Asks for the context the prompt should use."""
    answer = mrtr.ask(ctx, {"user_context": form("What context should the prompt use?", "context")})["user_context"]
    return f"Use this context: {given(answer, 'context')}"


# --- 2026-07-28: changes heard through subscriptions/listen (the server-stateless scenario) ---------


@server.tool()
def test_trigger_tool_change() -> str:
    """Adds a tool (once; later calls re-add it): listeners of toolsListChanged hear of it."""
    server.tool("test_added_tool", "A tool added while the server runs.", replace=True)(lambda: "added")
    return "the tool list changed"


@server.tool()
def test_trigger_prompt_change() -> str:
    """Adds a prompt: listeners of promptsListChanged hear of it."""
    server.prompt("test_added_prompt", "A prompt added while the server runs.", replace=True)(lambda: "added")
    return "the prompt list changed"

