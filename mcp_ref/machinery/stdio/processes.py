"""Child processes: starting one in a group of its own, keeping its stderr, and stopping it.

Not a spec section: the plumbing under the client end of stdio.py, which starts the server as a
child process and, on closing, runs the shutdown sequence of basic/lifecycle with these tools.

1. The child gets this process's environment with the caller's changes on top (a value of None
   removes a variable), or only the caller's with ``inherit_env=False``.
2. It runs in a process group of its own, so that stopping it stops whatever it started (``npx``
   and shells leave grandchildren) and a Ctrl-C meant for us does not reach it first.
3. Its stderr is read by a thread of its own and handed on line by line; the last lines are kept
   for error messages ("server process exited with code 1; its stderr ended with: ...").
4. ``signal_group`` and ``exited_within`` are the two steps of every stop: a signal, then a
   bounded wait.
"""

from __future__ import annotations

import collections
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence

STDERR_TAIL_LINES = 20


def child_environment(env: dict[str, str | None] | None, inherit_env: bool) -> dict[str, str]:
    """The environment of a child: ours (unless ``inherit_env`` is False) with ``env`` on top."""
    child = dict(os.environ) if inherit_env else {}
    for key, value in (env or {}).items():
        if value is None:
            child.pop(key, None)
        else:
            child[key] = value
    return child


def spawn(command: Sequence[str], env: dict[str, str], cwd: str | os.PathLike[str] | None) -> subprocess.Popen[bytes]:
    """Start ``command`` with its three standard streams as pipes, in a process group of its own."""
    return subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, cwd=cwd, start_new_session=(os.name == "posix"))


class StderrReader:
    """Reads a child's stderr on a thread of its own (it ends when the child and everything holding
    its stderr have exited), handing each line to ``on_line`` and keeping the last few in ``tail``.
    By default each line goes to our ``sys.stderr`` as it is at that moment, which also works under
    Jupyter and pytest, whose sys.stderr has no file descriptor."""

    def __init__(self, process: subprocess.Popen[bytes], on_line: Callable[[str], None] | None = None):
        self._process = process
        self._on_line = on_line or _write_to_our_stderr
        self.tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._thread = threading.Thread(target=self._drain, name="mcp_ref-server-stderr", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        assert self._process.stderr is not None
        for raw in self._process.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            self.tail.append(line)
            try:
                self._on_line(line)
            except Exception:
                pass
        self._process.stderr.close()

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    def last_words(self, lines: int = 3, chars: int = 400) -> str:
        """The last non-blank lines, joined, for an error message."""
        return " | ".join([line.strip() for line in self.tail if line.strip()][-lines:])[-chars:]


def exited_within(process: subprocess.Popen[bytes], seconds: float) -> bool:
    try:
        process.wait(timeout=seconds)
        return True
    except subprocess.TimeoutExpired:
        return False


def signal_group(process: subprocess.Popen[bytes], sig: int) -> None:
    """Send ``sig`` to the child's whole process group (to the child alone where there are none)."""
    try:
        if os.name == "posix":
            os.killpg(process.pid, sig)
        else:
            process.send_signal(sig)
    except (ProcessLookupError, PermissionError):
        pass  # already gone


KILL = signal.SIGKILL if os.name == "posix" else signal.SIGTERM


def _write_to_our_stderr(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
