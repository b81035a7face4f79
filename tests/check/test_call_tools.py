"""``mcp-ref check server --call-tools`` says what it did (issue 34, item 5).

The kit makes arguments for every construct the tools of 2024-11-05 servers use (mcp_ref_check/
tool_arguments.py), asks the optional hypothesis-jsonschema for the rest, checks each value
against the schema before it sends it, and ends with a summary: called, answered with a result,
with isError, refused as invalid params, not called and why. The peer is a stdlib stdio server
(tests/peers/tool_schemas_server.py) whose tools check their own arguments.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ..peers import HERE
from .test_check import check_json

TOOL_SCHEMAS = f"{sys.executable} {HERE / 'tool_schemas_server.py'}"


def results_case(tmp_path: Path, mode: str) -> tuple[int, dict, str]:  # type: ignore[type-arg]
    code, report, out = check_json(tmp_path, "server", "--stdio", f"{TOOL_SCHEMAS} --mode {mode}", "--call-tools",
                                   "--only", "tools.tool-results-are-well-formed", "--timeout", "3")
    return code, report["cases"][0], out


def test_every_tool_of_the_wild_schemas_is_called_with_arguments_it_accepts(tmp_path: Path) -> None:
    """A union of types, format uri, minItems, a $ref, a pattern, anyOf, a nested object: before,
    five of the seven were never called and add_paths got [] (refused), yet the case said PASS."""
    code, case, out = results_case(tmp_path, "schemas-in-the-wild")
    assert case["status"] == "PASS", out
    summary = case["notes"][0]
    assert summary == ("summary: called 7 of 7 tool(s): 7 answered with a result, 0 with isError: true, 0 refused "
                       "as invalid params (-32602), 0 with another error, 0 not answered; 0 not called"), out
    assert not any(note.startswith("not called") for note in case["notes"]), out
    assert code == 0, out


def test_a_run_where_every_call_is_refused_as_invalid_params_does_not_pass(tmp_path: Path) -> None:
    """Arguments that meet the schema (jsonschema says so) refused with -32602 are the tool failing
    (TOOL-17, a warning); the summary says every call was refused. Before: PASS, "called 1 tool(s)"."""
    code, case, out = results_case(tmp_path, "refuses-every-call")
    assert case["status"] == "WARN" and {f["id"] for f in case["findings"]} == {"TOOL-17"}, out
    assert "1 refused as invalid params (-32602)" in case["notes"][0] and "0 answered with a result" in case["notes"][0]
    assert '"paths"' not in out and '"value": []' not in out.replace(" ", " ")  # minItems: 1 is met
    assert code == 0, out


def test_without_the_extra_a_tool_that_needs_it_is_not_called_and_the_reason_says_how_to_install_it() -> None:
    """hypothesis-jsonschema is optional: without it (an import that fails, as when it is not
    installed), a schema the kit's own generator cannot meet gets no arguments, and why says how to
    install it; the schemas it can meet still get theirs."""
    script = (
        "import sys; sys.modules['hypothesis_jsonschema'] = None\n"
        "from mcp_ref_check import tool_arguments as a\n"
        "hard = {'type': 'object', 'properties': {'c': {'type': 'string', 'pattern': '^[A-Z]{3}$'}}, 'required': ['c']}\n"
        "easy = {'type': 'object', 'properties': {'u': {'type': 'string', 'format': 'uri'}}, 'required': ['u']}\n"
        "made = a.make(hard); print(made.arguments); print(made.why); print(a.make(easy).arguments)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and lines[0] == "None", proc.stderr
    assert "hypothesis-jsonschema" in lines[1] and "pip install 'mcp-ref[check]'" in lines[1]
    assert lines[2] == "{'u': 'https://example.com/mcp-ref-check'}"


def test_arguments_meet_their_schema_and_are_the_same_every_run() -> None:
    from mcp_ref_check.tool_arguments import arguments_valid, make
    from tests.peers.tool_schemas_server import TOOLS

    for tool in TOOLS:
        made = make(tool["inputSchema"])
        assert made.arguments is not None and arguments_valid(tool["inputSchema"], made.arguments), tool["name"]
    code = make(TOOLS[4]["inputSchema"])
    assert code.by == "hypothesis-jsonschema"
    script = ("from mcp_ref_check.tool_arguments import make; from tests.peers.tool_schemas_server import TOOLS; "
              "print(make(TOOLS[4]['inputSchema']).arguments)")
    again = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                           cwd=Path(__file__).resolve().parents[2])
    assert again.stdout.strip() == str(code.arguments), again.stderr
    assert make(TOOLS[2]["inputSchema"]).arguments == {"value": ["mcp-ref-check"]}  # minItems: 1, not []
