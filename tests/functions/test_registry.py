"""What later revisions let a listed item carry, checked at registration (functions/registry.py, item 3).

Not a spec page of its own: ``check_later_fields`` serves the decorators (``@server.tool``,
``@server.prompt``, ``@server.resource``) and ``Server(icons=)`` alike. Icons (2025-11-25):
https://modelcontextprotocol.io/specification/2025-11-25/basic/index#icons says a client must take
an icon's ``src`` only as an https: or a data: URI and reject every other scheme, so a server
refuses any other at registration, with a message that says what is allowed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mcp_ref import Client, Server

# Each scheme an author might give, and whether a client may take it (SCHEMA-13).
SOURCES = {
    "https://example.com/icon.png": True,
    "HTTPS://EXAMPLE.COM/ICON.PNG": True,  # a scheme is case-insensitive
    "data:image/png;base64,iVBORw0KGgo=": True,
    "http://example.com/icon.png": False,  # the page: "Ensure that the icon URI is either a HTTPS or data: URI"
    "javascript:alert(1)": False,
    "file:///etc/passwd": False,
    "icon.png": False,  # relative: no scheme at all
    "/static/icon.png": False,
    "ftp://example.com/icon.png": False,
    "https://example.com/\x1b[2Kicon.png": False,  # a control character: no URI at all
}
DECORATORS: dict[str, Callable[[Server, list[dict[str, Any]] | None, str], Any]] = {
    "tool": lambda server, icons, name: server.tool(name, icons=icons)(lambda: "x"),
    "prompt": lambda server, icons, name: server.prompt(name, icons=icons)(lambda: "x"),
    "resource": lambda server, icons, name: server.resource(f"notes://{name}", name, icons=icons)(lambda: "x"),
}
LISTED: dict[str, Callable[[Client], list[dict[str, Any]]]] = {
    "tool": lambda client: client.list_tools(), "prompt": lambda client: client.list_prompts(),
    "resource": lambda client: client.list_resources(),
}


@pytest.mark.parametrize("src, allowed", SOURCES.items())
@pytest.mark.parametrize("kind", DECORATORS)
def test_an_icon_is_registered_only_with_an_https_or_data_src(
        memory_client: Callable[..., Client], kind: str, src: str, allowed: bool) -> None:
    """What is registered reaches a 2025-11-25 client (the tap checks it against that schema)."""
    server = Server("icons")
    icons = [{"src": src, "mimeType": "image/png"}]
    DECORATORS[kind](server, None, "plain")  # so that the server declares the capability in any case
    if allowed:
        DECORATORS[kind](server, icons, "iconic")
    else:
        with pytest.raises(ValueError, match=f"{kind} .*icons must be a list of dicts {{'src': an https: or data: URI"):
            DECORATORS[kind](server, icons, "iconic")
    listed = LISTED[kind](memory_client(server, protocol_versions=["2025-11-25"]))
    assert [(item["name"], item.get("icons")) for item in listed] == [("plain", None)] + ([("iconic", icons)] if allowed else [])


@pytest.mark.parametrize("src, allowed", SOURCES.items())
def test_a_server_s_own_icons_are_checked_the_same_at_construction(src: str, allowed: bool) -> None:
    icons = [{"src": src}]
    if allowed:
        assert Server("icons", icons=icons).later_info == {"icons": icons}
    else:
        with pytest.raises(ValueError, match=r"Server\(icons=\): icons must be a list of dicts {'src': an https: or data:"):
            Server("icons", icons=icons)


@pytest.mark.parametrize("icon", [{"src": "https://e.example/i.png", "theme": "dim"},
                                  {"src": "https://e.example/i.png", "sizes": [48]},
                                  {"src": "https://e.example/i.png", "alt": "x"}, {}, "https://e.example/i.png"])
def test_an_icon_of_the_wrong_shape_is_refused_at_both(icon: Any) -> None:
    with pytest.raises(ValueError, match="icons must be a list of dicts"):
        Server("icons", icons=[icon])
    with pytest.raises(ValueError, match="icons must be a list of dicts"):
        DECORATORS["tool"](Server("icons"), [icon], "t")


def test_the_icons_allowed_reach_a_2025_11_25_client(memory_client: Callable[..., Client]) -> None:
    """Through a real session (the tap checks each message against the 2025-11-25 schema)."""
    icons = [{"src": src} for src, allowed in SOURCES.items() if allowed]
    server = Server("icons", icons=icons)
    server.tool("t", icons=icons)(lambda: "x")
    client = memory_client(server, protocol_versions=["2025-11-25"])
    assert client.server_info is not None and client.server_info["icons"] == icons
    assert client.list_tools()[0]["icons"] == icons
