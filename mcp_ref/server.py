"""Server: the server side of MCP, composed from the section modules, with ONE dispatch table.

Spec page: server
The overview of server features, and the server's part of basic/lifecycle (initialization).
https://modelcontextprotocol.io/specification/2024-11-05/server

In short:

1. A ``Server`` holds what its author registered (tools, resources, prompts, completers) and
   serves any number of sessions, one per connected client, over stdio (``serve_stdio``) or
   any other transport (``open_session``).
2. Every request a client can send is listed in ``Server.request_handlers``: method string ->
   handler. That table *is* the server's protocol; a method missing from it is answered -32601
   in every phase.
3. Before a handler runs, the lifecycle gate checks the session's phase (lifecycle.py), and
   ``REQUIRED_CAPABILITY`` checks that the method belongs to a capability this server
   declared to this client (AR-01, AR-02).
4. The capabilities sent in the ``initialize`` result are computed from what is registered, so
   the server never advertises what it cannot do, nor serves what it did not advertise.
5. Changes while clients are connected are announced: adding or removing a tool, resource or
   prompt sends ``list_changed`` to every session that was told ``listChanged``;
   ``notify_resource_updated(uri)`` tells the sessions subscribed to that URI.
"""

from __future__ import annotations

import logging
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from . import lifecycle, logs, ping, sampling, stdio
from . import roots as roots_
from . import session as engine
from .completion import CompletionRegistry
from .functions.decorators import Decorators
from .lifecycle import Phase
from .machinery.ratelimit import take_token
from .machinery.threads.pool import checked_max_running
from .machinery.transport import Transport
from .messages import McpError, MethodNotFound
from .pagination import DEFAULT_PAGE_SIZE
from .prompts import PromptRegistry
from .resources import ResourceRegistry
from .revisions import batches, elicitation, stateless, subscriptions
from .session import DEFAULT_MAX_RUNNING, Session, TraceCallback
from .tools import ToolRegistry

if TYPE_CHECKING:
    from .sse import SseHttpServer
    from .streamable_http.both import HttpApp

log = logging.getLogger("mcp_ref.server")

Handler = Callable[["RequestContext"], dict[str, Any]]
F = TypeVar("F", bound=Callable[..., Any])

# Which declared capability each request needs: (capability, sub-flag or None).
REQUIRED_CAPABILITY: dict[str, tuple[str, str | None]] = {
    "tools/list": ("tools", None),  # TOOL-05, AR-04
    "tools/call": ("tools", None),
    "resources/list": ("resources", None),  # RES-01
    "resources/templates/list": ("resources", None),
    "resources/read": ("resources", None),
    "resources/subscribe": ("resources", "subscribe"),  # AR-03
    "resources/unsubscribe": ("resources", "subscribe"),
    "prompts/list": ("prompts", None),  # PRM-01, PRM-12
    "prompts/get": ("prompts", None),
    "logging/setLevel": ("logging", None),  # LOG-01
    # completion/complete: 2024-11-05 defines no capability (see completion.py); from 2025-03-26
    # on, the session's revision gates it by one (LATER_CAPABILITY below)
}
# Requests a later revision put behind a capability: method -> (capability, the revision).
LATER_CAPABILITY: dict[str, tuple[str, str]] = {
    "completion/complete": ("completions", "2025-03-26"),  # revisions/v2025_03_26.py, item 3
}


class RequestContext(engine.RequestContext, elicitation.Eliciting):
    """What a server's handler gets as ``ctx``: the engine's request context (``params``,
    ``is_cancelled``, ``report_progress``, ``request``...; session.py), and the helpers through which
    the server's features talk to its client, each provided by its page: log messages (logs.py),
    sampling (sampling.py), roots (roots.py) and elicitation (``ctx.elicit``, ``ctx.elicit_url``:
    revisions/elicitation.py, a page of 2025-06-18)."""

    def log(self, level: str, data: Any, logger: str | None = None) -> bool:
        """Send the client a log message if ``level`` passes the threshold it set; whether it was sent."""
        return logs.send_log(self.session, level, data, logger)

    def create_message(
        self, messages: list[Any], max_tokens: int, *, system_prompt: str | None = None,
        include_context: str | None = None, temperature: float | None = None,
        stop_sequences: list[str] | None = None, model_preferences: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None, tools: list[dict[str, Any]] | None = None,
        tool_choice: str | dict[str, Any] | None = None, timeout: float | None = None,
    ) -> dict[str, Any]:
        """Ask the client's model and return its result dict. ``messages`` are message dicts or plain
        strings (user text); options left as None are not sent. Raises ``McpError`` without sending
        anything if the client did not declare ``sampling``. ``tools`` (tool dicts, as in
        ``tools/list``) and ``tool_choice`` (``"auto"``, ``"required"``, ``"none"``) go only to a
        client of 2025-11-25 that declared ``sampling.tools``: ``McpError`` otherwise, nothing sent."""
        return sampling.create_message(
            self.session, messages, max_tokens, timeout=timeout, system_prompt=system_prompt,
            include_context=include_context, temperature=temperature, stop_sequences=stop_sequences,
            model_preferences=model_preferences, metadata=metadata, tools=tools, tool_choice=tool_choice)

    def list_roots(self, *, timeout: float | None = None) -> list[dict[str, Any]]:
        """The client's roots, or ``McpError`` if it declared none."""
        return roots_.list_roots(self.session, timeout=timeout)

    @property
    def protocol_version(self) -> str | None:
        """The revision this session agreed on in ``initialize`` (``"2025-11-25"``, say)."""
        return self.session.lifecycle.protocol_version


class Server(Decorators):
    """An MCP server. ``Server("name", version="1.0", instructions="...")``.

    ``page_size`` is the number of items per page of every list method (None: no paging).
    ``logging=False`` leaves out the ``logging`` capability (and ``ctx.log`` then sends nothing
    the client could have asked for). ``rate_limits`` maps a method (``"tools/call"``,
    ``"completion/complete"``, ...) to ``(per_second, burst)``: each session gets its own token
    bucket, and requests beyond it are answered -32010 (see ratelimit.py; TOOL-10, CMP-09).
    ``max_running`` is how many of one session's requests run at once (machinery/threads/pool.py;
    more wait their turn, and beyond the queue a request is answered -32603 "Server busy").
    ``max_workers=`` is its old name, still taken with a DeprecationWarning.
    ``protocol_versions`` are the revisions it will agree to (default: every one mcp_ref speaks,
    2024-11-05 to 2026-07-28); a client of the handshake gets the newest both speak (lifecycle.py,
    LC-12), a request of 2026-07-28 is served on its own (revisions/stateless.py).
    ``title`` (a name for people, 2025-06-18), ``description``, ``website_url`` and ``icons`` (a list
    of ``{"src", "mimeType"?, "sizes"?}``, 2025-11-25) join ``serverInfo`` for clients of those revisions.
    """

    tools: ToolRegistry  # what it serves: each registry holds the functions registered (functions/decorators.py)
    resources: ResourceRegistry
    prompts: PromptRegistry
    completions: CompletionRegistry

    def __init__(self, name: str, version: str = "0.1.0", instructions: str | None = None, *,
                 page_size: int | None = DEFAULT_PAGE_SIZE, logging: bool = True,
                 rate_limits: dict[str, tuple[float, int]] | None = None,
                 max_running: int = DEFAULT_MAX_RUNNING, max_workers: int | None = None,
                 protocol_versions: Sequence[str] | None = None, title: str | None = None,
                 description: str | None = None, website_url: str | None = None,
                 icons: list[dict[str, Any]] | None = None):
        self.name = name
        later = {"title": title, "description": description, "websiteUrl": website_url, "icons": icons}
        for key, value in later.items():
            if value is not None and not isinstance(value, list if key == "icons" else str):
                raise TypeError(f"Server({key}=) must be {'a list of icon dicts' if key == 'icons' else 'a str'}, not {value!r}")
        from .functions.registry import check_later_fields  # the check of @server.tool(icons=): https: or data: only
        check_later_fields("Server(icons=)", None, icons, None)  # SCHEMA-13, as for a tool's icons
        self.later_info = {key: value for key, value in later.items() if value is not None}  # serverInfo's later fields
        self.protocol_versions = (tuple(reversed(lifecycle.ALL_REVISIONS)) if protocol_versions is None
                                  else lifecycle.checked_versions(protocol_versions))
        self.version = version
        self.instructions = instructions
        self.page_size = page_size
        self.logging = logging
        if max_workers is not None:  # the old name, from before there was a pool to name
            warnings.warn("Server(max_workers=) is now Server(max_running=): how many requests of a session run at "
                          "once", DeprecationWarning, stacklevel=2)
            max_running = max_workers
        self.max_running = checked_max_running(max_running)  # wrong here, not when a client comes
        self.rate_limits = dict(rate_limits or {})
        self._sessions: set[Session] = set()
        self._sessions_lock = threading.Lock()
        self.tools = ToolRegistry(lambda: self._list_changed("tools"))
        self.resources = ResourceRegistry(lambda: self._list_changed("resources"))
        self.prompts = PromptRegistry(lambda: self._list_changed("prompts"))
        self.completions = CompletionRegistry()
        # The whole protocol a client can speak to this server. (Cancellation and progress
        # notifications are handled by the session engine itself, see session.py.)
        self.request_handlers: dict[str, Handler] = {
            "initialize": self._initialize,  # basic/lifecycle
            "ping": ping.answer,  # basic/utilities/ping
            "tools/list": lambda ctx: self.tools.page(ctx.params, self.page_size, _version(ctx)),  # server/tools
            "tools/call": lambda ctx: self.tools.call(ctx, ctx.params),
            "resources/list": lambda ctx: self.resources.page(ctx.params, self.page_size,  # server/resources
                                                              version=_version(ctx)),
            "resources/templates/list": lambda ctx: self.resources.page(ctx.params, self.page_size, templates=True,
                                                                        version=_version(ctx)),
            "resources/read": lambda ctx: self.resources.read(ctx, ctx.params),
            "resources/subscribe": lambda ctx: self.resources.subscribe(ctx.session, ctx.params),
            "resources/unsubscribe": lambda ctx: self.resources.unsubscribe(ctx.session, ctx.params),
            "prompts/list": lambda ctx: self.prompts.page(ctx.params, self.page_size, _version(ctx)),  # server/prompts
            "prompts/get": lambda ctx: self.prompts.get(ctx, ctx.params),
            "logging/setLevel": lambda ctx: logs.set_level(ctx.session, ctx.params),  # utilities/logging
            "completion/complete": lambda ctx: self.completions.complete(  # utilities/completion
                ctx, ctx.params, self._known_refs),
        }
        self.notification_handlers: dict[str, Callable[[Session, dict[str, Any]], None]] = {
            "notifications/initialized": lambda session, params: lifecycle.accept_initialized(session.lifecycle),
            "notifications/roots/list_changed": self._roots_changed,  # client/roots
        }
        self._roots_callbacks: list[Callable[[RequestContext], None]] = []

    # --- registering features: the decorators (@server.tool, ...) are in functions/decorators.py ---

    def _roots_changed(self, session: Session, params: dict[str, Any]) -> None:
        for callback in self._roots_callbacks:  # ROOT-22: off the reading thread, so it may ask roots/list again
            ctx = RequestContext(session, None, "notifications/roots/list_changed", params)
            session.run_in_background(callback, ctx)

    def _known_refs(self, ref_type: str) -> list[str]:
        if ref_type == "ref/prompt":
            return self.prompts.keys()
        return self.resources.templates.keys() + self.resources.concrete.keys()

    # --- capabilities and lifecycle -----------------------------------------------------------

    def capabilities(self, version: str | None = None) -> dict[str, Any]:
        """The ``capabilities`` object of the initialize result, from what is registered (AR-02),
        for a session of revision ``version`` (None: the base, 2024-11-05)."""
        # AR-02, BASE-02
        # LC-02: every feature registered is declared, and only those
        capabilities: dict[str, Any] = {}
        if self.logging:
            capabilities["logging"] = {}  # LOG-01
        if self.prompts:
            capabilities["prompts"] = {"listChanged": True}  # PRM-01
        if self.resources:
            capabilities["resources"] = {"subscribe": True, "listChanged": True}  # RES-01
        if self.tools:
            capabilities["tools"] = {"listChanged": True}  # TOOL-05
        if lifecycle.since(version, "2025-03-26") and (self.prompts or self.resources):
            capabilities["completions"] = {}  # CMPL-01: from 2025-03-26, a server that completes says so
        return capabilities

    def _initialize(self, ctx: RequestContext) -> dict[str, Any]:
        state = ctx.session.lifecycle
        version = lifecycle.accept_initialize(state, ctx.params, self.protocol_versions)
        state.capabilities = self.capabilities(version)  # LC-15: fixed for the session from here on
        if version == batches.REVISION:  # the one revision whose messages may come as a JSON array
            ctx.session.on_batch = batches.receive_batch
        info = lifecycle.implementation_info({"name": self.name, "version": self.version, **self.later_info}, version)
        return lifecycle.initialize_result(version, state.capabilities, info, self.instructions)  # LC-07, LC-03

    # --- dispatch -----------------------------------------------------------------------------

    def _handle_request(self, request: engine.RequestContext) -> dict[str, Any]:
        ctx = cast(RequestContext, request)  # open_session has the session make ours
        if ctx.session.lifecycle.phase is Phase.AWAITING_INITIALIZE and "2026-07-28" in self.protocol_versions:
            answered = stateless.serve(self, ctx)  # no handshake yet: a request of 2026-07-28 is served alone,
            if answered is not None:  # back through here with a view of its own (revisions/stateless.py)
                return answered
        handler = self.request_handlers.get(ctx.method)
        if handler is None:  # in every phase, so probes such as server/discover fail fast
            raise MethodNotFound(f"Method not found: {ctx.method}")
        ctx.session.lifecycle.gate(ctx.method)  # LC-01: nothing but initialize and ping comes first
        required = REQUIRED_CAPABILITY.get(ctx.method)
        if required is None and ctx.method in LATER_CAPABILITY:  # a later revision's gate, if this session speaks it
            needed, revision = LATER_CAPABILITY[ctx.method]
            required = (needed, None) if lifecycle.since(ctx.session.lifecycle.protocol_version, revision) else None
        # LC-15, LC-21: serve only what this client was told we support
        if required is not None:  # AR-01
            capability = ctx.session.lifecycle.capabilities.get(required[0])
            if capability is None or (required[1] is not None and not capability.get(required[1])):
                what = required[0] + (f".{required[1]}" if required[1] else "")
                raise MethodNotFound(f"Method not found: {ctx.method} (this server did not declare {what})")
        if ctx.method in self.rate_limits:  # TOOL-10, CMP-09: a bucket per session and method
            take_token(ctx.session.state, ctx.method, self.rate_limits)
        return handler(ctx)

    def _handle_notification(self, session: Session, method: str, params: dict[str, Any]) -> None:
        handler = self.notification_handlers.get(method)
        if handler is not None:  # unknown notifications are ignored, as JSON-RPC expects
            handler(session, params)

    # --- telling clients about changes ------------------------------------------------------------

    def _operating_sessions(self) -> list[Session]:
        return [s for s in self.sessions if s.lifecycle.phase is Phase.OPERATING and not s.is_closed]

    def _list_changed(self, feature: str) -> None:
        """TOOL-06, RES-02, PRM-02: tell every session that was promised ``listChanged``."""
        for session in self._operating_sessions():
            if session.lifecycle.capabilities.get(feature, {}).get("listChanged"):
                self._notify_quietly(session, f"notifications/{feature}/list_changed")
        subscriptions.changed(self, f"notifications/{feature}/list_changed")  # and 2026-07-28's listeners

    def notify_resource_updated(self, uri: str) -> int:
        """Send ``notifications/resources/updated`` to the sessions subscribed to ``uri`` (RES-13).
        Returns how many were told."""
        told = subscriptions.changed(self, "notifications/resources/updated", {"uri": uri})  # 2026-07-28's listeners
        for session in self.resources.subscribers(uri):  # RES-13: the subscribed sessions only
            if not session.is_closed:
                told += self._notify_quietly(session, "notifications/resources/updated", {"uri": uri})
        return told

    def log_handler(self, level: int = logging.NOTSET) -> logs.ClientLogHandler:
        """A ``logging.Handler`` that forwards Python log records to every connected client."""
        return logs.ClientLogHandler(self._operating_sessions, level)

    @staticmethod
    def _notify_quietly(session: Session, method: str, params: dict[str, Any] | None = None) -> bool:
        try:
            session.notify(method, params)
            return True
        except McpError:
            return False  # it closed meanwhile

    # --- sessions -----------------------------------------------------------------------------

    def open_session(self, transport: Transport, *, trace: TraceCallback | None = None) -> Session:
        """A new session of this server on ``transport``; call ``.start()`` on it."""
        session = Session(  # TR-12, TR-13: any transport, the same engine and lifecycle
            transport,
            on_request=self._handle_request,
            on_notification=self._handle_notification,
            # Lifecycle messages and ping run on the reader thread, in the order they arrived,
            # so the phase machine sees initialize before initialized whatever the scheduling.
            inline_methods=frozenset({"initialize", "ping"}),  # PING-12: a ping never waits for a busy thread
            knows_method=self.request_handlers.__contains__,
            context=RequestContext,  # every handler's ctx is one of ours, with the helpers above
            max_running=self.max_running,
            trace=trace,
            name=f"{self.name}-session",
        )
        with self._sessions_lock:
            self._sessions.add(session)
        session.on_close(self._forget_session)
        return session

    def _forget_session(self, session: Session) -> None:
        with self._sessions_lock:
            self._sessions.discard(session)
        self.resources.forget_session(session)

    @property
    def sessions(self) -> list[Session]:
        """The sessions currently open, in no particular order."""
        with self._sessions_lock:
            return list(self._sessions)

    def stats(self) -> dict[str, Any]:
        """What this server holds now, for an operator (``mcp-ref serve --stats``): its sessions by
        transport, the event streams open, the subscriptions, the messages and bytes queued for
        clients, the requests running (and of its own, waiting for answers), the process's threads."""
        totals: dict[str, Any] = {"sessions": {}, "streams": 0, "subscriptions": self.resources.subscription_count(),
                                  "queued_messages": 0, "queued_bytes": 0, "requests_running": 0,
                                  "requests_waiting_for_answers": 0, "threads": threading.active_count()}
        for session in self.sessions:
            held = session.stats()
            kind = held.pop("kind", "other")
            totals["sessions"][kind] = totals["sessions"].get(kind, 0) + 1
            for name in ("streams", "queued_messages", "queued_bytes", "requests_running", "requests_waiting_for_answers"):
                totals[name] += held.get(name, 0)
        return totals

    def wsgi_app(self, **options: Any) -> HttpApp:
        """This server as a WSGI application speaking both HTTP transports (streamable_http/both.py):
        Streamable HTTP at ``/mcp`` (``mcp_path``, and ``streamable_options`` for its own limits)
        and HTTP with SSE at ``/sse`` and ``/messages/`` (see sse.SseApp for options:
        ``sse_path``, ``message_path``, ``allowed_hosts``, ``allowed_origins``, and the limits
        ``max_body_bytes``, ``max_streams``, ``max_queued``, ``max_queued_bytes``, ``keepalive``,
        and ``relay``).
        Run it under any *threaded* WSGI server: each event stream holds a thread. With
        ``relay="redis://HOST:PORT/DB"`` (the redis package; in a checkout,
        ``.venv/bin/pip install -e '.[redis]'``) it may run in several processes and on several
        hosts at once (gunicorn ``-w 4 -k gthread``): see scaleout/relay.py."""
        from .streamable_http.both import HttpApp

        return HttpApp(self, **options)

    def sse_server(self, host: str = "127.0.0.1", port: int = 0, *, request_timeout: float | None = None,
                   write_timeout: float | None = None, **options: Any) -> SseHttpServer:
        """Serve HTTP with SSE in a background thread; use as a context manager (``.url``, ``.close()``).
        ``request_timeout`` and ``write_timeout`` bound slow clients (see http/werkzeug_server.py; None:
        the defaults); other options go to ``wsgi_app``."""
        from .sse import SseHttpServer

        return SseHttpServer(self.wsgi_app(**options), host, port, request_timeout=request_timeout,
                             write_timeout=write_timeout).start()

    def serve_sse(self, host: str = "127.0.0.1", port: int = 8000, *, log_requests: bool = True,
                  on_ready: Callable[[str], None] | None = None, request_timeout: float | None = None,
                  write_timeout: float | None = None, **options: Any) -> None:
        """Serve HTTP with SSE on werkzeug's threaded server until interrupted (TR-07: localhost
        by default). ``on_ready(url)`` is called once the port is bound. Options as for
        ``sse_server``."""
        from .sse import SseHttpServer

        http = SseHttpServer(self.wsgi_app(**options), host, port, log_requests=log_requests,
                             request_timeout=request_timeout, write_timeout=write_timeout)
        if on_ready is not None:
            on_ready(http.url)
        try:
            http.serve_forever()
        except KeyboardInterrupt:
            pass

    def serve_http(self, host: str = "127.0.0.1", port: int = 8000, *, on_ready: Callable[[str], None] | None = None,
                   **options: Any) -> None:
        """Serve Streamable HTTP at ``/mcp`` (and HTTP with SSE at ``/sse``: the same application,
        see ``wsgi_app``) until interrupted; ``on_ready(url)`` gets the ``/mcp`` URL. Other options
        as for ``serve_sse``."""
        def ready(url: str) -> None:
            if on_ready is not None:
                on_ready(url.rsplit("/", 1)[0] + options.get("mcp_path", "/mcp"))

        self.serve_sse(host, port, on_ready=ready, **options)  # SHTTP-07: localhost unless told otherwise

    def serve_stdio(self, *, max_line_bytes: int = stdio.MAX_LINE_BYTES, trace: TraceCallback | None = None) -> None:
        """Serve one client on this process's stdin/stdout (stdio.own_stdio); return when stdin closes
        (LC-19), or when the session ends otherwise (its output is then closed, so the client sees the
        end too). A line longer than ``max_line_bytes`` is discarded and answered -32600."""
        session = self.open_session(stdio.own_stdio(max_line_bytes=max_line_bytes), trace=trace)
        session.start()  # on a thread of the session: a read stuck on stdin cannot hold us here
        try:
            session.closed.wait()  # LC-19: done at end of stdin, or when the session ends
        except KeyboardInterrupt:
            session.close("interrupted")


def _version(ctx: RequestContext) -> str | None:
    """The revision the session of ``ctx`` agreed on: what its lists may carry."""
    return ctx.session.lifecycle.protocol_version
