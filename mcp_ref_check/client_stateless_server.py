"""The checking server of revision 2026-07-28: what ``mcp-ref check client --protocol-version
2026-07-28`` serves the client under test, and what it records for the cases.

Not a spec section: the stateless counterpart of client_check.CheckingServer. The pages it serves:
  https://modelcontextprotocol.io/specification/2026-07-28/basic/index
  https://modelcontextprotocol.io/specification/2026-07-28/server/discover
  https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr

1. No handshake: every request must name revision 2026-07-28 in ``_meta`` with the client's
   capabilities; one without is refused -32602, one naming another revision -32022 listing
   2026-07-28, and ``initialize`` gets -32022 too (a modern-only server lists its versions to any
   initialize, STLS-23). The server sends nothing of its own: it only answers.
2. It answers ``server/discover``, ``tools/list`` (one tool, ``echo``), ``tools/call``,
   ``prompts/list`` and ``prompts/get``, -32601 for anything else; every result carries
   ``resultType``, the server's name in ``_meta``, and the caching hints where they belong.
3. Every ``tools/call`` is a multi round-trip request: round one answers ``input_required``,
   asking for what the request's capabilities allow (a form, a sampled message, the roots), with
   a ``requestState`` (``STATE``) that holds characters a careless client would change; round two,
   when that state came back, asks once more (key ``confirm``) *without* a state (so that a
   client that echoes a state it was not given is seen), when the client declared something to
   ask; the retry that answers ``confirm`` gets the tool's result. A retry carrying any other
   state is refused -32602.
4. What it saw, in order (``ClientSession.exchanges``): each request and the answer it got.
"""

from __future__ import annotations

from typing import Any

from .revisions import is_stateless
from .shapes import as_dict
from .wire import WaitTimeout, encode

REVISION = "2026-07-28"
META = "io.modelcontextprotocol/"
VERSION_KEY, CAPABILITIES_KEY, CLIENT_INFO_KEY = META + "protocolVersion", META + "clientCapabilities", META + "clientInfo"
SERVER_INFO = {"name": "mcp-ref-check", "version": "0.1.0"}
CAPABILITIES: dict[str, Any] = {"tools": {}, "prompts": {}}
CACHEABLE = ("server/discover", "tools/list", "prompts/list")
# Round one's state: quotes, a backslash, a slash, non-ASCII and spaces, all of which a client
# that decodes, trims or re-encodes it would change (MRTR-13, MRTR-15: it goes back unchanged).
STATE = 'mcp-ref-check/1 "opaque" \\ état ☃ +/= '
ECHO_TOOL = {"name": "echo", "description": "Returns its text argument, once the client has answered what it asks.",
             "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}
HELLO_PROMPT = {"name": "hello", "description": "Say hello.", "arguments": [{"name": "name", "required": False}]}
FORM = {"mode": "form", "message": "A conformance probe: any answer will do.",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string", "title": "Name"}},
                            "required": ["name"]}}
SAMPLE = {"messages": [{"role": "user", "content": {"type": "text", "text": "Say OK (a conformance probe)."}}],
          "maxTokens": 16}
MAX_CALLS = 50  # tools/call answered with rounds; after that, at once
MAX_FROM_CLIENT = 10000  # messages from the client kept for the cases (as client_check.py keeps)


def questions(capabilities: dict[str, Any]) -> dict[str, Any]:
    """What the server asks a client with ``capabilities``, only of the kinds it declared
    (MRTR-11): a form (elicitation with form mode, or an empty object, which means form), a
    sampled message, the roots; keyed ``elicit``, ``sample``, ``roots``."""
    asked: dict[str, Any] = {}
    elicitation = capabilities.get("elicitation")
    if isinstance(elicitation, dict) and (not elicitation or "form" in elicitation):
        asked["elicit"] = {"method": "elicitation/create", "params": dict(FORM)}
    if isinstance(capabilities.get("sampling"), dict):
        asked["sample"] = {"method": "sampling/createMessage", "params": dict(SAMPLE)}
    if isinstance(capabilities.get("roots"), dict):
        asked["roots"] = {"method": "roots/list", "params": {}}
    return asked


class StatelessCheckingServer:
    """The checking server of 2026-07-28 on a link (see the module docstring)."""

    def __init__(self, link: Any, session: Any, timeout: float) -> None:
        self.link = link
        self.s = session
        self.timeout = timeout
        self.calls = 0

    def serve(self) -> None:
        while True:
            try:
                incoming = self.link.receive(3600)
            except WaitTimeout:
                continue
            if incoming is None:
                break
            if len(self.s.from_client) >= MAX_FROM_CLIENT:
                continue
            self.s.from_client.append(incoming)
            msg = incoming.msg
            if isinstance(msg, dict) and isinstance(msg.get("method"), str) and "id" in msg:
                answer = self.answer(msg)
                self.link.send_recorded(encode(answer))
                self.s.exchanges.append((msg, answer))

    def answer(self, msg: dict[str, Any]) -> dict[str, Any]:
        method, rid = msg["method"], msg["id"]
        params = as_dict(msg.get("params"))
        meta = as_dict(params.get("_meta"))
        if method == "initialize":  # STLS-23: a server of this revision alone lists its versions
            return error(rid, -32022, f"Unsupported protocol version: this server speaks {REVISION} only, with no "
                         "initialize", {"supported": [REVISION]})
        if VERSION_KEY not in meta:  # STLS-10
            return error(rid, -32602, f"Invalid params: a request of {REVISION} names its revision in "
                         f"_meta[{VERSION_KEY!r}]")
        if meta[VERSION_KEY] != REVISION:  # STLS-16
            return error(rid, -32022, f"Unsupported protocol version {meta[VERSION_KEY]!r}",
                         {"supported": [REVISION], "requested": meta[VERSION_KEY]})
        capabilities = meta.get(CAPABILITIES_KEY)
        if not isinstance(capabilities, dict):  # STLS-10
            return error(rid, -32602, f"Invalid params: _meta[{CAPABILITIES_KEY!r}] must be an object")
        if self.s.client_init is None:  # what the report's header shows of the client
            self.s.client_init = {"protocolVersion": meta[VERSION_KEY], "capabilities": capabilities,
                                  "clientInfo": meta.get(CLIENT_INFO_KEY)}
        if method == "server/discover":
            return complete(rid, method, {"supportedVersions": [REVISION], "capabilities": dict(CAPABILITIES),
                                          "instructions": "The mcp-ref conformance checker's server (2026-07-28): "
                                                          "every tool call asks for input first."})
        if method == "tools/list":
            return complete(rid, method, {"tools": [ECHO_TOOL]})
        if method == "prompts/list":
            return complete(rid, method, {"prompts": [HELLO_PROMPT]})
        if method == "prompts/get":
            name = as_dict(params.get("arguments")).get("name", "you")
            return complete(rid, method, {"messages": [{"role": "user", "content": {"type": "text",
                                                                                     "text": f"Hello, {name}."}}]})
        if method == "tools/call":
            return self.call(rid, params, capabilities)
        return error(rid, -32601, f"Method not found: {method}")

    def call(self, rid: Any, params: dict[str, Any], capabilities: dict[str, Any]) -> dict[str, Any]:
        """Point 3 of the module docstring."""
        if params.get("name") != "echo":
            return error(rid, -32602, f"Unknown tool: {params.get('name')!r}")
        self.calls += 1
        responses = as_dict(params.get("inputResponses"))
        text = {"content": [{"type": "text", "text": str(as_dict(params.get("arguments")).get("text", ""))}]}
        if self.calls > MAX_CALLS:
            return complete(rid, "tools/call", text)
        if "requestState" in params:
            if params["requestState"] != STATE:  # MRTR-15: the state comes back as it was given
                return error(rid, -32602, "Invalid params: requestState refused: it is not the one this server gave",
                             {"field": "requestState"})
            asked = questions(capabilities)
            if not asked:
                return complete(rid, "tools/call", text)
            confirm = {"confirm": next(iter(asked.values()))}
            return answer_of(rid, {"resultType": "input_required", "inputRequests": confirm})  # no state this time
        if "confirm" in responses:
            return complete(rid, "tools/call", text)
        return answer_of(rid, {"resultType": "input_required", "inputRequests": questions(capabilities),
                               "requestState": STATE})


def stateless(session: Any) -> bool:
    """Whether a client run (client_check.ClientSession) is one of 2026-07-28: no initialize, no
    probes; client_stateless.py judges it."""
    return is_stateless(session.pinned)


def checking_server(handshake_server: Any, link: Any, session: Any, timeout: float, probing: bool) -> Any:
    """The checking server of a client run: this module's in a run of 2026-07-28, else
    ``handshake_server`` (client_check.CheckingServer) as before."""
    if not stateless(session):
        return handshake_server(link, session, timeout, probing=probing)
    session.version = session.pinned or session.version
    return StatelessCheckingServer(link, session, timeout)


def answer_of(rid: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "result": {**result, "_meta": {META + "serverInfo": dict(SERVER_INFO)}}}


def complete(rid: Any, method: str, result: dict[str, Any]) -> dict[str, Any]:
    """A complete result: its resultType, the server's name, and caching hints where they belong."""
    hints = {"ttlMs": 0, "cacheScope": "private"} if method in CACHEABLE else {}
    return answer_of(rid, {"resultType": "complete", **result, **hints})


def error(rid: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return {"jsonrpc": "2.0", "id": rid, "error": body}
