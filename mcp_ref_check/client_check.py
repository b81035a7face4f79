"""Checking a client: the kit's checking server, what it records, and the probes it sends.

Not a spec section: the checker's runner for ``mcp-ref check client -- CMD ARGS...``.

1. The kit opens a *link* for the client to reach: over stdio, a local socket that stdio_relay.py
   (the command put in place of ``{server}``) connects back to; over SSE, a small HTTP server on
   127.0.0.1 whose URL replaces ``{server}``. Every byte the client sends is recorded.
2. The *checking server* speaks MCP on the link: it answers initialize (with the client's
   proposal when it is one of the revisions it speaks, else the newest; ``--protocol-version``
   pins one: revisions.answer_to), with tools, prompts and logging, and without resources; ping,
   the tools and prompts methods, setLevel and completion, and -32601 for anything else. The
   client cases grade at the version it answered.
3. Once the client has sent ``notifications/initialized`` the server *probes* it: a ping, a
   request for a method no client has (-32601 expected), roots/list and sampling/createMessage
   if the client declared them, a form-mode elicitation/create if it declared elicitation with
   form mode in a session of 2025-06-18 or later (``revisions.elicitation_modes``: from 2025-11-25
   an empty object or one naming form; a client that declared URL mode alone is not sent it, since
   a server must not use a mode the client did not declare, ELICU-04, and the probe is a form:
   ``ClientSession.unprobed`` says why), a log message and list_changed notifications, and a
   last ping.
   The answer to the client's first request after initialization waits for the probes (each
   bounded by the step timeout), so a short-lived client stays long enough to be probed.
4. The client runs until it exits (at most ``run_timeout``); the client cases then judge the
   recorded session (client_cases.py).
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .client_links import SseLink, StdioLink
from .client_stateless_server import checking_server
from .model import Recorder
from .revisions import ID, LATEST, answer_to, elicitation_modes, since
from .shapes import as_dict, json_text
from .wire import CLIENTS, Incoming, WaitTimeout, encode

MAX_FROM_CLIENT = 10000  # messages from the client kept for the cases

if TYPE_CHECKING:
    from .http_wire import StreamableHttpLink

PROBES = 7  # requests the checking server may send the client (see CheckingServer._probe)
SERVER_INFO = {"name": "mcp-ref-check", "version": "0.1.0"}
# What the checking server declares: no resources, so a client that lists them anyway is using a
# capability that was never negotiated (LC-15).
SERVER_CAPABILITIES: dict[str, Any] = {"tools": {"listChanged": True}, "prompts": {"listChanged": True}, "logging": {}}


def server_capabilities(version: str) -> dict[str, Any]:
    """What the checking server declares in a session of ``version``: from 2025-03-26 it declares
    completions too, since it answers completion/complete (that capability gates it there)."""
    return {**SERVER_CAPABILITIES, "completions": {}} if since(version, "2025-03-26") else dict(SERVER_CAPABILITIES)
ECHO_TOOL = {"name": "echo", "description": "Returns its text argument.",
             "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}
# The checking server's elicitation probe (2025-06-18): a form, a flat object of primitive properties
# (``elicitation_probe`` adds the mode from 2025-11-25).
ELICITATION = {"message": "A conformance probe: any answer will do (decline is fine).",
               "requestedSchema": {"type": "object", "properties": {"name": {"type": "string", "title": "Name"}},
                                   "required": ["name"]}}


def elicitation_probe(capability: Any, version: str) -> tuple[dict[str, Any] | None, str | None]:
    """The elicitation/create params the checking server probes a client with, given the
    ``elicitation`` capability it declared and the version the two agreed on, or (None, why not):
    the form of ELICITATION, only to a client that takes form mode (ELICU-04: no request in a mode
    the client did not declare), saying ``mode: "form"`` from 2025-11-25 (ELICU-05 lets it be left
    out, but a server that names its mode is the plainer example)."""
    if not since(version, "2025-06-18"):
        return None, f"elicitation came with 2025-06-18; the session agreed on {version}"
    if not isinstance(capability, dict):
        return None, "the client does not declare elicitation"
    modes = elicitation_modes(capability, version)
    if "form" not in modes:
        return None, (f"the client declared elicitation {json_text(capability)}: in {version}, "
                      f"{' and '.join(sorted(modes))} mode only, and a server must not send a request in a mode the "
                      f"client did not declare ({ID['elicit-modes']}); the kit's probe is a form, so it was not sent")
    return ({"mode": "form", **ELICITATION} if since(version, "2025-11-25") else dict(ELICITATION)), None


HELLO_PROMPT = {"name": "hello", "description": "Say hello.", "arguments": [{"name": "name", "required": False}]}


class SetupFailed(Exception):
    """The client could not be run, or never connected (exit status 2)."""


UNSUPPORTED_VERSION = "1999-01-01"  # what the checking server answers in the second run (LC-26)


@dataclass
class ClientOptions:
    timeout: float = 5.0  # seconds per step
    run_timeout: float = 30.0  # seconds the client may run in all
    sse: bool = False
    only: list[str] = field(default_factory=list)
    http: bool = False  # serve Streamable HTTP (http_wire.py)
    version_run: bool = True  # run the client a second time against a server answering UNSUPPORTED_VERSION
    protocol_version: str | None = None  # --protocol-version: the checking server speaks this one alone

    @property
    def version_run_timeout(self) -> float:
        """The second run is short: a client that does not disconnect has had its chance by then."""
        return min(self.run_timeout, max(10.0, 2 * self.timeout))


# --- the record of a client session ---------------------------------------------------------------


@dataclass
class Probe:
    """A request the checking server sent the client, and its answer."""

    name: str
    sent: str
    request_id: Any
    reply: dict[str, Any] | None = None
    got: str | None = None
    gone: bool = False  # the client disconnected before answering


@dataclass
class ClientSession:
    """Everything the checking server saw, for the client cases to judge."""

    transport: str
    link: Any = None
    from_client: list[Incoming] = field(default_factory=list)
    client_init: dict[str, Any] | None = None
    init_answered_at: int | None = None  # transcript index of our initialize result
    probes: dict[str, Probe] = field(default_factory=dict)
    probe_order: list[str] = field(default_factory=list)
    unprobed: dict[str, str] = field(default_factory=dict)  # probes the client's capabilities kept us from, and why
    notifications_sent: list[str] = field(default_factory=list)
    exit_code: int | None = None
    killed_by_kit: bool = False
    stderr_tail: deque[str] = field(default_factory=lambda: deque(maxlen=20))
    version: str = LATEST  # what the checking server answered initialize with (revisions.answer_to)
    pinned: str | None = None  # --protocol-version: the one version the checking server speaks
    version_run: ClientSession | None = None  # the second run, against UNSUPPORTED_VERSION (LC-26)
    ended_at: float | None = None  # seconds after our initialize result when the client let go of the link
    # 2026-07-28 (--protocol-version 2026-07-28): each request of the client and the answer it got,
    # in order (client_stateless_server.py); the client cases of that revision judge them.
    exchanges: list[tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=list)

    @property
    def client_info(self) -> dict[str, Any] | None:
        info = (self.client_init or {}).get("clientInfo")
        return info if isinstance(info, dict) else None

    @property
    def client_capabilities(self) -> dict[str, Any]:
        caps = (self.client_init or {}).get("capabilities")
        return caps if isinstance(caps, dict) else {}

    @property
    def proposed_version(self) -> Any:
        return (self.client_init or {}).get("protocolVersion")

    def messages(self) -> list[dict[str, Any]]:
        return [e.as_dict() for e in self.link.sent_and_received()] if self.link is not None else []


class CheckingServer:
    """The MCP server the client under test talks to; it records, answers and probes."""

    def __init__(self, link: Any, session: ClientSession, timeout: float, *, probing: bool = True) -> None:
        self.link = link
        self.s = session
        self.timeout = timeout
        self.probing = probing
        self.answered_init_at: float | None = None
        self._pending: dict[str, tuple[threading.Event, Probe]] = {}
        self._lock = threading.Lock()
        self.probes_done = threading.Event()
        self.prober: threading.Thread | None = None
        self._closed = False  # the client is gone: probes are not sent any more
        self._probing = False
        self._operating = False

    def serve(self) -> None:
        while True:
            try:
                incoming = self.link.receive(3600)
            except WaitTimeout:
                continue
            if incoming is None:
                break
            if len(self.s.from_client) >= MAX_FROM_CLIENT:
                continue  # a flooding client: counted in the link's transcript, not kept twice
            self.s.from_client.append(incoming)
            msg = incoming.msg
            if not isinstance(msg, dict):
                continue
            if msg.get("method") == "initialize" and "id" in msg:
                self._answer(msg)  # at once, so the phase is set before the next message is read
            elif isinstance(msg.get("method"), str) and "id" in msg:
                threading.Thread(target=self._answer, args=(msg,), daemon=True).start()
            elif isinstance(msg.get("method"), str):
                self._on_notification(msg)
            else:
                self._on_response(msg, incoming.raw)
        if self.answered_init_at is not None:
            self.s.ended_at = time.monotonic() - self.answered_init_at
        with self._lock:  # the client is gone: nothing pending will be answered
            self._closed = True
            for event, probe in self._pending.values():
                probe.gone = True
                event.set()

    def _send(self, msg: dict[str, Any]) -> int:
        """Send one message; return its place in the transcript (recorded before it leaves)."""
        return int(self.link.send_recorded(encode(msg)))

    # --- the client's requests ---------------------------------------------------------------

    def _answer(self, msg: dict[str, Any]) -> None:
        method, rid = msg["method"], msg["id"]
        params = as_dict(msg.get("params"))
        if method == "initialize":
            if self.s.client_init is None:
                self.s.client_init = params
                if self.probing:  # LC-12: the proposal if the server speaks it, else its newest (revisions.py)
                    self.s.version = answer_to(params.get("protocolVersion"), self.s.pinned)
                result = {"protocolVersion": self.s.version, "capabilities": server_capabilities(self.s.version),
                          "serverInfo": SERVER_INFO,
                          "instructions": "The mcp-ref conformance checker's server: it records what you send."}
                self.s.init_answered_at = self._send({"jsonrpc": "2.0", "id": rid, "result": result})
                self.answered_init_at = time.monotonic()
                return
            self._error(rid, -32600, "initialize was already received")
            return
        if self._operating and not self.probes_done.is_set():
            # Keep a short-lived client here until it has been probed: each probe waits one step
            # at most, so this wait is bounded too.
            self.probes_done.wait(self.timeout * (PROBES + 1))
        if method == "ping":
            self._send({"jsonrpc": "2.0", "id": rid, "result": {}})
            return
        if self.s.init_answered_at is None:
            self._error(rid, -32600, f"{method} before initialize")
            return
        handlers: dict[str, Callable[[], dict[str, Any]]] = {
            "tools/list": lambda: {"tools": [ECHO_TOOL]},
            "tools/call": lambda: self._call_tool(params),
            "prompts/list": lambda: {"prompts": [HELLO_PROMPT]},
            "prompts/get": lambda: {"messages": [{"role": "user", "content": {
                "type": "text", "text": f"Hello, {as_dict(params.get('arguments')).get('name', 'you')}."}}]},
            "logging/setLevel": lambda: {},
            "completion/complete": lambda: {"completion": {"values": []}},
        }
        handler = handlers.get(method)
        if handler is None:
            self._error(rid, -32601, f"Method not found: {method}")
            return
        try:
            self._send({"jsonrpc": "2.0", "id": rid, "result": handler()})
        except ValueError as exc:
            self._error(rid, -32602, str(exc))

    def _call_tool(self, params: dict[str, Any]) -> dict[str, Any]:
        if params.get("name") != "echo":
            raise ValueError(f"Unknown tool: {params.get('name')!r}")
        arguments = as_dict(params.get("arguments"))
        return {"content": [{"type": "text", "text": str(arguments.get("text", ""))}]}

    def _error(self, rid: Any, code: int, message: str) -> None:
        self._send({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})

    def _on_notification(self, msg: dict[str, Any]) -> None:
        if (msg["method"] == "notifications/initialized" and self.s.init_answered_at is not None and not self._probing
                and self.probing):
            self._probing = True
            self._operating = True
            self.prober = threading.Thread(target=self._probe, name="check-probes", daemon=True)
            self.prober.start()

    def _on_response(self, msg: dict[str, Any], raw: str) -> None:
        with self._lock:
            entry = self._pending.pop(repr(msg.get("id")), None)
        if entry is not None:
            event, probe = entry
            probe.reply, probe.got = msg, raw
            event.set()

    # --- probing -----------------------------------------------------------------------------

    def request(self, name: str, request_id: Any, method: str, params: dict[str, Any] | None = None) -> Probe:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            msg["params"] = params
        event = threading.Event()
        probe = Probe(name, encode(msg).decode("utf-8"), request_id)
        self.s.probes[name] = probe
        self.s.probe_order.append(name)
        with self._lock:
            if self._closed:
                probe.gone = True
                return probe
            self._pending[repr(request_id)] = (event, probe)
        self._send(msg)
        event.wait(self.timeout)
        with self._lock:
            self._pending.pop(repr(request_id), None)
        return probe

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self._send(msg)
        self.s.notifications_sent.append(method)

    def _probe(self) -> None:
        try:
            self.request("ping", "mcp-ref-check-ping", "ping")
            self.request("unknown-method", 900001, "mcp-ref-check/no-such-method", {})
            caps = self.s.client_capabilities
            if isinstance(caps.get("roots"), dict):
                self.request("roots", "mcp-ref-check-roots", "roots/list")
            if isinstance(caps.get("sampling"), dict):
                self.request("sampling", "mcp-ref-check-sampling", "sampling/createMessage", {
                    "messages": [{"role": "user", "content": {"type": "text", "text": "Say OK (a conformance probe)."}}],
                    "maxTokens": 16})
            if isinstance(caps.get("elicitation"), dict):
                params, why_not = elicitation_probe(caps["elicitation"], self.s.version)
                if params is not None:
                    self.request("elicitation", "mcp-ref-check-elicitation", "elicitation/create", params)
                elif since(self.s.version, "2025-06-18"):  # (before, no elicitation to skip)
                    self.s.unprobed["elicitation"] = str(why_not)
            self.notify("notifications/message", {"level": "info", "logger": "mcp-ref-check",
                                                  "data": "a log message from the checking server"})
            self.notify("notifications/tools/list_changed")
            self.notify("notifications/prompts/list_changed")
            self.request("ping-after-notifications", 900002, "ping")
        finally:
            self.probes_done.set()


# --- the run -------------------------------------------------------------------------------------


class ClientCheck(Recorder):
    """What a client case gets as ``t``: the recorded session, and ways to record findings."""

    def __init__(self, session: ClientSession, timeout: float) -> None:
        super().__init__()
        self.s = session
        self.timeout = timeout

    @property
    def transport(self) -> str:
        return self.s.transport

    def shape_problems(self, problems: list[str], req_id: str, what: str, probe: Probe) -> None:
        """One finding listing the shape problems of ``what`` (none: nothing recorded)."""
        if problems:
            self.check(False, req_id, f"{what} is malformed: {'; '.join(problems[:5])}", probe.sent, probe.got)


def run_client(command: list[str], options: ClientOptions, *, version: str | None = None) -> ClientSession:
    """Run the client command against a checking server; return what it did. The checking server
    answers the client's proposal when it is a revision it speaks, else its newest (pinned by
    options.protocol_version: that one). With a ``version``, it answers initialize with that one,
    probes nothing, and the run is short (options.version_run_timeout): it only watches whether
    the client lets go."""
    link: StdioLink | SseLink | StreamableHttpLink
    if options.http:
        from .http_wire import StreamableHttpLink

        link = StreamableHttpLink(options.timeout)
    else:
        link = SseLink(options.timeout) if options.sse else StdioLink(options.timeout)
    session = ClientSession("http" if options.http else "sse" if options.sse else "stdio", link,
                            version=version or LATEST, pinned=options.protocol_version)
    probing = version is None
    run_timeout = options.run_timeout if probing else options.version_run_timeout
    server: Any = checking_server(CheckingServer, link, session, options.timeout, probing)  # (2026-07-28's only answers)
    argv = [part.replace("{server}", link.server_argument) for part in command]
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=(os.name == "posix"))
    except OSError as exc:
        link.close()
        raise SetupFailed(f"could not start the client {argv[0]!r}: {exc}") from exc
    CLIENTS.add(proc)
    for stream in (proc.stdout, proc.stderr):
        threading.Thread(target=_drain, args=(stream, session.stderr_tail if stream is proc.stderr else None),
                         daemon=True).start()
    serving = threading.Thread(target=_serve_when_connected, args=(link, server, proc, run_timeout), daemon=True)
    serving.start()
    try:
        session.exit_code = proc.wait(run_timeout)
    except subprocess.TimeoutExpired:
        session.killed_by_kit = True
        _stop(proc)
        session.exit_code = proc.poll()
    serving.join(min(options.timeout, 2.0))  # the relay reports its last events
    if isinstance(link, StdioLink):  # and they are read (LC-16 is judged on them), however busy we are
        link.relay_gone.wait(min(options.timeout, 2.0))
    link.close()
    serving.join(1.0)
    if getattr(server, "prober", None) is not None:
        server.prober.join(options.timeout * PROBES)  # each probe waits at most one step
    if not session.from_client:
        tail = " | ".join(list(session.stderr_tail)[-3:])[-300:]
        raise SetupFailed(f"the client never sent anything to the checking server (exit status {session.exit_code})"
                          + (f"; its stderr ended with: {tail}" if tail else ""))
    return session


def _serve_when_connected(link: Any, server: Any, proc: subprocess.Popen[bytes], limit: float) -> None:
    deadline = time.monotonic() + limit
    while not link.connected.wait(0.05):
        if proc.poll() is not None or time.monotonic() > deadline:
            return
    server.serve()


def _drain(stream: Any, tail: deque[str] | None) -> None:
    try:
        for raw in stream:
            if tail is not None:
                tail.append(raw.decode("utf-8", "replace").rstrip())
    except (OSError, ValueError):
        pass


def _stop(proc: subprocess.Popen[bytes]) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            if os.name == "posix":
                os.killpg(proc.pid, sig)
            else:
                proc.send_signal(sig)
        except (ProcessLookupError, PermissionError, OSError):
            return
        try:
            proc.wait(2.0)
            return
        except subprocess.TimeoutExpired:
            continue
