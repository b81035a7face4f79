"""JSON-RPC batches (mcp_ref/revisions/batches.py): taken in a session of 2025-03-26, and only there.

https://modelcontextprotocol.io/specification/2025-03-26/basic#batching
A real server process (tests/peers/servers.py under ``mcp-ref serve``) spoken to in raw lines,
so the array on the wire is exactly what the test wrote and what the server wrote back.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from mcp_ref import Client
from mcp_ref.machinery.memory import MemoryTransport
from mcp_ref.revisions.batches import BatchedAnswers, receive_batch
from mcp_ref.session import Session

from ..conftest import HANDSHAKE, RawServer, wait_until


def started(version: str) -> RawServer:
    raw = RawServer()
    reply = raw.call({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
    assert reply["result"]["protocolVersion"] == version
    raw.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    return raw


@pytest.fixture
def raw_2025_03_26() -> Iterator[RawServer]:
    raw = started("2025-03-26")
    yield raw
    raw.close()


def batch(raw: RawServer, items: list[Any]) -> Any:
    raw.send(json.dumps(items).encode())
    return raw.receive()


def test_the_requests_of_a_batch_are_answered_by_one_array(raw_2025_03_26: RawServer) -> None:
    answers = batch(raw_2025_03_26, [
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/whatever"},  # a notification: no answer
        {"jsonrpc": "2.0", "id": "b", "method": "test/echo", "params": {"x": 1}},
        {"jsonrpc": "2.0", "id": 3, "method": "no/such/method"},
    ])
    assert isinstance(answers, list)  # BATCH-02: one array of answers
    by_id = {answer["id"]: answer for answer in answers}
    assert set(by_id) == {1, "b", 3}
    assert by_id[1]["result"] == {} and by_id["b"]["result"]["params"] == {"x": 1}
    assert by_id[3]["error"]["code"] == -32601
    assert raw_2025_03_26.call({"jsonrpc": "2.0", "id": 9, "method": "ping"}) == {"jsonrpc": "2.0", "id": 9, "result": {}}


def test_a_batch_answers_its_invalid_members_inside_the_array_and_refuses_initialize(raw_2025_03_26: RawServer) -> None:
    answers = batch(raw_2025_03_26, [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},  # BATCH-04: never in a batch
        {"jsonrpc": "1.0", "id": 2, "method": "ping"},
        7,
        {"jsonrpc": "2.0", "id": 4, "method": "ping"},
    ])
    codes = sorted((str(answer["id"]), answer.get("error", {}).get("code")) for answer in answers)
    assert codes == [("1", -32600), ("2", -32600), ("4", None), ("None", -32600)]
    assert "initialize may not be part of a batch" in next(a for a in answers if a["id"] == 1)["error"]["message"]


def test_an_empty_batch_is_one_invalid_request(raw_2025_03_26: RawServer) -> None:
    answer = batch(raw_2025_03_26, [])
    assert answer["id"] is None and answer["error"]["code"] == -32600


def test_a_cancelled_member_leaves_the_array_without_its_answer(raw_2025_03_26: RawServer) -> None:
    raw_2025_03_26.send(json.dumps([{"jsonrpc": "2.0", "id": 1, "method": "test/sleep", "params": {"seconds": 30}},
                                    {"jsonrpc": "2.0", "id": 2, "method": "ping"}]).encode())
    raw_2025_03_26.send(b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}')
    answers = raw_2025_03_26.receive(timeout=10)
    assert answers == [{"jsonrpc": "2.0", "id": 2, "result": {}}]  # CAN-06: no answer for the cancelled one


def sleep(request_id: Any, seconds: float = 30) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "test/sleep", "params": {"seconds": seconds}}


def ping(request_id: Any, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "ping", **({"params": params} if params else {})}


def cancel(request_id: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id}}


def outcome_of(answer: dict[str, Any]) -> tuple[str, str]:
    return str(answer["id"]), "ok" if "result" in answer else str(answer["error"]["code"])


def line(*items: Any) -> bytes:
    return json.dumps(list(items)).encode()  # (json.dumps writes a lone surrogate as its \ud800 escape)


# Each row: the lines sent, then the arrays that must come back (in any order), each as the sorted
# (id, outcome) of its answers: "ok" for a result, else the error code (ids and codes as text).
HOSTILE_BATCHES = {
    "cancelled inside the same batch": (
        [line(sleep(1), cancel(1), ping(2))],
        [[("2", "ok")]]),
    "cancelled by a later batch": (
        [line(sleep(1), ping(2)), line(cancel(1), ping(3))],
        [[("2", "ok")], [("3", "ok")]]),
    "cancelled alone": (
        [line(sleep(1), ping(2)), json.dumps(cancel(1)).encode()],
        [[("2", "ok")]]),
    "an id reused by a later batch while the first waits": (
        [line(sleep(1), ping(2)), line(ping(1), ping(3)), json.dumps(cancel(1)).encode()],
        [[("1", "-32600"), ("3", "ok")], [("2", "ok")]]),
    "an id used twice in one batch": (
        [line(ping(1), ping(1), ping(2))],
        [[("1", "-32600"), ("1", "ok"), ("2", "ok")]]),
    "a lone surrogate or a number too large for a float in a member": (
        [b'[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"\\ud800"}},'
         b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":1e400}}]'],
        [[("1", "ok"), ("2", "ok"), ("3", "ok")]]),
    "a request id with no UTF-8 form": (
        [line(ping("\ud800"), ping(2))],
        [[("None", "-32600"), ("2", "ok")]]),
}


@pytest.mark.parametrize("lines, arrays", list(HOSTILE_BATCHES.values()), ids=list(HOSTILE_BATCHES))
def test_every_other_member_of_a_batch_is_answered_once_and_nothing_is_left_waiting(
        raw_2025_03_26: RawServer, lines: list[bytes], arrays: list[list[tuple[str, str]]]) -> None:
    for sent in lines:
        raw_2025_03_26.send(sent)
    got = [raw_2025_03_26.receive() for _ in arrays]
    assert all(isinstance(answer, list) for answer in got), got  # BATCH-02: each batch's answers as one array
    outcomes = sorted(sorted(outcome_of(a) for a in answer) for answer in got)
    assert outcomes == sorted(sorted(array) for array in arrays)  # none for a cancelled member (CAN-06), one for each other
    # Nothing is left waiting in a batch: an id still held there would swallow the answer to a
    # request sent alone with that id. Each is answered alone (-32600 while a cancelled handler ends).
    for request_id in (1, 2, 3):
        answer = raw_2025_03_26.call(ping(request_id))
        assert isinstance(answer, dict) and answer["id"] == request_id
        assert "result" in answer or answer["error"]["code"] == -32600
    assert raw_2025_03_26.call(ping("last")) == {"jsonrpc": "2.0", "id": "last", "result": {}}  # and nothing came twice


def test_the_end_of_the_session_frees_every_answer_still_waiting() -> None:
    """The table of ids waiting in a batch (``BatchedAnswers``) holds nothing once the session ends."""
    server_end, client_end = MemoryTransport.pair()
    release = threading.Event()
    session = Session(server_end, on_request=lambda ctx: {"done": release.wait(10)},
                      on_notification=lambda s, m, p: None, name="batch-test")
    session.on_batch = receive_batch
    session.start()
    try:
        client_end.send(line(ping(1), ping(2)), 5)
        client_end.send(line(ping(3)), 5)
        wrapper = wait_until(lambda: isinstance(session._transport, BatchedAnswers)
                             and len(session._transport._batches) == 3 and session._transport, timeout=10)
        session.close("the test ends it")
        wait_until(lambda: wrapper._batches == {}, timeout=10)  # (the end may reach it on the reader thread)
    finally:
        release.set()


@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18", "2025-11-25"])
def test_in_every_other_revision_an_array_is_an_invalid_request(version: str) -> None:
    raw = started(version)
    try:
        answer = batch(raw, [{"jsonrpc": "2.0", "id": 1, "method": "ping"}])
        assert answer["id"] is None and answer["error"]["code"] == -32600  # 2025-06-18 took batches out again
        assert "batch" in answer["error"]["message"]
    finally:
        raw.close()


def test_a_client_of_2025_03_26_answers_a_batch_from_its_server() -> None:
    """The client side: a server may send its requests as an array; the answers come back as one.
    The server here is the test itself, on the other end of an in-memory pair; the client offers
    the revisions with a handshake, so initialize is its first message (no server/discover probe)."""
    server_end, client_end = MemoryTransport.pair()
    connected: list[Client] = []
    thread = threading.Thread(target=lambda: connected.append(Client(
        client_end, roots=[{"uri": "file:///r"}], protocol_versions=HANDSHAKE).connect()))
    thread.start()
    init = json.loads(server_end.receive(5) or b"null")
    server_end.send(json.dumps({"jsonrpc": "2.0", "id": init["id"], "result": {
        "protocolVersion": "2025-03-26", "capabilities": {}, "serverInfo": {"name": "raw", "version": "0"}}}).encode(), 5)
    assert json.loads(server_end.receive(5) or b"null")["method"] == "notifications/initialized"
    thread.join(5)
    with connected[0] as client:
        assert client.protocol_version == "2025-03-26"
        server_end.send(b'[{"jsonrpc":"2.0","id":"s1","method":"ping"},'
                        b'{"jsonrpc":"2.0","id":"s2","method":"roots/list"}]', 5)
        answer = json.loads(server_end.receive(5) or b"null")
    assert isinstance(answer, list) and sorted(a["id"] for a in answer) == ["s1", "s2"]
    assert next(a for a in answer if a["id"] == "s2")["result"]["roots"] == [{"uri": "file:///r"}]
