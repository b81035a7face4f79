"""The checking server of ``mcp-ref check client`` (mcp_ref_check/client_check.py): here, its
elicitation probe, sent only in a mode the client declared.

https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#capabilities
("Servers MUST NOT send elicitation requests with modes that are not supported by the client",
ELICU-04; an empty object means form alone). The kit's probe is a form: a client that declared URL
mode alone is not sent it. Each declaration is tried against a real client, mcp_ref's own Client
with an elicitation handler, which refuses (-32602) a request in a mode it did not declare.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from mcp_ref_check.client_check import ELICITATION, ClientOptions, elicitation_probe
from mcp_ref_check.runner import run_client_check

OLD, NEW = "2025-06-18", "2025-11-25"
FORM = {"mode": "form", **ELICITATION}


@pytest.mark.parametrize(("declared", "version", "params", "why_not"), [
    ({}, NEW, FORM, None),  # an empty object: form alone
    ({"form": {}}, NEW, FORM, None),
    ({"form": {}, "url": {}}, NEW, FORM, None),
    ({"url": {}}, NEW, None, "url mode only"),
    ({}, OLD, ELICITATION, None),  # no mode in 2025-06-18: the request has none either
    ({"url": {}}, OLD, ELICITATION, None),  # 2025-06-18 has form mode alone, whatever the object says
    ({}, "2025-03-26", None, "elicitation came with 2025-06-18"),
    (None, NEW, None, "does not declare elicitation"),
    (True, NEW, None, "does not declare elicitation"),
])  # fmt: skip
def test_the_probe_is_a_form_for_a_client_that_takes_forms(declared: Any, version: str, params: Any,
                                                          why_not: str | None) -> None:
    sent, reason = elicitation_probe(declared, version)
    assert sent == params
    assert (reason is None) if why_not is None else (why_not in str(reason))


# A client of mcp_ref's own that declares exactly the elicitation object it is given (the Client
# derives it from its options: {"form": {}} or {"form": {}, "url": {}} in 2025-11-25), answers a
# form with a name, and writes each elicitation/create it was handed to stderr.
CLIENT = """
import json, shlex, sys
from mcp_ref.client import Client

declared, version, server = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]


class Declaring(Client):
    def capabilities(self):
        return {**super().capabilities(), "elicitation": declared}


def handler(params):
    print("handed:", json.dumps(params), file=sys.stderr, flush=True)
    return {"action": "decline"} if params.get("mode") == "url" else {"action": "accept", "content": {"name": "Ada"}}


with Declaring.stdio(shlex.split(server), elicitation_handler=handler, elicitation_url="url" in declared,
                     protocol_versions=[version], timeout=20) as client:
    client.list_tools()
"""
CASE = "lifecycle.elicitation-is-answered"


@pytest.mark.parametrize(("declared", "version", "status", "mode"), [
    ({}, NEW, "PASS", "form"),
    ({"form": {}}, NEW, "PASS", "form"),
    ({"url": {}}, NEW, "SKIP", None),
    ({"form": {}, "url": {}}, NEW, "PASS", "form"),
    ({}, OLD, "PASS", None),
])  # fmt: skip
def test_no_form_reaches_a_client_that_declared_url_mode_alone(declared: dict[str, Any], version: str, status: str,
                                                               mode: str | None) -> None:
    command = [sys.executable, "-c", CLIENT, json.dumps(declared), version, "{server}"]
    results, session = run_client_check(command, ClientOptions(timeout=10, run_timeout=60, only=[CASE],
                                                               version_run=False))
    assert session.version == version and session.client_capabilities.get("elicitation") == declared
    sent = [e.msg for e in session.link.sent_and_received()
            if e.direction == "sent" and isinstance(e.msg, dict) and e.msg.get("method") == "elicitation/create"]
    handed = [line for line in session.stderr_tail if line.startswith("handed:")]
    result = {r.case.name: r for r in results}[CASE]
    assert result.status.value == status, (result.detail, list(session.stderr_tail))
    if status == "SKIP":
        assert sent == [] and handed == [], (sent, handed)  # nothing at all, so no form either
        reason = session.unprobed["elicitation"]
        assert 'declared elicitation {"url": {}}' in reason and "url mode only" in reason and "ELICU-04" in reason
        return
    assert len(sent) == 1 and len(handed) == 1 and "elicitation" not in session.unprobed
    assert sent[0]["params"].get("mode") == mode  # named from 2025-11-25, absent in 2025-06-18
    assert "requestedSchema" in sent[0]["params"]
    probe = session.probes["elicitation"]
    assert probe.reply is not None and probe.reply.get("result") == {"action": "accept", "content": {"name": "Ada"}}
