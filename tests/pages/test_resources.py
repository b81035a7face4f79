"""server/resources: list, read (text and blob), templates, -32002, subscriptions, list_changed.

https://modelcontextprotocol.io/specification/2024-11-05/server/resources
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Callable
from typing import Any

import pytest

from mcp_ref import Client, InternalError, InvalidParams, ResourceNotFound, Server
from mcp_ref.resources import compile_template


def test_list_and_read_text_and_blob(connect: Callable[..., Client]) -> None:
    client = connect()
    resources = {r["uri"]: r for r in client.list_resources()}
    assert resources["demo://readme"] == {"uri": "demo://readme", "name": "readme",
                                          "description": "A short text resource.", "mimeType": "text/plain"}
    text = client.read_resource("demo://readme")["contents"]
    assert text == [{"uri": "demo://readme", "mimeType": "text/plain", "text": text[0]["text"]}]
    (blob,) = client.read_resource("demo://logo.png")["contents"]
    assert "text" not in blob and blob["mimeType"] == "image/png"  # RES-15
    assert base64.b64decode(blob["blob"]).startswith(b"\x89PNG")  # RES-10


def test_templates_list_and_read(connect: Callable[..., Client]) -> None:
    client = connect()
    notes, source = client.list_resource_templates()
    assert notes == {"uriTemplate": "demo://notes/{topic}", "name": "note",
                     "description": "A note about one topic: mcp, jsonrpc or stdio.", "mimeType": "text/plain"}
    assert source["uriTemplate"] == "demo://source/{+path}" and source["mimeType"] == "text/x-python"
    (note,) = client.read_resource("demo://notes/stdio")["contents"]
    assert note["uri"] == "demo://notes/stdio" and "stdin" in note["text"]


def test_unknown_resources_are_32002_with_the_uri(connect: Callable[..., Client], tap: Any) -> None:
    client = connect()
    for uri in ("demo://nothing", "demo://notes/unknown-topic", "demo://notes/a/b", "other://readme"):
        with pytest.raises(ResourceNotFound) as info:
            client.read_resource(uri)
        assert info.value.code == -32002 and info.value.data == {"uri": uri}  # RES-06
    with tap.deliberately_invalid(), pytest.raises(InvalidParams):
        client.request("resources/read", {"uri": 42})  # RES-08
    client.ping()


def test_subscribe_and_updates_reach_only_subscribers(memory_client: Callable[..., Client]) -> None:
    server = Server("subs")
    value = {"n": 0}
    server.resource("mem://counter")(lambda: str(value["n"]))
    server.resource("mem://other")(lambda: "other")
    updates_a: list[str] = []
    updates_b: list[str] = []
    a = memory_client(server, on_resource_updated=updates_a.append)
    b = memory_client(server, on_resource_updated=updates_b.append)
    a.subscribe_resource("mem://counter")
    b.subscribe_resource("mem://other")
    assert server.notify_resource_updated("mem://counter") == 1  # RES-13: only a
    a.ping()
    b.ping()
    assert updates_a == ["mem://counter"] and updates_b == []
    a.unsubscribe_resource("mem://counter")
    assert server.notify_resource_updated("mem://counter") == 0
    with pytest.raises(ResourceNotFound):
        a.subscribe_resource("mem://unknown")  # RES-08: only URIs this server serves


def test_subscription_over_a_real_server(connect: Callable[..., Client]) -> None:
    updated = threading.Event()
    uris: list[str] = []

    def on_updated(uri: str) -> None:
        uris.append(uri)
        updated.set()

    client = connect(on_resource_updated=on_updated)
    client.subscribe_resource("demo://counter")
    before = int(client.read_resource("demo://counter")["contents"][0]["text"])
    client.call_tool("increment")
    assert updated.wait(2) and uris == ["demo://counter"]
    assert int(client.read_resource("demo://counter")["contents"][0]["text"]) == before + 1


def test_subscriptions_end_with_the_session(memory_client: Callable[..., Client]) -> None:
    server = Server("subs")
    server.resource("mem://x")(lambda: "x")
    client = memory_client(server)
    client.subscribe_resource("mem://x")
    assert len(server.resources.subscribers("mem://x")) == 1
    client.close()
    for session in list(server.sessions):
        session.closed.wait(2)
    assert server.resources.subscribers("mem://x") == []


def test_handler_results_and_failures(memory_client: Callable[..., Client]) -> None:
    server = Server("shapes")
    server.resource("mem://dict")(lambda: {"text": "as a dict", "mimeType": "text/markdown"})
    server.resource("mem://two")(lambda: ["first", b"\x00\x01"])
    server.resource("mem://broken")(lambda: 1 / 0)

    @server.resource_template("files:///{+path}")
    def file(path: str) -> str:
        return f"path={path}"

    @server.resource_template("users://{user}/items/{item}")
    def item(user: str, item: str) -> str:
        return f"{user}:{item}"

    client = memory_client(server)
    assert client.read_resource("mem://dict")["contents"] == [
        {"uri": "mem://dict", "text": "as a dict", "mimeType": "text/markdown"}]
    first, second = client.read_resource("mem://two")["contents"]
    assert first["text"] == "first" and base64.b64decode(second["blob"]) == b"\x00\x01"
    with pytest.raises(InternalError) as info:
        client.read_resource("mem://broken")  # RES-07
    assert "ZeroDivision" not in info.value.message
    assert client.read_resource("files:///etc/hosts")["contents"][0]["text"] == "path=etc/hosts"
    assert client.read_resource("users://ann%20lee/items/7")["contents"][0]["text"] == "ann lee:7"
    with pytest.raises(ResourceNotFound):
        client.read_resource("users://ann/items/7/extra")


def test_resource_list_changed(memory_client: Callable[..., Client]) -> None:
    server = Server("changing")
    server.resource("mem://a")(lambda: "a")
    kinds: list[str] = []
    client = memory_client(server, on_list_changed=kinds.append)
    client.ping()
    server.resource("mem://b")(lambda: "b")
    server.resources.remove("mem://a")
    client.ping()
    assert kinds == ["resources", "resources"]  # RES-02
    assert [r["uri"] for r in client.list_resources()] == ["mem://b"]


def test_compile_template() -> None:
    pattern, names = compile_template("git://{repo}/blob/{+path}")
    assert names == ["repo", "path"]
    match = pattern.fullmatch("git://mcp/blob/src/a.py")
    assert match is not None and match.groupdict() == {"repo": "mcp", "path": "src/a.py"}
    assert pattern.fullmatch("git://a/b/blob/x") is None  # {repo} is one segment
    with pytest.raises(ValueError):
        compile_template("x://{a}/{a}")
    with pytest.raises(ValueError):
        compile_template("x://{a,b}")




def test_file_resources_cannot_escape_their_root(connect: Callable[..., Client]) -> None:
    client = connect()
    (text,) = client.read_resource("demo://source/session.py")["contents"]
    assert "class Session" in text["text"] and text["mimeType"] == "text/x-python"
    for escape in ("../../etc/passwd", "..%2F..%2Fetc%2Fpasswd", "%2e%2e/%2e%2e/etc/hostname", "/etc/passwd",
                   "../setup.cfg", "__pycache__", "nothing.py"):
        with pytest.raises(ResourceNotFound):  # RES-08: no path outside the package
            client.read_resource(f"demo://source/{escape}")
    completion = client.complete({"type": "ref/resource", "uri": "demo://source/{+path}"}, {"name": "path", "value": "ses"})
    assert completion["completion"]["values"] == ["session.py"]


@pytest.mark.parametrize("raised", [KeyError("no note about 'mars'"), IndexError("list index out of range"),
                                    LookupError("nothing under that name")])
def test_a_lookup_error_in_a_handler_is_a_resource_not_found(memory_client: Callable[..., Client],
                                                              raised: LookupError) -> None:
    """A template's handler that looks the URI up and finds nothing (a dict, a list) raises what
    Python raises there: the client hears -32002 naming the URI and what the handler said, not -32603."""
    server = Server("lookups")

    @server.resource_template("notes://{topic}")
    def note(topic: str) -> str:
        raise raised

    @server.resource("notes-index://all")
    def index() -> str:
        raise ValueError("the index is broken")  # any other failure is still the server's: -32603

    client = memory_client(server)
    with pytest.raises(ResourceNotFound) as info:
        client.read_resource("notes://mars")
    assert info.value.code == -32002 and "notes://mars" in info.value.message
    assert str(raised.args[0]) in info.value.message and "KeyError(" not in info.value.message
    with pytest.raises(InternalError):
        client.read_resource("notes-index://all")
