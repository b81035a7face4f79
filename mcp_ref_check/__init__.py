"""mcp_ref_check: a conformance checker for MCP servers and clients, 2024-11-05 to 2026-07-28 (``mcp-ref check``).

Not a spec section: a test kit that judges another implementation requirement by requirement,
over stdio, HTTP with SSE or Streamable HTTP, the way h2spec judges HTTP/2 servers. A package of
its own in the same distribution as mcp_ref: the library never imports it (an import-linter
contract), and it imports of the library only what it needs to reach a peer. The requirement
indexes live here too (``requirements``, ``requirements_2025_03_26``, with ``closeness`` for
"did you mean"), with ``notes`` (reading ``spec_notes/``) and ``spec_cmd`` (``mcp-ref spec``);
``command`` adds ``mcp-ref check`` to the command line (mcp_ref/cli/main.py).

1. ``mcp-ref check server`` connects to a server as a client (wire.py, stdio_wire.py and
   sse_wire.py record every byte; peer.py speaks the client's side) and runs the server cases,
   grouped by spec page: server_lifecycle, server_messages (and server_messages_audit, which
   judges the whole run's traffic), server_basic_utilities, server_tools, server_resources,
   server_prompts, server_transports, server_utilities, and server_revisions (what the
   revisions after 2024-11-05 add: annotations, titles, structured output, elicitation...).
   server_run.py holds a run's connections and discovery, server_check.py what a case gets,
   helpers.py what several cases share. It checks only what the server declares, and calls
   tools only with ``--call-tools``.
2. ``mcp-ref check client`` runs a client command against the kit's own checking server
   (client_links.py, stdio_relay.py), records what the client does and probes it (client_check.py),
   then judges the session (client_cases.py).
3. The kit proposes the newest revision and grades at the one the peer agrees on
   (``--protocol-version`` pins one): revisions.py says which rule, and which ID, a revision has.
4. Every case names its requirement IDs (requirements.py gives their level) and ends
   PASS, FAIL (a MUST not met), WARN (a SHOULD not met) or SKIP; a failure shows what was sent,
   what came back and the spec section of the rule (report.py: text, JSON, JUnit XML).
   shapes.py and result_shapes.py check the data shapes of 2024-11-05, and of the later
   revisions where the session agreed on one.
5. ``--hostile`` adds the red-team cases of server_hostile.py and server_hostile_transports.py
   (hostile_helpers.py); case_registry.py lists every case, runner.py runs them (the kit's imports
   form layers without a cycle: see case_registry.py).

6. ``--protocol-version 2026-07-28`` grades the stateless revision, which has no handshake: the
   server run asks ``server/discover`` instead of initialize and puts ``_meta`` in every request
   (server_run.py, peer.py; over HTTP http_wire.StatelessHttpWire mirrors it into headers); the
   cases of that revision are server_stateless.py, server_stateless_http.py and
   client_stateless.py (against client_stateless_server.py, the checking server of that
   revision), and stateless_helpers.py says which cases of the handshake still run.

``import mcp_ref`` does not import this package. From Python::

    from mcp_ref_check.runner import Options, Target, run_server_check
    results, discovery = run_server_check(Target(stdio="mcp-ref serve"), Options())
"""

from .case_registry import all_client_cases, all_server_cases
from .model import CLIENT_CASES, SERVER_CASES, Case, CaseResult, Finding, Status

__all__ = ["CLIENT_CASES", "SERVER_CASES", "Case", "CaseResult", "Finding", "Status", "all_client_cases",
           "all_server_cases"]
