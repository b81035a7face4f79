"""The server the official conformance suite's server scenarios run against (``npx
@modelcontextprotocol/conformance server --url URL``): an mcp_ref Server offering the tools,
resources and prompts the scenarios call by name, with the content the suite's descriptions
ask for. Served with ``mcp-ref serve tests/interop/conformance_server.py:server --transport http``.

What 2024-11-05 cannot express is left out, and the scenarios that need it fail for that
reason (tests/interop/test_conformance_suite.py lists them): audio content (2025-03-26),
elicitation (2025-06-18), JSON Schema 2020-12 tool schemas and SSE polling (2025-11-25).
"""

from __future__ import annotations

import base64
import time

from mcp_ref import EmbeddedResource, Image, RequestContext, Server

# A 1x1 red PNG.
PIXEL = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")

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
