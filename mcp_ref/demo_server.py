"""The bundled demo server that ``mcp-ref serve`` and ``mcp-ref demo`` use.

Not a spec section: it is an example of a server built with mcp_ref, meant to be read. Every
feature the library implements is shown by one small handler here.
"""

from __future__ import annotations

import base64
import threading
from pathlib import Path

from mcp_ref import EmbeddedResource, Image, RequestContext, ResourceNotFound, Server

server = Server(
    "mcp-ref-demo",
    version="0.1.0",
    instructions="A demonstration server for mcp_ref: try its tools, resources and prompts.",
)

# A 1x1 PNG, to show binary content.
LOGO_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
NOTES = {
    "mcp": "MCP connects language-model hosts to servers of tools, resources and prompts.",
    "jsonrpc": "Every MCP message is a JSON-RPC 2.0 request, response or notification.",
    "stdio": "Over stdio, each message is one line of JSON on the server's stdin or stdout.",
}
LANGUAGES = ["python", "javascript", "typescript", "go", "rust", "java", "ruby", "c", "cpp"]

_counter = 0
_counter_lock = threading.Lock()


# --- tools (server/tools) ------------------------------------------------------------------------


@server.tool()
def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


@server.tool()
def fail(reason: str = "it was asked to") -> str:
    """A tool that always fails, to show an isError result."""
    raise RuntimeError(f"this tool failed because {reason}")


@server.tool()
def slow_count(ctx: RequestContext, steps: int = 5, delay: float = 0.2) -> str:
    """Count to `steps`, one step every `delay` seconds, reporting progress; stops when cancelled."""
    for step in range(1, steps + 1):
        if ctx.cancelled.wait(delay):
            return f"cancelled at step {step}"
        ctx.report_progress(step, steps)
    return f"counted to {steps}"


@server.tool()
def show_logo() -> list[object]:
    """Return an image and an embedded resource."""
    return [Image(LOGO_PNG), EmbeddedResource("demo://readme", README)]  # image/png is read from the bytes


@server.tool()
def increment() -> str:
    """Add one to demo://counter; subscribers get notifications/resources/updated."""
    global _counter
    with _counter_lock:
        _counter += 1
        value = _counter
    server.notify_resource_updated("demo://counter")
    return f"counter is now {value}"


@server.tool()
def toggle_extra_tool() -> str:
    """Add the tool `extra`, or remove it if it is there; clients get notifications/tools/list_changed."""
    if "extra" in server.tools:
        server.tools.remove("extra")
        return "removed the tool extra"
    server.tool(name="extra", description="A tool that comes and goes.")(lambda: "extra!")
    return "added the tool extra"


@server.tool()
def log_something(ctx: RequestContext, message: str = "hello from the demo server") -> str:
    """Send a log message at each of three levels; the client's setLevel decides which arrive."""
    sent = [level for level in ("debug", "info", "warning") if ctx.log(level, {"message": message}, logger="demo")]
    return f"sent at: {', '.join(sent) or 'no level (all below the threshold)'}"


@server.tool()
def ask_model(ctx: RequestContext, question: str = "What is MCP, in one sentence?") -> str:
    """Ask the client's language model (client/sampling) and return its answer."""
    result = ctx.create_message([question], max_tokens=100, system_prompt="Answer briefly.",
                                model_preferences={"hints": [{"name": "small"}], "speedPriority": 0.8})
    answer = result["content"].get("text", "(non-text answer)")
    return f"{result['model']} says: {answer}"


@server.tool()
def list_client_roots(ctx: RequestContext) -> str:
    """List the client's roots (client/roots)."""
    roots = ctx.list_roots()
    return "\n".join(f"{root.get('name', '(unnamed)')}: {root['uri']}" for root in roots) or "(no roots)"


@server.on_roots_changed
def roots_changed(ctx: RequestContext) -> None:
    """When the client's roots change, fetch them again (ROOT-22) and log how many there are."""
    ctx.log("info", {"roots": len(ctx.list_roots())}, logger="demo")


# --- resources (server/resources) ----------------------------------------------------------------

README = "This is mcp_ref's demo server. It has tools, resources, templates and prompts."


@server.resource("demo://readme", name="readme", mime_type="text/plain")
def readme() -> str:
    """A short text resource."""
    return README


@server.resource("demo://logo.png", name="logo", mime_type="image/png")
def logo() -> bytes:
    """A binary resource (sent as base64)."""
    return LOGO_PNG


@server.resource("demo://counter", name="counter", mime_type="text/plain")
def counter() -> str:
    """A resource that changes: call the increment tool, after subscribing."""
    with _counter_lock:
        return str(_counter)


@server.resource_template("demo://notes/{topic}", name="note", mime_type="text/plain")
def note(topic: str) -> str:
    """A note about one topic: mcp, jsonrpc or stdio."""
    if topic not in NOTES:
        raise ResourceNotFound(f"Resource not found: there is no note about {topic!r}", {"uri": f"demo://notes/{topic}"})
    return NOTES[topic]


server.add_completion("ref/resource", "demo://notes/{topic}", "topic", sorted(NOTES))

SOURCE_ROOT = Path(__file__).resolve().parent  # the mcp_ref package: read it through MCP


@server.resource_template("demo://source/{+path}", name="source", mime_type="text/x-python")
def source(path: str) -> str:
    """A file of mcp_ref's own source, e.g. demo://source/session.py. Nothing outside it."""
    try:
        file = (SOURCE_ROOT / path).resolve()
        if file.is_relative_to(SOURCE_ROOT) and file.suffix == ".py" and file.is_file():  # RES-08
            return file.read_text(encoding="utf-8")
    except (OSError, ValueError):  # a name too long for the file system, say: no such file either
        pass
    raise ResourceNotFound(f"Resource not found: no source file {path!r}", {"uri": f"demo://source/{path}"})


server.add_completion("ref/resource", "demo://source/{+path}", "path",
                      sorted(p.name for p in SOURCE_ROOT.glob("*.py")))


# --- prompts (server/prompts) --------------------------------------------------------------------


@server.prompt()
def greeting() -> str:
    """A plain prompt with no arguments."""
    return "Say hello to the person learning MCP."


@server.prompt()
def review_code(code: str, language: str = "python") -> list[dict[str, object]]:
    """Ask for a code review: one required and one optional argument."""
    return [
        {"role": "user", "content": f"Please review this {language} code:\n\n{code}"},
        {"role": "assistant", "content": "Sure. Let me read it carefully."},
    ]


@server.prompt()
def explain_readme() -> list[dict[str, object]]:
    """A prompt that embeds a resource."""
    return [
        {"role": "user", "content": EmbeddedResource("demo://readme", README, "text/plain")},
        {"role": "user", "content": "Explain this document in one sentence."},
    ]


server.add_completion("ref/prompt", "review_code", "language", LANGUAGES)
