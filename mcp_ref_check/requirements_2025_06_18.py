"""The requirement index of revision 2025-06-18: what it adds to or changes in 2025-03-26.

Not a spec section: the index of the requirements revision 2025-06-18 brought, in the same form as
the 2024-11-05 index (requirements.py) and the 2025-03-26 one (requirements_2025_03_26.py).
https://modelcontextprotocol.io/specification/2025-06-18

Revision 2025-06-18 took JSON-RPC batches out again, made the negotiated version binding, added the
MCP-Protocol-Version header, rules for ``_meta`` keys, ``title`` for display, structured tool output,
resource links, completion context and elicitation, and rewrote authorization around the MCP
server as an OAuth resource server, with a page of security best practices beside it. This module
indexes every MUST, SHOULD and MAY sentence (and the plain-prose forms) of that new or changed
text, one row per requirement, numbered in the page's order (several sentences that say one thing
share an ID). What 2025-06-18 kept from 2025-03-26 keeps its 2025-03-26 (or 2024-11-05) ID. The
notes are ``spec_notes/revision-2025-06-18.md``; ``spec_notes/revisions-index.md`` lists every ID.

| prefix | page(s) | what it covers |
|---|---|---|
| DROP | basic, basic/transports | what 2025-06-18 removed: JSON-RPC batches, and the transport rows that carried them |
| NEGO | basic/lifecycle | the negotiated version and capabilities now bind both sides (a MUST, no longer a SHOULD) |
| HDR | basic/transports | the MCP-Protocol-Version HTTP header |
| META | basic | ``_meta`` key names and the prefixes MCP reserves |
| RSRC | server/resources | resource annotations' ``lastModified``, custom URI schemes |
| TITLE | server/tools | ``title``: which name to display |
| LINK | server/tools | resource links, and embedded resources, in tool results |
| OUT | server/tools | structured tool output: ``outputSchema``, ``structuredContent`` |
| CCTX | server/utilities/completion | completion context: the arguments already chosen |
| ELIC | client/elicitation | elicitation: the server asks the user, through the client, for structured input |
| AUTHB | basic/authorization | authorization, second edition: protected resource metadata, resource indicators, audience |
| SEC | basic/security_best_practices | security best practices: confused deputy, token passthrough, session hijacking |

Fields, levels and sides as in requirements_2025_03_26.py (revision_index.py point 2 for levels).
The authorization and security rows (AUTHB, SEC) are indexed so that the checker and the notes can
say by ID what mcp_ref does not implement. The shared copy of the spec this index was built from
lacks basic/security_best_practices; its SEC rows were read from the public specification
repository, where the page of 2025-11-25 repeats this revision's requirements word for word.

Lookups as in requirements.py: ``get(id)``, ``search(text)``, ``on_page(page)``, and
``REQUIREMENTS``; ``indexes.py`` looks across every revision.
"""

# The table below keeps one requirement per line so that it can be scanned; its lines run long.
# ruff: noqa: E501

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from . import revision_index

REVISION = "2025-06-18"
SPEC_URL = f"{revision_index.SPEC_ROOT}/{REVISION}"


@dataclass(frozen=True)
class Requirement(revision_index.LaterRequirement):
    """A requirement of revision 2025-06-18: as requirements.Requirement, with this revision's URL."""

    revision: ClassVar[str] = REVISION


def _r(id: str, page: str, level: str, side: str, summary: str) -> Requirement:
    return Requirement(id, page, level, side, summary)


_TABLE: tuple[Requirement, ...] = (
    # What 2025-06-18 removed: batches
    _r("DROP-01", "basic", "INFO", "both", "JSON-RPC batches are gone again: every message travels on its own, and BATCH-01 and BATCH-02 of 2025-03-26 no longer apply"),
    _r("DROP-02", "basic/transports", "MUST", "client", "Make every POST body one request, notification or response, never an array (SHTTP-11 without batches)"),
    _r("DROP-03", "basic/transports", "MUST", "server", "Answer a POST that holds a request with an event stream or with one JSON object (SHTTP-14, one request per POST)"),
    _r("DROP-04", "basic/transports", "SHOULD/MAY/SHOULD NOT", "server", "On a POST's stream, send that request's single response in time, perhaps after requests and notifications of its own, and end the stream only after it (SHTTP-16..19 for one request)"),
    _r("DROP-05", "basic/transports", "MAY", "server", "On the GET stream, send requests and notifications one at a time: no batches there either (SHTTP-26)"),
    # basic/lifecycle
    _r("NEGO-01", "basic/lifecycle", "MUST", "both", "Keep to the negotiated protocol version and use only the capabilities both sides agreed on, for the whole session (2025-03-26 only recommended it)"),
    # basic/transports: the protocol version header
    _r("HDR-01", "basic/transports", "MUST", "client", "Over HTTP, send MCP-Protocol-Version on every request after initialization, so the server can answer by that revision (the lifecycle page says the same)"),
    _r("HDR-02", "basic/transports", "SHOULD", "client", "Put in that header the version agreed at initialization"),
    _r("HDR-03", "basic/transports", "SHOULD", "server", "Given no such header and no other way to tell the version, take it to be 2025-03-26"),
    _r("HDR-04", "basic/transports", "MUST", "server", "Answer 400 Bad Request to a header that names an invalid or unsupported version"),
    # basic: _meta
    _r("META-01", "basic", "MUST NOT", "both", "Assume nothing about the values under the _meta keys MCP reserves for itself"),
    _r("META-02", "basic", "MUST", "both", "Write a _meta key's prefix, when it has one, as dot-separated labels ended by a slash; a label starts with a letter, ends with a letter or digit, and holds letters, digits and hyphens"),
    _r("META-03", "basic", "INFO", "both", "A prefix with a label modelcontextprotocol or mcp (followed by another label) belongs to MCP: implementations do not coin keys there"),
    _r("META-04", "basic", "MUST/MAY", "both", "Begin and end a non-empty key name with a letter or digit; between them, hyphens, underscores, dots and alphanumerics are allowed"),
    # server/resources
    _r("RSRC-01", "server/resources", "SHOULD (lowercase)", "server", "Write annotations.lastModified as an ISO 8601 timestamp"),
    _r("RSRC-02", "server/resources", "MUST", "server", "Keep a custom URI scheme valid under RFC 3986, minding the page's advice on schemes"),
    # server/tools: titles, resource links, structured output
    _r("TITLE-01", "server/tools", "SHOULD (lowercase)", "client", "Display an object by its title, falling back to its name; for a tool, annotations.title comes before name"),
    _r("LINK-01", "server/tools", "MAY", "server", "Return resource links (type resource_link, with a uri and a name) in a tool result, pointing at context the client can fetch or subscribe to"),
    _r("LINK-02", "server/tools", "INFO", "client", "A resource a tool links to need not appear in resources/list"),
    _r("LINK-03", "server/tools", "MAY/SHOULD", "server", "Embed resources in a tool result under a fitting URI scheme; a server that embeds them offers the resources capability"),
    _r("OUT-01", "server/tools", "SHOULD", "server", "Beside structuredContent, also return that JSON serialized in a text content block, for clients that predate it"),
    _r("OUT-02", "server/tools", "MAY (lowercase)", "server", "Give a tool an outputSchema, the shape its structured results can be checked against"),
    _r("OUT-03", "server/tools", "MUST", "server", "When a tool declares an outputSchema, make every structured result it returns conform to it"),
    _r("OUT-04", "server/tools", "SHOULD", "client", "Check a tool's structured results against its outputSchema"),
    # server/utilities/completion
    _r("CCTX-01", "server/utilities/completion", "SHOULD (lowercase)", "client", "For a prompt or URI template with several arguments, send the values already chosen in context.arguments"),
    # client/elicitation
    _r("ELIC-01", "client/elicitation", "MUST NOT", "server", "Never use elicitation to ask the user for sensitive information"),
    _r("ELIC-02", "client/elicitation", "SHOULD", "client", "Make plain in the interface which server is asking"),
    _r("ELIC-03", "client/elicitation", "SHOULD", "client", "Let the user review and change an answer before it goes back to the server"),
    _r("ELIC-04", "client/elicitation", "SHOULD", "client", "Respect the user's privacy, with clear ways to decline or cancel at any moment"),
    _r("ELIC-05", "client/elicitation", "MUST", "client", "Declare the elicitation capability to receive elicitation/create"),
    _r("ELIC-06", "client/elicitation", "INFO", "both", "requestedSchema is a flat object whose properties are primitives only: string (formats email, uri, date, date-time), number or integer, boolean, and string enums (enumNames labels them)"),
    _r("ELIC-07", "client/elicitation", "SHOULD (lowercase)", "server", "Act on each answer by its action: use accepted content, meet a decline (offer another way), take a cancel as a dismissal (perhaps ask later)"),
    _r("ELIC-08", "client/elicitation", "SHOULD", "client", "Give the user controls to approve elicitation requests"),
    _r("ELIC-09", "client/elicitation", "SHOULD", "both", "Check elicited content against requestedSchema, on each side"),
    _r("ELIC-10", "client/elicitation", "SHOULD", "client", "Limit how often a server may elicit"),
    _r("ELIC-11", "client/elicitation", "SHOULD", "client", "Show each request so that the user sees what is wanted and why"),
    # basic/authorization (second edition)
    _r("AUTHB-01", "basic/authorization", "INFO", "both", "Roles: the protected MCP server is an OAuth 2.1 resource server, the MCP client an OAuth 2.1 client; an authorization server, with the MCP server or apart from it, issues the tokens"),
    _r("AUTHB-02", "basic/authorization", "MUST", "server", "The authorization server implements OAuth 2.1 with its security measures for confidential and public clients (AUTH-04 asked it of every implementation)"),
    _r("AUTHB-03", "basic/authorization", "SHOULD", "both", "Authorization servers and MCP clients support Dynamic Client Registration (RFC 7591), so clients need no registration by hand"),
    _r("AUTHB-04", "basic/authorization", "MUST", "both", "The MCP server implements Protected Resource Metadata (RFC 9728) to tell where its authorization servers are; the client finds them through it"),
    _r("AUTHB-05", "basic/authorization", "MUST", "both", "The authorization server publishes Authorization Server Metadata (RFC 8414); the client learns from it how to talk to that server"),
    _r("AUTHB-06", "basic/authorization", "MUST", "server", "Name at least one authorization server in authorization_servers of the protected resource metadata"),
    _r("AUTHB-07", "basic/authorization", "SHOULD (lowercase)", "client", "Use authorization_servers as RFC 9728 explains; when it names several, the client picks one (RFC 9728 section 7.6)"),
    _r("AUTHB-08", "basic/authorization", "MUST", "server", "With every 401, send a WWW-Authenticate header giving the protected resource metadata URL (RFC 9728 section 5.1)"),
    _r("AUTHB-09", "basic/authorization", "MUST", "client", "Parse WWW-Authenticate headers and act on a 401 from the MCP server"),
    _r("AUTHB-10", "basic/authorization", "MUST", "client", "Implement Resource Indicators (RFC 8707): put resource, naming the MCP server by its canonical URI, in both authorization and token requests"),
    _r("AUTHB-11", "basic/authorization", "SHOULD", "client", "Name the MCP server by the most specific URI that identifies it"),
    _r("AUTHB-12", "basic/authorization", "SHOULD", "both", "Accept an upper-case scheme or host in a server URI, though the canonical form is lower case"),
    _r("AUTHB-13", "basic/authorization", "SHOULD", "both", "Write a server's canonical URI without a trailing slash, unless the slash means something for that resource"),
    _r("AUTHB-14", "basic/authorization", "MUST", "client", "Send the resource parameter whether or not the authorization server supports it"),
    _r("AUTHB-15", "basic/authorization", "MUST", "server", "Validate access tokens as an OAuth 2.1 resource server (section 5.2), including that this server is their audience (RFC 8707)"),
    _r("AUTHB-16", "basic/authorization", "MUST NOT", "client", "Send the MCP server no token but those its own authorization server issued"),
    _r("AUTHB-17", "basic/authorization", "MUST", "server", "An authorization server accepts only the tokens valid for its own resources"),
    _r("AUTHB-18", "basic/authorization", "MUST NOT", "server", "Accept or pass along no token except those meant for this MCP server"),
    _r("AUTHB-19", "basic/authorization", "MUST", "both", "Clients and servers alike keep tokens in secure storage and follow OAuth practice (OAuth 2.1 section 7.1)"),
    _r("AUTHB-20", "basic/authorization", "SHOULD", "server", "Authorization servers issue short-lived access tokens, so a leaked one does little harm"),
    _r("AUTHB-21", "basic/authorization", "MUST", "server", "Authorization servers rotate the refresh tokens of public clients (OAuth 2.1 section 4.3.1)"),
    _r("AUTHB-22", "basic/authorization", "MUST", "both", "Follow the communication security of OAuth 2.1 (section 1.5)"),
    _r("AUTHB-23", "basic/authorization", "MUST", "client", "Implement PKCE as OAuth 2.1 section 7.5.2 says, so a stolen authorization code is worthless"),
    _r("AUTHB-24", "basic/authorization", "MUST", "client", "Register redirect URIs with the authorization server"),
    _r("AUTHB-25", "basic/authorization", "MUST", "server", "The authorization server compares redirect URIs exactly with the registered ones"),
    _r("AUTHB-26", "basic/authorization", "SHOULD", "client", "Use the state parameter in the authorization code flow, and drop any result whose state is missing or different"),
    _r("AUTHB-27", "basic/authorization", "MUST/SHOULD/MAY", "server", "The authorization server avoids sending user agents to untrusted URIs (OAuth 2.1 section 7.12.2): it redirects by itself only to URIs it trusts, and otherwise may let an informed user decide"),
    _r("AUTHB-28", "basic/authorization", "MUST", "server", "A proxy MCP server with a static client ID gets the user's consent for each dynamically registered client before forwarding to the third-party authorization server"),
    _r("AUTHB-29", "basic/authorization", "MUST", "server", "Validate the access token, as one issued for this server, before handling the request, and let no data reach anyone unauthorized"),
    _r("AUTHB-30", "basic/authorization", "MUST", "server", "Accept only tokens naming this server as audience (or otherwise proving it the intended recipient), and reject the rest"),
    _r("AUTHB-31", "basic/authorization", "MUST NOT", "server", "Never hand the client's token on to an upstream API: toward upstream, the server is an OAuth client with a token of its own"),
    # basic/security_best_practices
    _r("SEC-01", "basic/security_best_practices", "MUST", "server", "A proxy server using one static client ID asks the user's consent per dynamically registered client before going to the third-party authorization server (as AUTHB-28)"),
    _r("SEC-02", "basic/security_best_practices", "MUST NOT", "server", "Take no token that was not issued explicitly for this server: token passthrough is forbidden (as AUTHB-18)"),
    _r("SEC-03", "basic/security_best_practices", "MUST", "server", "A server that implements authorization verifies every inbound request"),
    _r("SEC-04", "basic/security_best_practices", "MUST NOT", "server", "Never treat a session as proof of who the client is"),
    _r("SEC-05", "basic/security_best_practices", "MUST/SHOULD", "server", "Make session IDs secure and unpredictable, drawn from a secure random generator: never sequential or guessable"),
    _r("SEC-06", "basic/security_best_practices", "SHOULD", "server", "Tie session IDs to the user, for instance keying stored or queued session data by user ID and session ID together"),
    _r("SEC-07", "basic/security_best_practices", "OPTIONAL (lowercase)", "server", "Add further unique identifiers to that binding if useful"),
)

REQUIREMENTS: dict[str, Requirement] = {r.id: r for r in _TABLE}


def get(requirement_id: str) -> Requirement:
    """The requirement with this ID, in any case; KeyError naming close IDs if unknown."""
    return revision_index.lookup(requirement_id, REQUIREMENTS, REVISION, "OUT-03 or ELIC-05")


def search(text: str) -> list[Requirement]:
    """Requirements whose ID, page or summary contains ``text``, ignoring case, in the index's order."""
    return revision_index.search(text, _TABLE)


def on_page(page: str) -> list[Requirement]:
    """The requirements of one page of this revision (path, last segment or URL); KeyError if none."""
    return revision_index.rows_on_page(page, _TABLE, REVISION)
