"""Several processes behind one HTTP+SSE endpoint, through a relay (mcp_ref/scaleout/relay.py, redis_relay.py).

Not a spec section: it keeps basic/transports#http-with-sse working when a session's POSTs land
on another process than its stream. Real parts throughout (tests/support/real_parts.py): a real
redis-server on 127.0.0.1 (one per test module, or per test where the test stops it), our
werkzeug server twice in this process (two relays, two Redis connections: two "processes" as
Redis sees them), real gunicorn with gthread workers, and two ``mcp-ref serve`` processes.
"""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest
import requests

from mcp_ref import Client, ConnectionClosed
from mcp_ref.scaleout.redis_relay import RedisRelay
from mcp_ref.scaleout.relay import RelayUnavailable, session_hash
from mcp_ref.sse import SseHttpServer

from ..conftest import Waiters
from ..pages.test_sse import INIT, RawStream, post
from ..peers.relay_app import make_server
from ..support.real_parts import ROOT, Gunicorn, RedisServer

INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
ROOTS = [{"uri": "file:///relay-test", "name": "test"}]


def reply_ok(params: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": {"type": "text", "text": "sampled"}, "model": "test"}


def call(name: str, arguments: dict[str, Any], request_id: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


class RawSession:
    """A session spoken to with requests: its stream read event by event, its POSTs sent to
    whichever process a test names (``via``: a base URL such as http://127.0.0.1:PORT)."""

    def __init__(self, sse_url: str) -> None:
        self.base = sse_url.rsplit("/sse", 1)[0]
        self.stream = RawStream(sse_url)
        event, self.path = self.stream.next_event()
        assert event == "endpoint"
        self.session_id = self.path.split("session_id=", 1)[1]

    def post(self, message: Any, via: str | None = None, **headers: str) -> requests.Response:
        return post((via or self.base) + self.path, message, **headers)

    def next_message(self) -> Any:
        while True:
            event, data = self.stream.next_event()
            if event == "message":
                return json.loads(data)

    def request(self, message: dict[str, Any], via: str | None = None) -> Any:
        answer = self.post(message, via)
        assert answer.status_code == 202, answer.text
        return self.next_message()

    def initialize(self, via: str | None = None) -> None:
        assert self.request(INIT, via)["result"]["protocolVersion"] == "2024-11-05"
        assert self.post(INITIALIZED, via).status_code == 202

    def close(self) -> None:
        self.stream.close()


def base(http: SseHttpServer) -> str:
    return http.url.rsplit("/sse", 1)[0]


def eventually(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    with RedisServer() as running:
        yield running


@pytest.fixture
def pair(redis_server: RedisServer) -> Iterator[tuple[SseHttpServer, SseHttpServer]]:
    """Two servers ("processes" A and B) sharing one Redis; each app owns its relay."""
    with make_server().sse_server(relay=redis_server.url) as a, make_server().sse_server(relay=redis_server.url) as b:
        yield a, b


class SlowHolder(RedisRelay):
    """A holding process that takes ``delay`` seconds to queue each relayed message: a loaded
    process, or a slow network between Redis and it."""

    delay = 0.1

    def __init__(self, url: str) -> None:
        self.reached = threading.Event()  # set when a relayed message has reached this process
        self.hurry = threading.Event()  # set to end the delays
        super().__init__(url)

    def _deliver_relayed(self, key: str, body: bytes, reply_to: str, nonce: str) -> None:
        self.reached.set()
        self.hurry.wait(self.delay)
        super()._deliver_relayed(key, body, reply_to, nonce)


# --- one session, two processes ----------------------------------------------------------------


def test_a_post_through_another_process_is_answered_on_the_sessions_stream(
        pair: tuple[SseHttpServer, SseHttpServer]) -> None:
    a, b = pair
    session = RawSession(a.url)
    try:
        session.initialize(via=base(b))  # every message through B
        answer = session.request(call("pid", {}, 7), via=base(b))
        assert answer["id"] == 7 and answer["result"]["content"][0]["text"] == str(os.getpid())
        assert session.request({"jsonrpc": "2.0", "id": "p", "method": "ping"}, via=base(b)) == {
            "jsonrpc": "2.0", "id": "p", "result": {}}
    finally:
        session.close()


def test_a_client_that_waits_for_each_202_keeps_its_order_across_processes(redis_server: RedisServer) -> None:
    # A's relay takes 0.1 s to queue a relayed message. Were B to answer 202 as soon as it had
    # published, the next ping, POSTed straight to A, would overtake the relayed one.
    holder = SlowHolder(redis_server.url)
    with holder, make_server().sse_server(relay=holder) as a, make_server().sse_server(relay=redis_server.url) as b:
        session = RawSession(a.url)
        try:
            session.initialize()
            for n in range(6):
                ping = {"jsonrpc": "2.0", "id": n, "method": "ping"}  # answered in arrival order
                assert session.post(ping, via=base(b) if n % 2 == 0 else None).status_code == 202
            assert [session.next_message()["id"] for _ in range(6)] == [0, 1, 2, 3, 4, 5]
        finally:
            session.close()


def test_a_post_for_a_session_nobody_holds_is_404_from_every_process_at_once(redis_server: RedisServer) -> None:
    patient = RedisRelay(redis_server.url, ack_timeout=5)  # a 404 must not wait for any acknowledgement
    with patient, make_server().sse_server(relay=redis_server.url) as a, make_server().sse_server(relay=patient) as b:
        session = RawSession(a.url)
        gone = session.base + session.path
        session.initialize()
        for server in (a, b):
            started = time.monotonic()
            answer = post(base(server) + "/messages/?session_id=" + "0" * 32, INIT)
            assert answer.status_code == 404 and "unknown session" in answer.text
            assert time.monotonic() - started < 2
        session.close()  # the stream ends: the session is nowhere any more
        eventually(lambda: a.app.session_count == 0, 5, "A noticed its client left")
        for server in (a, b):
            started = time.monotonic()
            assert post(gone.replace(session.base, base(server)), INIT).status_code == 404
            assert time.monotonic() - started < 2


def test_checks_are_made_where_the_post_arrives_before_anything_is_relayed(
        pair: tuple[SseHttpServer, SseHttpServer], redis_server: RedisServer) -> None:
    a, b = pair
    session = RawSession(a.url)
    try:
        session.initialize()
        published = redis_server.publish_count()
        checks = [
            (session.post(INIT, via=base(b), Host="evil.example"), 421),
            (session.post(INIT, via=base(b), Origin="http://evil.example"), 403),
            (post(base(b) + session.path, INIT, content_type="text/plain"), 415),
            (session.post(b"[" + b"1," * (3 * 1024 * 1024) + b"1]", via=base(b)), 413),
            (session.post(b"{not json", via=base(b)), 400),
        ]
        assert [response.status_code for response, _ in checks] == [status for _, status in checks]
        assert redis_server.publish_count() == published  # nothing went to Redis
        # and nothing reached the session: the next message it answers is the next ping
        assert session.request({"jsonrpc": "2.0", "id": "after", "method": "ping"}, via=base(b))["id"] == "after"
    finally:
        session.close()


def test_a_post_to_the_process_holding_the_session_takes_no_redis_round_trip(
        pair: tuple[SseHttpServer, SseHttpServer], redis_server: RedisServer) -> None:
    a, _ = pair
    session = RawSession(a.url)
    try:
        session.initialize()
        published = redis_server.publish_count()
        for n in range(20):
            assert session.request({"jsonrpc": "2.0", "id": n, "method": "ping"})["id"] == n
        assert redis_server.publish_count() == published
    finally:
        session.close()


def test_is_live_is_true_in_every_process_while_a_process_holds_the_session(
        pair: tuple[SseHttpServer, SseHttpServer]) -> None:
    a, b = pair
    session = RawSession(a.url)
    assert a.app.relay.is_live(session.session_id) and b.app.relay.is_live(session.session_id)
    assert not b.app.relay.is_live("0" * 32)
    session.close()
    eventually(lambda: not b.app.relay.is_live(session.session_id), 5, "the session is live nowhere")
    assert not a.app.relay.is_live(session.session_id)


def test_the_session_id_never_reaches_redis_only_its_hash(
        pair: tuple[SseHttpServer, SseHttpServer], redis_server: RedisServer) -> None:
    a, b = pair
    seen: list[str] = []
    monitoring = threading.Event()
    done = threading.Event()

    def monitor() -> None:  # every command Redis runs, with its arguments
        with redis_server.client().monitor() as commands:
            monitoring.set()
            while not done.is_set():
                try:
                    seen.append(commands.next_command()["command"])
                except Exception:  # the 2 s read timeout: look at `done` again
                    pass

    watcher = threading.Thread(target=monitor, daemon=True)
    watcher.start()
    assert monitoring.wait(5)
    session = RawSession(a.url)  # SUBSCRIBE
    session.initialize(via=base(b))  # PUBLISH, and the acknowledgements
    session.close()  # UNSUBSCRIBE
    eventually(lambda: any("UNSUBSCRIBE" in command for command in seen), 5, "the unsubscription was seen")
    done.set()
    watcher.join(5)
    wire = "\n".join(seen)
    assert session_hash(session.session_id) in wire
    assert session.session_id not in wire


# --- Redis away --------------------------------------------------------------------------------


def test_redis_down_is_503_within_seconds_local_posts_go_on_and_all_comes_back(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="mcp_ref.scaleout.relay")
    with RedisServer() as redis_server, make_server().sse_server(relay=redis_server.url) as a, \
            make_server().sse_server(relay=redis_server.url) as b:
        old = RawSession(a.url)
        old.initialize(via=base(b))
        redis_server.stop()

        started = time.monotonic()
        refused = old.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, via=base(b))
        assert refused.status_code == 503 and time.monotonic() - started < 3
        assert refused.headers["Retry-After"].isdigit() and "Redis" in refused.text  # the reason
        assert str(redis_server.port) not in refused.text  # no address for the world to see (the logs have it)
        assert old.request({"jsonrpc": "2.0", "id": 2, "method": "ping"})["id"] == 2  # straight to A: fine
        new = RawSession(b.url)  # a stream opens on B while Redis is away, and works through B
        new.initialize()

        redis_server.start()  # the same port, as an operator's restart
        eventually(lambda: old.post({"jsonrpc": "2.0", "id": 3, "method": "ping"}, via=base(b)).status_code == 202,
                   10, "B relays to A again")
        assert old.next_message()["id"] == 3
        eventually(lambda: new.post({"jsonrpc": "2.0", "id": 4, "method": "ping"}, via=base(a)).status_code == 202,
                   10, "A relays to B, for a session B opened while Redis was away")
        assert new.next_message()["id"] == 4
        old.close()
        new.close()
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "lost Redis at redis://127.0.0.1:" in logged and "is back" in logged
    assert redis_server.password not in logged + refused.text


def test_a_process_starts_while_redis_is_unreachable_and_works_fully_once_it_is_up(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="mcp_ref.scaleout.relay")
    redis_server = RedisServer()  # its port chosen, nothing listening yet
    with ExitStack() as stack:
        started = time.monotonic()
        a = stack.enter_context(make_server().sse_server(relay=redis_server.url))
        b = stack.enter_context(make_server().sse_server(relay=redis_server.url))
        assert time.monotonic() - started < 5
        assert "cannot reach Redis at redis://127.0.0.1:" in caplog.text
        session = RawSession(a.url)
        session.initialize()  # straight to A: no Redis needed
        refused = session.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, via=base(b))
        assert refused.status_code == 503 and "Retry-After" in refused.headers
        stack.enter_context(redis_server)  # starts it
        eventually(lambda: session.post({"jsonrpc": "2.0", "id": 2, "method": "ping"}, via=base(b)).status_code == 202,
                   10, "B relays to A once Redis is up")
        assert session.next_message()["id"] == 2
        session.close()
    assert redis_server.password not in caplog.text


def test_a_relayed_post_whose_holder_does_not_confirm_in_time_is_503(redis_server: RedisServer) -> None:
    holder, impatient = SlowHolder(redis_server.url), RedisRelay(redis_server.url, ack_timeout=0.2)
    holder.delay = 1.0
    with holder, impatient, make_server().sse_server(relay=holder) as a, make_server().sse_server(relay=impatient) as b:
        session = RawSession(a.url)
        try:
            refused = session.post(INIT, via=base(b))
            assert refused.status_code == 503 and "did not confirm the message within 0.2 s" in refused.text
        finally:
            session.close()


def test_a_relayed_post_whose_holder_dies_before_confirming_is_404_at_once(redis_server: RedisServer) -> None:
    holder, patient = SlowHolder(redis_server.url), RedisRelay(redis_server.url, ack_timeout=10)
    holder.delay = 3
    with patient, make_server().sse_server(relay=holder) as a, make_server().sse_server(relay=patient) as b:
        session = RawSession(a.url)
        posting = Waiters(lambda: session.post(INIT, via=base(b)), 1)
        assert holder.reached.wait(5)  # the message is at the holder, which has not confirmed it
        died = time.monotonic()
        closing = threading.Thread(target=holder.close)  # its Redis connection goes, as with kill -9
        closing.start()
        outcomes = posting.join(5)
        assert [answer.status_code for answer in outcomes] == [404]
        assert time.monotonic() - died < 2  # not the 10 s of ack_timeout
        holder.hurry.set()
        closing.join(5)
        session.close()


# --- the relay as a part: its interface, its thread, its import ---------------------------------


def test_the_relay_thread_stops_with_the_app_that_owns_it(redis_server: RedisServer) -> None:
    http = make_server().sse_server(relay=redis_server.url)
    relay = http.app.relay
    assert isinstance(relay, RedisRelay) and relay._thread is not None and relay._thread.is_alive()
    http.close()
    assert not relay._thread.is_alive()
    with pytest.raises(RelayUnavailable):  # closed: it relays nothing any more
        relay.publish("0" * 32, b"{}")


def test_a_relay_object_is_used_as_given_and_left_to_its_owner(redis_server: RedisServer) -> None:
    relay = RedisRelay(redis_server.url)
    with make_server().sse_server(relay=relay):
        pass
    assert relay._thread is not None and relay._thread.is_alive()  # still the caller's
    relay.close()
    assert not relay._thread.is_alive()


def test_a_bad_relay_is_refused_when_the_app_is_made() -> None:
    server = make_server()
    with pytest.raises(ValueError, match="not a Redis URL") as bad_scheme:
        server.wsgi_app(relay="http://:hunter2@127.0.0.1:6379/0")
    with pytest.raises(ValueError, match="not a Redis URL") as bad_port:
        server.wsgi_app(relay="redis://:hunter2@127.0.0.1:notaport/0")
    assert "hunter2" not in str(bad_scheme.value) + str(bad_port.value)
    with pytest.raises(TypeError, match="hold, release, publish, is_live"):
        server.wsgi_app(relay=42)


def test_importing_mcp_ref_and_serving_without_a_relay_loads_no_redis_code() -> None:
    code = ("import sys, mcp_ref; mcp_ref.Server('x').wsgi_app(); "
            "print([m for m in sys.modules if m == 'redis' or m.startswith('redis.')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.strip() == "[]"


# --- real processes: mcp-ref serve, gunicorn ----------------------------------------------------


def test_two_mcp_ref_serve_processes_on_two_ports_share_one_redis(redis_server: RedisServer) -> None:
    processes = [subprocess.Popen([sys.executable, "-m", "mcp_ref", "serve", "--transport", "sse", "--port", "0",
                                   "--relay", redis_server.url], cwd=ROOT, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(2)]
    try:
        urls = []
        for proc in processes:
            assert proc.stdout is not None
            lines = [proc.stdout.readline(), proc.stdout.readline()]
            assert "relay at redis://127.0.0.1:" in lines[0] and redis_server.password not in lines[0]
            urls.append(re.search(r"at (http://\S+)", lines[1]).group(1))  # type: ignore[union-attr]
        session = RawSession(urls[0])
        via = urls[1].rsplit("/sse", 1)[0]
        session.initialize(via=via)
        tools = session.request({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, via=via)
        assert tools["id"] == 2 and tools["result"]["tools"]
        assert post(via + "/messages/?session_id=" + "0" * 32, INIT).status_code == 404
        session.close()
    finally:
        for proc in processes:
            proc.send_signal(signal.SIGINT)
        for proc in processes:
            try:
                _, errors = proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                _, errors = proc.communicate()
            assert redis_server.password not in errors


def test_mcp_ref_serve_refuses_a_relay_it_cannot_use() -> None:
    def serve(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "mcp_ref", "serve", *args], cwd=ROOT, capture_output=True,
                              text=True, timeout=30, stdin=subprocess.DEVNULL)

    stdio = serve("--relay", "redis://127.0.0.1:6379/0")
    assert stdio.returncode == 2 and "--relay is for --transport sse" in stdio.stderr
    bad = serve("--transport", "sse", "--port", "0", "--relay", "http://:hunter2@127.0.0.1:6379/0")
    assert bad.returncode == 2 and "not a Redis URL" in bad.stderr and "hunter2" not in bad.stderr


def relay_client(url: str) -> Client:
    return Client.sse(url, timeout=15, roots=ROOTS, sampling_handler=reply_ok)


def open_at_once(count: int, opener: Callable[[], Any]) -> list[Any]:
    """``count`` sessions opened by as many threads at once (opened one after another, they
    would pile onto one gunicorn worker)."""
    outcomes = Waiters(opener, count).join(30)
    failures = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
    assert len(outcomes) == count and not failures, failures
    return outcomes


def test_gunicorn_four_workers_many_sessions_many_calls_all_answered(redis_server: RedisServer) -> None:
    # --preload: the app (and its relay) is made before the fork; each worker starts its own.
    with Gunicorn("tests.peers.relay_app:app", workers=4, threads=32, env={"MCP_REF_TEST_RELAY": redis_server.url},
                  args=("--preload",)) as gunicorn:
        published = redis_server.publish_count()
        clients: list[Client] = open_at_once(8, lambda: relay_client(gunicorn.url))
        try:
            def work(client: Client) -> list[str]:
                answers = [client.call_tool("echo", {"text": f"{id(client)}-{n}"})["content"][0]["text"]
                           for n in range(15)]
                answers += [client.call_tool("ask_client", {"tag": str(n)})["content"][0]["text"] for n in range(2)]
                return answers

            results: dict[int, Any] = {}
            threads = [threading.Thread(target=lambda c=c: results.__setitem__(id(c), work(c))) for c in clients]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(60)
            for client in clients:
                expected = [f"{id(client)}-{n}" for n in range(15)] + [f"{n} file:///relay-test sampled" for n in range(2)]
                assert results.get(id(client)) == expected
        finally:
            for client in clients:
                client.close()
        assert redis_server.publish_count() > published  # POSTs did cross workers, through Redis


def test_gunicorn_a_killed_worker_takes_its_sessions_and_only_them(redis_server: RedisServer) -> None:
    # Threads to spare: every stream holds one, and a POST queued behind them would wait.
    with Gunicorn("tests.peers.relay_app:app", workers=4, threads=32,
                  env={"MCP_REF_TEST_RELAY": redis_server.url}) as gunicorn:
        clients: list[Client] = []
        raws: list[RawSession] = []
        try:
            holder: dict[int, int] = {}  # id(session) -> the pid of its worker
            victim = 0
            for _ in range(3):  # sessions land where they land: open more until one worker has both kinds
                clients += open_at_once(4, lambda: relay_client(gunicorn.url))
                raws += open_at_once(4, lambda: RawSession(gunicorn.url))
                for client in clients:
                    holder[id(client)] = int(client.call_tool("pid")["content"][0]["text"])
                for n, raw in enumerate(raws):
                    if id(raw) not in holder:
                        raw.initialize()
                        holder[id(raw)] = int(raw.request(call("pid", {}, n))["result"]["content"][0]["text"])
                both = {holder[id(c)] for c in clients} & {holder[id(r)] for r in raws}
                if both and len(set(holder.values())) > 1:
                    victim = min(both)
                    break
            assert victim, f"sessions did not spread over the workers: {holder}"
            doomed = [c for c in clients if holder[id(c)] == victim]
            # A call whose POST was answered 202: it is in the doomed worker, waiting for its answer.
            pending = doomed[0].session.start_request("tools/call", {"name": "wait", "arguments": {"seconds": 30}},
                                                      timeout=60)
            waiting = Waiters(pending.result, 1)

            os.kill(victim, signal.SIGKILL)

            outcomes = waiting.join(5)  # at once, not after the call's 60 s
            assert len(outcomes) == 1 and isinstance(outcomes[0], ConnectionClosed), outcomes
            eventually(lambda: all(client.session.is_closed for client in doomed), 5, "every doomed client saw its end")
            for client in doomed:
                with pytest.raises(ConnectionClosed):
                    client.call_tool("echo", {"text": "x"}, timeout=5)
            # Gone for good (its listening socket too: connections the kernel gave it meanwhile
            # are reset, as for any process that dies), so from now on the other workers answer.
            eventually(lambda: dead(victim), 5, "the killed worker is gone")
            for raw in (r for r in raws if holder[id(r)] == victim):
                with pytest.raises((AssertionError, requests.RequestException)):  # the stream ended, cut short
                    raw.next_message()
                for _ in range(4):  # whichever worker takes the POST (a new one, too)
                    assert_404_soon(raw)
            for client in (c for c in clients if holder[id(c)] != victim):  # the others go on
                assert client.call_tool("echo", {"text": "still here"})["content"][0]["text"] == "still here"
            for n, raw in enumerate(r for r in raws if holder[id(r)] != victim):
                assert raw.request(call("echo", {"text": "on"}, f"after-{n}"))["result"]["content"][0]["text"] == "on"
        finally:
            for client in clients:
                client.close()
            for raw in raws:
                raw.close()


def assert_404_soon(raw: RawSession) -> None:
    """A POST for a session whose holder died is 404. A worker gunicorn has only just started
    may still be connecting to Redis: it answers 503 (it cannot know yet) for a moment, never 202.
    A connection the kernel had already queued for the dead worker is reset (as for any process
    that dies): that POST is made again, within the same bound."""
    def status() -> int | str:
        try:
            return int(raw.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}).status_code)
        except requests.ConnectionError:
            return "reset"

    statuses = [status()]
    deadline = time.monotonic() + 5
    while statuses[-1] in (503, "reset") and time.monotonic() < deadline:
        time.sleep(0.1)
        statuses.append(status())
    assert statuses[-1] == 404, statuses


def dead(pid: int) -> bool:
    """Exited (a zombie its parent has not reaped yet counts: it holds no sockets any more)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError):  # reaped already (even between the open and the read)
        return True


def test_gunicorn_streams_whose_clients_left_free_their_threads_within_3_s() -> None:
    # One worker, four threads: each open stream holds one. Five rounds of four streams opened
    # and dropped; a round can only open once the last round's threads are free again.
    with Gunicorn("tests.peers.relay_app:app", workers=1, threads=4) as gunicorn:
        for _ in range(5):
            started = time.monotonic()
            streams = open_at_once(4, lambda: RawSession(gunicorn.url))
            assert time.monotonic() - started < 3 + 1  # 3 s for the threads, 1 for a loaded machine
            for stream in streams:
                stream.close()
        with relay_client(gunicorn.url) as client:
            assert client.call_tool("echo", {"text": "free"})["content"][0]["text"] == "free"


def test_a_stream_whose_socket_cannot_be_watched_still_ends_within_seconds_after_its_client_left() -> None:
    # Some WSGI servers do not give the socket: the stream then writes a comment every second,
    # and the write to a departed client is what ends it.
    from werkzeug.serving import make_server as werkzeug_server

    app = make_server().wsgi_app()

    def blind(environ: dict[str, Any], start_response: Any) -> Any:
        return app({k: v for k, v in environ.items() if k != "werkzeug.socket"}, start_response)

    http = werkzeug_server("127.0.0.1", 0, blind, threaded=True)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    try:
        session = RawSession(f"http://127.0.0.1:{http.server_port}/sse")
        assert session.stream.next_event() == (None, ": keepalive")  # within the second
        session.close()
        eventually(lambda: app.session_count == 0, 4, "the session ended after its client left")
    finally:
        http.shutdown()
        http.server_close()
        app.close()
