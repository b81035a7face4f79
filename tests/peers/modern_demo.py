"""The demo server (every revision, 2026-07-28 beside the handshake) with what a server of
2026-07-28 asks of its client through ``input_required`` rounds, for the official SDK's client
(tests/interop/test_sdk_client_2026.py). Each handler asks as it always has (``ctx.elicit``,
``ctx.create_message``, ``ctx.list_roots``); in 2026-07-28 it runs again each round.

- tool ``sign_up``: one form elicitation (name, age);
- tool ``interview``: two elicitations, one after the other (two rounds);
- tool ``everything``: sampling, then roots, then an elicitation (three rounds);
- prompt ``welcome``: elicits the user's name;
- resource ``demo://workspace``: the client's roots;
- tool ``wait_for_cancel``: waits until its request is cancelled (30 s at most), and notes that it
  was; tool ``was_cancelled`` says whether one was.
Every answer comes back as the JSON of what the handler got.
"""

from __future__ import annotations

import json
import threading

from mcp_ref import RequestContext
from mcp_ref.demo_server import server

NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
SIGN_UP = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
           "required": ["name", "age"]}


@server.tool()
def sign_up(ctx: RequestContext) -> str:
    """Ask the user for a name and an age."""
    return json.dumps(ctx.elicit("Please sign up", SIGN_UP))


@server.tool()
def interview(ctx: RequestContext) -> str:
    """Ask two questions, one after the other."""
    first = ctx.elicit("First question: your name?", NAME)
    second = ctx.elicit(f"Second question, {first['content']['name']}: your age?",
                        {"type": "object", "properties": {"age": {"type": "integer"}}})
    return json.dumps([first, second])


@server.tool()
def everything(ctx: RequestContext) -> str:
    """Ask the model, then the roots, then the user."""
    sampled = ctx.create_message(["Say hi"], max_tokens=10)
    roots = ctx.list_roots()
    elicited = ctx.elicit("Go on?", NAME)
    return json.dumps({"model": sampled["model"], "roots": [root["uri"] for root in roots], "elicited": elicited})


@server.prompt()
def welcome(ctx: RequestContext) -> str:
    """Welcome the user by the name they give."""
    answer = ctx.elicit("Your name?", NAME)
    return f"Welcome, {answer['content']['name']}!"


@server.resource("demo://workspace", name="workspace", mime_type="application/json")
def workspace(ctx: RequestContext) -> str:
    """The client's roots."""
    return json.dumps([root["uri"] for root in ctx.list_roots()])


CANCELLED = threading.Event()


@server.tool()
def wait_for_cancel(ctx: RequestContext) -> str:
    """Wait until this request is cancelled."""
    if ctx.cancelled.wait(30):
        CANCELLED.set()
        return "cancelled"
    return "never cancelled"


@server.tool()
def was_cancelled() -> bool:
    """Whether a wait_for_cancel was cancelled."""
    return CANCELLED.is_set()
