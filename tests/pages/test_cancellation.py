"""basic/utilities/cancellation: giving up on a request, in both directions.

https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/cancellation (mcp_ref/cancellation.py)
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from mcp_ref import Client, RequestCancelled, RequestContext, RequestTimeout, Server

from ..conftest import ROOT, TEST_SERVER, wait_until
from ..peers.servers import server as test_server


def test_timeout_cancels_on_the_server_and_no_response_follows(stdio_client: Callable[..., Client], tap: Any) -> None:
    client = stdio_client()
    with pytest.raises(RequestTimeout):
        client.request("test/sleep", {"seconds": 5}, timeout=0.3)
    sleep_id = next(m["id"] for d, m in tap.messages if d == "->" and m.get("method") == "test/sleep")
    cancel = next(m for d, m in tap.messages if d == "->" and m.get("method") == "notifications/cancelled")
    assert cancel["params"]["requestId"] == sleep_id  # CAN-20
    records = wait_until(lambda: client.request("test/cancelled")["cancelled"])
    assert records == [{"id": sleep_id, "reason": "timed out after 0.3 s"}]  # CAN-04: handler told
    client.ping()
    assert not any(d == "<-" and m.get("id") == sleep_id for d, m in tap.messages)  # CAN-06


def test_explicit_cancel_from_another_thread(stdio_client: Callable[..., Client]) -> None:
    client = stdio_client()
    pending = client.session.start_request("test/sleep", {"seconds": 5})
    threading.Timer(0.2, pending.cancel, args=("the user pressed stop",)).start()
    started = time.monotonic()
    with pytest.raises(RequestCancelled) as info:
        pending.result(5)
    # At once, not at the end of its 5 s: cancel() settles the Future the caller waits on.
    assert time.monotonic() - started < 2.5
    assert "the user pressed stop" in info.value.message
    records = wait_until(lambda: client.request("test/cancelled")["cancelled"])
    assert records[0]["reason"] == "the user pressed stop"
    assert pending.cancel() is False  # CAN-02: nothing left to cancel


def test_server_cancels_a_request_it_sent_to_the_client(memory_client: Callable[..., Client]) -> None:
    server = Server("asker")
    outcome: dict[str, Any] = {}

    def ask(ctx: RequestContext) -> dict[str, Any]:
        try:
            ctx.request("test/slow", timeout=0.2)
        except RequestTimeout as exc:
            outcome["server"] = exc
        return {}

    server.request_handlers["test/ask"] = ask
    client = memory_client(server)
    client_saw = threading.Event()

    def slow(ctx: RequestContext) -> dict[str, Any]:
        if ctx.cancelled.wait(5):
            outcome["client_reason"] = ctx.cancel_reason
            client_saw.set()
        return {}

    client.request_handlers["test/slow"] = slow
    client.request("test/ask")
    assert isinstance(outcome["server"], RequestTimeout)
    assert client_saw.wait(2) and outcome["client_reason"] == "timed out after 0.2 s"


# --- the deadline and the answer race (CAN-11, CAN-02, LC-24) ------------------------------------

SLEEP = 0.002  # seconds the handler takes: the round trip is this plus the machinery's own


def _race_the_deadlines(client: Client, tap: Any, threads: int = 4, calls_each: int = 150) -> dict[str, int]:
    """Calls whose timeouts keep to about one round trip, from ``threads`` callers at once: each
    caller moves its timeout up after a timeout and down after an answer (a staircase), so about
    half its calls end on each side of the deadline whatever the machine's speed. Every call must
    either return its answer or raise ``RequestTimeout`` with its request cancelled; no answered
    request is ever cancelled."""
    started = time.monotonic()
    for _ in range(20):
        client.request("test/sleep", {"seconds": SLEEP})
    round_trip = (time.monotonic() - started) / 20
    outcomes: dict[Any, str] = {}
    wrong: list[str] = []
    unsent = [0]  # timed out while being sent (given up too, but we hold no id to check)
    lock = threading.Lock()

    def caller(seed: int) -> None:
        rng = random.Random(seed)
        factor = 1.0
        for _ in range(calls_each):
            try:  # the budget covers sending too: on a loaded machine the send itself may use it up
                out = client.session.start_request("test/sleep", {"seconds": SLEEP},
                                                   timeout=round_trip * factor * rng.uniform(0.9, 1.1))
            except RequestTimeout:
                with lock:
                    unsent[0] += 1
                factor *= 1.1
                continue
            try:
                result = out.result()
            except RequestTimeout:
                outcomes[out.id] = "timed out"
                factor *= 1.1
            else:
                if result != {"slept": SLEEP}:
                    wrong.append(f"id {out.id!r} returned {result!r}")
                outcomes[out.id] = "answered"
                factor /= 1.1

    workers = [threading.Thread(target=caller, args=(seed,)) for seed in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert not any(worker.is_alive() for worker in workers), "a caller hung"
    client.ping()  # the session still serves; answers that came too late were dropped
    cancelled = {m["params"]["requestId"] for d, m in tap.messages
                 if d == "->" and m.get("method") == "notifications/cancelled"}
    timed_out = {i for i, outcome in outcomes.items() if outcome == "timed out"}
    answered = set(outcomes) - timed_out
    assert not wrong
    assert len(outcomes) + unsent[0] == threads * calls_each
    assert timed_out - cancelled == set(), "RequestTimeout raised for requests that were not cancelled (answered?)"
    assert answered & cancelled == set(), "answered requests were cancelled"
    return {"answered": len(answered), "timed out": len(timed_out)}


def test_an_answer_arriving_as_the_deadline_fires_is_returned_not_timed_out_stdio(
        stdio_client: Callable[..., Client], tap: Any) -> None:
    split = _race_the_deadlines(stdio_client(), tap)
    assert split["answered"] and split["timed out"], split  # the staircase kept the calls at the deadline


def test_an_answer_arriving_as_the_deadline_fires_is_returned_not_timed_out_in_memory(
        memory_client: Callable[..., Client], tap: Any) -> None:
    split = _race_the_deadlines(memory_client(test_server), tap)
    assert split["answered"] and split["timed out"], split


def test_a_caller_whose_time_runs_out_after_its_answer_came_gets_the_answer(
        stdio_client: Callable[..., Client], tap: Any) -> None:
    """The race, held still: the answer is in (taken out of the pending table and set) when the
    caller's time runs out. The caller gets the answer, and no cancellation goes out (CAN-02)."""
    client = stdio_client()
    out = client.session.start_request("test/sleep", {"seconds": 0})
    out.future.exception(5)  # the answer is in: its Future is settled
    out.time_out(out.timeout)  # what the caller does when its wait expires: here, nothing to give up
    assert out.result() == {"slept": 0}
    assert out.cancel() is False
    client.ping()
    assert not [m for d, m in tap.messages if d == "->" and m.get("method") == "notifications/cancelled"]


INTERRUPTED_CALLER = """
import json, os, signal, sys, threading
from mcp_ref import Client, RequestContext, Server
from mcp_ref.machinery.memory import MemoryTransport

server = Server("slow")
seen = {}
told = threading.Event()

def slow(ctx: RequestContext) -> dict:
    seen["cancelled"] = ctx.cancelled.wait(10)
    seen["reason"] = ctx.cancel_reason
    told.set()
    return {}

server.request_handlers["test/slow"] = slow
server_end, client_end = MemoryTransport.pair()
server.open_session(server_end).start()
client = Client(client_end).connect()
def interrupt():
    if sys.argv[1] == "the process":
        os.kill(os.getpid(), signal.SIGINT)
    else:  # the signal reaches this thread, not the main one, which must still feel it
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)

threading.Timer(0.3, interrupt).start()
try:
    client.request("test/slow", timeout=10)
    seen["interrupted"] = False
except KeyboardInterrupt:
    seen["interrupted"] = True
told.wait(5)
client.ping()  # raises if the session broke
seen["still serving"] = True
client.close()
print(json.dumps(seen))
"""


INTERRUPTED_STDIO_CALLER = """
import json, os, signal, sys, threading, time
from mcp_ref import Client

client = Client.stdio([sys.executable, "-m", "mcp_ref", "serve", sys.argv[1]], timeout=10)
threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
seen = {}
try:
    client.request("test/sleep", {"seconds": 10})
    seen["interrupted"] = False
except KeyboardInterrupt:
    seen["interrupted"] = True
deadline = time.monotonic() + 5
while not (records := client.request("test/cancelled")["cancelled"]) and time.monotonic() < deadline:
    time.sleep(0.05)
seen["reasons"] = [record["reason"] for record in records]
client.close()
print(json.dumps(seen))
"""


def test_ctrl_c_in_a_caller_waiting_over_stdio_cancels_its_request() -> None:
    """The same over stdio, with the server a child process: the interrupted caller gives its
    request up, and the server hears the cancellation."""
    done = subprocess.run([sys.executable, "-c", INTERRUPTED_STDIO_CALLER, TEST_SERVER], capture_output=True,
                          text=True, timeout=30, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"interrupted": True, "reasons": ["the caller was interrupted"]}


@pytest.mark.parametrize("target", ["the process", "another thread"])
def test_ctrl_c_in_a_waiting_caller_cancels_its_request(target: str) -> None:
    """Ctrl-C while a caller waits: the KeyboardInterrupt goes on out, and the request is given up
    first (the peer is told, CAN-01), so nothing stays pending for an answer nobody will take. The
    signal may reach any thread of the process, and Python raises KeyboardInterrupt only in the
    main thread when it runs: a caller on the main thread waits in slices (machinery/threads/outgoing.py),
    so it feels Ctrl-C at once, not when its 10 s timeout ends."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", INTERRUPTED_CALLER, target], capture_output=True, text=True,
                          timeout=30)
    assert time.monotonic() - started < 8, "Ctrl-C was felt only when the call timed out"
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"interrupted": True, "cancelled": True,
                                       "reason": "the caller was interrupted", "still serving": True}
