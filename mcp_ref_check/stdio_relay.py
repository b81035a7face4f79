"""The stdio face of the checking server: a relay between a client's pipes and the checker.

Not a spec section. ``mcp-ref check client`` runs the client under test with ``{server}``
replaced by ``python stdio_relay.py HOST PORT TOKEN``. The client spawns this relay as its "server";
the relay connects back to the checker twice (data, then events) and copies bytes both ways
unchanged, so all judging happens in the checker's process, on exactly what the client wrote.

1. Everything the client writes on our stdin goes to the data connection, byte for byte.
2. Everything the checker sends comes out on our stdout, flushed at once.
3. On the events connection the relay reports how it is being shut down: ``stdin-eof`` when
   the client closes our stdin (the polite way, LC-16), ``sigterm`` when it is signalled (LC-17;
   ``sigterm-after-eof`` when its stdin was closed by then), and ``exiting`` when it exits by
   itself. A SIGKILL it cannot report: it is gone without a word.
4. Once its stdin closes, the relay takes ``LINGER`` seconds to exit, as a server that finishes
   its work and cleans up does: a client that waits for it (LC-17) sees it exit by itself, one
   that signals or kills it at once is seen to do so, every time (a relay that exited at once
   would race a kill that follows the close, and the verdict would be luck). It also exits when
   the checker closes the data connection before its stdin closes, or when it is signalled.

It runs as a plain script (no import of mcp_ref), so the client's "server" starts at once.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import sys
import threading
import time

LINGER = 0.5  # seconds the relay takes to exit after its stdin closes (see point 4)


def stdin_closed() -> bool:
    """Has the client closed our stdin (the pipe has no writer left)? Asked in the SIGTERM handler:
    a client closes stdin before it signals, so the answer does not depend on which of our
    threads ran first (a SIGKILL leaves no such chance: see client_cases.shuts_down_by_closing_stdin)."""
    try:
        poller = select.poll()
        poller.register(0, select.POLLHUP)
        return any(events & select.POLLHUP for _, events in poller.poll(0))
    except (OSError, AttributeError, ValueError):  # no poll() here: say what the reader thread saw
        return EOF.is_set()


EOF = threading.Event()  # the reader thread has seen the end of our stdin


def main(argv: list[str]) -> int:
    host, port, token = argv[0], int(argv[1]), argv[2]
    data = socket.create_connection((host, port), timeout=10)
    data.sendall(f"{token} data\n".encode())
    events = socket.create_connection((host, port), timeout=10)
    events.sendall(f"{token} events\n".encode())
    data.settimeout(None)
    events.settimeout(None)

    def report(event: str) -> None:
        try:
            events.sendall(event.encode() + b"\n")
        except OSError:
            pass

    def on_sigterm(signum: int, frame: object) -> None:
        report("sigterm-after-eof" if stdin_closed() else "sigterm")
        os._exit(143)

    signal.signal(signal.SIGTERM, on_sigterm)

    def pump_stdin() -> None:
        stdin = sys.stdin.buffer
        read = getattr(stdin, "read1", stdin.read)
        try:
            while True:
                chunk = read(65536)
                if not chunk:
                    break
                data.sendall(chunk)
        except OSError:
            pass
        EOF.set()
        report("stdin-eof")
        try:
            data.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        time.sleep(LINGER)  # a server's exit takes a moment: a kill or SIGTERM now is seen as such
        report("exiting")
        os._exit(0)

    pump = threading.Thread(target=pump_stdin, daemon=True)
    pump.start()
    stdout = sys.stdout.buffer
    try:
        while True:
            chunk = data.recv(65536)
            if not chunk:
                break
            stdout.write(chunk)
            stdout.flush()
    except OSError:
        pass
    if EOF.is_set():
        pump.join()  # it exits the process, once it has lingered
    report("exiting")
    return 0


if __name__ == "__main__":
    os._exit(main(sys.argv[1:]))  # no flushing at exit: the client may have closed our stdout
