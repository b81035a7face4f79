"""Lab 7 starter: the server of labs 4 and 5 with mcp_ref, over HTTP with SSE.

    .venv/bin/python course/lab07-http-sse/starter.py [--port 8765]   serve HTTP with SSE on 127.0.0.1
    .venv/bin/python course/lab07-http-sse/starter.py --stdio         serve over stdio instead

The server works. But a teammate whose web page at UI_ORIGIN got "403 Forbidden" opened it to
every web site and every host name. Read why that is dangerous in this lab's README, fix the
TODOs, then run the check from the README until it passes.

Spec page: basic/transports (HTTP with SSE)
https://modelcontextprotocol.io/specification/2024-11-05/basic/transports
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
        # TODO 1 (TR-06): any web page may now call this server from a browser. Accept the
        #   Origin of our own UI only: allowed_origins=[UI_ORIGIN].
        allowed_origins=["*"],
        # TODO 2 (TR-06, DNS rebinding; the kit cannot see this one, curl can): any host name is
        #   accepted too. Delete this line: mcp_ref's default accepts 127.0.0.1, localhost, ::1.
        allowed_hosts=["*"],
        on_ready=lambda url: print(f"serving on {url}", flush=True),
    )


if __name__ == "__main__":
    main()
