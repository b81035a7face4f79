"""Writing event streams from a WSGI application (machinery/http/event_streams.py), on its own.

Not a spec page: the plumbing under the HTTP transports' event streams, and the Host/Origin
checks their pages ask for (TR-06). Its promises: ``sse_event`` is one event's bytes, its data on
one ``data:`` line; ``hostname`` is a Host header's name; ``origin_allowed`` lets through no Origin
(not a browser), one of ``allowed_origins`` (``*``: any), or by default a localhost one only;
``peer_gone`` tells, from the client's socket, that the client closed its end; the
``SseStreamWriter`` turns a source of messages into ``message`` events, writes a keep-alive comment
after ``keepalive`` seconds of silence, and ends when the source ends, the client leaves,
``is_last`` says so or ``still_wanted()`` says no; ``next_message`` waits until a deadline.
Real socket pairs stand for clients. The checks over real HTTP servers are in tests/pages/test_sse.py.
"""

from __future__ import annotations

import queue
import socket
import time
from collections.abc import Iterator

import pytest

from mcp_ref.machinery.http import event_streams
from mcp_ref.machinery.http.event_streams import SseStreamWriter, hostname, origin_allowed, peer_gone, sse_event

WAIT = 5.0  # seconds: a bound for liveness only


@pytest.fixture
def sockets() -> Iterator[tuple[socket.socket, socket.socket]]:
    """The server's end of a connection, and the client's."""
    ours, theirs = socket.socketpair()
    yield ours, theirs
    ours.close()
    theirs.close()


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer looks at an idle stream every 10 ms instead of every half second."""
    monkeypatch.setattr(event_streams, "POLL_SECONDS", 0.01)


def test_sse_event_puts_the_data_on_one_data_line_and_ends_with_a_blank_line() -> None:
    data = b'{"jsonrpc":"2.0","id":1,"result":{}}'
    assert sse_event("message", data) == b'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n'
    assert sse_event("endpoint", b"/messages/?session_id=abc") == b"event: endpoint\ndata: /messages/?session_id=abc\n\n"


@pytest.mark.parametrize(("host", "name"), [("example.com:8000", "example.com"), ("localhost", "localhost"),
                                             ("[::1]:8000", "::1"), ("127.0.0.1:1", "127.0.0.1"),
                                             ("EXAMPLE.com", "example.com"), ("", "")])
def test_hostname_is_the_name_of_a_host_header(host: str, name: str) -> None:
    assert hostname(host) == name


@pytest.mark.parametrize(("origin", "allowed"), [
    (None, True),  # not a browser
    ("http://localhost:3000", True), ("https://127.0.0.1", True), ("http://[::1]:8080", True),
    ("http://evil.example", False), ("http://localhost.evil.example", False), ("http://127.0.0.1.evil.example", False),
    ("null", False), ("file://localhost", False), ("chrome-extension://localhost", False),
])
def test_by_default_only_a_localhost_origin_or_none_is_allowed(origin: str | None, allowed: bool) -> None:
    assert origin_allowed(origin, None) is allowed


def test_allowed_origins_replace_the_default_and_star_allows_any() -> None:
    chosen = frozenset({"https://app.example"})
    assert origin_allowed("https://app.example", chosen)
    assert not origin_allowed("http://app.example", chosen)
    assert not origin_allowed("http://localhost:3000", chosen), "a list of origins is the whole list"
    assert origin_allowed(None, chosen)
    assert origin_allowed("http://evil.example", frozenset({"*"}))


def test_peer_gone_is_true_once_the_client_closed_its_end(sockets: tuple[socket.socket, socket.socket]) -> None:
    ours, theirs = sockets
    assert peer_gone(None) is False  # cannot tell
    assert peer_gone(ours) is False
    theirs.sendall(b"x")  # readable, but not the end (a stream's client sends nothing, but if it did)
    assert peer_gone(ours) is False
    assert ours.recv(1) == b"x"
    theirs.close()
    assert peer_gone(ours) is True
    ours.close()
    assert peer_gone(ours) is True


def source_of(*items: bytes | None) -> queue.Queue[bytes | None]:
    box: queue.Queue[bytes | None] = queue.Queue()
    for item in items:
        box.put(item)
    return box


def test_events_are_message_events_until_the_source_ends(sockets: tuple[socket.socket, socket.socket]) -> None:
    writer = SseStreamWriter(sockets[0], keepalive=600)
    events = list(writer.events(source_of(b'{"a":1}', b'{"b":2}', None, b"never")))
    assert events == [sse_event("message", b'{"a":1}'), sse_event("message", b'{"b":2}')]


def test_is_last_ends_the_stream_after_the_message_it_names(sockets: tuple[socket.socket, socket.socket]) -> None:
    writer = SseStreamWriter(sockets[0], keepalive=600)
    events = list(writer.events(source_of(b"1", b"2", b"3"), is_last=lambda data: data == b"2"))
    assert events == [sse_event("message", b"1"), sse_event("message", b"2")]


def test_an_idle_stream_writes_a_keepalive_comment(quick: None, sockets: tuple[socket.socket, socket.socket]) -> None:
    writer = SseStreamWriter(sockets[0], keepalive=0.02)
    stream = writer.events(source_of())
    assert next(stream) == b": keepalive\n\n"
    stream.close()


def test_a_stream_whose_socket_cannot_be_watched_writes_keepalives_at_least_every_second() -> None:
    assert SseStreamWriter(None, keepalive=15).keepalive == event_streams.BLIND_KEEPALIVE_SECONDS
    assert SseStreamWriter(None, keepalive=0.3).keepalive == 0.3


def test_the_stream_ends_when_its_client_leaves(quick: None, sockets: tuple[socket.socket, socket.socket]) -> None:
    ours, theirs = sockets
    theirs.close()
    writer = SseStreamWriter(ours, keepalive=600)
    assert list(writer.events(source_of())) == []  # (were it not noticed, this would never return)


def test_the_stream_ends_when_it_is_no_longer_wanted(quick: None, sockets: tuple[socket.socket, socket.socket]) -> None:
    asked: list[bool] = []

    def still_wanted() -> bool:
        asked.append(True)
        return len(asked) < 2

    writer = SseStreamWriter(sockets[0], keepalive=600, still_wanted=still_wanted, check_every=0)
    assert list(writer.events(source_of())) == [] and len(asked) == 2


def test_next_message_waits_until_the_deadline_and_says_when_the_client_left(
        quick: None, sockets: tuple[socket.socket, socket.socket]) -> None:
    ours, theirs = sockets
    writer = SseStreamWriter(ours, keepalive=600)
    assert writer.next_message(source_of(b"now"), deadline=time.monotonic() + WAIT) == b"now"
    with pytest.raises(queue.Empty):
        writer.next_message(source_of(), deadline=time.monotonic() + 0.03)
    theirs.close()
    assert writer.next_message(source_of()) is None
    unwanted = SseStreamWriter(None, keepalive=600, still_wanted=lambda: False, check_every=0)
    assert unwanted.next_message(source_of()) is None
