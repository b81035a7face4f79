"""server/utilities/completion: prompt arguments and template variables, the 100-value cap.

https://modelcontextprotocol.io/specification/2024-11-05/server/utilities/completion
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mcp_ref import Client, InvalidParams, MethodNotFound, RequestContext, Server

PROMPT_REF = {"type": "ref/prompt", "name": "review_code"}


def test_prompt_argument_and_template_variable(connect: Callable[..., Client]) -> None:
    client = connect()
    languages = client.complete(PROMPT_REF, {"name": "language", "value": "RU"})  # prefix, any case
    assert languages == {"completion": {"values": ["rust", "ruby"], "total": 2, "hasMore": False}}
    topics = client.complete({"type": "ref/resource", "uri": "demo://notes/{topic}"}, {"name": "topic", "value": ""})
    assert topics["completion"]["values"] == ["jsonrpc", "mcp", "stdio"]
    nothing = client.complete(PROMPT_REF, {"name": "code", "value": "x"})  # no completer: empty, not an error
    assert nothing["completion"]["values"] == []


def test_bad_references_are_32602(connect: Callable[..., Client], tap: Any) -> None:
    client = connect()
    with pytest.raises(InvalidParams, match="no prompt 'nope'"):
        client.complete({"type": "ref/prompt", "name": "nope"}, {"name": "a", "value": ""})
    with pytest.raises(InvalidParams):
        client.complete({"type": "ref/resource", "uri": "demo://unknown/{x}"}, {"name": "x", "value": ""})
    with tap.deliberately_invalid():
        with pytest.raises(InvalidParams):
            client.complete({"type": "ref/tool", "name": "add"}, {"name": "a", "value": ""})
        with pytest.raises(InvalidParams):
            client.complete(PROMPT_REF, {"name": "language"})
    client.ping()


def test_at_most_100_values_with_total_and_has_more(memory_client: Callable[..., Client]) -> None:
    server = Server("many")
    server.prompt(name="pick")(lambda n: n)

    @server.completion("ref/prompt", "pick", "n")
    def numbers(value: str, ctx: RequestContext) -> list[str]:
        assert ctx.method == "completion/complete"
        return [f"{value}{i}" for i in range(250)]

    server.add_completion("ref/prompt", "pick", "exact", lambda value: {"values": ["a"], "total": 7, "hasMore": True})
    client = memory_client(server)
    completion = client.complete({"type": "ref/prompt", "name": "pick"}, {"name": "n", "value": "7"})["completion"]
    assert len(completion["values"]) == 100 and completion["values"][0] == "70"  # CMP-12
    assert completion["total"] == 250 and completion["hasMore"] is True
    exact = client.complete({"type": "ref/prompt", "name": "pick"}, {"name": "exact", "value": ""})["completion"]
    assert exact == {"values": ["a"], "total": 7, "hasMore": True}


def test_server_without_completions_answers_32601(memory_client: Callable[..., Client]) -> None:
    server = Server("none")
    server.prompt(name="p")(lambda: "p")
    client = memory_client(server)
    with pytest.raises(MethodNotFound):
        client.complete({"type": "ref/prompt", "name": "p"}, {"name": "a", "value": ""})


@pytest.mark.parametrize("claimed, expected", [
    # (what the completer returned) -> (what goes on the wire): total never below what we had,
    # hasMore true whenever something was left out.
    ({"values": ["a"] * 150, "total": 10, "hasMore": False}, (100, 150, True)),
    ({"values": ["a"] * 150}, (100, 150, True)),
    ({"values": ["a"] * 100}, (100, 100, False)),
    ({"values": ["a"] * 5, "total": 3}, (5, 5, False)),
    ({"values": ["a"] * 5, "total": 9}, (5, 9, True)),
    ({"values": ["a"] * 5, "total": 5, "hasMore": True}, (5, 5, True)),
    ({"values": []}, (0, 0, False)),
])
def test_total_and_has_more_stay_consistent_with_the_values_sent(
        memory_client: Callable[..., Client], claimed: dict[str, Any], expected: tuple[int, int, bool]) -> None:
    server = Server("claims")
    server.prompt(name="p")(lambda a: a)
    server.add_completion("ref/prompt", "p", "a", lambda value: claimed)
    completion = memory_client(server).complete({"type": "ref/prompt", "name": "p"}, {"name": "a", "value": ""})
    values, total, has_more = expected
    assert (len(completion["completion"]["values"]), completion["completion"]["total"],
            completion["completion"]["hasMore"]) == (values, total, has_more)
