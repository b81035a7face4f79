"""server/utilities/pagination: pages, opaque cursors, invalid cursors, stability.

https://modelcontextprotocol.io/specification/2024-11-05/server/utilities/pagination
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mcp_ref import Client, InvalidParams, McpError, RequestContext, Server
from mcp_ref.pagination import list_all, paginate


def paged_server(page_size: int = 2) -> Server:
    server = Server("paged", page_size=page_size)
    for i in range(5):
        server.tool(name=f"tool{i}")(lambda: "x")
        server.resource(f"mem://r{i}")(lambda: "x")
        server.resource_template(f"mem://t{i}/{{v}}")(lambda v: v)
        server.prompt(name=f"prompt{i}")(lambda: "x")
    return server


def test_every_list_method_pages_and_the_client_follows(memory_client: Callable[..., Client], tap: Any) -> None:
    client = memory_client(paged_server())
    assert [t["name"] for t in client.list_tools()] == [f"tool{i}" for i in range(5)]
    assert [r["uri"] for r in client.list_resources()] == [f"mem://r{i}" for i in range(5)]
    assert len(client.list_resource_templates()) == 5
    assert [p["name"] for p in client.list_prompts()] == [f"prompt{i}" for i in range(5)]
    assert tap.methods("->").count("tools/list") == 3  # pages of 2, 2, 1


def test_the_client_takes_pages_of_any_size(memory_client: Callable[..., Client], tap: Any) -> None:
    """PAG-01, PAG-05: one page of 120 items, or 120 pages of one."""
    for page_size, requests in ((None, 1), (1, 120)):
        server = Server("many", page_size=page_size)
        for i in range(120):
            server.tool(name=f"tool{i:03d}")(lambda: "x")
        before = tap.methods("->").count("tools/list")
        assert [t["name"] for t in memory_client(server).list_tools()] == [f"tool{i:03d}" for i in range(120)]
        assert tap.methods("->").count("tools/list") - before == requests


# Cursors a server may mint: the client must not care what they look like (PAG-06).
ODD_CURSORS = ["", "  spaced out  ", '{"page": 2}', "é/ü?&=#\n", "null"]


def test_the_client_sends_back_any_cursor_exactly(memory_client: Callable[..., Client]) -> None:
    """PAG-06, PAG-07: whatever a cursor looks like (empty, blank-padded, JSON, any character),
    the client follows it and sends it back untouched."""
    server = Server("odd")
    server.tool(name="declared")(lambda: "x")  # so the server declares tools
    received: list[Any] = []

    def tools_list(ctx: RequestContext) -> dict[str, Any]:
        cursor = ctx.params.get("cursor")
        received.append(cursor)
        step = 0 if cursor is None else ODD_CURSORS.index(cursor) + 1  # ValueError: an altered cursor
        result: dict[str, Any] = {"tools": [{"name": f"t{step}", "inputSchema": {"type": "object"}}]}
        if step < len(ODD_CURSORS):
            result["nextCursor"] = ODD_CURSORS[step]
        return result

    server.request_handlers["tools/list"] = tools_list
    tools = memory_client(server).list_tools()
    assert [t["name"] for t in tools] == [f"t{i}" for i in range(len(ODD_CURSORS) + 1)]
    assert received == [None, *ODD_CURSORS]


def test_each_listing_starts_afresh_in_every_session(memory_client: Callable[..., Client]) -> None:
    """PAG-08: a cursor lives inside one listing; a new listing, in this session or another,
    starts from the first page."""
    server = paged_server()
    first, second = memory_client(server), memory_client(server)
    names = [f"tool{i}" for i in range(5)]
    assert [t["name"] for t in first.list_tools()] == names
    assert [t["name"] for t in second.list_tools()] == names
    assert [t["name"] for t in first.list_tools()] == names


def test_raw_pages_and_invalid_cursors(memory_client: Callable[..., Client], tap: Any) -> None:
    client = memory_client(paged_server())
    first = client.request("tools/list")
    assert len(first["tools"]) == 2 and isinstance(first["nextCursor"], str)
    last = client.request("tools/list", {"cursor": client.request("tools/list", {"cursor": first["nextCursor"]})["nextCursor"]})
    assert len(last["tools"]) == 1 and "nextCursor" not in last  # PAG-04
    for bad in ("garbage!", "W10=", "WzEsIDJd"):
        with pytest.raises(InvalidParams):  # PAG-09
            client.request("tools/list", {"cursor": bad})
    with tap.deliberately_invalid(), pytest.raises(InvalidParams):
        client.request("tools/list", {"cursor": 5})


LIST_METHODS = {"tools/list": "tools", "prompts/list": "prompts", "resources/list": "resources",
                "resources/templates/list": "resourceTemplates"}


@pytest.mark.parametrize("minted_by", sorted(LIST_METHODS))
def test_a_cursor_only_pages_the_list_that_minted_it(memory_client: Callable[..., Client], tap: Any,
                                                      minted_by: str) -> None:
    """PAG-09: a cursor of one list sent to another is refused, not answered with a wrong page."""
    client = memory_client(paged_server())
    cursor = client.request(minted_by)["nextCursor"]
    assert client.request(minted_by, {"cursor": cursor})[LIST_METHODS[minted_by]]  # its own list takes it
    for other in sorted(set(LIST_METHODS) - {minted_by}):
        with pytest.raises(InvalidParams, match=f"pages {LIST_METHODS[minted_by]}") as info:
            client.request(other, {"cursor": cursor})
        assert info.value.data == {"field": "cursor"}


def test_forged_and_altered_cursors_are_invalid_params(memory_client: Callable[..., Client], tap: Any) -> None:
    """PAG-09: the cursor is signed; anything we did not mint is -32602, never a guessed page."""
    import json

    client = memory_client(paged_server())
    real = client.request("tools/list")["nextCursor"]
    payload, _, signature = real.partition(".")
    forged_payload = json.dumps(["tools", 4, "tool3"]).encode().hex()
    flipped = signature[:-1] + ("0" if signature[-1] != "0" else "1")
    for forged in (forged_payload, f"{forged_payload}.{signature}", f"{payload}.{flipped}", f"{payload}.",
                   "." + signature, real + "x", "\u00e9." + signature):
        with pytest.raises(InvalidParams):
            client.request("tools/list", {"cursor": forged})


@pytest.mark.parametrize("bad", [5, 1.5, True, [], ["a"], {}, {"a": [1, {"b": None}]}])
def test_a_cursor_that_is_not_a_string_is_invalid_params_naming_it(memory_client: Callable[..., Client], tap: Any,
                                                                   bad: Any) -> None:
    client = memory_client(paged_server())
    for method in LIST_METHODS:
        with tap.deliberately_invalid(), pytest.raises(InvalidParams, match='"cursor" must be a string') as info:
            client.request(method, {"cursor": bad})
        assert info.value.data == {"field": "cursor"}


def test_cursors_are_stable_when_the_list_changes() -> None:
    items = ["a", "b", "c", "d", "e"]
    page, cursor = paginate(items, str, "items", {}, 2)
    assert page == ["a", "b"] and cursor is not None
    items.remove("a")  # an earlier item vanished: the next page still starts after "b"
    page, cursor = paginate(items, str, "items", {"cursor": cursor}, 2)
    assert page == ["c", "d"]
    items.insert(0, "z")
    page, cursor = paginate(items, str, "items", {"cursor": cursor}, 2)
    assert page == ["e"] and cursor is None  # PAG-02


def test_list_all_guards_against_a_looping_server() -> None:
    def looping(method: str, params: dict[str, Any] | None) -> dict[str, Any]:
        return {"tools": [{"name": "x"}], "nextCursor": "same"}

    with pytest.raises(McpError, match="repeated the cursor"):
        list_all(looping, "tools/list", "tools")


def test_no_page_size_means_one_page(memory_client: Callable[..., Client]) -> None:
    client = memory_client(paged_server(page_size=None))  # type: ignore[arg-type]
    result = client.request("tools/list")
    assert len(result["tools"]) == 5 and "nextCursor" not in result
