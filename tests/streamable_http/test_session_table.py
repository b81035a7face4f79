"""The sessions of one Streamable HTTP endpoint (streamable_http/session_table.py), revision 2025-03-26, on their own.

Not a spec page: the session table of server_app.py, with its bounds (SHTTP-39: a server may end a
session at any time). Its promises: ``add`` takes a new session's place while fewer than
``max_sessions`` are held; when full, sessions unused for ``idle_timeout`` seconds make room first
(ended on a thread of their own), and with none idle the new one is refused; a sweeper thread,
started with the first session, ends unused sessions; ``pop`` takes a session out; ``close(reason)``
ends every session and stops the sweeper. Real ``SessionTransport``s, each with a real session of
a real ``Server`` that leaves the table on close, as the app wires it. The same bounds over HTTP
(503 with Retry-After, 404 after) are in tests/streamable_http/test_server_app.py.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator

import pytest

from mcp_ref import Server
from mcp_ref.session import Session
from mcp_ref.streamable_http.session_table import SessionTable
from mcp_ref.streamable_http.session_transport import SessionTransport

from ..conftest import wait_until

WAIT = 5.0  # seconds: a bound for liveness only
_ids = itertools.count()


@pytest.fixture
def tables() -> Iterator[list[SessionTable]]:
    made: list[SessionTable] = []
    yield made
    for table in made:
        table.close("the test ended")


def table_of(tables: list[SessionTable], max_sessions: int, idle_timeout: float) -> SessionTable:
    tables.append(SessionTable(max_sessions, idle_timeout))
    return tables[-1]


def opened(table: SessionTable) -> tuple[SessionTransport, bool]:
    """A new session with its transport, offered to ``table``; whether the table took it. The
    session leaves the table when it closes, as server_app.py wires it."""
    transport = SessionTransport(f"session-{next(_ids)}", max_queued=10, max_in_flight=10, max_queued_bytes=10_000)
    added = table.add(transport)
    if added:
        session = Server("table-test").open_session(transport)
        transport.session = session
        session.on_close(lambda s: table.pop(transport.session_id))
        session.start()
    return transport, added


def session_of(transport: SessionTransport) -> Session:
    assert isinstance(transport.session, Session)
    return transport.session


def test_a_full_table_with_no_idle_session_refuses_the_next(tables: list[SessionTable]) -> None:
    table = table_of(tables, max_sessions=2, idle_timeout=600)
    first, _ = opened(table)
    second, _ = opened(table)
    refused, added = opened(table)
    assert added is False and len(table) == 2
    assert table.get(refused.session_id) is None and table.get(first.session_id) is first
    assert not session_of(first).is_closed and not session_of(second).is_closed


def test_when_full_an_idle_session_makes_room_and_is_ended(tables: list[SessionTable]) -> None:
    table = table_of(tables, max_sessions=2, idle_timeout=600)
    unused, _ = opened(table)
    kept, _ = opened(table)
    unused.last_seen -= 601  # as if ten minutes had passed since its last POST
    newcomer, added = opened(table)
    assert added is True and len(table) == 2
    assert table.get(unused.session_id) is None and table.get(newcomer.session_id) is newcomer
    wait_until(lambda: session_of(unused).is_closed, timeout=WAIT)
    assert session_of(unused).close_reason == "unused for 600 s"
    assert not session_of(kept).is_closed


def test_the_sweeper_starts_with_the_first_session_and_ends_unused_ones(tables: list[SessionTable]) -> None:
    table = table_of(tables, max_sessions=10, idle_timeout=0.2)
    assert table._sweeper is None, "a sweeper before any session"
    transport, _ = opened(table)
    assert table._sweeper is not None and table._sweeper.name == "mcp_ref-http-sweeper"
    wait_until(lambda: session_of(transport).is_closed, timeout=WAIT)
    assert session_of(transport).close_reason == "unused for 0.2 s"
    wait_until(lambda: len(table) == 0, timeout=WAIT)


def test_pop_takes_a_session_out(tables: list[SessionTable]) -> None:
    table = table_of(tables, max_sessions=1, idle_timeout=600)
    transport, _ = opened(table)
    assert table.pop(transport.session_id) is transport
    assert table.pop(transport.session_id) is None and len(table) == 0
    assert opened(table)[1] is True, "the place it left is free"


def test_close_ends_every_session_and_stops_the_sweeper(tables: list[SessionTable]) -> None:
    table = SessionTable(max_sessions=10, idle_timeout=600)
    transports = [opened(table)[0] for _ in range(3)]
    sweeper = table._sweeper
    assert isinstance(sweeper, threading.Thread) and sweeper.is_alive()
    table.close("the server is shutting down")
    assert all(session_of(t).close_reason == "the server is shutting down" for t in transports)
    sweeper.join(WAIT)
    assert not sweeper.is_alive(), "the sweeper outlived the table"
    wait_until(lambda: len(table) == 0, timeout=WAIT)
