"""Step 1: connect to a server over stdio, look around, call a tool.

Run: python examples/hello_client.py   (starts the bundled demo server as a child process)
"""

import sys

from mcp_ref import Client, McpError

with Client.stdio([sys.executable, "-m", "mcp_ref", "serve"]) as client:
    print("connected to", client.server_info, "speaking", client.protocol_version)
    print("tools:", [tool["name"] for tool in client.list_tools()])
    print("2 + 3 =", client.call_tool("add", {"a": 2, "b": 3})["content"][0]["text"])
    # Arguments that do not fit the tool's inputSchema: since revision 2025-11-25 (the one both
    # sides speak here) a tool error the model can read and correct; before it, error -32602.
    result = client.call_tool("add", {"a": "two", "b": 3})
    print("bad arguments, a tool error:", result["isError"], result["content"][0]["text"])
    try:
        client.call_tool("subtract", {"a": 2, "b": 3})
    except McpError as error:
        print(f"an unknown tool is refused: {error.code} {error.message}")
