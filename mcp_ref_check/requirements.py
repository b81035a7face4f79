"""The requirement index: every requirement ID of MCP 2024-11-05, looked up without leaving the package.

Not a spec section: this is the index of all of them.
https://modelcontextprotocol.io/specification/2024-11-05

The code, the tests and ``spec_notes/`` cite requirements by ID (``# LC-08``). The IDs are those of
the project's traceability list of the 2024-11-05 spec, one per MUST, SHOULD or MAY sentence; this
module carries all 262, in the list's order, so a clone alone can answer "what is LC-08?"
(``mcp-ref spec LC-08`` prints the answer, with the code and tests that meet it):

    >>> from mcp_ref import requirements
    >>> r = requirements.get("lc-08")
    >>> r.level, r.side, r.url
    ('MUST', 'client', 'https://modelcontextprotocol.io/specification/2024-11-05/basic/lifecycle')

Each ``Requirement`` holds:

1. ``id``: the stable ID, e.g. ``"LC-08"``.
2. ``page``: the spec page the requirement lives on, spelled as in the spec's URLs
   (``"basic/lifecycle"``, ``"server/utilities/completion"``; ``""`` is the overview page).
   Rows the list took from the schema's comments sit on the page of the feature they describe.
   The VER rows come from a versioning page that was later withdrawn from this revision; they
   sit on ``basic/lifecycle``, where version negotiation is specified.
3. ``level``: the keyword column of the list, normalised: keywords upper-case, single spaces, no
   spaces around ``/``. Rows with several keywords keep them in the list's order
   (``"MUST/SHOULD"``, ``"MAY/MUST"``). Where the spec wrote the word in lowercase (plain prose,
   not a defined keyword) the level keeps the list's note: ``"MUST (lowercase)"``. Two levels are
   not keywords at all: ``"REQUIRES"`` (architecture prose: a feature needs a declared
   capability) and ``"INFO"`` (a statement of fact worth citing). ``strength`` folds them all
   into three (point 6; the table ``_STRENGTH``).
4. ``side``: who has to act, ``"client"``, ``"server"`` or ``"both"``, mapped from the list's
   *Who* column: Client -> client; Server -> server; Host, Host/UI -> client (the host
   application embeds the client, so its user-interface duties land there); Both, Impl, Any,
   Sender, Responder, Requester, Receiver, Client/Server and a blank -> both (either side can be
   the one sending or receiving). One exception, where an "Impl" row clearly binds one side:
   CMP-08..11 and LOG-16..19 are server duties, since only a server answers completions and
   emits log messages.
5. ``summary``: one line in our own words saying what to do. It carries no keyword: the level
   says how strongly. Read the spec page (``url``) for the exact wording.
6. ``strength``: ``"MUST"``, ``"SHOULD"`` or ``"MAY"``, for reports. MUST NOT, REQUIRED, SHALL
   and REQUIRES count as MUST; SHOULD NOT and RECOMMENDED as SHOULD; OPTIONAL as MAY. A
   combined level counts as its strongest part (LC-12 ``"MUST/SHOULD"`` is MUST: the MUST is
   what breaks a peer). A lowercase word counts as its keyword: the spec states those as plain
   obligations (a completion list over 100 items breaks clients whatever the case of "must");
   ``level`` still shows the "(lowercase)" note for a report that wants to soften them.
   ``"INFO"`` counts as MAY: it obliges nobody.

Lookups: ``get(id)`` (case-insensitive, with suggestions when unknown), ``on_page(page)``,
``search(text)``, and the tables ``REQUIREMENTS`` (ID -> Requirement, in the list's order) and
``PAGES`` (page -> URL). Importing this module reads no file and loads nothing heavy;
``import mcp_ref`` does not import it.
"""

# The table below keeps one requirement per line so that it can be scanned; its lines run long.
# ruff: noqa: E501

from __future__ import annotations

from dataclasses import dataclass

from .closeness import closest

_SPEC_URL = "https://modelcontextprotocol.io/specification/2024-11-05"

# Every value ``Requirement.level`` takes, and the strength each one reports as (point 6 above).
_STRENGTH: dict[str, str] = {
    "MUST": "MUST",
    "MUST NOT": "MUST",
    "MUST/MAY": "MUST",
    "MUST/MUST NOT": "MUST",
    "MUST/SHOULD": "MUST",
    "MAY/MUST": "MUST",
    "MUST (lowercase)": "MUST",
    "MUST NOT (lowercase)": "MUST",
    "REQUIRES": "MUST",
    "SHOULD": "SHOULD",
    "SHOULD NOT": "SHOULD",
    "SHOULD/MAY": "SHOULD",
    "SHOULD (lowercase)": "SHOULD",
    "MAY": "MAY",
    "INFO": "MAY",
}


def _page_url(page: str) -> str:
    return f"{_SPEC_URL}/{page}" if page else _SPEC_URL


@dataclass(frozen=True)
class Requirement:
    """One requirement of the spec: where it is, how strong it is, who acts, and what to do."""

    id: str
    page: str
    level: str
    side: str
    summary: str

    @property
    def url(self) -> str:
        """The revision-pinned URL of the spec page that states this requirement."""
        return _page_url(self.page)

    @property
    def strength(self) -> str:
        """``"MUST"``, ``"SHOULD"`` or ``"MAY"``: how binding this requirement is, for reports."""
        return _STRENGTH[self.level]


def _r(id: str, page: str, level: str, side: str, summary: str) -> Requirement:
    return Requirement(id, page, level, side, summary)


_TABLE = (
    # 1. Overview: the security and trust principles (https://modelcontextprotocol.io/specification/2024-11-05).
    _r("OV-01", "", "SHOULD", "both", "Build user consent and permission checks into the application: the protocol cannot enforce them"),
    _r("OV-02", "", "SHOULD", "both", "Document what an integration exposes and which security risks come with it"),
    _r("OV-03", "", "SHOULD", "both", "Guard data and operations with access control and data protection suited to them"),
    _r("OV-04", "", "SHOULD", "both", "Apply ordinary secure-engineering practice to every MCP integration"),
    _r("OV-05", "", "SHOULD", "both", "Weigh privacy when designing a feature: what user data goes where, and who gets to see it"),
    _r("OV-06", "", "MUST (lowercase)", "client", "Let users see and agree to every data access and every operation before it happens"),
    _r("OV-07", "", "MUST (lowercase)", "client", "Keep users in charge of which data is shared and which actions run"),
    _r("OV-08", "", "SHOULD (lowercase)", "both", "Give users a clear screen to review and approve what servers and models are about to do"),
    _r("OV-09", "", "MUST (lowercase)", "client", "Ask the user before any of their data is handed to a server"),
    _r("OV-10", "", "MUST NOT (lowercase)", "client", "Pass resource data on to third parties only with the user's agreement"),
    _r("OV-11", "", "SHOULD (lowercase)", "client", "Put access control around user data"),
    _r("OV-12", "", "MUST (lowercase)", "client", "Handle every tool call as running arbitrary code, with the care that deserves"),
    _r("OV-13", "", "MUST (lowercase)", "client", "Get the user's explicit go-ahead before calling any tool"),
    _r("OV-14", "", "MUST (lowercase)", "client", "Have the user approve each sampling request explicitly"),
    _r("OV-15", "", "SHOULD (lowercase)", "client", "Let users decide whether sampling happens, what prompt is sent, and what the server sees of the result"),
    # 2. Architecture: capabilities bind both sides.
    _r("AR-01", "architecture", "MUST (lowercase)", "both", "Use only the features the peer declared in its capabilities, for the whole session"),
    _r("AR-02", "architecture", "MUST (lowercase)", "server", "Advertise every feature the server implements in the capabilities of its initialize result"),
    _r("AR-03", "architecture", "REQUIRES", "server", "Declare resources.subscribe before sending any resource update notification"),
    _r("AR-04", "architecture", "REQUIRES", "server", "Declare the tools capability if clients are to call tools"),
    _r("AR-05", "architecture", "REQUIRES", "client", "Declare the sampling capability if servers are to send sampling/createMessage"),
    # 3. Base protocol: overview and messages.
    _r("BASE-01", "basic", "MUST", "both", "Exchange only JSON-RPC 2.0 messages: requests, responses and notifications"),
    _r("BASE-02", "basic", "MUST/MAY", "both", "Implement the base protocol and the lifecycle in full; add the other features as the application needs them"),
    _r("BASE-03", "basic", "MAY", "both", "Agree on any authentication or authorisation scheme between the two sides; the core spec defines none"),
    _r("MSG-01", "basic/messages", "MUST", "both", 'Shape every message as JSON-RPC 2.0 ("jsonrpc": "2.0"): a request, a response or a notification'),
    _r("MSG-02", "basic/messages", "MUST", "both", "Give every request an id that is a string or an integer"),
    _r("MSG-03", "basic/messages", "MUST NOT", "both", "Never use null as a request id"),
    _r("MSG-04", "basic/messages", "MUST NOT", "both", "Use a fresh id for each request: never one this side already sent in the session"),
    _r("MSG-05", "basic/messages", "MUST", "both", "Copy the request's id, unchanged, into its response"),
    _r("MSG-06", "basic/messages", "MUST/MUST NOT", "both", "Put exactly one of result and error in a response: never both, never neither"),
    _r("MSG-07", "basic/messages", "MUST", "both", "Use integers for error codes"),
    _r("MSG-08", "basic/messages", "MUST NOT", "both", "Leave the id out of every notification"),
    _r("MSG-09", "basic/messages", "SHOULD", "both", "Keep error.message to one short sentence"),
    # 4. Lifecycle.
    _r("LC-01", "basic/lifecycle", "MUST", "both", "Begin every connection with initialization, which settles the protocol version"),
    _r("LC-02", "basic/lifecycle", "MUST", "both", "Use initialization to trade capabilities and fix which features the session has"),
    _r("LC-03", "basic/lifecycle", "MUST", "both", "Use initialization to tell the peer your implementation's name and version"),
    _r("LC-04", "basic/lifecycle", "MUST", "client", "Open with an initialize request whose params carry protocolVersion"),
    _r("LC-05", "basic/lifecycle", "MUST", "client", "Put the client's capabilities object in the initialize params"),
    _r("LC-06", "basic/lifecycle", "MUST", "client", "Put clientInfo (name and version) in the initialize params"),
    _r("LC-07", "basic/lifecycle", "MUST", "server", "Answer initialize with protocolVersion, the server's capabilities and serverInfo"),
    _r("LC-08", "basic/lifecycle", "MUST", "client", "Send notifications/initialized once the initialize result has been accepted"),
    _r("LC-09", "basic/lifecycle", "SHOULD NOT", "client", "Send no request but ping until the initialize result has arrived"),
    _r("LC-10", "basic/lifecycle", "SHOULD NOT", "server", "Until notifications/initialized arrives, send the client no request but ping (log messages are fine)"),
    _r("LC-11", "basic/lifecycle", "MUST/SHOULD", "client", "Propose a protocolVersion the client supports, preferably its newest"),
    _r("LC-12", "basic/lifecycle", "MUST/SHOULD", "server", "Echo the proposed protocolVersion if supported; else answer another one you support, ideally your newest"),
    _r("LC-13", "basic/lifecycle", "SHOULD", "client", "Disconnect if the server picked a protocolVersion the client cannot speak"),
    _r("LC-14", "basic/lifecycle", "SHOULD", "both", "Stick to the negotiated protocol version for the rest of the session"),
    _r("LC-15", "basic/lifecycle", "SHOULD", "both", "Use only capabilities that both sides agreed on during initialization"),
    _r("LC-16", "basic/lifecycle", "SHOULD", "client", "To stop a stdio server, close its stdin first"),
    _r("LC-17", "basic/lifecycle", "SHOULD", "client", "Then wait for the server process to exit, sending SIGTERM if it takes too long"),
    _r("LC-18", "basic/lifecycle", "SHOULD", "client", "Send SIGKILL if the server is still running a while after SIGTERM"),
    _r("LC-19", "basic/lifecycle", "MAY", "server", "End a stdio session from the server side by closing stdout and exiting"),
    _r("LC-20", "basic/lifecycle", "SHOULD", "both", "Cope with the two sides finding no protocol version in common"),
    _r("LC-21", "basic/lifecycle", "SHOULD", "both", "Cope with a peer that lacks a capability you depend on"),
    _r("LC-22", "basic/lifecycle", "SHOULD", "both", "Cope with an initialize request that gets no answer in time"),
    _r("LC-23", "basic/lifecycle", "SHOULD", "both", "Cope with a peer that does not finish shutting down in time"),
    _r("LC-24", "basic/lifecycle", "SHOULD", "both", "Put a timeout on every request so a silent peer cannot hang the connection or pile up resources"),
    _r("LC-25", "basic/lifecycle", "MAY", "client", "Support older protocol versions too, beside the newest one the client proposes"),
    _r("LC-26", "basic/lifecycle", "MUST", "client", "Drop the connection if the protocolVersion in InitializeResult is one the client cannot use"),
    _r("LC-27", "basic/lifecycle", "MAY", "client", "Feed the server's instructions into the model's system prompt if useful"),
    # 4a. Versioning (from a withdrawn page; negotiation itself is on basic/lifecycle).
    _r("VER-01", "basic/lifecycle", "MAY/MUST", "both", "Support several protocol versions if you like, but settle on exactly one per session"),
    _r("VER-02", "basic/lifecycle", "INFO", "both", "Read a version string as YYYY-MM-DD: the date of the last backwards-incompatible change"),
    # 5. Transports: stdio, HTTP with SSE, custom.
    _r("TR-01", "basic/transports", "SHOULD", "client", "Offer the stdio transport wherever the platform allows it"),
    _r("TR-02", "basic/transports", "MUST NOT", "both", "On stdio, write each message as one line: no raw newline inside a message"),
    _r("TR-03", "basic/transports", "MAY", "server", "Log to stderr as UTF-8 text; whether that text is kept, passed on or dropped is the client's choice"),
    _r("TR-04", "basic/transports", "MUST NOT", "server", "Keep stdout for protocol traffic alone: a stray print, banner or log line there breaks the client"),
    _r("TR-05", "basic/transports", "MUST NOT", "client", "Put nothing but protocol messages on the server's stdin"),
    _r("TR-06", "basic/transports", "MUST", "server", "Check the Origin header of every HTTP connection, to stop DNS rebinding"),
    _r("TR-07", "basic/transports", "SHOULD", "server", "Listen on 127.0.0.1, not on 0.0.0.0, when the server runs locally"),
    _r("TR-08", "basic/transports", "SHOULD", "server", "Authenticate every HTTP connection"),
    _r("TR-09", "basic/transports", "MUST", "server", "Serve an SSE endpoint (HTTP GET) where the client connects and receives server messages"),
    _r("TR-10", "basic/transports", "MUST", "server", "Serve an HTTP POST endpoint that takes the client's messages"),
    _r("TR-11", "basic/transports", "MUST", "server", "Open each SSE stream with an endpoint event naming the URI the client then POSTs every message to"),
    _r("TR-12", "basic/transports", "MAY", "both", "Add a custom transport over any two-way channel if the standard ones do not fit"),
    _r("TR-13", "basic/transports", "MUST/SHOULD", "both", "Keep JSON-RPC messages and the lifecycle intact on a custom transport, and document how it connects"),
    # 6. Ping.
    _r("PING-01", "basic/utilities/ping", "MUST", "both", "Answer a ping quickly with an empty result"),
    _r("PING-02", "basic/utilities/ping", "MAY", "both", "Regard the connection as stale when a ping gets no answer in time"),
    _r("PING-03", "basic/utilities/ping", "MAY", "both", "Close the connection when a ping gets no answer in time"),
    _r("PING-04", "basic/utilities/ping", "MAY", "both", "Try to reconnect when a ping gets no answer in time"),
    _r("PING-05", "basic/utilities/ping", "SHOULD", "both", "Ping the peer now and then to find out whether the connection still works"),
    _r("PING-06", "basic/utilities/ping", "SHOULD", "both", "Let the user set how often pings go out"),
    _r("PING-07", "basic/utilities/ping", "SHOULD", "both", "Choose ping timeouts that suit the network in use"),
    _r("PING-08", "basic/utilities/ping", "SHOULD", "both", "Ping no more often than needed, to spare the network"),
    _r("PING-09", "basic/utilities/ping", "SHOULD", "both", "Count an unanswered ping as a failed connection"),
    _r("PING-10", "basic/utilities/ping", "MAY", "both", "Reset the connection after several pings in a row fail"),
    _r("PING-11", "basic/utilities/ping", "SHOULD", "both", "Log failed pings so connection trouble can be diagnosed"),
    _r("PING-12", "basic/utilities/ping", "MUST (lowercase)", "both", "Answer pings promptly; a peer that does not can expect to be disconnected"),
    # 7. Cancellation.
    _r("CAN-01", "basic/utilities/cancellation", "MUST", "both", "Cancel only requests that this side itself sent to the peer"),
    _r("CAN-02", "basic/utilities/cancellation", "MUST", "both", "Cancel only requests you believe are still running"),
    _r("CAN-03", "basic/utilities/cancellation", "MUST NOT", "client", "Never cancel the initialize request"),
    _r("CAN-04", "basic/utilities/cancellation", "SHOULD", "both", "On a cancellation, stop working on the request it names"),
    _r("CAN-05", "basic/utilities/cancellation", "SHOULD", "both", "On a cancellation, release whatever the cancelled request was holding"),
    _r("CAN-06", "basic/utilities/cancellation", "SHOULD", "both", "Send no response for a request that was cancelled"),
    _r("CAN-07", "basic/utilities/cancellation", "MAY", "both", "Ignore a cancellation that names a request id you do not know"),
    _r("CAN-08", "basic/utilities/cancellation", "MAY", "both", "Ignore a cancellation for a request that has already finished"),
    _r("CAN-09", "basic/utilities/cancellation", "MAY", "both", "Ignore a cancellation for a request that cannot be interrupted"),
    _r("CAN-10", "basic/utilities/cancellation", "SHOULD", "both", "Drop any response that arrives after you cancelled its request"),
    _r("CAN-11", "basic/utilities/cancellation", "MUST", "both", "Handle the race where a cancellation crosses the response or lands after the work is done"),
    _r("CAN-12", "basic/utilities/cancellation", "SHOULD", "both", "Log why a request was cancelled, for debugging"),
    _r("CAN-13", "basic/utilities/cancellation", "SHOULD", "client", "Show the user when a cancellation has been asked for"),
    _r("CAN-14", "basic/utilities/cancellation", "SHOULD", "both", "Quietly drop a cancellation that names an unknown request id"),
    _r("CAN-15", "basic/utilities/cancellation", "SHOULD", "both", "Quietly drop a cancellation for a request already answered"),
    _r("CAN-16", "basic/utilities/cancellation", "SHOULD", "both", "Quietly drop a malformed cancellation notification instead of failing"),
    _r("CAN-17", "basic/utilities/cancellation", "SHOULD/MAY", "both", "Cancel only requests still in flight, and expect a cancellation to land after its request ended"),
    _r("CAN-18", "basic/utilities/cancellation", "SHOULD", "both", "Read a cancellation as 'the result will not be used' and stop the related work"),
    _r("CAN-19", "basic/utilities/cancellation", "MUST NOT", "client", "Never send notifications/cancelled for the client's own initialize request"),
    _r("CAN-20", "basic/utilities/cancellation", "MUST", "both", "Set requestId to the id of one of your own earlier requests to this peer"),
    _r("CAN-21", "basic/utilities/cancellation", "MAY", "both", "Log the cancellation's reason, or show it to the user"),
    # 8. Progress.
    _r("PROG-01", "basic/utilities/progress", "MUST", "both", "Use a string or an integer as progressToken"),
    _r("PROG-02", "basic/utilities/progress", "MUST", "both", "Pick progress tokens so that no two active requests share one"),
    _r("PROG-03", "basic/utilities/progress", "MAY", "both", "Send notifications/progress carrying the progressToken the request came with"),
    _r("PROG-04", "basic/utilities/progress", "MAY", "both", "Report the work done so far in the progress field"),
    _r("PROG-05", "basic/utilities/progress", "MAY", "both", "Add a total to progress notifications when the full amount is known"),
    _r("PROG-06", "basic/utilities/progress", "MUST", "both", "Make progress larger in each notification than in the last, known total or not"),
    _r("PROG-07", "basic/utilities/progress", "MAY", "both", "Use fractional numbers for progress and total if that fits the work"),
    _r("PROG-08", "basic/utilities/progress", "MUST", "both", "Send progress only for a token that came with a request still being handled"),
    _r("PROG-09", "basic/utilities/progress", "MUST", "both", "Send progress only while the operation it describes is still running"),
    _r("PROG-10", "basic/utilities/progress", "MAY", "both", "Send no progress notifications at all, even when asked for them"),
    _r("PROG-11", "basic/utilities/progress", "MAY", "both", "Send progress notifications as often or as rarely as you see fit"),
    _r("PROG-12", "basic/utilities/progress", "MAY", "both", "Leave total out when it is unknown"),
    _r("PROG-13", "basic/utilities/progress", "SHOULD", "both", "Keep track of which progress tokens are in use right now"),
    _r("PROG-14", "basic/utilities/progress", "SHOULD", "both", "Throttle progress notifications so neither side floods the other"),
    _r("PROG-15", "basic/utilities/progress", "MUST", "both", "Stop sending progress for a request once it has completed"),
    _r("PROG-16", "basic/utilities/progress", "SHOULD (lowercase)", "both", "Raise progress each time the work advances, whether or not total is known"),
    _r("PROG-17", "basic/utilities/progress", "INFO", "both", "Know that a progressToken does not oblige the receiver to report any progress"),
    # 10. Prompts.
    _r("PRM-01", "server/prompts", "MUST", "server", "Declare the prompts capability in the initialize result when offering prompts"),
    _r("PRM-02", "server/prompts", "SHOULD", "server", "Send notifications/prompts/list_changed when the prompt list changes, if listChanged was declared"),
    _r("PRM-03", "server/prompts", "MUST", "server", "Give image content base64 data and a correct mimeType"),
    _r("PRM-04", "server/prompts", "MUST", "server", "Give each resource embedded in a prompt message a valid uri"),
    _r("PRM-05", "server/prompts", "MUST", "server", "Give each resource embedded in a prompt message the mimeType that fits it"),
    _r("PRM-06", "server/prompts", "MUST", "server", "Give each resource embedded in a prompt message either text or a base64 blob"),
    _r("PRM-07", "server/prompts", "SHOULD", "server", "Answer prompts/get for a prompt name that does not exist with -32602"),
    _r("PRM-08", "server/prompts", "SHOULD", "server", "Answer prompts/get that leaves out a required argument with -32602"),
    _r("PRM-09", "server/prompts", "SHOULD", "server", "Answer internal failures while producing a prompt with -32603"),
    _r("PRM-10", "server/prompts", "SHOULD", "server", "Check prompt arguments before using them"),
    _r("PRM-11", "server/prompts", "SHOULD", "client", "Follow nextCursor to fetch a long prompt list page by page"),
    _r("PRM-12", "server/prompts", "SHOULD", "both", "Use prompt methods only when the prompts capability was negotiated"),
    _r("PRM-13", "server/prompts", "MUST", "both", "Check prompt inputs and outputs closely, to block injection and access to resources not granted"),
    _r("PRM-14", "server/prompts", "MUST (lowercase)", "client", "Supply every prompt argument marked required when calling prompts/get"),
    # 11. Resources.
    _r("RES-01", "server/resources", "MUST", "server", "Declare the resources capability in the initialize result when offering resources"),
    _r("RES-02", "server/resources", "SHOULD", "server", "Send notifications/resources/list_changed when the resource list changes, if listChanged was declared"),
    _r("RES-03", "server/resources", "SHOULD", "server", "Use https:// URIs only for resources the client can download from the web by itself"),
    _r("RES-04", "server/resources", "SHOULD", "server", "Otherwise use another URI scheme (possibly one of your own), also when the server downloads the content itself"),
    _r("RES-05", "server/resources", "MAY", "server", "Give directories and other non-regular file:// resources an XDG MIME type, e.g. inode/directory"),
    _r("RES-06", "server/resources", "SHOULD", "server", "Answer a request for a resource that does not exist with -32002"),
    _r("RES-07", "server/resources", "SHOULD", "server", "Answer internal failures while serving a resource with -32603"),
    _r("RES-08", "server/resources", "MUST", "server", "Validate every resource URI a client sends before acting on it"),
    _r("RES-09", "server/resources", "SHOULD", "server", "Put access control in front of sensitive resources"),
    _r("RES-10", "server/resources", "MUST", "server", "Encode binary resource contents correctly, as base64 in blob"),
    _r("RES-11", "server/resources", "SHOULD", "server", "Check the caller's permissions before each operation on a resource"),
    _r("RES-12", "server/resources", "SHOULD (lowercase)", "client", "Unsubscribe only from a URI you subscribed to earlier"),
    _r("RES-13", "server/resources", "SHOULD (lowercase)", "server", "Send notifications/resources/updated only for URIs the client subscribed to (or parts of them)"),
    _r("RES-14", "server/resources", "SHOULD (lowercase)", "server", "Give a resource template a mimeType only if every resource it matches has that type"),
    _r("RES-15", "server/resources", "MUST (lowercase)", "server", "Use text contents only for data that really is text; send anything binary as blob"),
    _r("RES-16", "server/resources", "INFO", "server", "Send resource list_changed notifications whether or not the client subscribed to anything"),
    # 12. Tools.
    _r("TOOL-01", "server/tools", "SHOULD", "client", "Keep a person able to refuse any tool call"),
    _r("TOOL-02", "server/tools", "SHOULD", "client", "Show the user which tools the model can see"),
    _r("TOOL-03", "server/tools", "SHOULD", "client", "Make it visible each time a tool is being called"),
    _r("TOOL-04", "server/tools", "SHOULD", "client", "Ask the user to confirm tool operations, so a person stays involved"),
    _r("TOOL-05", "server/tools", "MUST", "server", "Declare the tools capability in the initialize result when offering tools"),
    _r("TOOL-06", "server/tools", "SHOULD", "server", "Send notifications/tools/list_changed when the tool list changes, if listChanged was declared"),
    _r("TOOL-07", "server/tools", "MAY", "server", "Embed resources in tool results, under URIs the client can read again or subscribe to later"),
    _r("TOOL-08", "server/tools", "MUST", "server", "Check tool arguments (against the tool's inputSchema) before running the tool"),
    _r("TOOL-09", "server/tools", "MUST", "server", "Control who is allowed to call which tools"),
    _r("TOOL-10", "server/tools", "MUST", "server", "Limit how often tools can be called"),
    _r("TOOL-11", "server/tools", "MUST", "server", "Clean up tool output before returning it to the client"),
    _r("TOOL-12", "server/tools", "SHOULD", "client", "Ask the user before a sensitive tool operation runs"),
    _r("TOOL-13", "server/tools", "SHOULD", "client", "Show the user a tool call's arguments before sending it, to catch data leaking out"),
    _r("TOOL-14", "server/tools", "SHOULD", "client", "Check tool results before handing them to the model"),
    _r("TOOL-15", "server/tools", "SHOULD", "client", "Give up on tool calls that take too long"),
    _r("TOOL-16", "server/tools", "SHOULD", "client", "Keep an audit log of the tools called"),
    _r("TOOL-17", "server/tools", "SHOULD", "server", "Report a failure inside a tool as a result with isError true, not as a JSON-RPC error"),
    _r("TOOL-18", "server/tools", "SHOULD (lowercase)", "server", "Report an unknown tool, missing tool support and other exceptional failures as JSON-RPC errors"),
    _r("TOOL-19", "server/tools", "INFO", "server", "Leave isError out only when the call succeeded: a result without it counts as a success"),
    # 13. Completion.
    _r("CMP-01", "server/utilities/completion", "SHOULD", "server", "Order completion values with the best matches first"),
    _r("CMP-02", "server/utilities/completion", "SHOULD", "server", "Match the typed value loosely (fuzzy) where that helps"),
    _r("CMP-03", "server/utilities/completion", "SHOULD", "server", "Throttle completion/complete requests"),
    _r("CMP-04", "server/utilities/completion", "SHOULD", "server", "Check ref and argument in every completion request"),
    _r("CMP-05", "server/utilities/completion", "SHOULD", "client", "Debounce completion requests while the user is typing fast"),
    _r("CMP-06", "server/utilities/completion", "SHOULD", "client", "Reuse earlier completion results where that makes sense"),
    _r("CMP-07", "server/utilities/completion", "SHOULD", "client", "Cope with completion results that are empty, missing or partial"),
    _r("CMP-08", "server/utilities/completion", "MUST", "server", "Reject malformed completion requests: check ref and argument before answering"),
    _r("CMP-09", "server/utilities/completion", "MUST", "server", "Cap each client's completion traffic at a sensible rate"),
    _r("CMP-10", "server/utilities/completion", "MUST", "server", "Keep sensitive suggestions from clients that are not allowed to see them"),
    _r("CMP-11", "server/utilities/completion", "MUST", "server", "Make sure suggestions reveal nothing the client is not entitled to know"),
    _r("CMP-12", "server/utilities/completion", "MUST (lowercase)", "server", "Return at most 100 values in one completion result"),
    # 14. Logging.
    _r("LOG-01", "server/utilities/logging", "MUST", "server", "Declare the logging capability before sending any log notification"),
    _r("LOG-02", "server/utilities/logging", "MAY", "client", "Set the minimum log level with logging/setLevel"),
    _r("LOG-03", "server/utilities/logging", "SHOULD", "server", "Answer logging/setLevel with a level that does not exist with -32602"),
    _r("LOG-04", "server/utilities/logging", "SHOULD", "server", "Answer a failure to apply a logging configuration with -32603"),
    _r("LOG-05", "server/utilities/logging", "SHOULD", "server", "Throttle log notifications"),
    _r("LOG-06", "server/utilities/logging", "SHOULD", "server", "Put useful context into the data of each log message"),
    _r("LOG-07", "server/utilities/logging", "SHOULD", "server", "Name loggers the same way every time"),
    _r("LOG-08", "server/utilities/logging", "SHOULD", "server", "Strip sensitive details from log messages"),
    _r("LOG-09", "server/utilities/logging", "MAY", "client", "Show server log messages in the user interface"),
    _r("LOG-10", "server/utilities/logging", "MAY", "client", "Let users filter and search the log"),
    _r("LOG-11", "server/utilities/logging", "MAY", "client", "Show each log message's severity visually"),
    _r("LOG-12", "server/utilities/logging", "MAY", "client", "Store log messages for later"),
    _r("LOG-13", "server/utilities/logging", "MUST NOT", "server", "Keep credentials and secrets out of log messages"),
    _r("LOG-14", "server/utilities/logging", "MUST NOT", "server", "Keep anything that identifies a person out of log messages"),
    _r("LOG-15", "server/utilities/logging", "MUST NOT", "server", "Keep internal details that would help an attacker out of log messages"),
    _r("LOG-16", "server/utilities/logging", "SHOULD", "server", "Cap the rate of log notifications"),
    _r("LOG-17", "server/utilities/logging", "SHOULD", "server", "Check every field of a log notification (level, logger, data) before sending it"),
    _r("LOG-18", "server/utilities/logging", "SHOULD", "server", "Restrict who can read the logs"),
    _r("LOG-19", "server/utilities/logging", "SHOULD", "server", "Watch log content for sensitive data"),
    _r("LOG-20", "server/utilities/logging", "SHOULD (lowercase)", "server", "After logging/setLevel, send log messages at that level and every more severe one"),
    _r("LOG-21", "server/utilities/logging", "MAY", "server", "Choose which log messages to send by yourself until the client sets a level"),
    # 15. Pagination.
    _r("PAG-01", "server/utilities/pagination", "MUST NOT", "client", "Accept pages of any size: the server chooses it"),
    _r("PAG-02", "server/utilities/pagination", "SHOULD", "server", "Keep cursors stable, so paging through a list gives consistent results"),
    _r("PAG-03", "server/utilities/pagination", "SHOULD", "server", "Meet a bad cursor with a clear error, never a crash"),
    _r("PAG-04", "server/utilities/pagination", "SHOULD", "client", "Stop paging at the first result without nextCursor"),
    _r("PAG-05", "server/utilities/pagination", "SHOULD", "client", "Work with servers that paginate and with ones that return everything at once"),
    _r("PAG-06", "server/utilities/pagination", "MUST", "client", "Assume nothing about what a cursor looks like"),
    _r("PAG-07", "server/utilities/pagination", "MUST", "client", "Send a cursor back exactly as received, without decoding or editing it"),
    _r("PAG-08", "server/utilities/pagination", "MUST", "client", "Forget cursors when the session ends; never reuse one in another session"),
    _r("PAG-09", "server/utilities/pagination", "SHOULD", "server", "Answer an unknown or malformed cursor with -32602"),
    _r("PAG-10", "server/utilities/pagination", "SHOULD (lowercase)", "server", "Continue the listing right after the position the cursor marks"),
    _r("PAG-11", "server/utilities/pagination", "INFO", "client", "Read a present nextCursor as 'perhaps more': the next page can still come back empty"),
    # 16a. Roots.
    _r("ROOT-01", "client/roots", "MUST", "client", "Declare the roots capability at initialization when offering roots"),
    _r("ROOT-02", "client/roots", "MUST", "client", "Send notifications/roots/list_changed when the roots change, if listChanged was declared"),
    _r("ROOT-03", "client/roots", "MUST", "client", "Use a file:// URI for every root"),
    _r("ROOT-04", "client/roots", "SHOULD", "client", "Answer roots/list with -32601 when the client has no roots support"),
    _r("ROOT-05", "client/roots", "SHOULD", "client", "Answer internal failures while listing roots with -32603"),
    _r("ROOT-06", "client/roots", "MUST", "client", "Offer as roots only locations the server has been given permission to see"),
    _r("ROOT-07", "client/roots", "MUST", "client", "Validate root URIs so that no path can climb out of the granted directories (path traversal)"),
    _r("ROOT-08", "client/roots", "MUST", "client", "Enforce access control over the roots you expose"),
    _r("ROOT-09", "client/roots", "MUST", "client", "Keep checking that each root is still reachable"),
    _r("ROOT-10", "client/roots", "SHOULD", "server", "Cope with roots that disappear or become unreadable"),
    _r("ROOT-11", "client/roots", "SHOULD", "server", "Stay inside the given roots when working on files"),
    _r("ROOT-12", "client/roots", "SHOULD", "server", "Check every path against the roots the client provided"),
    _r("ROOT-13", "client/roots", "SHOULD", "client", "Ask the user's consent before showing roots to a server"),
    _r("ROOT-14", "client/roots", "SHOULD", "client", "Give users a clear screen to manage their roots"),
    _r("ROOT-15", "client/roots", "SHOULD", "client", "Check a root can be reached before offering it"),
    _r("ROOT-16", "client/roots", "SHOULD", "client", "Watch for roots being added, removed or changed"),
    _r("ROOT-17", "client/roots", "SHOULD", "server", "Look for the client's roots capability before sending roots/list"),
    _r("ROOT-18", "client/roots", "SHOULD", "server", "Cope with the root list changing in the middle of a session"),
    _r("ROOT-19", "client/roots", "SHOULD", "server", "Never act on anything outside the roots the client granted"),
    _r("ROOT-20", "client/roots", "SHOULD", "server", "Cache the root list sensibly and refresh it when told it changed"),
    _r("ROOT-21", "client/roots", "MUST (lowercase)", "client", "Begin every root uri with file:// (the only scheme this revision allows)"),
    _r("ROOT-22", "client/roots", "SHOULD (lowercase)", "both", "Notify on any root change; the server then asks for the list again with roots/list"),
    # 16b. Sampling.
    _r("SAMP-01", "client/sampling", "SHOULD", "client", "Keep a person able to refuse any sampling request"),
    _r("SAMP-02", "client/sampling", "SHOULD", "client", "Make sampling requests easy to review in the user interface"),
    _r("SAMP-03", "client/sampling", "SHOULD", "client", "Let the user see and edit the prompt before it goes to the model"),
    _r("SAMP-04", "client/sampling", "SHOULD", "client", "Let the user review the model's answer before it goes back to the server"),
    _r("SAMP-05", "client/sampling", "MUST", "client", "Declare the sampling capability at initialization when supporting sampling"),
    _r("SAMP-06", "client/sampling", "MAY", "client", "Map model hints onto comparable models from other providers"),
    _r("SAMP-07", "client/sampling", "SHOULD", "client", "Answer a sampling request that fails or is refused with an error (e.g. the user rejected it)"),
    _r("SAMP-08", "client/sampling", "SHOULD", "client", "Put user approval controls in front of sampling"),
    _r("SAMP-09", "client/sampling", "SHOULD", "both", "Validate the content of sampling messages, whichever side receives them"),
    _r("SAMP-10", "client/sampling", "SHOULD", "client", "Take the server's model preferences into account when choosing a model"),
    _r("SAMP-11", "client/sampling", "SHOULD", "client", "Throttle sampling requests"),
    _r("SAMP-12", "client/sampling", "MUST", "both", "Treat sensitive data in sampling requests and results with care"),
    _r("SAMP-13", "client/sampling", "SHOULD (lowercase)", "client", "Tell the user before sampling starts, so they can inspect the request"),
    _r("SAMP-14", "client/sampling", "MAY", "client", "Disregard modelPreferences if you choose"),
    _r("SAMP-15", "client/sampling", "MAY", "client", "Change or drop the server's systemPrompt"),
    _r("SAMP-16", "client/sampling", "MAY", "client", "Disregard includeContext if you choose"),
    _r("SAMP-17", "client/sampling", "MAY", "client", "Generate fewer tokens than maxTokens"),
    _r("SAMP-18", "client/sampling", "SHOULD (lowercase)", "client", "Tell the user before sending the sampled message back to the server"),
    _r("SAMP-19", "client/sampling", "MAY", "client", "Treat model preferences as advice only"),
    _r("SAMP-20", "client/sampling", "MUST", "client", "Try model hints in the order given and take the first that matches"),
    _r("SAMP-21", "client/sampling", "SHOULD/MAY", "client", "Weigh hints above the numeric priorities; use the priorities to break ties between matches"),
    _r("SAMP-22", "client/sampling", "SHOULD", "client", "Treat a hint's name as a fragment to look for inside model names"),
    _r("SAMP-23", "client/sampling", "MAY", "client", "Map a hint to another provider's model or model family"),
)

REQUIREMENTS: dict[str, Requirement] = {r.id: r for r in _TABLE}

PAGES: dict[str, str] = {}
for _req in _TABLE:
    PAGES.setdefault(_req.page, _req.url)
del _req


def get(requirement_id: str) -> Requirement:
    """The requirement with this ID, in any case (``"lc-08"``); KeyError naming close IDs if unknown."""
    key = requirement_id.strip().upper()
    if key in REQUIREMENTS:
        return REQUIREMENTS[key]
    close = closest(requirement_id, REQUIREMENTS)
    hint = f"did you mean {', '.join(close)}?" if close else "IDs look like LC-08 or TOOL-18"
    raise KeyError(f"unknown requirement ID {requirement_id!r}: {hint} (mcp_ref_check.requirements.REQUIREMENTS lists all)")


def _page_key(page: str) -> str:
    """Reduce a URL, a full page path or a last segment to the form of ``Requirement.page``."""
    key = page.strip().split("#", 1)[0].split("?", 1)[0]
    if "://" in key:
        key = key.split("://", 1)[1].partition("/")[2]  # drop scheme and host
    key = key.strip("/")
    for prefix in ("specification/2024-11-05", "2024-11-05"):
        if key == prefix or key.startswith(prefix + "/"):
            key = key[len(prefix) :].strip("/")
    return key


def on_page(page: str) -> list[Requirement]:
    """The requirements of one spec page, in the list's order.

    ``page`` may be the page path (``"server/tools"``), its last part (``"tools"``, ``"ping"``)
    or the page's URL. The overview page is ``""`` or the bare revision URL. KeyError, listing
    the pages, for a page with no requirements.
    """
    key = _page_key(page)
    if key not in PAGES:
        matches = [p for p in PAGES if p.rsplit("/", 1)[-1] == key and p]
        if len(matches) != 1:
            raise KeyError(f"no requirements on page {page!r}; pages: {', '.join(repr(p) for p in PAGES)}")
        key = matches[0]
    return [r for r in _TABLE if r.page == key]


def search(text: str) -> list[Requirement]:
    """Requirements whose ID, page or summary contains ``text``, ignoring case, in the list's order."""
    needle = text.casefold()
    return [r for r in _TABLE if any(needle in field.casefold() for field in (r.id, r.page, r.summary))]
