"""Mutants: for every MUST requirement with code, a small change that removes the behaviour, and
the test that must then fail.

Not a spec page of its own. spec_notes/ promises, for each requirement, the code that meets it
and the tests that prove it; a mutant checks the promise. Each entry of ``MUTANTS`` names a file,
an exact piece of its text (found exactly once), what to put in its place, the requirement ID,
and the test (as a pytest node id) that must fail once the text is replaced.

Run them all: ``make mutants`` (or ``python -m tests.mutants [ID ...] [--workers N]``). Each
mutant is applied to a copy of the repository, only its test runs there (``-x -q -p
no:cacheprovider -n 0``), and the copy is restored. The report lists every mutant as

- ``killed``: the test failed, as it must;
- ``survived``: the test passed without the behaviour: strengthen the test (or fix the note);
- ``error``: the test could not run (its node id is wrong, or the copy would not import).

The exit status is 1 unless every mutant was killed. ``tests/test_mutants.py`` runs a fixed
sample in ``make test``, and checks that every mutant's text is still in its file, that every
MUST with code has a mutant, and that each mutant's test is one its note names.

The schema tap (tests/support/schema_tap.py) is off in the copies: a mutant must be caught by the
test's own assertions.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEST_TIMEOUT = 180.0  # seconds for one mutant's test run; a hang counts as killed
_SKIP = shutil.ignore_patterns(".venv", ".peers", ".git", "__pycache__", "*.pyc", ".mypy_cache", ".ruff_cache",
                               ".pytest_cache", "*.egg-info", "build", "dist")


@dataclass(frozen=True)
class Mutant:
    id: str  # the requirement whose behaviour the change removes
    file: str  # relative to the repository root
    original: str  # exact text, found exactly once in the file
    replacement: str
    test: str  # the pytest node id that must fail
    also: tuple[tuple[str, str], ...] = ()  # more (original, replacement) pairs in the same file, if needed

    @property
    def changes(self) -> tuple[tuple[str, str], ...]:
        return ((self.original, self.replacement), *self.also)

    @property
    def name(self) -> str:
        return f"{self.id}:{self.file.rsplit('/', 1)[-1]}"


def M(requirement_id: str, file: str, original: str, replacement: str, test: str,  # noqa: N802
      *also: tuple[str, str]) -> Mutant:
    return Mutant(requirement_id, file, original, replacement, test, also)


MUTANTS: list[Mutant] = [
    # --- overview and architecture -------------------------------------------------------------
    M("OV-14", "mcp_ref/sampling.py", "    result = handler(params)\n", '    result = "approved without asking"\n',
      "tests/test_examples.py::test_sampling_terminal_approve_edit_reject"),
    M("AR-01", "mcp_ref/server.py", "        if required is not None:  # AR-01", "        if False:  # AR-01",
      "tests/pages/test_tools.py::test_server_answers_32601_for_features_it_did_not_declare"),
    M("AR-01", "mcp_ref/client.py",
      "        if not isinstance(declared, dict) or (flag is not None and not declared.get(flag)):", "        if False:",
      "tests/pages/test_tools.py::test_client_refuses_locally_what_the_server_did_not_declare"),
    M("AR-02", "mcp_ref/server.py", 'capabilities["logging"] = {}  # LOG-01', "pass",
      "tests/pages/test_lifecycle.py::test_client_runs_the_lifecycle_in_order"),
    M("AR-03", "mcp_ref/server.py", '{"subscribe": True, "listChanged": True}  # RES-01', '{"listChanged": True}',
      "tests/pages/test_resources.py::test_subscribe_and_updates_reach_only_subscribers"),
    M("AR-04", "mcp_ref/server.py", '"tools/list": ("tools", None),', '"tools/list (ungated)": ("tools", None),',
      "tests/pages/test_tools.py::test_server_answers_32601_for_features_it_did_not_declare"),
    M("AR-05", "mcp_ref/lifecycle.py", "elif not isinstance(session.lifecycle.peer_capabilities.get(capability), dict):",
      "elif False:", "tests/pages/test_sampling.py::test_server_refuses_locally_when_client_has_no_sampling"),
    # --- basic/messages --------------------------------------------------------------------------
    M("BASE-01", "mcp_ref/messages.py", 'JSONRPC_VERSION = "2.0"', 'JSONRPC_VERSION = "2"',
      "tests/pages/test_messages.py::test_encode_is_compact_one_line_utf8"),
    M("BASE-02", "mcp_ref/server.py", "        if self.prompts:\n", "        if True:\n",
      "tests/pages/test_lifecycle.py::test_client_runs_the_lifecycle_in_order"),
    M("MSG-01", "mcp_ref/messages.py", 'if msg.get("jsonrpc") != JSONRPC_VERSION:  # MSG-01\n        raise',
      "if False:\n        raise",
      "tests/pages/test_messages.py::test_classify_invalid_gives_32600_with_readable_id"),
    M("MSG-02", "mcp_ref/messages.py",
      "return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))",
      "return isinstance(value, (str, int, float))",
      "tests/pages/test_messages.py::test_classify_invalid_gives_32600_with_readable_id"),
    M("MSG-03", "mcp_ref/messages.py", "if readable_id is None:  # MSG-02, MSG-03",
      'if readable_id is None and msg["id"] is not None:',
      "tests/pages/test_messages.py::test_classify_invalid_gives_32600_with_readable_id"),
    M("MSG-04", "mcp_ref/session.py", "self._ids = itertools.count(1)", "self._ids = itertools.repeat(1)",
      "tests/engine/test_session.py::test_8_threads_x_100_concurrent_requests_are_correlated"),
    M("MSG-05", "mcp_ref/session.py", '                self._finish(ctx, InternalError(f"Server busy: {exc}"))',
      "                pass",
      "tests/engine/test_reader.py::test_a_request_beyond_the_queue_bound_is_answered_server_busy_at_once_and_the_queued_ones_in_order"),
    M("MSG-05", "mcp_ref/session.py",
      "        except BaseException as exc:  # SystemExit and the like: still one answer per request",
      "        except ZeroDivisionError as exc:",
      "tests/engine/test_reader.py::test_a_handler_raising_systemexit_or_keyboardinterrupt_gets_one_answer_and_its_thread_runs_on"),
    M("CAN-04", "mcp_ref/session.py", "            cancellation.receive(params, self._running.get)", "            pass",
      "tests/engine/test_reader.py::test_a_blocked_tool_stops_neither_pings_nor_quick_calls_nor_its_cancellation[memory]"),
    M("LC-19", "mcp_ref/session.py", "            self._pool.wait_idle(END_OF_INPUT_GRACE)", "            pass",
      "tests/engine/test_reader.py::test_a_call_that_ends_within_the_grace_is_answered_and_the_session_closes_then"),
    M("MSG-04", "mcp_ref/session.py", "duplicate = request_id in self._running", "duplicate = False",
      "tests/pages/test_messages.py::test_a_reused_id_while_in_flight_is_refused"),
    M("MSG-05", "mcp_ref/messages.py", '"id": request_id, "result": result}',
      '"id": request_id if request_id else None, "result": result}',
      "tests/pages/test_messages.py::test_ids_zero_negative_and_strings_are_distinct_and_echoed"),
    M("MSG-06", "mcp_ref/messages.py", '"id": request_id, "error": error.to_error()}',
      '"id": request_id, "error": error.to_error(), "result": {}}',
      "tests/pages/test_messages.py::test_error_codes_over_the_wire"),
    M("MSG-07", "mcp_ref/messages.py", 'error: dict[str, Any] = {"code": self.code,',
      'error: dict[str, Any] = {"code": str(self.code),',
      "tests/pages/test_messages.py::test_error_round_trip_keeps_code_message_data_and_picks_subclass"),
    M("MSG-08", "mcp_ref/messages.py", 'msg: Message = {"jsonrpc": JSONRPC_VERSION, "method": method}',
      'msg: Message = {"jsonrpc": JSONRPC_VERSION, "id": None, "method": method}',
      "tests/pages/test_messages.py::test_our_notifications_carry_no_id"),
    # --- basic/lifecycle -------------------------------------------------------------------------
    M("LC-01", "mcp_ref/lifecycle.py",
      "if self.phase is Phase.AWAITING_INITIALIZE and method not in SERVED_BEFORE_INITIALIZE:", "if False:",
      "tests/pages/test_lifecycle.py::test_phase_gate"),
    M("LC-02", "mcp_ref/lifecycle.py", "state.peer_capabilities = capabilities if isinstance(capabilities, dict) else {}",
      "state.peer_capabilities = {}", "tests/pages/test_lifecycle.py::test_client_runs_the_lifecycle_in_order"),
    M("LC-03", "mcp_ref/lifecycle.py", "state.peer_info = server_info if isinstance(server_info, dict) else None",
      "state.peer_info = None", "tests/pages/test_lifecycle.py::test_client_runs_the_lifecycle_in_order"),
    M("LC-04", "mcp_ref/lifecycle.py", '"protocolVersion": supported[0],  # LC-04, LC-11', "",
      "tests/pages/test_lifecycle.py::test_client_runs_the_lifecycle_in_order"),
    M("LC-05", "mcp_ref/lifecycle.py", '"capabilities": capabilities,  # LC-02, LC-05', "",
      "tests/pages/test_lifecycle.py::test_client_runs_the_lifecycle_in_order"),
    M("LC-06", "mcp_ref/lifecycle.py", '"clientInfo": client_info,  # LC-03, LC-06', "",
      "tests/pages/test_lifecycle.py::test_client_runs_the_lifecycle_in_order"),
    M("LC-07", "mcp_ref/lifecycle.py", '"serverInfo": server_info,  # LC-03', "",
      "tests/pages/test_lifecycle.py::test_server_answers_the_proposal_it_speaks_or_else_its_newest"),
    M("LC-08", "mcp_ref/client.py", 'self._session.notify("notifications/initialized")', "pass",
      "tests/pages/test_lifecycle.py::test_client_runs_the_lifecycle_in_order"),
    M("LC-11", "mcp_ref/lifecycle.py", '"protocolVersion": supported[0],  # LC-04, LC-11',
      '"protocolVersion": supported[-1],', "tests/pages/test_lifecycle.py::test_client_runs_the_lifecycle_in_order"),
    M("LC-12", "mcp_ref/lifecycle.py",
      "return requested if requested in supported else supported[0]",
      "return requested", "tests/pages/test_lifecycle.py::test_server_answers_the_proposal_it_speaks_or_else_its_newest"),
    M("LC-26", "mcp_ref/lifecycle.py", "if version not in supported:", "if False:",
      "tests/pages/test_lifecycle.py::test_client_disconnects_when_the_server_picks_an_unsupported_version"),
    M("VER-01", "mcp_ref/lifecycle.py", "if self.phase is not Phase.AWAITING_INITIALIZE:  # one initialize per session",
      "if False:", "tests/pages/test_lifecycle.py::test_phase_gate"),
    # --- basic/transports ------------------------------------------------------------------------
    M("TR-02", "mcp_ref/messages.py", 'json.JSONEncoder(separators=(",", ":"),',
      'json.JSONEncoder(indent=1, separators=(",", ":"),',
      "tests/pages/test_messages.py::test_encode_is_compact_one_line_utf8"),
    M("TR-04", "mcp_ref/stdio.py", "    os.dup2(2, 1)  # TR-04", "    pass  # TR-04",
      "tests/pages/test_stdio.py::test_nothing_but_protocol_messages_on_the_server_stdout"),
    M("TR-05", "mcp_ref/stdio.py", "pipes.write_all(self._fd, data + b\"\\n\", deadline, self._is_closed)",
      "pipes.write_all(self._fd, b\"stray\\n\" + data + b\"\\n\", deadline, self._is_closed)",
      "tests/pages/test_stdio.py::test_the_client_writes_only_protocol_messages_to_the_server"),
    M("TR-06", "mcp_ref/sse.py", 'if not self._origin_allowed(request.headers.get("Origin")):', "if False:",
      "tests/pages/test_sse.py::test_localhost_origins_pass_and_others_can_be_allowed"),
    M("TR-09", "mcp_ref/sse.py", "if request.path == self.sse_path:", 'if request.path == self.sse_path + "/moved":',
      "tests/pages/test_sse.py::test_stream_headers_and_endpoint_event"),
    M("TR-10", "mcp_ref/sse.py", "if request.path == self.message_path:", 'if request.path == self.message_path + "moved":',
      "tests/pages/test_sse.py::test_messages_flow_and_status_codes"),
    M("TR-11", "mcp_ref/sse.py", 'yield sse_event("endpoint", endpoint)', 'yield sse_event("message", endpoint)',
      "tests/pages/test_sse.py::test_stream_headers_and_endpoint_event"),
    M("TR-13", "mcp_ref/machinery/memory.py", "self._outbox.put(data, timeout=timeout)",
      "self._outbox.put(data.lower(), timeout=timeout)",
      "tests/pages/test_progress.py::test_progress_server_to_client_and_its_rules"),
    # --- basic/utilities -------------------------------------------------------------------------
    M("PING-01", "mcp_ref/ping.py", "    return {}  # PING-01", '    return {"pong": True}  # PING-01',
      "tests/pages/test_ping.py::test_ping_both_ways"),
    M("PING-12", "mcp_ref/session.py", "        elif ctx.method in self._inline_methods:", "        elif False:",
      "tests/pages/test_ping.py::test_a_ping_is_answered_while_every_worker_is_busy"),
    M("PING-12", "mcp_ref/server.py", 'inline_methods=frozenset({"initialize", "ping"}),',
      'inline_methods=frozenset({"initialize"}),',
      "tests/pages/test_ping.py::test_a_ping_is_answered_while_every_worker_is_busy"),
    M("CAN-01", "mcp_ref/cancellation.py", "        notify(METHOD, params, timeout=timeout)", "        pass",
      "tests/pages/test_cancellation.py::test_timeout_cancels_on_the_server_and_no_response_follows"),
    M("CAN-02", "mcp_ref/session.py", "if not self._forget(out.id):", "if not self._forget(out.id) and False:",
      "tests/pages/test_cancellation.py::test_explicit_cancel_from_another_thread"),
    M("CAN-03", "mcp_ref/cancellation.py", 'if method == "initialize":  # CAN-03, CAN-19: initialize is never cancelled',
      "if False:",
      "tests/pages/test_lifecycle.py::test_initialize_timeout_is_clear_and_initialize_is_never_cancelled"),
    M("CAN-11", "mcp_ref/session.py", "if not self._forget(out.id):",
      "if out.id not in self._pending:",
      "tests/pages/test_ping.py::test_unanswered_ping_times_out_and_is_cancelled"),
    M("CAN-11", "mcp_ref/machinery/threads/outgoing.py",
      "            if settled(self.future, time.monotonic() + SETTLE_TIMEOUT):", "            if False:",
      "tests/pages/test_cancellation.py::test_a_caller_whose_time_runs_out_after_its_answer_came_gets_the_answer"),
    M("CAN-19", "mcp_ref/cancellation.py", 'if method == "initialize":  # CAN-03, CAN-19: initialize is never cancelled',
      "if False:",
      "tests/pages/test_lifecycle.py::test_initialize_timeout_is_clear_and_initialize_is_never_cancelled"),
    M("CAN-20", "mcp_ref/cancellation.py", 'params: dict[str, Any] = {"requestId": request_id}',
      'params: dict[str, Any] = {"requestId": str(request_id)}',
      "tests/pages/test_cancellation.py::test_timeout_cancels_on_the_server_and_no_response_follows"),
    M("PROG-01", "mcp_ref/progress.py", '"progressToken": token}', '"progressToken": float(token)}',
      "tests/pages/test_progress.py::test_progress_client_to_server"),
    M("PROG-02", "mcp_ref/progress.py", '"progressToken": token}', '"progressToken": 1}',
      "tests/pages/test_progress.py::test_progress_tokens_of_requests_in_flight_are_distinct"),
    M("PROG-06", "mcp_ref/progress.py", "if self._last is not None and progress <= self._last:", "if False:",
      "tests/pages/test_progress.py::test_progress_server_to_client_and_its_rules"),
    M("PROG-08", "mcp_ref/progress.py", "if self.token is None or self._finished:", "if self._finished:",
      "tests/pages/test_progress.py::test_no_progress_token_means_no_notifications"),
    M("PROG-09", "mcp_ref/progress.py", "if self.token is None or self._finished:", "if self.token is None:",
      "tests/pages/test_progress.py::test_progress_server_to_client_and_its_rules"),
    M("PROG-15", "mcp_ref/session.py", "ctx.progress.finish()  # PROG-15", "pass  # PROG-15",
      "tests/pages/test_progress.py::test_progress_server_to_client_and_its_rules"),
    # --- server/prompts --------------------------------------------------------------------------
    M("PRM-01", "mcp_ref/server.py", 'capabilities["prompts"] = {"listChanged": True}', "pass",
      "tests/pages/test_prompts.py::test_list_prompts_with_derived_arguments"),
    M("PRM-03", "mcp_ref/content.py",
      'return {"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime_type}',
      'return {"type": "image", "data": data.decode("latin-1"), "mimeType": mime_type}',
      "tests/pages/test_prompts.py::test_image_content_and_failures"),
    M("PRM-04", "mcp_ref/content.py", "if not isinstance(uri, str) or not is_uri(uri):",
      "if not isinstance(uri, str):", "tests/pages/test_prompts.py::test_an_embedded_resource_needs_an_absolute_uri"),
    M("PRM-05", "mcp_ref/content.py", "if mime_type is None:  # PRM-05", "if False:  # PRM-05",
      "tests/functions/test_returns.py::test_prompt_return_values"),
    M("PRM-06", "mcp_ref/content.py", 'contents["blob"] = base64.b64encode(value).decode("ascii")',
      'contents["blob"] = contents["text"] = base64.b64encode(value).decode("ascii")',
      "tests/functions/test_returns.py::test_prompt_return_values"),
    M("PRM-13", "mcp_ref/prompts.py", "if key not in known and not self.accepts_any:", "if False:",
      "tests/pages/test_prompts.py::test_prompt_errors_are_32602_naming_the_problem"),
    M("PRM-14", "mcp_ref/prompts.py", "if missing:  # PRM-08, PRM-14", "if False:  # PRM-08, PRM-14",
      "tests/pages/test_prompts.py::test_prompt_errors_are_32602_naming_the_problem"),
    # --- server/resources ------------------------------------------------------------------------
    M("RES-01", "mcp_ref/server.py", 'capabilities["resources"] = {"subscribe": True, "listChanged": True}', "pass",
      "tests/pages/test_resources.py::test_list_and_read_text_and_blob"),
    M("RES-08", "mcp_ref/resources.py", "self.find(uri)  # RES-08", "pass  # RES-08",
      "tests/pages/test_resources.py::test_subscribe_and_updates_reach_only_subscribers"),
    M("RES-08", "mcp_ref/resources.py", 'uri: str = messages.param(params, "uri", "string")', 'uri: str = str(params.get("uri"))',
      "tests/pages/test_resources.py::test_unknown_resources_are_32002_with_the_uri"),
    M("RES-10", "mcp_ref/content.py", 'contents["blob"] = base64.b64encode(value).decode("ascii")',
      'contents["blob"] = value.decode("latin-1")', "tests/pages/test_resources.py::test_list_and_read_text_and_blob"),
    M("RES-15", "mcp_ref/content.py", 'if ("text" in item) == ("blob" in item):', "if False:",
      "tests/functions/test_returns.py::test_resource_return_values"),
    # --- server/tools ----------------------------------------------------------------------------
    M("TOOL-05", "mcp_ref/server.py", "        if self.tools:\n", "        if True:\n",
      "tests/pages/test_tools.py::test_server_answers_32601_for_features_it_did_not_declare"),
    M("TOOL-08", "mcp_ref/tools.py", "kwargs = tool.arguments(arguments)", "kwargs = dict(arguments)",
      "tests/pages/test_tools.py::test_protocol_errors_are_32602_and_the_session_keeps_serving"),
    M("TOOL-08", "mcp_ref/tools.py", "kwargs = tool.arguments(arguments)",
      "kwargs = tool.arguments(arguments) if arguments else {}",
      "tests/pages/test_tools.py::test_a_call_without_its_required_arguments_is_32602_not_a_tool_error"),
    M("TOOL-10", "mcp_ref/machinery/ratelimit.py", "if self._tokens >= 1:", "if True:",
      "tests/pages/test_tools.py::test_rate_limits_per_session"),
    M("TOOL-11", "mcp_ref/tools.py", "message = error_text(exc)",
      'message = f"{exc!r} in {exc.__traceback__.tb_frame.f_code.co_filename}"',
      "tests/pages/test_tools.py::test_failing_tool_is_an_iserror_result_without_traceback"),
    # --- server/utilities ------------------------------------------------------------------------
    M("CMP-08", "mcp_ref/completion.py", "if key not in known:", "if False:",
      "tests/pages/test_completion.py::test_bad_references_are_32602"),
    M("CMP-09", "mcp_ref/server.py", "if ctx.method in self.rate_limits:", "if False:",
      "tests/pages/test_tools.py::test_rate_limits_per_session"),
    M("CMP-12", "mcp_ref/completion.py", "sent = values[:MAX_VALUES]", "sent = values",
      "tests/pages/test_completion.py::test_at_most_100_values_with_total_and_has_more"),
    M("LOG-01", "mcp_ref/logs.py", 'if "logging" not in session.lifecycle.capabilities:', "if False:",
      "tests/engine/test_robustness.py::test_no_log_messages_without_the_logging_capability"),
    M("LOG-15", "mcp_ref/logs.py", 'if record.name.startswith("mcp_ref") or getattr(self._busy, "active", False):',
      'if getattr(self._busy, "active", False):', "tests/pages/test_logs.py::test_python_logging_is_forwarded_to_clients"),
    M("PAG-01", "mcp_ref/pagination.py", "items.extend(page)", "items.extend(page[:DEFAULT_PAGE_SIZE])",
      "tests/pages/test_pagination.py::test_the_client_takes_pages_of_any_size"),
    M("PAG-04", "mcp_ref/pagination.py", "        if cursor is None:  # PAG-04",
      "        if cursor is None and not page:  # PAG-04",
      "tests/pages/test_pagination.py::test_every_list_method_pages_and_the_client_follows"),
    M("PAG-06", "mcp_ref/pagination.py", "        if cursor is None:  # PAG-04", "        if not cursor:  # PAG-04",
      "tests/pages/test_pagination.py::test_the_client_sends_back_any_cursor_exactly"),
    M("PAG-07", "mcp_ref/pagination.py", 'params = {"cursor": cursor}', 'params = {"cursor": cursor.strip()}',
      "tests/pages/test_pagination.py::test_the_client_sends_back_any_cursor_exactly"),
    M("PAG-08", "mcp_ref/pagination.py", "    params: dict[str, Any] | None = None\n",
      '    params: dict[str, Any] | None = list_all.__dict__.setdefault("left_off", {}).get(method)\n',
      "tests/pages/test_pagination.py::test_each_listing_starts_afresh_in_every_session",
      ('params = {"cursor": cursor}', 'params = list_all.__dict__.setdefault("left_off", {})[method] = {"cursor": cursor}')),
    # --- client/roots and client/sampling --------------------------------------------------------
    M("ROOT-01", "mcp_ref/client.py", 'capabilities["roots"] = {"listChanged": True}', "pass",
      "tests/pages/test_roots.py::test_roots_capability_list_and_change"),
    M("ROOT-02", "mcp_ref/client.py", 'self.notify("notifications/roots/list_changed")', "pass",
      "tests/pages/test_roots.py::test_roots_capability_list_and_change"),
    M("ROOT-03", "mcp_ref/roots.py", 'if not isinstance(uri, str) or not uri.startswith("file://"):',
      "if not isinstance(uri, str):", "tests/pages/test_roots.py::test_invalid_roots_are_refused"),
    M("ROOT-05", "mcp_ref/roots.py", 'raise InternalError(f"could not list roots: {exc}") from exc',
      'raise MethodNotFound(f"could not list roots: {exc}") from exc',
      "tests/pages/test_roots.py::test_a_failing_roots_callable_is_an_internal_error"),
    M("ROOT-07", "mcp_ref/roots.py", 'if ".." in urllib.parse.unquote(urllib.parse.urlparse(uri).path).split("/"):',
      'if ".." in urllib.parse.urlparse(uri).path.split("/"):',
      "tests/engine/test_robustness.py::test_roots_with_dot_dot_segments_are_refused_however_spelled"),
    M("ROOT-21", "mcp_ref/roots.py", 'if not isinstance(uri, str) or not uri.startswith("file://"):',
      'if not isinstance(uri, str) or "://" not in uri:', "tests/pages/test_roots.py::test_invalid_roots_are_refused"),
    M("SAMP-05", "mcp_ref/client.py", 'capabilities["sampling"] = {}', "pass",
      "tests/pages/test_sampling.py::test_sampling_round_trip_and_capability[stdio]"),
    M("SAMP-20", "mcp_ref/sampling.py", '"modelPreferences": model_preferences,', '"modelPreferences": None,',
      "tests/pages/test_sampling.py::test_sampling_round_trip_and_capability[stdio]"),
]

# basic/transports of revision 2025-03-26, Streamable HTTP (SHTTP-NN: mcp_ref_check/requirements_2025_03_26.py)
_SERVER, _CLIENT = "mcp_ref/streamable_http/server_app.py", "mcp_ref/streamable_http/client_transport.py"
_SESSION = "mcp_ref/streamable_http/session_transport.py"  # which stream each message goes on
_HTTP_TESTS = "tests/streamable_http/test_server_app.py::"
MUTANTS += [
    M("SHTTP-01", _SERVER, "msg = messages.decode(body)  # SHTTP-01", 'msg = json.loads(body.decode("utf-8", "replace"))  #',
      _HTTP_TESTS + "test_what_the_endpoint_refuses_and_how"),
    M("SHTTP-05", _SERVER, '        if request.method == "GET":\n            return self._get(request)',
      '        if request.method == "GET" and False:\n            return self._get(request)',
      _HTTP_TESTS + "test_what_the_endpoint_refuses_and_how"),
    M("SHTTP-06", _SERVER, 'if not self._origin_allowed(request.headers.get("Origin")):  # SHTTP-06', "if False:",
      _HTTP_TESTS + "test_what_the_endpoint_refuses_and_how"),
    M("SHTTP-09", _CLIENT, "        deadline = time.monotonic() + bound\n",
      "        deadline = time.monotonic() + bound\n        if not is_request:\n            return\n",
      _HTTP_TESTS + "test_the_client_posts_each_message_with_its_headers_and_deletes_the_session_on_close"),
    M("SHTTP-10", _CLIENT, 'headers = {"Accept": accept}', 'headers = {"Accept": "application/json"}',
      _HTTP_TESTS + "test_the_client_posts_each_message_with_its_headers_and_deletes_the_session_on_close"),
    M("SHTTP-11", _CLIENT, "self.url, data=data, headers=headers, timeout=(left, left)",
      'self.url, data=b"[" + data + b"]", headers=headers, timeout=(left, left)',
      _HTTP_TESTS + "test_the_client_posts_each_message_with_its_headers_and_deletes_the_session_on_close"),
    M("SHTTP-12", _SERVER, "return Response(status=202)  # SHTTP-12", 'return Response(b"Accepted", status=200)  #',
      _HTTP_TESTS + "test_notifications_and_responses_are_accepted_with_202_and_no_body"),
    M("SHTTP-13", _SERVER, "body = messages.encode(messages.error_response(request_id, McpError(text, data, code=code)))",
      "body = text.encode()", _HTTP_TESTS + "test_what_the_endpoint_refuses_and_how"),
    M("SHTTP-14", _SERVER, "if waited and first is not None and is_answer(first):  # SHTTP-14", "if False:  #",
      _HTTP_TESTS + "test_a_quick_answer_is_plain_json"),
    M("SHTTP-15", _CLIENT, 'if kind == "application/json":  # SHTTP-14', "if False:  #",
      _HTTP_TESTS + "test_the_client_takes_json_and_event_stream_answers_and_server_requests_on_them"),
    M("SHTTP-24", _CLIENT, 'self._headers(accept="text/event-stream"),',
      'self._headers(accept="application/json"),',
      _HTTP_TESTS + "test_the_client_posts_each_message_with_its_headers_and_deletes_the_session_on_close"),
    M("SHTTP-25", _SERVER, "transport.listen(stream)  # SHTTP-25", 'return _error(404, "no stream")  #',
      _HTTP_TESTS + "test_the_get_stream_carries_what_belongs_to_no_request_and_never_an_answer"),
    M("SHTTP-27", _SESSION, "stream = route.stream if route is not None else None\n            else:",
      "stream = self._listener or (route.stream if route is not None else None)\n            else:",
      _HTTP_TESTS + "test_the_get_stream_carries_what_belongs_to_no_request_and_never_an_answer"),
    M("SHTTP-30", _SESSION, "previous.end()  # SHTTP-28", "pass  #", _HTTP_TESTS + "test_each_message_goes_on_one_stream_only"),
    M("SHTTP-36", _SERVER, "session_id = secrets.token_hex(16)  # SHTTP-35", 'session_id = secrets.token_hex(15) + " !"  #',
      _HTTP_TESTS + "test_initialize_is_answered_as_json_with_a_session_id"),
    M("SHTTP-37", _CLIENT, "headers[SESSION_HEADER] = self.session_id  # SHTTP-37", "pass  #",
      _HTTP_TESTS + "test_the_client_posts_each_message_with_its_headers_and_deletes_the_session_on_close"),
    M("SHTTP-39", _SERVER, "            return _error(404, _GONE)  # SHTTP-39", '            return _error(400, "gone")  #',
      _HTTP_TESTS + "test_delete_ends_the_session"),
    M("SHTTP-40", _CLIENT, "if status == 404 and self.session_id is not None:  # SHTTP-39", "if False:  #",
      _HTTP_TESTS + "test_when_the_server_forgets_the_session_waiting_calls_fail_saying_it_expired"),
]

# The later revisions with a handshake (mcp_ref_check/requirements_2025_03_26.py, _06_18.py, _11_25.py)
_BATCHES, _LATER_HTTP = "mcp_ref/revisions/batches.py", "mcp_ref/revisions/http_transport.py"
MUTANTS += [
    M("BATCH-01", "mcp_ref/server.py", "            ctx.session.on_batch = batches.receive_batch", "            pass",
      "tests/revisions/test_batches.py::test_the_requests_of_a_batch_are_answered_by_one_array"),
    M("BATCH-03", _BATCHES, "    if not items:  # BATCH-03", "    if False:  #",
      "tests/revisions/test_batches.py::test_an_empty_batch_is_one_invalid_request"),
    M("BATCH-04", _BATCHES, 'if kind is REQUEST and item["method"] == "initialize":  # BATCH-04', "if False:  #",
      "tests/revisions/test_batches.py::test_a_batch_answers_its_invalid_members_inside_the_array_and_refuses_initialize"),
    M("CMPL-01", "mcp_ref/server.py", 'capabilities["completions"] = {}  # CMPL-01', "pass  #",
      "tests/revisions/test_v2025_03_26.py::test_the_completions_capability_comes_with_2025_03_26"),
    M("HDR-01", _LATER_HTTP, "        return version  # HDR-01", "        return None  #",
      "tests/revisions/test_v2025_06_18.py::test_every_request_after_initialize_names_the_agreed_revision"),
    M("HDR-04", _LATER_HTTP, "if version is not None and version not in spoken:  # HDR-04", "if False:  #",
      "tests/revisions/test_v2025_06_18.py::test_the_server_refuses_a_version_it_does_not_speak_with_400"),
    M("OUT-03", "mcp_ref/tools.py", "if problem or not isinstance(structured, dict):  # OUT-03", "if False:  #",
      "tests/revisions/test_tools_across_revisions.py::test_a_structured_result_that_breaks_its_schema_is_the_tools_error"),
    M("SHTC-08", "mcp_ref/revisions/stream_resumption.py", "if stop.wait(delay(cursor)):  # SHTC-08",
      "if stop.wait(0):  # SHTC-08",
      "tests/revisions/test_stream_resumption.py::test_a_stream_ended_after_its_priming_event_is_resumed_with_the_answer"),
    M("ELIC-05", "mcp_ref/revisions/elicitation.py", 'return {"elicitation": capability(version, url=self.elicitation_url)}',
      'return {"x-none": capability(version, url=self.elicitation_url)}',
      "tests/revisions/test_elicitation.py"),
]


# Revision 2026-07-28, stateless (mcp_ref_check/requirements_2026_07_28.py; spec_notes/revision-2026-07-28.md)
_SSERVER, _VERSIONS, _MRTR = "mcp_ref/revisions/stateless.py", "mcp_ref/revisions/versioning.py", "mcp_ref/revisions/mrtr.py"
_SHTTP, _SCLIENT = "mcp_ref/revisions/stateless_http.py", "mcp_ref/revisions/stateless_client.py"
_SUBS, _PARAMS = "mcp_ref/revisions/subscriptions.py", "mcp_ref/revisions/param_headers.py"
_T26 = "tests/revisions/"
MUTANTS += [
    # server: stateless.py
    M("CACHE-01", _SSERVER, "    if kind == \"complete\" and method in CACHEABLE:", "    if False:",
      _T26 + "test_stateless.py::test_cache_01_lists_reads_and_discover_say_how_long_they_stay_fresh"),
    M("CACHE-05", _SSERVER, 'answered.setdefault("ttlMs", TTL_MS)  # CACHE-05', 'answered.setdefault("ttlMs", -1)  #',
      _T26 + "test_stateless.py::test_cache_01_lists_reads_and_discover_say_how_long_they_stay_fresh"),
    M("CACHE-16", _SSERVER, '        answered.setdefault("cacheScope", CACHE_SCOPE)  # CACHE-16: the same for every page\n', "",
      _T26 + "test_stateless.py"),
    M("RTYPE-01", _SSERVER, 'answered = {"resultType": kind, **result,', "answered = {**result,", _T26 + "test_stateless.py"),
    M("DISC-01", _SSERVER, '{"supportedVersions": modern_versions(server.protocol_versions),  # DISC-01, STLS-18', "{  #",
      _T26 + "test_stateless.py::test_disc_01_discover_says_what_the_server_is"),
    M("STLS-18", _SSERVER, "    if ctx.method == DISCOVER:\n", "    if False:\n",
      _T26 + "test_stateless.py::test_disc_01_discover_says_what_the_server_is"),
    M("LOGX-01", _SSERVER, '        lifecycle.capabilities.pop("logging", None)  # LOGX-01', "        pass  # LOGX-01",
      _T26 + "test_stateless.py::test_logx_01_02_log_messages_only_at_the_level_the_request_asked"),
    M("LOGX-02", _SSERVER, "state[logs.STATE_KEY] = meta[LOG_LEVEL_KEY]  # LOGX-02", 'state[logs.STATE_KEY] = "debug"  #',
      _T26 + "test_stateless.py::test_logx_01_02_log_messages_only_at_the_level_the_request_asked"),
    # STLS-03: the first request's capabilities kept for the connection; STLS-27: capabilities assumed, not declared
    M("STLS-03", _SSERVER, "lifecycle.peer_capabilities, lifecycle.peer_info = meta[CAPABILITIES_KEY],",
      'lifecycle.peer_capabilities, lifecycle.peer_info = ctx.session.state.setdefault("first", meta[CAPABILITIES_KEY]),',
      _T26 + "test_stateless.py::test_stls_03_nothing_is_carried_from_one_request_to_the_next"),
    M("STLS-27", _SSERVER, "lifecycle.peer_capabilities, lifecycle.peer_info = meta[CAPABILITIES_KEY],",
      'lifecycle.peer_capabilities, lifecycle.peer_info = {"elicitation": {}, "sampling": {}, "roots": {}},',
      _T26 + "test_stateless.py::test_stls_12_a_capability_the_request_did_not_bring_is_32021"),
    M("STLS-12", _SSERVER, "        raise mrtr.MissingCapability(capability, detail)  # STLS-12", "        return None  #",
      _T26 + "test_stateless.py::test_stls_12_a_capability_the_request_did_not_bring_is_32021"),
    # MRTR-01, MRTR-03: the question goes to the client as a request of the server's own, as in the handshake
    M("MRTR-01", _SSERVER, "answer: dict[str, Any] = self.asking.ask(method, params or {})",
      "answer: dict[str, Any] = self._session.request(method, params or {})",
      _T26 + "test_mrtr.py::test_mrtr_21_each_kind_of_question_travels_in_the_result_and_the_retry_finishes"),
    M("MRTR-03", _SSERVER, "answer: dict[str, Any] = self.asking.ask(method, params or {})",
      "answer: dict[str, Any] = self._session.request(method, params or {}, **_)",
      _T26 + "test_mrtr.py::test_mrtr_21_each_kind_of_question_travels_in_the_result_and_the_retry_finishes"),
    M("MRTR-04", _SSERVER, "        if ctx.method not in mrtr.METHODS:  # MRTR-04", "        if False:  #",
      _T26 + "test_mrtr.py::test_mrtr_04_a_handler_of_another_method_that_asks_is_32603"),
    M("MRTR-21", _SSERVER, 'return answer(server, ctx.method, version, needed.result(), kind="input_required")',
      'raise messages.InternalError("Internal error: the handler needs input") from None',
      _T26 + "test_mrtr.py::test_mrtr_21_each_kind_of_question_travels_in_the_result_and_the_retry_finishes"),
    M("RREAD-03", _SSERVER, "    except messages.ResourceNotFound as exc:  # RREAD-03", "    except ZeroDivisionError as exc:  #",
      _T26 + "test_stateless.py::test_rread_03_an_unknown_resource_is_32602_not_32002"),
    M("ERRC-05", _SSERVER, "        raise InvalidParams(exc.message, exc.data) from None", "        raise",
      _T26 + "test_stateless.py::test_rread_03_an_unknown_resource_is_32602_not_32002"),
    # server: versioning.py
    M("ERRC-04", _VERSIONS, "MISSING_CLIENT_CAPABILITY = -32021  # STLS-12", "MISSING_CLIENT_CAPABILITY = -32023  # STLS-12",
      _T26 + "test_versioning.py::test_the_codes_of_this_revision_stay_in_its_range"),
    M("STLS-10", _VERSIONS, "    if not isinstance(meta.get(CAPABILITIES_KEY), dict):  # STLS-09, STLS-10", "    if False:  #",
      _T26 + "test_versioning.py::test_stls_10_a_malformed_required_meta_field_is_32602"),
    M("STLS-16", _VERSIONS, "    if version not in served:  # STLS-16", "    if False:  #",
      _T26 + "test_versioning.py::test_stls_16_an_unsupported_revision_is_32022_listing_the_supported_ones"),
    # server: mrtr.py
    M("MRTR-05", _MRTR, "question = f\"{method.partition('/')[0]}-{self.asked + 1}\"", "question = method.partition('/')[0]",
      _T26 + "test_mrtr.py::test_mrtr_one_to_three_rounds_each_asking_the_next_question"),
    M("MRTR-07", _MRTR, 'if hmac.compare_digest(mac.encode("ascii", "replace"), expected.encode("ascii")):  # MRTR-07',
      "if True:  #", _T26 + "test_mrtr.py::test_mrtr_07_a_state_that_is_not_the_servers_own_is_refused"),
    M("MRTR-10", _MRTR, 'return {"inputRequests": self.requests, "requestState": self.state}  # MRTR-10', "return {}  #",
      _T26 + "test_mrtr.py"),
    M("MRTR-11", _MRTR,
      "        if capability and not isinstance(ctx.session.lifecycle.peer_capabilities.get(capability), dict):",
      "        if False:", _T26 + "test_stateless.py::test_stls_12_a_capability_the_request_did_not_bring_is_32021"),
    # server: stateless_http.py
    M("HTTPX-05", _SHTTP, "return Response(status=202)  # HTTPX-05", "return Response(status=200)  #",
      _T26 + "test_stateless_http.py::test_httpx_05_a_notification_is_202"),
    # HTTPX-12, CANCEL-03: the request's session (and so its handler) outlives the closed stream
    M("HTTPX-12", _SHTTP, '        session.close("the request of 2026-07-28 was answered, or its client closed the stream")',
      "        pass", _T26 + "test_stateless_http.py::test_httpx_12_closing_the_stream_cancels_the_request"),
    M("CANCEL-03", _SHTTP, '        session.close("the request of 2026-07-28 was answered, or its client closed the stream")',
      "        pass", _T26 + "test_stateless_http.py::test_httpx_12_closing_the_stream_cancels_the_request"),
    M("HTTPX-14", _SHTTP, "        if value != body_value:", "        if False:",
      _T26 + "test_stateless_http.py::test_httpx_14_21_a_header_that_differs_from_the_body_is_400_32020"),
    M("HTTPX-15", _SHTTP, "stateless.UNSUPPORTED_PROTOCOL_VERSION: 400}  # HTTPX-15",
      "stateless.UNSUPPORTED_PROTOCOL_VERSION: 200}  #",
      _T26 + "test_stateless_http.py::test_httpx_15_an_unsupported_revision_is_400_32022"),
    M("HTTPX-16", _SHTTP, "STATUS = {messages.METHOD_NOT_FOUND: 404, ", "STATUS = {",
      _T26 + "test_stateless_http.py::test_httpx_16_an_unknown_or_dropped_method_is_404_32601"),
    # HTTPX-20: header values compared without regard to case
    M("HTTPX-20", _SHTTP, "        if value != body_value:", "        if str(value).lower() != str(body_value).lower():",
      _T26 + "test_stateless_http.py::test_httpx_14_21_a_header_that_differs_from_the_body_is_400_32020"),
    M("HTTPX-21", _SHTTP, "    if problem is not None:  # HTTPX-21", "    if False:  #",
      _T26 + "test_stateless_http.py::test_httpx_21_a_missing_header_is_400_32020"),
    M("MPARAM-08", _SHTTP, "value = param_headers.decoded(given) if header == NAME_HEADER else given  # MPARAM-08",
      "value = given  #",
      _T26 + "test_stateless_http.py::test_mparam_08_a_name_that_is_not_ascii_travels_in_base64"),
    # server: subscriptions.py
    M("SUBS-01", _SUBS, "if listener.wants(method, params or {}))  # SUBS-01", "if True)  #",
      _T26 + "test_subscriptions.py::test_only_what_the_filter_asked_for_arrives_tagged_with_its_subscription"),
    M("SUBS-02", _SUBS,
      '        ctx.session.notify(ACKNOWLEDGED, {"notifications": honoured, "_meta": {SUBSCRIPTION_KEY: ctx.request_id}})',
      "        pass", _T26 + "test_subscriptions.py::test_the_acknowledgement_comes_first_and_names_what_is_honoured"),
    M("SUBS-10", _SUBS, '{**params, "_meta": {SUBSCRIPTION_KEY: self.subscription_id}})  # SUBS-10', "params)  #",
      _T26 + "test_subscriptions.py::test_only_what_the_filter_asked_for_arrives_tagged_with_its_subscription"),
    # param_headers.py, the server's side
    M("MPARAM-11", _PARAMS, '        if not all(c == "\\t" or " " <= c <= "~" for c in text):  # MPARAM-11',
      "        if False:  #",
      _T26 + "test_stateless_http.py::test_mparam_11_12_headers_that_disagree_with_the_marked_arguments_are_400_32020"
      "[control character]"),
    M("MPARAM-12", _PARAMS, "            if value is not None:  # MPARAM-12", "            if False:  #",
      _T26 + "test_stateless_http.py::test_mparam_11_12_headers_that_disagree_with_the_marked_arguments_are_400_32020"
      "[missing]"),
    # elicitation.py, URL mode in 2026-07-28
    M("CFEAT-03", "mcp_ref/revisions/elicitation.py", '        params.pop("elicitationId")', "        pass",
      _T26 + "test_elicitation.py::test_in_2026_07_28_a_url_elicitation_without_an_id_is_answered_by_the_clients_handler"),
    # client: client_subscriptions.py
    M("SUBS-05", "mcp_ref/revisions/client_subscriptions.py",
      "        if (current is not None and tag == current.id) or tag in state.acknowledged:", "        if True:",
      _T26 + "test_client_subscriptions.py::test_notifications_of_another_subscription_are_dropped"),
    M("SUBS-09", "mcp_ref/revisions/client_subscriptions.py", "    if _filter(client, state):  # SUBS-09",
      "    if False:  #", _T26 + "test_client_subscriptions.py::test_on_list_changed_hears_a_change_through_a_"
      "subscription_opened_at_connect[stdio]"),
    # client: stateless_client.py
    M("STLS-09", _SCLIENT, "CAPABILITIES_KEY: client.session.lifecycle.capabilities,  # on every request\n", "",
      _T26 + "test_stateless_client.py::test_every_request_carries_the_revision_the_capabilities"
      "_and_the_name_beside_the_callers_meta"),
    M("STDIO-07", _SCLIENT, "            return False  # silence: a server of the handshake", "            raise  #",
      _T26 + "test_stateless_client.py::test_a_silent_server_of_the_handshake_is_reached_after_the_probes_bound"),
    M("RTYPE-03", _SCLIENT, '    if kind != "input_required":  # RTYPE-03', "    if False:  #",
      _T26 + "test_stateless_client.py::test_a_result_the_client_cannot_use_or_a_question_it_cannot_answer"
      "_fails_the_call_clearly"),
    M("RTYPE-04", _SCLIENT, 'result.get("resultType", "complete")  # RTYPE-04', 'result.get("resultType", "")  #',
      _T26 + "test_stateless_client.py"),
    M("MRTR-13", _SCLIENT, '            asked["requestState"] = result["requestState"]',
      '            asked["requestState"] = result["requestState"].strip()',
      _T26 + "test_stateless_client.py::test_each_retry_echoes_the_state_byte_for_byte_or_sends_none_under_a_new_id"),
    M("MRTR-15", _SCLIENT, '        if "requestState" in result:  # MRTR-13, MRTR-15: as it came, never read; none if none came\n'
      '            asked["requestState"] = result["requestState"]',
      '        if True:\n            asked["requestState"] = result.get("requestState")',
      _T26 + "test_stateless_client.py::test_each_retry_echoes_the_state_byte_for_byte_or_sends_none_under_a_new_id"),
    M("MRTR-14", _SCLIENT, 'for key, question in result["inputRequests"].items()}',
      'for key, question in list(result["inputRequests"].items())[:-1]}',
      _T26 + "test_stateless_client.py::test_a_tool_that_asks_is_answered_by_the_clients_handlers_over_as_many_rounds"
      "_as_it_takes"),
    # MRTR-16: every round of a call sent under the id of its first; MRTR-17: a call's answers and state kept
    # on the client and sent with the next call
    M("MRTR-16", _SCLIENT, "            result: dict[str, Any] = session.request(method, meta(client, asked, version),",
      '            first = next(session._ids) if "inputResponses" not in asked else first  # noqa: F821\n'
      '            session._ids = __import__("itertools").chain([first], session._ids)\n'
      "            result: dict[str, Any] = session.request(method, meta(client, asked, version),",
      _T26 + "test_stateless_client.py::test_each_retry_echoes_the_state_byte_for_byte_or_sends_none_under_a_new_id"),
    # HTTPX-11: a request whose HTTP stream broke (the server still there) fails instead of going again
    M("HTTPX-11", _SCLIENT, "            continue  # HTTPX-11", "            raise  # HTTPX-11",
      _T26 + "test_stateless_client.py::test_over_http_a_request_whose_stream_broke_is_sent_again_under_a_new_id"),
    M("MRTR-17", _SCLIENT, "    given, asked = dict(params or {}), dict(params or {})",
      '    given, asked = dict(params or {}), {**client.__dict__.get("_mrtr_last", {}), **(params or {})}',
      _T26 + "test_stateless_client.py::test_each_retry_echoes_the_state_byte_for_byte_or_sends_none_under_a_new_id",
      ('        asked = {**given, "inputResponses": answers}  # MRTR-14',
       '        asked = client.__dict__["_mrtr_last"] = {**given, "inputResponses": answers}  #')),
    M("HTTPX-03", _SCLIENT, "    if VERSION_KEY not in own or \"method\" not in msg:\n        return {}",
      "    if True:\n        return {}",
      _T26 + "test_stateless_client.py::test_the_headers_of_a_post_of_2026_07_28_repeat_its_body"),
    M("HTTPX-13", _SCLIENT, 'return {"MCP-Protocol-Version": str(own[VERSION_KEY]), **standard_headers(msg)}  # HTTPX-13',
      'return {"MCP-Protocol-Version": "2025-11-25", **standard_headers(msg)}  #',
      _T26 + "test_stateless_client.py::test_the_headers_of_a_post_of_2026_07_28_repeat_its_body"),
    # HTTPX-18: NAMED is what standard_headers reads for Mcp-Name
    M("HTTPX-18", _SCLIENT, 'NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}', "NAMED = {}",
      _T26 + "test_stateless_client.py::test_the_headers_of_a_post_of_2026_07_28_repeat_its_body"),
    M("HTTPX-19", _SCLIENT, '    plain = text == text.strip() and all(" " <= c <= "~" for c in text)', "    plain = True",
      _T26 + "test_stateless_client.py::test_a_name_travels_plain_or_in_the_base64_form"),
    # client: param_headers.py
    M("MPARAM-01", _PARAMS, 'for name, path in tool_params[params["name"]]:  # MPARAM-01', "for name, path in []:  #",
      _T26 + "test_param_headers.py::test_over_streamable_http_a_bad_tool_is_left_out_and_a_call_carries_its_marked_arguments"),
    M("MPARAM-02", _PARAMS, "if not isinstance(value, str) or not TOKEN.match(value):  # MPARAM-02",
      "if not isinstance(value, str):  #", _T26 + "test_param_headers.py::test_an_invalid_mark_spoils_its_tool"),
    M("MPARAM-03", _PARAMS, 'if node.get("type") not in ("string", "integer", "boolean"):  # MPARAM-03', "if False:  #",
      _T26 + "test_param_headers.py::test_an_invalid_mark_spoils_its_tool"),
    M("MPARAM-04", _PARAMS, "        if problem is not None:  # MPARAM-04", "        if False:  #",
      _T26 + "test_param_headers.py::test_over_streamable_http_a_bad_tool_is_left_out_and_a_call_carries_its_marked_arguments"),
    M("MPARAM-06", _PARAMS, "        if value is None:  # MPARAM-06: absent or null, no header\n            continue",
      '        if value is None:\n            value = ""',
      _T26 + "test_param_headers.py::test_each_kind_of_value_is_encoded_as_the_spec_says"),
    M("MPARAM-07", _PARAMS, 'text = "true" if value else "false"  # MPARAM-07', "text = str(value)  #",
      _T26 + "test_param_headers.py::test_each_kind_of_value_is_encoded_as_the_spec_says"),
]


# --- running them ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    mutant: Mutant
    status: str  # "killed", "survived" or "error"
    seconds: float
    detail: str  # the last lines pytest printed


def copy_repository(target: Path) -> Path:
    """A copy of the repository (sources, tests, notes; no virtualenv, no Node peers, no caches) at
    ``target``, its Python compiled once: each mutant's run then reads the bytecode of every
    module but the mutated one, whose source is newer than its bytecode (and which, with
    PYTHONDONTWRITEBYTECODE, is compiled afresh and never cached)."""
    shutil.copytree(ROOT, target, ignore=_SKIP)
    for folder in ("mcp_ref", "mcp_ref_check", "tests"):
        compileall.compile_dir(target / folder, quiet=1)
    return target


@contextmanager
def applied(mutant: Mutant, root: Path) -> Iterator[None]:
    """``mutant`` applied to the copy at ``root`` for the duration; the file restored after."""
    path = root / mutant.file
    text = mutated = path.read_text(encoding="utf-8")
    for original, replacement in mutant.changes:
        if mutated.count(original) != 1:
            raise ValueError(f"{mutant.name}: {original!r} occurs {mutated.count(original)} times in {mutant.file}")
        mutated = mutated.replace(original, replacement)
    path.write_text(mutated, encoding="utf-8")
    try:
        yield
    finally:
        path.write_text(text, encoding="utf-8")


def run_mutant(mutant: Mutant, root: Path) -> Outcome:
    """Apply ``mutant`` to the copy at ``root``, run its test there, restore; say how it went."""
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-n", "0", mutant.test]
    start = time.monotonic()
    with applied(mutant, root):
        try:
            proc = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=TEST_TIMEOUT)
        except subprocess.TimeoutExpired:
            return Outcome(mutant, "killed", time.monotonic() - start, f"the test hung for {TEST_TIMEOUT:g} s")
    elapsed = time.monotonic() - start
    output = (proc.stdout + proc.stderr).strip().splitlines()
    errors = [line for line in output if line.startswith("E  ")][:2]  # the assertion that failed
    detail = "\n".join([*errors, *output[-1:]])
    status = {0: "survived", 1: "killed"}.get(proc.returncode, "error")  # 2..5: interrupted, usage, no tests
    return Outcome(mutant, status, elapsed, detail)


def run_all(mutants: list[Mutant], workers: int = 4) -> list[Outcome]:
    """Every mutant, ``workers`` at a time, each worker in a copy of its own."""
    with tempfile.TemporaryDirectory(prefix="mcp_ref-mutants-") as tmp:
        roots = [copy_repository(Path(tmp) / f"copy{n}") for n in range(max(1, min(workers, len(mutants))))]
        chunks = [mutants[n::len(roots)] for n in range(len(roots))]

        def work(n: int) -> list[Outcome]:
            return [run_mutant(mutant, roots[n]) for mutant in chunks[n]]

        with ThreadPoolExecutor(len(roots)) as pool:
            done = [outcome for outcomes in pool.map(work, range(len(roots))) for outcome in outcomes]
    order = {mutant: n for n, mutant in enumerate(mutants)}
    return sorted(done, key=lambda outcome: order[outcome.mutant])


def report(outcomes: list[Outcome], verbose: bool = False) -> str:
    lines = [f"{'ID':9} {'result':8} {'s':>5}  {'file':24} test"]
    for o in outcomes:
        lines.append(f"{o.mutant.id:9} {o.status:8} {o.seconds:5.1f}  {o.mutant.file:24} {o.mutant.test}")
        if o.status != "killed" or verbose:
            lines += ["    " + line for line in o.detail.splitlines()]
    counts = {status: sum(o.status == status for o in outcomes) for status in ("killed", "survived", "error")}
    lines.append(f"\n{len(outcomes)} mutants: {counts['killed']} killed, {counts['survived']} survived, "
                 f"{counts['error']} errors")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.mutants", description=__doc__.split("\n\n")[0])
    parser.add_argument("ids", nargs="*", metavar="ID", help="run only the mutants of these requirement IDs")
    parser.add_argument("--workers", type=int, default=4, help="copies run side by side (default 4)")
    parser.add_argument("-v", "--verbose", action="store_true", help="show how each test failed, killed ones too")
    args = parser.parse_args(argv)
    wanted = {i.upper() for i in args.ids}
    chosen = [m for m in MUTANTS if not wanted or m.id in wanted]
    if not chosen:
        parser.error(f"no mutant for {', '.join(sorted(wanted))}")
    print(f"{len(chosen)} mutants, {args.workers} at a time...", flush=True)
    outcomes = run_all(chosen, args.workers)
    print(report(outcomes, args.verbose))
    return 0 if all(o.status == "killed" for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
