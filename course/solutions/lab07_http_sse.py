"""Lab 7, reference solution: the server of labs 4 and 5 with mcp_ref, over HTTP with SSE, locked down.

Spec page: basic/transports (HTTP with SSE)
https://modelcontextprotocol.io/specification/2024-11-05/basic/transports

    python lab07_http_sse.py [--port 8765]     serve HTTP with SSE on 127.0.0.1
    python lab07_http_sse.py --stdio           serve over stdio instead

What this lab shows, in order:

1. The tools of lab 4 and the resources of lab 5, written with mcp_ref's Server: type hints
   become the inputSchema, arguments are checked before the function runs, an exception in a
   tool becomes an isError result, an unknown URI is -32002. The wire is the same as your
   standard-library servers'; `mcp-ref check` cannot tell them apart.
2. Over HTTP with SSE a client GETs /sse and keeps it open; the first event, `endpoint`, says
   where to POST its messages (TR-09..11); every answer comes back as a `message` event.
3. A server on your machine is reachable by every web page your browser opens. Two checks keep
   them out (TR-06): the Origin header (sent by browsers; only origins we trust are served) and
   the Host header (a DNS-rebinding page reaches 127.0.0.1 under its own host name). We bind
   127.0.0.1 only (TR-07), and serve one web UI we trust: UI_ORIGIN.
"""

import argparse

from mcp_ref import ResourceNotFound, Server

UI_ORIGIN = "https://app.example.com"  # our team's web app: the one page allowed to call us from a browser

server = Server("lab07-server", version="1.0", instructions="The course server, with mcp_ref, over HTTP with SSE.")
NOTES = {"shopping": "eggs, flour, milk", "mcp": "a protocol between models and the tools they use"}


@server.tool()
def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


@server.tool()
def read_note(name: str) -> str:
    """Read one of the server's notes."""
    if name not in NOTES:
        raise LookupError(f"there is no note called {name!r}; try one of {sorted(NOTES)}")
    return NOTES[name]


@server.resource("notes://shopping", name="shopping list", mime_type="text/plain")
def shopping() -> str:
    return NOTES["shopping"]


@server.resource("data://bytes", name="every byte value, 0 to 255", mime_type="application/octet-stream")
def every_byte() -> bytes:
    return bytes(range(256))  # bytes become a base64 blob


@server.resource_template("notes://{name}", name="a note, by name", mime_type="text/plain")
def note(name: str) -> str:
    if name not in NOTES:
        raise ResourceNotFound(f"Resource not found: notes://{name}", {"uri": f"notes://{name}"})
    return NOTES[name]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8765, help="0 picks a free port")
    parser.add_argument("--stdio", action="store_true", help="serve over stdio instead of HTTP")
    args = parser.parse_args()
    if args.stdio:
        server.serve_stdio()
        return
    server.serve_sse(
        "127.0.0.1", args.port,  # TR-07: this machine only
        allowed_origins=[UI_ORIGIN],  # TR-06: browsers may call us from this page only
        # allowed_hosts: left at mcp_ref's default, 127.0.0.1, localhost and ::1 (DNS rebinding)
        on_ready=lambda url: print(f"serving on {url}", flush=True),
    )


if __name__ == "__main__":
    main()
