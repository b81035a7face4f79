"""ask_in_terminal: a person answers elicitations at a terminal (here, a fake stdin and stderr).

https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable
from typing import Any

import pytest

from mcp_ref import Client, RequestContext, Server
from mcp_ref.revisions import elicitation_terminal
from mcp_ref.revisions.elicitation_terminal import ask_in_terminal

SCHEMA = {"type": "object", "properties": {
    "name": {"type": "string", "title": "Your name", "description": "as on your passport", "minLength": 2},
    "age": {"type": "integer", "minimum": 0},
    "height": {"type": "number"},
    "vegan": {"type": "boolean", "default": False},
    "size": {"type": "string", "enum": ["S", "M", "L"]},
    "color": {"type": "string", "oneOf": [{"const": "#f00", "title": "Red"}, {"const": "#0f0", "title": "Green"}]},
    "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}, "maxItems": 2},
    "city": {"type": "string", "default": "Paris"},
    "note": {"type": "string"},
}, "required": ["name", "age", "height", "size", "color", "tags"]}


def ask(params: dict[str, Any], typed: str) -> tuple[dict[str, Any], str]:
    err = io.StringIO()
    answer = ask_in_terminal(params, server="notes", stdin=io.StringIO(typed), stderr=err)
    return answer, err.getvalue()


def test_each_field_is_asked_converted_and_checked() -> None:
    typed = "y\n" + "\n".join([
        "A", "Ada",          # too short, asked again
        "old", "36",         # not a whole number, asked again
        "1.70",
        "",                  # the default: False
        "2",                 # a choice by its number
        "Green",             # a titled choice by its title
        "a, 3",              # a multiple choice by value and number
        "",                  # the default: Paris
        "",                  # optional, left out
        "y"]) + "\n"
    answer, shown = ask({"message": "Sign up", "requestedSchema": SCHEMA}, typed)
    assert answer == {"action": "accept", "content": {"name": "Ada", "age": 36, "height": 1.7, "vegan": False,
                                                      "size": "M", "color": "#0f0", "tags": ["a", "c"], "city": "Paris"}}
    assert "The server 'notes' asks: Sign up" in shown
    assert "Your name: as on your passport" in shown and "should be non-empty" not in shown
    assert "'old' is not a whole number" in shown and "2) Green [#0f0]" in shown and "note (optional)" in shown


def test_answers_are_reviewed_and_may_be_edited() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    answer, shown = ask({"message": "m", "requestedSchema": schema}, "y\n1\ne\n2\ny\n")
    assert answer == {"action": "accept", "content": {"n": 2}}
    assert "n: 1" in shown and "[1]" in shown  # the first answer is shown, then offered as the default


@pytest.mark.parametrize("typed, action", [("n\n", "decline"), ("c\n", "cancel"), ("", "cancel"),
                                           ("y\nAda\n", "cancel"), ("y\nAda\n1\n1.5\n\n1\n1\n1\n\n\nn\n", "decline")])
def test_decline_and_cancel_at_any_point(typed: str, action: str) -> None:
    answer, _ = ask({"message": "m", "requestedSchema": SCHEMA}, typed)
    assert answer == {"action": action}


@pytest.mark.parametrize("url, warned", [("https://pay.example.com/x", False), ("https://xn--pypal-4ve.com/", True)])
def test_url_mode_shows_the_whole_url_and_its_host(url: str, warned: bool) -> None:
    answer, shown = ask({"mode": "url", "message": "Pay", "url": url, "elicitationId": "1"}, "maybe\ny\n")
    assert answer == {"action": "accept"}
    assert url in shown and "please answer one of" in shown and ("WARNING" in shown) is warned
    assert ask({"mode": "url", "message": "Pay", "url": url, "elicitationId": "1"}, "n\n")[0] == {"action": "decline"}


def test_as_the_handler_of_a_client(memory_client: Callable[..., Client]) -> None:
    server = Server("asker")

    @server.tool()
    def sign_up(ctx: RequestContext) -> str:
        answer = ctx.elicit("Who are you?", {"name": str, "vegan": bool})
        return f"{answer['action']}: {answer.get('content')}"

    err = io.StringIO()
    handler = functools.partial(ask_in_terminal, stdin=io.StringIO("y\nAda\nyes\ny\n"), stderr=err)
    client = memory_client(server, elicitation_handler=handler)
    assert client.call_tool("sign_up")["content"][0]["text"] == "accept: {'name': 'Ada', 'vegan': True}"
    assert "Who are you?" in err.getvalue()


# What a server might slip into text meant for the person, to rewrite the screen or hide a part of it,
# and how the terminal shows each instead (item 5: ``shown``).
HIDDEN = {"\x1b": "\\x1b", "\r": "\\r", "\x07": "\\x07", "\x00": "\\x00", "\u202e": "\\u202e", "\n": "\\n",
          "\u2028": "\\u2028"}


@pytest.mark.parametrize("char, escaped", HIDDEN.items(), ids=["ESC", "CR", "BEL", "NUL", "RLO", "LF", "LSEP"])
def test_a_url_and_a_message_reach_the_terminal_escaped(char: str, escaped: str) -> None:
    """Called directly, past the client's check of the URL (which refuses such a URL: test_elicitation.py)."""
    url = f"https://evil.example/{char}[2K    https://bank.example/login"
    answer, shown = ask({"mode": "url", "message": f"Log in{char}[31m now", "url": url, "elicitationId": "e1"}, "n\n")
    assert answer == {"action": "decline"}
    assert f"in{char}[31m" not in shown and f"example/{char}[2K" not in shown  # (the terminal's own lines end in LF)
    assert f"Log in{escaped}[31m now" in shown and f"https://evil.example/{escaped}[2K    https://bank.example/login" in shown


@pytest.mark.parametrize("char, escaped", HIDDEN.items(), ids=["ESC", "CR", "BEL", "NUL", "RLO", "LF", "LSEP"])
def test_the_names_titles_descriptions_and_choices_of_a_form_reach_it_escaped(char: str, escaped: str) -> None:
    schema = {"type": "object", "properties": {
        f"a{char}": {"type": "string", "title": f"Title{char}", "description": f"about{char}", "pattern": f"^(x|{char})$"},
        "b": {"type": "string", "enum": ["1", "2"], "enumNames": [f"One{char}", "Two"]},
        "c": {"type": "string", "oneOf": [{"const": f"r{char}", "title": f"Red{char}"}, {"const": "g", "title": "Green"}]},
    }, "required": [f"a{char}", "b", "c"]}
    typed = "y\n" + "\n".join(["nope", "x", "1", "Green", "y"]) + "\n"
    answer, shown = ask({"message": "m", "requestedSchema": schema}, typed)
    assert answer == {"action": "accept", "content": {f"a{char}": "x", "b": "1", "c": "g"}}
    assert not any(f"{word}{char}" in shown for word in ("Title", "about", "One", "Red", "a", "x|"))
    assert f"Title{escaped}" in shown and f"about{escaped}" in shown
    assert f"^(x|{escaped})$" in shown  # the schema's pattern, quoted when "nope" fails it
    assert f"1) One{escaped} [1]" in shown and f"1) Red{escaped} [r{escaped}]" in shown and f"a{escaped}: " in shown


def test_a_server_s_message_reaches_a_client_s_terminal_escaped(memory_client: Callable[..., Client]) -> None:
    """Through a real session: the server's message, title and description, as the person sees them."""
    server = Server("asker")

    @server.tool()
    def sign_up(ctx: RequestContext) -> str:
        schema = {"type": "object", "properties": {"name": {"type": "string", "title": "Name\x1b[8m",
                                                            "description": "\u202eevil"}}}
        return str(ctx.elicit("Who are you?\x1b[2J\r", schema)["action"])

    err = io.StringIO()
    handler = functools.partial(ask_in_terminal, stdin=io.StringIO("n\n"), stderr=err)
    client = memory_client(server, elicitation_handler=handler)
    assert client.call_tool("sign_up")["content"][0]["text"] == "decline"
    assert "Who are you?\\x1b[2J\\r" in err.getvalue() and "\x1b" not in err.getvalue() and "\r" not in err.getvalue()


def test_shown_leaves_what_a_terminal_shows_as_itself() -> None:
    text = "Zürich, 東京, naïve — 100 % (tab\tand all)"
    assert elicitation_terminal.shown(text) == text.replace("\t", "\\t")  # a tab is a control character too
    assert elicitation_terminal.shown("\udc80") == "\\udc80"  # a lone surrogate: messages.printable's escape
