"""The stdio face of the checking server: a relay between a client's pipes and the checker.

Not a spec section. ``mcp-ref check client`` runs the client under test with ``{server}``
replaced by ``python relay.py HOST PORT TOKEN``. The client spawns this relay as its "server";
the relay connects back to the checker twice (data, then events) and copies bytes both ways
unchanged, so all judging happens in the checker's process, on exactly what the client wrote.

1. Everything the client writes on our stdin goes to the data connection, byte for byte.
2. Everything the checker sends comes out on our stdout, flushed at once.
3. On the events connection the relay reports how it is being shut down: ``stdin-eof`` when
   the client closes our stdin (the polite way, LC-16), ``sigterm`` when it is signalled (LC-17).
4. The relay exits when the checker closes the data connection, or when it is signalled.

It runs as a plain script (no import of mcp_ref), so the client's "server" starts at once.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading


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
        report("sigterm")
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
        report("stdin-eof")
        try:
            data.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    threading.Thread(target=pump_stdin, daemon=True).start()
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
    return 0


if __name__ == "__main__":
    os._exit(main(sys.argv[1:]))  # no flushing at exit: the client may have closed our stdout
