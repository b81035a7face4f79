"""The conformance checker against the official Python SDK (``mcp`` 2.x): its high-level
MCPServer over stdio and over HTTP with SSE, and its Client over both (in its default mode, and
in mode="legacy").

https://modelcontextprotocol.io/specification/2024-11-05
The results are kept in the README ("Conformance checker"), each deviation with its reason; this
test renders the table from a fresh run and fails if the README's differs, so the table cannot
rot. To update it: ``python -m tests.interop.test_check_sdk`` prints the table to paste.
"""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from mcp_ref_check.model import CaseResult, Status
from mcp_ref_check.runner import ClientOptions, Options, Target, run_client_check, run_server_check

from ..conftest import ROOT

PEERS = ROOT / "tests" / "peers"
SERVER = [sys.executable, str(PEERS / "sdk_server.py")]
CLIENT = [sys.executable, str(PEERS / "sdk_client.py")]
TIMEOUT = 5.0  # seconds per step: the SDK peer answers in milliseconds once its error tracebacks are quiet (sdk_server.py)
# A client run never waits on silence, unless the client misbehaves. The run with a server that
# answers 1999-01-01 lasts at most twice this (ClientOptions.version_run_timeout): 10 s was too
# little for the SDK's client to start on a loaded machine (that case then skipped).
CLIENT_TIMEOUT = 15.0
BEGIN, END = "<!-- check-sdk-results: begin -->", "<!-- check-sdk-results: end -->"

SERVER_COLUMNS = {"MCPServer, stdio": "server-stdio", "MCPServer, SSE": "server-sse"}
CLIENT_COLUMNS = {"Client, stdio": "client-stdio", "Client, SSE": "client-sse",
                  "Client mode=legacy, stdio": "client-legacy"}

# Why each case that does not pass fails: "peer" when the SDK deviates from 2024-11-05 (which
# rule), "kit" when it is a fault of the checker. A new failure without a reason here shows up
# in the rendered table as "(no reason recorded)" and fails the comparison.
REASONS = {
    "messages.answers-unparseable-input-with-32700":
        "peer: over stdio a line that is not JSON is dropped without an answer. The session agreed on 2025-11-25, "
        "whose error response may leave out an id it cannot read (SCHEMA-02), so JSON-RPC's -32700 can be written and "
        "MSG-01 asks for it: a failure (at 2024-11-05, which has no such error, a warning). Over SSE the POST is "
        "refused with HTTP 400, which the kit accepts",
    "messages.answers-invalid-envelopes-with-32600":
        "peer: over stdio valid JSON that is not JSON-RPC is dropped without an answer. Where the message has an id of "
        "its own (\"jsonrpc\" \"1.0\", \"2.1\", 2.0 or missing, a numeric method, params an array or a string, no "
        "method and no result), the -32600 error with that id is valid and JSON-RPC asks for it (MSG-01): a failure. "
        "Where it has none (42, \"ping\", null, a batch), 2025-11-25's error without an id can answer it: failures "
        "too (at 2024-11-05, warnings). Over SSE: HTTP 400",
    "messages.refuses-ids-that-are-not-strings-or-integers":
        "peer: a ping whose id is not a string or an integer (true, false, an object, 1.5, null) is dropped without an "
        "answer. JSON-RPC answers it (MSG-01), with an error whose id 2025-11-25, the agreed revision, lets it leave "
        "out (SCHEMA-02): a failure (at 2024-11-05, whose schema has no such error, a warning). Over SSE the POST is "
        "accepted (202), then nothing comes",
    "lifecycle.no-later-fields-in-an-older-session":
        "peer: in a session that agreed on 2024-11-05, tools/list carries outputSchema and tools/call "
        "structuredContent, fields of 2025-06-18 (LC-14: stick to the negotiated version; unknown fields are allowed, "
        "so a warning)",
    "tools.structured-content-conforms":
        "peer: a tool returning a number gives structuredContent {\"result\": 3} and the text \"3\", not that JSON "
        "serialized in a text block (OUT-01, a SHOULD); the structured content itself conforms (OUT-03)",
    "tools.tool-arguments-are-validated":
        "peer: in a 2025-11-25 session, arguments that are not an object are refused with an error response, where "
        "that revision makes an input validation error a tool execution error, an isError result (TNAME-07)",
    "tools.unknown-tool-is-a-protocol-error":
        "peer: an unknown tool comes back as an isError result, not an error response (TOOL-18)",
    "resources.unknown-resource-is-32002":
        "peer: an unknown resource is -32602 (the code of later revisions), not -32002 (RES-06)",
    "prompts.unknown-prompt-is-32602": "peer: the error for an unknown prompt has code 0, not -32602 (PRM-07)",
    "prompts.missing-required-argument-is-32602":
        "peer: the error for a missing prompt argument has code 0, not -32602 (PRM-08)",
    "logging.log-messages-are-declared-and-well-formed":
        "peer: MCPServer sends notifications/message (ctx.info in a tool) without declaring logging (LOG-01)",
    "completion.completion-of-an-unknown-prompt-is-refused":
        "peer: the SDK hands any ref to the completion handler unchecked, and this peer's handler does not check "
        "it either (CMP-04)",
    "pagination.invalid-cursor-is-32602":
        "peer: MCPServer does not page; an unknown cursor is ignored on every list (one finding naming the four "
        "lists: PAG-09)",
}


def _server_over_sse() -> list[CaseResult]:
    proc = subprocess.Popen([*SERVER, "sse"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().rsplit(" at ", 1)[1].strip()
        return run_server_check(Target(sse=url), Options(timeout=TIMEOUT, call_tools=True))[0]
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()


def run_all() -> dict[str, list[CaseResult]]:
    """Every SDK run, a few at a time."""
    def client(*args: str, sse: bool = False) -> list[CaseResult]:
        return run_client_check([*CLIENT, *args, "{server}"], ClientOptions(timeout=CLIENT_TIMEOUT, sse=sse))[0]

    jobs = {
        "server-stdio": lambda: run_server_check(Target(stdio=SERVER), Options(timeout=TIMEOUT, call_tools=True))[0],
        "server-sse": _server_over_sse,
        "client-stdio": lambda: client(),
        "client-sse": lambda: client("--sse", sse=True),
        "client-legacy": lambda: client("--mode", "legacy"),
    }
    with ThreadPoolExecutor(3) as pool:
        futures = {name: pool.submit(job) for name, job in jobs.items()}
        return {name: future.result() for name, future in futures.items()}


def render(runs: dict[str, list[CaseResult]]) -> str:
    """The README's results block: counts per column, then every case that did not pass somewhere."""
    out = [BEGIN]
    for columns in (SERVER_COLUMNS, CLIENT_COLUMNS):
        names = list(columns)
        out += ["", "| | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
        counts = []
        for key in columns.values():
            results = runs[key]
            counts.append(" / ".join(str(sum(r.status is s for r in results)) for s in
                                     (Status.PASS, Status.FAIL, Status.WARN, Status.SKIP, Status.ERROR)))
        out.append("| PASS / FAIL / WARN / SKIP / ERROR | " + " | ".join(counts) + " |")
        out += ["", "| case | IDs | " + " | ".join(names) + " | why |", "|---|---|" + "---|" * len(names) + "---|"]
        first = runs[next(iter(columns.values()))]
        for case in [r.case for r in first]:
            statuses = [next(r.status for r in runs[key] if r.case.name == case.name) for key in columns.values()]
            if all(s in (Status.PASS, Status.SKIP) for s in statuses):
                continue
            reason = REASONS.get(case.name, "(no reason recorded)")
            out.append(f"| `{case.name}` | {', '.join(case.ids)} | " + " | ".join(s.value for s in statuses)
                       + f" | {reason} |")
    out.append(END)
    return "\n".join(out)


@pytest.fixture(scope="module")
def runs() -> dict[str, list[CaseResult]]:
    pytest.importorskip("mcp", reason="the official SDK (pip install 'mcp>=2') is the peer")
    return run_all()


def test_the_kit_never_errors_on_the_sdk(runs: Any) -> None:
    for key, results in runs.items():
        assert not [r.case.name for r in results if r.status is Status.ERROR], key


def test_the_readme_table_matches_a_fresh_run_against_the_sdk(runs: Any) -> None:
    readme = (ROOT / "README.md").read_text()
    assert BEGIN in readme and END in readme, "the README has no SDK results block"
    kept = readme[readme.index(BEGIN):readme.index(END) + len(END)]
    assert kept == render(runs), "the SDK results changed: run `python -m tests.interop.test_check_sdk`, update the README"


if __name__ == "__main__":
    print(render(run_all()))
