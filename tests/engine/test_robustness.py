"""A hostile or broken peer: one message never ends a session or loses its answer, every wait is
bounded, and we only ever write strict JSON.

Not one spec page: these are the engine's promises (DESIGN principle 9) behind basic/messages
(every request gets one response, MSG-05/MSG-06), basic/transports (stdio) and basic/lifecycle
(LC-19, shutdown). Each test stands for a family of inputs; the peers are real subprocesses.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from mcp_ref import Client, ConnectionClosed, InvalidParams, RequestTimeout, Server
from mcp_ref.machinery.memory import MemoryTransport

from ..conftest import ROOT, RawServer, server_command, strict_json

INIT = {"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
    "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}


def still_serving(raw: RawServer) -> None:
    """The session survived: a plain request afterwards gets its normal answer."""
    raw.send(b'{"jsonrpc":"2.0","id":"after","method":"ping"}')
    while (reply := raw.receive())["id"] != "after":  # late answers to earlier requests may come first
        pass
    assert reply == {"jsonrpc": "2.0", "id": "after", "result": {}}


# --- 1. one message never ends a session or loses its answer --------------------------------------

DEEP = 100_000


@pytest.mark.parametrize("line", [
    b"[" * DEEP,
    b"{\"a\":" * DEEP,
    b'{"jsonrpc":"2.0","id":7,"method":"test/echo","params":{"x":' + b"[" * DEEP + b"]" * DEEP + b"}}",
    b'{"jsonrpc":"2.0","id":7,"method":"test/echo","params":{"x":' + b"{\"a\":" * DEEP + b"1" + b"}" * DEEP + b"}}",
], ids=["open-arrays", "open-objects", "deep-array-params", "deep-object-params"])
def test_nesting_too_deep_to_decode_is_answered_and_the_session_goes_on(raw: RawServer, line: bytes) -> None:
    raw.initialize()
    raw.send(line)
    reply = raw.receive()
    assert reply["id"] is None and reply["error"]["code"] == -32700
    assert "nested too deeply" in reply["error"]["message"]
    still_serving(raw)


def test_a_result_too_deep_to_encode_becomes_32603_saying_so(raw: RawServer) -> None:
    raw.initialize()
    reply = raw.call({"jsonrpc": "2.0", "id": 1, "method": "test/returns", "params": {"kind": "deep"}})
    assert reply["id"] == 1 and reply["error"]["code"] == -32603
    assert "cannot be sent as JSON" in reply["error"]["message"]
    still_serving(raw)


# Strings with no UTF-8 form, written as JSON escapes (valid JSON text, but not valid Unicode).
SURROGATES = ['"\\ud800"', '"\\udfff"', '"a\\ud83dz"', '"\\udc00\\ud800"']


@pytest.mark.parametrize("text", SURROGATES)
def test_unencodable_strings_anywhere_still_get_exactly_one_answer(raw: RawServer, text: str) -> None:
    raw.initialize()
    # in the id: it cannot be echoed, so the one answer carries id null
    raw.send(f'{{"jsonrpc":"2.0","id":{text},"method":"ping"}}'.encode())
    reply = raw.receive()
    assert reply["id"] is None and reply["error"]["code"] == -32603
    # in the method: still "method not found", with the name escaped in the message
    reply = raw.call(json.loads(f'{{"jsonrpc":"2.0","id":2,"method":{text}}}'))
    assert reply["id"] == 2 and reply["error"]["code"] == -32601
    # in params that the handler echoes back: the result cannot be sent, so -32603 says why
    reply = raw.call(json.loads(f'{{"jsonrpc":"2.0","id":3,"method":"test/echo","params":{{"s":{text}}}}}'))
    assert reply["id"] == 3 and reply["error"]["code"] == -32603 and "JSON" in reply["error"]["message"]
    # in params the handler only reads: an ordinary answer
    reply = raw.call(json.loads(f'{{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{{"level":{text}}}}}'))
    assert reply["id"] == 4 and reply["error"]["code"] == -32602 and reply["error"]["data"] == {"field": "level"}
    # in a notification and in a response: nothing to answer, nothing breaks
    raw.send(f'{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{text}}}}}'.encode())
    raw.send(f'{{"jsonrpc":"2.0","id":{text},"result":{{}}}}'.encode())
    still_serving(raw)


@pytest.mark.parametrize("kind", ["nan", "inf", "-inf", "object", "bytes"])
def test_a_result_that_is_not_json_becomes_32603(raw: RawServer, kind: str) -> None:
    raw.initialize()
    reply = raw.call({"jsonrpc": "2.0", "id": kind, "method": "test/returns", "params": {"kind": kind}})
    assert reply["id"] == kind and reply["error"]["code"] == -32603  # raw.receive parses strictly
    still_serving(raw)


@pytest.mark.parametrize("kind", ["SystemExit", "KeyboardInterrupt", "GeneratorExit", "Stop"])
def test_a_handler_raising_any_base_exception_still_gets_an_answer(raw: RawServer, kind: str) -> None:
    raw.initialize()
    reply = raw.call({"jsonrpc": "2.0", "id": 1, "method": "test/raises", "params": {"kind": kind}})
    assert reply["id"] == 1 and reply["error"]["code"] == -32603
    assert raw.proc.poll() is None  # the server did not exit
    still_serving(raw)


@pytest.mark.parametrize("token", ["1e400", "-1e400", "1.5", "true", "null", "[1]", '{"a":1}'])
def test_a_progress_token_that_is_not_a_string_or_integer_is_never_echoed(raw: RawServer, token: str) -> None:
    """PROG-02: tokens are strings or integers. 1e400 decodes to infinity, which is not JSON."""
    raw.initialize()
    raw.send(f'{{"jsonrpc":"2.0","id":1,"method":"test/progress","params":{{"_meta":{{"progressToken":{token}}}}}}}'
             .encode())
    reply = raw.receive()  # no notifications/progress before the answer: the token was not usable
    assert reply == {"jsonrpc": "2.0", "id": 1, "result": {"steps": 3}}


def test_the_client_refuses_params_it_cannot_encode_before_sending(memory_client: Callable[..., Client]) -> None:
    from mcp_ref.demo_server import server

    client = memory_client(server)
    for bad in [{"a": float("nan")}, {"a": float("inf")}, {"a": "\ud800"}, {"a": object()}, {"a": b"x"}]:
        with pytest.raises(InvalidParams, match="not strict JSON"):
            client.call_tool("add", bad)
        assert client.session._pending == {}  # nothing left waiting for an answer that cannot come
    assert client.call_tool("add", {"a": 1, "b": 2})["content"][0]["text"] == "3"


def test_every_line_the_server_writes_is_strict_json_under_fuzz(raw: RawServer) -> None:
    """Seeded hostile lines; every answer parses strictly (RawServer.receive) and has a valid id."""
    import random

    rng = random.Random(9)
    raw.initialize()
    atoms = ['"\\ud800"', "1e400", "-0", "NaN", "[]", "{}", "null", '"x"', "0", "1.5", '"tools/call"',
             '"ping"', '"test/echo"', "true", '"\\u0000"', '"' + "é" * 10 + '"']
    sent: list[str] = []
    for i in range(300):
        fields = {"jsonrpc": '"2.0"', "id": str(1000 + i), "method": rng.choice(atoms),
                  "params": "{" + ",".join(f'"{k}":{rng.choice(atoms)}' for k in rng.sample(
                      ["name", "arguments", "uri", "cursor", "level", "_meta", "s"], 3)) + "}"}
        if rng.random() < 0.2:
            fields["id"] = rng.choice(atoms)
        sent.append("{" + ",".join(f'"{k}":{v}' for k, v in fields.items()) + "}")
        raw.send(sent[-1].encode())
    # Every line with a usable id was a request: each gets exactly one answer with that id,
    # whatever else it held (answers come back in any order: requests run on several workers),
    # unless it held NaN, which is not JSON: that line is a parse error, answered with id null.
    expected = {1000 + i for i, line in enumerate(sent)
                if line.startswith(f'{{"jsonrpc":"2.0","id":{1000 + i},') and "NaN" not in line}
    answered: list[int] = []
    while set(answered) != expected:
        reply = raw.receive()
        assert ("result" in reply) != ("error" in reply)
        if isinstance(reply["id"], int) and reply["id"] >= 1000:
            answered.append(reply["id"])
    assert sorted(answered) == sorted(expected) and len(expected) > 150
    still_serving(raw)


# --- wrong types in any params field are -32602 naming the field ---------------------------------

# (method, params, the field the error must name); each row is a value of the wrong JSON type, or
# a value no handler can use, in one field of one method of the demo server.
WRONG_PARAMS = [
    ("logging/setLevel", {"level": ["debug"]}, "level"),
    ("logging/setLevel", {"level": {"a": 1}}, "level"),
    ("logging/setLevel", {"level": 3}, "level"),
    ("logging/setLevel", {}, "level"),
    ("logging/setLevel", {"level": "verbose"}, "level"),
    ("completion/complete", {"ref": {"type": ["ref/prompt"], "name": "review_code"},
                             "argument": {"name": "language", "value": "p"}}, "ref.type"),
    ("completion/complete", {"ref": {"type": {"x": 1}, "name": "review_code"},
                             "argument": {"name": "language", "value": "p"}}, "ref.type"),
    ("completion/complete", {"ref": "ref/prompt", "argument": {"name": "language", "value": "p"}}, "ref"),
    ("completion/complete", {"ref": {"type": "ref/prompt", "name": 5},
                             "argument": {"name": "language", "value": "p"}}, "ref.name"),
    ("completion/complete", {"ref": {"type": "ref/resource", "uri": ["x"]},
                             "argument": {"name": "topic", "value": "p"}}, "ref.uri"),
    ("completion/complete", {"ref": {"type": "ref/prompt", "name": "review_code"},
                             "argument": {"name": ["language"], "value": "p"}}, "argument.name"),
    ("completion/complete", {"ref": {"type": "ref/prompt", "name": "review_code"},
                             "argument": {"name": "language", "value": {"v": 1}}}, "argument.value"),
    ("completion/complete", {"ref": {"type": "ref/prompt", "name": "review_code"}, "argument": 1}, "argument"),
    ("tools/list", {"cursor": {"a": [1, {"b": None}]}}, "cursor"),
    ("tools/list", {"cursor": ["x"]}, "cursor"),
    ("prompts/list", {"cursor": 12}, "cursor"),
    ("resources/list", {"cursor": True}, "cursor"),
    ("resources/templates/list", {"cursor": 1.5}, "cursor"),
    ("resources/read", {"uri": "demo://source/%00"}, "uri"),
    ("resources/read", {"uri": "demo://notes/a%00b"}, "uri"),
    ("resources/read", {"uri": "demo://source/" + "a" * 9000}, "uri"),
    ("resources/read", {"uri": ["demo://readme"]}, "uri"),
    ("resources/read", {"uri": {"u": 1}}, "uri"),
    ("resources/read", {}, "uri"),
    ("resources/subscribe", {"uri": 5}, "uri"),
    ("resources/subscribe", {"uri": "demo://notes/%00"}, "uri"),
    ("resources/unsubscribe", {"uri": None}, "uri"),
]


@pytest.fixture(scope="module")
def raw_demo() -> Iterator[RawServer]:
    """One demo-server subprocess spoken to in raw lines, shared by the table below."""
    server = RawServer("mcp_ref.demo_server:server")
    server.initialize()
    yield server
    server.close()


@pytest.mark.parametrize("method, params, field", WRONG_PARAMS)
def test_wrong_params_are_32602_naming_the_field(raw_demo: RawServer, method: str, params: dict[str, Any],
                                                 field: str) -> None:
    raw = raw_demo
    reply = raw.call({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    assert reply["error"]["code"] == -32602, reply
    assert reply["error"]["data"]["field"] == field and field in reply["error"]["message"]


@pytest.mark.parametrize("uri", ["demo://source/" + "a" * 300 + ".py", "demo://source/" + "a/" * 2000 + "x.py",
                                 "demo://source/%ff%fe.py"])
def test_a_long_or_strange_path_is_not_found_rather_than_an_internal_error(raw_demo: RawServer, uri: str) -> None:
    reply = raw_demo.call({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": uri}})
    assert reply["error"]["code"] == -32002, reply


# --- 2. every wait is bounded over stdio ----------------------------------------------------------

# A "server" that answers initialize and then never reads its stdin again.
DEAF_SERVER = textwrap.dedent("""
    import json, sys, time
    request = json.loads(sys.stdin.readline())
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {
        "protocolVersion": "2024-11-05", "capabilities": {"tools": {}}, "serverInfo": {"name": "deaf", "version": "0"}}}) + "\\n")
    sys.stdout.flush()
    time.sleep(600)
""")

# A "server" that writes lines that are not JSON, forever, and never reads.
BABBLING_SERVER = textwrap.dedent("""
    import sys
    while True:
        sys.stdout.write("this is not JSON " * 20 + "\\n")
        sys.stdout.flush()
""")

# A server that ignores SIGTERM too: only SIGKILL ends it.
STUBBORN = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "


def script(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_a_server_that_stops_reading_cannot_freeze_calls_or_close() -> None:
    client = Client.stdio(script(STUBBORN.replace("; ", "\n") + DEAF_SERVER), timeout=5)
    process = client.session._transport.process  # type: ignore[attr-defined]
    # Small messages fill the pipe (about 20 of them), then wait for room: every call ends at
    # its own deadline.
    for _ in range(25):
        start = time.monotonic()
        with pytest.raises(RequestTimeout):
            client.call_tool("anything", {"blob": "x" * 3000}, timeout=0.1)
        assert time.monotonic() - start < 1.2
    start = time.monotonic()
    client.close()  # needs no write lock, and kills what will not exit (it ignores SIGTERM)
    assert time.monotonic() - start < 8.0
    assert process.poll() is not None


def test_a_message_cut_short_by_a_deaf_server_times_out_then_the_connection_says_why() -> None:
    client = Client.stdio(script(DEAF_SERVER), timeout=5)
    start = time.monotonic()
    with pytest.raises(RequestTimeout):  # more than a pipe holds: written in part, then stuck
        client.call_tool("anything", {"blob": "x" * 1_000_000}, timeout=0.5)
    assert time.monotonic() - start < 1.5
    with pytest.raises(ConnectionClosed, match="stopped reading in the middle of a message"):
        client.ping(timeout=0.5)  # half a message cannot be taken back: the channel is unusable
    start = time.monotonic()
    client.close()
    assert time.monotonic() - start < 8.0


def test_a_server_that_babbles_and_never_reads_cannot_deadlock_connecting() -> None:
    start = time.monotonic()
    with pytest.raises((RequestTimeout, ConnectionClosed)):
        Client.stdio(script(BABBLING_SERVER), timeout=2, on_stderr=lambda line: None)
    assert time.monotonic() - start < 10.0  # initialize timed out, then close() killed it


def test_threads_sharing_a_client_all_time_out_when_the_server_stops_reading() -> None:
    client = Client.stdio(script(DEAF_SERVER), timeout=5)
    outcomes: list[BaseException | None] = []

    def call() -> None:
        try:
            client.call_tool("anything", {"blob": "y" * 200_000}, timeout=1.5)
            outcomes.append(None)
        except BaseException as exc:
            outcomes.append(exc)

    threads = [threading.Thread(target=call) for _ in range(6)]
    start = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert time.monotonic() - start < 5.0
    assert len(outcomes) == 6 and all(isinstance(o, (RequestTimeout, ConnectionClosed)) for o in outcomes)
    start = time.monotonic()
    client.close()
    assert time.monotonic() - start < 8.0


def test_a_server_can_end_the_session_itself(stdio_client: Callable[..., Client]) -> None:
    """LC-19: the server closes its output; the client sees the end of the stream at once (it
    does not wait out a timeout), and the server process exits."""
    client = stdio_client(timeout=30)
    process = client.session._transport.process  # type: ignore[attr-defined]
    assert client.request("test/close_session") == {"closing": True}
    start = time.monotonic()
    assert client.session.closed.wait(5)
    with pytest.raises(ConnectionClosed):
        client.ping()
    assert time.monotonic() - start < 5.0
    assert process.wait(5) == 0


# --- the in-memory link is bounded too -----------------------------------------------------------

def test_the_memory_transport_bounds_its_queue() -> None:
    a, b = MemoryTransport.pair(max_queued=3)
    for _ in range(3):
        a.send(b"{}", timeout=0.1)
    with pytest.raises(TimeoutError):
        a.send(b"{}", timeout=0.1)
    a.close()  # closing never waits, even with a full queue
    assert b.receive() == b"{}"


# --- 4. spec rules -------------------------------------------------------------------------------

def test_no_log_messages_without_the_logging_capability(memory_client: Callable[..., Client]) -> None:
    """LOG-01: ctx.log and log_handler() send nothing where `logging` was not declared."""
    import logging as pylogging

    def run(declared: bool) -> tuple[list[bool], list[Any]]:
        server = Server("quiet", logging=declared)
        sent: list[bool] = []

        @server.tool()
        def shout(ctx: Any) -> str:
            sent.append(ctx.log("error", "ctx.log"))
            pylogging.getLogger("user.code").error("through the handler")
            return "done"

        handler = server.log_handler()
        pylogging.getLogger("user.code").addHandler(handler)
        try:
            heard: list[dict[str, Any]] = []
            client = memory_client(server, on_log_message=heard.append)
            assert ("logging" in client.server_capabilities) is declared
            client.call_tool("shout")
            client.ping()  # anything sent before the answer has arrived by now
        finally:
            pylogging.getLogger("user.code").removeHandler(handler)
        return sent, [m["data"] for m in heard]

    assert run(False) == ([False], [])
    assert run(True) == ([True], ["ctx.log", "through the handler"])


@pytest.mark.parametrize("uri", [
    "file:///home/u/%2e%2e/%2e%2e/etc", "file:///home/u/%2E%2E/etc", "file:///home/u/.%2e/etc",
    "file:///home/u/%2e./etc", "file:///home/u/a%2f..%2fb", "file:///home/u/../etc", "file:///..",
])
def test_roots_with_dot_dot_segments_are_refused_however_spelled(uri: str) -> None:
    """ROOT-07: a percent-encoded '..' is a '..'."""
    from mcp_ref.roots import check_roots

    with pytest.raises(ValueError, match=r"\.\."):
        check_roots([{"uri": uri}])
    assert check_roots([{"uri": "file:///home/u/..data/%2e%2e.txt-not-a-segment"}])  # only whole segments


def test_a_client_with_a_roots_callable_does_not_promise_list_changed(memory_client: Callable[..., Client]) -> None:
    """ROOT-02: a callable's answer can change unseen, so no listChanged is declared, and
    set_roots() sends no notification it did not promise. A list declares it and sends it."""
    server = Server("roots")
    changed: list[str] = []
    server.on_roots_changed(lambda ctx: changed.append("changed"))
    server.tool(name="t")(lambda ctx: str(ctx.list_roots()))
    client = memory_client(server, roots=lambda: [{"uri": "file:///a"}])
    assert client.capabilities() == {"roots": {}}
    client.set_roots([{"uri": "file:///b"}])
    assert "file:///b" in client.call_tool("t")["content"][0]["text"]  # replaced all the same
    listed = memory_client(server, roots=[{"uri": "file:///a"}])
    assert listed.capabilities() == {"roots": {"listChanged": True}}
    listed.set_roots([{"uri": "file:///c"}])
    listed.ping()
    deadline = time.monotonic() + 5
    while not changed and time.monotonic() < deadline:
        time.sleep(0.01)
    assert changed == ["changed"]  # one notification: from the client that promised it


def test_a_bad_line_on_a_real_stdio_client_connection_is_answered() -> None:
    """The client answers a server's garbage with -32700 (id null) and stays connected."""
    code = textwrap.dedent("""
        import json, sys
        request = json.loads(sys.stdin.readline())
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {
            "protocolVersion": "2024-11-05", "capabilities": {}, "serverInfo": {"name": "x", "version": "0"}}}) + "\\n")
        sys.stdout.write("[" * 100000 + "\\n")
        sys.stdout.flush()
        for line in sys.stdin:
            message = json.loads(line)
            sys.stderr.write("GOT " + line)
            sys.stderr.flush()
            if message.get("method") == "ping":
                sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {}}) + "\\n")
                sys.stdout.flush()
    """)
    lines: list[str] = []
    with Client.stdio(script(code), timeout=5, on_stderr=lines.append) as client:
        client.ping()
    got = [strict_json(line[4:]) for line in lines if line.startswith("GOT ")]
    errors = [m for m in got if "error" in m]
    assert errors and errors[0]["id"] is None and errors[0]["error"]["code"] == -32700


def test_meta_of_a_read_result_reaches_the_wire(memory_client: Callable[..., Client]) -> None:
    server = Server("meta")
    server.resource("a://b")(lambda: {"contents": [{"uri": "a://b", "text": "hi"}], "_meta": {"k": [1]}})
    server.resource("a://c")(lambda: {"contents": [{"uri": "a://c", "text": "hi"}]})
    client = memory_client(server)
    assert client.read_resource("a://b") == {"contents": [{"uri": "a://b", "text": "hi"}], "_meta": {"k": [1]}}
    assert client.read_resource("a://c") == {"contents": [{"uri": "a://c", "text": "hi"}]}


def test_requests_still_running_at_end_of_input_are_answered_before_the_server_exits() -> None:
    """`printf '...' | mcp-ref serve`: input ends while a tool is still running; its answer
    still comes (within a grace shorter than a client waits before SIGTERM), then the exit."""
    lines = [json.dumps(INIT), '{"jsonrpc":"2.0","method":"notifications/initialized"}',
             '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow_count","arguments":{"steps":3,"delay":0.1}}}',
             '{"jsonrpc":"2.0","id":3,"method":"ping"}']
    proc = subprocess.run(server_command(), input="\n".join(lines) + "\n", capture_output=True, text=True,
                          timeout=10, cwd=ROOT)  # it exits by itself (a server that waited on would time out here)
    answers = {strict_json(line)["id"]: strict_json(line) for line in proc.stdout.splitlines()}
    assert set(answers) == {"init", 2, 3}
    assert answers[2]["result"]["content"][0]["text"] == "counted to 3"
    assert proc.returncode == 0
