"""The official SDK's server with the same `add` tool, for side-by-side timing. Not a spec section.
Run: python sdk_add_server.py [stdio|sse PORT_FILE]"""

import socket
import sys
import warnings

warnings.simplefilter("ignore")

from mcp.server.mcpserver import MCPServer  # noqa: E402

mcp = MCPServer("sdk-bench")


@mcp.tool()
def add(a: int, b: int) -> str:
    return str(a + b)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "sse":
        import uvicorn

        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        print(f"http://127.0.0.1:{sock.getsockname()[1]}/sse", flush=True)
        uvicorn.Server(uvicorn.Config(mcp.sse_app(), log_level="warning")).run(sockets=[sock])
    else:
        mcp.run()
