"""The demo server over stdio with its tools' argument check changed, for section 7 of run.py:
how much of a stdio round trip the check of the arguments costs. Not a spec section.

    python benchmarks/validation_server.py jsonschema   every call checked by jsonschema (the
                                                        validator compiled at registration), no fast path
    python benchmarks/validation_server.py unchecked    no check at all (what no server may ship: TOOL-08)

mcp_ref as shipped (``mcp-ref serve``) checks simple schemas with machinery/quickcheck.py and
leaves the rest to jsonschema; the three side by side say what the fast path buys.
"""

from __future__ import annotations

import sys
from typing import Any

from mcp_ref.demo_server import server
from mcp_ref.tools import Tool


def main(mode: str) -> None:
    for tool in server.tools.items():
        tool._quick_check = None  # every call goes to the compiled jsonschema validator
    if mode == "unchecked":
        def unchecked(self: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
            return self.read_arguments(arguments)

        Tool.arguments = unchecked  # type: ignore[method-assign]
    elif mode != "jsonschema":
        raise SystemExit(f"unknown mode {mode!r}: jsonschema or unchecked")
    server.serve_stdio()


if __name__ == "__main__":
    main(sys.argv[1])
