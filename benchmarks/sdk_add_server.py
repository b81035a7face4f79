"""The official SDK's server with the same `add` tool, started as its documentation starts it.
Not a spec section.

    python sdk_add_server.py              mcp.run(): stdio
    python sdk_add_server.py sse PORT     mcp.run("sse", host="127.0.0.1", port=PORT): uvicorn binds
                                          the port itself, as for any user of the SDK

With ``sse`` it prints the stream's URL on its first line of stdout before it starts (the
harness waits for the port to accept connections), and answers ``nodelay`` lines on stdin
(nodelay.py). ``log_level="WARNING"`` (a documented MCPServer setting) keeps uvicorn's line per
request off, as mcp_ref's request log is off in servers.py.
"""

import sys
import warnings
from pathlib import Path

warnings.simplefilter("ignore")

from mcp.server.mcpserver import MCPServer  # noqa: E402

mcp = MCPServer("sdk-bench", log_level="WARNING")


@mcp.tool()
def add(a: int, b: int) -> str:
    return str(a + b)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "sse":
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import nodelay

        nodelay.answer_on_stdin()
        port = int(sys.argv[2])
        print(f"http://127.0.0.1:{port}/sse", flush=True)
        mcp.run("sse", host="127.0.0.1", port=port)
    else:
        mcp.run()
