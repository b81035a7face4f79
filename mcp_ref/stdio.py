"""The stdio transport: newline-delimited JSON over a child process's stdin and stdout.

Spec page: basic/transports
Section: stdio (and the Shutdown section of basic/lifecycle)
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

import io
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO, Any, cast

from .machinery.stdio import pipes
from .messages import ConnectionClosed, MessageTooLong

log = logging.getLogger("mcp_ref.stdio")

MAX_LINE_BYTES = 32 * 1024 * 1024
CLOSE_WAIT = 1.0  # seconds close() waits for a writer to let go of the output
READ_CHUNK = 64 * 1024
HEAD_BYTES = 256  # of a line over the cap, kept to find whose answer it was
_BOM = b"\xef\xbb\xbf"


class LineTooLong(MessageTooLong):
    """A line exceeded the framer's cap; it was discarded. Its first bytes (``head``) go with it:
    the session fails at once the request of ours it answers, or answers -32600 when it is none."""


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
        if not self._buffer:  # nothing waiting (and so no newline to look for)
            return None
        while True:
            # TR-02: a message ends at a newline and only there (never at U+2028 or a lone \r)
            end = self._buffer.find(b"\n", self._scanned)
            if end < 0:
                self._scanned = len(self._buffer)
                if self._scanned > self.max_line_bytes:
                    head = bytes(self._buffer[:HEAD_BYTES])
                    self._buffer.clear()
                    self._scanned = 0
                    if not self._discarding:
                        self._discarding = True
                        raise self._too_long(head)
                return None
            line = bytes(self._buffer[:end])
            del self._buffer[: end + 1]
            self._scanned = 0
            if self._discarding:  # the tail of a line already reported
                self._discarding = False
                continue
            if len(line) > self.max_line_bytes:
                raise self._too_long(line[:HEAD_BYTES])
            line = self._clean(line)
            if line:
                return line

    def one_line(self, chunk: bytes) -> bytes | None:
        """``chunk`` as the next message, cleaned, when nothing waits before it and it is exactly
        one line (one newline, at its end, within the cap): the usual read of a pipe is one whole
        message, and this spares it the buffer. None otherwise: then ``feed`` it. A blank line
        comes back as ``b""`` (skip it). A measured gain: benchmarks/RESULTS.md."""
        if self._buffer or self._discarding or chunk.find(b"\n") != len(chunk) - 1 or len(chunk) > self.max_line_bytes:
            return None
        return self._clean(chunk[:-1])

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

    def _too_long(self, head: bytes) -> LineTooLong:
        return LineTooLong(f"Invalid Request: message longer than the {self.max_line_bytes}-byte line limit was discarded",
                           limit=self.max_line_bytes, head=head)


class StdioTransport:
    """Messages over a pair of byte streams (a child's pipes, or our own stdin and stdout).

    Every wait is bounded (machinery/stdio/pipes.py): a write to a pipe or socket waits for room only
    until the caller's deadline, so a peer that stops reading costs a caller its timeout at most,
    and ``close()`` never waits for a stuck write. Reading waits as long as it takes: only the
    session's reader thread reads (machinery/stdio/pipes.py says why that is enough).
    """

    def __init__(self, reader: IO[bytes], writer: IO[bytes], *, max_line_bytes: int = MAX_LINE_BYTES):
        self._read = getattr(reader, "read1", reader.read)  # read1: whatever is there, no waiting for more
        self._writer = writer
        self._fd = pipes.nonblocking_fd(writer)  # None: write plainly
        self._write_lock = threading.Lock()  # one message at a time, whole
        self._framer = NewlineFramer(max_line_bytes)
        self._eof = False
        self._closed = False
        self._broken: str | None = None  # why the output is unusable (a message was cut short)

    def receive(self, timeout: float | None = None) -> bytes | None:
        """The next message, or None at end of input, waiting as long as it takes. (A pipe cannot
        be read with a bound here: ``timeout`` must be None, as the engine's reader passes.)"""
        if timeout is not None:
            raise ValueError("the stdio transport reads without a timeout; only the session's reader thread reads it")
        while True:
            msg = self._framer.next_message()
            if msg is not None:
                return msg
            if self._eof:
                return None
            chunk = self._read(READ_CHUNK)
            if not chunk:
                self._eof = True
                return self._framer.eof()
            line = self._framer.one_line(chunk)
            if line is None:
                self._framer.feed(chunk)
            elif line:
                return line

    def send(self, data: bytes, timeout: float | None = None) -> None:
        """Write ``data`` and a newline, whole, within ``timeout`` seconds (None: no limit).

        ``TimeoutError`` if the peer did not take the message in time; ``OSError`` if the output is
        closed or broken. A message the peer stopped taking halfway cannot be taken back: the output
        is then marked broken, and every later send raises ``OSError`` (the session then closes).
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
                try:
                    pipes.write_all(self._fd, data + b"\n", deadline, self._is_closed)
                except TimeoutError as exc:
                    if exc.args[1]:
                        self._broken = "the peer stopped reading in the middle of a message"
                    raise TimeoutError(exc.args[0]) from None
        finally:
            self._write_lock.release()

    def _is_closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Close the output. A reader or writer waiting for the peer gives up within a poll slice."""
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

    def stats(self) -> dict[str, Any]:  # (machinery/transport.py: nothing queued, a write goes out whole or times out)
        return {"kind": "stdio", "streams": 0, "queued_messages": 0, "queued_bytes": 0}


# --- the client side: the server as a child process ----------------------------------------------

STDIN_CLOSE_GRACE = 2.0  # seconds to exit by itself after stdin closes (LC-17)
TERMINATE_GRACE = 2.0  # seconds after SIGTERM before SIGKILL (LC-18)


class SubprocessTransport(StdioTransport):
    """A server child process, spoken to over its stdin and stdout (machinery/stdio/processes.py starts
    it in a process group of its own and forwards its stderr line by line, to ``on_stderr`` or to
    our ``sys.stderr``)."""

    def __init__(self, command: Sequence[str], *, env: dict[str, str | None] | None = None, inherit_env: bool = True,
                 cwd: str | os.PathLike[str] | None = None, on_stderr: Callable[[str], None] | None = None,
                 max_line_bytes: int = MAX_LINE_BYTES):
        if isinstance(command, str) or not command:
            raise ValueError("command must be a non-empty list of strings, e.g. ['python', 'server.py']")
        from .machinery.stdio import processes  # with the first server spawned: `import mcp_ref` does not pay for it

        self._processes = processes
        self.command = list(command)
        try:
            self.process = processes.spawn(self.command, processes.child_environment(env, inherit_env), cwd)
        except OSError as exc:
            raise ConnectionClosed(f"could not start server {self.command!r}: {exc}") from exc
        assert self.process.stdin is not None and self.process.stdout is not None
        # The unbuffered stream under stdout: the reader thread may still be blocked in a read of it at
        # exit, and a buffered reader's lock held by a daemon thread would abort the interpreter's exit.
        stdout = cast(io.BufferedReader, self.process.stdout).raw
        super().__init__(cast(IO[bytes], stdout), self.process.stdin, max_line_bytes=max_line_bytes)
        # TR-03: the child's stderr is its log, shown as text and never read as protocol
        self._stderr = processes.StderrReader(self.process, on_stderr)
        self.stderr_tail = self._stderr.tail
        self._closing = False

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
        if not self._processes.exited_within(self.process, 0.3):
            return "the server closed its stdout"
        self._stderr.join(timeout=0.2)
        tail = self._stderr.last_words()
        return f"server process exited with code {self.process.returncode}" + (
            f"; its stderr ended with: {tail}" if tail else "")

    def close(self) -> None:
        """LC-16..18: close stdin, wait; SIGTERM, wait; SIGKILL. Safe to call twice."""
        processes, process = self._processes, self.process
        self._closing = True
        super().close()  # LC-16: end of input tells a well-behaved server to exit
        # LC-23: every wait below is bounded, so shutting a server down takes seconds at most
        if not processes.exited_within(process, STDIN_CLOSE_GRACE):
            processes.signal_group(process, signal.SIGTERM)  # LC-17
            if not processes.exited_within(process, TERMINATE_GRACE):
                processes.signal_group(process, processes.KILL)  # LC-18
                processes.exited_within(process, TERMINATE_GRACE)
        if os.name == "posix":
            processes.signal_group(process, signal.SIGKILL)  # leftover grandchildren (npx, shells) go too
        if process.stdout is not None:
            process.stdout.close()
        self._stderr.join(timeout=TERMINATE_GRACE)


# --- the server side: serving on our own stdin and stdout ---------------------------------------


def own_stdio(*, max_line_bytes: int = MAX_LINE_BYTES) -> StdioTransport:
    """A transport on this process's stdin and stdout, for serving one client.

    TR-04: the protocol gets a private duplicate of file descriptor 1, and descriptor 1 itself is
    pointed at stderr for good. A stray ``print()``, a chatty library or a subprocess run by a tool
    then lands on stderr instead of corrupting the message stream, and when the protocol output is
    closed no other copy of it keeps the client waiting. stdin is read unbuffered: a read may still
    be waiting on it when the session ends, and a buffered reader's lock held by that thread would
    abort the interpreter's exit.
    """
    sys.stdout.flush()
    stdout = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # TR-04: descriptor 1 now points at stderr; only the protocol holds the real stdout
    stdin = open(os.dup(0), "rb", buffering=0)  # noqa: SIM115 - the session owns it
    return StdioTransport(stdin, stdout, max_line_bytes=max_line_bytes)
