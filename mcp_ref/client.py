"""Client: the client side of MCP, composed from the section modules, with ONE dispatch table.

Spec page: client
The overview of client features, and the client's part of basic/lifecycle (initialization).
https://modelcontextprotocol.io/specification/2024-11-05/client

In short:

1. A ``Client`` talks to one server over one transport. ``Client.stdio([...])`` spawns the
   server as a child process; the constructor takes any transport.
2. Connecting runs the lifecycle: ``initialize`` with our version, capabilities and name
   (LC-04..06), a check of the version the server chose (LC-13), then
   ``notifications/initialized`` (LC-08). Nothing else is sent before (LC-09) but the probe of
   2026-07-28, the revision without a handshake, first unless ``protocol_versions=`` leaves it
   out (``server/discover``, revisions/stateless_client.py: a server of it is spoken to in it).
3. Requests the server may send to a client are listed in ``Client.request_handlers``:
   method string -> handler; anything else is answered -32601.
4. Every request waits at most ``timeout`` seconds (LC-24); then the server is told
   ``notifications/cancelled`` and the caller gets ``RequestTimeout``. With
   ``ping_interval=N`` the client also pings every N seconds and hangs up on a server that
   stops answering (PING-05, PING-09).

Use it as a context manager so the connection (and a spawned server) is always shut down::

    with Client.stdio([sys.executable, "-m", "mcp_ref", "serve"]) as client:
        client.ping()

Like a file, a Client left open is a leak: when one is garbage-collected without ``close()``
it emits a ``ResourceWarning`` (shown with ``python -W default`` or ``-X dev``) and shuts its
connection down anyway; clients still open when the interpreter exits are closed then, so a
spawned server never outlives the program. ``trace=True`` prints every message on stderr;
``trace=tracer("client")`` (``from mcp_ref.cli.explain import tracer``) prints each with its
spec page and requirement IDs instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from . import lifecycle, pagination, ping, prompts, sampling, tools
from . import roots as roots_
from .machinery import tracing
from .machinery.threads import lifetime
from .machinery.transport import Transport
from .messages import ConnectionClosed, McpError, MethodNotFound
from .revisions import batches, client_subscriptions, elicitation, param_headers, stateless_client, structured_output
from .revisions.elicitation import ElicitationHandler
from .session import DEFAULT_TIMEOUT, ProgressCallback, RequestContext, Session, TraceCallback
from .stdio import MAX_LINE_BYTES, SubprocessTransport

CLIENT_INFO = {"name": "mcp_ref", "version": "0.1.0"}

NotificationCallback = Callable[[str, dict[str, Any]], None]

# The constructor's options, which Client.stdio, .sse and .http list again so that help() and
# editors show them, and pass on with _options(locals()).
OPTIONS = ("client_info", "sampling_handler", "sampling_tools", "elicitation_handler", "elicitation_url", "roots",
           "on_log_message", "on_resource_updated", "on_list_changed", "on_notification", "ping_interval",
           "protocol_versions", "trace")


def _options(given: dict[str, Any]) -> dict[str, Any]:
    return {name: given[name] for name in OPTIONS}


class SessionOpener(Protocol):
    """What ``Client.in_memory`` needs of a server (a ``Server`` is one): a session on a transport."""

    def open_session(self, transport: Transport) -> Session: ...


class Client(elicitation.AnsweringElicitation):
    """An MCP client on one transport. Prefer ``Client.stdio(...)`` as a context manager.

    ``client_info`` is the ``clientInfo`` dict sent as it is: ``{"name", "version"}``, and from
    2025-06-18 on ``title``, from 2025-11-25 on ``description``, ``websiteUrl`` and ``icons`` if you
    put them in. ``sampling_handler(params)`` answers ``sampling/createMessage`` (sampling.py);
    ``sampling_tools=True`` says it also takes ``tools`` and ``toolChoice`` and may answer with
    ``tool_use`` content (2025-11-25). ``elicitation_handler(params)`` answers ``elicitation/create``
    (revisions/elicitation.py; ``revisions.elicitation_terminal.ask_in_terminal`` asks a person);
    ``elicitation_url=True`` says it also takes URL mode (2025-11-25). Without a handler the
    capability is not declared, and the server never asks.
    """

    def __init__(self, transport: Transport, *, timeout: float = DEFAULT_TIMEOUT,
                 client_info: dict[str, Any] | None = None,
                 on_log_message: Callable[[dict[str, Any]], None] | None = None,
                 on_resource_updated: Callable[[str], None] | None = None,
                 on_list_changed: Callable[[str], None] | None = None,
                 on_notification: NotificationCallback | None = None,
                 sampling_handler: sampling.SamplingHandler | None = None, sampling_tools: bool = False,
                 elicitation_handler: ElicitationHandler | None = None, elicitation_url: bool = False,
                 roots: roots_.Roots | None = None,
                 ping_interval: float | None = None, protocol_versions: Sequence[str] | None = None,
                 trace: TraceCallback | bool | None = None):
        self.client_info = dict(client_info or CLIENT_INFO)
        self.ping_interval = ping_interval
        # The revisions this client offers and accepts, newest first (lifecycle.py; LC-11, LC-13); by default
        # 2026-07-28 too, and a probe first (revisions/stateless_client.py, which says what the default is)
        self.protocol_versions = stateless_client.offered(protocol_versions)
        self.sampling_handler = sampling_handler
        # A capability is declared only with a handler to serve it (SAMP-05).
        if sampling_tools and sampling_handler is None:
            raise ValueError("sampling_tools=True says that the sampling_handler takes tools: give one")
        self.sampling_tools = sampling_tools  # its handler takes tools and toolChoice (2025-11-25)
        self._take_elicitation(elicitation_handler, elicitation_url)  # (revisions/elicitation.py)
        self._roots = roots_.check_roots(roots) if isinstance(roots, list) else roots  # ROOT-07
        self._output_validators: dict[str, Any] = {}  # of the tools listed (revisions/structured_output.py)
        # Every request a server may send to this client.
        self.request_handlers: dict[str, Callable[[RequestContext], dict[str, Any]]] = {
            "ping": ping.answer,  # basic/utilities/ping: answered inline, never behind a busy thread
            "sampling/createMessage": lambda ctx: sampling.answer(self.sampling_handler, ctx.params,  # client/sampling
                ctx.session.lifecycle.capabilities.get("sampling"), ctx.session.lifecycle.protocol_version),
            "roots/list": lambda ctx: roots_.answer(self._roots),  # client/roots
            "elicitation/create": self._answer_elicitation,  # client/elicitation, a page of 2025-06-18 (revisions/elicitation.py)
        }
        # Every notification a server may send, and who hears it. Each callback runs on the
        # reader thread, in arrival order: keep it short, and do not send requests from it.
        self.notification_handlers: dict[str, Callable[[dict[str, Any]], None] | None] = {
            # LOG-09, LOG-10
            "notifications/message": on_log_message,  # LOG-11, LOG-12: the host shows or keeps them
            "notifications/resources/updated": (  # server/resources
                (lambda params: on_resource_updated(params.get("uri", ""))) if on_resource_updated else None),
            "notifications/resources/list_changed": (lambda p: on_list_changed("resources")) if on_list_changed else None,
            "notifications/tools/list_changed": (lambda p: on_list_changed("tools")) if on_list_changed else None,
            "notifications/prompts/list_changed": (lambda p: on_list_changed("prompts")) if on_list_changed else None,
            elicitation.COMPLETE: self._elicitation_completed,  # revisions/elicitation.py: once, to on_notification
        }
        self._on_notification = on_notification
        # The session reaches this Client only through weak references: its threads must not
        # keep an abandoned Client alive, or __del__ could never warn about it and clean up.
        self._session = Session(
            transport,
            on_request=lifetime.weakly(self, "_handle_request", _gone),  # (machinery/threads/lifetime.py, rule 2)
            on_notification=lifetime.weakly(self, "_handle_notification", lambda *args: None),
            inline_methods=frozenset({"ping"}),
            knows_method=lifetime.weakly(self, "_knows_method", lambda method: False),
            default_timeout=timeout,
            trace=tracing.trace_hook(trace),
            name="mcp_ref-client",
        )
        lifetime.track(self)  # closed at exit if the program forgets to

    # --- connecting ---------------------------------------------------------------------------

    @classmethod
    def stdio(cls, command: Sequence[str], *, env: dict[str, str | None] | None = None,
              cwd: str | os.PathLike[str] | None = None, inherit_env: bool = True,
              on_stderr: Callable[[str], None] | None = None, max_line_bytes: int = MAX_LINE_BYTES,
              timeout: float = DEFAULT_TIMEOUT, client_info: dict[str, Any] | None = None,
              sampling_handler: sampling.SamplingHandler | None = None, sampling_tools: bool = False,
              elicitation_handler: ElicitationHandler | None = None, elicitation_url: bool = False,
              roots: roots_.Roots | None = None,
              on_log_message: Callable[[dict[str, Any]], None] | None = None,
              on_resource_updated: Callable[[str], None] | None = None,
              on_list_changed: Callable[[str], None] | None = None,
              on_notification: NotificationCallback | None = None, ping_interval: float | None = None,
              protocol_versions: Sequence[str] | None = None, trace: TraceCallback | bool | None = None) -> Client:
        """Spawn ``command`` as the server, initialize, and return the connected client.

        ``env`` is applied on top of this process's environment (``inherit_env=False``: only
        ``env``); ``cwd`` is the server's working directory. The server's stderr is forwarded to
        ours line by line, or to ``on_stderr(line)``. A message from the server longer than
        ``max_line_bytes`` (32 MiB) is discarded; a call whose answer it was fails at once, saying
        so. The other options are the constructor's.
        """
        # TR-01: stdio, the transport every client should offer
        transport = SubprocessTransport(command, env=env, inherit_env=inherit_env, cwd=cwd, on_stderr=on_stderr,
                                        max_line_bytes=max_line_bytes)
        return cls._connected(transport, timeout=timeout, **_options(locals()))

    @classmethod
    def sse(cls, url: str, *, headers: dict[str, str] | None = None, timeout: float = DEFAULT_TIMEOUT,
            client_info: dict[str, Any] | None = None,
            sampling_handler: sampling.SamplingHandler | None = None, sampling_tools: bool = False,
            elicitation_handler: ElicitationHandler | None = None, elicitation_url: bool = False,
            roots: roots_.Roots | None = None,
            on_log_message: Callable[[dict[str, Any]], None] | None = None,
            on_resource_updated: Callable[[str], None] | None = None,
            on_list_changed: Callable[[str], None] | None = None,
            on_notification: NotificationCallback | None = None, ping_interval: float | None = None,
            protocol_versions: Sequence[str] | None = None, trace: TraceCallback | bool | None = None) -> Client:
        """Open the event stream at ``url`` (HTTP with SSE), initialize, return the connected client.

        ``headers`` go with every HTTP request (an ``Authorization`` header, say). ``timeout``
        bounds connecting, waiting for the ``endpoint`` event, each POST, and each request. The
        other options are the constructor's.
        """
        from .sse_client import SseClientTransport

        # BASE-03, TR-08: whatever credentials the parties agree on travel in the headers
        protocol_versions = stateless_client.over_sse(protocol_versions)  # the handshake's revisions alone
        transport = SseClientTransport(url, headers=headers, timeout=timeout)
        return cls._connected(transport, timeout=timeout, **_options(locals()))

    @classmethod
    def http(cls, url: str, *, headers: dict[str, str] | None = None, timeout: float = DEFAULT_TIMEOUT,
             fallback: bool = True, client_info: dict[str, Any] | None = None,
             sampling_handler: sampling.SamplingHandler | None = None, sampling_tools: bool = False,
             elicitation_handler: ElicitationHandler | None = None, elicitation_url: bool = False,
             roots: roots_.Roots | None = None,
             on_log_message: Callable[[dict[str, Any]], None] | None = None,
             on_resource_updated: Callable[[str], None] | None = None,
             on_list_changed: Callable[[str], None] | None = None,
             on_notification: NotificationCallback | None = None, ping_interval: float | None = None,
             protocol_versions: Sequence[str] | None = None, trace: TraceCallback | bool | None = None) -> Client:
        """Connect to the MCP endpoint at ``url`` over Streamable HTTP, initialize, return the client.

        The transport of revision 2025-03-26, carrying 2024-11-05 messages (streamable_http/client_transport.py).
        ``headers`` go with every HTTP request (``{"Authorization": "Bearer ..."}``). ``timeout``
        bounds each POST, each request and the opening of the server's stream. An older server
        that answers the ``initialize`` POST with a 4xx (other than 401 and 403) is reached over
        HTTP with SSE at the same URL instead, unless ``fallback=False``: so ``Client.http(url)``
        reaches either kind. The other options are the constructor's.
        """
        from .machinery.http.client_plumbing import HttpError
        from .streamable_http.client_transport import StreamableHttpClientTransport

        options = _options(locals())
        # SHTTP-08, TR-08: whatever credentials the server wants travel in the headers
        transport = StreamableHttpClientTransport(url, headers=headers, timeout=timeout)
        try:
            return cls._connected(transport, timeout=timeout, **options)
        except HttpError as exc:
            # SHTTP-43: a 4xx to initialize (405, 404...) is an HTTP with SSE server: GET, endpoint
            if not fallback or not 400 <= exc.status < 500 or exc.status in (401, 403):
                raise
        return cls.sse(url, headers=headers, timeout=timeout, **options)

    @classmethod
    def in_memory(cls, server: SessionOpener, **options: Any) -> Client:
        """A client connected to ``server`` (a ``Server``) in this same process, initialized: no
        process, no socket, every message still encoded and decoded as on the wire (a pair of
        queues, machinery/memory.py). For tests: ``with Client.in_memory(server) as client:``.
        Closing the client ends the server's session too. The options are the constructor's."""
        from .machinery.memory import MemoryTransport

        server_end, client_end = MemoryTransport.pair()  # TR-12, TR-13: any channel that keeps messages whole
        server.open_session(server_end).start()
        return cls._connected(client_end, **options)

    @classmethod
    def _connected(cls, transport: Transport, **kwargs: Any) -> Client:
        try:
            client = cls(transport, **kwargs)
        except BaseException:  # a bad argument: do not leave the server process or stream behind
            transport.close()
            raise
        return client.connect()

    def connect(self) -> Client:
        """Start reading and run the initialization phase; on any failure, close and raise."""
        self._session.start()
        try:
            self._session.lifecycle.capabilities = self.capabilities()  # what we declare, kept for later checks
            if client_subscriptions.discovered(self):  # 2026-07-28: server/discover, no handshake (STDIO-06, DISC-02)
                return self
            handshake = stateless_client.handshake_versions(self.protocol_versions)  # those with initialize
            try:  # LC-22: bounded by the timeout like every request
                result = self._session.request("initialize", lifecycle.initialize_params(
                    self.client_info, self._session.lifecycle.capabilities, handshake))
            except McpError as exc:  # -32022 naming 2026-07-28: a server still starting when the probe gave up
                return client_subscriptions.rediscovered(self, exc)
            lifecycle.accept_initialize_result(self._session.lifecycle, result, handshake)  # LC-13
            if self.protocol_version == batches.REVISION:  # a server of 2025-03-26 may send us a JSON array
                self._session.on_batch = batches.receive_batch
            self._session.notify("notifications/initialized")  # LC-08
            if self.ping_interval:  # PING-05: off unless asked for (PING-08)
                ping.keep_alive(self._session, self.ping_interval)
        except BaseException:
            self.close()
            raise
        return self

    def capabilities(self) -> dict[str, Any]:
        """The capabilities this client declares in ``initialize``: exactly what it was given."""
        capabilities: dict[str, Any] = {}
        if isinstance(self._roots, list):  # ROOT-01; set_roots() sends list_changed (ROOT-02)
            capabilities["roots"] = {"listChanged": True}
        elif self._roots is not None:
            # A callable's answer can change without this client knowing, so it cannot promise
            # to say when: no listChanged. (set_roots() still replaces them, without notifying.)
            capabilities["roots"] = {}
        newest = self.protocol_versions[0]  # what we offer; an older server ignores what it does not know
        if self.sampling_handler is not None:
            capabilities["sampling"] = {}  # SAMP-05, AR-05
            if self.sampling_tools and lifecycle.since(newest, "2025-11-25"):
                capabilities["sampling"]["tools"] = {}  # revisions/v2025_11_25.py, item 3
        capabilities.update(self._elicitation_capability(newest))  # a page of 2025-06-18 (revisions/elicitation.py)
        return capabilities

    def set_roots(self, roots: roots_.Roots) -> None:
        """Replace the roots and tell the server (``notifications/roots/list_changed``, ROOT-02)."""
        if self._roots is None:
            raise ValueError("this client declared no roots capability; pass roots= when connecting")
        self._roots = roots_.check_roots(roots) if isinstance(roots, list) else roots
        if self._session.lifecycle.capabilities.get("roots", {}).get("listChanged"):  # ROOT-02, ROOT-22
            self.notify("notifications/roots/list_changed")

    def close(self) -> None:
        """Close the connection (and shut a spawned server down: LC-16 to LC-18)."""
        lifetime.untrack(self)
        self._session.close("the client closed the connection")

    @property
    def is_closed(self) -> bool:
        return self._session.is_closed

    def __del__(self) -> None:
        session: Session | None = getattr(self, "_session", None)
        if session is not None and not session.is_closed:  # (None: __init__ failed before the session)
            lifetime.close_forgotten(self, session.close)  # LC-16: its server is shut down; a ResourceWarning

    def __repr__(self) -> str:
        name = (self.server_info or {}).get("name") if hasattr(self, "_session") else None
        return f"<mcp_ref.Client server={name!r}>" if name else "<mcp_ref.Client>"

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- what initialization told us ------------------------------------------------------------

    @property
    def protocol_version(self) -> str | None:
        return self._session.lifecycle.protocol_version

    @property
    def server_info(self) -> dict[str, Any] | None:
        return self._session.lifecycle.peer_info

    @property
    def server_capabilities(self) -> dict[str, Any]:
        return self._session.lifecycle.peer_capabilities

    @property
    def instructions(self) -> str | None:
        return self._session.lifecycle.instructions  # LC-27: for the host to put in its system prompt

    @property
    def session(self) -> Session:
        return self._session

    # --- requests and notifications -------------------------------------------------------------

    def request(
        self, method: str, params: dict[str, Any] | None = None, *,
        timeout: float | None = None, on_progress: ProgressCallback | None = None,
    ) -> dict[str, Any]:
        """Send any request; return its result as on the wire, or raise ``McpError``. With a server of
        2026-07-28, its ``_meta`` and its rounds of input are revisions/stateless_client.py's (the
        methods that revision took away: revisions/client_subscriptions.py)."""
        if self._session.lifecycle.protocol_version in lifecycle.STATELESS_REVISIONS:  # (no probe, no handshake)
            return client_subscriptions.request(self, method, params, timeout=timeout, on_progress=on_progress)
        return self._session.request(method, params, timeout=timeout, on_progress=on_progress)

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send any notification."""
        self._session.notify(method, params)

    def ping(self, *, timeout: float | None = None) -> None:
        """Check that the server answers (PING-01); raise ``RequestTimeout`` if it does not."""
        self.request("ping", timeout=timeout)

    # --- dispatch of what the server sends --------------------------------------------------------

    def _knows_method(self, method: str) -> bool:
        return method in self.request_handlers

    def _handle_request(self, ctx: RequestContext) -> dict[str, Any]:
        handler = self.request_handlers.get(ctx.method)
        if handler is None:
            raise MethodNotFound(f"Method not found: {ctx.method}")
        return handler(ctx)

    def _handle_notification(self, session: Session, method: str, params: dict[str, Any]) -> None:
        handler = self.notification_handlers.get(method)
        if handler is not None:
            handler(params)
        elif self._on_notification is not None:  # everything without a callback of its own
            self._on_notification(method, params)

    # --- server features (server/tools, resources, prompts, utilities) ----------------------------

    def _require(self, capability: str, flag: str | None = None, *, method: str) -> None:
        """AR-01, LC-15: refuse locally, with no round trip, what the server did not declare."""
        declared = self.server_capabilities.get(capability)
        # AR-01, LC-15
        # LC-21, PRM-12: a capability the server lacks fails here, clearly
        if not isinstance(declared, dict) or (flag is not None and not declared.get(flag)):
            what = capability + (f".{flag}" if flag else "")
            raise MethodNotFound(f"the server did not declare the {what!r} capability, so it does not support {method}")

    def _list(self, method: str, field: str, timeout: float | None) -> list[dict[str, Any]]:
        return pagination.list_all(lambda m, p: self.request(m, p, timeout=timeout), method, field)

    def list_tools(self, *, timeout: float | None = None) -> list[dict[str, Any]]:
        """Every tool, across all pages (server/tools). ``timeout`` (default: the client's) bounds
        each page's request, as it does for every list method."""
        self._require("tools", method="tools/list")
        tools = param_headers.listed(self.session, self._list("tools/list", "tools", timeout))  # MPARAM-04
        self._output_validators = structured_output.remember(tools, self.protocol_version)
        return tools

    def call_tool(self, name: str, arguments: dict[str, Any] | None = None, *,
                  timeout: float | None = None, on_progress: ProgressCallback | None = None) -> dict[str, Any]:
        """Call a tool; returns the ``CallToolResult`` dict. A tool that failed comes back with
        ``isError: true`` (it is not raised); an unknown tool or bad arguments raise InvalidParams
        (from 2025-11-25, bad arguments come back as an ``isError`` result). The result of a tool
        listed with an ``outputSchema`` is checked: ``InvalidStructuredContent`` if it breaks it."""
        self._require("tools", method="tools/call")
        # TOOL-15: the call gives up after ``timeout`` (default: the client's), and cancels
        result = self.request("tools/call", tools.call_tool_params(name, arguments), timeout=timeout,
                              on_progress=on_progress)
        if name in self._output_validators:  # revisions/v2025_06_18.py, item 2: a SHOULD of the client
            return structured_output.check(name, result, self._output_validators[name])
        return result

    def list_resources(self, *, timeout: float | None = None) -> list[dict[str, Any]]:
        """Every resource, across all pages (server/resources)."""
        self._require("resources", method="resources/list")
        return self._list("resources/list", "resources", timeout)

    def list_resource_templates(self, *, timeout: float | None = None) -> list[dict[str, Any]]:
        """Every resource template, across all pages."""
        self._require("resources", method="resources/templates/list")
        return self._list("resources/templates/list", "resourceTemplates", timeout)

    def read_resource(self, uri: str, *, timeout: float | None = None) -> dict[str, Any]:
        """Read a resource; returns ``{"contents": [...]}``. Unknown URI: ResourceNotFound (-32002)."""
        self._require("resources", method="resources/read")
        return self.request("resources/read", {"uri": uri}, timeout=timeout)

    def subscribe_resource(self, uri: str, *, timeout: float | None = None) -> None:
        """Ask for ``notifications/resources/updated`` about ``uri`` (see ``on_resource_updated``)."""
        self._require("resources", "subscribe", method="resources/subscribe")
        self.request("resources/subscribe", {"uri": uri}, timeout=timeout)

    def unsubscribe_resource(self, uri: str, *, timeout: float | None = None) -> None:
        self._require("resources", "subscribe", method="resources/unsubscribe")
        self.request("resources/unsubscribe", {"uri": uri}, timeout=timeout)

    def list_prompts(self, *, timeout: float | None = None) -> list[dict[str, Any]]:
        """Every prompt, across all pages (server/prompts)."""
        self._require("prompts", method="prompts/list")
        return self._list("prompts/list", "prompts", timeout)  # PRM-11: every page

    def get_prompt(self, name: str, arguments: dict[str, str] | None = None, *,
                   timeout: float | None = None) -> dict[str, Any]:
        """Get a prompt's messages; returns ``{"description"?, "messages": [...]}``."""
        self._require("prompts", method="prompts/get")
        return self.request("prompts/get", prompts.get_prompt_params(name, arguments), timeout=timeout)

    def complete(self, ref: dict[str, Any], argument: dict[str, Any], *, context: dict[str, str] | None = None,
                 timeout: float | None = None) -> dict[str, Any]:
        """Ask for completions: ``ref`` is ``{"type": "ref/prompt", "name"}`` or
        ``{"type": "ref/resource", "uri"}``, ``argument`` is ``{"name", "value"}``. Returns
        ``{"completion": {"values", "total"?, "hasMore"?}}``. No capability gates this in 2024-11-05;
        from 2025-03-26 on the server must declare ``completions``. ``context`` (the values of the
        arguments already chosen, ``{"language": "python"}``) goes to servers of 2025-06-18 and later,
        and is left out for older ones."""
        params: dict[str, Any] = {"ref": ref, "argument": argument}
        if lifecycle.since(self.protocol_version, "2025-03-26"):  # revisions/v2025_03_26.py, item 3
            self._require("completions", method="completion/complete")
        if context is not None and lifecycle.since(self.protocol_version, "2025-06-18"):
            params["context"] = {"arguments": dict(context)}  # revisions/v2025_06_18.py: completion context
        return self.request("completion/complete", params, timeout=timeout)

    def set_logging_level(self, level: str, *, timeout: float | None = None) -> None:
        """Ask for log messages at ``level`` and above (see ``on_log_message``)."""
        self._require("logging", method="logging/setLevel")
        self.request("logging/setLevel", {"level": level}, timeout=timeout)


def _gone(*args: Any) -> Any:
    raise ConnectionClosed("the client is gone")
