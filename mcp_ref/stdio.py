"""The stdio transport: newline-delimited JSON over a child process's stdin and stdout.

Spec page: basic/transports, section stdio (and basic/lifecycle, section Shutdown)
https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#stdio

In short:

1. The client starts the server as a child process. The server reads messages from its stdin
   and writes messages to its stdout, one JSON text per line; a message never contains a raw
   newline (TR-02), which compact JSON guarantees.
2. Nothing but protocol messages goes to the server's stdout (TR-04) and nothing but protocol
   messages to its stdin (TR-05). The server may log to stderr (TR-03); this client keeps the
   child's stderr visible (forwarded line by line) and remembers its last lines for errors.
3. Shutdown (LC-16..18): the client closes the child's stdin, waits, then sends SIGTERM, waits,
   then SIGKILL, to the whole process group (wrappers such as ``npx`` leave grandchildren).
   A server exits by itself when its stdin reaches end of file (LC-19).

Framing details (what other implementations tripped over): we split only on ``b"\\n"`` (U+2028 may appear
raw inside a JSON string); we tolerate a trailing ``\\r`` and a UTF-8 byte-order mark; we read
and write bytes and let JSON decoding handle UTF-8. A line longer than ``MAX_LINE_BYTES``
(32 MiB by default) is discarded and answered with -32600, so a runaway peer cannot exhaust
memory.

Environment: a spawned server inherits this process's whole environment, with ``env`` applied
on top (a value of None removes a variable). Pass a small ``env`` and ``inherit_env=False``
for a server that should see only what you give it.
"""

from __future__ import annotations

import collections
import io
import logging
import os
import select
import signal
import stat
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING, cast

from .messages import ConnectionClosed, InvalidRequest

if TYPE_CHECKING:
    from .session import Session

log = logging.getLogger("mcp_ref.stdio")

MAX_LINE_BYTES = 32 * 1024 * 1024
POLL_SLICE = 0.05  # seconds a blocked writer sleeps between checks that the transport is open
CLOSE_WAIT = 1.0  # seconds close() waits for a writer to let go of the output
READ_CHUNK = 64 * 1024
_BOM = b"\xef\xbb\xbf"


class LineTooLong(InvalidRequest):
    """A line exceeded the framer's cap; it was discarded (the session answers -32600)."""


class NewlineFramer:
    """Splits a byte stream into lines, sans I/O: ``feed()`` bytes, then ``next_message()``.

    ``next_message()`` returns one complete line (without ``\\n``, ``\\r`` or BOM), or None when
    more bytes are needed; it raises ``LineTooLong`` once for each line over the cap and then
    skips the rest of that line. Blank lines are skipped. ``eof()`` returns a final line that
    had no newline, if any.
    """

    def __init__(self, max_line_bytes: int = MAX_LINE_BYTES):
        self.max_line_bytes = max_line_bytes
        self._buffer = bytearray()
        self._scanned = 0  # bytes of _buffer already known to hold no newline
        self._discarding = False  # inside an over-long line, dropping bytes until its newline

    def feed(self, data: bytes) -> None:
        self._buffer += data

    def next_message(self) -> bytes | None:
        while True:
            # TR-02: a message ends at a newline and only there (never at U+2028 or a lone \r)
            end = self._buffer.find(b"\n", self._scanned)
            if end < 0:
                self._scanned = len(self._buffer)
                if self._scanned > self.max_line_bytes:
                    self._buffer.clear()
                    self._scanned = 0
                    if not self._discarding:
                        self._discarding = True
                        raise self._too_long()
                return None
            line = bytes(self._buffer[:end])
            del self._buffer[: end + 1]
            self._scanned = 0
            if self._discarding:  # the tail of a line already reported
                self._discarding = False
                continue
            if len(line) > self.max_line_bytes:
                raise self._too_long()
            line = self._clean(line)
            if line:
                return line

    def eof(self) -> bytes | None:
        """The stream ended: return a last unterminated line, if there is one."""
        line = b"" if self._discarding else self._clean(bytes(self._buffer))
        self._buffer.clear()
        self._discarding = False
        return line or None

    @staticmethod
    def _clean(line: bytes) -> bytes:
        if line.endswith(b"\r"):  # a Windows peer
            line = line[:-1]
        if line.startswith(_BOM):
            line = line[3:]
        return b"" if not line or line.isspace() else line

    def _too_long(self) -> LineTooLong:
        return LineTooLong(f"Invalid Request: message longer than the {self.max_line_bytes}-byte line limit was discarded")


class StdioTransport:
    """Messages over a pair of byte streams (a child's pipes, or our own stdin and stdout).

    Writing is bounded (see ``send``): on a pipe or socket the output is switched to
    non-blocking mode and we wait for room with ``poll``, in short slices, until the caller's
    deadline. A peer that stops reading therefore costs a caller at most its timeout, and
    ``close()`` never waits for a stuck write. Other outputs (a terminal, a file, an in-memory
    buffer) are written plainly: they do not stop reading.
    """

    def __init__(self, reader: IO[bytes], writer: IO[bytes], *, max_line_bytes: int = MAX_LINE_BYTES):
        self._reader = reader
        self._read = getattr(reader, "read1", reader.read)  # read1: whatever is there, no waiting for more
        # An unbuffered pipe or socket can be waited on with a timeout (receive(timeout), for
        # crew.py rule 6): with no buffer in between, poll sees every byte there is to read.
        in_fd = _pipe_fd(reader) if isinstance(reader, io.RawIOBase) else None
        self.timed_receive = in_fd is not None
        if in_fd is not None:
            self._readable = select.poll()
            self._readable.register(in_fd, select.POLLIN)
        self._writer = writer
        self._fd = _pollable_fd(writer)  # None: write plainly
        self._write_lock = threading.Lock()  # one message at a time, whole
        self._framer = NewlineFramer(max_line_bytes)
        self._eof = False
        self._closed = False
        self._broken: str | None = None  # why the output is unusable (a message was cut short)

    def receive(self, timeout: float | None = None) -> bytes | None:
        """The next message, or None at end of input. With a ``timeout`` (seconds; only when
        ``timed_receive``), ``TimeoutError`` if no whole message came in time."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            msg = self._framer.next_message()
            if msg is not None:
                return msg
            if self._eof:
                return None
            if deadline is not None and not self._wait_readable(deadline):
                raise TimeoutError("no message within the timeout")
            chunk = self._read(READ_CHUNK)
            if not chunk:
                self._eof = True
                return self._framer.eof()
            self._framer.feed(chunk)

    def send(self, data: bytes, timeout: float | None = None) -> None:
        """Write ``data`` and a newline, whole, within ``timeout`` seconds (None: no limit).

        ``TimeoutError`` if the peer did not take the message in time; ``OSError`` if the
        output is closed or broken. A message the peer stopped taking halfway cannot be taken
        back: the output is then marked broken, and every later send raises ``OSError`` (the
        session then closes, saying why).
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        if self._closed or self._broken:  # say so at once, without queueing for the lock
            raise OSError(self._broken or "the transport is closed")
        if not self._write_lock.acquire(timeout=-1 if timeout is None else max(timeout, 0)):
            raise TimeoutError(f"another message has waited {timeout:g} s for the peer to read; it is not reading")
        try:
            if self._closed or self._broken:
                raise OSError(self._broken or "the transport is closed")
            # TR-02, TR-05: one encoded message and its newline, nothing else
            if self._fd is None:
                self._writer.write(data + b"\n")
                self._writer.flush()  # every message goes out at once
            else:
                self._write_bounded(self._fd, data + b"\n", deadline)
        finally:
            self._write_lock.release()

    def _write_bounded(self, fd: int, buffer: bytes, deadline: float | None) -> None:
        view = memoryview(buffer)
        written = 0
        while written < len(buffer):
            try:
                written += os.write(fd, view[written:])  # non-blocking: takes what fits
                continue
            except BlockingIOError:
                pass
            if not self._wait_writable(fd, deadline):
                if written:
                    self._broken = "the peer stopped reading in the middle of a message"
                raise TimeoutError("the peer is not reading: its input is full")

    def _wait_readable(self, deadline: float) -> bool:
        """Wait until the input has bytes (or its end); False when the deadline passes or the
        transport closes. One reader at a time (session.Transport), so one poll object will do."""
        return self._wait(self._readable, deadline)

    def _wait_writable(self, fd: int, deadline: float | None) -> bool:
        """Wait until ``fd`` has room (or an error the next write will report); False when the
        deadline passes or the transport closes."""
        poller = select.poll()  # poll, unlike select, works for any descriptor number
        poller.register(fd, select.POLLOUT)
        return self._wait(poller, deadline)

    def _wait(self, poller: select.poll, deadline: float | None) -> bool:
        """Poll in slices of ``POLL_SLICE`` until ``poller`` reports its descriptor ready (True),
        the deadline passes or the transport closes (False): close() never waits for a reader or
        writer for longer than a slice."""
        while not self._closed:
            left = POLL_SLICE if deadline is None else min(POLL_SLICE, deadline - time.monotonic())
            if left <= 0:
                return False
            if poller.poll(left * 1000):
                return True
        return False

    def close(self) -> None:
        """Close the output. A writer waiting for the peer gives up within ``POLL_SLICE``."""
        self._closed = True
        if not self._write_lock.acquire(timeout=CLOSE_WAIT):
            log.debug("closing stdio output while a write is still stuck; leaving it to the process's end")
            return
        try:
            self._writer.close()
        except OSError:
            pass
        finally:
            self._write_lock.release()

    def describe_close(self) -> str:
        return "end of input"


def _pipe_fd(stream: IO[bytes]) -> int | None:
    """The descriptor of ``stream`` if it is a pipe or socket (which poll can wait on); else None."""
    try:
        fd = stream.fileno()
        mode = os.fstat(fd).st_mode
    except (AttributeError, OSError, ValueError):  # io.BytesIO and friends have no descriptor
        return None
    if os.name != "posix" or not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return None
    return fd


def _pollable_fd(stream: IO[bytes]) -> int | None:
    """The descriptor of ``stream`` set non-blocking, if it is a pipe or socket; else None."""
    fd = _pipe_fd(stream)
    if fd is None:
        return None
    stream.flush()
    os.set_blocking(fd, False)
    return fd


# --- the client side: spawning a server ---------------------------------------------------------

STDIN_CLOSE_GRACE = 2.0  # seconds to exit by itself after stdin closes (LC-17)
TERMINATE_GRACE = 2.0  # seconds after SIGTERM before SIGKILL (LC-18)
STDERR_TAIL_LINES = 20


class SubprocessTransport(StdioTransport):
    """A server child process, spoken to over its stdin and stdout.

    The child's stderr is read by a thread owned by this transport (it ends when the child
    and everything holding its stderr have exited) and handed line by line to ``on_stderr``;
    by default each line is written to our ``sys.stderr`` as it is at that moment (which also
    works under Jupyter and pytest, whose sys.stderr has no file descriptor).
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        env: dict[str, str | None] | None = None,
        inherit_env: bool = True,
        cwd: str | os.PathLike[str] | None = None,
        on_stderr: Callable[[str], None] | None = None,
        max_line_bytes: int = MAX_LINE_BYTES,
    ):
        if isinstance(command, str) or not command:
            raise ValueError("command must be a non-empty list of strings, e.g. ['python', 'server.py']")
        child_env = dict(os.environ) if inherit_env else {}
        for key, value in (env or {}).items():
            if value is None:
                child_env.pop(key, None)
            else:
                child_env[key] = value
        self.command = list(command)
        import subprocess  # here, with the first server spawned: `import mcp_ref` does not pay for it

        try:
            self.process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=child_env,
                cwd=cwd,
                start_new_session=(os.name == "posix"),  # its own process group, killed as one
            )
        except OSError as exc:
            raise ConnectionClosed(f"could not start server {self.command!r}: {exc}") from exc
        assert self.process.stdin is not None and self.process.stdout is not None
        # The unbuffered stream under stdout: a caller may wait for it with a timeout (receive).
        stdout = cast(io.BufferedReader, self.process.stdout).raw
        super().__init__(cast(IO[bytes], stdout), self.process.stdin, max_line_bytes=max_line_bytes)
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._on_stderr = on_stderr or _write_to_our_stderr
        self._stderr_thread = threading.Thread(target=self._drain_stderr, name="mcp_ref-server-stderr", daemon=True)
        self._stderr_thread.start()
        self._closing = False

    def _drain_stderr(self) -> None:
        assert self.process.stderr is not None
        # TR-03: the child's stderr is its log, shown as text and never read as protocol
        for raw in self.process.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            self.stderr_tail.append(line)
            try:
                self._on_stderr(line)
            except Exception:
                pass
        self.process.stderr.close()

    def send(self, data: bytes, timeout: float | None = None) -> None:
        try:
            super().send(data, timeout)
        except BrokenPipeError:
            # The child closed its stdin, most often by exiting: say so, with its exit code and
            # last stderr lines, rather than only "broken pipe".
            raise BrokenPipeError(f"the server stopped reading: {self.describe_close()}") from None

    def describe_close(self) -> str:
        if self._closing:
            return "the client closed the connection"
        if not self._exited_within(0.3):
            return "the server closed its stdout"
        code = self.process.returncode
        self._stderr_thread.join(timeout=0.2)
        tail = " | ".join([line.strip() for line in self.stderr_tail if line.strip()][-3:])[-400:]
        return f"server process exited with code {code}" + (f"; its stderr ended with: {tail}" if tail else "")

    def close(self) -> None:
        """LC-16..18: close stdin, wait; SIGTERM, wait; SIGKILL. Safe to call twice."""
        self._closing = True
        super().close()  # LC-16: end of input tells a well-behaved server to exit
        # LC-23: every wait below is bounded, so shutting a server down takes seconds at most
        if not self._exited_within(STDIN_CLOSE_GRACE):
            self._signal(signal.SIGTERM)  # LC-17
            if not self._exited_within(TERMINATE_GRACE):
                self._signal(signal.SIGKILL if os.name == "posix" else signal.SIGTERM)  # LC-18
                self._exited_within(TERMINATE_GRACE)
        if os.name == "posix":
            self._signal(signal.SIGKILL)  # leftover grandchildren (npx, shells) go too
        if self.process.stdout is not None:
            self.process.stdout.close()
        self._stderr_thread.join(timeout=TERMINATE_GRACE)

    def _exited_within(self, seconds: float) -> bool:
        import subprocess

        try:
            self.process.wait(timeout=seconds)
            return True
        except subprocess.TimeoutExpired:
            return False

    def _signal(self, sig: int) -> None:
        try:
            if os.name == "posix":
                os.killpg(self.process.pid, sig)
            else:
                self.process.send_signal(sig)
        except (ProcessLookupError, PermissionError):
            pass  # already gone


def _write_to_our_stderr(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


# --- the server side: serving on our own stdin and stdout ---------------------------------------


def serve(make_session: Callable[[StdioTransport], Session], *,
          stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None,
          max_line_bytes: int = MAX_LINE_BYTES) -> None:
    """Serve one session on this process's stdin/stdout; return when it ends.

    It ends when stdin reaches end of file (LC-19: the client closed it), or when the server
    closes the session itself: the protocol output is closed, so the client sees end of stream,
    and this function returns even though nobody closed stdin.

    TR-04: with the real stdout, the protocol gets a private duplicate of file descriptor 1, and
    descriptor 1 itself is pointed at stderr for good. A stray ``print()``, a chatty library or a
    subprocess run by a tool then lands on stderr instead of corrupting the message stream, and
    when the protocol output is closed no other copy of it keeps the client waiting.
    """
    if stdout is None:
        sys.stdout.flush()
        stdout = os.fdopen(os.dup(1), "wb")
        # TR-04: descriptor 1 now points at stderr; only the protocol holds the real stdout
        os.dup2(2, 1)
    # Unbuffered: a read may still be waiting on stdin when we return (the server ended the
    # session), and a buffered reader's lock held by that thread would abort interpreter exit.
    reader = stdin if stdin is not None else open(os.dup(0), "rb", buffering=0)  # noqa: SIM115 - the session owns it
    session = make_session(StdioTransport(reader, stdout, max_line_bytes=max_line_bytes))
    session.start()  # the reader thread; a read stuck on stdin cannot hold this function
    # LC-19: done at end of stdin, or when the server ends the session itself
    try:
        session.closed.wait()
    except KeyboardInterrupt:
        session.close("interrupted")
