"""The wire, explained (mcp_ref/cli/explain.py): Client(trace="explain"), mcp-ref request --explain,
and mcp-ref demo --explain / --step / --only.

Not a spec page of its own: a teaching aid over all of them. Every line names the message's
direction, its method (a response: the method of the request it answers), its page and the
requirement IDs it exercises; the table must cover every method both sides handle.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mcp_ref import SUPPORTED_PROTOCOL_VERSIONS, Client, McpError, Server
from mcp_ref.cli.explain import BASE, ERRORS, LATER_FIELDS, METHODS, Explainer, tracer, where_is
from mcp_ref.machinery.memory import MemoryTransport
from mcp_ref_check.requirements import REQUIREMENTS

from ..conftest import ROOT, server_command
from .test_main import MCP_REF, SERVE, run


def test_every_method_both_sides_handle_is_in_the_table_and_every_id_is_known() -> None:
    server = Server("s")
    client = Client(MemoryTransport.pair()[0])
    client.close()
    handled = {*server.request_handlers, *server.notification_handlers, *client.request_handlers,
               *client.notification_handlers, "notifications/cancelled", "notifications/progress"}
    assert handled - set(METHODS) == set()
    named = {i for entry in METHODS.values() for i in (*entry.request, *entry.result, *(
        i for ids in entry.errors.values() for i in ids))} | {i for ids in ERRORS.values() for i in ids}
    named |= {i for later in LATER_FIELDS.values() for i in later.ids}
    # Known: in the 2024-11-05 index, or a later revision's (mcp_ref_check/indexes.py).
    from mcp_ref_check import indexes

    assert named and named <= set(indexes.everything())
    for requirement_id in named:
        where_is(requirement_id)  # every ID a label names can be placed on its page
    for method, entry in METHODS.items():
        assert where_is(entry.request[0]) == entry.where, method  # a method's first ID is of its page
        assert (entry.revision == BASE) == (entry.request[0] in REQUIREMENTS), method


def test_responses_are_matched_to_their_request_per_direction_and_id() -> None:
    lines: list[str] = []
    explain = Explainer(lines.append)
    explain("->", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}')
    explain("<-", b'{"jsonrpc":"2.0","id":1,"method":"roots/list"}')  # the server's id 1: another request
    explain("<-", b'{"jsonrpc":"2.0","id":"1","result":{}}')  # "1" is not 1: no request of ours had it
    explain("->", b'{"jsonrpc":"2.0","id":1,"result":{"roots":[]}}')  # answers the server's roots/list
    explain("<-", b'{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool"}}')
    explain("<-", b"not json")
    assert lines == [
        "client -> server  tools/call  [server/tools TOOL-08]",
        "client <- server  roots/list  [client/roots ROOT-01]",
        "client <- server  (id '1': no request seen): result  [basic/messages MSG-05]",
        "client -> server  roots/list: result  [client/roots ROOT-03 ROOT-21]",
        "client <- server  tools/call: error -32602  [server/tools TOOL-18 TOOL-08]",
        "client <- server  (not JSON)  [basic/messages: answered -32700]",
    ]


def test_whatever_the_peer_sends_the_explainer_writes_one_line() -> None:
    lines: list[str] = []
    explain = Explainer(lines.append)
    hostile = [b"[" * 100_000, b"[1, 2]", b'{"method": 5}', b'{"jsonrpc":"2.0","id":[1],"result":{"messages":5}}',
               b'{"jsonrpc":"2.0","id":1,"error":"x"}', b'{"jsonrpc":"2.0","id":{},"method":"prompts/get"}',
               b'{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"_meta":[],"cursor":{}}}',
               b'{"jsonrpc":"2.0","id":2,"result":{"messages":[5,{"content":7}],"nextCursor":null}}',
               b'{"jsonrpc":"2.0","id":3,"error":{"code":[],"message":{}}}', b"\xff\xfe"]
    for data in hostile:
        explain("<-", data)
    assert len(lines) == len(hostile) and all(line.startswith("client <- server  ") for line in lines)
    assert not [line for line in lines if "could not explain" in line]  # each one understood, not just survived


def test_a_server_side_explainer_and_what_a_message_adds() -> None:
    lines: list[str] = []
    explain = Explainer(lines.append, side="server", show_json=True)
    explain("<-", b'{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"abc","_meta":{"progressToken":7}}}')
    explain("->", b'{"jsonrpc":"2.0","id":7,"result":{"tools":[],"nextCursor":"def"}}')
    explain("<-", b'{"jsonrpc":"2.0","id":8,"method":"prompts/list"}')
    explain("->", b'{"jsonrpc":"2.0","id":8,"error":{"code":-32600,"message":"send initialize first"}}')
    assert lines[0] == ("server <- client  tools/list  [server/tools TOOL-05; basic/utilities/progress PROG-01 PROG-02; "
                        "server/utilities/pagination PAG-06 PAG-07]")
    assert lines[1].startswith('    {"jsonrpc":"2.0","id":7,"method":"tools/list"')
    assert lines[2] == "server -> client  tools/list: result  [server/tools; server/utilities/pagination PAG-04 PAG-11]"
    assert lines[6] == ("server -> client  prompts/list: error -32600  "
                        "[server/prompts; basic/messages MSG-01; basic/lifecycle LC-01]")


def test_client_trace_explain_over_a_real_server(capfd: pytest.CaptureFixture[str]) -> None:
    with Client.stdio(server_command(), trace=tracer("client"), sampling_handler=lambda params: "yes",
                      protocol_versions=SUPPORTED_PROTOCOL_VERSIONS) as client:  # the handshake (2026-07-28: below)
        client.call_tool("add", {"a": 1, "b": 2})
        client.call_tool("fail")
        client.call_tool("ask_model")
        with pytest.raises(McpError):
            client.request("vendor/unknown")
    lines = [line for line in capfd.readouterr().err.splitlines() if line.startswith("client ")]
    assert lines[:3] == [
        "client -> server  initialize  [basic/lifecycle LC-04 LC-05 LC-06 LC-11]",
        # by default the newest revision both speak: its completions capability, labelled by its page
        "client <- server  initialize: result  [basic/lifecycle LC-07 LC-12; 2025-03-26/server/utilities/completion]",
        "client -> server  notifications/initialized  [basic/lifecycle LC-08]",
    ]
    assert "client <- server  tools/call: result  [server/tools TOOL-17]" in lines  # isError: true
    assert "client <- server  sampling/createMessage  [client/sampling SAMP-05; architecture AR-05]" in lines
    assert "client -> server  sampling/createMessage: result  [client/sampling SAMP-09]" in lines
    assert lines[-2:] == ["client -> server  vendor/unknown  [not a 2024-11-05 method: expect -32601]",
                          "client <- server  vendor/unknown: error -32601  [basic/messages: method not found]"]


def test_a_session_of_2026_07_28_is_explained_with_its_probe_its_rounds_and_its_errors(
        capfd: pytest.CaptureFixture[str]) -> None:
    with Client.stdio(server_command(), trace=tracer("client"), sampling_handler=lambda params: "yes") as client:
        assert client.protocol_version == "2026-07-28"
        client.call_tool("ask_model")  # one round of input: an input_required result, then the retry
        client.list_tools()  # a list: with its caching hints
    with Client.stdio(server_command(), trace=tracer("client")) as client, pytest.raises(McpError):
        client.call_tool("ask_model")  # no sampling declared: -32021
    lines = [line for line in capfd.readouterr().err.splitlines() if line.startswith("client ")]
    assert lines[:6] == [
        "client -> server  server/discover  [2026-07-28/server/discover DISC-02; 2026-07-28/basic/transports/stdio "
        "STDIO-06; 2026-07-28/basic STLS-09 STLS-11]",
        "client <- server  server/discover: result  [2026-07-28/server/discover DISC-01 DISC-03; "
        "2026-07-28/server/utilities/caching CACHE-01 CACHE-05]",
        "client -> server  tools/call  [server/tools TOOL-08; 2026-07-28/basic STLS-09 STLS-11]",
        "client <- server  tools/call: result  [server/tools; 2026-07-28/basic RTYPE-01; 2026-07-28/server/tools MRTR-21]",
        "client -> server  tools/call  [server/tools TOOL-08; 2026-07-28/basic STLS-09 STLS-11; "
        "2026-07-28/basic/patterns/mrtr MRTR-14 MRTR-15 MRTR-16]",
        "client <- server  tools/call: result  [server/tools TOOL-19]",
    ]
    assert "client <- server  tools/list: result  [server/tools; 2026-07-28/server/utilities/caching CACHE-01 " \
           "CACHE-05]" in lines
    assert lines[-1] == "client <- server  tools/call: error -32021  [server/tools; 2026-07-28/basic STLS-12]"


def test_trace_takes_true_false_or_a_callable_and_a_string_says_where_the_explainer_is() -> None:
    for word in ("verbose", "explain"):  # the explainer is tooling: the library does not import it
        with pytest.raises(ValueError, match=r'trace=tracer\("client"\).*mcp_ref.cli.explain'):
            Client.stdio(server_command(), trace=word)  # type: ignore[arg-type]


def test_request_explain_prints_the_explained_wire_on_stderr() -> None:
    proc = run("request", "--stdio", SERVE, "--explain", "tools/call", '{"name": "add", "arguments": {"a": 1, "b": 2}}')
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["content"][0]["text"] == "3"
    assert proc.stderr.splitlines() == [  # by default the probe, then 2026-07-28 with the demo server
        "client -> server  server/discover  [2026-07-28/server/discover DISC-02; 2026-07-28/basic/transports/stdio "
        "STDIO-06; 2026-07-28/basic STLS-09 STLS-11]",
        "client <- server  server/discover: result  [2026-07-28/server/discover DISC-01 DISC-03; "
        "2026-07-28/server/utilities/caching CACHE-01 CACHE-05]",
        "client -> server  tools/call  [server/tools TOOL-08; basic/utilities/progress PROG-01 PROG-02; "
        "2026-07-28/basic STLS-09 STLS-11]",
        "client <- server  tools/call: result  [server/tools TOOL-19]",
    ]
    both = run("request", "--stdio", SERVE, "--explain", "--trace", "ping", "--protocol-version", "2025-11-25")
    assert both.stderr.splitlines()[-2:] == ["client <- server  ping: result  [basic/utilities/ping PING-01 PING-12]",
                                             '    {"jsonrpc":"2.0","id":2,"result":{}}']


def test_demo_only_one_section_explained() -> None:
    proc = run("demo", "--only", "4", "--explain", timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[:2] == ["", "== 4. Tools: list them (each with a JSON Schema for its arguments) =="]
    assert lines[2] == "  client -> server  tools/list  [server/tools TOOL-05]"
    assert lines[3] == '      {"jsonrpc":"2.0","id":2,"method":"tools/list"}'
    assert "initialize" not in proc.stdout and "Shutdown" not in proc.stdout
    wrong = run("demo", "--only", "99", timeout=60)
    assert wrong.returncode == 2 and "--only takes a section from 1 to" in wrong.stderr


def test_demo_step_waits_for_enter_and_q_stops_the_tour() -> None:
    proc = subprocess.run([MCP_REF, "demo", "--step"], input="\nq\n", capture_output=True, text=True, timeout=60,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "== 2. Ping" in proc.stdout and "(Enter: section 3; q: stop)" in proc.stdout
    assert "== 3." not in proc.stdout and "Shutdown" not in proc.stdout and proc.stdout.endswith("Done.\n")


def test_explain_is_not_loaded_by_import_mcp_ref() -> None:
    code = "import sys, mcp_ref; print('mcp_ref.cli.explain' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.stdout.strip() == "False"


# --- later revisions: labelled by their pages; a 2024-11-05 session unchanged ----------------------


def _explained(messages: list[tuple[str, str]]) -> list[str]:
    lines: list[str] = []
    explain = Explainer(lines.append)
    for direction, text in messages:
        explain(direction, text.encode())
    return lines


def _session(version: str) -> list[tuple[str, str]]:
    hello = {"protocolVersion": version, "capabilities": {"elicitation": {}}, "clientInfo": {"name": "c", "version": "1"}}
    agreed = {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}
    return [("->", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})),
            ("<-", json.dumps({"jsonrpc": "2.0", "id": 1, "result": agreed}))]


LATER_SESSION = [
    ("->", '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'),
    ("<-", '{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"weather","title":"Weather","inputSchema":'
           '{"type":"object"},"outputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]}}'),
    ("->", '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"weather"}}'),
    ("<-", '{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{}"},{"type":"audio","data":"",'
           '"mimeType":"audio/wav"}],"structuredContent":{}}}'),
    ("<-", '{"jsonrpc":"2.0","id":9,"method":"elicitation/create","params":{"message":"Name?","requestedSchema":'
           '{"type":"object","properties":{}}}}'),
    ("->", '{"jsonrpc":"2.0","id":9,"result":{"action":"decline"}}'),
]


def test_a_later_revisions_messages_and_fields_are_labelled_by_its_pages() -> None:
    lines = _explained(_session("2025-06-18") + LATER_SESSION)
    assert lines == [
        "client -> server  initialize  [basic/lifecycle LC-04 LC-05 LC-06 LC-11; 2025-06-18/client/elicitation ELIC-05]",
        "client <- server  initialize: result  [basic/lifecycle LC-07 LC-12]",
        "client -> server  tools/list  [server/tools TOOL-05]",
        "client <- server  tools/list: result  [server/tools; 2025-03-26/server/tools ANNOT-01; "
        "2025-06-18/server/tools OUT-03]",
        "client -> server  tools/call  [server/tools TOOL-08]",
        "client <- server  tools/call: result  [server/tools TOOL-19; 2025-06-18/server/tools OUT-03 OUT-01; "
        "2025-03-26/server/tools]",
        "client <- server  elicitation/create  [2025-06-18/client/elicitation ELIC-05]",
        "client -> server  elicitation/create: result  [2025-06-18/client/elicitation ELIC-09]",
    ]


def test_a_later_field_in_a_2024_11_05_session_also_names_lc_14() -> None:
    lines = _explained(_session("2024-11-05") + LATER_SESSION[:2])
    assert lines[-1] == ("client <- server  tools/list: result  [server/tools; 2025-03-26/server/tools ANNOT-01; "
                         "basic/lifecycle LC-14; 2025-06-18/server/tools OUT-03]")


def test_demo_speaks_2024_11_05_unless_told_otherwise() -> None:
    base = run("demo", "--only", "4", "--explain", timeout=60)
    assert base.returncode == 0, base.stderr
    assert "2025-" not in base.stdout  # a 2024-11-05 session: no later page, no later field
    later = run("demo", "--only", "1", "--explain", "--protocol-version", "2025-06-18", timeout=60)
    assert later.returncode == 0, later.stderr
    assert '"protocolVersion":"2025-06-18"' in later.stdout
    assert ("  client <- server  initialize: result  [basic/lifecycle LC-07 LC-12; "
            "2025-03-26/server/utilities/completion]") in later.stdout.splitlines()
    assert "-> negotiated protocol 2025-06-18" in later.stdout
    wrong = run("demo", "--protocol-version", "2025-01-01", timeout=60)
    assert wrong.returncode == 2 and "invalid choice: '2025-01-01'" in wrong.stderr and "'2025-11-25'" in wrong.stderr


def test_request_and_inspect_take_protocol_version_and_negotiate_the_newest_by_default() -> None:
    newest = run("inspect", "--stdio", SERVE, "--json")
    assert json.loads(newest.stdout)["protocolVersion"] == "2026-07-28", newest.stderr
    pinned = run("inspect", "--stdio", SERVE, "--json", "--protocol-version", "2024-11-05")
    assert json.loads(pinned.stdout)["protocolVersion"] == "2024-11-05", pinned.stderr
    assert "completions" not in json.loads(pinned.stdout)["capabilities"]
    traced = run("request", "--stdio", SERVE, "--trace", "--protocol-version", "2025-03-26", "ping")
    assert traced.returncode == 0 and '"protocolVersion":"2025-03-26"' in traced.stderr.splitlines()[1]
