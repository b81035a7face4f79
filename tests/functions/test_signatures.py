"""Registration mistakes are errors at decoration time, never silence on the wire.

Not a spec page of its own: registration feeds server/tools, server/resources and
server/prompts (https://modelcontextprotocol.io/specification/2024-11-05/server). Each mistake
raises TypeError or ValueError with a message that says what to do, and registers nothing.
"""

from __future__ import annotations

import dataclasses
import functools
import runpy
import socket
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

import pydantic
import pytest

from mcp_ref import Client, RequestContext, Server

from ..conftest import ROOT

# --- async functions: this library is synchronous ------------------------------------------------


async def async_tool(x: int) -> int:
    return x


async def async_generator(x: int) -> AsyncIterator[int]:
    yield x


class AsyncCallable:
    __name__ = "async_callable"

    async def __call__(self, x: int) -> int:
        return x


ASYNC_FUNCTIONS: list[tuple[str, Any]] = [
    ("async def", async_tool),
    ("async generator", async_generator),
    ("object with an async __call__", AsyncCallable()),
    ("functools.partial of an async def", functools.partial(async_tool)),
]

REGISTER: list[tuple[str, Callable[[Server, Any], Any]]] = [
    ("tool", lambda s, fn: s.tool(name="f")(fn)),
    ("prompt", lambda s, fn: s.prompt(name="f")(fn)),
    ("resource", lambda s, fn: s.resource("r://x", name="f")(fn)),
    ("resource template", lambda s, fn: s.resource_template("r://{x}", name="f")(fn)),
    ("completer", lambda s, fn: s.completion("ref/prompt", "p", "x")(fn)),
    ("add_completion", lambda s, fn: s.add_completion("ref/prompt", "p", "x", fn)),
    ("on_roots_changed", lambda s, fn: s.on_roots_changed(fn)),
]


@pytest.mark.parametrize("fn", [c[1] for c in ASYNC_FUNCTIONS], ids=[c[0] for c in ASYNC_FUNCTIONS])
@pytest.mark.parametrize("register", [c[1] for c in REGISTER], ids=[c[0] for c in REGISTER])
def test_async_functions_are_refused_at_registration(register: Callable[[Server, Any], Any], fn: Any) -> None:
    server = Server("s")
    with pytest.raises(TypeError) as info:
        register(server, fn)
    assert "synchronous" in str(info.value) and "plain `def`" in str(info.value)
    assert not server.tools and not server.prompts and not server.resources and not server.completions


# --- duplicates: replacing is on purpose only ----------------------------------------------------

DUPLICATES: list[tuple[str, Callable[..., Any], Callable[[Client], Any]]] = [
    ("tool", lambda s, v, **kw: s.tool(name="same", **kw)(lambda: v),
     lambda c: c.call_tool("same")["content"][0]["text"]),
    ("prompt", lambda s, v, **kw: s.prompt(name="same", **kw)(lambda: v),
     lambda c: c.get_prompt("same")["messages"][0]["content"]["text"]),
    ("resource", lambda s, v, **kw: s.resource("r://same", **kw)(lambda: v),
     lambda c: c.read_resource("r://same")["contents"][0]["text"]),
    ("resource template", lambda s, v, **kw: s.resource_template("r://{x}", **kw)(lambda x: v),
     lambda c: c.read_resource("r://a")["contents"][0]["text"]),
]


@pytest.mark.parametrize(("register", "read"), [c[1:] for c in DUPLICATES], ids=[c[0] for c in DUPLICATES])
def test_a_second_registration_under_a_taken_name_is_an_error_unless_replace(
        memory_client: Callable[..., Client], register: Callable[..., Any], read: Callable[[Client], Any]) -> None:
    server = Server("dup")
    register(server, "first")
    with pytest.raises(ValueError, match="replace=True"):
        register(server, "second")
    kinds: list[str] = []
    client = memory_client(server, on_list_changed=kinds.append)
    assert read(client) == "first"  # the first one still stands
    client.ping()
    register(server, "third", replace=True)
    client.ping()
    assert read(client) == "third" and len(kinds) == 1  # replaced on purpose, and announced


def test_the_registries_refuse_duplicates_too() -> None:
    server = Server("dup")
    server.tools.add(lambda: 1, "t")
    server.prompts.add(lambda: "p", "p")
    server.resources.add(lambda: "r", "r://x")
    for add in (lambda **kw: server.tools.add(lambda: 2, "t", **kw), lambda **kw: server.prompts.add(lambda: "q", "p", **kw),
                lambda **kw: server.resources.add(lambda: "s", "r://x", **kw)):
        with pytest.raises(ValueError, match="already registered"):
            add()
        add(replace=True)


# --- resources: a URI, and a function that fits it ------------------------------------------------


def test_a_bare_resource_decorator_is_an_error() -> None:
    server = Server("s")
    with pytest.raises(TypeError, match=r"@server.resource needs a URI: write @server.resource\('notes://today'\)"):
        @server.resource  # type: ignore[arg-type]
        def readme() -> str:
            return "hi"
    with pytest.raises(TypeError, match="@server.resource_template needs a URI"):
        @server.resource_template  # type: ignore[arg-type]
        def note(topic: str) -> str:
            return topic
    assert not server.resources


def note_fn(topic: str) -> str:
    return topic


def two_fn(topic: str, extra: str) -> str:
    return topic + extra


def default_fn(topic: str, limit: int = 5, ctx: RequestContext | None = None) -> str:
    return topic


def kwargs_fn(**variables: str) -> str:
    return str(variables)


def no_parameters() -> str:
    return "x"


def list_fn(topic: list[int]) -> str:
    return str(topic)


# (case, decorator name, URI, function, error type or None when it must work, words in the message)
RESOURCE_REGISTRATIONS: list[tuple[str, str, str, Callable[..., Any], type[Exception] | None, str]] = [
    ("a variable the function does not take", "resource_template", "notes://{subject}", note_fn, ValueError,
     "no parameter 'subject'"),
    ("a parameter the template does not provide", "resource_template", "notes://{topic}", two_fn, ValueError,
     "requires 'extra'"),
    ("a parameter a fixed URI cannot provide", "resource", "notes://today", note_fn, ValueError,
     "use @server.resource_template"),
    ("a fixed URI with variables", "resource", "notes://{topic}", note_fn, ValueError, "@server.resource_template"),
    ("a template without variables", "resource_template", "notes://all", no_parameters, ValueError,
     "@server.resource"),
    ("a URI without a scheme", "resource", "readme", no_parameters, ValueError, "absolute URI"),
    ("a URI with a space", "resource", "notes://a b", no_parameters, ValueError, "absolute URI"),
    ("a variable typed list", "resource_template", "notes://{topic}", list_fn, TypeError, "arrives as a string"),
    ("an unsupported template", "resource_template", "notes://{a,b}", kwargs_fn, ValueError, "unsupported"),
    ("defaults and ctx are fine", "resource_template", "notes://{topic}", default_fn, None, ""),
    ("**kwargs take any variable", "resource_template", "notes://{a}/{b}", kwargs_fn, None, ""),
    ("a fixed URI and no parameters", "resource", "notes://today", no_parameters, None, ""),
]


@pytest.mark.parametrize(("decorator", "uri", "fn", "error", "words"), [c[1:] for c in RESOURCE_REGISTRATIONS],
                         ids=[c[0] for c in RESOURCE_REGISTRATIONS])
def test_resource_uris_must_fit_their_functions(decorator: str, uri: str, fn: Callable[..., Any],
                                               error: type[Exception] | None, words: str) -> None:
    server = Server("s")
    if error is None:
        getattr(server, decorator)(uri)(fn)
        assert server.resources.has(uri)
        return
    with pytest.raises(error) as info:
        getattr(server, decorator)(uri)(fn)
    assert words in str(info.value) and not server.resources


# --- other signatures mistakes --------------------------------------------------------------------


def positional_only(a: int, /) -> int:
    return a


def unsupported_hint(sock: socket.socket) -> str:
    return "x"


def int_keys(table: dict[int, str]) -> str:
    return "x"


@dataclasses.dataclass
class Holder:
    sock: socket.socket


def nested_unsupported(holder: Holder) -> str:
    return "x"


def unresolvable(thing: NotDefinedAnywhere) -> str:  # type: ignore[name-defined]  # noqa: F821
    return "x"


def prompt_list(items: list[str]) -> str:
    return "x"


def pydantic_cannot(sock: Annotated[socket.socket, pydantic.Field(description="a socket")]) -> str:
    return "x"


def dict_as_hint(x):  # type: ignore[no-untyped-def]
    return "x"


dict_as_hint.__annotations__ = {"x": {"type": "string"}}  # a JSON Schema where a hint belongs


SIGNATURE_MISTAKES: list[tuple[str, Callable[[Server], Any], str]] = [
    ("a positional-only parameter", lambda s: s.tool()(positional_only), "positional-only"),
    ("an unsupported hint", lambda s: s.tool()(unsupported_hint), "parameter 'sock'"),
    ("dict keys that are not str", lambda s: s.tool()(int_keys), "dict[str, ...]"),
    ("an unsupported hint in a dataclass", lambda s: s.tool()(nested_unsupported), "socket"),
    ("a hint that cannot be resolved", lambda s: s.tool()(unresolvable), "NotDefinedAnywhere"),
    ("a type pydantic cannot handle", lambda s: s.tool()(pydantic_cannot), "pydantic cannot handle"),
    ("a dict as a hint", lambda s: s.tool()(dict_as_hint), "cannot describe the type {'type': 'string'}"),
    ("a prompt argument typed list", lambda s: s.prompt()(prompt_list), "arrives as a string"),
    ("prompt arguments the function does not take", lambda s: s.prompt(arguments=[{"name": "b"}])(note_fn),
     "no parameter for argument(s) b"),
    ("prompt arguments that miss a required parameter", lambda s: s.prompt(arguments=[])(note_fn),
     "requires topic"),
    ("malformed prompt arguments", lambda s: s.prompt(arguments=[{"required": True}])(kwargs_fn), "str 'name'"),
    ("a tool without a name", lambda s: s.tools.add(functools.partial(note_fn)), "name="),
    ("an input_schema that is not an object", lambda s: s.tool(input_schema={"type": "string"})(note_fn),
     '"type": "object"'),
]


@pytest.mark.parametrize(("register", "words"), [c[1:] for c in SIGNATURE_MISTAKES], ids=[c[0] for c in SIGNATURE_MISTAKES])
def test_signature_mistakes_are_errors_at_registration(register: Callable[[Server], Any], words: str) -> None:
    server = Server("s")
    with pytest.raises((TypeError, ValueError)) as info:
        register(server)
    assert words in str(info.value)
    assert not server.tools and not server.prompts


def test_the_bundled_servers_and_examples_register_cleanly() -> None:
    from mcp_ref import demo_server

    assert demo_server.server.tools and demo_server.server.resources and demo_server.server.prompts
    for path in (ROOT / "examples" / "my_server.py", ROOT / "tests" / "peers" / "servers.py"):
        namespace = runpy.run_path(str(path), run_name="registration_check")
        assert isinstance(namespace["server"], Server)
