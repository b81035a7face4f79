"""Step 3a: answer a server's sampling requests from a canned "model".

A server's tool may ask the client's language model for a completion (client/sampling). Here the
"model" is a function that answers from a small table, so the example runs anywhere.

Run: python examples/sampling_fake_model.py
"""

import sys
from typing import Any

from mcp_ref import Client

CANNED = {"mcp": "MCP is a protocol that connects models to tools and data."}


def fake_model(params: dict[str, Any]) -> dict[str, Any]:
    question = params["messages"][-1]["content"].get("text", "")
    answer = next((text for key, text in CANNED.items() if key in question.lower()), "I do not know.")
    return {"role": "assistant", "content": {"type": "text", "text": answer},
            "model": "canned-1", "stopReason": "endTurn"}


with Client.stdio([sys.executable, "-m", "mcp_ref", "serve"], sampling_handler=fake_model,
                  roots=[{"uri": "file:///tmp", "name": "scratch"}]) as client:
    print(client.call_tool("ask_model", {"question": "What is MCP?"})["content"][0]["text"])
    print(client.call_tool("list_client_roots")["content"][0]["text"])
