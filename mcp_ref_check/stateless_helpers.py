"""What the server cases of revision 2026-07-28 share: which cases a run of it runs, the kit's
plausible answers to a server's questions, the shape of an ``input_required`` result, and the
survey of the server's tools.

Not a spec section: helpers of the conformance checker (beside helpers.py), for
server_stateless.py and server_stateless_http.py. The pages they serve:
  https://modelcontextprotocol.io/specification/2026-07-28/basic/index
  https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr

1. *Which cases*: a run pinned to 2026-07-28 (``--protocol-version 2026-07-28``) has no
   initialize and no session. Its own cases (``era="stateless"``) run; of the cases of the
   handshake's revisions, those in ``ALSO_STATELESS`` run too (they only read lists and results,
   and the kit's peer adds ``_meta`` to every request: peer.py); every other one is SKIP, saying
   why (``stateless_reason``). Every other run leaves the cases of 2026-07-28 out (runner.py), so
   that it is as it was before them, unless ``--only`` asks for them: then they are SKIP, saying
   how to run them; ``--list`` shows them all.
2. *Answers*: when a server asks for input (``inputRequests``), the kit answers as a plausible
   client would (``answer_input``): a form is accepted with values that meet its schema, a
   sampling request gets a short assistant text, roots/list one root.
3. *The survey* (``tool_survey``): once per run, with ``--call-tools``, each listed tool is
   called once on a connection of its own, declaring every client capability and asking for
   log messages at level debug; what came back (a result, ``input_required``, log messages) is
   kept for the cases of multi round-trip requests and of logging.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .model import Case
from .peer import Peer, Reply
from .server_check import ServerCheck
from .shapes import json_text
from .stateless_meta import stateless_meta
from .tool_arguments import arguments_for

META = "io.modelcontextprotocol/"
VERSION_KEY, CAPABILITIES_KEY = META + "protocolVersion", META + "clientCapabilities"
SERVER_INFO_KEY, LOG_LEVEL_KEY, SUBSCRIPTION_KEY = META + "serverInfo", META + "logLevel", META + "subscriptionId"
RESULT_TYPES = ("complete", "input_required")  # RTYPE-01: the core's values
ASKED = {"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}
EVERY_CAPABILITY: dict[str, Any] = {"elicitation": {"form": {}}, "sampling": {}, "roots": {}}
MAX_ROUNDS = 5  # rounds of one multi round-trip request the kit goes through before it stops
MAX_SURVEYED = 20  # tools called by the survey

# Cases of the handshake's revisions that make sense in a run of 2026-07-28: they read lists,
# results and errors the server gives any request, and judge shapes this revision kept.
ALSO_STATELESS = frozenset({
    "lifecycle.keeps-answering",
    "messages.responses-keep-the-request-id",
    "messages.unknown-method-is-32601",
    "messages.notifications-are-not-answered",
    "messages.every-message-is-json-rpc-2",
    "messages.responses-have-result-or-error",
    "messages.errors-have-integer-codes-and-short-messages",
    "messages.each-request-gets-exactly-one-response",
    "messages.answers-wrong-types-in-every-params-field",
    "tools.annotations-and-titles-are-well-formed",
    "tools.output-schema-is-an-object-schema",
    "tools.tools-list-is-well-formed",
    "tools.unknown-tool-is-a-protocol-error",
    "tools.tool-call-without-a-name-is-refused",
    "tools.tool-arguments-are-validated",
    "resources.resources-list-is-well-formed",
    "resources.templates-list-is-well-formed",
    "resources.listed-resources-can-be-read",
    "resources.read-without-a-uri-is-refused",
    "prompts.prompts-list-is-well-formed",
    "prompts.listed-prompts-can-be-got",
    "prompts.unknown-prompt-is-32602",
    "prompts.missing-required-argument-is-32602",
    "completion.completes-a-prompt-argument",
    "completion.completes-a-template-variable",
    "completion.completion-of-an-unknown-prompt-is-refused",
    "completion.completion-with-malformed-params-is-refused",
    "pagination.invalid-cursor-is-32602",
    "pagination.cursors-lead-through-every-page",
    "transports.stdout-carries-only-messages",
    "transports.messages-have-no-embedded-newlines",
    "transports.exits-when-stdin-closes",
})

# Why a case of the handshake is not run in 2026-07-28, by its page (STLS-26: no initialize or
# session; STLS-28: no ping; LOGX-04: no logging/setLevel; HTTPX-26: no Mcp-Session-Id).
WHY_NOT = {
    "basic/lifecycle": "tied to initialize and its session, which 2026-07-28 does not have (STLS-26)",
    "basic/utilities/ping": "2026-07-28 has no ping (STLS-28)",
    "server/utilities/logging": "tied to logging/setLevel, which 2026-07-28 replaced by a log level per request "
                                "(LOGX-04): logging.no-log-message-without-a-level judges that",
    "basic/transports": "tied to the transports of the handshake (sessions, the GET stream, endpoint events), "
                        "which 2026-07-28 does not have (HTTPX-26): the transport cases of 2026-07-28 judge its own",
}


# Of those, the ones whose input is no request of 2026-07-28 (a response POSTed, notifications),
# which over Streamable HTTP this revision refuses with an HTTP status of its own (HTTPX-04, HTTPX-05).
NOT_OVER_HTTP = {"messages.notifications-are-not-answered": "over Streamable HTTP, 2026-07-28 answers a POSTed "
                 "response or notification it does not take with an HTTP error status (HTTPX-04, HTTPX-05), which "
                 "this case of the handshake would take for an answer"}


# Cases whose probes are pings without _meta: requests of the handshake, which 2026-07-28 has not
# (no ping, STLS-28; a request without _meta is refused, STLS-10), so they would judge nothing of it.
PROBES_WITH_PING = frozenset({"messages.answers-unparseable-input-with-32700",
                              "messages.answers-invalid-envelopes-with-32600",
                              "messages.refuses-ids-that-are-not-strings-or-integers"})


def stateless_reason(case: Case, stateless: bool, transport: str = "stdio") -> str | None:
    """Why ``case`` is not run in this run (None: it runs): see the module docstring, point 1."""
    if case.era == "stateless":
        return None if stateless else ("a case of revision 2026-07-28, which has no handshake: it runs with "
                                       "--protocol-version 2026-07-28")
    if stateless and transport == "http" and case.name in NOT_OVER_HTTP:
        return f"not run in revision 2026-07-28: {NOT_OVER_HTTP[case.name]}"
    if not stateless or case.name in ALSO_STATELESS:
        return None
    if case.name in PROBES_WITH_PING:
        return ("not run in revision 2026-07-28: its probes are pings without _meta, requests of the handshake "
                "(2026-07-28 has no ping, STLS-28, and refuses a request without _meta, STLS-10)")
    why = WHY_NOT.get(case.page, "written for a session opened by initialize; not yet judged without one")
    return f"not run in revision 2026-07-28: {why}"


# --- what the kit answers when a server asks (MRTR-05's three kinds) ----------------------------

SAMPLED = {"role": "assistant", "content": {"type": "text", "text": "OK (the conformance checker's sampled answer)"},
           "model": "mcp-ref-check", "stopReason": "endTurn"}
ROOTS = {"roots": [{"uri": "file:///tmp/mcp-ref-check", "name": "mcp-ref-check"}]}


def answer_input(request: Any) -> dict[str, Any]:
    """The kit's answer to one of a server's ``inputRequests``, as a plausible client's: a form
    accepted with values that meet its requestedSchema (declined when none can be made), a URL
    accepted, a sampled assistant text, one root."""
    method = request.get("method") if isinstance(request, dict) else None
    params: dict[str, Any] = request["params"] if isinstance(request, dict) and isinstance(request.get("params"), dict) else {}
    if method == "sampling/createMessage":
        return dict(SAMPLED)
    if method == "roots/list":
        return dict(ROOTS)
    if params.get("mode") == "url":
        return {"action": "accept"}
    content = arguments_for(params.get("requestedSchema", {"type": "object"}))
    return {"action": "accept", "content": content} if content is not None else {"action": "decline"}


def input_required_problems(result: Any, declared: dict[str, Any]) -> tuple[list[str], list[str]]:
    """What is wrong with an ``input_required`` result (MRTR-05, MRTR-10), and the kinds it asks
    that ``declared`` (the capabilities the request brought) leaves out (MRTR-11)."""
    problems: list[str] = []
    undeclared: list[str] = []
    if not isinstance(result, dict):
        return ["the result is not an object"], undeclared
    requests, state = result.get("inputRequests"), result.get("requestState")
    if requests is None and state is None:  # MRTR-10
        problems.append("it has neither inputRequests nor requestState: the client is given nothing to do")
    if "requestState" in result and not isinstance(state, str):
        problems.append(f"requestState is {json_text(state)[:60]}, not a string")
    if requests is not None and not isinstance(requests, dict):
        problems.append(f"inputRequests is {json_text(requests)[:60]}, not an object keyed by the server's names")
    for key, request in (requests.items() if isinstance(requests, dict) else ()):
        method = request.get("method") if isinstance(request, dict) else None
        if method not in ASKED:  # MRTR-05
            problems.append(f"inputRequests[{json_text(key)}] asks {json_text(method)[:60]}, not elicitation/create, "
                            "sampling/createMessage or roots/list")
        elif "params" in request and not isinstance(request["params"], dict):
            problems.append(f"inputRequests[{json_text(key)}].params is not an object")
        elif not isinstance(declared.get(ASKED[method]), dict):  # MRTR-11
            undeclared.append(f"{method} ({json_text(key)})")
    return problems, undeclared


# --- the survey of the tools (point 3) ------------------------------------------------------------


@dataclass
class Called:
    """One tool called by the survey: what was sent, what came back, the log messages meanwhile."""

    tool: str
    arguments: dict[str, Any]
    reply: Reply
    logs: int = 0  # notifications/message that arrived while the call ran

    @property
    def result(self) -> Any:
        return self.reply.result

    @property
    def asks(self) -> bool:
        result = self.reply.result
        return self.reply.is_result and isinstance(result, dict) and result.get("resultType") == "input_required"


@dataclass
class Survey:
    called: list[Called] = field(default_factory=list)
    not_called: list[str] = field(default_factory=list)  # tools whose arguments the kit could not make, and why


def stateless_peer(t: ServerCheck, capabilities: dict[str, Any] | None = None, **more: Any) -> Peer:
    """A connection of the case's own whose requests bring ``capabilities`` (and ``more`` _meta keys)."""
    peer = t.connect()
    peer.meta = stateless_meta(t.version, capabilities, **more)
    return peer


def call_tool(t: ServerCheck, peer: Peer, name: str, arguments: dict[str, Any],
              extra: dict[str, Any] | None = None, request_id: Any = None) -> tuple[Reply, int]:
    """Call a tool (``extra``: inputResponses, requestState...), bounded by --call-timeout; the
    reply, and how many log messages arrived while it ran."""
    before = len(peer.notifications)
    sent = peer.send_request("tools/call", {"name": name, "arguments": arguments, **(extra or {})},
                             request_id=request_id)
    reply = peer.wait(sent, t.run.options.call_timeout)
    logs = sum(1 for n in peer.notifications[before:] if n.get("method") == "notifications/message")
    return reply, logs


def tool_survey(t: ServerCheck) -> Survey:
    """Point 3 of the module docstring: once per run (the first case to ask makes it)."""
    if not t.call_tools:
        t.skip("calls the server's tools: only with --call-tools")
    t.require("tools")
    with t.run.cache_lock:
        survey = t.run.cache.get("tool-survey")
        if survey is None:
            survey = Survey()
            peer = stateless_peer(t, EVERY_CAPABILITY, **{LOG_LEVEL_KEY: "debug"})
            for tool in (t.info.tools or [])[:MAX_SURVEYED]:
                name = tool.get("name")
                arguments = arguments_for(tool.get("inputSchema"))
                if not isinstance(name, str) or arguments is None:
                    survey.not_called.append(str(name))
                    continue
                reply, logs = call_tool(t, peer, name, arguments)
                survey.called.append(Called(name, arguments, reply, logs))
                if not reply.answered and reply.closed:
                    peer = stateless_peer(t, EVERY_CAPABILITY, **{LOG_LEVEL_KEY: "debug"})
            t.run.cache["tool-survey"] = survey
    return survey


def askers(t: ServerCheck) -> list[Called]:
    """The tools that answered the survey ``input_required`` (else the case is SKIP)."""
    survey = tool_survey(t)
    found = [c for c in survey.called if c.asks]
    if not found:
        t.skip(f"none of the {len(survey.called)} tool(s) called asked for input (input_required) when called with "
               "arguments made from its schema, every client capability declared")
    return found
