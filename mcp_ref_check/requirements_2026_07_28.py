"""The requirement index of revision 2026-07-28: what it adds to, changes in or removes from 2025-11-25.

Not a spec section: the index of the requirements revision 2026-07-28 brought, in the same form as
the 2025-06-18 and 2025-11-25 indexes (requirements_2025_06_18.py, requirements_2025_11_25.py).
https://modelcontextprotocol.io/specification/2026-07-28

Revision 2026-07-28 is the stateless one. There is no ``initialize`` handshake: every request carries
its protocol version and the client's capabilities in ``_meta``, a server tells its versions and
capabilities through ``server/discover``, and a version it does not speak is refused with -32022.
Servers send no requests of their own any more: they answer ``tools/call``, ``prompts/get`` or
``resources/read`` with ``resultType: "input_required"`` and the client retries with the answers
(multi round-trip requests). Change notifications come on a ``subscriptions/listen`` stream; the
GET stream, sessions, stream resumption, ``ping``, ``logging/setLevel``, ``resources/subscribe``,
``notifications/roots/list_changed`` and ``notifications/elicitation/complete`` are gone, and tasks
moved to an extension. Streamable HTTP mirrors the method and name into ``Mcp-Method`` and
``Mcp-Name`` headers (and tool arguments into ``Mcp-Param-*``), list and read results carry caching
hints (``ttlMs``, ``cacheScope``), -32020..-32099 are the specification's error codes, and Roots,
Sampling and Logging are deprecated.

Made by comparing every page of 2026-07-28 with the page of 2025-11-25 that held the same text: each
added or changed sentence that carries MUST, MUST NOT, SHOULD, SHOULD NOT, MAY, REQUIRED,
RECOMMENDED or OPTIONAL, or a plain-prose "should"/"must" in new text, has a row (several sentences
that say one thing share one, also across pages: the second page is named in the summary). So has
each thing the revision removed that an implementation of 2026-07-28 must now do without, worded as
what such an implementation does (level ``"INFO"`` where no keyword says it). Text that only moved
(the authorization page split into four, basic/utilities became basic/patterns, the transports page
split into three) or was reworded without changing what it asks keeps its older ID. The note each
page repeats, that every request carries the required ``_meta`` fields, is STLS-09 alone.

| prefix | page(s) | what it covers |
|---|---|---|
| STLS | basic, basic/versioning, architecture, changelog | statelessness, the per-request ``_meta`` fields, clientInfo/serverInfo, version negotiation and -32022, extension negotiation, the dual-era model; no initialize, no ping, tasks out of the core |
| RTYPE | basic | the ``resultType`` field of every result |
| ERRC | basic | the error-code policy: the legacy and reserved sub-ranges, retired codes (-32002, -32042), error ``data`` |
| JSREF | basic, server/tools | ``$ref`` resolution and bounds on validating composed schemas |
| MRTR | basic/patterns, basic/patterns/mrtr, server/tools, server/prompts, server/resources | no server-initiated requests; ``InputRequiredResult``, ``inputRequests``, ``inputResponses``, ``requestState`` |
| SUBS | basic/patterns/subscriptions, basic, server/resources | ``subscriptions/listen``: filter, acknowledgment, ``subscriptionId``, graceful closure; no resources/subscribe |
| CANCEL | basic/patterns/cancellation | who cancels (the client; the server only its subscription streams), per transport, timeouts |
| PRGRS | basic/patterns/progress | progress now flows from server to client only |
| XPORT | basic/transports | what a binding carries, mirrored metadata, custom transports |
| STDIO | basic/transports/stdio | directions on stdio, cancellation, exit on EOF, restart, the ``server/discover`` probe |
| HTTPX | basic/transports/streamable-http | POST only, request-scoped streams, MCP-Protocol-Version/Mcp-Method/Mcp-Name and -32020, 404 for unknown methods, backward compatibility; no sessions, no GET stream, no resumption |
| MPARAM | basic/transports/streamable-http, server/tools | ``x-mcp-header``: the ``Mcp-Param-{Name}`` headers, their encoding and validation |
| DISC | server/discover, server/prompts | ``server/discover`` and its result; capabilities declared there |
| LISTS | server/tools, server/prompts, server/resources | list results per requesting client, never per connection; order; list_changed on subscriptions |
| TDEF | server/tools | tool-name clashes across servers, state handles, ``structuredContent`` of any JSON type |
| PROMPT | server/prompts | resource links in prompt messages |
| RREAD | server/resources | several contents per read, direct https fetch, not-found is -32602, path sanitizing |
| CURSOR | server/utilities/pagination | an empty cursor is a cursor |
| CACHE | server/utilities/caching | the whole new page: ``ttlMs``, ``cacheScope``, cache keys, pagination, security |
| LOGX | server/utilities/logging | the per-request log level ``io.modelcontextprotocol/logLevel``; no logging/setLevel |
| CFEAT | client/elicitation, client/sampling, client/roots | client capabilities per request, input through ``InputRequiredResult``; no elicitation/complete, no -32042, no roots list_changed; new sampling field rules |
| DEPR | deprecated, server/utilities/logging, client/sampling, client/roots, basic/transports/streamable-http, basic/authorization/client-registration | the deprecation policy and what it now covers: Roots, Sampling, Logging, HTTP+SSE, includeContext, Dynamic Client Registration |
| AUTHD | basic/authorization and its pages authorization-server-discovery, client-registration, security-considerations | the fourth authorization edition: ``iss`` validation (RFC 9207), refresh tokens, scope challenges, metadata issuer check, ``application_type``, credentials bound to their authorization server |

server/utilities/completion has no rows: it only gains the ``_meta`` note (STLS-09) and says a
``ref/resource`` may name a URI template, with no requirement sentence.

Fields, levels and sides as in requirements_2025_06_18.py (revision_index.py point 2 for levels);
``page`` is the page's path in 2026-07-28 (``basic`` is basic/index.mdx, ``basic/authorization``
its index.mdx; ``changelog`` and ``deprecated`` are pages of this revision too). On the
authorization pages "server" also covers the authorization server, and on the Streamable HTTP page
the intermediaries (gateways, proxies), each named in the summary. The summaries are ours, in our
own words; the spec page has the exact wording, so read it before relying on a row. mcp_ref does
not speak this revision yet; the notes (``spec_notes/revision-2026-07-28.md``) say so row by row.

Lookups as in requirements.py: ``get(id)``, ``search(text)``, ``on_page(page)``, and
``REQUIREMENTS``; ``indexes.py`` looks across every revision.
"""

# The table below keeps one requirement per line so that it can be scanned; its lines run long.
# ruff: noqa: E501

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from . import revision_index

REVISION = "2026-07-28"
SPEC_URL = f"{revision_index.SPEC_ROOT}/{REVISION}"


@dataclass(frozen=True)
class Requirement(revision_index.LaterRequirement):
    """A requirement of revision 2026-07-28: as requirements.Requirement, with this revision's URL."""

    revision: ClassVar[str] = REVISION


def _r(id: str, page: str, level: str, side: str, summary: str) -> Requirement:
    return Requirement(id, page, level, side, summary)


_BAS = "basic"
_VER = "basic/versioning"
_ARC = "architecture"
_CHG = "changelog"
_PAT = "basic/patterns"
_MRT = "basic/patterns/mrtr"
_SUB = "basic/patterns/subscriptions"
_CAN = "basic/patterns/cancellation"
_PRG = "basic/patterns/progress"
_TRN = "basic/transports"
_STD = "basic/transports/stdio"
_HTP = "basic/transports/streamable-http"
_DSC = "server/discover"
_TLS = "server/tools"
_PRM = "server/prompts"
_RES = "server/resources"
_PAG = "server/utilities/pagination"
_CCH = "server/utilities/caching"
_LOG = "server/utilities/logging"
_ELI = "client/elicitation"
_SMP = "client/sampling"
_RTS = "client/roots"
_DEP = "deprecated"
_AUT = "basic/authorization"
_ASD = "basic/authorization/authorization-server-discovery"
_REG = "basic/authorization/client-registration"
_SCY = "basic/authorization/security-considerations"

_TABLE: tuple[Requirement, ...] = (
    # basic: what every implementation supports, request IDs, statelessness
    _r("STLS-01", _BAS, "MUST", "both", "Every implementation carries the base protocol, the message patterns and versioning (lifecycle management left that list)"),
    _r("STLS-02", _BAS, "MUST NOT", "both", "Never give a request the ID of another of the sender's requests still awaiting its response (no longer scoped to a session)"),
    _r("STLS-03", _BAS, "MUST NOT", "server", "Take no context (capabilities, protocol version, client identity) from earlier requests on the same connection: each request brings its own in _meta"),
    _r("STLS-04", _BAS, "SHOULD", "server", "Expect requests that belong to many different tasks, threads or conversations"),
    _r("STLS-05", _BAS, "SHOULD NOT", "server", "Never require a client to use one connection or process for operations that belong together"),
    _r("STLS-06", _BAS, "SHOULD NOT", "client", "Do not let one task, thread or conversation decide how long a stdio server process lives"),
    _r("STLS-07", _BAS, "MUST", "both", "Name state that outlives a request (long-running work, application handles) by an explicit identifier the client sends along each time"),
    _r("STLS-08", _BAS, "MUST NOT (lowercase)", "server", "Never treat a connection or process (a stdio pipe, say) as a conversation or session: clients interleave unrelated requests on one"),
    # basic: _meta per request and per response
    _r("STLS-09", _BAS, "MUST", "client", "Put io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities in the _meta of every request (each page with request examples repeats it)"),
    _r("STLS-10", _BAS, "MUST", "server", "Refuse a request lacking a required _meta field as malformed: -32602 Invalid params, with HTTP status 400 over HTTP"),
    _r("STLS-11", _BAS, "SHOULD", "client", "Name the client in io.modelcontextprotocol/clientInfo on each request unless configured otherwise"),
    _r("STLS-12", _BAS, "MUST NOT/MUST", "server", "Count on no client capability the request's clientCapabilities leaves out; when one is needed, answer -32021 MissingRequiredClientCapability naming it in data.requiredCapabilities (HTTP 400)"),
    _r("STLS-13", _BAS, "SHOULD", "server", "Identify the server with io.modelcontextprotocol/serverInfo in the _meta of every result, unless configured not to"),
    _r("STLS-14", _BAS, "SHOULD NOT", "both", "Treat clientInfo and serverInfo as unverified labels for display, logs and debugging: base neither behaviour nor security decisions on them"),
    _r("STLS-15", _BAS, "MUST", "both", "Write the _meta keys traceparent, tracestate and baggage (reserved for OpenTelemetry, without prefix) in W3C Trace Context and W3C Baggage format"),
    # basic/versioning
    _r("STLS-16", _VER, "MUST", "server", "Answer a request in a protocol version the server does not implement (unknown, or known and not offered) with UnsupportedProtocolVersionError, -32022, listing the versions it supports"),
    _r("STLS-17", _VER, "SHOULD", "client", "After -32022, retry with a version from the supported list that the client also speaks, or tell the user that none is shared"),
    _r("STLS-18", _VER, "MUST/MAY", "both", "Server implements server/discover; calling it first is the client's choice, which can just send its requests and handle -32022"),
    _r("STLS-19", _VER, "MUST", "both", "Spell extension identifiers (keys of capabilities.extensions) by the _meta key rules, with a prefix always present"),
    _r("STLS-20", _VER, "MUST/SHOULD", "both", "When only one side supports an extension, that side falls back to core behaviour or refuses the request with a fitting error; each extension documents its fallback"),
    _r("STLS-21", _VER, "MAY", "server", "Serve legacy clients (initialize handshake) beside modern ones (per-request _meta) if wanted"),
    _r("STLS-22", _VER, "SHOULD/MAY", "client", "Remember a server's era (modern or legacy) for the life of the stdio process or the HTTP origin, perhaps across restarts of the same configuration, probing again if it proves wrong"),
    _r("STLS-23", _VER, "SHOULD", "server", "A modern-only server lists its supported versions in the error it gives any initialize request, whatever the transport: legacy clients cannot move forward on their own"),
    _r("STLS-24", _VER, "SHOULD", "client", "A modern-only client on stdio sends server/discover first, so that a legacy server fails at once, and then shows the user an error to act on"),
    _r("STLS-25", _VER, "MAY", "server", "A dual-era server can serve both eras at once on one endpoint or process: modern _meta is served statelessly, initialize opens legacy semantics for that process or session"),
    _r("STLS-26", _VER, "INFO", "both", "No initialize or notifications/initialized in this revision: a modern server serves a request with no handshake before it, and a modern client sends none"),
    # architecture, and what only the changelog says
    _r("STLS-27", _ARC, "MUST (lowercase)", "both", "Keep to the capabilities the peer declared, interaction by interaction: the client's come with each request, the server's through server/discover"),
    _r("STLS-28", _CHG, "INFO", "both", "No ping in this revision: a client of 2026-07-28 sends none, and a server of it offers none"),
    _r("STLS-29", _CHG, "INFO", "both", "Tasks left the core protocol: no tasks/* methods and no notifications/tasks/status; task support comes only as the io.modelcontextprotocol/tasks extension"),
    # basic: resultType
    _r("RTYPE-01", _BAS, "MUST", "server", "Give every result a resultType: complete for a final result, input_required for an interim InputRequiredResult"),
    _r("RTYPE-02", _BAS, "MAY/MUST", "both", "Extensions can add resultType values; the accepted set is the core's values plus those of the extensions advertised in capabilities"),
    _r("RTYPE-03", _BAS, "MUST", "client", "Take a result whose resultType the client does not know as invalid"),
    _r("RTYPE-04", _BAS, "MUST", "client", "Read a result without resultType (from a server of an earlier revision) as complete"),
    # basic: error codes
    _r("ERRC-01", _BAS, "MAY", "both", "Let an error response carry data of any type, nested errors for instance"),
    _r("ERRC-02", _BAS, "MUST NOT/SHOULD NOT", "both", "Allocate no new code in the legacy sub-range -32000..-32019, and in a new implementation use none of it at all"),
    _r("ERRC-03", _BAS, "MUST NOT", "both", "Read no fixed meaning into a code of -32000..-32019 received from the peer, -32002 apart"),
    _r("ERRC-04", _BAS, "MUST NOT/MUST", "both", "Emit no code of -32020..-32099 the specification does not define, and use the defined ones (-32020, -32021, -32022) only for what they mean"),
    _r("ERRC-05", _BAS, "MUST NOT", "both", "Emit neither of the retired codes: -32002 (resource not found, now -32602) and -32042 (URL elicitation required)"),
    _r("ERRC-06", _BAS, "SHOULD", "client", "Keep accepting -32002 as resource-not-found from servers of earlier revisions (the resources page says it too)"),
    _r("ERRC-07", _BAS, "SHOULD (lowercase)", "both", "Shape purely local errors (an SDK's timeout, say) so that they cannot pass for errors the peer sent"),
    _r("ERRC-08", _BAS, "SHOULD", "both", "Give application-defined errors codes outside -32768..-32000, the range JSON-RPC reserves"),
    # basic: $ref and composition
    _r("JSREF-01", _BAS, "MUST NOT", "both", "Never follow on its own a $ref that resolves to a network URI"),
    _r("JSREF-02", _BAS, "MAY/MUST/SHOULD", "both", "Offer fetching of non-local $refs only as an opt-in, off by default, limited to allowed hosts (loopback, link-local and private addresses refused at least), with timeouts, size limits and a log"),
    _r("JSREF-03", _BAS, "SHOULD", "both", "Reject a schema whose external $ref stays unresolved instead of treating it as accepting anything"),
    _r("JSREF-04", _BAS, "SHOULD", "both", "Bound the cost of validation (schema depth, number of subschemas, a time budget) so that a hostile schema cannot exhaust the validator"),
    _r("JSREF-05", _TLS, "SHOULD", "client", "Apply the $ref rules (JSREF-01..04) when validating tool arguments and results against inputSchema and outputSchema"),
    # basic/patterns
    _r("MRTR-01", _PAT, "MUST NOT", "server", "Start no JSON-RPC request of the server's own: every interaction begins with the client, which in turn sends no JSON-RPC responses"),
    _r("MRTR-02", _PAT, "MAY", "server", "While a request is in flight, send notifications about that request only (progress, log messages)"),
    # basic/patterns/mrtr
    _r("MRTR-03", _MRT, "MUST", "server", "Ask for roots/list, sampling/createMessage or elicitation/create only inside an InputRequiredResult: standalone server requests are gone"),
    _r("MRTR-04", _MRT, "MAY/MUST NOT", "server", "Answer with InputRequiredResult only prompts/get, resources/read and tools/call, never another request"),
    _r("MRTR-05", _MRT, "MAY/MUST", "server", "Key inputRequests with identifiers unique within the request, each value an ElicitRequest, CreateMessageRequest or ListRootsRequest"),
    _r("MRTR-06", _MRT, "MAY", "server", "Add a requestState, an opaque string in whatever encoding the server likes, to carry its context through the client"),
    _r("MRTR-07", _MRT, "MUST/MAY", "server", "Treat a returned requestState as attacker input; if it steers authorization, access or business logic, integrity-protect it (HMAC, AEAD) and refuse it when the check fails (needless where tampering only fails the request)"),
    _r("MRTR-08", _MRT, "SHOULD", "server", "Against replay, bind into the protected requestState the authenticated principal, a short expiry and the originating request (method, digest of its main parameters), and check all three"),
    _r("MRTR-09", _MRT, "MUST", "server", "Where a requestState is good for one redemption only, enforce that on the server side"),
    _r("MRTR-10", _MRT, "MUST", "server", "Put inputRequests or requestState, or both, in every InputRequiredResult"),
    _r("MRTR-11", _MRT, "MUST NOT", "server", "Send no input request of a kind the client's capabilities leave out (no elicitation/create to a client without elicitation)"),
    _r("MRTR-12", _MRT, "MUST NOT/MAY", "server", "Count neither on the client answering the input requests nor on its retrying; asking again with another InputRequiredResult on a later attempt is allowed"),
    _r("MRTR-13", _MRT, "MUST NOT", "client", "Treat requestState as opaque: never inspect, parse, change or draw conclusions from it"),
    _r("MRTR-14", _MRT, "MUST/MAY", "client", "Gather every requested input before retrying; when the result held no inputRequests, retry at once if wanted"),
    _r("MRTR-15", _MRT, "MUST/MUST NOT", "client", "Send the requestState back unchanged on the retry, and none when the result carried none"),
    _r("MRTR-16", _MRT, "MUST", "client", "Give the retry a JSON-RPC id of its own: it is a new request"),
    _r("MRTR-17", _MRT, "MUST NOT", "client", "Use inputResponses and requestState only for the retry of the request that received them, never for others running alongside"),
    _r("MRTR-18", _MRT, "SHOULD", "server", "Check that inputResponses is a valid InputResponses whose entries parse, and report protocol errors (malformed JSON, bad schema, internal failure) as JSON-RPC errors"),
    _r("MRTR-19", _MRT, "SHOULD", "server", "Ignore entries of inputResponses the server does not recognise or need"),
    _r("MRTR-20", _MRT, "SHOULD", "server", "When a needed input is missing from the retry, ask for it again with a new InputRequiredResult rather than failing"),
    _r("MRTR-21", _TLS, "MAY/MUST", "both", "Answer tools/call with an InputRequiredResult when input is needed; the client's retry carries inputResponses, any requestState, and a new id"),
    _r("MRTR-22", _PRM, "MAY", "server", "Answer prompts/get with an InputRequiredResult when input is needed, to be retried with inputResponses and any requestState"),
    _r("MRTR-23", _RES, "MAY", "server", "Answer resources/read with an InputRequiredResult when input is needed, to be retried with inputResponses and any requestState"),
    # basic/patterns/subscriptions
    _r("SUBS-01", _SUB, "MUST NOT", "server", "Send on a subscriptions/listen stream only the notification types the client's filter asked for"),
    _r("SUBS-02", _SUB, "MUST/MUST NOT", "server", "Open each subscription with notifications/subscriptions/acknowledged (its subscriptionId in _meta, the subset honoured in notifications) and send nothing on it before"),
    _r("SUBS-03", _SUB, "MAY", "server", "On stdio that order holds per subscription: messages of other subscriptions can come before an acknowledgment"),
    _r("SUBS-04", _SUB, "SHOULD", "client", "Compare the acknowledged filter with the one requested, and cope with the types the server left out"),
    _r("SUBS-05", _SUB, "MUST", "client", "On stdio, tell notifications apart by the subscriptionId in _meta, the id of the subscriptions/listen request (the stdio page says it too)"),
    _r("SUBS-06", _SUB, "MAY", "client", "Hold several subscriptions at once, one per subscriptions/listen request"),
    _r("SUBS-07", _SUB, "SHOULD", "server", "When ending a subscription itself (at shutdown, say), answer its subscriptions/listen request with a complete result tagged with the subscriptionId, then close the stream"),
    _r("SUBS-08", _SUB, "MAY", "client", "Take a stream that ends without that final result as a dropped connection, and reconnect if wanted"),
    _r("SUBS-09", _SUB, "MUST", "client", "After a stdio connection is lost and made again, send subscriptions/listen anew: the server keeps no subscription across connections"),
    _r("SUBS-10", _BAS, "MUST", "server", "Tag every notification sent on a subscriptions/listen stream with io.modelcontextprotocol/subscriptionId in _meta"),
    _r("SUBS-11", _RES, "INFO", "both", "No resources/subscribe or resources/unsubscribe: a client watches resources by listing their URIs in resourceSubscriptions of subscriptions/listen"),
    # basic/patterns/cancellation
    _r("CANCEL-01", _CAN, "SHOULD", "client", "Cancel a request the client issued earlier by the cancellation signal (only the client cancels requests now)"),
    _r("CANCEL-02", _CAN, "MUST/MUST NOT", "server", "Send notifications/cancelled only to end a subscription stream it tears down, naming that subscriptions/listen request, and for no other purpose"),
    _r("CANCEL-03", _CAN, "MUST", "server", "Over Streamable HTTP, take a client closing a request's response stream as cancelling that request; no notifications/cancelled is expected there"),
    _r("CANCEL-04", _CAN, "MUST", "client", "Over stdio, cancel by sending notifications/cancelled with the request's id (the stdio page says it too)"),
    _r("CANCEL-05", _CAN, "SHOULD", "client", "When a request times out, cancel it as its transport does it (close the stream, or notifications/cancelled) and stop waiting"),
    _r("CANCEL-06", _CAN, "SHOULD", "server", "On a cancellation, stop processing, free what the request held and send it no response"),
    _r("CANCEL-07", _CAN, "MAY", "server", "Ignore a cancellation of an unknown, finished or uncancellable request"),
    _r("CANCEL-08", _CAN, "SHOULD", "client", "Ignore a response to a cancelled request that comes in afterwards"),
    # basic/patterns/progress
    _r("PRGRS-01", _PRG, "MAY", "server", "Only the server sends progress notifications, for requests of the client that carried a progressToken"),
    _r("PRGRS-02", _PRG, "MUST", "client", "Pick progress tokens (string or integer) unique among the client's active requests"),
    _r("PRGRS-03", _PRG, "MAY", "server", "Given a progress token, send no progress at all, at any pace, or without a total"),
    _r("PRGRS-04", _PRG, "SHOULD", "both", "Client and server keep track of the progress tokens in use"),
    # basic/transports
    _r("XPORT-01", _TRN, "MUST", "both", "A binding carries requests and notifications from client to server and responses and notifications back: no other direction exists"),
    _r("XPORT-02", _TRN, "MAY", "both", "A binding can copy chosen body fields into envelope metadata; the body stays the truth and the binding says how mismatches are refused"),
    _r("XPORT-03", _TRN, "MUST/SHOULD", "both", "A custom transport keeps the JSON-RPC format, the message patterns and per-request metadata, and documents its connection setup, framing and cancellation"),
    _r("XPORT-04", _TRN, "SHOULD", "both", "A custom transport over a reliable byte stream (Unix socket, TCP) reuses the stdio framing and message rules (the stdio page says it too)"),
    # basic/transports/stdio
    _r("STDIO-01", _STD, "MUST NOT", "client", "Write to the server's stdin only requests and notifications, never JSON-RPC responses"),
    _r("STDIO-02", _STD, "MUST NOT", "server", "Write no JSON-RPC requests to stdout: input from the client is asked for in InputRequiredResult"),
    _r("STDIO-03", _STD, "SHOULD/MUST NOT", "server", "Stop work on a cancelled request soon and write nothing more about it"),
    _r("STDIO-04", _STD, "SHOULD", "server", "Exit promptly once stdin is closed or reads reach end-of-file"),
    _r("STDIO-05", _STD, "SHOULD/MUST (lowercase)", "client", "Restart a server process that died: in-flight requests are lost and can be sent again, and subscriptions/listen streams reopened"),
    _r("STDIO-06", _STD, "SHOULD", "client", "A dual-era client sends server/discover (preferred modern version in _meta) before anything else: a result or a modern error means modern, any other error or silence means fall back to initialize"),
    _r("STDIO-07", _STD, "MUST NOT", "client", "Base that fallback on no single error code: legacy servers answer unknown requests in many ways, or not at all"),
    _r("STDIO-08", _STD, "RECOMMENDED", "client", "A modern-only client probes with server/discover too, so that a legacy server cannot run an ambiguous method such as tools/call by legacy rules"),
    # basic/transports/streamable-http: endpoint, sending, receiving
    _r("HTTPX-01", _HTP, "MUST (lowercase)", "client", "Handle the changed shape of Streamable HTTP (no GET stream, no sessions) when working with servers of either era"),
    _r("HTTPX-02", _HTP, "MUST", "server", "Offer one MCP endpoint for POST; the GET stream is gone, subscriptions/listen replaces it"),
    _r("HTTPX-03", _HTP, "MUST", "client", "Send the request metadata headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name) on every POST"),
    _r("HTTPX-04", _HTP, "MUST/MUST NOT", "client", "Put one request or one notification in each POST body, and never POST a JSON-RPC response"),
    _r("HTTPX-05", _HTP, "MUST", "server", "Answer a notification POST with 202 and no body when accepted, an HTTP error status otherwise (responses are no longer POSTed)"),
    _r("HTTPX-06", _HTP, "MAY/MUST", "server", "On a request's SSE stream, send before the response only notifications about that request (a tightened rule)"),
    _r("HTTPX-07", _HTP, "MUST NOT", "server", "Send no JSON-RPC request on any SSE stream: client input is asked for in InputRequiredResult"),
    _r("HTTPX-08", _HTP, "SHOULD", "server", "Send X-Accel-Buffering: no with each SSE response so that reverse proxies pass events on at once"),
    _r("HTTPX-09", _HTP, "MUST/MUST NOT (lowercase)", "client", "Skip SSE comment lines (a leading colon), which servers send as keep-alives on long streams, without taking them for malformed input"),
    _r("HTTPX-10", _HTP, "INFO", "both", "No resumption: no SSE event IDs and no Last-Event-ID; a broken response stream loses its request"),
    _r("HTTPX-11", _CHG, "MUST", "client", "Re-send a request whose response stream broke, as a fresh request under a new id"),
    _r("HTTPX-12", _HTP, "MUST/SHOULD/MUST NOT", "server", "Take a client closing a request's SSE stream as cancelling it; stop the work soon and send nothing more about it"),
    # Request metadata headers and their validation
    _r("HTTPX-13", _HTP, "MUST", "client", "Send MCP-Protocol-Version on every POST, equal to the protocolVersion in the body's _meta"),
    _r("HTTPX-14", _HTP, "MUST", "server", "Refuse a request whose MCP-Protocol-Version differs from the body's with 400 and HeaderMismatch"),
    _r("HTTPX-15", _HTP, "MUST", "server", "Refuse a protocol version the server does not implement with 400 and UnsupportedProtocolVersionError listing its versions"),
    _r("HTTPX-16", _HTP, "MUST", "server", "Answer a method the server does not implement with 404 and a -32601 JSON-RPC error in the body"),
    _r("HTTPX-17", _HTP, "MAY/MUST", "server", "Read a missing MCP-Protocol-Version as 2025-03-26 only when serving clients older than 2025-06-18; otherwise refuse the request"),
    _r("HTTPX-18", _HTP, "REQUIRED", "client", "Send Mcp-Method on every request, and Mcp-Name (params.name or params.uri) on tools/call, resources/read and prompts/get"),
    _r("HTTPX-19", _HTP, "MUST", "client", "Carry an Mcp-Name that is not plain header-safe ASCII in the Base64 sentinel form"),
    _r("HTTPX-20", _HTP, "MUST", "both", "Match header names without regard to case; header values such as method names keep their case"),
    _r("HTTPX-21", _HTP, "MUST", "server", "A server reading the body refuses, with 400 and a -32020 HeaderMismatch error, a request whose headers are missing, malformed or differ from the body"),
    _r("HTTPX-22", _HTP, "MUST", "server", "An intermediary answers a header validation failure with an HTTP error status such as 400, a JSON-RPC body being optional"),
    _r("HTTPX-23", _HTP, "SHOULD", "server", "An intermediary enforcing policy on mirrored headers accepts them only when MCP-Protocol-Version names a version that validates headers against the body"),
    # Backward compatibility
    _r("HTTPX-24", _HTP, "MAY/SHOULD", "client", "A dual-era client can try a modern request first; on 400 it reads the body: a known modern error keeps it modern, anything else sends it to initialize"),
    _r("HTTPX-25", _HTP, "SHOULD", "server", "A server of this revision only answers GET and DELETE on the endpoint with 405, and ignores Mcp-Session-Id (minting and echoing none) and Last-Event-ID"),
    _r("HTTPX-26", _HTP, "INFO", "both", "No sessions: no Mcp-Session-Id, no DELETE to end one, no 404 meaning initialize again; state that spans calls lives in explicit handles"),
    _r("HTTPX-27", _HTP, "SHOULD (lowercase)", "client", "Fall back to HTTP+SSE (a GET awaiting the endpoint event) only on 400, 404 or 405 whose body is no recognised modern JSON-RPC error"),
    # x-mcp-header and Mcp-Param-{Name}
    _r("MPARAM-01", _HTP, "MAY/MUST", "both", "Servers can mark tool parameters with x-mcp-header; clients support it and mirror those arguments into Mcp-Param-{Name} headers"),
    _r("MPARAM-02", _HTP, "MUST/MUST NOT", "server", "Make each x-mcp-header value a non-empty HTTP field-name token free of control characters, unique within the inputSchema ignoring case"),
    _r("MPARAM-03", _HTP, "MUST/MUST NOT", "server", "Put x-mcp-header only on integer, string or boolean properties (never number; integers within plus or minus 2^53-1) reached from the root through properties keys alone"),
    _r("MPARAM-04", _HTP, "MUST/SHOULD", "client", "Over Streamable HTTP, leave out of tools/list any tool whose x-mcp-header breaks those rules, and log a warning naming the tool and why"),
    _r("MPARAM-05", _HTP, "MAY", "client", "On other transports (stdio), disregard x-mcp-header"),
    _r("MPARAM-06", _HTP, "MUST", "client", "For tools/call over HTTP, read each marked argument at its exact property path and add Mcp-Param-{Name}; leave the header out when the value is absent or null"),
    _r("MPARAM-07", _HTP, "MUST", "client", "Encode header values: integers in decimal, booleans as true/false, and anything unsafe as plain ASCII (or looking like the sentinel) as Base64 in the lowercase =?base64?...?= form"),
    _r("MPARAM-08", _HTP, "MUST", "server", "Servers and intermediaries decode sentinel-encoded Mcp-Name and Mcp-Param values before comparing them with the body"),
    _r("MPARAM-09", _HTP, "SHOULD", "client", "After a HeaderMismatch over missing or wrong Mcp-Param headers, fetch tools/list again and retry with the right headers"),
    _r("MPARAM-10", _HTP, "MUST", "server", "An intermediary that does not know an Mcp-Param header forwards it and otherwise ignores it"),
    _r("MPARAM-11", _HTP, "MUST", "server", "Refuse a known Mcp-Param header that holds invalid characters"),
    _r("MPARAM-12", _HTP, "MUST/MUST NOT", "server", "Check every decoded Mcp-Param value against the body, expect none for null or absent arguments, and refuse a request lacking one for a present value (400, -32020)"),
    _r("MPARAM-13", _HTP, "SHOULD", "server", "Compare integer values of header and body as numbers, not strings (42.0 equals 42)"),
    _r("MPARAM-14", _TLS, "MAY/MUST", "both", "Tool properties can carry x-mcp-header under the same constraints (MPARAM-02..03), and clients over Streamable HTTP drop tools that break them (MPARAM-04..05)"),
    _r("MPARAM-15", _TLS, "SHOULD NOT", "server", "Mark no sensitive parameter (passwords, API keys, tokens, personal data) with x-mcp-header: intermediaries can read headers"),
    # server/discover
    _r("DISC-01", _DSC, "MUST", "server", "Implement server/discover, answering with supportedVersions, capabilities and optional instructions (as STLS-18)"),
    _r("DISC-02", _DSC, "SHOULD", "client", "A client for both modern and legacy servers sends server/discover first on stdio (as STDIO-06)"),
    _r("DISC-03", _DSC, "SHOULD (lowercase)", "client", "Use one of the supportedVersions of the DiscoverResult in the requests that follow"),
    _r("DISC-04", _DSC, "SHOULD", "server", "Put serverInfo in the _meta of the DiscoverResult"),
    _r("DISC-05", _DSC, "SHOULD NOT", "client", "Base neither behaviour nor security decisions on the self-reported serverInfo"),
    _r("DISC-06", _PRM, "MUST", "server", "Declare the prompts capability in the DiscoverResult (there is no initialize result any more)"),
    # Lists per requesting client
    _r("LISTS-01", _TLS, "MUST/MAY/MUST NOT", "server", "Answer tools/list with the tools now open to the requesting client: perhaps none, changing over time, but never per connection or by earlier requests on it"),
    _r("LISTS-02", _TLS, "MAY", "server", "Let the tool set depend on the authorization the request presents (the scopes granted): credentials come per request"),
    _r("LISTS-03", _TLS, "SHOULD", "server", "Return tools in the same order on every call while the set is unchanged, for client caches and model prompt caches"),
    _r("LISTS-04", _TLS, "SHOULD", "server", "Send notifications/tools/list_changed to clients whose subscriptions/listen stream asked for toolsListChanged"),
    _r("LISTS-05", _PRM, "MUST/MAY/MUST NOT", "server", "Answer prompts/list as tools/list is answered: the requesting client's current prompts, never varying by connection, perhaps filtered by authorization"),
    _r("LISTS-06", _PRM, "SHOULD", "server", "Send notifications/prompts/list_changed to clients whose subscriptions/listen stream asked for promptsListChanged"),
    _r("LISTS-07", _RES, "MUST/MAY/MUST NOT", "server", "Answer resources/list as tools/list is answered: the requesting client's current resources, never varying by connection, perhaps filtered by authorization"),
    # server/tools
    _r("TDEF-01", _TLS, "INFO", "both", "Expect structuredContent of any JSON type (array, string, number, boolean, null), fitting the outputSchema if there is one, which need not describe an object"),
    _r("TDEF-02", _TLS, "MAY/SHOULD", "client", "A client or proxy gathering tools of several servers expects clashing names and tells them apart, for instance with a per-server prefix"),
    _r("TDEF-03", _TLS, "SHOULD NOT", "client", "Do not tell servers apart by the name in serverInfo: it need not be unique"),
    _r("TDEF-04", _TLS, "SHOULD (lowercase)", "server", "Keep state across calls through an explicit handle that a creating tool returns and later calls take as an argument, not by connection"),
    _r("TDEF-05", _TLS, "SHOULD (lowercase)", "server", "Check on each call that the caller is authorized for the handle; without authentication make handles hard to guess and bounded in lifetime"),
    _r("TDEF-06", _TLS, "SHOULD (lowercase)", "server", "Say in the creating tool's description how long handles live, and answer a stale or unknown handle with a tool execution error saying so"),
    # server/prompts
    _r("PROMPT-01", _PRM, "MAY", "server", "Put resource_link content, with resource annotations, in prompt messages"),
    # server/resources
    _r("RREAD-01", _RES, "MAY", "server", "Return several contents from one resources/read, the files of a directory for instance"),
    _r("RREAD-02", _RES, "MAY (lowercase)", "client", "Fetch a resource whose uri is https:// straight from the web instead"),
    _r("RREAD-03", _RES, "MUST/SHOULD", "server", "Answer a resource that does not exist with -32602 (no longer -32002), and internal failures with -32603"),
    _r("RREAD-04", _RES, "SHOULD", "client", "Also take -32002 as resource-not-found, as earlier revisions used it (as ERRC-06)"),
    _r("RREAD-05", _RES, "MUST NOT", "server", "Never answer a missing resource with an empty contents array, which would read as an empty resource"),
    _r("RREAD-06", _RES, "MUST", "server", "Sanitize the paths of file:// resources against directory traversal"),
    # server/utilities/pagination
    _r("CURSOR-01", _PAG, "MUST NOT", "client", "Judge a cursor by nothing but its presence: an empty string is a cursor, not the end of the list"),
    # server/utilities/caching
    _r("CACHE-01", _CCH, "MUST", "server", "Put ttlMs and cacheScope in complete results of resources/read, resources/list, resources/templates/list, prompts/list, tools/list and server/discover (never in input_required ones)"),
    _r("CACHE-02", _CCH, "MUST NOT", "client", "Reuse a cached result only for the same method with the same result-shaping parameters (uri, cursor)"),
    _r("CACHE-03", _CCH, "MUST NOT", "client", "Cache nothing produced by a retry carrying inputResponses or requestState"),
    _r("CACHE-04", _CCH, "MAY/SHOULD", "client", "Hold a result fresh for ttlMs milliseconds from its receipt; 0 means stale at once (fetch each time), a missing or negative ttlMs counts as 0"),
    _r("CACHE-05", _CCH, "MUST", "server", "Never send a negative ttlMs"),
    _r("CACHE-06", _CCH, "MAY", "server", "Change the data before its TTL has run out: the TTL is a hint, not a promise"),
    _r("CACHE-07", _CCH, "SHOULD", "client", "Fetch again at the next use once the TTL has run out"),
    _r("CACHE-08", _CCH, "SHOULD NOT/MUST", "client", "Do not poll in the background at TTL intervals; a client that polls anyway adds jitter and backoff"),
    _r("CACHE-09", _CCH, "MAY", "client", "Fetch before the TTL ends when the data seems to have changed (an unexpected not-found or invalid-params on a call)"),
    _r("CACHE-10", _CCH, "MAY", "client", "Serve a stale result when fetching it again fails"),
    _r("CACHE-11", _CCH, "MAY/MUST NOT", "both", "Clients, gateways and proxies can store a public result and serve it to any user; a private one is reused within one authorization context and never shared across contexts"),
    _r("CACHE-12", _CCH, "MAY", "server", "Send ttlMs with or without declaring listChanged"),
    _r("CACHE-13", _CCH, "SHOULD (lowercase)", "client", "Take a relevant change notification as making a still-fresh cached result stale at once"),
    _r("CACHE-14", _CCH, "MAY", "server", "Give the pages of one list different ttlMs values, each page's clock starting at its own receipt"),
    _r("CACHE-15", _CCH, "SHOULD", "client", "Fetch an expired page again by its cursor, start over without cursor for a consistent snapshot, and drop every cached page when a cursor turns invalid"),
    _r("CACHE-16", _CCH, "MUST", "server", "Use one cacheScope for all pages of one list"),
    _r("CACHE-17", _CCH, "MUST", "server", "Bear in mind that a public result can be shared among callers even when it came from an authenticated endpoint"),
    _r("CACHE-18", _CCH, "SHOULD (lowercase)", "server", "Choose the cacheScope that matches who is allowed to see the primitive"),
    _r("CACHE-19", _CCH, "MUST/MUST NOT", "server", "Enforce access control per primitive; cacheScope alone never keeps anyone out"),
    # server/utilities/logging
    _r("LOGX-01", _LOG, "MUST NOT", "server", "Send no notifications/message for a request whose _meta has no io.modelcontextprotocol/logLevel"),
    _r("LOGX-02", _LOG, "MAY/MUST NOT", "server", "Given a logLevel, send log messages at that level or above on that request's own response stream, before its response, and nowhere else (not on a subscriptions/listen stream)"),
    _r("LOGX-03", _LOG, "SHOULD", "server", "Refuse a request whose logLevel is no known level with -32602 (internal failures: -32603)"),
    _r("LOGX-04", _LOG, "INFO", "both", "No logging/setLevel: a client sets the level per request, never once for a connection"),
    # client/elicitation
    _r("CFEAT-01", _ELI, "MUST", "client", "Declare elicitation in the clientCapabilities of each request's _meta (initialize is gone)"),
    _r("CFEAT-02", _ELI, "MAY", "server", "Ask the user for input while handling a client request, by an elicitation/create inside an InputRequiredResult"),
    _r("CFEAT-03", _ELI, "MUST", "server", "Give a URL-mode elicitation mode url, a message and a valid url; the elicitationId field is gone"),
    _r("CFEAT-04", _ELI, "SHOULD", "client", "After a URL elicitation is accepted, give the user manual controls to retry or cancel the original request"),
    _r("CFEAT-05", _ELI, "INFO", "both", "No notifications/elicitation/complete: the client retries the original request, and the server learns the outcome from requestState or its own records"),
    _r("CFEAT-06", _ELI, "INFO", "both", "No URLElicitationRequiredError (-32042): a server needing a URL interaction returns it in an InputRequiredResult"),
    _r("CFEAT-07", _ELI, "MUST", "server", "If elicitation state is kept at all (MRTR needs none), bind it to the individual user and guard its storage; the clause about session IDs is gone"),
    _r("CFEAT-08", _ELI, "SHOULD NOT/MUST", "server", "Do not count on an elicitation succeeding: handle a decline, a cancel, or a client unable to process it"),
    # client/sampling
    _r("CFEAT-09", _SMP, "MUST", "client", "Declare sampling (with tools or context when supported) in the clientCapabilities of each request's _meta"),
    _r("CFEAT-10", _SMP, "MUST", "both", "Give every sampling message a role, user or assistant, and a content"),
    _r("CFEAT-11", _SMP, "SHOULD NOT", "client", "Carry no sampling messages over from one sampling request to the next"),
    _r("CFEAT-12", _SMP, "MAY", "client", "Change or disregard systemPrompt and includeContext without telling the server (to keep sensitive context back, say)"),
    _r("CFEAT-13", _SMP, "MUST/MAY", "client", "Stay within maxTokens; temperature, stopSequences and metadata can be changed or disregarded"),
    _r("CFEAT-14", _SMP, "MAY", "both", "Report stopReason values of one's own beyond endTurn, stopSequence, maxTokens and toolUse"),
    _r("CFEAT-15", _SMP, "INFO", "client", "No error response for a declined or failed sampling (no -1 code): nobody waits for one, and the client simply does not retry with it"),
    # client/roots
    _r("CFEAT-16", _RTS, "MUST", "client", "Declare roots in the clientCapabilities of each request's _meta"),
    _r("CFEAT-17", _RTS, "INFO", "both", "No notifications/roots/list_changed and no roots.listChanged: the server asks for roots again through an InputRequiredResult when it needs them"),
    _r("CFEAT-18", _RTS, "INFO", "client", "No error response for a failed roots request (no -32601 for a client without roots): the server is not waiting for one"),
    # Deprecations
    _r("DEPR-01", _DEP, "SHOULD NOT/SHOULD", "both", "Adopt no feature listed as Deprecated in a new implementation, and move an existing one off it before its earliest removal"),
    _r("DEPR-02", _LOG, "SHOULD NOT/SHOULD", "both", "Logging is deprecated: leave it out of new implementations, move existing ones to stderr (stdio) or OpenTelemetry"),
    _r("DEPR-03", _SMP, "SHOULD NOT/SHOULD", "both", "Sampling is deprecated: leave it out of new implementations, move existing ones to calling model provider APIs directly"),
    _r("DEPR-04", _SMP, "SHOULD/SHOULD NOT", "server", "The includeContext values thisServer and allServers are now Deprecated (gone with Sampling at the latest): omit the field or say none, and use them only with sampling.context"),
    _r("DEPR-05", _RTS, "SHOULD NOT/SHOULD", "both", "Roots is deprecated: leave it out of new implementations, pass directories through tool arguments, resource URIs or configuration instead"),
    _r("DEPR-06", _HTP, "SHOULD NOT/SHOULD", "both", "The HTTP+SSE transport of 2024-11-05 is Deprecated: new implementations do not take it up, existing ones move to Streamable HTTP"),
    _r("DEPR-07", _REG, "SHOULD (lowercase)", "both", "Dynamic Client Registration is now deprecated: new clients and servers register with Client ID Metadata Documents (the authorization overview says it too)"),
    # basic/authorization
    _r("AUTHD-01", _AUT, "MUST", "both", "Discover authorization servers as the Authorization Server Discovery page lays down"),
    _r("AUTHD-02", _AUT, "MUST", "client", "Obtain a client ID before authorizing, by Client ID Metadata Document, pre-registration or DCR, in the order the Client Registration page sets"),
    _r("AUTHD-03", _AUT, "MUST/SHOULD", "client", "Take the challenged scopes as what the current operation needs, and when authorizing again request them together with the scopes granted before"),
    _r("AUTHD-04", _AUT, "MUST", "client", "Before redirecting, store the chosen authorization server's issuer from its validated metadata with the request's PKCE verifier (and state)"),
    _r("AUTHD-05", _AUT, "SHOULD/MUST", "server", "Authorization server puts iss in authorization responses, errors included (RFC 9207), and then advertises authorization_response_iss_parameter_supported true"),
    _r("AUTHD-06", _AUT, "MUST", "client", "Before redeeming the code, check iss: a present iss has to equal the stored issuer by plain string comparison, a missing one is refused if the server advertised it"),
    _r("AUTHD-07", _AUT, "MUST NOT", "client", "Compare iss as decoded, without normalizing case, default ports, trailing slashes or percent-encoding"),
    _r("AUTHD-08", _AUT, "MUST NOT", "client", "On an iss mismatch in an error response, neither act on nor show error, error_description or error_uri"),
    _r("AUTHD-09", _AUT, "MUST", "client", "Send the Authorization header on every HTTP request to the server (the words about sessions are gone)"),
    _r("AUTHD-10", _AUT, "MUST/SHOULD/MAY/MUST NOT", "client", "Keep refresh tokens secret in transit and at rest, list refresh_token in grant_types, add offline_access if the server lists it, and never count on getting one"),
    _r("AUTHD-11", _AUT, "SHOULD NOT", "server", "MCP server names offline_access neither in a WWW-Authenticate scope nor in scopes_supported"),
    _r("AUTHD-12", _AUT, "SHOULD", "server", "In an insufficient_scope challenge, name the scopes the current operation needs; scopes granted earlier need not be repeated"),
    _r("AUTHD-13", _AUT, "SHOULD", "server", "Name all scopes the operation needs in one challenge rather than one missing scope per retry"),
    _r("AUTHD-14", _AUT, "MAY", "client", "On step-up, ask for the union of the scopes requested before and those challenged now (the scope selection strategy can guide the first choice)"),
    _r("AUTHD-15", _AUT, "MUST", "server", "Honour scope hierarchies: a broader scope granted covers the narrower ones it implies"),
    _r("AUTHD-16", _AUT, "MUST", "both", "Meet the security requirements of the Authorization Security Considerations page"),
    # basic/authorization/authorization-server-discovery
    _r("AUTHD-17", _ASD, "MUST/MUST NOT", "client", "Keep registration state (client credentials, tokens) separately per authorization server, never assuming one server accepts another's credentials"),
    _r("AUTHD-18", _ASD, "MUST/MUST NOT", "client", "Use authorization server metadata only if its issuer equals exactly the issuer the well-known URL was built from"),
    # basic/authorization/client-registration
    _r("AUTHD-19", _REG, "MUST/SHOULD", "client", "Send an application_type in Dynamic Client Registration: native for desktop, mobile, CLI and localhost apps, web for remotely served browser apps"),
    _r("AUTHD-20", _REG, "MUST/SHOULD/MAY", "client", "Expect OIDC servers to refuse a registration over redirect URI rules: report it clearly, and possibly retry with another application_type or conforming redirect URIs"),
    _r("AUTHD-21", _REG, "MUST/MUST NOT", "client", "Key pre-registered or stored DCR credentials by the issuing server's issuer; when the resource metadata names another server, register there and never reuse them"),
    _r("AUTHD-22", _REG, "SHOULD", "client", "When the authorization server named by the metadata is not the one the credentials belong to, report an error rather than trying them"),
    # basic/authorization/security-considerations
    _r("AUTHD-23", _SCY, "MUST", "both", "Weigh the security requirements of this page and follow the security considerations of OAuth 2.1 (section 7)"),
)

REQUIREMENTS: dict[str, Requirement] = {r.id: r for r in _TABLE}


def get(requirement_id: str) -> Requirement:
    """The requirement with this ID, in any case; KeyError naming close IDs if unknown."""
    return revision_index.lookup(requirement_id, REQUIREMENTS, REVISION, "STLS-09 or MRTR-03")


def search(text: str) -> list[Requirement]:
    """Requirements whose ID, page or summary contains ``text``, ignoring case, in the index's order."""
    return revision_index.search(text, _TABLE)


def on_page(page: str) -> list[Requirement]:
    """The requirements of one page of this revision (path, last segment or URL); KeyError if none."""
    return revision_index.rows_on_page(page, _TABLE, REVISION)
