"""The registry of cases: importing the case modules registers them (model.server_case and
model.client_case); this module is what the runner, the command line and ``mcp-ref spec`` read.

Not a spec section: the conformance checker's list of cases (see __init__.py).

The kit's imports form layers, with no cycle (tests/check/test_check.py walks them, function-level and
``TYPE_CHECKING`` imports included):

1. leaves: ``model`` (cases, findings, statuses), ``shapes`` and ``result_shapes`` (data
   shapes), ``wire`` (the recording both transports share) with ``stdio_wire`` and ``sse_wire``
   on it, ``sections`` (where each requirement sits in the spec);
2. sessions: ``peer`` (the kit as a client), ``server_run`` (a server run's connections and
   discovery), ``server_check`` and ``client_check`` (the check contexts a case receives),
   ``client_links``, and ``helpers`` and ``hostile_helpers`` (what several server cases share);
3. the case modules (``server_*``, ``client_*``), which import the layers above and never
   each other, nor this module;
4. this registry; then ``runner`` (a whole run), ``report`` and ``cli``.
"""

from __future__ import annotations

from . import (  # noqa: F401  (imported to register their cases)
    client_cases,
    client_features,
    client_revisions,
    client_stateless,
    server_basic_utilities,
    server_hostile,
    server_hostile_transports,
    server_lifecycle,
    server_messages,
    server_messages_audit,
    server_prompts,
    server_resources,
    server_revisions,
    server_stateless,
    server_stateless_http,
    server_stateless_rounds,
    server_tools,
    server_transports,
    server_transports_http,
    server_utilities,
)
from .model import CLIENT_CASES, SERVER_CASES, Case

# The order of a server run and its report: the base protocol as a message meets it, the
# server's features, the transports, then the server's utilities. Within a page, cases keep the
# order of their module. Cancellation comes after tools: cancellation.cancelled-tool-stops
# cancels the slowest tool that tools.tool-results-are-well-formed timed.
SERVER_PAGES = ("basic/lifecycle", "basic/messages", "basic/utilities/ping", "basic/utilities/progress",
                "server/tools", "basic/utilities/cancellation", "server/resources", "server/prompts",
                "basic/transports", "server/utilities/logging", "server/utilities/completion",
                "server/utilities/pagination")


def all_server_cases() -> list[Case]:
    """Every server case, in page order (SERVER_PAGES; a page not named there comes last), the
    hostile ones last within their page."""
    def rank(case: Case) -> tuple[int, bool]:
        return (SERVER_PAGES.index(case.page) if case.page in SERVER_PAGES else len(SERVER_PAGES)), case.hostile

    return sorted(SERVER_CASES, key=rank)


def all_client_cases() -> list[Case]:
    """Every client case, in page order."""
    return list(CLIENT_CASES)
