"""Step 3b: a human in the loop. Each sampling request is shown at the terminal, and the person
there approves it, edits the answer, or rejects it (SAMP-01..04: hosts should let users review
and refuse what a server asks their model).

Run: python examples/sampling_terminal.py     (then type a, e or r)

Only an explicit "a" (or "y", "yes", "approve") sends the answer: anything the program does not
understand is asked again, and if the terminal closes, the request is rejected. A person who
typed "n" meant no.
"""

import sys
from typing import Any

from mcp_ref import Client, SamplingRejected

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
        raise SamplingRejected()  # sent back as a JSON-RPC error with code -1
    if choice == "edit":
        try:
            draft = input("Your answer: ")
        except EOFError:
            raise SamplingRejected() from None
    return {"role": "assistant", "content": {"type": "text", "text": draft}, "model": "human-reviewed",
            "stopReason": "endTurn"}


with Client.stdio([sys.executable, "-m", "mcp_ref", "serve"], sampling_handler=ask_the_human) as client:
    result = client.call_tool("ask_model", {"question": "What is MCP, in one sentence?"})
    status = "the tool failed" if result.get("isError") else "the tool answered"
    print(f"\n{status}: {result['content'][0]['text']}")
