"""A stdio server, in plain stdlib Python, that asks its client for sampling and roots whether or
not the client declared them: what a careless server does, to see what a client answers.

On ``tools/call`` it sends ``sampling/createMessage`` and ``roots/list`` to the client, waits for
both answers, and returns one text item: the JSON of ``{"declared": <the capabilities the client
sent in initialize>, "sampling": <its answer>, "roots": <its answer>}``. It answers ``initialize``
with tools only, and every other request with -32601.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer_to(request_id: str) -> Any:
    """The client's answer to our request ``request_id`` (other lines meanwhile are skipped)."""
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("id") == request_id and "method" not in message:
            return message
    sys.exit(0)


def main() -> None:
    declared: Any = None
    for line in sys.stdin:
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        if method == "initialize":
            declared = message["params"]["capabilities"]
            send({"jsonrpc": "2.0", "id": request_id, "result": {
                "protocolVersion": "2024-11-05", "capabilities": {"tools": {}},
                "serverInfo": {"name": "asking-server", "version": "1"}}})
        elif method == "tools/call":
            send({"jsonrpc": "2.0", "id": "ask-model", "method": "sampling/createMessage", "params": {
                "messages": [{"role": "user", "content": {"type": "text", "text": "Say hello."}}], "maxTokens": 10}})
            sampling = answer_to("ask-model")
            send({"jsonrpc": "2.0", "id": "ask-roots", "method": "roots/list"})
            roots = answer_to("ask-roots")
            text = json.dumps({"declared": declared, "sampling": sampling, "roots": roots})
            send({"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text", "text": text}]}})
        elif request_id is not None and method is not None:
            send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": f"no {method} here"}})


if __name__ == "__main__":
    main()
