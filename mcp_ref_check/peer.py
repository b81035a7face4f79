"""The kit as an MCP client on one wire: just enough of the client's side for the server cases.

Not a spec section: the checker's client (see wire.py for the connections themselves).

1. Requests are numbered by the peer (a case may choose the id); ``request()`` waits at most
   one step for the response with exactly that id (``"1"`` is not ``1``; a response with the
   right value but the wrong type is taken, and flagged, so a case can judge it).
2. Whatever else arrives meanwhile is filed: notifications, the server's own requests (pings
   are answered ``{}``, anything else -32601, since the kit declares no client capability),
   and strays (responses nobody waited for, text that is not a message).
3. The first answer on a connection may take ``startup`` seconds (a slow server start).
4. A case that sends something whose answer has no id the kit can wait for (a line that is not
   JSON, an invalid envelope, a notification that must get no answer) *probes*: ``probe()``
   first sends a ping and waits for it (a barrier), so that whatever the server wrote about
   earlier traffic is set aside; then it sends its input, and a second ping. On a server that
   reads its input in order, what arrives between the two is what it wrote in reply to that
   input, and nothing else: a case judges only its own answer, and a stray answer (to a
   notification, say) is never taken for the next case's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from .model import Skipped
from .revisions import LATEST, REVISIONS
from .shapes import json_text
from .wire import Incoming, WaitTimeout, Wire, shown

CLIENT_INFO = {"name": "mcp-ref-check", "version": "0.1.0"}
PROTOCOL_VERSION = LATEST  # what the kit proposes unless the run is pinned (--protocol-version)
MAX_FILED = 1000  # notifications, server requests and strays kept per connection (the rest are counted)


class SlowStart(Skipped):
    """A new connection's server sent nothing at all within the startup allowance, twice."""


def as_params(msg: dict[str, Any]) -> dict[str, Any]:
    params = msg.get("params")
    return params if isinstance(params, dict) else {}


@dataclass
class Reply:
    """A request we sent and what came back (``msg`` is None when nothing did in time)."""

    sent: str
    request_id: Any
    method: str
    msg: dict[str, Any] | None = None
    got: str | None = None
    seq: int = -1  # the response's position in the transcript
    closed: bool = False  # the stream ended before an answer
    id_mismatch: bool = False  # answered with an id of another type ("1" for 1)
    waited: float = 0.0  # seconds the kit really waited for the answer
    progress: int = 0  # progress notifications for this request's token seen while waiting
    sent_seq: int = -1  # the request's position in the transcript
    refused_without_session: int | None = None  # Streamable HTTP: the POST's 4xx, sent before any session
    meanwhile: str | None = None  # unanswered: what did arrive while the kit waited (see Peer.wait)

    @property
    def answered(self) -> bool:
        return self.msg is not None

    @property
    def result(self) -> Any:
        return self.msg.get("result") if self.msg is not None else None

    @property
    def error(self) -> Any:
        return self.msg.get("error") if self.msg is not None else None

    @property
    def is_result(self) -> bool:
        return self.msg is not None and "result" in self.msg and "error" not in self.msg

    @property
    def is_error(self) -> bool:
        return self.msg is not None and "error" in self.msg and "result" not in self.msg

    @property
    def code(self) -> Any:
        error = self.error
        return error.get("code") if isinstance(error, dict) else None

    def got_text(self, timeout: float | None = None) -> str:
        """What came back, or what the silence was: the time given is what the kit really waited,
        and what arrived meanwhile that was not the answer is said too (an answer under another
        id, lines that are not JSON, bytes with no newline after them)."""
        if self.got is not None:
            return self.got
        if self.refused_without_session is not None:
            return f"(HTTP {self.refused_without_session}, with no JSON-RPC error in its body)"
        if self.closed:
            what = "the connection ended"
        elif self.meanwhile:
            what = f"no response with id {json_text(self.request_id)} within {waited(self.waited or timeout or 0.0)}"
        else:
            what = f"nothing within {waited(self.waited or timeout or 0.0)}"
        return f"({what}" + (f"; meanwhile the server sent {self.meanwhile}" if self.meanwhile else "") + ")"


@dataclass
class Probe:
    """Input a case sent on purpose, and what came back for it (see ``Peer.probe``).

    ``answers``: the responses that arrived after the input and before the answer to the ping
    sent after it (the barrier); ``earlier``: responses that arrived before the input was sent,
    which answer something else; ``statuses``: the HTTP status of each POST (SSE only).
    """

    sent: str  # the input as a report shows it
    answers: list[Incoming]
    earlier: list[Incoming]
    barrier: Reply
    statuses: list[int] = field(default_factory=list)

    @property
    def refusal(self) -> int | None:
        """Over SSE, the first 4xx status a POST of the input got: the transport's refusal."""
        return next((status for status in self.statuses if 400 <= status < 500), None)

    @property
    def refused_by_http(self) -> bool:
        """Over SSE, a POST answered 4xx: the transport's refusal, an answer of its own kind."""
        return self.refusal is not None


def describe_bytes(raw: bytes) -> str:
    """Input as a report shows it: its text, or Python's spelling of the bytes when they are not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return f"{raw!r} (bytes that are not UTF-8)"


def is_response(incoming: Incoming) -> bool:
    """A message that answers something: a JSON object without a method (or a batch of them)."""
    msg = incoming.msg
    if isinstance(msg, list):
        return bool(msg) and all(isinstance(item, dict) and "method" not in item for item in msg)
    return isinstance(msg, dict) and "method" not in msg


def looks_pretty_printed(lines: list[str]) -> bool:
    """Lines that look like a JSON text spread over several lines (indented, one member a line)."""
    first = next((line.strip() for line in lines if line.strip()), "")
    return first in ("{", "[", "}", "]", "},", "],") or first.startswith(('"jsonrpc"', '"id"', '"result"', '"error"'))


def waited(seconds: float) -> str:
    """A wait in words: "5 s", "10.7 s"."""
    return f"{round(seconds, 1):g} s"


def same_id(a: Any, b: Any) -> bool:
    """JSON-RPC ids match only with the same type and value: "1" is not 1, and true is not 1."""
    return type(a) is type(b) and a == b


@dataclass
class Peer:
    """The kit as an MCP client on one wire."""

    wire: Wire
    timeout: float
    startup: float = 0.0  # a longer wait for the first answer on this connection (a slow server start)
    judge_start: bool = False  # a first request met with total silence is confirmed before it is judged
    notifications: list[dict[str, Any]] = field(default_factory=list)  # the first MAX_FILED
    server_requests: list[dict[str, Any]] = field(default_factory=list)  # the first MAX_FILED
    stray: list[Incoming] = field(default_factory=list)  # responses nobody waited for, and garbage
    refused: list[tuple[int, str]] = field(default_factory=list)  # (seq, method): server requests the kit refused
    init: Reply | None = None
    declared: dict[str, Any] = field(default_factory=dict)  # the client capabilities the kit declared here
    offer: str = PROTOCOL_VERSION  # the version initialize proposes (the run's: see revisions.py)
    elicited: list[dict[str, Any]] = field(default_factory=list)  # elicitation/create requests the kit declined
    first_answer: float | None = None  # seconds the first answer on this connection took
    # 2026-07-28 (a run pinned to it): the _meta every request carries, since there is no
    # handshake (STLS-09); None in a run of the handshake. See ``send_request`` and ``stateless_meta``.
    meta: dict[str, Any] | None = None
    filed: int = 0  # messages filed in all (the lists above keep the first MAX_FILED of each)
    _next_id: int = 1
    _syncs: int = 0  # barriers sent (their ids: mcp-ref-check-sync-N)
    _answered_once: bool = False
    _opened: float = field(default_factory=time.monotonic)

    def next_id(self) -> int:
        self._next_id += 1
        return self._next_id - 1

    @property
    def barrier_method(self) -> str:
        """The request that orders what arrives (``sync``) and asks whether a server is there:
        ping, or server/discover in 2026-07-28, which has no ping (STLS-28)."""
        return "ping" if self.meta is None else "server/discover"

    def send_request(self, method: str, params: dict[str, Any] | None = None, *, request_id: Any = None,
                     extra: dict[str, Any] | None = None, bare: bool = False) -> Reply:
        """Send a request without waiting; ``extra`` members are merged into the envelope. In a
        run of 2026-07-28 the params get the peer's ``meta`` as ``_meta`` (unless they hold a
        ``_meta`` of their own, or ``bare``: a case sending a request without it on purpose)."""
        rid = self.next_id() if request_id is None else request_id
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if self.meta is not None and not bare and (params is None or "_meta" not in params):
            params = {**(params or {}), "_meta": dict(self.meta)}
        if params is not None:
            msg["params"] = params
        msg.update(extra or {})
        start = len(self.wire.transcript)  # before sending: over SSE the server may answer (or ask) before the POST returns
        reply = Reply(self.wire.send(msg), rid, method)
        reply.sent_seq = start
        reply.refused_without_session = self.wire.refused_without_session(rid)
        return reply

    def request(self, method: str, params: dict[str, Any] | None = None, *, request_id: Any = None,
                timeout: float | None = None, bare: bool = False) -> Reply:
        """Send a request and wait (at most the step timeout) for the response with its id."""
        return self.wait(self.send_request(method, params, request_id=request_id, bare=bare), timeout)

    def wait(self, reply: Reply, timeout: float | None = None, *, progress_token: Any = None,
             limit: float | None = None, others: list[Incoming] | None = None) -> Reply:
        """Wait for ``reply``'s answer: at most the step (the startup allowance for a connection's
        first answer). With ``progress_token``, each progress notification for it starts the
        step again, up to ``limit`` seconds in all. Responses to something else that arrive
        meanwhile are filed as strays, and added to ``others`` if given."""
        step = self.timeout if timeout is None else timeout
        if not self._answered_once:
            step = max(step, self.startup)
        started = time.monotonic()
        deadline = started + step
        hard = started + (limit if limit is not None else step)
        if reply.refused_without_session is not None:  # the refusal is the answer: its body, if any, is here
            deadline = hard = started
        if self._claim_filed(reply):  # answered already, while the kit waited for another request
            return reply
        seen: list[Incoming] = []  # what arrived that is not the answer: said if the answer never comes
        try:
            while True:
                try:
                    incoming = self.wire.receive(deadline - time.monotonic())
                except WaitTimeout:
                    if (self.judge_start and not self._answered_once and self.wire.received == 0
                            and reply.refused_without_session is None):
                        self._confirm_start(reply, started)
                    if not reply.answered:
                        reply.meanwhile = self.meanwhile(seen, reply)
                    return reply
                if incoming is None:
                    reply.closed = True
                    reply.meanwhile = self.meanwhile(seen, reply)
                    return reply
                msg = incoming.msg
                if isinstance(msg, dict) and "method" not in msg and "id" in msg:
                    self._answer_seen()
                    refusal = reply.refused_without_session is not None and msg["id"] is None and "error" in msg
                    if refusal or same_id(msg["id"], reply.request_id) or str(msg["id"]) == str(reply.request_id):
                        reply.msg, reply.got, reply.seq = msg, incoming.raw, incoming.seq
                        reply.id_mismatch = not refusal and not same_id(msg["id"], reply.request_id)
                        return reply
                elif (progress_token is not None and isinstance(msg, dict)
                      and msg.get("method") == "notifications/progress"
                      and same_id(as_params(msg).get("progressToken"), progress_token)):
                    reply.progress += 1
                    deadline = min(max(deadline, time.monotonic() + step), max(hard, deadline))
                if others is not None and is_response(incoming):
                    others.append(incoming)
                if incoming.problem is not None or (isinstance(msg, dict) and "method" not in msg):
                    seen.append(incoming)
                self._file(incoming)
        finally:
            reply.waited = time.monotonic() - started

    def meanwhile(self, seen: list[Incoming], reply: Reply) -> str | None:
        """What arrived while the kit waited in vain for ``reply``'s answer, in words: answers
        under another id (a server that loses or rewrites ids), lines that are not JSON
        (pretty-printed output), a line over the cap, and bytes written with no newline after
        them (a message never ended, or never flushed in full). None if nothing did."""
        parts = []
        answers = [i for i in seen if i.problem is None and isinstance(i.msg, dict) and "id" in i.msg]
        if answers:
            first = answers[0]
            more = f" ({len(answers)} such answers in all)" if len(answers) > 1 else ""
            parts.append(f"an answer with id {json_text(first.msg['id'])}, where the request's id is "
                         f"{json_text(reply.request_id)}: {shown(first.raw)}{more}")
        bad = [i for i in seen if i.problem is not None]
        if bad:
            kind = bad[0].problem or ""
            hint = (" (pretty-printed JSON, it seems: each message is one line, TR-02)"
                    if looks_pretty_printed([i.raw for i in bad]) else "")
            parts.append(f"{len(bad)} line(s) that are not messages ({kind.split(' (')[0]}), the first: "
                         f"{shown(bad[0].raw) if bad[0].raw else '(a blank line)'}{hint}")
        tail = self.wire.unterminated()
        if tail:
            parts.append(f"bytes with no newline after them, {shown(tail.decode('utf-8', 'replace'))} (each message "
                         "ends with a newline, TR-02)")
        return "; ".join(parts) or None

    def sync(self) -> tuple[list[Incoming], Reply]:
        """Send a ping (a barrier) and wait for its answer, two steps at most (a barrier orders what
        arrives; how promptly ping is answered is the ping cases' to judge); return the responses
        to something else that arrived meanwhile, and the ping's reply (unanswered if none came)."""
        self._syncs += 1
        others: list[Incoming] = []
        barrier = self.wait(self.send_request(self.barrier_method, request_id=f"mcp-ref-check-sync-{self._syncs}"),
                            2 * self.timeout, others=others)
        return others, barrier

    def probe(self, *inputs: bytes) -> Probe:
        """Send ``inputs`` (raw bytes, one message or line each) between two barriers (see
        ``sync``): the answers are what the server wrote in reply to them, and nothing else.
        Over stdio each input is a line; over SSE each is the body of one POST."""
        earlier, _ = self.sync()
        statuses = getattr(self.wire, "post_statuses", None)
        before = len(statuses) if statuses is not None else 0
        for raw in inputs:
            self.wire.send_raw(raw)
        posted = list(statuses[before:]) if statuses is not None else []  # the inputs' POSTs, not the barrier's
        answers, barrier = self.sync()
        return Probe(" | ".join(describe_bytes(raw) for raw in inputs), answers, earlier, barrier, posted)

    def _confirm_start(self, reply: Reply, started: float) -> None:
        """The connection's first request got nothing, and the server has written nothing at all:
        a silence, or a process still starting? Another request tells (ping, or initialize when
        the silence was a ping's). If the server answers anything within the startup allowance,
        it was up, and the silence stands; if not, the start was too slow to judge (SlowStart)."""
        if self.meta is not None:
            self.send_request("server/discover" if reply.method != "server/discover" else "tools/list")
        elif reply.method == "ping":
            self.send_request("initialize", {"protocolVersion": self.offer, "capabilities": {},
                                             "clientInfo": dict(CLIENT_INFO)})
        else:
            self.send_request("ping")
        deadline = time.monotonic() + max(self.startup, self.timeout)
        while True:
            try:
                incoming = self.wire.receive(deadline - time.monotonic())
            except WaitTimeout:
                raise SlowStart(f"a new connection's server process sent nothing within {waited(time.monotonic() - started)}"
                                " (two requests; --startup): a start this slow is not judged") from None
            if incoming is None:
                reply.closed = True
                return
            msg = incoming.msg
            if isinstance(msg, dict) and "method" not in msg and "id" in msg and same_id(msg["id"], reply.request_id):
                self._answer_seen()
                reply.msg, reply.got, reply.seq = msg, incoming.raw, incoming.seq
                return
            if isinstance(msg, dict) and "method" not in msg:
                self._answer_seen()
            self._file(incoming)
            return

    def _answer_seen(self) -> None:
        if not self._answered_once:
            self._answered_once = True
            self.first_answer = time.monotonic() - self._opened

    def notify(self, method: str, params: dict[str, Any] | None = None) -> str:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        return self.wire.send(msg)

    def collect(self, duration: float) -> list[Incoming]:
        """Read (and file) whatever arrives for ``duration`` seconds; return it."""
        seen: list[Incoming] = []
        deadline = time.monotonic() + duration
        while time.monotonic() < deadline:
            try:
                incoming = self.wire.receive(deadline - time.monotonic())
            except WaitTimeout:
                break
            if incoming is None:
                break
            seen.append(incoming)
            self._file(incoming)
        return seen

    def _claim_filed(self, reply: Reply) -> bool:
        """Take ``reply``'s answer from the strays, if it arrived while the kit waited for another
        request: answers may come in any order (a server may answer its requests concurrently)."""
        for incoming in self.stray:
            msg = incoming.msg
            if (incoming.seq > reply.sent_seq and isinstance(msg, dict) and "method" not in msg and "id" in msg
                    and same_id(msg["id"], reply.request_id)):
                self.stray.remove(incoming)
                reply.msg, reply.got, reply.seq = msg, incoming.raw, incoming.seq
                return True
        return False

    def _file(self, incoming: Incoming) -> None:
        msg = incoming.msg
        self.filed += 1
        if isinstance(msg, dict) and isinstance(msg.get("method"), str):
            if "id" in msg:
                if len(self.server_requests) < MAX_FILED:
                    self.server_requests.append(msg)
                self._answer(msg, incoming.seq)
            elif len(self.notifications) < MAX_FILED:
                self.notifications.append(msg)
        elif len(self.stray) < MAX_FILED:
            self.stray.append(incoming)

    def _answer(self, msg: dict[str, Any], seq: int) -> None:
        """Pings get ``{}``; elicitation/create, where the kit declared elicitation, is declined
        (the user said no: the kit never makes up data); anything else -32601, since the kit
        declared no other client capability."""
        if msg["method"] == "ping":
            self.wire.send({"jsonrpc": "2.0", "id": msg["id"], "result": {}})
        elif msg["method"] == "elicitation/create" and "elicitation" in self.declared:
            if len(self.elicited) < MAX_FILED:
                self.elicited.append(msg)
            self.wire.send({"jsonrpc": "2.0", "id": msg["id"], "result": {"action": "decline"}})
        else:
            if len(self.refused) < MAX_FILED:
                self.refused.append((seq, str(msg["method"])))
            self.wire.send({"jsonrpc": "2.0", "id": msg["id"], "error": {
                "code": -32601, "message": f"Method not found: the checker declared no capability for {msg['method']}"}})

    def refused_since(self, reply: Reply) -> list[str]:
        """Methods of the server's requests the kit refused while ``reply`` was in flight."""
        start = reply.sent_seq
        end = reply.seq if reply.seq >= 0 else 1 << 60
        return [method for seq, method in self.refused if start <= seq <= end]

    def initialize(self, version: str | None = None, capabilities: dict[str, Any] | None = None,
                   *, initialized: bool = True) -> Reply:
        """Send ``initialize`` proposing ``version`` (the run's offer if None), and, if it
        succeeds and ``initialized``, the initialized notification."""
        version = self.offer if version is None else version
        reply = self.request("initialize", {"protocolVersion": version, "capabilities": capabilities or {},
                                            "clientInfo": dict(CLIENT_INFO)}, request_id=0)
        self.init = reply
        self.declared = dict(capabilities or {})
        if initialized and reply.is_result:
            self.notify("notifications/initialized")
        return reply

    @property
    def agreed(self) -> str | None:
        """The version this session agreed on: the initialize result's, when it is a revision the
        kit knows (None before initialize, or for a version nobody defined)."""
        if self.init is None or not isinstance(self.init.result, dict):
            return None
        version = self.init.result.get("protocolVersion")
        return version if isinstance(version, str) and version in REVISIONS else None
