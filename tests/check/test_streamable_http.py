"""The conformance checker over Streamable HTTP (``check server --http URL``, ``check client --http``).

https://modelcontextprotocol.io/specification/2025-03-26/basic/transports
The kit's cases judge 2024-11-05 messages whatever carries them; these tests run them over the
2025-03-26 transport (mcp_ref_check/http_wire.py) against our own server and client,
which must pass every case that applies. The official SDK through the kit: run by hand (the
closing note of issue 25 gives the figures).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..conftest import ROOT, SseServerProcess
from ..peers import running
from .test_check import MCP_REF, check_json, not_passed


def test_our_server_passes_every_case_over_streamable_http(tmp_path: Path) -> None:
    server = SseServerProcess("mcp_ref.demo_server:server", "--transport", "http")
    try:
        code, report, out = check_json(tmp_path, "server", "--http", server.url, "--call-tools")
    finally:
        server.close()
    assert code == 0 and not_passed(report) == {}, out
    assert report["transport"] == "http" and "mcp-ref check server (http)" in out
    passed = {c["name"] for c in report["cases"] if c["status"] == "PASS"}
    assert {"ping.ping-before-initialize", "lifecycle.survives-a-request-before-initialize",
            "messages.answers-unparseable-input-with-32700", "progress.progress-tokens-are-accepted"} <= passed
    skipped = {c["name"] for c in report["cases"] if c["status"] == "SKIP"}
    assert not any(name.startswith(("tools.tool-results", "progress.")) for name in skipped), "--call-tools ran the tools"
    # The transport's own cases (issue 34): Origin and Host, sessions, DELETE, answers, refusals.
    assert {"transports.http-refuses-a-foreign-origin", "transports.http-refuses-a-foreign-host",
            "transports.http-unknown-session-is-404", "transports.http-request-without-a-session-id-is-400",
            "transports.http-delete-ends-the-session", "transports.http-answers-a-post-on-its-own-response",
            "transports.http-refuses-what-it-cannot-take"} <= passed, out


def test_our_client_passes_every_client_case_over_streamable_http(tmp_path: Path) -> None:
    client = [MCP_REF, "request", "--http", "{server}", "tools/call", '{"name": "echo", "arguments": {"text": "hi"}}',
              "--root", "file:///tmp/mcp-ref-check", "--sampling-reply", "OK"]
    code, report, out = check_json(tmp_path, "client", "--http", "--", *client)
    assert code == 0 and not_passed(report) == {}, out
    passed = {c["name"] for c in report["cases"] if c["status"] == "PASS"}
    assert {"roots.roots-list-is-answered", "sampling.sampling-request-is-answered", "ping.ping-is-answered",
            "messages.unknown-method-is-32601", "ping.ping-is-answered-after-notifications"} <= passed
    assert "mcp-ref check client (http)" in out


UNRULY_HTTP = ROOT / "tests" / "peers" / "unruly_http_server.py"


@contextlib.contextmanager
def unruly_http(mode: str) -> Iterator[str]:
    with running(UNRULY_HTTP.name, mode) as (url, _):
        yield url


@pytest.mark.parametrize("mode, status", [
    ("progress-on-the-post-stream", "FAIL"),  # one stream: its order is the server's
    ("progress-on-the-get-stream-later", "FAIL"),  # two streams, but 2 s apart
    ("progress-on-the-get-stream-at-once", "PASS"),  # two streams 0.3 s apart: the order is unknown
])
def test_progress_after_a_response_is_judged_only_where_the_order_is_known(tmp_path: Path, mode: str,
                                                                           status: str) -> None:
    """PROG-15 over Streamable HTTP: a response and a notification on two streams (a POST's and
    the GET's) are read by two threads, so which came first is known only on one stream, or when
    they are far apart (check/server_basic_utilities.CROSS_STREAM_SLACK)."""
    with unruly_http(mode) as url:
        code, report, out = check_json(tmp_path, "server", "--http", url, "--only", "progress", "--timeout", "3")
    case = next(c for c in report["cases"] if c["name"] == "progress.progress-notifications-follow-the-rules")
    assert case["status"] == status, out
    if status == "FAIL":
        assert [f["id"] for f in case["findings"]] == ["PROG-15"], out
    else:
        assert any("two streams are not ordered" in note for note in case["notes"]), out


def test_a_request_refused_before_any_session_is_an_answer_not_silence(tmp_path: Path) -> None:
    """SHTTP-38: before initialize there is no session id, and the server refuses other requests
    with HTTP 400 (an error with a null id). That is an answer: a request other than ping passes
    with a note; a ping so refused is a warning naming both PING-01 and SHTTP-38, not a failure."""
    with unruly_http("progress-on-the-get-stream-at-once") as url:
        code, report, out = check_json(tmp_path, "server", "--http", url, "--only", "lifecycle", "ping", "--timeout", "3")
    cases = {c["name"]: c for c in report["cases"]}
    early = cases["lifecycle.survives-a-request-before-initialize"]
    assert early["status"] == "PASS" and any("HTTP 400" in n and "SHTTP-38" in n for n in early["notes"]), out
    ping = cases["ping.ping-before-initialize"]  # the page allows the 400: noted (INFO), never a warning
    assert ping["status"] == "PASS" and not ping["findings"], out
    assert any(n.startswith("INFO") and "HTTP 400" in n and "SHTTP-38" in n for n in ping["notes"]), out
    assert code == 0, out


def test_a_server_that_checks_origin_on_posts_only_fails_shttp_06(tmp_path: Path) -> None:
    """SHTTP-06: every request's Origin is checked. A server that refuses a foreign Origin on POST
    but serves it on GET and DELETE fails, naming them; it checks no Host either, which is another
    cause (its POSTs are safe from a foreign Origin), so that is a warning of its own."""
    with unruly_http("checks-origin-on-posts-only") as url:
        code, report, out = check_json(tmp_path, "server", "--http", url, "--only", "basic/transports", "--timeout", "3")
    cases = {c["name"]: c for c in report["cases"]}
    origin = cases["transports.http-refuses-a-foreign-origin"]
    assert origin["status"] == "FAIL" and [f["id"] for f in origin["findings"]] == ["SHTTP-06"], out
    message = origin["findings"][0]["message"]
    assert "served on GET, DELETE" in message and "refused on POST of initialize, POST of a ping" in message, out
    assert origin["findings"][0]["headers"]["Origin"] == "http://mcp-ref-check.invalid"
    assert origin["findings"][0]["link"] == "https://modelcontextprotocol.io/specification/2025-03-26/basic/transports"
    assert cases["transports.http-refuses-a-foreign-host"]["status"] == "WARN", out
    for name in ("transports.http-unknown-session-is-404", "transports.http-request-without-a-session-id-is-400",
                 "transports.http-delete-ends-the-session", "transports.http-answers-a-post-on-its-own-response",
                 "transports.http-refuses-what-it-cannot-take"):
        assert cases[name]["status"] == "PASS", (name, out)
    assert code == 1, out


def test_a_server_that_checks_neither_origin_nor_host_gets_one_finding(tmp_path: Path) -> None:
    """One cause, one finding: a server with no DNS-rebinding check at all fails the Origin case
    once, in a finding that names both; the Host case notes it instead of warning again."""
    with unruly_http("checks-neither-origin-nor-host") as url:
        code, report, out = check_json(tmp_path, "server", "--http", url, "--only", "basic/transports", "--timeout", "3")
    cases = {c["name"]: c for c in report["cases"]}
    origin = cases["transports.http-refuses-a-foreign-origin"]
    assert origin["status"] == "FAIL" and len(origin["findings"]) == 1, out
    assert "checks neither Origin nor Host" in origin["findings"][0]["message"], out
    host = cases["transports.http-refuses-a-foreign-host"]
    assert host["status"] == "PASS" and any("judged once" in n for n in host["notes"]), out
    assert code == 1, out
