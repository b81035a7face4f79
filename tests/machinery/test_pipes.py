"""Pipes that cannot hang us (machinery/stdio/pipes.py), on their own.

Not a spec page: the plumbing under stdio.py. Its promises: a pipe or socket we write to is made
non-blocking (``nonblocking_fd``), anything else (a file, an in-memory buffer) is written plainly;
``write_all`` writes what fits and waits for room until the caller's deadline, then raises
``TimeoutError`` saying how many bytes went out; it waits in slices, and ``closed()`` ends its
wait. Real pipes, a reader that stops reading and one that reads slowly. What a client and a
server do with a peer that stops reading is in tests/engine/test_hostile_stdio_servers.py and
tests/pages/test_stdio.py.
"""

from __future__ import annotations

import io
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_ref.machinery.stdio.pipes import nonblocking_fd, write_all

WAIT = 5.0  # seconds: a bound for liveness only
MORE_THAN_A_PIPE_HOLDS = 4 * 1024 * 1024


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    """A pipe's read end and its write end, set non-blocking as the transport sets it."""
    read_fd, write_fd = os.pipe()
    with os.fdopen(write_fd, "wb", closefd=False) as stream:
        assert nonblocking_fd(stream) == write_fd
    yield read_fd, write_fd
    os.close(read_fd)
    os.close(write_fd)


def read_all(fd: int, until: int) -> bytes:
    got = bytearray()
    while len(got) < until:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        got += chunk
    return bytes(got)


def never_closed() -> bool:
    return False


def test_a_pipe_is_made_non_blocking_and_other_outputs_are_left_alone(tmp_path: Path) -> None:
    read_fd, write_fd = os.pipe()
    try:
        with os.fdopen(write_fd, "wb", closefd=False) as stream:
            assert os.get_blocking(write_fd)
            assert nonblocking_fd(stream) == write_fd
            assert not os.get_blocking(write_fd)
    finally:
        os.close(read_fd)
        os.close(write_fd)
    assert nonblocking_fd(io.BytesIO()) is None  # no descriptor
    with open(tmp_path / "out", "wb") as file:
        assert nonblocking_fd(file) is None and os.get_blocking(file.fileno())  # a file never stops reading


def test_what_fits_is_written_whole(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    data = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
    assert write_all(write_fd, data, time.monotonic() + WAIT, never_closed) == len(data)
    assert os.read(read_fd, 1000) == data


def test_a_reader_that_stops_reading_times_the_write_out_saying_how_much_went(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    data = bytes(range(256)) * (MORE_THAN_A_PIPE_HOLDS // 256)
    with pytest.raises(TimeoutError) as caught:
        write_all(write_fd, data, time.monotonic() + 0.05, never_closed)
    assert caught.value.args[0] == "the peer is not reading: its input is full"
    written = caught.value.args[1]
    assert 0 < written < len(data)
    assert read_all(read_fd, written) == data[:written], "args[1] is not what went out"


def test_a_reader_still_reading_gets_all_of_it_though_it_is_more_than_the_pipe_holds(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    data = os.urandom(MORE_THAN_A_PIPE_HOLDS // 4)  # more than the pipe holds: the writer must wait for room
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(read_all(read_fd, len(data))), daemon=True)
    reader.start()
    assert write_all(write_fd, data, time.monotonic() + WAIT * 6, never_closed) == len(data)
    reader.join(WAIT)
    assert got == [data]


def test_closing_ends_a_write_that_waits_for_room_without_a_deadline(pipe: tuple[int, int]) -> None:
    _read_fd, write_fd = pipe
    closed = threading.Event()
    outcome: list[BaseException] = []

    def writer() -> None:
        try:
            write_all(write_fd, b"x" * MORE_THAN_A_PIPE_HOLDS, None, closed.is_set)  # no deadline: only closing ends it
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    closed.set()
    thread.join(WAIT)
    assert not thread.is_alive(), "closed() did not end the wait"
    assert len(outcome) == 1 and isinstance(outcome[0], TimeoutError)
