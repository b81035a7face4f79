"""The stdio wire: a server under test as a child process, every line of its stdout recorded.

Not a spec section: the checker's stdio transport (wire.py holds what it shares with the SSE
wire). The server command runs in a process group of its own, so that closing the wire (stdin
closed, then SIGTERM, then SIGKILL) reaches the children of a wrapper command too, and its exit
is noticed even when a grandchild keeps its stdout open.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import threading
from collections import deque

from .wire import LIVE, ConnectFailed, Wire, parse

EXIT_GRACE = 0.5  # seconds the stdout of an exited server may stay open before the kit stops waiting


class StdioWire(Wire):
    """The server command as a child process; every line it writes on stdout is recorded."""

    kind = "stdio"

    def __init__(self, command: str | list[str], timeout: float) -> None:
        super().__init__(timeout)
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise ConnectFailed("the server command is empty")
        self.stderr_tail: deque[str] = deque(maxlen=20)
        self.exit_code: int | None = None
        self.orphaned = False  # the process exited while a child of it still held its stdout
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         start_new_session=(os.name == "posix"))
        except OSError as exc:
            raise ConnectFailed(f"could not start {argv[0]!r}: {exc}") from exc
        LIVE.add(self)
        threading.Thread(target=self._read_stdout, name="check-stdout", daemon=True).start()
        threading.Thread(target=self._read_stderr, name="check-stderr", daemon=True).start()
        threading.Thread(target=self._watch, name="check-exit", daemon=True).start()

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        self._read_lines(getattr(self.proc.stdout, "read1", self.proc.stdout.read))
        self.closed_by_peer = True
        self._end()

    def _watch(self) -> None:
        """Notice the server's exit even when a grandchild still holds its stdout open."""
        self.exit_code = self.proc.wait()
        if self.ended.wait(EXIT_GRACE):
            return
        self.orphaned = True
        self.note(f"the server process exited with status {self.exit_code}, but its stdout stayed open "
                  "(a child process holds it): the connection is treated as ended")
        self.closed_by_peer = True
        self._end()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        try:
            while line := self.proc.stderr.readline(4096):
                self.stderr_tail.append(line.decode("utf-8", "replace").rstrip())
        except (OSError, ValueError):
            pass

    def describe_end(self) -> str:
        """How the server's side ended, in words: its exit status if it exited."""
        code = self.wait_exit(EXIT_GRACE)  # its stdout has just closed: the exit is usually a moment away
        if code is None:
            return "closed its stdout"
        return f"exited with status {code}"

    def send_raw(self, data: bytes) -> None:
        """Write ``data`` and a newline (unless it already ends with one)."""
        line = data if data.endswith(b"\n") else data + b"\n"
        text, msg, _ = parse(line.rstrip(b"\n"))
        self._record("sent", text, msg)
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line)
            self.proc.stdin.flush()
        except (OSError, ValueError):
            self.note("could not write: the server's stdin is closed")

    def send_bounded(self, data: bytes, seconds: float, label: str) -> bool:
        """Write ``data`` (any size, already framed) within ``seconds``, or give up: False when the
        server stopped reading its stdin. Recorded as a note (``label``), not as a message."""
        self.note(f"wrote {label} ({len(data)} bytes)")
        assert self.proc.stdin is not None
        stdin = self.proc.stdin

        def write() -> None:
            try:
                stdin.write(data)
                stdin.flush()
            except (OSError, ValueError):
                pass

        writer = threading.Thread(target=write, name="check-write", daemon=True)
        writer.start()
        writer.join(seconds)
        if writer.is_alive():
            self.note(f"the server had not read {label} after {seconds:g} s")
            return False
        return True

    def close_input(self) -> None:
        """Close the server's stdin (the first step of a stdio shutdown)."""
        self.note("closed the server's stdin")
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        except OSError:
            pass

    def wait_exit(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def close(self) -> None:
        """Close stdin, then SIGTERM and SIGKILL the process group, briefly waiting each time."""
        self._ending = True
        self._reading.set()
        if self.proc.poll() is None:
            try:
                if self.proc.stdin is not None:
                    self.proc.stdin.close()
            except OSError:
                pass
            if self.wait_exit(0.5) is None:
                self._signal(signal.SIGTERM)
                if self.wait_exit(1.0) is None:
                    self._signal(signal.SIGKILL)
                    self.wait_exit(1.0)
        if os.name == "posix":
            self._signal(signal.SIGKILL)  # grandchildren of a wrapper command
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        LIVE.discard(self)

    def kill(self) -> None:
        """At once: SIGKILL the process group (a run being stopped)."""
        self._ending = True
        self._signal(signal.SIGKILL)

    def _signal(self, sig: int) -> None:
        try:
            if os.name == "posix":
                os.killpg(self.proc.pid, sig)
            else:
                self.proc.send_signal(sig)
        except (ProcessLookupError, PermissionError, OSError):
            pass
