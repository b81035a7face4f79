"""Step 2: a server of your own, with a tool, a resource and a prompt.

Run it under a client:
    mcp-ref request --stdio "python examples/my_server.py" tools/call \
        '{"name": "shout", "arguments": {"text": "hi"}}'
"""

from mcp_ref import Server

server = Server("my-server", version="1.0", instructions="Shouts, and knows one fact.")


@server.tool()
def shout(text: str, times: int = 1) -> str:
    """Repeat the text in capitals."""
    return " ".join([text.upper()] * times)


@server.resource("facts://sky", mime_type="text/plain")
def sky() -> str:
    """A fact about the sky."""
    return "The sky is blue because air scatters blue light more than red."


@server.prompt()
def explain(topic: str) -> str:
    """Ask for an explanation of a topic."""
    return f"Explain {topic} to a curious ten-year-old."


if __name__ == "__main__":
    server.serve_stdio()
