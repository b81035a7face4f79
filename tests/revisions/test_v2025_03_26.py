"""Revision 2025-03-26 (mcp_ref/revisions/v2025_03_26.py), and the negotiation that reaches it.

https://modelcontextprotocol.io/specification/2025-03-26/changelog
https://modelcontextprotocol.io/specification/2025-03-26/basic/lifecycle#version-negotiation
Every pair of pinned revisions, client against server, agrees on the newest both speak, or the
client hangs up saying why; then what this revision changed: the ``completions`` capability.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest

from mcp_ref import Client, MethodNotFound, Server, UnsupportedProtocolVersion
from mcp_ref.lifecycle import REVISIONS, SUPPORTED_PROTOCOL_VERSIONS, checked_versions, since
from mcp_ref.machinery.memory import MemoryTransport

PINS = [[version] for version in REVISIONS] + [["2024-11-05", "2025-06-18"], list(REVISIONS)]


def connect(server: Server, **options: object) -> Client:
    server_end, client_end = MemoryTransport.pair()
    server.open_session(server_end).start()
    return Client(client_end, timeout=5, **options).connect()  # type: ignore[arg-type]


@pytest.mark.parametrize(("offered", "spoken"), list(itertools.product(PINS, PINS)))
def test_each_pair_agrees_on_the_newest_revision_both_speak(offered: list[str], spoken: list[str]) -> None:
    server = Server("pinned", protocol_versions=spoken)
    common = [v for v in SUPPORTED_PROTOCOL_VERSIONS if v in offered and v in spoken]
    newest_offered = next(v for v in SUPPORTED_PROTOCOL_VERSIONS if v in offered)
    if newest_offered in spoken:  # LC-12: the server echoes what it speaks
        with connect(server, protocol_versions=offered) as client:
            assert client.protocol_version == newest_offered
            assert client.session.lifecycle.protocol_version == newest_offered
        return
    server_newest = next(v for v in SUPPORTED_PROTOCOL_VERSIONS if v in spoken)
    if server_newest in offered:  # the server's counter-proposal, which the client also speaks
        with connect(server, protocol_versions=offered) as client:
            assert client.protocol_version == server_newest and server_newest in common
        return
    with pytest.raises(UnsupportedProtocolVersion) as info:  # LC-13, LC-26: nothing in common
        connect(server, protocol_versions=offered)
    assert server_newest in info.value.message


def test_versions_are_ordered_by_the_list_not_by_their_dates() -> None:
    assert since("2025-06-18", "2025-03-26") and since("2025-03-26", "2025-03-26")
    assert not since("2024-11-05", "2025-03-26") and not since(None, "2025-03-26")
    assert not since("2026-12-01", "2025-03-26")  # VER-02: a version we do not know speaks only the base
    assert since("2026-07-28", "2025-11-25")  # (the revision without a handshake comes after them all)
    assert checked_versions(["2024-11-05", "2025-11-25"]) == ("2025-11-25", "2024-11-05")  # newest first


@pytest.mark.parametrize("bad", [[], ["2025-11-26"], ["2024-11-05", "latest"], "2025-13-01"])
def test_a_pin_mcp_ref_does_not_speak_fails_at_once_saying_what_it_speaks(bad: object) -> None:
    for make in (lambda: Server("s", protocol_versions=bad),  # type: ignore[arg-type]
                 lambda: Client(MemoryTransport.pair()[0], protocol_versions=bad)):  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="mcp_ref speaks 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05"):
            make()


def completing_server() -> Server:
    server = Server("completing")

    @server.prompt()
    def review(language: str) -> str:
        return f"Review this {language} code."

    server.add_completion("ref/prompt", "review", "language", ["python", "perl"])
    return server


@pytest.mark.parametrize("version", REVISIONS)
def test_the_completions_capability_comes_with_2025_03_26(version: str) -> None:
    ref, argument = {"type": "ref/prompt", "name": "review"}, {"name": "language", "value": "p"}
    with connect(completing_server(), protocol_versions=[version]) as client:
        assert ("completions" in client.server_capabilities) == (version != "2024-11-05")
        assert client.complete(ref, argument)["completion"]["values"] == ["python", "perl"]


def test_a_server_without_completions_refuses_it_from_2025_03_26_and_the_client_does_not_ask() -> None:
    bare = Server("bare")  # nothing to complete: no completions capability
    ref, argument = {"type": "ref/prompt", "name": "x"}, {"name": "a", "value": ""}
    with connect(bare, protocol_versions=["2025-03-26"]) as client:
        with pytest.raises(MethodNotFound, match="completions"):  # the client refuses locally
            client.complete(ref, argument)
        with pytest.raises(MethodNotFound, match="did not declare completions"):  # and the server, if asked anyway
            client.request("completion/complete", {"ref": ref, "argument": argument})
    with connect(bare, protocol_versions=["2024-11-05"]) as client:  # 2024-11-05 gates nothing: the server is asked
        with pytest.raises(MethodNotFound, match="offers no completions"):
            client.complete(ref, argument)


def test_a_session_reports_its_revision_to_the_handler(memory_client: Callable[..., Client]) -> None:
    server = Server("which")
    seen: list[str | None] = []

    @server.tool()
    def which(ctx: object) -> str:
        seen.append(ctx.protocol_version)  # type: ignore[attr-defined]
        return "ok"

    for version in REVISIONS:
        memory_client(server, protocol_versions=[version]).call_tool("which")
    assert seen == list(REVISIONS)
