"""``mcp-ref check --protocol-version 2026-07-28``: the checker grading servers and clients of the
stateless revision, against real peers.

Not a spec page of its own: the kit's cases of revision 2026-07-28 (mcp_ref_check/server_stateless.py,
server_stateless_http.py, client_stateless.py; https://modelcontextprotocol.io/specification/2026-07-28).
Our demo server passes every case (over stdio and Streamable HTTP), the demo server behind a relay
that breaks rules (tests/peers/broken_stateless_server.py) fails exactly the cases of those rules,
each saying what is wrong; our Client and a right stdlib client pass the client cases, and each
wrong client fails the case of its mistake. Every wait is bounded by the kit's own timeouts and
by the subprocess timeout.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_ref_check.case_registry import all_client_cases, all_server_cases

from ..peers import running
from .test_check import PEERS, check, check_json, not_passed

REVISION = "2026-07-28"
SERVER_CASES = [case.name for case in all_server_cases() if case.era == "stateless"]
CLIENT_CASES = [case.name for case in all_client_cases() if case.era == "stateless"]
HTTP_ONLY = {case.name for case in all_server_cases() if case.era == "stateless" and case.transport == "http"}
BROKEN = PEERS / "broken_stateless_server.py"
CLIENT = PEERS / "stateless_check_client.py"


def statuses(report: dict[str, Any]) -> dict[str, str]:
    return {c["name"]: c["status"] for c in report["cases"]}


def detail(report: dict[str, Any], name: str) -> str:
    return str(next(c["detail"] for c in report["cases"] if c["name"] == name))


def assert_every_case_of_the_revision_passes(report: dict[str, Any], transport: str, out: str) -> None:
    seen = statuses(report)
    assert not_passed(report) == {}, out
    expected = [name for name in SERVER_CASES if transport == "http" or name not in HTTP_ONLY]
    assert {name: seen[name] for name in expected} == dict.fromkeys(expected, "PASS"), out
    for case in report["cases"]:  # every case of the handshake not run says why
        if case["status"] == "SKIP":
            assert case["detail"], case["name"]


# --- our server --------------------------------------------------------------------------------


def test_our_server_over_stdio_passes_every_case_of_2026_07_28(tmp_path: Path) -> None:
    code, report, out = check_json(tmp_path, "server", "--stdio", f"{sys.executable} -m mcp_ref serve",
                                   "--protocol-version", REVISION, "--call-tools")
    assert code == 0, out
    assert_every_case_of_the_revision_passes(report, "stdio", out)
    assert report["revision"] == REVISION and "protocol '2026-07-28'" in out
    seen = statuses(report)
    # cases of the handshake that make sense without one run too; those tied to it say why not
    assert seen["tools.tools-list-is-well-formed"] == seen["transports.exits-when-stdin-closes"] == "PASS"
    assert seen["lifecycle.keeps-answering"] == "PASS"
    assert "STLS-26" in detail(report, "lifecycle.initialize-result-is-well-formed")
    assert "no ping (STLS-28)" in detail(report, "ping.ping-returns-an-empty-result")
    assert "LOGX-04" in detail(report, "logging.set-level-accepts-every-level")


def test_our_server_over_streamable_http_passes_every_case_of_2026_07_28(tmp_path: Path) -> None:
    from mcp_ref.demo_server import server

    # A generous quick_answer: an unknown method's 404 then never depends on timing (a known gap of
    # the endpoint under load, reported; the case judges the status, not the timing).
    with server.sse_server(streamable_options={"quick_answer": 2.0}) as http:
        url = http.url.rsplit("/", 1)[0] + "/mcp"
        code, report, out = check_json(tmp_path, "server", "--http", url, "--protocol-version", REVISION,
                                       "--call-tools")
    assert code == 0, out
    assert_every_case_of_the_revision_passes(report, "http", out)


def test_a_run_of_the_handshake_leaves_the_cases_of_2026_07_28_out(tmp_path: Path) -> None:
    code, report, out = check_json(tmp_path, "server", "--stdio", f"{sys.executable} -m mcp_ref serve")
    assert code == 0, out
    seen = statuses(report)
    assert "resources.resources-list-is-well-formed" in seen and not set(SERVER_CASES) & set(seen), out
    assert all(name in check("--list").stdout for name in SERVER_CASES + CLIENT_CASES)
    code, report, out = check_json(tmp_path, "server", "--stdio", f"{sys.executable} -m mcp_ref serve",
                                   "--only", "basic.results-carry-a-result-type")  # asked for: SKIP, saying how
    assert code == 0 and statuses(report) == {"basic.results-carry-a-result-type": "SKIP"}, out
    assert "--protocol-version 2026-07-28" in detail(report, "basic.results-carry-a-result-type")


def test_2026_07_28_is_not_spoken_over_http_with_sse() -> None:
    proc = check("server", "--sse", "http://127.0.0.1:9/sse", "--protocol-version", REVISION)
    assert proc.returncode == 2 and "not over HTTP with SSE" in proc.stderr


# --- a server broken in known ways ---------------------------------------------------------------

# mode(s) of the relay -> (--call-tools, {case: (status, words its detail holds)}); every other case
# of the revision passes, or is SKIP for want of what it needs.
STDIO_BREAKS: dict[str, tuple[bool, dict[str, tuple[str, str]]]] = {
    "code-32002,negative-ttl,no-server-info,accepts-missing-capabilities,no-32022,serves-ping,early-change": (False, {
        "resources.unknown-resource-is-32602": ("FAIL", "-32002, a code 2026-07-28 retired"),
        "basic.cacheable-results-carry-ttl-and-scope": ("FAIL", "ttlMs is -1000, negative"),
        "basic.discover-result-is-well-formed": ("WARN", "has no io.modelcontextprotocol/serverInfo"),
        "basic.results-name-the-server": ("WARN", "have no io.modelcontextprotocol/serverInfo"),
        "basic.malformed-meta-is-32602": ("FAIL", "without clientCapabilities in _meta: expected error -32602, got a "
                                                  "result"),
        "basic.unsupported-version-is-32022": ("FAIL", "expected error -32022, got -32602"),
        "messages.dropped-methods-are-32601": ("FAIL", "ping in a request of 2026-07-28 was answered"),
        "basic.listen-is-acknowledged-first": ("FAIL", "list_changed came before the subscription was acknowledged"),
    }),
    "accepts-tampered-state,logs-without-level,asks-undeclared,untagged": (True, {
        "tools.tampered-request-state-is-refused": ("FAIL", "completed a retry whose requestState had been altered"),
        "logging.no-log-message-without-a-level": ("FAIL", "whose _meta names no logLevel"),
        "tools.asks-only-for-declared-capabilities": ("FAIL", "of a request that declared no client capability"),
        "basic.listen-is-acknowledged-first": ("FAIL", "lack _meta io.modelcontextprotocol/subscriptionId"),
    }),
    "no-result-type": (False, {
        "basic.results-carry-a-result-type": ("FAIL", "carry no resultType string"),
    }),
}

HTTP_BREAKS: dict[str, dict[str, tuple[str, str]]] = {
    "http-no-header-checks": {
        "transports.mismatched-headers-are-400-32020": ("FAIL", "expected HTTP 400 with error -32020, got HTTP 200"),
    },
    "http-always-200,http-session-id": {
        "transports.mismatched-headers-are-400-32020": ("FAIL", "got HTTP 200 with error -32020"),
        "transports.meta-errors-are-400": ("FAIL", "expected HTTP 400 with error -32022, got HTTP 200"),
        "transports.unknown-methods-are-404": ("FAIL", "expected HTTP 404 with error -32601, got HTTP 200"),
        "transports.no-session-is-minted-or-required": ("WARN", "carries Mcp-Session-Id 'broken-session-1'"),
    },
}


def assert_breaks(report: dict[str, Any], expected: dict[str, tuple[str, str]], out: str) -> None:
    assert not_passed(report) == {name: status for name, (status, _) in expected.items()}, out
    for name, (_, words) in expected.items():
        assert words in detail(report, name), (name, detail(report, name))


@pytest.mark.parametrize("modes", list(STDIO_BREAKS))
def test_a_server_breaking_rules_of_2026_07_28_over_stdio_fails_exactly_their_cases(tmp_path: Path, modes: str) -> None:
    call_tools, expected = STDIO_BREAKS[modes]
    code, report, out = check_json(tmp_path, "server", "--stdio", f"{sys.executable} {BROKEN} --mode {modes}",
                                   "--protocol-version", REVISION, *(["--call-tools"] if call_tools else []),
                                   "--only", *SERVER_CASES)
    assert code == (1 if any(status == "FAIL" for status, _ in expected.values()) else 0), out
    assert_breaks(report, expected, out)


@pytest.fixture
def broken_http(request: Any) -> Iterator[str]:
    with running(BROKEN.name, request.param) as (url, _):
        yield url


@pytest.mark.parametrize("broken_http", list(HTTP_BREAKS), indirect=True)
def test_a_server_breaking_the_transport_of_2026_07_28_fails_exactly_its_cases(tmp_path: Path, broken_http: str,
                                                                                request: Any) -> None:
    modes = request.node.callspec.params["broken_http"]
    code, report, out = check_json(tmp_path, "server", "--http", broken_http, "--protocol-version", REVISION,
                                   "--only", *SERVER_CASES)
    assert code == 1, out
    assert_breaks(report, HTTP_BREAKS[modes], out)


# --- clients -------------------------------------------------------------------------------------


def check_client(tmp_path: Path, mode: str) -> tuple[int, dict[str, Any], str]:
    return check_json(tmp_path, "client", "--protocol-version", REVISION, "--", sys.executable, str(CLIENT),
                      "--mode", mode, "{server}")


@pytest.mark.parametrize("mode", ["ours", "good", "no-discover"])
def test_a_right_client_of_2026_07_28_passes_every_client_case(tmp_path: Path, mode: str) -> None:
    code, report, out = check_client(tmp_path, mode)
    assert code == 0 and not_passed(report) == {}, out
    seen = statuses(report)
    assert {name: seen[name] for name in CLIENT_CASES} == dict.fromkeys(CLIENT_CASES, "PASS"), out
    assert all(status == "SKIP" for name, status in seen.items() if name not in CLIENT_CASES), out
    assert "proposed protocol '2026-07-28'" in out and "declares elicitation, roots, sampling" in out


WRONG_CLIENTS = {
    "same-id": ("basic.retries-have-a-new-id", "FAIL", "the retry reuses id"),
    "tampered-state": ("basic.request-state-is-echoed-unchanged", "FAIL", "x\", not "),
    "state-when-absent": ("basic.request-state-is-echoed-unchanged", "FAIL", "though the input_required answer gave none"),
    "no-capabilities": ("basic.every-request-carries-meta", "FAIL", "lacks io.modelcontextprotocol/clientCapabilities"),
    "no-client-info": ("basic.requests-name-the-client", "WARN", "has no io.modelcontextprotocol/clientInfo"),
    "partial-answers": ("basic.input-responses-answer-what-was-asked", "FAIL", "leaves out elicit, asked for"),
    "initialize": ("lifecycle.probes-with-server-discover", "WARN", "the first request is \"initialize\""),
}


@pytest.mark.parametrize("mode", list(WRONG_CLIENTS))
def test_a_client_wrong_in_one_way_fails_that_case_alone(tmp_path: Path, mode: str) -> None:
    name, status, words = WRONG_CLIENTS[mode]
    code, report, out = check_client(tmp_path, mode)
    assert not_passed(report) == {name: status}, out
    assert words in detail(report, name), detail(report, name)
    assert code == (1 if status == "FAIL" else 0), out
