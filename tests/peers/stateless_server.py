"""A server of revision 2026-07-28 for tests/revisions/test_stateless*.py, test_versioning.py and test_mrtr.py.

Serve it over stdio with ``python -m mcp_ref serve tests/peers/stateless_server.py:server`` (a
dual-era server: the handshake revisions and 2026-07-28), ``...:modern_server`` (2026-07-28
alone) or ``...:legacy_server`` (the handshake revisions alone), ``...:limited_server`` (three
tools/call per process, then -32010); or import ``build`` and serve one
over HTTP in-process. The request state key comes from ``MCP_REF_REQUEST_STATE_KEY`` (the test sets it).

What it offers, each feature for one family of tests:

- tools: ``add`` (pure), ``greet`` (one elicitation), ``rounds`` (``n`` elicitations one after
  another: n rounds), ``sample`` (sampling), ``roots`` (roots/list), ``survey`` (``mrtr.ask``:
  three questions at once under its own keys), ``counted`` (a side effect before its question,
  to show the handler runs again each round; ``runs`` reads the counter), ``chatty`` (logs at
  four levels and reports progress), ``wait`` (waits until cancelled, then counts it in
  ``cancellations``);
- resources: ``file:///note.txt`` (plain), ``secret://vault`` (asks for a password), the
  template ``notes://{topic}``;
- prompts: ``plain`` (no question), ``interview`` (asks for a name);
- completions: ``plain``'s ``style`` (a fixed list) and ``topic`` (a completer that asks the
  client, which 2026-07-28 does not allow outside tools/call, prompts/get and resources/read).
"""

from __future__ import annotations

import json
import threading
from typing import Any

from mcp_ref import RequestContext, Server
from mcp_ref.lifecycle import REVISIONS
from mcp_ref.revisions import mrtr

counters = {"counted": 0, "cancellations": 0}
_lock = threading.Lock()


def _bump(name: str) -> int:
    with _lock:
        counters[name] += 1
        return counters[name]


def build(protocol_versions: list[str] | None = None, name: str = "stateless-peer", **options: Any) -> Server:
    """A fresh server with every feature above, speaking ``protocol_versions`` (None: all);
    ``options`` go to ``Server`` (``rate_limits=``, say)."""
    server = Server(name, version="2.0.0", instructions="A server of 2026-07-28 for tests.",
                    protocol_versions=protocol_versions, title="Stateless peer", **options)

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @server.tool()
    def greet(ctx: RequestContext) -> str:
        """Ask the user's name, then greet them."""
        answer = ctx.elicit("Your name?", {"name": str})
        return f"Hello, {answer['content']['name']}!" if answer["action"] == "accept" else f"no name: {answer['action']}"

    @server.tool()
    def rounds(ctx: RequestContext, n: int) -> str:
        """Ask ``n`` questions, one after another."""
        answers = [ctx.elicit(f"Question {i}?", {"answer": str})["content"]["answer"] for i in range(1, n + 1)]
        return " ".join(answers)

    @server.tool()
    def sample(ctx: RequestContext) -> str:
        """Ask the client's model."""
        result = ctx.create_message(["Say hi"], 20)
        return f"model said: {result['content']['text']}"

    @server.tool()
    def sample_tools(ctx: RequestContext) -> str:
        """Ask the client's model, offering it a tool (needs ``sampling.tools``)."""
        tool = {"name": "lookup", "inputSchema": {"type": "object"}}
        return str(ctx.create_message(["Look it up"], 20, tools=[tool])["content"])

    @server.tool()
    def sample_context(ctx: RequestContext) -> str:
        """Ask the client's model with this server's context (needs ``sampling.context``)."""
        return str(ctx.create_message(["Say hi"], 20, include_context="thisServer")["content"])

    @server.tool()
    def open_page(ctx: RequestContext) -> str:
        """Send the user to a page (needs ``elicitation.url``)."""
        return str(ctx.elicit_url("Sign in there", "https://example.com/sign-in", elicitation_id="e-1")["action"])

    @server.tool()
    def roots(ctx: RequestContext) -> str:
        """List the client's roots."""
        return " ".join(root["uri"] for root in ctx.list_roots())

    @server.tool()
    def survey(ctx: RequestContext) -> str:
        """Ask three things at once, under keys of our own."""
        answers = mrtr.ask(ctx, {
            "user_name": {"method": "elicitation/create", "params": {
                "message": "Name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}},
            "summary": {"method": "sampling/createMessage", "params": {
                "messages": [{"role": "user", "content": {"type": "text", "text": "Summarize"}}], "maxTokens": 9}},
            "where": {"method": "roots/list", "params": {}},
        })
        return json.dumps(answers, sort_keys=True)

    @server.tool()
    def counted(ctx: RequestContext) -> str:
        """Count a run (a side effect before the question), then ask."""
        runs = _bump("counted")
        answer = ctx.elicit("Go on?", {"go": bool})
        return f"{answer['action']} after {runs} runs"

    @server.tool()
    def runs() -> int:
        """How many times ``counted`` ran."""
        return counters["counted"]

    @server.tool()
    def chatty(ctx: RequestContext) -> str:
        """Log at four levels and report progress twice."""
        for level in ("debug", "info", "warning", "error"):
            ctx.log(level, f"a {level} message")
        ctx.report_progress(1, 2)
        ctx.report_progress(2, 2)
        return "done"

    @server.tool()
    def wait(ctx: RequestContext, seconds: float = 20) -> str:
        """Wait until cancelled (or ``seconds``)."""
        if ctx.cancelled.wait(seconds):
            _bump("cancellations")
            return "cancelled"
        return "waited"

    @server.tool()
    def cancellations() -> int:
        """How many ``wait`` calls were cancelled."""
        return counters["cancellations"]

    @server.resource("file:///note.txt", mime_type="text/plain")
    def note() -> str:
        return "a note"

    @server.resource("secret://vault", mime_type="text/plain")
    def vault(ctx: RequestContext) -> str:
        answer = ctx.elicit("Password?", {"password": str})
        return "opened" if answer["content"]["password"] == "sesame" else "still locked"

    @server.resource_template("notes://{topic}")
    def notes(topic: str) -> str:
        return f"notes on {topic}"

    @server.prompt()
    def plain(topic: str, style: str = "short") -> str:
        """A prompt that asks nothing."""
        return f"Write a {style} text about {topic}"

    @server.prompt()
    def interview(ctx: RequestContext) -> str:
        """A prompt that asks the user's name first."""
        answer = ctx.elicit("Who is interviewed?", {"name": str})
        return f"Interview {answer['content']['name']}"

    server.add_completion("ref/prompt", "plain", "style", ["short", "long"])

    @server.completion("ref/prompt", "plain", "topic")
    def topics(value: str, ctx: RequestContext) -> list[str]:
        ctx.elicit("Which topics?", {"topic": str})  # not allowed in completion/complete (MRTR-04)
        return [value]

    return server


server = build()  # both eras
modern_server = build(["2026-07-28"], name="modern-only")
legacy_server = build(list(REVISIONS), name="handshake-only")
limited_server = build(name="limited", rate_limits={"tools/call": (0.001, 3)})  # three calls, then -32010

if __name__ == "__main__":
    server.serve_stdio()
