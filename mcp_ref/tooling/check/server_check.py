"""Running the server cases: connections, the shared session, discovery, and the run itself.

Not a spec section: the checker's runner for ``mcp-ref check server``.

1. *Discovery*: one session is opened and initialized first; the kit lists the server's tools,
   resources, templates and prompts (every page, bounded). If the server cannot be started or
   never answers ``initialize``, the run stops there (exit status 2).
2. Cases marked ``fresh`` get connections of their own (lifecycle cases, malformed input, the
   transport's rules); they run a few at a time in threads. The other cases share the discovery
   session, one after another: they only read, and a server is cheap to ask twice.
3. Audit cases run last: they judge everything every connection of the run received (envelopes,
   progress, notifications the server was not entitled to send).
4. Each case's messages are the transcripts of its own connections, or the slice of the shared
   session it used.
"""

from __future__ import annotations

import os
import threading
import time
import traceback
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, NoReturn

from . import shapes
from .model import MAX_CASE_MESSAGES, Abort, Case, CaseResult, Finding, Recorder, Skipped, Status, status_of
from .peer import Peer, Reply, waited
from .sse_wire import SseWire
from .stdio_wire import EXIT_GRACE, StdioWire
from .wire import ConnectFailed, Wire, shown

MAX_PAGES = 20  # pages followed per list during discovery


@dataclass
class Target:
    """The server under test: a command for stdio, or an SSE URL."""

    stdio: str | list[str] | None = None
    sse: str | None = None
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return "stdio" if self.stdio is not None else "sse"

    def describe(self) -> str:
        if self.stdio is not None:
            return self.stdio if isinstance(self.stdio, str) else " ".join(self.stdio)
        return str(self.sse)

    def open(self, timeout: float, headers: dict[str, str] | None = None) -> Wire:
        """A new connection (``headers``: extra HTTP headers, for SSE)."""
        if self.stdio is not None:
            return StdioWire(self.stdio, timeout)
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
    tools: list[dict[str, Any]] | None = None  # None: not declared, or the list failed
    resources: list[dict[str, Any]] | None = None
    templates: list[dict[str, Any]] | None = None
    prompts: list[dict[str, Any]] | None = None

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
        self._alive_lock = threading.Lock()

    # --- connections ---------------------------------------------------------------------------

    def open_wire(self, headers: dict[str, str] | None = None) -> Wire:
        wire = self.target.open(self.options.timeout, headers)
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
        peer = Peer(self.open_wire(), self.options.timeout, self.startup)
        with self._lock:
            self.peers.append(peer)
        return peer

    def initialized_peer(self) -> Peer:
        peer = self.open_peer()
        if isinstance(peer.wire, SseWire) and peer.wire.status != 200:
            raise SetupFailed(f"GET {self.target.sse} answered HTTP {peer.wire.status}")
        reply = peer.initialize()
        if not reply.is_result or not isinstance(reply.result, dict):
            raise SetupFailed(setup_failure(peer, reply))
        if self.first_start is None:
            self.first_start = peer.first_answer
        return peer

    def shared(self) -> Peer:
        """The shared, initialized session (reopened if the server closed it)."""
        if self._shared is None or self._shared.wire.closed_by_peer:
            self._shared = self.initialized_peer()
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
        discovery = Discovery(peer.init.result)
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

    # --- running -------------------------------------------------------------------------------

    def run(self, cases: list[Case]) -> list[CaseResult]:
        """Run ``cases`` (discovery first); results come back in the order of ``cases``."""
        self.discover()
        results: dict[str, CaseResult | Future[CaseResult]] = {}
        hostile = [c for c in cases if c.hostile]  # last, one at a time: they may bring a server down
        fresh = [c for c in cases if c.fresh and not c.audit and not c.hostile]
        shared = [c for c in cases if not c.fresh and not c.audit and not c.hostile]
        audits = [c for c in cases if c.audit]
        with ThreadPoolExecutor(max_workers=max(1, self.options.jobs), thread_name_prefix="check-case") as pool:
            for case in fresh:
                results[case.name] = pool.submit(self.run_case, case)
            for case in shared:
                results[case.name] = self.run_case(case)
            done = {name: (r.result() if isinstance(r, Future) else r) for name, r in results.items()}
        for case in audits:
            done[case.name] = self.run_case(case)
        for case in hostile:
            done[case.name] = self.run_case(case)
        return [done[c.name] for c in cases]

    def run_case(self, case: Case) -> CaseResult:
        started = time.monotonic()
        t = ServerCheck(self, case)
        status: Status
        skip_reason = error = None
        try:
            reason = self._not_applicable(case)
            if reason:
                raise Skipped(reason)
            case.func(t)
            status = status_of(t.findings)
        except Skipped as exc:
            status, skip_reason = Status.SKIP, exc.reason
        except Abort:
            status = status_of(t.findings)
        except (SetupFailed, ConnectFailed) as exc:  # a shared session could not be (re)opened
            t.add(Finding("LC-07", f"a new connection could not be initialized: {exc}", knock_on=True))
            status = status_of(t.findings)
        except Exception as exc:
            status = Status.ERROR
            error = f"the checker failed: {type(exc).__name__}: {exc} ({_where(exc)})"
        finally:
            messages, cut = t.messages()
            t.close()
        if status is Status.SKIP and t.findings:  # a finding before the skip still counts
            status = status_of(t.findings)
        knocked = [f for f in t.findings if f.knock_on]
        first = self.gone is None
        if knocked and not case.audit and self.went_away(case.name) and not (case.hostile and first):
            # The server went away: what this case saw is that, not a fault of its own. The root
            # cause is one finding (lifecycle.keeps-answering); this case could not be judged.
            t.findings = [f for f in t.findings if not f.knock_on]
            if status is not Status.ERROR:
                status = status_of(t.findings)
                if not t.findings:
                    status, skip_reason = Status.SKIP, f"could not be judged: the server went away ({self.gone})"
        elif status in (Status.PASS, Status.WARN) and not knocked:
            self.last_ok = f"case {case.name}"
        if t.dropped:
            t.notes.append(f"{t.dropped} more finding(s) of this case are not listed")
        return CaseResult(case, status, t.findings, t.notes, skip_reason, error, messages, time.monotonic() - started,
                          cut)

    def _not_applicable(self, case: Case) -> str | None:
        if case.transport is not None and case.transport != self.target.kind:
            return f"applies to the {case.transport} transport only"
        if case.call_tools and not self.options.call_tools:
            return "runs the server's tools: only with --call-tools"
        if case.hostile and not self.options.hostile:
            return "sends hostile input: only with --hostile"
        if self.gone is not None and not case.audit:
            return f"not run: the server went away ({self.gone})"
        return None

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
                reply = fresh.request("ping", timeout=2 * self.options.timeout)
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


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    last = frames[-1] if frames else None
    return f"{last.filename.rsplit('/', 1)[-1]}:{last.lineno}" if last else "?"


def _stderr_hint(wire: Wire) -> str:
    tail = getattr(wire, "stderr_tail", None)
    if tail:
        return "; the server's stderr ended with: " + " | ".join(list(tail)[-3:])[-300:]
    return ""


def setup_failure(peer: Peer, reply: Reply) -> str:
    """Why a connection could not be initialized, saying what happened (not only "nothing came")."""
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
    else:
        what = f"initialize got nothing within {waited(reply.waited)}"
    if diagnosis and not reply.answered:
        what += f"; instead it sent {diagnosis}"
    return what + _stderr_hint(wire)


class ServerCheck(Recorder):
    """What a server case gets as ``t``: connections, discovery, and ways to record findings."""

    def __init__(self, run: ServerRun, case: Case) -> None:
        super().__init__()
        self.run = run
        self.case = case
        self.level = "SHOULD" if case.conflict else None
        self.informative = case.informative
        self.timeout = run.options.timeout
        self.call_tools = run.options.call_tools
        self._own: list[Wire] = []
        self._shared_from: dict[str, tuple[Wire, int]] = {}

    @property
    def transport(self) -> str:
        return self.run.target.kind

    @property
    def info(self) -> Discovery:
        assert self.run.discovery is not None
        return self.run.discovery

    # --- connections ---------------------------------------------------------------------------

    def open_wire(self, headers: dict[str, str] | None = None) -> Wire:
        """A new raw connection of this case's own (``headers``: extra HTTP headers, for SSE)."""
        wire = self.run.open_wire(headers)
        self._own.append(wire)
        return wire

    def connect(self) -> Peer:
        """A new connection of this case's own, not initialized. If its server process sends
        nothing at all for too long, the case is SKIP (peer.SlowStart), not a failure."""
        peer = self.run.open_peer()
        peer.judge_start = isinstance(peer.wire, StdioWire)
        self._own.append(peer.wire)
        return peer

    def fresh_session(self, capabilities: dict[str, Any] | None = None) -> Peer:
        """A new connection of this case's own, initialized (else the case ends with a finding)."""
        peer = self.connect()
        reply = peer.initialize(capabilities=capabilities)
        if not reply.is_result:
            self.fail("LC-07", "a new connection could not be initialized", reply.sent, reply.got_text(),
                      knock_on=not reply.answered)
        return peer

    def session(self) -> Peer:
        """The shared session for a case that only reads; a fresh one for a ``fresh`` case."""
        if self.case.fresh:
            return self.fresh_session()
        return self._borrow("shared", self.run.shared())

    def rough_session(self) -> Peer:
        """The shared session for malformed input: a server that dies of it fails only that case."""
        return self._borrow("rough", self.run.rough())

    def _borrow(self, label: str, peer: Peer) -> Peer:
        if label not in self._shared_from or self._shared_from[label][0] is not peer.wire:
            self._shared_from[label] = (peer.wire, len(peer.wire.transcript))
        return peer

    def close(self) -> None:
        for wire in self._own:
            wire.close()

    def messages(self) -> tuple[list[dict[str, Any]], int]:
        """The messages of this case's connections (at most MAX_CASE_MESSAGES), and how many were cut."""
        out: list[dict[str, Any]] = []
        cut = 0
        for number, wire in enumerate(self._own, 1):
            entries = wire.sent_and_received()
            room = max(0, MAX_CASE_MESSAGES - len(out))
            out += [{**e.as_dict(), "conn": number} for e in entries[:room]]
            cut += max(0, len(entries) - room) + wire.cut
        for label, (wire, start) in self._shared_from.items():
            entries = wire.sent_and_received()[start:]
            room = max(0, MAX_CASE_MESSAGES - len(out))
            out += [{**e.as_dict(), "conn": label} for e in entries[:room]]
            cut += max(0, len(entries) - room)
        return out, cut

    # --- what the server declared ----------------------------------------------------------------

    def require(self, capability: str, flag: str | None = None) -> None:
        """Skip the case unless the server declared ``capability`` (and ``flag``)."""
        if not self.info.declares(capability, flag):
            what = capability + (f".{flag}" if flag else "")
            self.skip(f"the server does not declare {what}")

    # --- judging replies -----------------------------------------------------------------------

    def answered(self, reply: Reply, what: str, no_answer_id: str = "MSG-01") -> None:
        """End the case with a finding if the request got no answer at all (a knock-on finding,
        should the server turn out to have gone away)."""
        if not reply.answered:
            self.fail(no_answer_id, f"{what}: no response (every request needs one)", reply.sent,
                      reply.got_text(), knock_on=True)

    def knock_on_of_own_request(self, reply: Reply, peer: Peer, what: str) -> None:
        """End the case without a finding if ``reply`` is an error that followed a request of the
        server's own which the kit refused (a capability the kit never declared): the root cause
        is judged once, by lifecycle.uses-only-client-capabilities."""
        refused = peer.refused_since(reply) if reply.is_error else []
        if refused:
            self.note(f"{what} failed after the server sent {', '.join(sorted(set(refused)))}, which the kit "
                      "refused (it declared no such capability): judged once, as that request's finding")
            raise Abort("a knock-on of the server's own request")

    def expect_result(self, reply: Reply, req_id: str, what: str, no_answer_id: str = "MSG-01",
                      peer: Peer | None = None) -> Any:
        """The result of ``reply``, or the case ends: no answer -> ``no_answer_id``, an error -> ``req_id``."""
        self.answered(reply, what, no_answer_id)
        if not reply.is_result:
            if peer is not None:
                self.knock_on_of_own_request(reply, peer, what)
            self.fail(req_id, f"{what}: expected a result, got an error", reply.sent, reply.got)
        return reply.result

    def expect_error(self, reply: Reply, req_id: str, what: str, codes: tuple[int, ...],
                     no_answer_id: str = "MSG-01") -> bool:
        """Record a finding unless ``reply`` is an error with one of ``codes``. True if it was an error."""
        self.answered(reply, what, no_answer_id)
        if not reply.is_error:
            self.check(False, req_id, f"{what}: expected error {_codes(codes)}, got a result", reply.sent, reply.got)
            return False
        self.check(reply.code in codes, req_id, f"{what}: expected error {_codes(codes)}, got {reply.code!r}",
                   reply.sent, reply.got)
        return True

    def shape(self, problems: shapes.Problems, req_id: str, what: str, reply: Reply | None = None) -> bool:
        """One finding listing the shape problems of ``what`` (none: nothing recorded)."""
        if problems:
            shown_problems = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
            self.check(False, req_id, f"{what} is malformed: {shown_problems}",
                       reply.sent if reply else None, shown(reply.got) if reply else None)
        return not problems

    def content(self, problems: shapes.Problems, req_id: str, what: str, reply: Reply, union: str) -> None:
        """Shape problems of a result holding content: types outside the 2024-11-05 union (``union``
        names the schema's field) are one LC-14 finding; the rest go against ``req_id``."""
        foreign, rest = shapes.outside_union(problems)
        if foreign:
            kinds = sorted({p.split(" is ", 1)[1].split(",", 1)[0] for p in foreign})
            self.check(False, "LC-14", f"{what} holds content of type {', '.join(kinds)}, which is not in the "
                       f"2024-11-05 schema's content union ({union}): later revisions added it, and the session "
                       "negotiated 2024-11-05", reply.sent, shown(reply.got))
        self.shape(rest, req_id, what, reply)

    def abort(self) -> NoReturn:
        raise Abort("ended")


def _codes(codes: tuple[int, ...]) -> str:
    return " or ".join(str(c) for c in codes)
