"""Peers for the tests: each a standalone script (see its docstring), and ``running`` to start one."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

HERE = Path(__file__).resolve().parent


@contextlib.contextmanager
def running(script: str, mode: str) -> Iterator[tuple[str, IO[str]]]:
    """``script`` (one of this folder's unruly servers) in ``mode``: its URL, from its first line
    ("listening at URL"), and its stdout for what it prints after; killed at the end."""
    peer = subprocess.Popen([sys.executable, str(HERE / script), "--mode", mode], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        assert peer.stdout is not None
        yield peer.stdout.readline().split(" at ", 1)[1].strip(), peer.stdout
    finally:
        peer.kill()
        peer.wait(10)
        if peer.stdout is not None:
            peer.stdout.close()
