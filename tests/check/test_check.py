"""The conformance checker (``mcp-ref check``): its cases, its command line, its reports, and our
own demo server and Client checked with it.

Not a spec page of its own: the kit judges every page that binds a server or a client
(https://modelcontextprotocol.io/specification/2024-11-05). Deliberately broken peers are in
tests/check/test_broken_peers.py, the official SDK in interop/test_check_sdk.py.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from mcp_ref_check import requirements
from mcp_ref_check.case_registry import all_client_cases, all_server_cases
from mcp_ref_check.model import requirement  # either index: 2024-11-05, or SHTTP-NN of 2025-03-26

from ..conftest import ROOT, SseServerProcess
from ..peers import running

MCP_REF = shutil.which("mcp-ref", path=str(Path(sys.executable).parent)) or "mcp-ref"
PEERS = ROOT / "tests" / "peers"
BROKEN_SERVER = f"{sys.executable} {PEERS / 'broken_server.py'}"

# Engine bugs the lead is fixing; our demo server fails these cases until then (never weaken a case).


def check(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MCP_REF, "check", *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def check_json(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    out = tmp_path / f"check-{len(list(tmp_path.iterdir()))}.json"
    cut = args.index("--") if "--" in args else len(args)  # options go before a client's command
    proc = check(*args[:cut], "--json", str(out), *args[cut:])
    return proc.returncode, json.loads(out.read_text()) if out.exists() else {}, proc.stdout + proc.stderr


def not_passed(report: dict[str, Any]) -> dict[str, str]:
    return {c["name"]: c["status"] for c in report["cases"] if c["status"] not in ("PASS", "SKIP")}


# --- the cases themselves -----------------------------------------------------------------------


def test_cases_cover_every_page_that_binds_a_peer_and_cite_known_ids() -> None:
    server, client = all_server_cases(), all_client_cases()
    assert len(server) >= 60 and len(client) >= 15
    for case in server + client:
        for req_id in case.ids:
            requirement(req_id)  # raises for an unknown ID
        assert case.page in requirements.PAGES, case.name
        assert case.summary and case.level in ("MUST", "SHOULD", "MAY", "INFO")
    server_pages = {c.page for c in server}
    assert server_pages >= {"basic/lifecycle", "basic/messages", "basic/transports", "basic/utilities/ping",
                            "basic/utilities/cancellation", "basic/utilities/progress", "server/tools",
                            "server/resources", "server/prompts", "server/utilities/logging",
                            "server/utilities/completion", "server/utilities/pagination"}
    assert {c.page for c in client} >= {"client/roots", "client/sampling", "basic/lifecycle", "basic/messages"}


def test_a_case_level_is_the_strongest_of_its_ids_from_the_index() -> None:
    for case in all_server_cases() + all_client_cases():
        strengths = {requirement(i).strength for i in case.ids}
        expected = next(s for s in ("MUST", "SHOULD", "MAY") if s in strengths)
        if case.informative:  # no rule binds this peer there: it never fails
            expected = "INFO"
        elif case.at_most == "SHOULD":  # a rule's purpose beyond its letter, or a conflict: a warning at most
            expected = "SHOULD" if expected == "MUST" else expected
        assert case.level == expected, case.name


# TR-11's row holds two sentences: the server announces an endpoint, and the client POSTs every
# message to it. The index files the row under the server; the client case cites its second half.
BOTH_HALVES = {("client", "TR-11")}


def test_a_case_cites_only_rules_that_bind_the_side_it_judges() -> None:
    for side, cases in (("server", all_server_cases()), ("client", all_client_cases())):
        for case in cases:
            for req_id in case.ids:
                binds = requirement(req_id).side
                if binds in (side, "both") or (side, req_id) in BOTH_HALVES:
                    continue
                # A rule of the other side may only be cited by a case that never fails on it.
                assert case.informative, f"{side} case {case.name} cites {req_id}, which binds the {binds}"


def test_spec_notes_list_every_case_with_its_ids() -> None:
    notes = (ROOT / "spec_notes" / "checker.md").read_text()
    server_part, _, client_part = notes.partition("## Client cases")
    for part, cases in ((server_part, all_server_cases()), (client_part, all_client_cases())):
        rows = {(m.group(1), m.group(2)) for m in re.finditer(r"^\| `([a-z0-9.-]+)` \| ([A-Z0-9, -]+?) \|", part, re.M)}
        assert rows == {(c.name, ", ".join(c.ids)) for c in cases}, "checker.md and the registered cases differ"


def test_list_prints_every_case_with_its_ids() -> None:
    proc = check("--list")
    assert proc.returncode == 0, proc.stderr
    for case in all_server_cases() + all_client_cases():
        line = next(line for line in proc.stdout.splitlines() if line.strip().startswith(case.name + " "))
        assert " ".join(case.ids) in line and f"[{case.level}]" in line


def test_only_selects_by_page_short_page_id_or_name(tmp_path: Path) -> None:
    for selector, names in (("server/tools", None), ("tools", None), ("TOOL-18", {"tools.unknown-tool-is-a-protocol-error"}),
                            ("ping.ping-before-initialize", {"ping.ping-before-initialize"})):
        code, report, out = check_json(tmp_path, "server", "--stdio", BROKEN_SERVER, "--only", selector, "--timeout", "2")
        assert code == 0, out
        got = {c["name"] for c in report["cases"]}
        if names is None:
            # (a run of the handshake leaves out the cases of 2026-07-28 unless named: runner.of_the_run)
            assert got == {c.name for c in all_server_cases() if c.page == "server/tools" and c.era != "stateless"}
        else:
            assert got == names
    proc = check("server", "--stdio", BROKEN_SERVER, "--only", "no-such-page")
    assert proc.returncode == 2 and "matches no server case" in proc.stderr


# --- exit status and reports --------------------------------------------------------------------


def test_exit_status_2_when_the_server_cannot_be_reached() -> None:
    proc = check("server", "--stdio", "mcp-ref-no-such-command-xyz")  # never started (tests/machinery/test_reach.py: why)
    assert proc.returncode == 2 and "could not start 'mcp-ref-no-such-command-xyz'" in proc.stderr
    proc = check("server", "--stdio", f"{sys.executable} -c pass", "--startup", "2")
    assert proc.returncode == 2 and "initialize" in proc.stderr


def test_exit_status_2_when_the_client_never_connects() -> None:
    proc = check("client", "--run-timeout", "5", "--", sys.executable, "-c", "import sys; sys.exit(3)", "{server}")
    assert proc.returncode == 2 and "never sent anything" in proc.stderr and "exit status 3" in proc.stderr


def test_a_failed_must_exits_1_and_shows_what_was_sent_and_what_came_back(tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    code, report, out = check_json(tmp_path, "server", "--stdio", f"{BROKEN_SERVER} --break unknown-method-32602",
                                   "--only", "messages", "--junit", str(junit), "--timeout", "2")
    assert code == 1, out
    assert "FAIL  messages.unknown-method-is-32601" in out
    assert 'sent: {"jsonrpc":"2.0","id":' in out and '"code":-32602' in out
    case = next(c for c in report["cases"] if c["name"] == "messages.unknown-method-is-32601")
    assert case["status"] == "FAIL" and case["ids"] == ["MSG-01"] and case["level"] == "MUST"
    assert case["page"] == "basic/messages" and "-32601" in case["detail"]
    finding = case["findings"][0]
    assert finding["id"] == "MSG-01" and "no-such-method" in finding["sent"] and "-32602" in finding["got"]
    assert any(m["dir"] == "sent" and "no-such-method" in m["data"] for m in case["messages"])
    assert report["exit_status"] == 1 and report["summary"]["MUST"]["FAIL"] == 1
    suites = ET.parse(junit).getroot()
    failures = [tc.get("name") for tc in suites.iter("testcase") if tc.find("failure") is not None]
    assert failures == ["messages.unknown-method-is-32601"]
    assert sum(int(s.get("failures", "0")) for s in suites.iter("testsuite")) == 1


def test_the_json_report_holds_every_message_whole_unless_told_to_cut(tmp_path: Path) -> None:
    """Issue 34: --json cut each message at about 4,000 characters, so a tools/list could not be
    audited again from the report. Now it is whole; --max-message-bytes N cuts at N bytes."""
    def tools_list(report: dict[str, Any]) -> str:
        return next(m["data"] for c in report["cases"] for m in c["messages"] if m["dir"] == "got" and '"word0000' in m["data"])

    args = ["server", "--stdio", f"{BROKEN_SERVER} --long-description", "--only", "tools.tools-list-is-well-formed"]
    code, report, out = check_json(tmp_path, *args)
    whole = tools_list(report)
    assert code == 0 and len(whole) > 6000, out
    assert json.loads(whole)["result"]["tools"][0]["description"].endswith("word0666")
    _, cut, _ = check_json(tmp_path, *args, "--max-message-bytes", "1000")
    shortened = tools_list(cut)
    assert len(shortened.split("... (")[0].encode()) == 1000 and f"{len(whole.encode())} bytes in all" in shortened
    assert check(*args, "--max-message-bytes", "0").returncode == 2  # argparse: not a number of bytes


def test_a_missed_should_warns_and_fails_only_under_strict(tmp_path: Path) -> None:
    args = ["server", "--stdio", f"{BROKEN_SERVER} --break unknown-tool-iserror", "--only", "TOOL-18", "--timeout", "2"]
    code, report, out = check_json(tmp_path, *args)
    assert code == 0 and "WARN  tools.unknown-tool-is-a-protocol-error" in out and "TOOL-18 (SHOULD)" in out
    assert not_passed(report) == {"tools.unknown-tool-is-a-protocol-error": "WARN"}
    assert check(*args, "--strict").returncode == 1


def test_a_silent_server_is_judged_by_the_ping_after_its_input_and_says_when_that_came(tmp_path: Path) -> None:
    hang = f"{sys.executable} {PEERS / 'broken_server.py'} --break silent-parse-error"
    code, report, out = check_json(tmp_path, "server", "--stdio", hang, "--only", "answers-unparseable-input-with-32700",
                                   "--timeout", "1")
    case = report["cases"][0]
    finding = case["findings"][0]
    # Silence is judged by a ping sent right after the input: answered, while the input was not.
    assert re.fullmatch(r"\(nothing, and the ping sent right after it was answered within \d+(\.\d)? s\)",
                        finding["got"]), finding["got"]
    # JSON-RPC wants -32700 with a null id; the 2024-11-05 schema has no null id: a warning naming both
    # (a server that does answer must answer right: the case is a MUST, its silence finding a SHOULD).
    assert code == 0 and case["status"] == "WARN" and case["level"] == "MUST" and finding["level"] == "SHOULD"
    assert "JSON-RPC" in finding["message"] and "schema" in finding["message"] and "MSG-03" in finding["message"]
    assert finding["link"] == "https://modelcontextprotocol.io/specification/2024-11-05/basic/messages"


def test_a_finding_carries_its_spec_section_and_the_headers_the_kit_sent(tmp_path: Path) -> None:
    with running("unruly_sse_server.py", "any-origin") as (url, _):
        junit = tmp_path / "junit.xml"
        code, report, out = check_json(tmp_path, "server", "--sse", url, "--only", "TR-06", "--timeout", "2",
                                       "--junit", str(junit))
    assert code == 1, out
    link = "https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#security-warning"
    finding = report["cases"][0]["findings"][0]
    assert finding["id"] == "TR-06" and finding["link"] == link and finding["section"] == "Security Warning"
    port = url.split(":")[2].split("/")[0]
    assert finding["headers"]["Origin"] == "http://mcp-ref-check.invalid"
    assert finding["headers"]["Host"] == f"127.0.0.1:{port}"
    # It checks no Host name either: one cause (no DNS-rebinding check at all), one finding naming
    # both; the Host case notes it rather than warning again (issue 34).
    assert len(report["cases"][0]["findings"]) == 1 and "neither Origin nor Host" in finding["message"], out
    assert f"mcp-ref-check.invalid:{port}" in finding["message"]
    host = next(case for case in report["cases"] if case["name"] == "transports.sse-refuses-a-foreign-host")
    assert host["status"] == "PASS" and host["level"] == "SHOULD", out
    assert any("judged once, by transports.sse-refuses-a-foreign-origin" in note for note in host["notes"]), out
    assert f"spec: {link} (Security Warning)" in out and "headers sent: Host: 127.0.0.1:" in out
    assert "Origin: http://mcp-ref-check.invalid" in out
    failure = ET.parse(junit).getroot().find(".//testcase/failure")
    assert failure is not None and link in (failure.text or "") and "Origin: http://mcp-ref-check.invalid" in (
        failure.text or "")


def test_an_error_caused_by_the_servers_own_refused_request_is_counted_once_over_sse(tmp_path: Path) -> None:
    """The server asks a client without sampling to sample while the client's subscribe POST is still
    in flight, then fails the subscribe: one LC-15 warning, and no RES-01 failure on top of it."""
    with running("unruly_sse_server.py", "sampling-on-subscribe") as (url, _):
        code, report, out = check_json(tmp_path, "server", "--sse", url, "--only", "resources", "LC-15",
                                       "--timeout", "3")
    assert not_passed(report) == {"lifecycle.uses-only-client-capabilities": "WARN"}, out
    subscribe = next(c for c in report["cases"] if c["name"] == "resources.subscribe-and-unsubscribe")
    assert any("sampling/createMessage, which the kit refused" in note for note in subscribe["notes"])


def test_a_tool_call_gets_its_own_budget_on_the_command_line(tmp_path: Path) -> None:
    stuck = f"{BROKEN_SERVER} --break stuck-tool"
    code, report, out = check_json(tmp_path, "server", "--stdio", stuck, "--call-tools", "--call-timeout", "1",
                                   "--only", "tools.tool-results-are-well-formed", "--timeout", "2")
    finding = report["cases"][0]["findings"][0]
    assert code == 1 and finding["id"] == "MSG-01" and "--call-timeout 1 s" in finding["message"], out
    assert re.fullmatch(r"\(nothing within 1(\.\d)? s\)", finding["got"]), finding["got"]  # what it really waited


# --- our own peers pass -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_reports(tmp_path_factory: Any) -> dict[str, tuple[int, dict[str, Any], str]]:
    """``mcp-ref check server`` on our demo server over stdio and over SSE, with --call-tools."""
    tmp = tmp_path_factory.mktemp("demo")
    reports = {"stdio": check_json(tmp, "server", "--stdio", f"{sys.executable} -m mcp_ref serve", "--call-tools")}
    server = SseServerProcess("mcp_ref.demo_server:server")
    try:
        reports["sse"] = check_json(tmp, "server", "--sse", server.url, "--call-tools")
    finally:
        server.close()
    return reports


@pytest.mark.parametrize("transport", ["stdio", "sse"])
def test_demo_server_passes_every_case(demo_reports: Any, transport: str) -> None:
    code, report, out = demo_reports[transport]
    assert code == 0 and not_passed(report) == {}, out
    skipped = {c["name"] for c in report["cases"] if c["status"] == "SKIP"}
    assert not any(name.startswith(("tools.tool-results", "progress.")) for name in skipped), "--call-tools ran the tools"


def test_the_done_criterion_check_of_mcp_ref_serve_exits_0() -> None:
    serve = shutil.which("mcp-ref", path=str(Path(sys.executable).parent))
    proc = check("server", "--stdio", f"{serve} serve")
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("transport", ["stdio", "sse"])
def test_our_client_passes_every_client_case(tmp_path: Path, transport: str) -> None:
    client = [MCP_REF, "request", f"--{transport}", "{server}", "tools/call", '{"name": "echo", "arguments": {"text": "hi"}}',
              "--root", "file:///tmp/mcp-ref-check", "--sampling-reply", "OK"]
    code, report, out = check_json(tmp_path, "client", *(["--sse"] if transport == "sse" else []), "--", *client)
    assert code == 0 and not_passed(report) == {}, out
    passed = {c["name"] for c in report["cases"] if c["status"] == "PASS"}
    assert {"roots.roots-list-is-answered", "sampling.sampling-request-is-answered", "ping.ping-is-answered",
            "messages.unknown-method-is-32601", "ping.ping-is-answered-after-notifications"} <= passed
    if transport == "stdio":
        assert "lifecycle.shuts-down-by-closing-stdin" in passed
    assert "client 'mcp_ref'" in out and "declares roots, sampling" in out


def test_the_client_command_needs_the_server_placeholder() -> None:
    proc = check("client", "--", MCP_REF, "request", "--stdio", "mcp-ref serve", "ping")
    assert proc.returncode == 2 and "{server}" in proc.stderr


def test_import_mcp_ref_does_not_load_the_kit() -> None:
    code = "import sys, mcp_ref; print(sorted(m for m in sys.modules if m.startswith('mcp_ref_check')))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30, check=True)
    assert proc.stdout.strip() == "[]"


# --- the kit's own structure ------------------------------------------------------------------------

KIT = ROOT / "mcp_ref_check"


def kit_imports() -> dict[str, set[str]]:
    """Module -> the kit modules it imports, counting every import statement anywhere in the file:
    inside functions and under ``if TYPE_CHECKING:`` too."""
    modules = {path.stem for path in KIT.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in KIT.glob("*.py"):
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom):
                if node.level == 1 and node.module is None:  # from . import shapes
                    edges |= {alias.name for alias in node.names if alias.name in modules}
                elif node.level == 1:  # from .model import Case
                    edges.add(node.module.split(".")[0])  # type: ignore[union-attr]
                elif node.level == 0 and (node.module or "").startswith("mcp_ref_check."):
                    edges.add((node.module or "").split(".")[1])
            elif isinstance(node, ast.Import):
                edges |= {a.name.split(".")[1] for a in node.names if a.name.startswith("mcp_ref_check.")}
        graph[path.stem] = {e for e in edges if e in modules and e != path.stem}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, str] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_kit_imports_form_no_cycle() -> None:
    graph = kit_imports()
    assert {"model", "case_registry", "runner", "server_messages", "client_cases"} <= set(graph)
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])
    # The walk sees imports inside functions: the registry is what the command line reads.
    assert "case_registry" in graph["command"] and "case_registry" not in graph["model"]


def test_the_cycle_finder_finds_a_cycle_through_a_function_level_import() -> None:
    graph = kit_imports()
    graph["model"] = graph["model"] | {"case_registry"}  # what model.all_server_cases() used to do
    cycle = find_cycle(graph)
    assert cycle is not None and "model" in cycle and "case_registry" in cycle
