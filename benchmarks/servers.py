"""mcp_ref's servers for the benchmarks, each in its own process. Not a spec section.

    python benchmarks/servers.py werkzeug   mcp_ref's demo server on its default HTTP server,
                                            started as the README starts it (serve_sse)
    python benchmarks/servers.py waitress   the same WSGI app under waitress (128 threads), the
                                            production server the README recommends

Each prints the URL of its SSE endpoint on its first line of stdout, then serves until killed,
answering ``nodelay`` lines on stdin (nodelay.py). The request log is off, as it is for the
SDK's server and the raw echo (each by its own documented switch).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import nodelay  # noqa: E402

from mcp_ref.demo_server import server  # noqa: E402


def main(kind: str) -> None:
    nodelay.answer_on_stdin()
    if kind == "werkzeug":
        server.serve_sse("127.0.0.1", 0, log_requests=False, on_ready=lambda url: print(url, flush=True))
        return
    import waitress

    http = waitress.create_server(server.wsgi_app(), host="127.0.0.1", port=0, threads=128, connection_limit=1000)
    print(f"http://127.0.0.1:{http.effective_port}/sse", flush=True)  # type: ignore[union-attr]
    http.run()


if __name__ == "__main__":
    main(sys.argv[1])
