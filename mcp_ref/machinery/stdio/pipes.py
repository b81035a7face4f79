"""Pipes that cannot hang us: writes bounded by a deadline.

Not a spec section: the plumbing under stdio.py (basic/transports, stdio). A plain write to a
pipe blocks for as long as the reader at the other end does not read: a peer that stops reading
would hold the writing thread (a caller, or a handler sending its answer) for ever. So:

1. A pipe or socket we write to is switched to non-blocking mode; a write takes what fits, and
   for the rest we wait for room with ``poll``, until the caller's deadline.
2. The wait is in slices of ``POLL_SLICE`` seconds, checking in between whether the transport
   was closed: ``close()`` never waits long for a writer.

Reads need none of this: the session's reader thread waits for the peer's next message as long
as it takes. A peer that stops writing holds only that thread (a daemon), and every caller waits
for its answer with a timeout of its own (outgoing.py).

Other outputs (a terminal, a file, an in-memory buffer) are written plainly: they do not stop
reading. ``poll`` is used rather than ``select`` because it works for any descriptor number.
"""

from __future__ import annotations

import os
import select
import stat
import time
from collections.abc import Callable
from typing import IO

POLL_SLICE = 0.05  # seconds a waiting writer sleeps between checks that the transport is open


def nonblocking_fd(stream: IO[bytes]) -> int | None:
    """The descriptor of ``stream``, set non-blocking, if it is a pipe or socket (which poll can
    wait on); else None (it is then written plainly)."""
    try:
        fd = stream.fileno()
        mode = os.fstat(fd).st_mode
    except (AttributeError, OSError, ValueError):  # io.BytesIO and friends have no descriptor
        return None
    if os.name != "posix" or not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return None
    stream.flush()
    os.set_blocking(fd, False)
    return fd


def wait(poller: select.poll, deadline: float | None, closed: Callable[[], bool]) -> bool:
    """Poll in slices until ``poller`` reports its descriptor ready (True), or the deadline passes
    or ``closed()`` (False)."""
    while not closed():
        left = POLL_SLICE if deadline is None else min(POLL_SLICE, deadline - time.monotonic())
        if left <= 0:
            return False
        if poller.poll(left * 1000):
            return True
    return False


def write_all(fd: int, data: bytes, deadline: float | None, closed: Callable[[], bool]) -> int:
    """Write ``data`` to the non-blocking ``fd`` before the deadline. Returns len(data); when the
    peer takes nothing more in time, raises ``TimeoutError`` whose ``args[1]`` is how many bytes
    went out (a message cut short cannot be taken back)."""
    try:
        written = os.write(fd, data)  # the usual case: the pipe has room for all of it
    except BlockingIOError:
        written = 0
    view = memoryview(data)
    while written < len(data):
        try:
            written += os.write(fd, view[written:])  # takes what fits
            continue
        except BlockingIOError:
            pass
        poller = select.poll()
        poller.register(fd, select.POLLOUT)  # room, or an error the next write will report
        if not wait(poller, deadline, closed):
            raise TimeoutError("the peer is not reading: its input is full", written)
    return written
