"""The requirement index of one page of revision 2025-03-26: basic/transports (Streamable HTTP).

Not a spec section: the index of that page's requirements, in the same form as the 2024-11-05
index (requirements.py), for the one page of a later revision mcp_ref implements.
https://modelcontextprotocol.io/specification/2025-03-26/basic/transports

mcp_ref speaks the messages of 2024-11-05; the Streamable HTTP transport that revision 2025-03-26
brought carries them (streamable_http/server_app.py, streamable_http/client_transport.py). The code, the tests and
``spec_notes/basic-transports-streamable-http.md`` cite this page's requirements by the IDs
below: ``SHTTP-NN``, a prefix the 2024-11-05 index does not use, numbered in the page's order,
one per MUST, SHOULD or MAY sentence (several that say one thing share an ID). Each entry has
the fields of ``requirements.Requirement``: ``id``, ``page`` (``"basic/transports"``, of this
revision: ``url`` says so), ``level`` (as requirements.py point 3; ``"SHOULD (lowercase)"`` where
the page writes the word in plain prose), ``side`` and a ``summary`` in our own words. Read the
spec page for the exact wording.

The page's stdio and custom-transport sections repeat what 2024-11-05 said; their rows
(SHTTP-02..04, 44, 45) name the 2024-11-05 IDs they repeat, and the notes point there.

Lookups as in requirements.py: ``get(id)``, ``search(text)``, and ``REQUIREMENTS``.
"""

# The table below keeps one requirement per line so that it can be scanned; its lines run long.
# ruff: noqa: E501

from __future__ import annotations

from dataclasses import dataclass

from .closeness import closest
from .requirements import _STRENGTH
from .requirements import Requirement as _Requirement

REVISION = "2025-03-26"
SPEC_URL = f"https://modelcontextprotocol.io/specification/{REVISION}"
PAGE = "basic/transports"


@dataclass(frozen=True)
class Requirement(_Requirement):
    """A requirement of revision 2025-03-26: as requirements.Requirement, with this revision's URL."""

    @property
    def url(self) -> str:
        return f"{SPEC_URL}/{self.page}"

    @property
    def strength(self) -> str:
        """As requirements.py point 6: a combined level counts as its strongest part."""
        parts = [_STRENGTH[part.strip()] for part in self.level.replace(" (lowercase)", "").split("/")]
        return min(parts, key=["MUST", "SHOULD", "MAY"].index)


def _r(id: str, level: str, side: str, summary: str) -> Requirement:
    return Requirement(id, PAGE, level, side, summary)


_TABLE: tuple[Requirement, ...] = (
    # The page's opening
    _r("SHTTP-01", "MUST", "both", "Encode every JSON-RPC message as UTF-8, whatever the transport"),
    _r("SHTTP-02", "SHOULD", "client", "Offer the stdio transport wherever the platform allows it (as TR-01 of 2024-11-05)"),
    # stdio: what 2024-11-05 said, with batches allowed on the line
    _r("SHTTP-03", "MUST NOT", "both", "On stdio, put one message (or batch) per line with no raw newline inside, and nothing but messages on the server's stdout and stdin (as TR-02, TR-04, TR-05)"),
    _r("SHTTP-04", "MAY", "both", "On stdio, let the server log UTF-8 text to stderr, which the client keeps, passes on or drops (as TR-03)"),
    # Streamable HTTP
    _r("SHTTP-05", "MUST", "server", "Offer one HTTP path, the MCP endpoint, that takes both POST and GET"),
    _r("SHTTP-06", "MUST", "server", "Check the Origin header of every incoming connection, against DNS rebinding"),
    _r("SHTTP-07", "SHOULD", "server", "Listen on 127.0.0.1 rather than every interface when running locally"),
    _r("SHTTP-08", "SHOULD", "server", "Authenticate every connection"),
    # Sending messages to the server
    _r("SHTTP-09", "MUST", "client", "Send every JSON-RPC message as the body of a new HTTP POST to the MCP endpoint"),
    _r("SHTTP-10", "MUST", "client", "Give each POST an Accept header naming both application/json and text/event-stream"),
    _r("SHTTP-11", "MUST", "client", "Make a POST body one request, notification or response, or a batch of requests and notifications, or a batch of responses"),
    _r("SHTTP-12", "MUST", "server", "Answer an accepted body holding only notifications or responses with 202 Accepted and no body"),
    _r("SHTTP-13", "MUST/MAY", "server", "Answer a body of notifications or responses that cannot be taken with an HTTP error status; its body may be a JSON-RPC error without an id"),
    _r("SHTTP-14", "MUST", "server", "Answer a body holding requests with either an event stream (text/event-stream) or one JSON object (application/json)"),
    _r("SHTTP-15", "MUST", "client", "Take either kind of answer to a POST of requests: an event stream or a JSON object"),
    _r("SHTTP-16", "SHOULD/MAY", "server", "On the event stream of a POST, send in time one response for every request of its body (responses may be batched)"),
    _r("SHTTP-17", "MAY/SHOULD", "server", "Before the response, the stream may carry requests and notifications, which should belong to the request of that POST"),
    _r("SHTTP-18", "SHOULD NOT", "server", "Leave a POST's event stream open until every request of it is answered, unless the session ends"),
    _r("SHTTP-19", "SHOULD", "server", "Close a POST's event stream once every request of it has its response"),
    _r("SHTTP-20", "SHOULD NOT", "server", "Take a dropped connection for a cancellation: connections may drop at any time"),
    _r("SHTTP-21", "SHOULD", "client", "Cancel a request by sending notifications/cancelled, not by dropping its connection"),
    _r("SHTTP-22", "MAY", "server", "Make streams resumable, so that messages are not lost when a connection drops"),
    # Listening for messages from the server
    _r("SHTTP-23", "MAY", "client", "Open an event stream with an HTTP GET to the MCP endpoint, for what the server sends outside any request of the client"),
    _r("SHTTP-24", "MUST", "client", "Give that GET an Accept header naming text/event-stream"),
    _r("SHTTP-25", "MUST", "server", "Answer that GET with an event stream, or with 405 Method Not Allowed when offering none"),
    _r("SHTTP-26", "MAY/SHOULD", "server", "On the GET stream, send requests and notifications (batches allowed) that belong to no request the client has in progress"),
    _r("SHTTP-27", "MUST NOT", "server", "Send a response on the GET stream, except when resuming the stream of an earlier request"),
    _r("SHTTP-28", "MAY", "both", "Close the GET stream at any time, either side"),
    # Multiple connections
    _r("SHTTP-29", "MAY", "client", "Keep several event streams open at once"),
    _r("SHTTP-30", "MUST/MUST NOT", "server", "Send each message on exactly one of the open streams, never the same message on several"),
    # Resumability and redelivery
    _r("SHTTP-31", "MAY/MUST", "server", "Give SSE events an id if it likes; ids must then be unique across all the streams of the session (or of the client, without sessions)"),
    _r("SHTTP-32", "SHOULD", "client", "Resume a broken stream with a GET carrying Last-Event-ID, the id of the last event received"),
    _r("SHTTP-33", "MAY/MUST NOT", "server", "On resumption, replay what followed that event on the same stream only, never what belonged to another stream"),
    # Session management
    _r("SHTTP-34", "MAY", "server", "Give the session an id in an Mcp-Session-Id header of the response that carries the InitializeResult"),
    _r("SHTTP-35", "SHOULD", "server", "Make session ids globally unique and cryptographically secure (a secure UUID, a JWT, a cryptographic hash)"),
    _r("SHTTP-36", "MUST", "server", "Use only visible ASCII (0x21 to 0x7E) in a session id"),
    _r("SHTTP-37", "MUST", "client", "Once given a session id, send it in Mcp-Session-Id on every later HTTP request"),
    _r("SHTTP-38", "SHOULD", "server", "Answer 400 Bad Request to a request without a session id (other than initialize) when sessions are required"),
    _r("SHTTP-39", "MAY/MUST", "server", "End a session whenever it likes, and from then on answer 404 Not Found to requests with its id"),
    _r("SHTTP-40", "MUST", "client", "On 404 for a request that carried a session id, start a new session with a new initialize sent without one"),
    _r("SHTTP-41", "SHOULD/MAY", "both", "A client done with a session sends HTTP DELETE with its id to the MCP endpoint; a server may answer 405 if clients may not end sessions"),
    # Backwards compatibility
    _r("SHTTP-42", "SHOULD (lowercase)", "server", "To keep older clients, go on serving the SSE and POST endpoints of HTTP with SSE beside the new MCP endpoint"),
    _r("SHTTP-43", "SHOULD (lowercase)", "client", "To reach older servers, POST initialize to the URL given; on a 4xx, GET the same URL and expect the endpoint event of HTTP with SSE, then use that transport"),
    # Custom transports: what 2024-11-05 said
    _r("SHTTP-44", "MAY", "both", "Add a custom transport over any two-way channel (as TR-12)"),
    _r("SHTTP-45", "MUST/SHOULD", "both", "Keep JSON-RPC messages and the lifecycle intact on a custom transport, and document how it connects (as TR-13)"),
)

REQUIREMENTS: dict[str, Requirement] = {r.id: r for r in _TABLE}


def get(requirement_id: str) -> Requirement:
    """The requirement with this ID, in any case; KeyError naming close IDs if unknown."""
    key = requirement_id.strip().upper()
    if key in REQUIREMENTS:
        return REQUIREMENTS[key]
    close = closest(requirement_id, REQUIREMENTS)
    hint = f"did you mean {', '.join(close)}?" if close else "IDs of this page look like SHTTP-10"
    raise KeyError(f"unknown requirement ID {requirement_id!r}: {hint}")


def search(text: str) -> list[Requirement]:
    """Requirements whose ID or summary contains ``text``, ignoring case, in the page's order."""
    needle = text.casefold()
    return [r for r in _TABLE if any(needle in field.casefold() for field in (r.id, r.summary))]
