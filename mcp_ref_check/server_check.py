"""What a server case gets as ``t``: its connections, what discovery learned, and ways to judge.

Not a spec section: the check context of the conformance checker's server cases (server_run.py
holds the run it belongs to; runner.py runs the cases).

1. Connections: ``session()`` borrows the shared session (a case that only reads), ``rough_session()``
   the one for malformed input, ``connect()`` and ``fresh_session()`` open one of the case's own.
2. Judging: ``answered``, ``expect_result``, ``expect_error``, ``shape`` and ``content`` record
   findings (model.Recorder) with what was sent and what came back.
3. ``messages()``: the case's share of the transcripts, for the report.
"""

from __future__ import annotations

from typing import Any, NoReturn

from . import revisions, shapes
from .model import MAX_CASE_MESSAGES, Abort, Case, Recorder
from .peer import Peer, Reply
from .server_run import Discovery, ServerRun
from .stateless_meta import stateless_meta
from .stdio_wire import StdioWire
from .wire import Wire, shown


class ServerCheck(Recorder):
    """What a server case gets as ``t``: connections, discovery, and ways to record findings."""

    def __init__(self, run: ServerRun, case: Case) -> None:
        super().__init__()
        self.run = run
        self.case = case
        self.level = case.at_most
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

    # --- the revision the run grades at (revisions.py) --------------------------------------------

    @property
    def version(self) -> str:
        """The revision the session agreed on, whose rules this case applies."""
        return self.info.version

    def since(self, revision: str) -> bool:
        """Whether the agreed revision has what ``revision`` brought."""
        return revisions.since(self.version, revision)

    def rule(self, name: str) -> str:
        """The requirement ID of rule ``name`` at the agreed revision (revisions.RULES)."""
        return revisions.rule_for(name, self.version)

    def require_revision(self, revision: str, what: str) -> None:
        """Skip the case unless the session agreed on ``revision`` or a later one."""
        if not self.since(revision):
            self.skip(f"{what} came with {revision}; the session agreed on {self.version}")

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
        """A new connection of this case's own, initialized (else the case ends with a finding). In
        a run of 2026-07-28 there is nothing to initialize: a new connection whose requests bring
        ``capabilities`` in their ``_meta``."""
        peer = self.connect()
        if self.run.options.stateless:
            if capabilities:
                peer.meta = stateless_meta(self.version, capabilities)
            return peer
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
        if reply.refused_without_session is not None:  # Streamable HTTP: the refusal is an answer
            self.note(f"{what}: the POST was refused with HTTP {reply.refused_without_session}, before any session "
                      "existed (SHTTP-38: a request without a session id, other than initialize, may be refused so)")
            return
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
        if not reply.is_result and reply.refused_without_session is not None:
            # SHTTP-38 (2025-03-26) lets the server refuse a request that carries no session id: the
            # refusal is what the transport's page allows, so it is noted (INFO), never a finding
            # (spec_notes/checker.md, "Issue 34"). Before, it was a warning on the 2024-11-05 rule.
            self.note(f"INFO: {what}: refused with HTTP {reply.refused_without_session}, as the Streamable HTTP page "
                      "lets a server refuse a request that carries no session id (SHTTP-38, 2025-03-26); over "
                      f"stdio and SSE, {req_id} would ask for a result")
            raise Abort("refused before any session, as SHTTP-38 allows")
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
        self.check(self.code_in(reply.code, codes, what), req_id,
                   f"{what}: expected error {_codes(codes)}, got {code_words(reply.code)}", reply.sent, reply.got)
        return True

    AUDIT_OF_CODES = "messages.errors-have-integer-codes-and-short-messages"

    def code_in(self, code: Any, codes: tuple[int, ...], what: str) -> bool:
        """Is the error ``code`` one of ``codes``? A code of the right value but the wrong type (the
        string "-32601") is one mistake, judged once for the whole run by the audit of error codes
        (MSG-07) when this run has it: here it counts as the code it spells, with a note, so that
        one mistake is one finding, not one per case that sees an error."""
        if shapes.is_int(code):
            return code in codes
        try:
            spelled = int(code) if isinstance(code, (str, float)) and not isinstance(code, bool) else None
        except ValueError:
            spelled = None
        if spelled in codes and self.AUDIT_OF_CODES in self.run.selected:
            self.note(f"{what}: the error code is {shapes.json_text(code)}, not the integer {spelled}: judged once, by "
                      f"{self.AUDIT_OF_CODES} (MSG-07)")
            return True
        return False

    def shape(self, problems: shapes.Problems, req_id: str, what: str, reply: Reply | None = None,
              rule: str | None = None) -> bool:
        """One finding listing the shape problems of ``what`` (none: nothing recorded). Its rule
        line says which shapes were judged where the ID is the row of the page's capability
        (``SHAPE_RULES``): "Declare the tools capability" would not say what is wrong."""
        if problems:
            shown_problems = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
            self.check(False, req_id, f"{what} is malformed: {shown_problems}",
                       reply.sent if reply else None, shown(reply.got) if reply else None,
                       rule=rule or SHAPE_RULES.get(req_id))
        return not problems

    def content(self, problems: shapes.Problems, req_id: str, what: str, reply: Reply, union: str) -> None:
        """Shape problems of a result holding content: types outside the agreed revision's union
        (``union`` names the schema's field) are one finding of the negotiated version (LC-14, from
        2025-06-18 its NEGO row); malformed audio goes against 2025-03-26's AUDIO row; the rest
        (resource_link's shape too: its row is a MAY) against ``req_id``."""
        foreign, rest = shapes.outside_union(problems)
        if foreign:
            kinds = sorted({p.split(" is ", 1)[1].split(",", 1)[0] for p in foreign})
            self.check(False, self.rule("negotiated"), f"{what} holds content of type {', '.join(kinds)}, which is "
                       f"not in the content union of {self.version}, the negotiated version ({union}: "
                       f"{', '.join(revisions.content_kinds(self.version))}): a later revision added it", reply.sent,
                       shown(reply.got))
        audio = [p for p in rest if "(audio)" in p]  # 2025-03-26 has a row for audio's shape
        if audio:
            self.shape(audio, revisions.ID["audio"], what, reply)
            rest = [p for p in rest if p not in audio]
        self.shape(rest, req_id, what, reply)

    def abort(self) -> NoReturn:
        raise Abort("ended")


# Shapes are checked under the row of the page's capability (spec_notes/checker.md, "Decisions"):
# declaring it commits the server to the page's messages. The rule line says which shapes.
SHAPE_RULES = {
    "TOOL-05": "A server that declares tools answers with the tools page's shapes: each listed tool has a name "
               "and an inputSchema, a JSON Schema of type \"object\"; a tools/call result has a content array of "
               "text, image or resource items, and isError, when present, is a boolean",
    "RES-01": "A server that declares resources answers with the resources page's shapes: resources with a uri "
              "and a name, templates with a uriTemplate, contents with a uri and a text or a base64 blob",
    "PRM-01": "A server that declares prompts answers with the prompts page's shapes: prompts with a name, "
              "messages with a role (user or assistant) and text, image or resource content",
    "LOG-01": "A server that declares logging answers logging/setLevel with an empty result and sends log "
              "messages with a level and data",
    "CMP-12": "A completion result holds completion.values (at most 100 strings), total an integer and hasMore a "
              "boolean when present",
    "LC-07": "The initialize result has protocolVersion, capabilities (each an object, its flags booleans) and "
             "serverInfo with a name and a version, all strings but capabilities",
}


def code_words(code: Any) -> str:
    """An error code as a report shows it: in JSON terms, saying so when it is not a number."""
    if isinstance(code, str):
        return f"{shapes.json_text(code)} (a string: error codes are integers, MSG-07)"
    return shapes.json_text(code)


def _codes(codes: tuple[int, ...]) -> str:
    return " or ".join(str(c) for c in codes)
