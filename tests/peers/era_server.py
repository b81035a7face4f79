"""Stdio servers of either era, for the client of 2026-07-28 (tests/revisions/test_stateless_client.py).

``python era_server.py mcp_ref V1,V2,...``: an mcp_ref ``Server`` serving those revisions, whose
tools, prompt and resource ask the client for input (elicitation, sampling, roots) in as many
rounds as they are told; in 2026-07-28 each question becomes an ``input_required`` round.

``python era_server.py scripted MODE``: a server written with the standard library alone, one
message a line, that answers ``server/discover`` (and what follows) as MODE says, for what a
well-behaved mcp_ref ``Server`` never does:

- ``legacy-silent``: a server of the handshake that never answers an unknown request;
- ``legacy-invalid``: one that answers ``server/discover`` with -32602 (as some SDKs do);
- ``legacy-crash``: one that exits on ``server/discover``;
- ``legacy-empty``: one that answers any request it does not know with an empty result (as the
  conformance suite's scripted servers do), ``server/discover`` too;
- ``legacy-odd``: one whose ``server/discover`` result names its revisions in a string, not a list;
- ``unsupported-then-ok``: -32022 naming 2026-07-28 for the first request, whatever it says
  (as the conformance suite's mock does), then a server of 2026-07-28;
- ``unsupported-none``: -32022 naming only a revision no client speaks;
- ``unsupported-legacy``: -32022 naming only 2025-11-25, and the handshake of 2025-11-25;
- ``modern``: a server of 2026-07-28 whose tools say what came: ``echo`` answers with every round's
  params and id it received (as JSON text); ``odd`` answers with ``resultType`` "task";
  ``nostate`` asks once without a ``requestState``; ``endless`` asks for ever; ``slow`` asks for
  ever, a quarter second a round; ``bad_ask`` asks for ``tools/list``; ``roots``, ``sampling``,
  ``elicit`` ask once for that; ``no_type`` answers with no ``resultType``.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

MODERN = "2026-07-28"
SERVER_INFO = {"name": "era-server", "version": "1.0"}


def mcp_ref_server(versions: list[str]) -> None:
    from mcp_ref import Server

    server = Server("era-mcp-ref", protocol_versions=versions, instructions="ask me")

    @server.tool()
    def ask(ctx: Any, rounds: int = 1, kind: str = "elicit") -> str:
        """Ask the client ``rounds`` questions of one ``kind`` (elicit, sample, roots), one a round."""
        answers = []
        for n in range(rounds):
            if kind == "elicit":
                answers.append(ctx.elicit(f"Question {n}?", {"answer": str})["content"]["answer"])
            elif kind == "sample":
                answers.append(ctx.create_message([{"role": "user", "content": {"type": "text", "text": f"Q{n}"}}],
                                                  20)["content"]["text"])
            else:
                answers.append(",".join(root["uri"] for root in ctx.list_roots()))
        return "|".join(answers)

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.prompt()
    def greet(ctx: Any) -> str:
        """A greeting for a name the user gives."""
        return "Hello, " + ctx.elicit("Your name?", {"name": str})["content"]["name"]

    @server.resource("asked://roots")
    def roots(ctx: Any) -> str:
        """The client's roots, asked for."""
        return ",".join(root["uri"] for root in ctx.list_roots())

    server.serve_stdio()


def send(msg: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def result(kind: str = "complete", **fields: Any) -> dict[str, Any]:
    return {"resultType": kind, **fields, "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO}}


def scripted(mode: str) -> None:
    seen: list[dict[str, Any]] = []  # echo: every round of the call
    first = True
    for line in sys.stdin:
        msg = json.loads(line)
        method, params, rid = msg.get("method"), msg.get("params") or {}, msg.get("id")
        if rid is None:
            continue  # notifications: initialized, cancelled
        refused_once, first = first and mode == "unsupported-then-ok", False
        if method == "server/discover" and mode.startswith("legacy"):
            if mode == "legacy-crash":
                sys.exit(3)
            if mode == "legacy-invalid":
                send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "Invalid request parameters"}})
            if mode in ("legacy-empty", "legacy-odd"):
                send({"jsonrpc": "2.0", "id": rid, "result": {} if mode == "legacy-empty" else {
                    "supportedVersions": MODERN, "capabilities": {"tools": {}}}})
            continue  # legacy-silent: never a word
        if refused_once or (mode == "unsupported-none" and "_meta" in params) or (
                mode == "unsupported-legacy" and method != "initialize" and "_meta" in params):
            supported = {"unsupported-none": ["2099-01-01"], "unsupported-legacy": ["2025-11-25"]}.get(mode, [MODERN])
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32022, "message": "Unsupported protocol version",
                                                         "data": {"supported": supported, "requested": "?"}}})
        elif method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {
                "protocolVersion": "2025-11-25" if params.get("protocolVersion") != "2024-11-05" else "2024-11-05",
                "capabilities": {"tools": {}}, "serverInfo": SERVER_INFO}})
        elif method == "server/discover":
            send({"jsonrpc": "2.0", "id": rid, "result": result(supportedVersions=[MODERN], capabilities={"tools": {}},
                                                                  instructions="scripted")})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": rid, "result": result(tools=[{"name": "echo", "inputSchema": {"type": "object"}}])})
        elif method == "tools/call":
            send({"jsonrpc": "2.0", "id": rid, "result": call(params, rid, seen)})
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": rid, "result": {}})
        else:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}})


ASKS = {"roots": {"method": "roots/list", "params": {}},
        "sampling": {"method": "sampling/createMessage", "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Capital of France?"}}], "maxTokens": 9}},
        "elicit": {"method": "elicitation/create", "params": {
            "message": "Confirm?", "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}},
        "bad_ask": {"method": "tools/list", "params": {}}}


def call(params: dict[str, Any], rid: Any, seen: list[dict[str, Any]]) -> dict[str, Any]:
    name = params.get("name")
    seen.append({"id": rid, "params": params})
    rounds = sum(1 for round_ in seen if round_["params"].get("name") == name)  # this one's, so far
    if name == "odd":
        return result("task", taskId="t1")
    mine = [round_ for round_ in seen if round_["params"].get("name") == name]
    if name == "no_type":  # as an earlier server answers (RTYPE-04)
        return {"content": [{"type": "text", "text": json.dumps(mine)}]}
    if name in ("endless", "slow"):
        if name == "slow":
            time.sleep(0.25)
        return result("input_required", requestState=f"round {rounds}")
    if name == "echo" and rounds <= int(params.get("arguments", {}).get("rounds", 2)) - 1:
        return result("input_required", inputRequests={f"q{rounds}": ASKS["elicit"]},
                      requestState=f"=?not base64?= \u00e9 {rounds} \" \\ ")  # opaque, and awkward on purpose
    if name == "nostate" and "inputResponses" not in params:
        return result("input_required", inputRequests={"only": ASKS["elicit"]})
    if name in ASKS and "inputResponses" not in params:
        return result("input_required", inputRequests={"k": ASKS[name]}, requestState="s")
    return result(content=[{"type": "text", "text": json.dumps(mine)}])


if __name__ == "__main__":
    if sys.argv[1] == "mcp_ref":
        mcp_ref_server(sys.argv[2].split(","))
    else:
        scripted(sys.argv[2])
