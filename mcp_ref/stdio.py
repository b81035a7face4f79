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

Framing details (see ../shared/PITFALLS.md): we split only on ``b"\\n"`` (U+2028 may appear
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
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING

from .jsonrpc import ConnectionClosed, InvalidRequest

if TYPE_CHECKING:
    from .session import Session

MAX_LINE_BYTES = 32 * 1024 * 1024
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
        return line if line.strip() else b""

    def _too_long(self) -> LineTooLong:
        return LineTooLong(f"Invalid Request: message longer than the {self.max_line_bytes}-byte line limit was discarded")


class StdioTransport:
    """Messages over a pair of byte streams (a child's pipes, or our own stdin and stdout)."""

    def __init__(self, reader: IO[bytes], writer: IO[bytes], *, max_line_bytes: int = MAX_LINE_BYTES):
        self._reader = reader
        self._read = getattr(reader, "read1", reader.read)  # read1: whatever is there, no waiting for more
        self._writer = writer
        self._write_lock = threading.Lock()  # one message at a time, whole
        self._framer = NewlineFramer(max_line_bytes)
        self._eof = False

    def receive(self) -> bytes | None:
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
            self._framer.feed(chunk)

    def send(self, data: bytes) -> None:
        with self._write_lock:
            self._writer.write(data)
            self._writer.write(b"\n")
            self._writer.flush()  # every message goes out at once

    def close(self) -> None:
        with self._write_lock:
            try:
                self._writer.close()
            except OSError:
                pass

    def describe_close(self) -> str:
        return "end of input"


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
        super().__init__(self.process.stdout, self.process.stdin, max_line_bytes=max_line_bytes)
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._on_stderr = on_stderr or _write_to_our_stderr
        self._stderr_thread = threading.Thread(target=self._drain_stderr, name="mcp_ref-server-stderr", daemon=True)
        self._stderr_thread.start()
        self._closing = False

    def _drain_stderr(self) -> None:
        assert self.process.stderr is not None
        for raw in self.process.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            self.stderr_tail.append(line)
            try:
                self._on_stderr(line)
            except Exception:
                pass
        self.process.stderr.close()

    def describe_close(self) -> str:
        if self._closing:
            return "the client closed the connection"
        try:
            code = self.process.wait(timeout=0.3)
        except subprocess.TimeoutExpired:
            return "the server closed its stdout"
        self._stderr_thread.join(timeout=0.2)
        tail = " | ".join([line.strip() for line in self.stderr_tail if line.strip()][-3:])[-400:]
        return f"server process exited with code {code}" + (f"; its stderr ended with: {tail}" if tail else "")

    def close(self) -> None:
        """LC-16..18: close stdin, wait; SIGTERM, wait; SIGKILL. Safe to call twice."""
        self._closing = True
        super().close()  # LC-16: end of input tells a well-behaved server to exit
        try:
            self.process.wait(timeout=STDIN_CLOSE_GRACE)
        except subprocess.TimeoutExpired:
            self._signal(signal.SIGTERM)  # LC-17
            try:
                self.process.wait(timeout=TERMINATE_GRACE)
            except subprocess.TimeoutExpired:
                self._signal(signal.SIGKILL if os.name == "posix" else signal.SIGTERM)  # LC-18
                self.process.wait(timeout=TERMINATE_GRACE)
        if os.name == "posix":
            self._signal(signal.SIGKILL)  # leftover grandchildren (npx, shells) go too
        if self.process.stdout is not None:
            self.process.stdout.close()
        self._stderr_thread.join(timeout=TERMINATE_GRACE)

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
    """Serve one session on this process's stdin/stdout until stdin ends (LC-19).

    TR-04: with the real stdout, the protocol gets a private duplicate of file descriptor 1, and
    descriptor 1 itself is pointed at stderr for as long as we serve. A stray ``print()``, a
    chatty library or a subprocess run by a tool then lands on stderr instead of corrupting the
    message stream.
    """
    saved_fd = None
    if stdout is None:
        sys.stdout.flush()
        saved_fd = os.dup(1)
        stdout = os.fdopen(os.dup(1), "wb")
        os.dup2(2, 1)
    reader = stdin if stdin is not None else sys.stdin.buffer
    try:
        session = make_session(StdioTransport(reader, stdout, max_line_bytes=max_line_bytes))
        session.run()  # returns at end of input, after failing anything still pending
    except KeyboardInterrupt:
        pass
    finally:
        if saved_fd is not None:
            sys.stdout.flush()
            os.dup2(saved_fd, 1)
            os.close(saved_fd)
