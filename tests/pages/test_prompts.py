"""server/prompts: listing with arguments, getting messages, content kinds, errors.

https://modelcontextprotocol.io/specification/2024-11-05/server/prompts
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import pytest

from mcp_ref import Client, EmbeddedResource, InternalError, InvalidParams, Server, content


def test_list_prompts_with_derived_arguments(connect: Callable[..., Client]) -> None:
    client = connect()
    prompts = {p["name"]: p for p in client.list_prompts()}
    assert prompts["greeting"] == {"name": "greeting", "description": "A plain prompt with no arguments."}
    assert prompts["review_code"]["arguments"] == [{"name": "code", "required": True},
                                                   {"name": "language", "required": False}]


def test_an_embedded_resource_needs_an_absolute_uri() -> None:
    """PRM-04: a resource embedded in a message gets a valid URI, or the author hears of it at once."""
    for bad in ("readme", "a b://x", "", "://x"):
        with pytest.raises(ValueError, match="absolute URI"):
            EmbeddedResource(bad, "text")
    assert EmbeddedResource("docs://readme", "text").to_content()["resource"]["uri"] == "docs://readme"


def test_get_prompts(connect: Callable[..., Client]) -> None:
    client = connect()
    plain = client.get_prompt("greeting")
    assert plain["messages"] == [{"role": "user", "content": {"type": "text", "text": "Say hello to the person learning MCP."}}]
    assert plain["description"] == "A plain prompt with no arguments."
    review = client.get_prompt("review_code", {"code": "x = 1", "language": "go"})
    assert [m["role"] for m in review["messages"]] == ["user", "assistant"]
    assert "go code" in review["messages"][0]["content"]["text"] and "x = 1" in review["messages"][0]["content"]["text"]
    embedded = client.get_prompt("explain_readme")["messages"][0]["content"]
    assert embedded["type"] == "resource" and embedded["resource"]["uri"] == "demo://readme"  # PRM-04..06


def test_prompt_errors_are_32602_naming_the_problem(connect: Callable[..., Client], tap: Any) -> None:
    client = connect()
    with pytest.raises(InvalidParams, match="code"):
        client.get_prompt("review_code", {})  # PRM-08
    with pytest.raises(InvalidParams, match="no_such_prompt"):
        client.get_prompt("no_such_prompt")  # PRM-07
    with pytest.raises(InvalidParams, match="Unknown argument 'colour'"):
        client.get_prompt("review_code", {"code": "x", "colour": "red"})  # PRM-10
    with tap.deliberately_invalid(), pytest.raises(InvalidParams, match="must be a string"):
        client.request("prompts/get", {"name": "review_code", "arguments": {"code": 42}})
    client.ping()


def test_image_content_and_failures(memory_client: Callable[..., Client]) -> None:
    server = Server("p")

    @server.prompt(description="Look at this.")
    def look() -> list[Any]:
        return [{"role": "user", "content": content.image(b"\x89PNG", "image/png")}, "What is it?"]

    @server.prompt()
    def broken(topic: str) -> str:
        raise RuntimeError("database password is hunter2")

    server.prompt(name="explicit", arguments=[{"name": "x", "description": "An x.", "required": True}])(
        lambda **kw: f"x={kw['x']}")
    client = memory_client(server)
    image, question = client.get_prompt("look")["messages"]
    assert image["content"]["mimeType"] == "image/png" and base64.b64decode(image["content"]["data"]) == b"\x89PNG"
    assert question == {"role": "user", "content": {"type": "text", "text": "What is it?"}}
    with pytest.raises(InternalError) as info:
        client.get_prompt("broken", {"topic": "t"})  # PRM-09
    assert "hunter2" not in info.value.message
    assert {p["name"]: p for p in client.list_prompts()}["explicit"]["arguments"][0]["description"] == "An x."
    assert client.get_prompt("explicit", {"x": "1"})["messages"][0]["content"]["text"] == "x=1"


def test_prompt_list_changed(memory_client: Callable[..., Client]) -> None:
    server = Server("p")
    server.prompt(name="one")(lambda: "1")
    kinds: list[str] = []
    client = memory_client(server, on_list_changed=kinds.append)
    client.ping()
    server.prompt(name="two")(lambda: "2")
    client.ping()
    assert kinds == ["prompts"]  # PRM-02
