"""The requirement index of what revision 2025-11-25 adds to or changes in revision 2025-06-18.

Not a spec section: the index of the requirements that revision 2025-11-25 brought or reworded,
in the same form as the 2025-03-26 index (requirements_2025_03_26.py), page by page.
https://modelcontextprotocol.io/specification/2025-11-25

Made by comparing every page of 2025-11-25 with the same page of 2025-06-18: each added or
changed sentence that carries MUST, MUST NOT, SHOULD, SHOULD NOT, MAY, REQUIRED, RECOMMENDED or
OPTIONAL, or a plain-prose "should"/"must" in new text, has a row (several sentences that say
one thing share one). What 2025-06-18 already said in the same words is not repeated here.

    prefix   page                          what it covers
    ELICU    client/elicitation            form/URL modes, notifications/elicitation/complete,
                                           the -32042 error, defaults, state, safe URL handling
    SAMPT    client/sampling               tools and toolChoice in sampling, the tool loop,
                                           the soft deprecation of includeContext
    TNAME    server/tools                  inputSchema rules, tool names, tool execution errors
                                           (input validation errors) for the model
    SCHEMA   basic                         result/error responses, JSON Schema 2020-12 dialect,
                                           _meta prefixes, icons
    SHTC     basic/transports              stdio stderr, Origin 403, polling and closing SSE
                                           streams, event IDs, resumption, session ID handling
    LIFEC    basic/lifecycle               (no rows: the page only adds the tasks capability and
                                           Implementation description/icons/websiteUrl to its
                                           examples and table, with no requirement sentence)
    CANX     basic/utilities/cancellation  tasks/cancel for task-augmented requests
    PROGX    basic/utilities/progress      progress tokens of task-augmented requests
    TASK     basic/utilities/tasks         the whole new page (experimental): capabilities,
                                           statuses, TTL, results, listing, cancelling, security
    AUTHC    basic/authorization           OpenID Connect discovery, Client ID Metadata
                                           Documents, scope challenges and step-up, PKCE checks

IDs are numbered in the page's order. Each entry has the fields of ``requirements.Requirement``:
``id``, ``page`` (its own, per row; ``url`` points at that page of 2025-11-25), ``level`` (as the
spec writes it; ``"SHOULD (lowercase)"`` where the new text says it in plain prose; combined
levels such as ``"MUST/SHOULD"`` where a row joins several sentences), ``side`` (``"client"``,
``"server"`` or ``"both"``; on the tasks page "both" since requestor and receiver may be either
peer; on the authorization page "server" also covers the authorization server, named in the
summary) and a ``summary``. The summaries are ours, in our own words; the spec page has the
exact wording, so read it before relying on a row.

Lookups as in requirements.py: ``get(id)``, ``search(text)``, and ``REQUIREMENTS``.
"""

# The table below keeps one requirement per line so that it can be scanned; its lines run long.
# ruff: noqa: E501

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from . import revision_index

REVISION = "2025-11-25"
SPEC_URL = f"{revision_index.SPEC_ROOT}/{REVISION}"


@dataclass(frozen=True)
class Requirement(revision_index.LaterRequirement):
    """A requirement of revision 2025-11-25: as requirements.Requirement, with this revision's URL."""

    revision: ClassVar[str] = REVISION

    @property
    def strength(self) -> str:
        """As requirements.py point 6: a combined level counts as its strongest part. (Two rows,
        ELICU-21 and ELICU-34, say ``MUST/MUST (lowercase)``: a keyword and the same word in plain
        prose, which revision_index's stricter reading of a level refuses; this one takes them.)"""
        keywords = self.level.replace(" (lowercase)", "").split("/")
        parts = [revision_index.KEYWORD_STRENGTH[part.strip()] for part in keywords]
        return min(parts, key=["MUST", "SHOULD", "MAY"].index)


def _r(id: str, page: str, level: str, side: str, summary: str) -> Requirement:
    return Requirement(id, page, level, side, summary)


_ELI = "client/elicitation"
_SMP = "client/sampling"
_TLS = "server/tools"
_BAS = "basic"
_TRN = "basic/transports"
_CAN = "basic/utilities/cancellation"
_PRG = "basic/utilities/progress"
_TSK = "basic/utilities/tasks"
_AUT = "basic/authorization"

_TABLE: tuple[Requirement, ...] = (
    # client/elicitation: trust and safety, capabilities
    _r("ELICU-01", _ELI, "MUST NOT/MUST", "server", "Never ask for secrets (passwords, API keys, access tokens, payment credentials) in form mode; send such interactions through URL mode instead"),
    _r("ELICU-02", _ELI, "MUST", "client", "Show which server is asking, offer decline and cancel, let the user review and edit form answers, and for URL mode show the target domain and get consent before navigating (was SHOULD)"),
    _r("ELICU-03", _ELI, "MUST", "client", "When declaring the elicitation capability, support at least one of the form and url modes (an empty object means form only)"),
    _r("ELICU-04", _ELI, "MUST NOT", "server", "Send no elicitation in a mode the client did not declare"),
    # elicitation/create: parameters of both modes
    _r("ELICU-05", _ELI, "MUST/MAY", "server", "Give every elicitation/create a message and a mode; the mode may be left out for form mode only"),
    _r("ELICU-06", _ELI, "MUST", "client", "Take an elicitation request that has no mode as a form-mode request"),
    _r("ELICU-07", _ELI, "MUST", "server", "Make a form-mode request say mode \"form\" or nothing, and carry a requestedSchema"),
    _r("ELICU-08", _ELI, "SHOULD", "client", "If defaults are supported, pre-fill each form field with the default its schema gives (string, number, boolean, enum)"),
    _r("ELICU-09", _ELI, "MUST", "server", "Make a URL-mode request say mode \"url\" and carry a message, a valid url and an elicitationId"),
    # notifications/elicitation/complete
    _r("ELICU-10", _ELI, "MAY", "server", "Announce with notifications/elicitation/complete that an out-of-band URL interaction has finished"),
    _r("ELICU-11", _ELI, "MUST", "server", "Send that completion only to the client that made the elicitation, naming its original elicitationId"),
    _r("ELICU-12", _ELI, "MUST", "client", "Drop completion notifications whose elicitationId is unknown or already completed"),
    _r("ELICU-13", _ELI, "MAY/SHOULD", "client", "Use the completion to retry a request refused with -32042 or to refresh the UI, but keep manual retry/cancel controls in case it never comes"),
    # URLElicitationRequiredError (-32042)
    _r("ELICU-14", _ELI, "MAY/MUST NOT", "server", "Refuse a request with URLElicitationRequiredError (-32042) when a URL elicitation has to finish first, and use that code for nothing else"),
    _r("ELICU-15", _ELI, "MUST", "server", "Put in the -32042 error the list of elicitations to complete before retrying, each in URL mode with an elicitationId"),
    # Statefulness and third-party authorization
    _r("ELICU-16", _ELI, "MUST/MUST NOT", "server", "Bind elicitation state to individual users, never to a session ID alone, and keep its storage protected from unauthorized access"),
    _r("ELICU-17", _ELI, "MUST", "server", "On a remote server, identify the user from the credentials of MCP authorization (the sub claim, say) where possible"),
    _r("ELICU-18", _ELI, "MUST NOT", "server", "Do not use URL elicitation to authorize users for the MCP server itself (that is MCP authorization)"),
    _r("ELICU-19", _ELI, "MUST NOT", "server", "Keep third-party credentials obtained by URL elicitation away from the MCP client: they never pass through it nor are sent to it"),
    _r("ELICU-20", _ELI, "MUST NOT", "server", "Do not use the client's token with the third-party service (no token passthrough)"),
    _r("ELICU-21", _ELI, "MUST/MUST (lowercase)", "server", "Have the user authorize the server directly, out of band, and keep and manage the third-party tokens itself (the server is stateful)"),
    # Error handling and security considerations
    _r("ELICU-22", _ELI, "MUST", "client", "Answer -32602 (Invalid params) to an elicitation/create in a mode the client did not declare"),
    _r("ELICU-23", _ELI, "MUST", "server", "Bind every elicitation request to the identity of both the client and the user"),
    _r("ELICU-24", _ELI, "MUST NOT", "server", "Put no end-user sensitive data (credentials, PII) in the URL of a URL elicitation"),
    _r("ELICU-25", _ELI, "MUST NOT", "server", "Send no pre-authenticated URL that would grant access to a protected resource to whoever opens it"),
    _r("ELICU-26", _ELI, "SHOULD NOT/SHOULD", "server", "Put no clickable URLs in form-mode fields, and use HTTPS URLs outside development"),
    _r("ELICU-27", _ELI, "MUST", "client", "Handle elicitation URLs with care so that users do not follow malicious links unawares"),
    _r("ELICU-28", _ELI, "MUST NOT", "client", "Neither pre-fetch the URL (or its metadata) nor open it without the user's explicit consent"),
    _r("ELICU-29", _ELI, "MUST", "client", "Show the whole URL before asking consent, and open it where neither client nor LLM can read the page or what the user types"),
    _r("ELICU-30", _ELI, "SHOULD", "client", "Highlight the URL's domain and warn about suspicious URLs such as Punycode ones"),
    _r("ELICU-31", _ELI, "SHOULD NOT", "client", "Make no URL clickable in an elicitation except the url field of a URL-mode request"),
    _r("ELICU-32", _ELI, "MUST NOT/SHOULD", "server", "Trust no user identity the client states without verifying it; follow the security best practices instead"),
    _r("ELICU-33", _ELI, "SHOULD", "both", "Client checks form answers against the requested schema before sending; server checks what it receives against it"),
    _r("ELICU-34", _ELI, "MUST/MUST (lowercase)", "server", "Before accepting anything through an elicitation URL, verify that the user who opens it is the one who started the elicitation (against phishing)"),
    _r("ELICU-35", _ELI, "MUST", "server", "Make that user check hold even when an attacker alters the elicitation URL"),
    # client/sampling: tools in sampling
    _r("SAMPT-01", _SMP, "MUST/MUST NOT", "both", "Client declares sampling.tools to receive sampling requests with tools; server sends tools/toolChoice only to clients that declared it"),
    _r("SAMPT-02", _SMP, "SHOULD/SHOULD NOT", "server", "Avoid includeContext thisServer/allServers (soft-deprecated; omit it for none) and use them only if the client declares sampling.context"),
    _r("SAMPT-03", _SMP, "MUST", "both", "Let a user message that holds tool results hold nothing but tool results"),
    _r("SAMPT-04", _SMP, "MUST", "both", "Follow every assistant message with tool uses by a user message of tool results, one per tool use id (toolUseId), before any other message"),
    _r("SAMPT-05", _SMP, "MUST/MUST NOT", "client", "Honour toolChoice: with mode required the model uses at least one tool, with mode none it uses no tool"),
    _r("SAMPT-06", _SMP, "MAY", "both", "Offer a switch for parallel tool use only as an extension outside core MCP"),
    _r("SAMPT-07", _SMP, "SHOULD", "client", "Answer -32602 when a tool result is missing or tool results are mixed with other content"),
    _r("SAMPT-08", _SMP, "MUST", "server", "After stopReason toolUse, reply with a user message holding only tool results, one matching each tool use"),
    _r("SAMPT-09", _SMP, "SHOULD", "both", "Cap the number of iterations of a sampling tool loop"),
    # server/tools
    _r("TNAME-01", _TLS, "MUST", "server", "Make inputSchema a valid JSON Schema object, never null (JSON Schema 2020-12 unless $schema says otherwise)"),
    _r("TNAME-02", _TLS, "RECOMMENDED", "server", "For a tool without parameters, prefer an inputSchema of type object with additionalProperties false"),
    _r("TNAME-03", _TLS, "SHOULD", "server", "Keep tool names 1 to 128 characters long, and treat them as case-sensitive"),
    _r("TNAME-04", _TLS, "SHOULD/SHOULD NOT", "server", "Build tool names from ASCII letters, digits, underscore, hyphen and dot only: no spaces, commas or other special characters"),
    _r("TNAME-05", _TLS, "SHOULD", "server", "Give each tool of a server a distinct name"),
    _r("TNAME-06", _TLS, "SHOULD/MAY", "client", "Pass tool execution errors (isError results, which now include input validation errors) to the model so it can correct itself; protocol errors may be passed too"),
    _r("TNAME-07", _TLS, "SHOULD (lowercase)", "server", "Report arguments that fail the inputSchema as a tool execution error (an isError result the model can read and correct), not as a protocol error (found in the page's error-handling section, appended after the first pass)"),
    # basic: messages, JSON Schema, _meta, icons
    _r("SCHEMA-01", _BAS, "MUST/MAY", "both", "Give a result response the id of its request and a result field, which may be any JSON object"),
    _r("SCHEMA-02", _BAS, "MUST", "both", "Give an error response the id of its request (unless a malformed request made it unreadable) and an error field with code and message"),
    _r("SCHEMA-03", _BAS, "MAY", "both", "Name another JSON Schema dialect with $schema when a schema is not 2020-12"),
    _r("SCHEMA-04", _BAS, "MUST", "both", "Support at least JSON Schema 2020-12, the dialect of every schema without $schema"),
    _r("SCHEMA-05", _BAS, "SHOULD", "both", "Document which further JSON Schema dialects are supported"),
    _r("SCHEMA-06", _BAS, "RECOMMENDED", "both", "Write schemas in JSON Schema 2020-12"),
    _r("SCHEMA-07", _BAS, "MUST", "both", "Validate by the declared or default dialect, and answer an unsupported dialect with an error saying it is not supported"),
    _r("SCHEMA-08", _BAS, "MUST", "both", "Make every schema valid in its declared or default dialect"),
    _r("SCHEMA-09", _BAS, "SHOULD", "both", "Write _meta key prefixes in reverse DNS order (com.example/); prefixes whose second label is mcp or modelcontextprotocol are now the reserved ones"),
    _r("SCHEMA-10", _BAS, "MUST", "client", "If rendering icons, support at least PNG and JPEG"),
    _r("SCHEMA-11", _BAS, "SHOULD", "client", "If rendering icons, also support SVG and WebP"),
    _r("SCHEMA-12", _BAS, "MUST", "client", "Treat icons as untrusted input: fetch without credentials, keep to the server's origin, check content against the MIME type, guard against huge images"),
    _r("SCHEMA-13", _BAS, "MUST", "client", "Accept only https: or data: icon URIs; refuse other schemes (javascript:, file:, ...) and redirects to other origins"),
    _r("SCHEMA-14", _BAS, "MAY", "client", "Set limits on icon image and content size"),
    _r("SCHEMA-15", _BAS, "MAY", "client", "Refuse some icon file types or sanitize them, since payloads such as SVG may carry executable content"),
    _r("SCHEMA-16", _BAS, "SHOULD (lowercase)", "client", "Choose among several icons the one that best fits the UI"),
    # basic/transports
    _r("SHTC-01", _TRN, "MAY", "server", "On stdio, write any kind of log (informational, debug, error) to stderr as UTF-8"),
    _r("SHTC-02", _TRN, "MAY/SHOULD NOT", "client", "Capture, forward or ignore the server's stderr, without taking output there as a sign of error"),
    _r("SHTC-03", _TRN, "MUST/MAY", "server", "Answer a request whose Origin header is present and invalid with 403 Forbidden; the body may be a JSON-RPC error without id"),
    _r("SHTC-04", _TRN, "SHOULD", "server", "Open a POST's SSE stream with an event that has an id and empty data, so the client can reconnect from it"),
    _r("SHTC-05", _TRN, "MAY", "server", "Once an event with an id is sent, close the connection (not the stream) whenever it likes, to avoid long-lived connections"),
    _r("SHTC-06", _TRN, "SHOULD", "client", "When the server closes the connection before the stream ends, poll the stream by reconnecting"),
    _r("SHTC-07", _TRN, "SHOULD", "server", "Before closing such a connection, send an SSE event with a retry field"),
    _r("SHTC-08", _TRN, "MUST", "client", "Wait the milliseconds of the retry field before reconnecting"),
    _r("SHTC-09", _TRN, "MAY", "server", "End a POST's SSE stream when the session expires (replaces the rule against closing it before its response)"),
    _r("SHTC-10", _TRN, "SHOULD", "server", "Terminate a POST's SSE stream once its response is sent"),
    _r("SHTC-11", _TRN, "SHOULD", "server", "On the GET stream too, send retry before closing the connection without ending the stream, and let the client reconnect"),
    _r("SHTC-12", _TRN, "SHOULD", "server", "Make event IDs identify the stream they belong to, so a Last-Event-ID can be traced to its stream"),
    _r("SHTC-13", _TRN, "SHOULD", "client", "After any disconnection, network or server-made, resume with a GET carrying Last-Event-ID, whether the stream came from a POST or a GET"),
    _r("SHTC-14", _TRN, "MUST", "client", "Keep the session ID safe (see session hijacking in the security best practices)"),
    _r("SHTC-15", _TRN, "SHOULD (lowercase)", "client", "To reach an old HTTP+SSE server, fall back to GET only on 400, 404 or 405 to the initialize POST (no longer on any 4xx)"),
    # basic/utilities/cancellation and progress
    _r("CANX-01", _CAN, "MUST", "both", "Cancel a task-augmented request with tasks/cancel, not notifications/cancelled"),
    _r("PROGX-01", _PRG, "MUST", "both", "Keep sending progress of a task-augmented request with the progressToken of the original request, also after CreateTaskResult"),
    _r("PROGX-02", _PRG, "MUST", "both", "Stop progress notifications of a task once it is completed, failed or cancelled"),
    # basic/utilities/tasks (experimental): capabilities
    _r("TASK-01", _TSK, "MUST", "both", "Declare a tasks capability, by request type, to support task-augmented requests"),
    _r("TASK-02", _TSK, "SHOULD", "both", "Augment a request with a task only if the receiver declared task support for that request type"),
    _r("TASK-03", _TSK, "SHOULD NOT", "both", "Create no tasks with a peer whose capabilities have no tasks"),
    _r("TASK-04", _TSK, "MUST NOT", "client", "Call no tool as a task when the server lacks tasks.requests.tools.call, whatever the tool's taskSupport"),
    _r("TASK-05", _TSK, "MUST NOT/SHOULD", "both", "Client calls no tool as a task if its taskSupport is absent or forbidden; the server answers such a call with -32601"),
    _r("TASK-06", _TSK, "MAY", "client", "Call a tool whose taskSupport is optional either as a task or normally"),
    _r("TASK-07", _TSK, "MUST", "both", "Client calls a tool whose taskSupport is required as a task; the server answers a plain call to it with -32601"),
    # Creating, getting, retrieving
    _r("TASK-08", _TSK, "MAY", "both", "Ask for a task lifetime with a ttl in milliseconds in the task field"),
    _r("TASK-09", _TSK, "SHOULD (lowercase)", "server", "Make the model-immediate-response _meta value of a CreateTaskResult a string for the model"),
    _r("TASK-10", _TSK, "MAY/MUST", "client", "Drop the SSE stream of a tasks/get or tasks/result whenever it likes, while still following the Streamable HTTP rules"),
    _r("TASK-11", _TSK, "SHOULD", "both", "Requestor polls at the pollInterval the receiver suggests"),
    _r("TASK-12", _TSK, "SHOULD", "both", "Requestor keeps polling tasks/get until a terminal status or input_required, also while not waiting on tasks/result"),
    _r("TASK-13", _TSK, "MAY", "both", "Receiver announces status changes with notifications/tasks/status"),
    _r("TASK-14", _TSK, "MUST NOT/SHOULD", "both", "Requestor does not count on status notifications and keeps polling tasks/get"),
    # Behavior requirements
    _r("TASK-15", _TSK, "MUST", "both", "A receiver without task support for a request type handles such requests normally, ignoring task metadata"),
    _r("TASK-16", _TSK, "MAY", "both", "A receiver with task support for a request type may refuse plain requests of that type (-32600)"),
    _r("TASK-17", _TSK, "MUST", "both", "Receiver generates task IDs: strings, unique among its tasks"),
    _r("TASK-18", _TSK, "MUST", "both", "Start every task in working status"),
    _r("TASK-19", _TSK, "MUST/MUST NOT", "both", "Move tasks only along the allowed paths; completed, failed and cancelled are final"),
    _r("TASK-20", _TSK, "SHOULD", "client", "Expect task messages on any SSE stream, the GET stream included"),
    _r("TASK-21", _TSK, "SHOULD NOT/MUST", "server", "Where possible answer tasks/get without an SSE stream, while following the Streamable HTTP rules"),
    _r("TASK-22", _TSK, "SHOULD", "both", "Receiver puts the task in input_required when it needs messages answered by the requestor"),
    _r("TASK-23", _TSK, "MUST", "both", "Receiver tags the requests it sends for a task with related-task metadata"),
    _r("TASK-24", _TSK, "SHOULD", "both", "Requestor seeing input_required calls tasks/result at once"),
    _r("TASK-25", _TSK, "SHOULD", "both", "Receiver moves the task out of input_required (back to working) once it has the input"),
    _r("TASK-26", _TSK, "MUST", "both", "Receiver puts ISO 8601 createdAt and lastUpdatedAt in every task response"),
    _r("TASK-27", _TSK, "MAY/MUST", "both", "Receiver may change the requested ttl, and reports the real ttl (null for unlimited) in tasks/get"),
    _r("TASK-28", _TSK, "MAY", "both", "Receiver may delete a task and its result once its ttl has passed, whatever its status"),
    _r("TASK-29", _TSK, "MAY", "both", "Receiver may suggest a pollInterval in tasks/get responses"),
    _r("TASK-30", _TSK, "MUST/SHOULD", "both", "Answer an accepted task-augmented request with a CreateTaskResult, as soon as possible"),
    _r("TASK-31", _TSK, "MUST", "both", "tasks/result of a finished task returns exactly what the request would have: its result or its JSON-RPC error"),
    _r("TASK-32", _TSK, "MUST", "both", "tasks/result of a working or input_required task waits until the task is finished"),
    _r("TASK-33", _TSK, "MUST", "both", "Tag every message tied to a task with related-task _meta holding its taskId (an elicitation for a task's tool call shares its ID)"),
    _r("TASK-34", _TSK, "MUST/SHOULD NOT", "both", "For tasks/get, result and cancel the taskId parameter decides; requestors add no related-task metadata, receivers ignore it"),
    _r("TASK-35", _TSK, "SHOULD NOT", "both", "Leave related-task metadata out of tasks/get, list and cancel messages and out of status notifications"),
    _r("TASK-36", _TSK, "MUST", "both", "Put related-task metadata in the tasks/result response"),
    _r("TASK-37", _TSK, "SHOULD", "both", "Paginate tasks/list with cursors"),
    _r("TASK-38", _TSK, "MUST", "both", "Give tasks/list a nextCursor while more tasks remain"),
    _r("TASK-39", _TSK, "MUST", "both", "Requestor treats task cursors as opaque"),
    _r("TASK-40", _TSK, "MUST", "both", "List in tasks/list every task the requestor can get with tasks/get"),
    _r("TASK-41", _TSK, "MUST", "both", "Refuse tasks/cancel of a finished task with -32602"),
    _r("TASK-42", _TSK, "SHOULD/MUST", "both", "On a valid tasks/cancel, try to stop the work and set the task to cancelled before answering"),
    _r("TASK-43", _TSK, "MUST", "both", "Keep a cancelled task cancelled even if its work later ends"),
    _r("TASK-44", _TSK, "MAY", "both", "Receiver may delete cancelled tasks at any time"),
    _r("TASK-45", _TSK, "SHOULD NOT/SHOULD (lowercase)", "both", "Requestor does not count on cancelled tasks being kept and fetches what it needs before cancelling"),
    # Error handling
    _r("TASK-46", _TSK, "MUST", "both", "Answer -32602 for an unknown taskId or cursor and for cancelling a finished task, -32603 for internal errors"),
    _r("TASK-47", _TSK, "SHOULD", "both", "Explain the cause in task error messages"),
    _r("TASK-48", _TSK, "SHOULD", "both", "Give a failed task a statusMessage in tasks/get"),
    _r("TASK-49", _TSK, "SHOULD (lowercase)", "server", "End a task whose tool result has isError true in failed status"),
    # Security considerations
    _r("TASK-50", _TSK, "MUST", "both", "Bind tasks to the authorization context when there is one"),
    _r("TASK-51", _TSK, "SHOULD", "both", "Without context binding, document that anyone guessing a task ID can reach it"),
    _r("TASK-52", _TSK, "MUST/SHOULD (lowercase)", "both", "Without context binding, make task IDs cryptographically random and consider short ttls"),
    _r("TASK-53", _TSK, "SHOULD NOT", "both", "A receiver that cannot tell requestors apart does not declare tasks.list"),
    _r("TASK-54", _TSK, "MUST", "both", "With context binding, refuse get/result/cancel of another context's tasks and list only the requestor's"),
    _r("TASK-55", _TSK, "SHOULD", "both", "Rate-limit task operations"),
    _r("TASK-56", _TSK, "SHOULD", "both", "Receiver limits concurrent tasks and ttl, cleans up expired tasks, documents its limits and monitors usage"),
    _r("TASK-57", _TSK, "SHOULD", "both", "Receiver logs task creation, completion and retrieval with auth context and watches for suspicious patterns"),
    _r("TASK-58", _TSK, "SHOULD", "both", "Requestor logs task lifecycle events and tracks task IDs with their operations"),
    # basic/authorization: overview and discovery
    _r("AUTHC-01", _AUT, "SHOULD", "both", "Clients and authorization servers support Client ID Metadata Documents"),
    _r("AUTHC-02", _AUT, "MAY", "both", "Clients and authorization servers may support Dynamic Client Registration (was SHOULD; kept for compatibility)"),
    _r("AUTHC-03", _AUT, "MUST", "server", "Authorization server offers RFC 8414 metadata or OpenID Connect Discovery 1.0"),
    _r("AUTHC-04", _AUT, "MUST", "client", "Support both authorization server discovery mechanisms"),
    _r("AUTHC-05", _AUT, "MUST", "server", "Point to the resource metadata by WWW-Authenticate resource_metadata on 401, or by a well-known URI"),
    _r("AUTHC-06", _AUT, "MUST", "client", "Use resource_metadata from WWW-Authenticate if given, else try the well-known URIs (endpoint path, then root)"),
    _r("AUTHC-07", _AUT, "SHOULD", "server", "Name the needed scopes in a scope parameter of WWW-Authenticate"),
    _r("AUTHC-08", _AUT, "MAY/SHOULD", "server", "Challenge scopes may differ freely from scopes_supported; build scope sets consistently"),
    _r("AUTHC-09", _AUT, "MUST NOT/MUST", "client", "Assume no relation between challenge scopes and scopes_supported; take the challenge scopes as authoritative"),
    _r("AUTHC-10", _AUT, "SHOULD", "client", "Without a scope parameter, use the scope selection strategy"),
    _r("AUTHC-11", _AUT, "MUST", "client", "Try several well-known endpoints for authorization server metadata"),
    _r("AUTHC-12", _AUT, "MUST", "client", "Issuer with a path: OAuth path-inserted, OIDC path-inserted, then OIDC path-appended"),
    _r("AUTHC-13", _AUT, "MUST", "client", "Issuer without a path: oauth-authorization-server, then openid-configuration"),
    # Client registration
    _r("AUTHC-14", _AUT, "SHOULD", "client", "Register by pre-registration, else CIMD if advertised, else DCR, else ask the user"),
    _r("AUTHC-15", _AUT, "MUST", "both", "Follow the CIMD draft when using Client ID Metadata Documents"),
    _r("AUTHC-16", _AUT, "MUST", "client", "Host the metadata document at an HTTPS URL"),
    _r("AUTHC-17", _AUT, "MUST", "client", "Use a client_id URL with https scheme and a path"),
    _r("AUTHC-18", _AUT, "MUST", "client", "Include client_id, client_name and redirect_uris in the document"),
    _r("AUTHC-19", _AUT, "MUST", "client", "Make the document's client_id equal its URL exactly"),
    _r("AUTHC-20", _AUT, "MAY", "client", "Authenticate with private_key_jwt and JWKS"),
    _r("AUTHC-21", _AUT, "SHOULD", "server", "Authorization server fetches the document for URL client_ids"),
    _r("AUTHC-22", _AUT, "MUST", "server", "Authorization server checks the fetched client_id equals the URL"),
    _r("AUTHC-23", _AUT, "SHOULD", "server", "Authorization server caches documents per HTTP cache headers"),
    _r("AUTHC-24", _AUT, "MUST", "server", "Authorization server checks request redirect URIs against the document"),
    _r("AUTHC-25", _AUT, "MUST", "server", "Authorization server checks the document is JSON with the required fields"),
    _r("AUTHC-26", _AUT, "SHOULD", "server", "Authorization server follows the CIMD security considerations"),
    _r("AUTHC-27", _AUT, "SHOULD/MAY", "client", "Check client_id_metadata_document_supported; else fall back to DCR or pre-registration"),
    _r("AUTHC-28", _AUT, "SHOULD", "client", "Offer static client credentials (hard-coded or entered by the user)"),
    # Scopes
    _r("AUTHC-29", _AUT, "SHOULD", "client", "Request least privilege: challenge scope first, else all scopes_supported, else no scope"),
    _r("AUTHC-30", _AUT, "MUST", "server", "Accept only tokens valid for its own resources"),
    _r("AUTHC-31", _AUT, "SHOULD", "server", "Answer insufficient scope with 403 and Bearer error=insufficient_scope, scope, resource_metadata"),
    _r("AUTHC-32", _AUT, "SHOULD", "server", "List the scopes the request needs in that scope parameter"),
    _r("AUTHC-33", _AUT, "SHOULD", "server", "Keep one scope inclusion strategy, weighing its effect on users"),
    _r("AUTHC-34", _AUT, "SHOULD/MAY", "client", "Step up on insufficient_scope (user-facing clients); client_credentials clients may step up or abort"),
    _r("AUTHC-35", _AUT, "SHOULD", "client", "Limit retries and track scope upgrade attempts"),
    # Security considerations
    _r("AUTHC-36", _AUT, "MUST", "client", "Implement PKCE and verify the authorization server supports it before authorizing"),
    _r("AUTHC-37", _AUT, "MUST", "client", "Use S256 when technically able"),
    _r("AUTHC-38", _AUT, "MUST", "client", "Refuse to proceed when metadata (OAuth or OIDC) lacks code_challenge_methods_supported"),
    _r("AUTHC-39", _AUT, "MUST", "server", "OIDC authorization server publishes code_challenge_methods_supported"),
    _r("AUTHC-40", _AUT, "MUST/SHOULD", "server", "Authorization server weighs CIMD security, SSRF in particular, when fetching documents"),
    _r("AUTHC-41", _AUT, "SHOULD", "server", "Authorization server warns more for localhost-only redirect URIs"),
    _r("AUTHC-42", _AUT, "MAY", "server", "Authorization server may demand extra attestation"),
    _r("AUTHC-43", _AUT, "MUST", "server", "Authorization server shows the redirect URI hostname when authorizing"),
    _r("AUTHC-44", _AUT, "MAY", "server", "Authorization server may apply domain-based trust policies to client_ids"),
)

REQUIREMENTS: dict[str, Requirement] = {r.id: r for r in _TABLE}


def get(requirement_id: str) -> Requirement:
    """The requirement with this ID, in any case; KeyError naming close IDs if unknown."""
    return revision_index.lookup(requirement_id, REQUIREMENTS, REVISION, "ELICU-01")


def search(text: str) -> list[Requirement]:
    """Requirements whose ID or summary contains ``text``, ignoring case, in the index's order."""
    needle = text.casefold()
    return [r for r in _TABLE if any(needle in field.casefold() for field in (r.id, r.summary))]
