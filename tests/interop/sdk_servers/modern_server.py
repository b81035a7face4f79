"""A third-party server for interop tests at revision 2026-07-28: the official SDK's MCPServer
(``mcp`` 2.x), which serves 2026-07-28 beside the handshake revisions, over stdio (default) or
Streamable HTTP (``python modern_server.py http``, its ``streamable_http_app`` under uvicorn on a
free port of 127.0.0.1; the URL is printed first).

Its tools ask the client the SDK's way for 2026-07-28: resolvers (``Resolve``) that return a
request marker (``Elicit``, ``Sample``, ``ListRoots``), which the SDK turns into
``input_required`` rounds (one resolver depending on another: a second round).

- ``add(a, b)``; ``count(steps)``: progress and an info log each step;
- ``sign_up``: one form elicitation (name, age);
- ``ask``: sampling and roots, independent, asked in one round;
- ``interview``: a name, then (depending on it) an age: two rounds;
- resource ``sdk://hello``, template ``sdk://items/{item}``, prompt ``greet(name)``, completions.
"""

from __future__ import annotations

import socket
import sys
import warnings
from typing import Annotated

import mcp_types as types
from mcp.server.mcpserver import Context, Elicit, ListRoots, MCPServer, Resolve, Sample
from pydantic import BaseModel

warnings.simplefilter("ignore")

mcp = MCPServer("sdk-modern")


class Person(BaseModel):
    name: str
    age: int


class Name(BaseModel):
    name: str


class Age(BaseModel):
    age: int


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool()
async def count(steps: int, ctx: Context) -> str:
    """Count to steps, reporting progress and logging each step."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps)
        await ctx.info(f"step {step}")
    return f"counted to {steps}"


async def ask_person() -> Elicit[Person]:
    return Elicit("Please sign up", Person)


@mcp.tool()
async def sign_up(person: Annotated[Person, Resolve(ask_person)]) -> str:
    """Ask the user for a name and an age."""
    return f"{person.name}, {person.age}"


async def ask_model(question: str) -> Sample:
    return Sample([types.SamplingMessage(role="user", content=types.TextContent(type="text", text=question))],
                  max_tokens=20, system_prompt="Be brief.")


async def ask_roots() -> ListRoots:
    return ListRoots()


@mcp.tool()
async def ask(question: str, sampled: Annotated[types.CreateMessageResult, Resolve(ask_model)],
              roots: Annotated[types.ListRootsResult, Resolve(ask_roots)]) -> str:
    """Ask the client's model a question, and for its roots."""
    text = sampled.content.text if isinstance(sampled.content, types.TextContent) else "?"
    return f"model={sampled.model} said={text} roots={[str(root.uri) for root in roots.roots]}"


async def ask_name() -> Elicit[Name]:
    return Elicit("Your name?", Name)


async def ask_age(name: Annotated[Name, Resolve(ask_name)]) -> Elicit[Age]:
    return Elicit(f"Your age, {name.name}?", Age)


@mcp.tool()
async def interview(name: Annotated[Name, Resolve(ask_name)], age: Annotated[Age, Resolve(ask_age)]) -> str:
    """A name, then an age: two rounds."""
    return f"{name.name} is {age.age}"


@mcp.resource("sdk://hello", mime_type="text/plain")
def hello() -> str:
    return "hello from the SDK"


@mcp.resource("sdk://items/{item}", mime_type="text/plain")
def item(item: str) -> str:
    return f"item {item}"


@mcp.prompt()
def greet(name: str) -> str:
    """Greet someone."""
    return f"Say hello to {name}."


@mcp.completion()
async def complete(ref: object, argument: types.CompletionArgument, context: object) -> types.Completion:
    values = [v for v in ("alpha", "beta", "alps") if v.startswith(argument.value)]
    return types.Completion(values=values, total=len(values), has_more=False)


def serve_http() -> None:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # connections queue up from now on, before uvicorn has started
    print(f"listening at http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    uvicorn.Server(uvicorn.Config(mcp.streamable_http_app(), log_level="warning")).run(sockets=[sock])


if __name__ == "__main__":
    if sys.argv[1:] == ["http"]:
        serve_http()
    else:
        mcp.run()
