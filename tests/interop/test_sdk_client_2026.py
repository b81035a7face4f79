"""Interop at revision 2026-07-28: the official Python SDK's client (``mcp`` 2.x) against our server,
over stdio and over Streamable HTTP (``mcp-ref serve --transport http``), with no handshake.

https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
https://modelcontextprotocol.io/specification/2026-07-28/server/discover
https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions
https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging
https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation
https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation

Our server (tests/peers/modern_demo.py: the demo server, which serves 2026-07-28 beside the
handshake, with tools, a prompt and a resource that ask the client) is driven by the SDK in its
default mode ("auto": it probes ``server/discover``) and pinned to "2026-07-28" (no probe). It
proves that the SDK reaches 2026-07-28 and never sends ``initialize``; lists and calls tools, reads
resources, gets prompts, completes; hears progress and, with its per-request log level
(``Client(log_level=...)``, overridable in a request's ``_meta``), only the log messages at or above
that level; gets -32602 for an unknown tool and an unknown resource; answers our handlers'
``ctx.elicit``, ``ctx.create_message`` and ``ctx.list_roots`` with its callbacks through
``input_required`` rounds (one, two and three rounds; each round a new request carrying our
``requestState`` back unchanged), a URL elicitation too; gets -32042 from a tool that needs a URL
elicitation first, and -32021 when it brought no elicitation capability; hears, through
``subscriptions/listen``, that the tool list changed and that a resource was updated; and
cancels a call (stdio: notifications/cancelled; HTTP: closing the stream), which our handler sees
and which gets no answer. Our server writes every message to a trace, checked against the
2026-07-28 schema at the end. Last, a table of eras: the SDK in each mode against our server pinned
to the handshake revisions, or to 2026-07-28 alone, reaches the revision they share, or gets an
error that says why (the dual-era server: above, and in test_sdk_client.py for mode="legacy").
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..conftest import ROOT, SseServerProcess
from ..support.schema_tap import SchemaTap, schema_available

mcp = pytest.importorskip("mcp", reason="the official SDK (pip install 'mcp>=2') is the interop peer")
anyio = pytest.importorskip("anyio")
pytestmark = pytest.mark.filterwarnings("ignore:.*(deprecated|removed) as of 2026-07-28")

MODERN_DEMO = str(ROOT / "tests" / "peers" / "modern_demo.py") + ":server"
ELICITING_SERVER = str(ROOT / "tests" / "peers" / "eliciting_server.py") + ":server"
HANDSHAKE_ONLY = str(ROOT / "tests" / "peers" / "handshake_demo.py") + ":server"
MODERN_ONLY = str(ROOT / "tests" / "peers" / "modern_only_demo.py") + ":server"
MODERN = "2026-07-28"
LIMIT = 60  # seconds for one whole conversation: a bound, never a measure


class Served:
    """Our modern demo server over one transport, tracing to a file; ``target`` is what the SDK's
    Client takes (stdio parameters, or the Streamable HTTP endpoint's URL)."""

    def __init__(self, transport: str, trace: Path, server: str = MODERN_DEMO,
                 env: dict[str, str] | None = None) -> None:
        from mcp import StdioServerParameters

        self.trace = trace
        self.http: SseServerProcess | None = None
        if transport == "http":
            self.http = SseServerProcess(server, "--trace-file", str(trace), "--transport", "http")
            self.target: Any = self.http.url
        else:
            self.target = StdioServerParameters(command=sys.executable, cwd=str(ROOT), env=env,
                                                args=["-m", "mcp_ref", "serve", server, "--trace-file", str(trace)])
        self.without_env = StdioServerParameters(command=sys.executable, cwd=str(ROOT),
                                                 args=["-m", "mcp_ref", "serve", server, "--trace-file", str(trace)])

    def messages(self, direction: str) -> list[dict[str, Any]]:
        """What our server received ("<-") or sent ("->"), in order."""
        lines = [line.split(b" ", 1) for line in self.trace.read_bytes().splitlines()]
        return [json.loads(data) for where, data in lines if where == direction.encode()]

    def received(self, method: str) -> list[dict[str, Any]]:
        return [m for m in self.messages("<-") if m.get("method") == method]

    def answer_to(self, request: dict[str, Any]) -> dict[str, Any]:
        return next(m for m in self.messages("->") if "method" not in m and m.get("id") == request["id"])

    def check_schema(self) -> None:
        tap = SchemaTap("server")
        tap.feed_file(str(self.trace))
        assert tap.messages, "our server traced no message"
        if schema_available():
            assert tap.revision == MODERN
        tap.assert_clean()


@pytest.fixture(params=["stdio", "http"])
def transport(request: Any) -> str:
    return str(request.param)


def serve(transport: str, tmp_path: Path, server: str, env: dict[str, str] | None = None) -> Iterator[Served]:
    served = Served(transport, tmp_path / "server-trace.txt", server, env)
    try:
        yield served
    finally:
        if served.http is not None:
            served.http.close()
    served.check_schema()


@pytest.fixture
def served(transport: str, tmp_path: Path) -> Iterator[Served]:
    yield from serve(transport, tmp_path, MODERN_DEMO)


@pytest.fixture
def keyed(transport: str, tmp_path: Path) -> Iterator[Served]:
    """The modern demo; over stdio each connection is a process of its own, all given one
    ``MCP_REF_REQUEST_STATE_KEY`` (over HTTP, one process serves every connection)."""
    yield from serve(transport, tmp_path, MODERN_DEMO, {**os.environ, "MCP_REF_REQUEST_STATE_KEY": "k" * 32})


@pytest.fixture
def eliciting(transport: str, tmp_path: Path) -> Iterator[Served]:
    yield from serve(transport, tmp_path, ELICITING_SERVER)


def run(main: Callable[[], Any]) -> Any:
    async def bounded() -> Any:
        with anyio.fail_after(LIMIT):
            return await main()

    return anyio.run(bounded)


@pytest.mark.parametrize("mode", ["auto", MODERN])  # the SDK's default (probes), and pinned (no probe)
def test_sdk_client_reaches_2026_07_28_and_uses_every_server_feature(served: Served, mode: str) -> None:
    from mcp import Client, types
    from mcp.shared.exceptions import MCPError

    logs: list[Any] = []
    progress: list[tuple[float, float | None]] = []

    async def on_log(params: Any) -> None:
        logs.append((params.level, params.logger))

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total))

    async def until(what: Callable[[], bool]) -> None:
        """Notifications may be handed to the callback just after the answer: wait for them, bounded."""
        with anyio.fail_after(10):
            while not what():
                await anyio.sleep(0.01)

    async def code_of(call: Any) -> int | None:
        try:
            await call
        except MCPError as exc:
            return exc.error.code
        return None

    async def main() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with Client(served.target, mode=mode, log_level="info", logging_callback=on_log,
                          read_timeout_seconds=20) as client:
            seen["version"] = client.protocol_version
            seen["server"] = client.server_info.name if client.server_info is not None else None
            seen["tools"] = sorted(t.name for t in (await client.list_tools()).tools)
            added = await client.call_tool("add", {"a": 20, "b": 22})
            seen["add"] = (added.is_error, added.content[0].text)
            seen["fail"] = (await client.call_tool("fail")).is_error
            slow = await client.call_tool("slow_count", {"steps": 3, "delay": 0.01}, progress_callback=on_progress)
            seen["slow"] = slow.content[0].text
            await until(lambda: len(progress) == 3)
            seen["unknown_tool"] = await code_of(client.call_tool("no_such_tool", {}))
            # logging: the level of the Client (info), then one request's own (warning)
            seen["logged"] = (await client.call_tool("log_something")).content[0].text
            await until(lambda: len(logs) == 2)
            meta = {"io.modelcontextprotocol/logLevel": "warning"}
            seen["logged_warning"] = (await client.call_tool("log_something", meta=meta)).content[0].text
            await until(lambda: len(logs) == 3)
            seen["resources"] = sorted(str(r.uri) for r in (await client.list_resources()).resources)
            seen["templates"] = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
            seen["readme"] = (await client.read_resource("demo://readme")).contents[0].text
            seen["note"] = (await client.read_resource("demo://notes/mcp")).contents[0].text
            seen["missing"] = await code_of(client.read_resource("demo://missing"))
            seen["prompts"] = sorted(p.name for p in (await client.list_prompts()).prompts)
            prompt = await client.get_prompt("review_code", {"code": "x = 1"})
            seen["prompt"] = [m.role for m in prompt.messages]
            completion = await client.complete(types.PromptReference(type="ref/prompt", name="review_code"),
                                               {"name": "language", "value": "py"})
            seen["completion"] = completion.completion.values
        return seen

    seen = run(main)
    assert seen["version"] == MODERN
    discovers, initializes = served.received("server/discover"), served.received("initialize")
    assert not initializes, "a client of 2026-07-28 sent initialize"
    if mode == "auto":  # it asked what we are, and learnt our name from the answer
        assert len(discovers) == 1 and seen["server"] == "mcp-ref-demo"
        assert served.answer_to(discovers[0])["result"]["supportedVersions"] == [MODERN]
    else:
        assert not discovers
    requests = [m for m in served.messages("<-") if "method" in m and "id" in m]
    assert all(m["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == MODERN for m in requests)
    assert {"add", "fail", "slow_count", "sign_up", "interview", "everything"} <= set(seen["tools"])
    assert seen["add"] == (False, "42")
    assert seen["fail"] is True, "a failing tool comes back as isError"
    assert seen["slow"] == "counted to 3" and progress == [(1, 3), (2, 3), (3, 3)], "progress notifications"
    assert seen["unknown_tool"] == -32602
    assert seen["logged"] == "sent at: info, warning" and seen["logged_warning"] == "sent at: warning"
    assert logs == [("info", "demo"), ("warning", "demo"), ("warning", "demo")], "only what each level lets through"
    assert {"demo://counter", "demo://readme", "demo://workspace"} <= set(seen["resources"])
    assert seen["templates"] == ["demo://notes/{topic}", "demo://source/{+path}"]
    assert "demo server" in seen["readme"] and "MCP" in seen["note"]
    assert seen["missing"] == -32602, "an unknown resource is -32602 in 2026-07-28 (RREAD-03)"
    assert {"explain_readme", "greeting", "review_code", "welcome"} <= set(seen["prompts"])
    assert seen["prompt"] == ["user", "assistant"]
    assert seen["completion"] == ["python"]


def test_sdk_client_answers_our_handlers_questions_in_input_required_rounds(served: Served) -> None:
    """ctx.elicit / ctx.create_message / ctx.list_roots in a tool, a prompt and a resource, answered
    by the SDK's callbacks: one round, two rounds of the same kind, three of different kinds."""
    from mcp import Client, types

    asked: list[str] = []
    answers = {"Please sign up": {"name": "Ada", "age": 36}, "First question: your name?": {"name": "Ada"},
               "Second question, Ada: your age?": {"age": 36}, "Go on?": {"name": "Bob"}, "Your name?": {"name": "Cy"}}

    async def elicitation(context: Any, params: Any) -> Any:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content=answers[params.message])

    async def sampling(context: Any, params: Any) -> Any:
        asked.append("sampling: " + params.messages[0].content.text)
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text="hi"),
                                         model="sdk-model", stop_reason="endTurn")

    async def roots(context: Any) -> Any:
        asked.append("roots")
        return types.ListRootsResult(roots=[types.Root(uri="file:///sdk/root", name="sdk")])

    async def main() -> dict[str, Any]:
        async with Client(served.target, elicitation_callback=elicitation, sampling_callback=sampling,
                          list_roots_callback=roots, read_timeout_seconds=20) as client:
            assert client.protocol_version == MODERN
            return {
                "sign_up": json.loads((await client.call_tool("sign_up")).content[0].text),
                "interview": json.loads((await client.call_tool("interview")).content[0].text),
                "everything": json.loads((await client.call_tool("everything")).content[0].text),
                "welcome": (await client.get_prompt("welcome")).messages[0].content.text,
                "workspace": json.loads((await client.read_resource("demo://workspace")).contents[0].text),
                "model": (await client.call_tool("ask_model", {"question": "ping?"})).content[0].text,
            }

    seen = run(main)
    assert seen["sign_up"] == {"action": "accept", "content": {"name": "Ada", "age": 36}}
    assert seen["interview"] == [{"action": "accept", "content": {"name": "Ada"}},
                                 {"action": "accept", "content": {"age": 36}}]
    assert seen["everything"] == {"model": "sdk-model", "roots": ["file:///sdk/root"],
                                  "elicited": {"action": "accept", "content": {"name": "Bob"}}}
    assert seen["welcome"] == "Welcome, Cy!"
    assert seen["workspace"] == ["file:///sdk/root"]
    assert seen["model"] == "sdk-model says: hi"
    assert asked == ["Please sign up", "First question: your name?", "Second question, Ada: your age?",
                     "sampling: Say hi", "roots", "Go on?", "Your name?", "roots", "sampling: ping?"], \
        "each question asked once, in the handler's order"
    # On the wire: each round a new request, bringing back the state and the answers we asked for.
    for tool, rounds in (("sign_up", 2), ("interview", 3), ("everything", 4), ("add", 0)):
        calls = [m for m in served.received("tools/call") if m["params"]["name"] == tool]
        assert len(calls) == rounds, f"{tool}: {len(calls)} requests"
        assert len({m["id"] for m in calls}) == rounds, f"{tool}: an id used twice"
        for before, after in zip(calls, calls[1:], strict=False):
            asking = served.answer_to(before)["result"]
            assert asking["resultType"] == "input_required"
            assert after["params"]["requestState"] == asking["requestState"], f"{tool}: the state came back changed"
            assert set(after["params"]["inputResponses"]) == set(asking["inputRequests"])
        if calls:
            assert served.answer_to(calls[-1])["result"]["resultType"] == "complete"


def test_sdk_client_listens_for_list_changes_and_resource_updates(served: Served) -> None:
    """subscriptions/listen: acknowledged with the filter we honour; our server's tool list
    changing (a tool added) and demo://counter updated reach the SDK's subscription."""
    from mcp import Client
    from mcp.shared.subscriptions import ResourceUpdated, ToolsListChanged

    async def main() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with Client(served.target, read_timeout_seconds=20) as client:
            async with client.listen(tools_list_changed=True, resource_subscriptions=["demo://counter"]) as sub:
                seen["honored"] = (sub.honored.tools_list_changed, sub.honored.resource_subscriptions)
                seen["added"] = (await client.call_tool("toggle_extra_tool")).content[0].text
                with anyio.fail_after(10):
                    seen["first"] = await sub.__anext__()
                await client.call_tool("increment")
                with anyio.fail_after(10):
                    seen["second"] = await sub.__anext__()
                seen["tools"] = [t.name for t in (await client.list_tools()).tools]
        return seen

    seen = run(main)
    assert seen["honored"] == (True, ["demo://counter"])
    assert seen["added"] == "added the tool extra" and "extra" in seen["tools"]
    assert seen["first"] == ToolsListChanged()
    assert seen["second"] == ResourceUpdated(uri="demo://counter")
    listens = served.received("subscriptions/listen")
    assert len(listens) == 1 and not served.received("resources/subscribe")


def test_sdk_client_elicitation_modes_and_refusals(eliciting: Served) -> None:
    """Our ctx.elicit (form, here declined) and ctx.elicit_url (accepted, with no elicitationId:
    2026-07-28 dropped it) as input_required rounds; and a client that brought no elicitation
    capability (no callback) is told -32021 with the capability it lacks, not asked. (A tool that
    raises URLElicitationRequired asks the URL in its result in this revision, never -32042:
    tests/revisions/test_stateless.py::test_errc_05_a_url_elicitation_is_asked_in_the_result_never_32042.)"""
    from mcp import Client, types
    from mcp.shared.exceptions import MCPError

    asked: list[Any] = []

    async def elicitation(context: Any, params: Any) -> Any:
        asked.append(params)
        return types.ElicitResult(action="accept" if params.mode == "url" else "decline")

    async def error_of(client: Any, tool: str) -> Any:
        try:
            await client.call_tool(tool)
        except MCPError as exc:
            return exc.error
        return None

    async def main() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with Client(eliciting.target, elicitation_callback=elicitation, read_timeout_seconds=20) as client:
            seen["sign_up"] = json.loads((await client.call_tool("sign_up")).content[0].text)
            seen["pay"] = json.loads((await client.call_tool("pay")).content[0].text)
        async with Client(eliciting.target, read_timeout_seconds=20) as client:  # no callback: no capability
            seen["uncapable"] = await error_of(client, "sign_up")
        return seen

    seen = run(main)
    assert seen["sign_up"] == {"action": "decline"} and seen["pay"] == {"action": "accept"}
    assert [params.mode for params in asked] == ["form", "url"]
    assert asked[1].url == "https://pay.example.com/order/7" and asked[1].elicitation_id is None
    assert seen["uncapable"].code == -32021 and seen["uncapable"].data == {"requiredCapabilities": {"elicitation": {}}}


def test_sdk_client_cancels_a_request(served: Served) -> None:
    """The SDK gives up on a call (over stdio it sends notifications/cancelled, over HTTP it closes
    the request's stream): our handler sees the cancellation, no answer is sent for it, and the
    server goes on serving."""
    from mcp import Client

    async def main() -> tuple[bool, str]:
        async with Client(served.target, read_timeout_seconds=20) as client:
            with anyio.move_on_after(0.5):
                await client.call_tool("wait_for_cancel")
            with anyio.fail_after(10):
                while (await client.call_tool("was_cancelled")).content[0].text != "true":
                    await anyio.sleep(0.05)
            return True, (await client.call_tool("add", {"a": 1, "b": 2})).content[0].text

    cancelled, added = run(main)
    assert cancelled and added == "3"
    call = next(m for m in served.received("tools/call") if m["params"]["name"] == "wait_for_cancel")
    assert not [m for m in served.messages("->") if "method" not in m and m.get("id") == call["id"]], \
        "our server answered a cancelled request"


def test_sdk_client_resumes_a_round_on_another_connection(keyed: Served, transport: str) -> None:
    """Statelessness, as the SDK offers it (``client.session.call_tool(..., allow_input_required=True)``
    drives the rounds by hand, to persist them): the input_required result one connection got is
    answered on another, and our server finishes the call; a state altered by one character, or
    brought to another tool, is refused -32602 saying why. Over stdio the second connection is
    another process, which takes the state only when it shares the first one's key."""
    from mcp import Client, types
    from mcp.shared.exceptions import MCPError

    person = types.ElicitResult(action="accept", content={"name": "Ada", "age": 36})

    async def elicitation(context: Any, params: Any) -> Any:
        return person

    async def resume(target: Any, tool: str, state: str, key: str) -> Any:
        async with Client(target, elicitation_callback=elicitation, read_timeout_seconds=20) as client:
            try:
                return await client.session.call_tool(tool, {}, input_responses={key: person}, request_state=state,
                                                      allow_input_required=True)
            except MCPError as exc:
                return exc.error

    async def main() -> dict[str, Any]:
        async with Client(keyed.target, elicitation_callback=elicitation, read_timeout_seconds=20) as client:
            first = await client.session.call_tool("sign_up", {}, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult) and first.request_state and first.input_requests
        (key,) = first.input_requests
        state = first.request_state
        altered = state[:-1] + ("A" if state[-1] != "A" else "B")
        seen = {"resumed": await resume(keyed.target, "sign_up", state, key),
                "altered": await resume(keyed.target, "sign_up", altered, key),
                "elsewhere": await resume(keyed.target, "interview", state, key)}
        if transport == "stdio":
            seen["unkeyed"] = await resume(keyed.without_env, "sign_up", state, key)
        return seen

    seen = run(main)
    assert json.loads(seen["resumed"].content[0].text) == {"action": "accept", "content": {"name": "Ada", "age": 36}}
    assert seen["altered"].code == -32602 and "not one this server gave" in seen["altered"].message
    assert seen["elsewhere"].code == -32602 and "belongs to another request" in seen["elsewhere"].message
    if transport == "stdio":  # a process with a key of its own (random) cannot read the state
        assert seen["unkeyed"].code == -32602 and "not one this server gave" in seen["unkeyed"].message


# (our server, the SDK's mode) -> the revision reached, or the error code on (stdio, HTTP) and what it says.
ERAS = [
    (HANDSHAKE_ONLY, "auto", "2025-11-25"),  # the probe refused -32601 at once: the handshake
    (HANDSHAKE_ONLY, "legacy", "2025-11-25"),
    # a request of 2026-07-28 to a server of the handshake: over stdio as any server before
    # 2026-07-28 (not initialized), over HTTP the version header refused, naming what it speaks
    (HANDSHAKE_ONLY, MODERN, ((-32600, "before initialize"), (-32022, "2025-11-25"))),
    (MODERN_ONLY, "auto", MODERN),
    (MODERN_ONLY, "legacy", ((-32602, "speaks only 2026-07-28"),) * 2),  # initialize refused, saying why
    (MODERN_ONLY, MODERN, MODERN),
]


@pytest.mark.parametrize("server", [HANDSHAKE_ONLY, MODERN_ONLY], ids=["handshake-only", "2026-07-28-only"])
def test_sdk_client_modes_against_our_server_of_one_era(server: str, transport: str, tmp_path: Path) -> None:
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    served = Served(transport, tmp_path / "trace.txt", server)

    async def attempt(mode: str) -> Any:
        try:
            async with Client(served.target, mode=mode, read_timeout_seconds=20) as client:
                added = await client.call_tool("add", {"a": 1, "b": 2})
                assert added.content[0].text == "3"
                return client.protocol_version
        except Exception as exc:  # an MCPError, perhaps inside the groups of the SDK's task groups
            error: BaseException = exc
            while not isinstance(error, MCPError):
                assert getattr(error, "exceptions", None), exc
                error = error.exceptions[0]  # type: ignore[attr-defined]
            return error.error.code, error.error.message

    async def main() -> dict[str, Any]:
        return {mode: await attempt(mode) for peer, mode, _ in ERAS if peer == server}

    try:
        seen = run(main)
    finally:
        if served.http is not None:
            served.http.close()
    for peer, mode, expected in ERAS:
        if peer != server:
            continue
        if isinstance(expected, str):
            assert seen[mode] == expected, (mode, seen[mode])
        else:
            code, words = expected[transport == "http"]
            assert seen[mode][0] == code and words in seen[mode][1], (mode, seen[mode])
