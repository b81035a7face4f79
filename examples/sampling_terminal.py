"""Step 3b: a human in the loop. Each sampling request is shown at the terminal, and the person
there approves it, edits the answer, or rejects it (SAMP-01..04: hosts should let users review
and refuse what a server asks their model).

Run: python examples/sampling_terminal.py     (then type a, e or r)

Only an explicit "a" (or "y", "yes", "approve") sends the answer: anything the program does not
understand is asked again, and if the terminal closes, the request is rejected. A person who
typed "n" meant no.

What a rejection does depends on the revision the two sides speak. With the initialize handshake
(2025-11-25 and before) the server's sampling request gets an error, and its tool decides what to
do: ours fails. In 2026-07-28 the server asks inside the result of tools/call, and the client's
answer is part of the call's next round: a rejection ends the call on this side, and call_tool
raises McpError. Run with MCP_REVISION=2025-11-25 to see the first.
"""

import os
import sys
from typing import Any

from mcp_ref import Client, McpError, SamplingRejected

CHOICES = {
    "a": "approve", "approve": "approve", "y": "approve", "yes": "approve",
    "e": "edit", "edit": "edit",
    "r": "reject", "reject": "reject", "n": "reject", "no": "reject",
}


def ask(question: str) -> str:
    """Ask until the answer is one of CHOICES; "reject" when the terminal has no more input."""
    while True:
        try:
            answer = input(question).strip().lower()
        except EOFError:  # nobody is there to approve: refuse
            return "reject"
        if answer in CHOICES:
            return CHOICES[answer]
        print(f"Please type a, e or r (not {answer!r}).")


def ask_the_human(params: dict[str, Any]) -> dict[str, Any]:
    print("\nThe server wants to ask your model:")
    for message in params["messages"]:
        print(f"  {message['role']}: {message['content'].get('text', '<' + message['content']['type'] + '>')}")
    if params.get("systemPrompt"):
        print(f"  (system prompt: {params['systemPrompt']})")
    draft = "MCP lets applications give language models tools and context."
    print(f"The model's draft answer: {draft}")
    choice = ask("[a]pprove, [e]dit, or [r]eject? ")
    if choice == "reject":
        raise SamplingRejected()  # the handshake: a JSON-RPC error with code -1; 2026-07-28: the call ends
    if choice == "edit":
        try:
            draft = input("Your answer: ")
        except EOFError:
            raise SamplingRejected() from None
    return {"role": "assistant", "content": {"type": "text", "text": draft}, "model": "human-reviewed",
            "stopReason": "endTurn"}


revision = os.environ.get("MCP_REVISION")  # unset: every revision, the newest the server speaks
with Client.stdio([sys.executable, "-m", "mcp_ref", "serve"], sampling_handler=ask_the_human,
                  protocol_versions=[revision] if revision else None) as client:
    try:
        result = client.call_tool("ask_model", {"question": "What is MCP, in one sentence?"})
    except McpError as exc:  # 2026-07-28: our handler refused, so the call ended here
        print(f"\nthe call ended ({client.protocol_version}): {exc.message}")
    else:
        status = "the tool failed" if result.get("isError") else "the tool answered"
        print(f"\n{status} ({client.protocol_version}): {result['content'][0]['text']}")
