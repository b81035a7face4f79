"""The requirement index of revision 2025-03-26: its transports page, and what it added elsewhere.

Not a spec section: the index of the requirements of revision 2025-03-26 that mcp_ref cites, in
the same form as the 2024-11-05 index (requirements.py). It holds every requirement of the
basic/transports page (Streamable HTTP), and on the other pages only what 2025-03-26 adds to or
changes in 2024-11-05 (a requirement those pages repeat unchanged keeps its 2024-11-05 ID).
https://modelcontextprotocol.io/specification/2025-03-26

mcp_ref speaks the messages of 2024-11-05; the Streamable HTTP transport that revision 2025-03-26
brought carries them (streamable_http/server_app.py, streamable_http/client_transport.py), and a
session that agrees on 2025-03-26 takes JSON-RPC batches (mcp_ref/revisions/batches.py). The code,
the tests and ``spec_notes/basic-transports-streamable-http.md`` cite these requirements by the IDs
below, prefixes the 2024-11-05 index does not use, each numbered in its page's order, one per
requirement sentence (several that say one thing share an ID):

======  ==================================  =====================================================
prefix  page                                what it covers
======  ==================================  =====================================================
SHTTP   basic/transports                    the whole page: stdio, Streamable HTTP, sessions,
                                            resumability, backwards compatibility
BATCH   basic (and basic/lifecycle)         JSON-RPC batches (01..04; 04, on basic/lifecycle:
                                            initialize never in a batch), then the other new
                                            text of basic: notifications get no response, the
                                            shape of results and errors, which transports use
                                            the authorization page (05..)
TMO     basic/lifecycle                     request timeouts: cancelling on timeout, per-request
                                            settings, progress resetting the clock, a maximum
AUTHA   basic/authorization                 the whole page (new in 2025-03-26): OAuth 2.1,
                                            metadata discovery, registration, tokens
PMSG    basic/utilities/progress            the message field of a progress notification
PRMA    server/prompts                      audio content in prompt messages
ANNOT   server/tools (and the overview)     tool annotations are untrusted unless the server is
                                            trusted (02: the overview, ``""``, says it too)
CMPL    server/utilities/completion         the completions capability and completion errors
======  ==================================  =====================================================

BATCH-02 and BATCH-03 are JSON-RPC 2.0's batch rules, which the basic page points to without
restating them; their rows say so. The basic page's requirements that 2024-11-05 stated on its
basic/messages page keep their MSG IDs. The transports page's stdio and custom-transport
sections repeat what 2024-11-05 said; their rows (SHTTP-02..04, 44, 45) name the 2024-11-05 IDs
they repeat, and the notes point there.

Each entry has the fields of ``requirements.Requirement``: ``id``, ``page`` (of this revision:
``url`` says so; ``""`` is the overview), ``level`` (as requirements.py point 3; ``"SHOULD
(lowercase)"`` where the page writes the word in plain prose; the authorization page's REQUIRED
and OPTIONAL are kept as written), ``side`` and a ``summary`` in our own words. Read the spec
page for the exact wording.

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
PAGE = "basic/transports"  # the page of the SHTTP rows, and of a row that names none

# requirements.py's levels, and the keywords only the authorization page uses (its point 6).
_KEYWORDS: dict[str, str] = {**_STRENGTH, "REQUIRED": "MUST", "RECOMMENDED": "SHOULD", "OPTIONAL": "MAY"}


@dataclass(frozen=True)
class Requirement(_Requirement):
    """A requirement of revision 2025-03-26: as requirements.Requirement, with this revision's URL."""

    @property
    def url(self) -> str:
        return f"{SPEC_URL}/{self.page}" if self.page else SPEC_URL

    @property
    def strength(self) -> str:
        """As requirements.py point 6: a combined level counts as its strongest part."""
        parts = [_KEYWORDS[part.strip()] for part in self.level.replace(" (lowercase)", "").split("/")]
        return min(parts, key=["MUST", "SHOULD", "MAY"].index)


def _r(id: str, level: str, side: str, summary: str, page: str = PAGE) -> Requirement:
    return Requirement(id, page, level, side, summary)


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
    # What 2025-03-26 adds on its other pages. basic: batches (BATCH-01..03 and, on basic/lifecycle, 04), then the rest of the new text
    _r("BATCH-01", "MAY/MUST", "both", "Accept JSON-RPC batches (arrays of messages) from the peer; sending batches is each party's choice", "basic"),
    _r("BATCH-02", "SHOULD (lowercase)", "both", "Answer the requests of a batch with one array of their responses (JSON-RPC 2.0's batch rule, not restated by MCP)", "basic"),
    _r("BATCH-03", "MUST", "both", "Take an empty array for no batch: it gets one Invalid Request error (JSON-RPC 2.0's batch rule, not restated by MCP)", "basic"),
    _r("BATCH-04", "MUST NOT", "client", "Send initialize alone, never inside a batch", "basic/lifecycle"),
    _r("BATCH-05", "MUST NOT", "both", "Send nothing back for a notification received (the receiver's duty, now stated)", "basic"),
    _r("BATCH-06", "MAY/MUST", "both", "Shape a result as any JSON object, but give an error at least a code and a message (lowercase in 2024-11-05)", "basic"),
    _r("BATCH-07", "SHOULD", "both", "Over an HTTP-based transport, authorize as the basic/authorization page says", "basic"),
    _r("BATCH-08", "SHOULD NOT", "both", "Over stdio, leave the authorization page aside and take credentials from the environment", "basic"),
    # basic/lifecycle: timeouts (the 2024-11-05 advice on timeouts, rewritten and extended)
    _r("TMO-01", "SHOULD", "both", "Put a timeout on every request sent, against hung connections and exhausted resources", "basic/lifecycle"),
    _r("TMO-02", "SHOULD", "both", "When a request times out unanswered, send notifications/cancelled for it and stop waiting", "basic/lifecycle"),
    _r("TMO-03", "SHOULD", "both", "In an SDK or middleware, let the caller set the timeout of each request", "basic/lifecycle"),
    _r("TMO-04", "MAY", "both", "Restart a request's timeout clock when a progress notification for it arrives", "basic/lifecycle"),
    _r("TMO-05", "SHOULD", "both", "Enforce a maximum timeout for every request, however many progress notifications come", "basic/lifecycle"),
    _r("TMO-06", "SHOULD", "both", "Be ready for any request to time out, not only initialize and shutdown (the error cases, changed)", "basic/lifecycle"),
    # basic/authorization: a new page
    _r("AUTHA-01", "OPTIONAL", "both", "Support authorization or not: it is optional", "basic/authorization"),
    _r("AUTHA-02", "SHOULD", "both", "When supporting it over an HTTP-based transport, conform to this page", "basic/authorization"),
    _r("AUTHA-03", "SHOULD NOT", "both", "Over stdio, skip this flow and read credentials from the environment", "basic/authorization"),
    _r("AUTHA-04", "MUST", "both", "Over any other transport, follow the established security practice of its protocol", "basic/authorization"),
    _r("AUTHA-05", "MUST", "both", "Implement OAuth 2.1 with suitable safeguards for confidential and public clients", "basic/authorization"),
    _r("AUTHA-06", "SHOULD", "both", "Support OAuth 2.0 Dynamic Client Registration (RFC 7591)", "basic/authorization"),
    _r("AUTHA-07", "SHOULD", "server", "Implement OAuth 2.0 Authorization Server Metadata (RFC 8414) on the server side", "basic/authorization"),
    _r("AUTHA-08", "MUST", "client", "Implement OAuth 2.0 Authorization Server Metadata (RFC 8414) in every client", "basic/authorization"),
    _r("AUTHA-09", "MUST", "server", "Without RFC 8414 metadata, use the default endpoint URIs", "basic/authorization"),
    _r("AUTHA-10", "SHOULD", "server", "Offer the OAuth grant types that fit the audience (authorization code for people, client credentials for programs)", "basic/authorization"),
    _r("AUTHA-11", "MUST", "server", "Answer 401 Unauthorized while authorization is needed and not yet proven", "basic/authorization"),
    _r("AUTHA-12", "MUST", "client", "Discover the server's endpoints by the RFC 8414 metadata protocol", "basic/authorization"),
    _r("AUTHA-13", "SHOULD", "server", "Publish endpoints by the RFC 8414 metadata protocol", "basic/authorization"),
    _r("AUTHA-14", "MUST", "server", "Without metadata discovery, serve the fallback URLs", "basic/authorization"),
    _r("AUTHA-15", "SHOULD", "client", "Send MCP-Protocol-Version during metadata discovery", "basic/authorization"),
    _r("AUTHA-16", "MUST", "client", "Take the authorization base URL from the MCP server URL with its path removed", "basic/authorization"),
    _r("AUTHA-17", "MUST", "both", "Place the metadata at /.well-known/oauth-authorization-server under the base URL", "basic/authorization"),
    _r("AUTHA-18", "MUST", "client", "For a server without metadata, use /authorize, /token and /register under the base URL", "basic/authorization"),
    _r("AUTHA-19", "MUST", "client", "Try the metadata document first; fall back to the default paths only after", "basic/authorization"),
    _r("AUTHA-20", "SHOULD", "both", "Support dynamic registration so that clients get client IDs without the user", "basic/authorization"),
    _r("AUTHA-21", "MUST", "both", "Handle access tokens as OAuth 2.1 section 5 says for resource requests", "basic/authorization"),
    _r("AUTHA-22", "MUST", "client", "Send the access token in an Authorization: Bearer header", "basic/authorization"),
    _r("AUTHA-23", "MUST", "client", "Authorize every HTTP request to the server, even within one session", "basic/authorization"),
    _r("AUTHA-24", "MUST NOT", "client", "Put an access token in the URI query string", "basic/authorization"),
    _r("AUTHA-25", "MUST", "server", "Validate access tokens as OAuth 2.1 section 5.2 says", "basic/authorization"),
    _r("AUTHA-26", "MUST", "server", "On a failed validation, answer as OAuth 2.1 section 5.3 says", "basic/authorization"),
    _r("AUTHA-27", "MUST", "server", "Answer an invalid or expired token with 401", "basic/authorization"),
    _r("AUTHA-28", "MUST", "both", "Meet every item of the security list that follows", "basic/authorization"),
    _r("AUTHA-29", "MUST", "client", "Store tokens securely, as OAuth 2.0 best practice says", "basic/authorization"),
    _r("AUTHA-30", "SHOULD", "server", "Enforce token expiry and rotation", "basic/authorization"),
    _r("AUTHA-31", "MUST", "server", "Serve every authorization endpoint over HTTPS", "basic/authorization"),
    _r("AUTHA-32", "MUST", "server", "Validate redirect URIs, against open redirects", "basic/authorization"),
    _r("AUTHA-33", "MUST", "both", "Use only localhost or HTTPS URLs as redirect URIs", "basic/authorization"),
    _r("AUTHA-34", "MUST", "server", "Answer authorization errors with the fitting status: 401, 403 or 400", "basic/authorization"),
    _r("AUTHA-35", "MUST", "both", "Follow OAuth 2.1 security best practice", "basic/authorization"),
    _r("AUTHA-36", "REQUIRED", "client", "Use PKCE, in every client", "basic/authorization"),
    _r("AUTHA-37", "SHOULD", "server", "Rotate tokens, for security", "basic/authorization"),
    _r("AUTHA-38", "SHOULD", "server", "Limit token lifetimes as security needs", "basic/authorization"),
    _r("AUTHA-39", "MAY", "server", "Delegate authorization to a third-party authorization server", "basic/authorization"),
    _r("AUTHA-40", "MUST", "server", "When delegating: map third-party tokens to issued MCP tokens securely, check them first, manage and renew them", "basic/authorization"),
    _r("AUTHA-41", "MUST", "server", "When delegating: check redirect URIs, guard third-party secrets, time out sessions, weigh token chaining, handle errors", "basic/authorization"),
    _r("AUTHA-42", "SHOULD (lowercase)", "client", "Run a local client as a public OAuth 2.1 client: PKCE, safe token storage, refresh, expiry (best practice)", "basic/authorization"),
    _r("AUTHA-43", "SHOULD (lowercase)", "client", "Implement metadata discovery in every client (best practice)", "basic/authorization"),
    _r("AUTHA-44", "SHOULD (lowercase)", "both", "Implement dynamic client registration (best practice)", "basic/authorization"),
    # basic/utilities/progress
    _r("PMSG-01", "SHOULD", "both", "Fill a progress notification's optional message with readable text about the progress", "basic/utilities/progress"),
    # server/prompts
    _r("PRMA-01", "MUST", "server", "Base64-encode the data of audio content in a prompt message and give it a valid MIME type", "server/prompts"),
    # server/tools, and the overview's tool safety
    _r("ANNOT-01", "MUST", "client", "Treat tool annotations as untrusted unless the server that sent them is trusted", "server/tools"),
    _r("ANNOT-02", "SHOULD (lowercase)", "client", "Distrust descriptions of tool behaviour, annotations among them, from a server not trusted (overview)", ""),
    # server/utilities/completion
    _r("CMPL-01", "MUST", "server", "Declare the completions capability when offering completion", "server/utilities/completion"),
    _r("CMPL-02", "SHOULD", "server", "Answer failed completions with JSON-RPC errors: -32601 unsupported, -32602 bad name or arguments, -32603 internal", "server/utilities/completion"),
)

REQUIREMENTS: dict[str, Requirement] = {r.id: r for r in _TABLE}


def get(requirement_id: str) -> Requirement:
    """The requirement with this ID, in any case; KeyError naming close IDs if unknown."""
    key = requirement_id.strip().upper()
    if key in REQUIREMENTS:
        return REQUIREMENTS[key]
    close = closest(requirement_id, REQUIREMENTS)
    hint = f"did you mean {', '.join(close)}?" if close else "IDs of this index look like SHTTP-10 or BATCH-02"
    raise KeyError(f"unknown requirement ID {requirement_id!r}: {hint}")


def search(text: str) -> list[Requirement]:
    """Requirements whose ID or summary contains ``text``, ignoring case, in the index's order."""
    needle = text.casefold()
    return [r for r in _TABLE if any(needle in field.casefold() for field in (r.id, r.summary))]
