"""A run against one server: its connections, what discovery learned, and whether it is still there.

Not a spec section: the state of one ``mcp-ref check server`` run, shared by every case (the
cases themselves get a ``server_check.ServerCheck``; runner.py runs them).

1. *Discovery*: one session is opened and initialized first; the kit lists the server's tools,
   resources, templates and prompts (every page, bounded). If the server cannot be started or
   never answers ``initialize``, the run stops there (exit status 2).
2. Connections: the shared session (cases that only read), the "rough" one (cases that send
   malformed input: a server that dies of it fails only those), and connections a case opens
   for itself. Every wire and peer of the run is kept, for the audit cases.
3. Whether the server went away (``went_away``): it exited, or stopped answering on every
   connection. The root cause is recorded once (``gone``), and the cases it kept from running
   are SKIP, not failures.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import Any

from .peer import Peer, Reply, same_id, waited
from .revisions import SUPPORTED, is_stateless, offered, since
from .shapes import json_text
from .sse_wire import SseWire
from .stateless_meta import stateless_meta
from .stdio_wire import EXIT_GRACE, StdioWire
from .wire import ConnectFailed, Wire, shown

MAX_PAGES = 20  # pages followed per list during discovery


@dataclass
class Target:
    """The server under test: a command for stdio, an SSE URL, or a Streamable HTTP URL."""

    stdio: str | list[str] | None = None
    sse: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    http: str | None = None  # a Streamable HTTP endpoint (http_wire.py)

    @property
    def kind(self) -> str:
        return "stdio" if self.stdio is not None else "http" if self.http is not None else "sse"

    def describe(self) -> str:
        if self.stdio is not None:
            return self.stdio if isinstance(self.stdio, str) else " ".join(self.stdio)
        return str(self.http if self.http is not None else self.sse)

    def open(self, timeout: float, headers: dict[str, str] | None = None, stateless: bool = False) -> Wire:
        """A new connection (``headers``: extra HTTP headers, for SSE; ``stateless``: over
        Streamable HTTP, the wire of 2026-07-28, which mirrors each body into headers)."""
        if self.stdio is not None:
            return StdioWire(self.stdio, timeout)
        if self.http is not None:
            from .http_wire import StatelessHttpWire, StreamableHttpWire

            kind = StatelessHttpWire if stateless else StreamableHttpWire
            return kind(self.http, timeout, {**self.headers, **(headers or {})})
        assert self.sse is not None
        return SseWire(self.sse, timeout, {**self.headers, **(headers or {})})


@dataclass
class Options:
    timeout: float = 5.0  # seconds per step (one answer, one event)
    startup: float = 10.0  # seconds the first connection may take to give its first answer
    call_tools: bool = False
    call_timeout: float = 30.0  # seconds a tool call may take (each progress notification restarts it)
    hostile: bool = False  # also run the hostile cases (server_hostile.py)
    only: list[str] = field(default_factory=list)
    jobs: int = min(4, os.cpu_count() or 2)  # fresh-connection cases run this many at a time
    protocol_version: str | None = None  # --protocol-version: offer and accept this one alone (revisions.py)

    @property
    def offered(self) -> tuple[str, ...]:
        """The versions the kit speaks in this run, newest first (it proposes the first)."""
        return offered(self.protocol_version)

    @property
    def stateless(self) -> bool:
        """A run of 2026-07-28: no initialize; ``_meta`` on every request (server_stateless.py)."""
        return is_stateless(self.protocol_version)

    @property
    def call_limit(self) -> float:
        """The most a tool call may take in all, progress or not."""
        return self.call_timeout * 10


@dataclass
class ToolTiming:
    """How a tool call went in tools.tool-results-are-well-formed (for the cancellation case)."""

    seconds: float
    progress: int
    answered: bool


@dataclass
class Discovery:
    """What the first session learned about the server."""

    init: dict[str, Any]
    offered: tuple[str, ...] = SUPPORTED  # the versions the kit spoke (it proposed the newest of them)
    tools: list[dict[str, Any]] | None = None  # None: not declared, or the list failed
    resources: list[dict[str, Any]] | None = None
    templates: list[dict[str, Any]] | None = None
    prompts: list[dict[str, Any]] | None = None
    discover: dict[str, Any] | None = None  # 2026-07-28: the server/discover result, as it came

    @property
    def answered_version(self) -> Any:
        """The protocolVersion of the initialize result, as it came."""
        return self.init.get("protocolVersion")

    @property
    def version(self) -> str:
        """The revision the run grades at: the one the server answered, when the kit speaks it;
        else (an answer the kit does not accept: LC-12, LC-13 judge it) the one the kit proposed."""
        answer = self.answered_version
        return answer if isinstance(answer, str) and answer in self.offered else self.offered[0]

    @property
    def capabilities(self) -> dict[str, Any]:
        caps = self.init.get("capabilities")
        return caps if isinstance(caps, dict) else {}

    def declares(self, capability: str, flag: str | None = None) -> bool:
        value = self.capabilities.get(capability)
        if not isinstance(value, dict):
            return False
        return flag is None or value.get(flag) is True


class SetupFailed(Exception):
    """The server could not be connected to or initialized (exit status 2)."""


class ServerRun:
    """One run of the server cases against one target."""

    def __init__(self, target: Target, options: Options) -> None:
        self.target = target
        self.options = options
        self.wires: list[Wire] = []  # every connection of the run, for the audits
        self.peers: list[Peer] = []
        self._lock = threading.Lock()
        self._shared: Peer | None = None
        self._rough: Peer | None = None
        self.discovery: Discovery | None = None
        self.first_start: float | None = None  # seconds the first connection took to answer initialize
        self.tool_timings: dict[str, ToolTiming] = {}
        # Once the server has gone away (exited, or stopped answering on every connection), the
        # root cause is recorded once; the cases it kept from running are SKIP, not failures.
        self.gone: str | None = None
        self.gone_id = "MSG-01"
        self.last_ok = "initialize"  # the last step that went well, for "stopped answering after ..."
        self.selected: set[str] = set()  # the names of the cases this run runs (runner.run_server_cases)
        self._alive_lock = threading.Lock()
        self.cache: dict[str, Any] = {}  # what cases share within the run (stateless_helpers.tool_survey)
        self.cache_lock = threading.Lock()

    # --- connections ---------------------------------------------------------------------------

    def open_wire(self, headers: dict[str, str] | None = None) -> Wire:
        wire = self.target.open(self.options.timeout, headers, stateless=self.options.stateless)
        with self._lock:
            self.wires.append(wire)
        return wire

    @property
    def startup(self) -> float:
        """The first answer on a new connection may take this long: ``--startup``, or three times
        what the first connection took if that is more (a machine that is slow now stays slow)."""
        if self.first_start is None:
            return self.options.startup
        return max(self.options.startup, 3 * self.first_start)

    def open_peer(self) -> Peer:
        peer = Peer(self.open_wire(), self.options.timeout, self.startup, offer=self.options.offered[0])
        if self.options.stateless:  # every request names its revision; the kit brings no capability
            peer.meta = stateless_meta(self.options.offered[0])
        with self._lock:
            self.peers.append(peer)
        return peer

    def initialized_peer(self, diagnose: bool = False) -> Peer:
        """A new connection, initialized; else SetupFailed saying why (with ``diagnose``, a silent
        server is asked a little more, to say why: see ``diagnose_silence``). In a run of
        2026-07-28 there is no initialize: the connection asks server/discover instead, and its
        answer stands where initialize's would (``peer.init``)."""
        if self.options.stateless:
            return self.discovered_peer()
        peer = self.open_peer()
        if isinstance(peer.wire, SseWire) and peer.wire.status != 200:
            raise SetupFailed(f"GET {self.target.sse} answered HTTP {peer.wire.status}")
        # From 2025-06-18 the kit declares elicitation on its shared sessions, and declines every
        # request (peer.Peer._answer): a tool that elicits is seen to, and judged on it.
        reply = peer.initialize(capabilities={"elicitation": {}} if since(peer.offer, "2025-06-18") else None)
        if not reply.is_result or not isinstance(reply.result, dict):
            extra = diagnose_silence(peer, reply, self.options.timeout) if diagnose else ""
            raise SetupFailed(setup_failure(peer, reply, extra))
        if self.first_start is None:
            self.first_start = peer.first_answer
        return peer

    def discovered_peer(self) -> Peer:
        """2026-07-28: a new connection whose server/discover was answered with a result."""
        peer = self.open_peer()
        reply = peer.request("server/discover", {})
        peer.init = reply
        if not reply.is_result or not isinstance(reply.result, dict):
            if reply.is_error:
                what = f"server/discover was refused: {shown(reply.got)}"
            elif reply.answered:
                what = f"server/discover got a malformed answer: {shown(reply.got)}"
            elif reply.closed:
                what = f"the server {peer.wire.describe_end()} before answering server/discover"
            else:
                what = f"server/discover got nothing within {waited(reply.waited)}"
            raise SetupFailed(what + " (a server of 2026-07-28 implements server/discover, DISC-01)"
                              + _stderr_hint(peer.wire))
        if self.first_start is None:
            self.first_start = peer.first_answer
        return peer

    def shared(self) -> Peer:
        """The shared, initialized session (reopened if the server closed it). The first one is
        the run's first connection: if it fails, the run stops, so the kit says all it can why."""
        if self._shared is None or self._shared.wire.closed_by_peer:
            self._shared = self.initialized_peer(diagnose=self._shared is None)
        return self._shared

    def rough(self) -> Peer:
        """A second shared session for the cases that send malformed input (reopened if it died)."""
        if self._rough is None or self._rough.wire.closed_by_peer:
            self._rough = self.initialized_peer()
        return self._rough

    def close(self) -> None:
        for wire in list(self.wires):
            try:
                wire.close()
            except Exception:
                pass

    # --- discovery -----------------------------------------------------------------------------

    def discover(self) -> Discovery:
        try:
            peer = self.shared()
        except ConnectFailed as exc:
            raise SetupFailed(str(exc)) from exc
        self.first_start = peer.first_answer
        assert peer.init is not None
        if self.options.stateless:
            discovery = Discovery(as_initialize(peer.init.result, self.options.offered[0]), self.options.offered,
                                  discover=peer.init.result)
        else:
            discovery = Discovery(peer.init.result, self.options.offered)
        if discovery.declares("tools"):
            discovery.tools = self._list_all(peer, "tools/list", "tools")
        if discovery.declares("resources"):
            discovery.resources = self._list_all(peer, "resources/list", "resources")
            discovery.templates = self._list_all(peer, "resources/templates/list", "resourceTemplates")
        if discovery.declares("prompts"):
            discovery.prompts = self._list_all(peer, "prompts/list", "prompts")
        self.discovery = discovery
        return discovery

    def _list_all(self, peer: Peer, method: str, key: str) -> list[dict[str, Any]] | None:
        items: list[dict[str, Any]] = []
        params: dict[str, Any] | None = None
        for _ in range(MAX_PAGES):
            reply = peer.request(method, params)
            result = reply.result
            if not reply.answered:
                self.went_away("discovery")
            if not reply.is_result or not isinstance(result, dict) or not isinstance(result.get(key), list):
                return None if not items else items
            self.last_ok = method
            items += [item for item in result[key] if isinstance(item, dict)]
            cursor = result.get("nextCursor")
            if not isinstance(cursor, str):
                break
            params = {"cursor": cursor}
        return items

    # --- is the server still there? -------------------------------------------------------------

    def went_away(self, during: str) -> bool:
        """After ``during`` saw silence or an ended connection: is the server gone? It is when a
        new connection cannot be initialized, or ends, or leaves a ping unanswered for two steps.
        (The shared connection is not asked: another case may be using it.) The first time, the
        root cause is recorded (``gone``) and every connection is closed, so the cases still
        waiting end at once."""
        if self.gone is not None:
            return True
        with self._alive_lock:
            if self.gone is not None:
                return True
            shared = self._shared
            ended = shared is not None and shared.wire.closed_by_peer
            try:
                fresh = self.initialized_peer()
            except (SetupFailed, ConnectFailed) as exc:
                again = f"a new connection failed: {exc}"
                if shared is not None and not ended:  # a server that just died: its end may be a moment behind
                    ended = shared.wire.ended.wait(EXIT_GRACE * 2) and shared.wire.closed_by_peer
            else:
                reply = fresh.request(fresh.barrier_method, timeout=2 * self.options.timeout)
                if reply.answered:
                    return False
                if reply.closed:
                    again = "a new connection answered initialize, then it " + fresh.wire.describe_end()
                    if not ended:
                        shared, ended = fresh, True
                else:
                    again = f"a new connection answered initialize, then nothing within {waited(reply.waited)}"
                    self.gone_id = "PING-01"
            if ended and shared is not None:
                how = f"{shared.wire.describe_end()} after {self.last_ok}"
            else:
                how = f"stopped answering after {self.last_ok}"
                self.gone_id = "PING-01"
            self.gone = f"the server {how}; {again}"
        self.close()
        return True


def as_initialize(discovered: dict[str, Any], version: str) -> dict[str, Any]:
    """A server/discover result (2026-07-28) in the shape of an initialize result, so that the
    run and its report read one shape: the version the kit speaks when the server lists it
    (else the first it lists), its capabilities, its name from ``_meta``, its instructions."""
    versions = discovered.get("supportedVersions")
    listed = [v for v in versions if isinstance(v, str)] if isinstance(versions, list) else []
    meta: dict[str, Any] = discovered["_meta"] if isinstance(discovered.get("_meta"), dict) else {}
    out: dict[str, Any] = {"protocolVersion": version if version in listed or not listed else listed[0],
                           "capabilities": discovered.get("capabilities"),
                           "serverInfo": meta.get("io.modelcontextprotocol/serverInfo")}
    if "instructions" in discovered:
        out["instructions"] = discovered["instructions"]
    return out


def _stderr_hint(wire: Wire) -> str:
    tail = getattr(wire, "stderr_tail", None)
    if tail:
        return "; the server's stderr ended with: " + " | ".join(list(tail)[-3:])[-300:]
    return ""


def setup_failure(peer: Peer, reply: Reply, extra: str = "") -> str:
    """Why a connection could not be initialized, saying what happened (not only "nothing came");
    ``extra``: what asking more told (diagnose_silence), before the server's last words."""
    wire = peer.wire
    if isinstance(wire, SseWire) and wire.endpoint is None:
        what = ("the event stream ended without an endpoint event" if wire.closed_by_peer
                else f"no endpoint event arrived on the event stream within {waited(reply.waited or wire.timeout)}")
        return what + " (TR-11), so there was nowhere to POST initialize"
    diagnosis = wire.diagnosis()
    if reply.is_error:
        what = f"initialize was refused: {shown(reply.got)}"
    elif reply.answered:
        what = f"initialize got a malformed answer: {shown(reply.got)}"
    elif reply.closed:
        what = f"the server {wire.describe_end()} before answering initialize"
    elif reply.meanwhile and "an answer with id" in reply.meanwhile:  # the answer came, under another id
        what = (f"initialize (id {json_text(reply.request_id)}) got no answer with its id within {waited(reply.waited)}; "
                f"instead it sent {reply.meanwhile} (MSG-05: a response carries the id of its request, unchanged)")
    else:
        what = f"initialize got nothing within {waited(reply.waited)}"
        if diagnosis:
            what += f"; instead it sent {diagnosis}"
    return what + extra + _stderr_hint(wire)


ALIVE = "mcp-ref-check-alive"  # the id of the ping that asks a silent server whether it answers at all


def diagnose_silence(peer: Peer, reply: Reply, timeout: float) -> str:
    """More about a first initialize that got nothing at all (no answer, no other output), as the
    end of the setup failure's sentence. Over stdio the kit asks twice more: a ping (answered:
    the server works, but not for initialize with id 0, which a server testing ids for truth
    takes for no id), then it closes the server's stdin (output that comes only now was written
    but never flushed: a pipe is block-buffered). "" when neither tells anything."""
    wire = peer.wire
    if reply.answered or reply.closed or reply.meanwhile or wire.received or not isinstance(wire, StdioWire):
        return ""
    ping = peer.request("ping", request_id=ALIVE, timeout=min(timeout, 2.0))
    late_answer = next((i for i in peer.stray if isinstance(i.msg, dict) and "id" in i.msg
                        and same_id(i.msg["id"], reply.request_id)), None)
    if late_answer is not None:  # a slow start, not a silence
        return f"; its answer came later than that (--startup): {shown(late_answer.raw)}"
    if ping.answered:
        return (f"; a ping sent after it (id {json_text(ALIVE)}) was answered, so the server answers requests, but "
                f"not initialize with id {json_text(reply.request_id)}: 0 is a valid request id (MSG-02), never "
                "take it for a missing id (a test of the id for truth does)")
    wire.close_input()
    late = peer.collect(min(timeout, 2.0) + EXIT_GRACE)
    code = wire.wait_exit(EXIT_GRACE)
    if late:
        exited = f" and it exited with status {code}" if code is not None else ""
        return (f"; its output came only when the kit closed its stdin{exited}: "
                f"{shown(late[0].raw)}: it was held back, not flushed (or the server reads all of its input before it "
                "answers); every request gets its answer (MSG-01): flush stdout after each message, since a pipe is "
                "block-buffered (unless PYTHONUNBUFFERED is set)")
    return ""
