"""A server of 2026-07-28 for tests/revisions/test_subscriptions.py: what changes, on demand.

``mcp-ref serve tests/peers/listening_server.py:server`` (stdio) or ``server.sse_server()`` (HTTP).
It offers a tool ``touch(uri)`` that reports an update of a resource and returns how many
listeners were told, ``add_tool`` and ``add_prompt`` that change those lists, one resource
(``test://a``) and one prompt, so that every flag of a ``subscriptions/listen`` filter can be
honoured.
"""

from __future__ import annotations

import itertools

from mcp_ref import Server

server = Server("listening")
_added = itertools.count(1)


@server.tool()
def touch(uri: str) -> str:
    """Report that the resource at ``uri`` changed; says how many listeners were told."""
    return str(server.notify_resource_updated(uri))


@server.tool()
def add_tool() -> str:
    """Add a tool: the tool list changes."""
    name = f"added_{next(_added)}"
    server.tool(name, "A tool added while the server runs.")(lambda: "added")
    return name


@server.tool()
def add_prompt() -> str:
    """Add a prompt: the prompt list changes."""
    name = f"added_prompt_{next(_added)}"
    server.prompt(name, "A prompt added while the server runs.")(lambda: "added")
    return name


@server.resource("test://a")
def resource_a() -> str:
    return "a"


@server.prompt()
def hello() -> str:
    """Say hello."""
    return "hello"
