"""Clients of revision 2026-07-28 for ``mcp-ref check client --protocol-version 2026-07-28``: one
right (stdlib, or mcp_ref's own Client) and several each wrong in one way, all calling the
checking server's ``echo`` tool, which asks for input first.

    python stateless_check_client.py --mode MODE SERVER_COMMAND

MODE: ``ours`` (mcp_ref.Client.stdio speaking every revision, with handlers for elicitation, sampling and roots), ``good``
(a stdlib client doing it right), ``no-discover`` (good, without the server/discover probe), or a
mistake: ``same-id`` (a retry reuses the id), ``tampered-state`` (requestState changed),
``state-when-absent`` (sends the old state back when the answer gave none), ``no-capabilities``
(requests lack clientCapabilities), ``no-client-info``, ``partial-answers`` (one asked key left out),
``initialize`` (starts with initialize, then goes on as good).
"""

from __future__ import annotations

import argparse
import json
import selectors
import shlex
import subprocess
import time
from typing import Any

REVISION = "2026-07-28"
CAPS: dict[str, Any] = {"elicitation": {}, "sampling": {}, "roots": {}}
ANSWERS: dict[str, dict[str, Any]] = {"elicitation/create": {"action": "accept", "content": {"name": "Ada"}},
           "sampling/createMessage": {"role": "assistant", "content": {"type": "text", "text": "OK"}, "model": "m",
                                      "stopReason": "endTurn"},
           "roots/list": {"roots": [{"uri": "file:///tmp", "name": "tmp"}]}}


class Stdlib:
    def __init__(self, command: str, mode: str) -> None:
        self.mode = mode
        self.proc = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.selector = selectors.DefaultSelector()
        assert self.proc.stdout is not None
        self.selector.register(self.proc.stdout, selectors.EVENT_READ)
        self.next_id = 1

    def meta(self) -> dict[str, Any]:
        meta: dict[str, Any] = {"io.modelcontextprotocol/protocolVersion": REVISION}
        if self.mode != "no-capabilities":
            meta["io.modelcontextprotocol/clientCapabilities"] = CAPS
        if self.mode != "no-client-info":
            meta["io.modelcontextprotocol/clientInfo"] = {"name": "stateless-check-client", "version": "1"}
        return meta

    def request(self, method: str, params: dict[str, Any], request_id: int | None = None) -> dict[str, Any]:
        rid = self.next_id if request_id is None else request_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": self.meta()}}
        if method == "initialize":
            msg["params"] = params
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if not self.selector.select(deadline - time.monotonic()):
                break
            line = self.proc.stdout.readline()
            if not line:
                break
            answer = json.loads(line)
            if answer.get("id") == rid:
                return dict(answer)
        raise SystemExit(f"no answer to {method}")

    def run(self) -> None:
        if self.mode == "initialize":
            self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                        "clientInfo": {"name": "x", "version": "1"}})
        if self.mode != "no-discover":
            self.request("server/discover", {})
        self.request("tools/list", {})
        params: dict[str, Any] = {"name": "echo", "arguments": {"text": "hi"}}
        first_id = None
        old_state = None
        for _ in range(5):
            answer = self.request("tools/call", params, first_id if self.mode == "same-id" else None)
            first_id = first_id or answer["id"]
            result = answer.get("result") or {}
            if result.get("resultType") != "input_required":
                break
            asked = result.get("inputRequests") or {}
            responses = {key: ANSWERS[request["method"]] for key, request in asked.items()}
            if self.mode == "partial-answers" and len(responses) > 1:
                responses.pop(sorted(responses)[0])
            params = {"name": "echo", "arguments": {"text": "hi"}, "inputResponses": responses}
            if "requestState" in result:
                old_state = result["requestState"]
                params["requestState"] = old_state + ("x" if self.mode == "tampered-state" else "")
            elif self.mode == "state-when-absent" and old_state is not None:
                params["requestState"] = old_state
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(10)


def ours(command: str) -> None:
    from mcp_ref import Client
    from mcp_ref.revisions.stateless_client import ALL_VERSIONS

    with Client.stdio(shlex.split(command), protocol_versions=ALL_VERSIONS,
                      elicitation_handler=lambda params: ANSWERS["elicitation/create"],
                      sampling_handler=lambda params: ANSWERS["sampling/createMessage"],
                      roots=[{"uri": "file:///tmp", "name": "tmp"}], timeout=10) as client:
        client.list_tools()
        client.call_tool("echo", {"text": "hi"})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="good")
    parser.add_argument("server")
    args = parser.parse_args()
    if args.mode == "ours":
        ours(args.server)
    else:
        Stdlib(args.server, args.mode).run()


if __name__ == "__main__":
    main()
