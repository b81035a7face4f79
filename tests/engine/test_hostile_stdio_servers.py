"""Servers that misbehave on purpose against ``Client.stdio``: the client's reader thread reads
the server's stdout, whatever comes, and each caller waits on its own request's Future.

Not one spec page: the engine's promises behind basic/transports (stdio, TR-02), basic/messages
(one answer per request, matched by id: MSG-04, MSG-05), basic/lifecycle (every request has a
timeout, LC-24) and basic/utilities/ping and cancellation. Each server is a real subprocess, a
short script over tests/peers/hostile_peer.py that writes raw bytes. Each test checks what a user
depends on: the call ends by its own deadline with the right exception, callbacks are all
delivered in order, the session goes on where it should, ``close()`` returns within seconds
and no thread of the client is left behind (the ``connect`` fixture checks the last two).
"""

from __future__ import annotations

import logging
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_ref import Client, ConnectionClosed, McpError, RequestTimeout
from mcp_ref.stdio import MAX_LINE_BYTES

PEERS = Path(__file__).resolve().parents[1] / "peers"  # hostile_peer.py
CLOSE_WITHIN = 5.0  # seconds close() may take, killing included (a liveness bound, not a speed claim)


def script(body: str) -> list[str]:
    """The command running ``body`` as a server, with tests/peers/hostile_peer.py's helpers in scope."""
    prelude = f"import sys\nsys.path.insert(0, {str(PEERS)!r})\nfrom hostile_peer import *\n"
    return [sys.executable, "-c", prelude + textwrap.dedent(body)]


@pytest.fixture
def connect() -> Iterator[Callable[..., Client]]:
    """``connect(body, **kwargs)``: a Client on the server ``body``. At the end of the test each
    client is closed, within ``CLOSE_WITHIN`` seconds, and every thread it started has ended."""
    before = set(threading.enumerate())
    clients: list[Client] = []

    def make(body: str, **kwargs: Any) -> Client:
        kwargs.setdefault("timeout", 5)
        kwargs.setdefault("on_stderr", lambda text: None)
        client = Client.stdio(script(body), **kwargs)
        clients.append(client)
        return client

    yield make
    for client in clients:
        start = time.monotonic()
        client.close()
        assert time.monotonic() - start < CLOSE_WITHIN, "close() did not return within a few seconds"
    deadline = time.monotonic() + CLOSE_WITHIN
    while (left := [t for t in set(threading.enumerate()) - before if t.name.startswith("mcp_ref")]) \
            and time.monotonic() < deadline:
        try:
            left[0].join(max(0.0, deadline - time.monotonic()))
        except RuntimeError:  # still starting (a closing thread started by the last message read)
            time.sleep(0.01)
    assert not left, f"threads left behind after close(): {[t.name for t in left]}"


def ends_by(seconds: float, call: Callable[[], Any],
            expected: type[BaseException] | tuple[type[BaseException], ...]) -> BaseException:
    """Run ``call``, which must raise ``expected`` within ``seconds``; return the exception."""
    start = time.monotonic()
    with pytest.raises(expected) as info:
        call()
    elapsed = time.monotonic() - start
    assert elapsed < seconds, f"{info.type.__name__} came after {elapsed:.2f} s, not within {seconds} s"
    return info.value


# --- an answer one byte at a time ---------------------------------------------------------------------

TRICKLER = """
    initialize()
    while True:
        request = next_request()
        trickle(line(log("on its way")) + line(echo(request)), request["params"]["seconds"])
"""


def test_an_answer_trickled_in_before_the_deadline_is_received_whole(connect: Callable[..., Client]) -> None:
    heard: list[Any] = []
    client = connect(TRICKLER, on_log_message=lambda params: heard.append(params["data"]))
    text = "é€😀 U+2028:\u2028"  # multi-byte characters, each cut between reads
    assert client.request("x/echo", {"seconds": 0.4, "text": text}, timeout=5) == {"echo": {"seconds": 0.4, "text": text}}
    assert heard == ["on its way"]  # sent before the answer: heard before the call returned
    assert client.request("x/echo", {"seconds": 0.1}, timeout=5) == {"echo": {"seconds": 0.1}}


def test_an_answer_trickled_past_the_deadline_is_a_timeout_and_the_session_goes_on(
        connect: Callable[..., Client]) -> None:
    client = connect(TRICKLER)
    # The reader reads the first bytes, then the caller's time is up. (The answer is complete after
    # twice the timeout; the next test has one that is complete in between.)
    ends_by(0.5 + 1.0, lambda: client.request("x/echo", {"seconds": 1.4}, timeout=0.5), RequestTimeout)
    # The half-read line is finished by whoever reads next, then dropped as late (CAN-10); the
    # next call gets its own answer, not the late one.
    assert client.request("x/echo", {"seconds": 0.05, "n": 2}, timeout=5) == {"echo": {"seconds": 0.05, "n": 2}}


def test_a_caller_whose_answer_is_half_read_gives_up_at_its_own_deadline(
        connect: Callable[..., Client]) -> None:
    client = connect(TRICKLER)
    # The answer is complete 1.5 s in: after the 1 s deadline, before twice that (a caller
    # once waited a second timeout after reading until its deadline).
    ends_by(1.0 + 0.6, lambda: client.request("x/echo", {"seconds": 1.5}, timeout=1.0), RequestTimeout)


# --- a flood of notifications -------------------------------------------------------------------------

FLOODER = """
    import time
    initialize()
    while True:
        request = next_request()
        params = request.get("params", {})
        if "n" not in params:
            send(echo(request))
            continue
        n, first, token = params["n"], params["first"], params["_meta"]["progressToken"]
        changed = notification("notifications/tools/list_changed")
        def progress(value, token=token):
            return notification("notifications/progress", {"progressToken": token, "progress": value})
        before = []
        for i in range(n):
            before.append(log(first + i))
            if i % 50 == 0:  # ours, and tokens that only look like ours (PROG-13)
                before += [progress(i + 1), progress(i + 1, str(token)), progress(i + 1, token + 1000)]
        after = [log(first + n + i) for i in range(n)]
        send(*before, changed, echo(request), progress(n + 1), changed, *after[: n // 2])  # one burst
        time.sleep(0.05)  # the rest comes while no call may be waiting: the reader reads it on its own
        send(*after[n // 2:], changed)
"""


def test_a_flood_of_notifications_around_the_answer_is_delivered_whole_and_in_order(
        connect: Callable[..., Client]) -> None:
    heard: list[Any] = []
    n = 400
    expected = []
    for first in (0, 2 * n):
        expected += [*range(first, first + n), "tools", "tools", *range(first + n, first + 2 * n), "tools"]
    everything = threading.Event()

    def hear(item: Any) -> None:
        heard.append(item)
        if len(heard) == len(expected):
            everything.set()

    client = connect(FLOODER, on_log_message=lambda params: hear(params["data"]), on_list_changed=hear)
    for k, first in enumerate((0, 2 * n)):
        progress: list[Any] = []
        outcome = client.request("x/echo", {"n": n, "first": first},
                                 on_progress=lambda params, seen=progress: seen.append(params["progress"]))
        assert outcome["echo"]["first"] == first
        # Everything the server sent before its answer was heard before the call returned.
        sent_before = k * (2 * n + 3) + n + 1
        assert heard[:sent_before] == expected[:sent_before]
        # Only our own token's progress, and none after the answer (PROG-13, PROG-15).
        assert progress == list(range(1, n + 1, 50))
    assert everything.wait(5), f"only {len(heard)} of {len(expected)} notifications were delivered"
    assert heard == expected
    client.ping()


# --- a line over the client's cap ------------------------------------------------------------------------

OVERSIZED = """
    initialize()
    while True:
        request = next_request()
        params = request.get("params", {})
        if "size" not in params:
            send(echo(request))
            continue
        # An over-long line: an answer carrying the caller's own id, or (with "request") a request.
        head = (b'{"jsonrpc":"2.0","id":"big","method":"x/huge","params":{"pad":"' if params.get("request") else
                b'{"jsonrpc":"2.0","id":%d,"result":{"pad":"' % request["id"])
        write(head + b"x" * params["size"] + b'"}}\\n')
        heard = read()  # the client's next message: its complaint about the line, or its next request
        if params.get("request"):
            send(result(request["id"], {"complaint": heard}))
        elif "method" in heard and "id" in heard:
            send(result(heard["id"], {"echo": heard.get("params", {}), "heard first": "its next request"}))
        else:
            send(result(next_request()["id"], {"heard first": heard}))
"""


@pytest.mark.parametrize("cap", [None, 64 * 1024])
def test_an_answer_over_the_line_cap_fails_its_call_at_once_saying_so(connect: Callable[..., Client],
                                                                      cap: int | None) -> None:
    """Waiting could not bring the answer: the call fails at once (not at its timeout), naming the
    limit and max_line_bytes=; an answer is not answered back; the session goes on."""
    client = connect(OVERSIZED, **({"max_line_bytes": cap} if cap else {}))
    limit = cap or MAX_LINE_BYTES
    error = ends_by(4.0, lambda: client.request("x/echo", {"size": limit + 1}, timeout=30), McpError)
    assert error.code == -32600 and "the answer to x/echo" in error.message
    assert f"{limit}-byte limit" in error.message and "max_line_bytes=" in error.message
    # Nothing was said to the server about its answer (an answer is never answered): the first
    # thing it heard after it was the next request.
    assert client.request("x/echo", {"after": 1}) == {"echo": {"after": 1}, "heard first": "its next request"}


def test_a_request_over_the_line_cap_is_answered_32600_and_a_larger_cap_takes_it(connect: Callable[..., Client]) -> None:
    client = connect(OVERSIZED, max_line_bytes=64 * 1024)
    complaint = client.request("x/echo", {"size": 64 * 1024 + 1, "request": True}, timeout=10)["complaint"]
    assert complaint["id"] is None and complaint["error"]["code"] == -32600  # the peer is told, once
    assert "line limit" in complaint["error"]["message"]
    roomy = connect(OVERSIZED, max_line_bytes=256 * 1024)
    assert roomy.request("x/echo", {"size": 100_000}, timeout=10)["pad"] == "x" * 100_000


# --- an answer that came, but not as one: the timeout says what did come --------------------------------------

MISANSWERER = """
    import json
    initialize()
    while True:
        request = next_request()
        i, how = request["id"], request.get("params", {}).get("how")
        if how == "string id":
            send(result(str(i), {"who": "ours, with a string id"}))
        elif how == "another id":
            send(result(i + 1000, {"who": "another's"}))
        elif how == "pretty-printed":
            write(json.dumps(echo(request), indent=2).encode() + b"\\n")
        elif how == "not JSON-RPC":
            send({"jsonrpc": "2.0", "id": i, "outcome": "fine"})
        elif how == "silent":
            pass
        else:
            send(echo(request))
"""

MEANWHILE = {
    "string id": 'an answer with id "{i}", a string, where ours is the integer {i}: an id must come back as it was sent',
    "another id": "an answer with id {other}, which no request of ours waits for",
    "pretty-printed": "a line that is not JSON",
    "not JSON-RPC": "a message that is not JSON-RPC",
}


@pytest.mark.parametrize("how", sorted(MEANWHILE))
def test_a_call_whose_answer_came_in_a_form_it_cannot_take_says_what_came(connect: Callable[..., Client],
                                                                          how: str) -> None:
    """The timeout names what arrived instead of suggesting a longer timeout, which would not help."""
    client = connect(MISANSWERER)
    pending = client.session.start_request("x/echo", {"how": how}, timeout=0.6)
    with pytest.raises(RequestTimeout) as info:
        pending.result()
    message = info.value.message
    assert MEANWHILE[how].format(i=pending.id, other=pending.id + 1000) in message, message
    assert "Pass a larger timeout" not in message
    if how == "pretty-printed":
        assert "over several lines" in message and "more like it" in message
    assert client.request("x/echo", {"how": "well"}, timeout=5) == {"echo": {"how": "well"}}
    with pytest.raises(RequestTimeout) as later:  # what came before a request was sent is not its story
        client.request("x/echo", {"how": "silent"}, timeout=0.3)
    assert "Meanwhile" not in later.value.message and "Pass a larger timeout" in later.value.message


# --- answers that are not ours, or not alone ----------------------------------------------------------------

CONFUSER = """
    initialize()
    while True:
        request = next_request()
        i, mode = request["id"], request.get("params", {}).get("mode")
        strangers = [result(i + 1000, {"who": "an unknown id"}), result(str(i), {"who": "a string id"}),
                     result(float(i), {"who": "a float id"}), result(None, {"who": "a null id"}),
                     error(None, -32700, "Parse error: about nothing we sent")]
        if mode == "strangers, then ours, then duplicates":
            send(*strangers, result(i, {"who": "ours"}), error(i, -32602, "a second answer"), result(i, {"who": "a third"}))
        elif mode == "an error, then a result":
            send(error(i, -32602, "Invalid params: the first answer"), result(i, {"who": "too late"}))
        elif mode == "only ids of the wrong type":
            send(*strangers)
        else:
            send(echo(request))
"""


@pytest.mark.parametrize(("mode", "outcome"), [
    ("strangers, then ours, then duplicates", {"who": "ours"}),
    ("an error, then a result", -32602),
    ("only ids of the wrong type", RequestTimeout),
])
def test_answers_are_matched_by_exact_id_and_only_the_first_counts(
        connect: Callable[..., Client], mode: str, outcome: Any) -> None:
    client = connect(CONFUSER)
    for attempt in range(2):  # the strays of the first round must not answer the second
        call = lambda: client.request("x/confuse", {"mode": mode}, timeout=0.5)  # noqa: E731
        if isinstance(outcome, dict):
            assert call() == outcome
        elif outcome is RequestTimeout:  # "2" and 2.0 are not 2 (MSG-04): nothing answered it
            ends_by(0.5 + 1.0, call, RequestTimeout)
        else:
            error = ends_by(1.0, call, McpError)
            assert isinstance(error, McpError) and error.code == outcome and "the first answer" in error.message
        assert client.request("x/echo", {"attempt": attempt}) == {"echo": {"attempt": attempt}}


# --- the server asks while the caller waits -------------------------------------------------------------------

ASKER = """
    initialize()
    while True:
        request = next_request()
        i = request["id"]
        send(log("asking"),
             {"jsonrpc": "2.0", "id": i, "method": "ping"},  # the id of the client's own pending request
             {"jsonrpc": "2.0", "id": "roots-%d" % i, "method": "roots/list"},
             {"jsonrpc": "2.0", "id": "sample-%d" % i, "method": "sampling/createMessage",
              "params": {"messages": [], "maxTokens": 1}},
             log("asked"))
        got = {}
        while len(got) < 3:
            message = read()
            if "method" not in message:
                got[str(message["id"])] = message
        send(result(i, {"got": got}))
"""

ROOTS = [{"uri": "file:///tmp/project", "name": "project"}]


def test_requests_from_the_server_in_the_middle_are_answered_and_the_caller_gets_its_own(
        connect: Callable[..., Client]) -> None:
    heard: list[Any] = []
    client = connect(ASKER, roots=ROOTS, on_log_message=lambda params: heard.append(params["data"]))
    for _ in range(3):
        outcome = client.request("x/ask", timeout=5)
        i = next(int(key) for key in outcome["got"] if key.isdigit())
        # What the server received, checked on its side: each of its requests answered once.
        assert outcome == {"got": {
            str(i): {"jsonrpc": "2.0", "id": i, "result": {}},  # a request, though it has our id
            f"roots-{i}": {"jsonrpc": "2.0", "id": f"roots-{i}", "result": {"roots": ROOTS}},
            f"sample-{i}": {"jsonrpc": "2.0", "id": f"sample-{i}", "error": outcome["got"][f"sample-{i}"]["error"]},
        }}
        assert outcome["got"][f"sample-{i}"]["error"]["code"] == -32601  # no sampling declared
    assert heard == ["asking", "asked"] * 3


# --- the server's output ends ----------------------------------------------------------------------------------

STDOUT_CLOSER = """
    import os, time
    initialize()
    next_request()
    sys.stdout.flush()
    os.close(1)  # our output ends; the process goes on
    if "{hang}" == "yes":
        time.sleep(30)  # and does not even read its input any more
    while True:
        read()  # until the client closes our stdin
"""


def test_a_server_that_closes_its_stdout_fails_the_call_at_once_and_every_call_after(
        connect: Callable[..., Client]) -> None:
    client = connect(STDOUT_CLOSER.replace("{hang}", "no"))
    error = ends_by(1.0, lambda: client.request("x/echo", timeout=5), ConnectionClosed)
    assert "closed its stdout" in str(error)
    ends_by(0.5, lambda: client.request("x/echo", timeout=5), ConnectionClosed)


def test_a_server_that_closes_its_stdout_and_hangs_does_not_hold_the_caller_past_its_deadline(
        connect: Callable[..., Client]) -> None:
    client = connect(STDOUT_CLOSER.replace("{hang}", "yes"))
    ends_by(0.5 + 1.0, lambda: client.request("x/echo", timeout=0.5), (ConnectionClosed, RequestTimeout))


EXITER = """
    import os
    initialize()
    request = next_request()
    whole = line(echo(request))
    os.close(0)  # our input first: whatever the client writes from now on finds nobody reading
    write(whole if request["params"]["whole"] else whole[:20])
    sys.stderr.write("dying on purpose\\n")
    sys.stderr.flush()
    os._exit(3)
"""


def test_a_server_that_exits_in_the_middle_of_an_answer_fails_the_call_at_once(connect: Callable[..., Client]) -> None:
    client = connect(EXITER)
    ends_by(1.0, lambda: client.request("x/echo", {"whole": False}, timeout=5), ConnectionClosed)
    ends_by(0.5, client.ping, ConnectionClosed)  # and every later call, at once


def test_a_server_that_exits_in_the_middle_of_an_answer_is_said_to_have_exited(connect: Callable[..., Client]) -> None:
    client = connect(EXITER)
    error = ends_by(1.0, lambda: client.request("x/echo", {"whole": False}, timeout=5), ConnectionClosed)
    assert "exited with code 3" in str(error) and "dying on purpose" in str(error)


def test_an_answer_sent_just_before_the_server_exits_still_arrives(connect: Callable[..., Client]) -> None:
    client = connect(EXITER)
    assert client.request("x/echo", {"whole": True}, timeout=5) == {"echo": {"whole": True}}
    ends_by(1.0, client.ping, ConnectionClosed)


# --- notification callbacks that misbehave ----------------------------------------------------------------------

CHATTER = """
    import time
    initialize()
    while True:
        request = next_request()
        params = request.get("params", {})
        if "tag" not in params:
            send(echo(request))
        elif params.get("after"):
            send(echo(request))
            time.sleep(0.05)  # no call waits now: the reader reads what follows
            send(log(params["tag"]))
        else:
            send(log(params["tag"] + "-1"), log(params["tag"] + "-2"), log(params["tag"] + "-3"), echo(request))
"""


def test_a_notification_callback_that_raises_loses_nothing(connect: Callable[..., Client],
                                                           caplog: pytest.LogCaptureFixture) -> None:
    heard: list[str] = []

    def hear(params: dict[str, Any]) -> None:
        heard.append(params["data"])
        if params["data"].endswith("-2"):
            raise ValueError("a bug in the program's callback")

    client = connect(CHATTER, on_log_message=hear)
    with caplog.at_level(logging.ERROR, logger="mcp_ref.session"):
        for tag in "abc":
            assert client.request("x/echo", {"tag": tag}) == {"echo": {"tag": tag}}
            assert heard[-3:] == [f"{tag}-1", f"{tag}-2", f"{tag}-3"]  # all of them, before the answer
    assert len([r for r in caplog.records if "notification handler" in r.getMessage()]) == 3


def test_a_notification_callback_that_sends_a_request_fails_at_once(connect: Callable[..., Client]) -> None:
    attempts: list[tuple[str, type[BaseException] | None, float]] = []
    done = threading.Event()
    holder: list[Client] = []

    def hear(params: dict[str, Any]) -> None:
        start = time.monotonic()
        try:
            holder[0].ping(timeout=5)  # would wait for an answer only this thread could read
            outcome: type[BaseException] | None = None
        except Exception as exc:
            outcome = type(exc)
        attempts.append((params["data"], outcome, time.monotonic() - start))
        if params["data"] == "after":
            done.set()

    client = connect(CHATTER, on_log_message=hear)
    holder.append(client)
    assert client.request("x/echo", {"tag": "x"}) == {"echo": {"tag": "x"}}  # read by the caller, or a member
    assert client.request("x/echo", {"tag": "after", "after": True}) == {"echo": {"tag": "after", "after": True}}
    assert done.wait(5)
    assert [(tag, outcome) for tag, outcome, _ in attempts] == [
        ("x-1", RuntimeError), ("x-2", RuntimeError), ("x-3", RuntimeError), ("after", RuntimeError)]
    assert all(seconds < 1.0 for _, _, seconds in attempts)  # at once, never by a timeout
    client.ping(timeout=5)  # and the session goes on


SILENT = """
    initialize()
    while True:
        next_request()
        send(log("slow to handle"))  # and never an answer
"""


def test_a_slow_notification_callback_does_not_hold_a_call_past_its_deadline(
        connect: Callable[..., Client]) -> None:
    release = threading.Event()
    client = connect(SILENT, on_log_message=lambda params: release.wait(1.8))
    try:
        ends_by(0.5 + 1.0, lambda: client.request("x/echo", timeout=0.5), RequestTimeout)
    finally:
        release.set()


# --- many callers, answers out of order ---------------------------------------------------------------------------

SHUFFLER = """
    import random, time
    rng = random.Random(7)
    initialize()
    while True:
        batch = [next_request() for _ in range(8)]
        rng.shuffle(batch)
        data = b"".join(line(log(r["params"])) + line(echo(r)) for r in batch)
        cuts = sorted(rng.sample(range(1, len(data)), 3))
        for start, end in zip([0, *cuts], [*cuts, len(data)]):
            write(data[start:end])  # in pieces cut anywhere, a moment apart
            time.sleep(0.003)
"""


def test_eight_threads_calling_at_once_each_get_their_own_answer_when_answers_come_out_of_order(
        connect: Callable[..., Client]) -> None:
    heard: list[Any] = []
    client = connect(SHUFFLER, on_log_message=lambda params: heard.append(params["data"]))
    rounds, callers = 10, 8
    barrier = threading.Barrier(callers, timeout=10)
    outcomes: dict[int, list[Any]] = {n: [] for n in range(callers)}

    def work(n: int) -> None:
        for r in range(rounds):
            barrier.wait()
            try:
                outcomes[n].append(client.request("x/echo", {"n": n, "round": r}, timeout=5))
            except Exception as exc:
                outcomes[n].append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(callers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert outcomes == {n: [{"echo": {"n": n, "round": r}} for r in range(rounds)] for n in range(callers)}
    # Every notification was heard once (in the server's shuffled order, not checked here).
    assert sorted((d["round"], d["n"]) for d in heard) == sorted((r, n) for r in range(rounds) for n in range(callers))
