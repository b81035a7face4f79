"""Shared fixtures: schema-checked clients over real subprocesses and in memory."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_ref import Client, Server
from mcp_ref.memory import MemoryTransport

from .schema_tap import SCHEMA_PATH, SchemaTap, schema_available

ROOT = Path(__file__).resolve().parents[1]
TEST_SERVER = str(ROOT / "tests" / "servers.py") + ":server"


def server_command(target: str | None = None) -> list[str]:
    """The command that serves ``target`` (default: the bundled demo server) over stdio."""
    command = [sys.executable, "-m", "mcp_ref", "serve"]
    return command + ([target] if target else [])


def pytest_report_header(config: Any) -> str:
    if schema_available():
        return f"schema checks: every tapped message is validated against {SCHEMA_PATH}"
    return f"schema checks: SKIPPED, {SCHEMA_PATH} is absent (it lives in the project's shared/ folder)"


@pytest.fixture
def tap() -> Iterator[SchemaTap]:
    """A schema tap on the client side; the test fails at teardown if any message broke the schema."""
    t = SchemaTap("client")
    yield t
    t.assert_clean()


@pytest.fixture
def stdio_client(tap: SchemaTap) -> Iterator[Callable[..., Client]]:
    """Factory: ``stdio_client(target=None, **kwargs)`` spawns ``mcp-ref serve`` and connects."""
    clients: list[Client] = []

    def make(target: str | None = TEST_SERVER, **kwargs: Any) -> Client:
        kwargs.setdefault("timeout", 10.0)
        client = Client.stdio(server_command(target), trace=tap, cwd=str(ROOT), **kwargs)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def memory_client(tap: SchemaTap) -> Iterator[Callable[..., Client]]:
    """Factory: ``memory_client(server, **kwargs)`` links a Client to ``server`` in memory."""
    clients: list[Client] = []

    def make(server: Server, **kwargs: Any) -> Client:
        kwargs.setdefault("timeout", 10.0)
        server_end, client_end = MemoryTransport.pair()
        server.open_session(server_end).start()
        client = Client(client_end, trace=tap, **kwargs).connect()
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


DEMO_SERVER = "mcp_ref.demo_server:server"
TRANSPORTS = ["stdio"]


@pytest.fixture(params=TRANSPORTS)
def connect(request: Any, tap: SchemaTap) -> Iterator[Callable[..., Client]]:
    """Factory: ``connect(target=DEMO_SERVER, **kwargs)`` serves ``target`` in a subprocess over
    each transport in TRANSPORTS and returns a connected, schema-tapped client."""
    clients: list[Client] = []

    def make(target: str = DEMO_SERVER, **kwargs: Any) -> Client:
        kwargs.setdefault("timeout", 10.0)
        client = Client.stdio(server_command(target), trace=tap, cwd=str(ROOT), **kwargs)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()
