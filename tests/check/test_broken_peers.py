"""The checker against deliberately broken peers: each run breaks one rule, and the kit must fail
that rule's requirement ID, and nothing else on the pages it ran.

https://modelcontextprotocol.io/specification/2024-11-05 (every page the kit checks)
The peers are plain-stdlib scripts in tests/peers/: broken_server.py and broken_client.py, each
following every rule unless given ``--break NAME``. All runs of a table happen once per module,
a few at a time, in the kit's own process (the Python API under ``mcp-ref check``).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from mcp_ref_check.model import CaseResult, Status
from mcp_ref_check.runner import ClientOptions, Options, Target, run_client_check, run_server_check

from ..conftest import ROOT
from ..peers import broken_client, broken_server

SERVER = [sys.executable, str(ROOT / "tests" / "peers" / "broken_server.py")]
CLIENT = [sys.executable, str(ROOT / "tests" / "peers" / "broken_client.py")]

# break -> (the pages or IDs the run selects with --only, the IDs the kit must fail there: exactly these)
SERVER_BREAKS: dict[str, tuple[list[str], set[str]]] = {
    "no-ping": (["ping"], {"PING-01"}),
    "ping-before-init-error": (["ping"], {"PING-01"}),
    "echo-version": (["lifecycle"], {"LC-12"}),
    "serve-before-init": (["lifecycle"], set()),  # LC-01 binds the client: noted (see NOTED)
    "request-before-initialized": (["lifecycle"], {"LC-10"}),
    "roots-request": (["lifecycle"], {"ROOT-17"}),
    "undeclared-list-changed": (["lifecycle"], {"LC-15"}),
    "stdout-banner": (["transports"], {"TR-04"}),
    "pretty-ping": (["transports"], {"TR-02"}),
    "no-exit-on-eof": (["transports"], set()),  # no rule binds the server: noted (see NOTED)
    "unknown-method-32602": (["messages"], {"MSG-01"}),
    "silent-parse-error": (["messages"], {"MSG-01"}),  # a warning: the schema has no null id
    "silent-invalid-request": (["messages"], {"MSG-01"}),
    "silent-without-an-id": (["messages"], {"MSG-01"}),  # warnings only: no valid answer has id null (issue 34)
    "answers-notifications": (["messages"], {"MSG-01", "MSG-05"}),  # a response to an id never sent
    "answers-every-notification": (["messages"], {"MSG-01"}),  # judged once, by notifications-are-not-answered
    "int-ids": (["messages"], {"MSG-05"}),
    "result-and-error": (["messages", "CMP-04"], {"MSG-06", "CMP-04"}),  # the broken answer is a completion's
    "string-error-code": (["messages", "PRM-07"], {"MSG-07"}),  # one mistake, one finding: PRM-07 notes it
    "reuse-request-id": (["messages"], {"MSG-04"}),
    "crash-on-unknown-cancel": (["cancellation"], {"CAN-14"}),
    "progress-after-response": (["progress"], {"PROG-15"}),
    "unknown-tool-iserror": (["tools"], {"TOOL-18"}),
    "tool-without-name-ok": (["tools"], {"TOOL-08"}),
    "unknown-resource-32602": (["resources"], {"RES-06"}),
    "bad-blob": (["resources"], {"RES-10"}),
    "read-without-uri-ok": (["resources"], {"RES-08"}),
    "serve-undeclared-prompts": (["prompts"], {"PRM-01"}),
    "prompt-missing-argument-ok": (["prompts"], {"PRM-08"}),
    "embedded-without-mime-type": (["prompts"], {"PRM-05"}),
    "bad-log-level-ok": (["logging"], {"LOG-03"}),
    "log-below-level": (["logging"], {"LOG-20"}),
    "too-many-completions": (["completion"], {"CMP-12"}),
    "completion-accepts-garbage": (["completion"], {"CMP-08", "CMP-04"}),  # malformed and unknown refs alike
    "bad-cursor-ok": (["pagination"], {"PAG-09"}),
    "looping-cursor": (["pagination"], {"PAG-02"}),
    "elicitation-request": (["lifecycle"], {"LC-14"}),  # not a 2024-11-05 request
    "resource-link": (["tools"], {"LC-14"}),  # not in the 2024-11-05 content union
    "log-flood": (["logging"], {"LOG-05"}),
    # The subscribe fails because of the server's own undeclared request: counted once, as that.
    "sampling-then-fail-subscribe": (["resources", "lifecycle"], {"LC-15"}),
    "ignore-cancel": (["tools", "cancellation"], {"CAN-04", "CAN-06"}),
    "answer-cancelled": (["tools", "cancellation"], {"CAN-06"}),  # -32800 within 1 ms of the cancellation
    "stuck-tool": (["tools"], {"MSG-01"}),  # one finding, with --call-timeout 1 (SERVER_OPTIONS)
    "slow-start": (["lifecycle", "ping"], set()),  # starts after the first take 10 s: not judged (SKIP)
}
SERVER_OPTIONS: dict[str, dict[str, Any]] = {"stuck-tool": {"call_timeout": 1.0}, "slow-start": {"startup": 0.5}}

# Breaks that no 2024-11-05 rule of the server's forbids: the kit notes them, and fails nothing.
NOTED = {
    "serve-before-init": ("lifecycle.survives-a-request-before-initialize", "served before initialize"),
    "no-exit-on-eof": ("transports.exits-when-stdin-closes", "will have to send it SIGTERM"),
}

CLIENT_BREAKS: dict[str, set[str]] = {
    "request-before-initialize": {"LC-01", "LC-09"},
    "no-initialized": {"LC-08"},
    "pipelined-request": {"LC-09"},
    "bad-client-info": {"LC-06"},
    "no-capabilities": {"LC-05"},
    "undeclared-capability": {"LC-15"},
    "sigterm-server": {"LC-16"},
    "reuse-id": {"MSG-04"},
    "null-id": {"MSG-03"},
    "float-id": {"MSG-02"},
    "jsonrpc-1": {"MSG-01", "TR-05"},  # not a valid message: the envelope and the stdio rule both
    "notification-with-id": {"MSG-08"},
    "unknown-method-32602": {"MSG-01"},
    "wrong-response-id": {"MSG-05", "PING-01"},  # the ping it answered under another id went unanswered
    "result-and-error": {"MSG-06"},
    "string-error-code": {"MSG-07", "MSG-01"},  # and so the code is not -32601
    "answers-notifications": {"MSG-05"},
    "stdin-noise": {"TR-05"},
    "pretty-json": {"TR-02"},
    "no-ping-answer": {"PING-01"},
    "cancel-unknown": {"CAN-20"},
    "cancel-initialize": {"CAN-03"},
    "duplicate-progress-token": {"PROG-02"},
    "bad-roots": {"ROOT-03"},
    "roots-changed-undeclared": {"LC-15"},
    "bad-sampling-result": {"SAMP-05"},
    "ignore-version": {"LC-26"},
    "server-discover": {"LC-09"},  # a newer revision's probe: one warning
}

STATE_DIR = Path(tempfile.gettempdir())
TIMEOUT = 2.0  # the broken peers answer at once; a missing answer costs this long (with room for a busy machine)


def failed_ids(results: list[CaseResult]) -> set[str]:
    return {i for r in results if r.status in (Status.FAIL, Status.WARN) for i in r.failed_ids}


def errors(results: list[CaseResult]) -> list[str]:
    return [f"{r.case.name}: {r.error}" for r in results if r.status is Status.ERROR]


def _run_server(flag: str | None, only: list[str]) -> list[CaseResult]:
    command = SERVER + (["--break", flag] if flag else [])
    if flag == "slow-start":
        command += ["--state", str(STATE_DIR / f"slow-start-{os.getpid()}-{time.monotonic_ns()}")]
    options = Options(**{"timeout": TIMEOUT, "only": only, "call_tools": True, **SERVER_OPTIONS.get(flag or "", {})})
    return run_server_check(Target(stdio=command), options)[0]


def _run_client(flag: str | None) -> list[CaseResult]:
    command = CLIENT + (["--break", flag] if flag else []) + ["{server}"]
    return run_client_check(command, ClientOptions(timeout=TIMEOUT))[0]


@pytest.fixture(scope="module")
def server_runs() -> dict[str | None, list[CaseResult]]:
    with ThreadPoolExecutor(4) as pool:
        runs = {flag: pool.submit(_run_server, flag, only) for flag, (only, _) in SERVER_BREAKS.items()}
        runs[None] = pool.submit(_run_server, None, [])
        return {flag: future.result() for flag, future in runs.items()}


@pytest.fixture(scope="module")
def client_runs() -> dict[str | None, list[CaseResult]]:
    with ThreadPoolExecutor(4) as pool:
        runs = {flag: pool.submit(_run_client, flag) for flag in [*CLIENT_BREAKS, None]}
        return {flag: future.result() for flag, future in runs.items()}


def test_every_break_of_the_peers_is_in_a_table() -> None:
    assert set(SERVER_BREAKS) == set(broken_server.BREAKS)
    assert set(CLIENT_BREAKS) == set(broken_client.BREAKS)


def test_the_unbroken_server_passes_every_case(server_runs: Any) -> None:
    results = server_runs[None]
    assert not errors(results) and failed_ids(results) == set()
    assert sum(r.status is Status.PASS for r in results) >= 55  # tools called, cursors followed


def test_the_unbroken_client_passes_every_case(client_runs: Any) -> None:
    results = client_runs[None]
    assert not errors(results) and failed_ids(results) == set()
    assert {r.status for r in results} == {Status.PASS, Status.SKIP}


@pytest.mark.parametrize("flag", SERVER_BREAKS)
def test_a_broken_server_fails_on_the_broken_rule_only(server_runs: Any, flag: str) -> None:
    results = server_runs[flag]
    assert not errors(results), errors(results)
    assert failed_ids(results) == SERVER_BREAKS[flag][1], [(r.case.name, r.detail) for r in results if r.findings]


def test_an_answer_to_a_notification_is_judged_by_the_case_that_sent_it_never_taken_for_the_next_answer(
        server_runs: Any) -> None:
    """Issue 22: a server answering notifications/initialized with an error (id null) used to fail
    the parse-error case, whose line came next: the stray answer was read as its answer."""
    results = {r.case.name: r for r in server_runs["answers-every-notification"]}
    assert results["messages.answers-unparseable-input-with-32700"].status is Status.PASS
    assert results["messages.answers-invalid-envelopes-with-32600"].status is Status.PASS
    judged = results["messages.notifications-are-not-answered"]
    assert judged.status is Status.FAIL and {f.id for f in judged.findings} == {"MSG-01"}
    said = [f.message for f in judged.findings]
    assert any("answered notifications/initialized" in m for m in said) and any("unknown notification" in m for m in said)
    assert all("Method not found" in (f.got or "") for f in judged.findings)


def test_a_tool_over_its_budget_is_one_finding_and_the_next_tools_are_still_called(server_runs: Any) -> None:
    result = next(r for r in server_runs["stuck-tool"] if r.case.name == "tools.tool-results-are-well-formed")
    assert [f.id for f in result.findings] == ["MSG-01"] and "stuck" in result.findings[0].message
    assert "--call-timeout 1 s" in result.findings[0].message
    called = next(note for note in result.notes if note.startswith("called "))
    assert all(name in called for name in ("stuck", "slow", "echo", "count")), called


# The inputs of answers-invalid-envelopes-with-32600 that carry an id of their own (a string): an
# error with that id is valid 2024-11-05, so silence is a MUST failure; the others can only be
# answered with id null, which the schema lacks.
OWN_ID_INPUTS = {"a message with neither method nor result", 'a request with "jsonrpc": "1.0"',
                 'a request without "jsonrpc"', 'a request with "jsonrpc": "2.1"', 'a request with "jsonrpc": 2.0, a number',
                 "a request whose method is a number", "a ping whose params are an array",
                 "a ping whose params are a string"}


def test_silence_where_only_an_id_null_could_answer_is_a_warning_naming_both_rules(server_runs: Any) -> None:
    """Issue 34: the official SDKs drop input that fails their schema. Where the only answer
    would carry id null (no id, or one that is not a string or an integer), the 2024-11-05 schema
    cannot carry it: a warning, never a failure (it was a MUST FAIL, over stdio and SSE alike)."""
    results = {r.case.name: r for r in server_runs["silent-without-an-id"]}
    assert not [name for name, r in results.items() if r.status is Status.FAIL]
    for name in ("messages.answers-invalid-envelopes-with-32600", "messages.refuses-ids-that-are-not-strings-or-integers"):
        findings = results[name].findings
        assert results[name].status is Status.WARN and findings, name
        assert all(f.strength == "SHOULD" and "MSG-02" in f.message and "MSG-03" in f.message for f in findings), name
    ids = results["messages.refuses-ids-that-are-not-strings-or-integers"].findings
    assert len(ids) == 5  # true, false, an object, 1.5, null


def test_silence_where_the_requests_own_id_could_answer_stays_a_failure(server_runs: Any) -> None:
    results = {r.case.name: r for r in server_runs["silent-invalid-request"]}
    envelopes = results["messages.answers-invalid-envelopes-with-32600"]
    assert envelopes.status is Status.FAIL
    failed = {f.message.split(" got no answer")[0] for f in envelopes.findings if f.strength == "MUST"}
    warned = {f.message.split(" got no answer")[0] for f in envelopes.findings if f.strength == "SHOULD"}
    assert failed == OWN_ID_INPUTS
    assert warned == {"the number 42", 'the string "ping"', "the JSON value null", "[] (an empty batch)",
                      "a batch of one ping"}
    assert results["messages.refuses-ids-that-are-not-strings-or-integers"].status is Status.WARN


def test_an_error_the_cancellation_caused_fails_however_soon_it_came(server_runs: Any) -> None:
    """Issue 34: a -32800 written 1 ms after notifications/cancelled came within the kit's
    allowance for answers already on their way, and passed; that allowance is for results only."""
    result = next(r for r in server_runs["answer-cancelled"] if r.case.name == "cancellation.cancelled-tool-stops")
    assert result.status is Status.WARN and [f.id for f in result.findings] == ["CAN-06"]
    assert "-32800" in (result.findings[0].got or "") and "the cancellation caused it" in result.findings[0].message


def test_a_cursor_ignored_on_every_list_is_one_finding_naming_the_lists(server_runs: Any) -> None:
    """Issue 34: one cause, one finding. A server that ignores cursors drew one warning per list
    method (four); it is one, naming the four lists it was seen on."""
    warned = [r for r in server_runs["bad-cursor-ok"] if r.status is not Status.PASS and r.status is not Status.SKIP]
    assert [(r.case.name, r.status) for r in warned] == [("pagination.invalid-cursor-is-32602", Status.WARN)]
    [finding] = warned[0].findings
    assert "seen on 4 of the 4 list(s)" in finding.message and "the cursor was ignored" in finding.message
    for method in ("tools/list", "resources/list", "resources/templates/list", "prompts/list"):
        assert method in finding.message


def test_a_slow_start_is_not_judged(server_runs: Any) -> None:
    # Every new process after the first sleeps 10 s; the kit waits a step of 2 s (or three times the
    # first start), then asks once more as long: a start that slow is not judged.
    results = server_runs["slow-start"]
    assert {r.status for r in results} <= {Status.PASS, Status.SKIP}
    skipped = [r for r in results if r.status is Status.SKIP]
    assert skipped and all("is not judged" in (r.skip_reason or "") for r in skipped), [r.skip_reason for r in results]
    assert "sent nothing within" in (skipped[0].skip_reason or "")


def test_a_cancelled_tool_that_stops_passes(server_runs: Any) -> None:
    result = next(r for r in server_runs[None] if r.case.name == "cancellation.cancelled-tool-stops")
    assert result.status is Status.PASS and any("cancelled slow" in note for note in result.notes)


@pytest.mark.parametrize("flag", NOTED)
def test_a_break_no_server_rule_forbids_is_noted_not_failed(server_runs: Any, flag: str) -> None:
    name, text = NOTED[flag]
    result = next(r for r in server_runs[flag] if r.case.name == name)
    assert result.status is Status.PASS and any(text in note for note in result.notes), result.notes
    unbroken = next(r for r in server_runs[None] if r.case.name == name)
    assert not any(text in note for note in unbroken.notes)


@pytest.mark.parametrize("flag", CLIENT_BREAKS)
def test_a_broken_client_fails_on_the_broken_rule_only(client_runs: Any, flag: str) -> None:
    results = client_runs[flag]
    assert not errors(results), errors(results)
    assert failed_ids(results) == CLIENT_BREAKS[flag], [(r.case.name, r.detail) for r in results if r.findings]
