"""Revision 2026-07-28 (mcp_ref/revisions/v2026_07_28.py): the methods a client of it may call are
the methods a Server answers in it, and what it removed is gone.

https://modelcontextprotocol.io/specification/2026-07-28/changelog
https://modelcontextprotocol.io/specification/2026-07-28/schema
The revision's schema (../shared/spec/2026-07-28/schema.json, where the checkout has it) lists
every request a client sends; the same server, asked by a request of 2026-07-28 over a real stdio
pipe, must answer each of them other than -32601 (subscriptions/listen, which never ends by
itself, by its acknowledgement), and -32601 for each request of the revisions before that this
one removed.
(The behaviour of each item is tested beside its module: test_versioning.py, test_stateless.py,
test_mrtr.py, test_stateless_http.py.)
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_ref.revisions import v2026_07_28, versioning

SCHEMA = Path(__file__).resolve().parents[3] / "shared" / "spec" / "2026-07-28" / "schema.json"
META = {versioning.VERSION_KEY: v2026_07_28.REVISION, versioning.CAPABILITIES_KEY: {}}
SERVER = """
from mcp_ref import Server
server = Server("delta")
def hello() -> str:
    return "ok"
def topic(x: str) -> str:
    return x
server.tool()(hello)
server.resource("test://a")(hello)
server.prompt()(topic)
server.add_completion("ref/prompt", "topic", "x", ["a", "b"])
server.serve_stdio()
"""


def client_requests() -> list[str]:
    """The methods of the schema's ClientRequest: what a client of 2026-07-28 may send."""
    if not SCHEMA.is_file():
        pytest.skip(f"{SCHEMA} is not in this checkout (../shared)")
    defs = json.loads(SCHEMA.read_text(encoding="utf-8"))["$defs"]
    return [defs[ref["$ref"].rsplit("/", 1)[1]]["properties"]["method"]["const"] for ref in defs["ClientRequest"]["anyOf"]]


def answers(requests: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Each request, with the revision's _meta, to a real server over stdio; its answers in id
    order (an acknowledgement of a subscription stands for its request's answer)."""
    lines = "".join(json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": {**params, "_meta": META}}) + "\n"
                    for n, (method, params) in enumerate(requests))
    done = subprocess.run([sys.executable, "-c", SERVER], input=lines, capture_output=True, text=True, timeout=60)
    said = [json.loads(line) for line in done.stdout.splitlines()]
    for message in said:
        if message.get("method") == "notifications/subscriptions/acknowledged":
            message["id"] = message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]
            message["result"] = {"resultType": "complete"}
    return sorted((message for message in said if "id" in message), key=lambda answer: answer["id"])


PARAMS = {"resources/read": {"uri": "test://a"}, "tools/call": {"name": "hello", "arguments": {}},
          "prompts/get": {"name": "topic", "arguments": {"x": "y"}}, "completion/complete": {
              "ref": {"type": "ref/prompt", "name": "topic"}, "argument": {"name": "x", "value": ""}}}


def test_every_request_of_the_revision_is_served_and_every_removed_one_is_gone() -> None:
    served = client_requests()
    removed = sorted(versioning.GONE)
    got = answers([(method, PARAMS.get(method, {})) for method in served + removed])
    assert len(got) == len(served) + len(removed)  # one answer each
    for method, answer in zip(served, got[:len(served)], strict=True):
        assert answer.get("error", {}).get("code") != -32601, (method, answer)  # the revision's requests are served
        if "result" in answer:
            assert answer["result"]["resultType"] == "complete", (method, answer)
    for method, answer in zip(removed, got[len(served):], strict=True):
        assert answer["error"]["code"] == -32601, (method, answer)  # and what it removed is gone
    assert set(client_requests()) & versioning.GONE == set()  # (the schema agrees they are gone)
