"""The checker grades a peer at the revision it agrees on (issue 35, item 4): mcp_ref_check/revisions.py,
and the cases of the later revisions (server_revisions.py, and the revision-dependent rules of the
other case modules).

https://modelcontextprotocol.io/specification/2025-11-25 (and 2025-03-26, 2025-06-18)
Each new case meets a server that passes it and one that fails it: tests/peers/revision_server.py
(stdio, plain stdlib: good, bad and leaky modes, any set of versions), our own Streamable HTTP
server, and tests/peers/unruly_http_server.py in its speaks-2025-11-25-loosely mode.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mcp_ref_check import indexes, revisions
from mcp_ref_check.runner import Options, Target, run_server_check

from ..conftest import ROOT, SseServerProcess
from ..peers import running
from .test_check import MCP_REF, check_json

PEER = f"{sys.executable} {ROOT / 'tests' / 'peers' / 'revision_server.py'}"


def statuses(mode: str, only: list[str], versions: str = "2025-11-25", pinned: str | None = None,
             call_tools: bool = False) -> tuple[dict[str, str], dict[str, list[str]], str]:
    """Run ``only`` against revision_server.py: (case -> status, case -> finding IDs, graded revision)."""
    target = Target(stdio=f"{PEER} --versions {versions} --mode {mode}")
    results, discovery = run_server_check(target, Options(timeout=3, only=only, call_tools=call_tools,
                                                          protocol_version=pinned))
    return ({r.case.name: r.status.value for r in results}, {r.case.name: [f.id for f in r.findings] for r in results},
            discovery.version)


def test_the_rule_of_the_agreed_revision() -> None:
    assert revisions.offered(None) == ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
    assert revisions.offered("2024-11-05") == ("2024-11-05",)
    assert revisions.answer_to("2025-03-26", None) == "2025-03-26"
    assert revisions.answer_to("1999-01-01", None) == "2025-11-25"
    assert revisions.answer_to("2025-11-25", "2024-11-05") == "2024-11-05"
    assert [revisions.rule_for("batch", v) for v in revisions.REVISIONS] == ["MSG-01", "BATCH-01", "MSG-01", "MSG-01"]
    assert revisions.rule_for("negotiated", "2025-03-26") == "LC-14"
    assert revisions.rule_for("negotiated", "2025-06-18") == "NEGO-01"
    assert revisions.content_kinds("2024-11-05") == ("text", "image", "resource")
    assert revisions.content_kinds("2025-06-18")[-2:] == ("audio", "resource_link")


def test_every_id_the_cases_name_is_a_row_of_the_revision_its_comment_names() -> None:
    """revisions.ID: each entry's comment opens with the revision whose index holds the row."""
    source = (ROOT / "mcp_ref_check" / "revisions.py").read_text(encoding="utf-8")
    for key, req_id in revisions.ID.items():
        line = next(line for line in source.splitlines() if line.strip().startswith(f'"{key}": "{req_id}"'))
        assert f"# {indexes.revision_of(req_id)}:" in line, line


@pytest.mark.parametrize(("declared", "version", "modes"), [
    ({}, "2025-11-25", {"form"}),  # an empty object: form alone (ELICU-03)
    ({"form": {}}, "2025-11-25", {"form"}),
    ({"url": {}}, "2025-11-25", {"url"}),
    ({"form": {}, "url": {}}, "2025-11-25", {"form", "url"}),
    ({"url": True}, "2025-11-25", {"form"}),  # a mode is declared by an object
    ({}, "2025-06-18", {"form"}),
    ({"url": {}}, "2025-06-18", {"form"}),  # 2025-06-18 has form mode alone
    ({}, "2025-03-26", set()),
    (None, "2025-11-25", set()),
    ([], "2025-11-25", set()),
])  # fmt: skip
def test_the_elicitation_modes_a_capability_declares(declared: object, version: str, modes: set[str]) -> None:
    assert revisions.elicitation_modes(declared, version) == modes


def test_later_fields_are_judged_at_the_agreed_revision() -> None:
    only = ["tools.annotations-and-titles-are-well-formed", "tools.output-schema-is-an-object-schema",
            "tools.structured-content-conforms", "tools.tool-results-are-well-formed",
            "lifecycle.answers-with-the-requested-version"]
    good, _, graded = statuses("good", only, call_tools=True)
    assert graded == "2025-11-25"
    assert {good[name] for name in only} == {"PASS"}, good
    bad, ids, _ = statuses("bad", only, call_tools=True)
    assert bad["tools.annotations-and-titles-are-well-formed"] == "FAIL"
    assert bad["tools.output-schema-is-an-object-schema"] == "FAIL"
    assert bad["tools.structured-content-conforms"] == "FAIL" and "OUT-03" in ids["tools.structured-content-conforms"]
    assert "PRMA-01" in ids["tools.tool-results-are-well-formed"]
    # The same server at 2024-11-05: those fields do not exist there, so their cases do not apply,
    # and audio is a content type of a later revision (LC-14, the negotiated version).
    old, ids, graded = statuses("bad", only, versions="2024-11-05", call_tools=True)
    assert graded == "2024-11-05"
    assert old["tools.annotations-and-titles-are-well-formed"] == "SKIP"
    assert old["tools.structured-content-conforms"] == "SKIP"


def test_an_older_answer_is_graded_at_and_a_pinned_one_must_be_met() -> None:
    only = ["lifecycle.answers-with-the-requested-version", "completion.refused-when-undeclared"]
    found, _, graded = statuses("good", only, versions="2025-03-26")
    assert graded == "2025-03-26" and found["lifecycle.answers-with-the-requested-version"] == "PASS"
    assert found["completion.refused-when-undeclared"] == "PASS"
    found, ids, _ = statuses("bad", only, versions="2025-03-26")
    assert found["completion.refused-when-undeclared"] == "FAIL" and ids["completion.refused-when-undeclared"] == ["CMPL-01"]
    found, ids, graded = statuses("good", only, versions="2025-03-26", pinned="2024-11-05")
    assert found["lifecycle.answers-with-the-requested-version"] == "FAIL"
    assert found["completion.refused-when-undeclared"] == "SKIP"  # graded at the offer: 2024-11-05 has no such capability


def test_a_2024_session_gets_no_field_of_a_later_revision() -> None:
    only = ["lifecycle.no-later-fields-in-an-older-session"]
    both = "2025-11-25,2024-11-05"
    assert statuses("good", only, versions=both)[0] == {only[0]: "PASS"}
    found, ids, _ = statuses("leaky", only, versions=both, call_tools=True)
    assert found == {only[0]: "WARN"} and ids[only[0]] == ["LC-14"]


def test_the_version_header_and_the_origin_403_over_streamable_http(tmp_path: Path) -> None:
    only = ["--only", "transports.http-unsupported-protocol-version-is-400", "transports.http-refuses-a-foreign-origin"]
    server = SseServerProcess("mcp_ref.demo_server:server", "--transport", "http")
    try:
        code, report, out = check_json(tmp_path, "server", "--http", server.url, "--timeout", "2", *only)
    finally:
        server.close()
    assert {c["name"]: c["status"] for c in report["cases"]} == {
        "transports.http-unsupported-protocol-version-is-400": "PASS", "transports.http-refuses-a-foreign-origin": "PASS"}, out
    assert report["offered"][0] == "2025-11-25" and report["agreed"] == "2025-11-25", report
    assert "offered 2025-11-25" in out and "graded at 2025-11-25" in out
    with running("unruly_http_server.py", "speaks-2025-11-25-loosely") as (url, _):
        code, report, out = check_json(tmp_path, "server", "--http", url, "--timeout", "2", *only)
    cases = {c["name"]: c for c in report["cases"]}
    assert cases["transports.http-unsupported-protocol-version-is-400"]["status"] == "FAIL", out
    assert [f["id"] for f in cases["transports.http-refuses-a-foreign-origin"]["findings"]] == [
        revisions.ID["origin-403"]], out


@pytest.mark.parametrize("pinned, header", [("2025-11-25", "PASS"), ("2024-11-05", "SKIP")])
def test_our_client_at_a_pinned_revision(tmp_path: Path, pinned: str, header: str) -> None:
    client = [MCP_REF, "request", "--http", "{server}", "ping"]
    code, report, out = check_json(tmp_path, "client", "--http", "--protocol-version", pinned, "--only",
                                   "transports.sends-the-protocol-version-header", "--", *client)
    assert report["agreed"] == pinned and f"the checking server answered {pinned}" in out, out
    assert {c["name"]: c["status"] for c in report["cases"]} == {"transports.sends-the-protocol-version-header": header}
