"""The checker's vocabulary: cases, findings, statuses, and how a case registers itself.

Not a spec section: the conformance checker's model (see __init__.py).

1. A *case* is a small function that checks one behaviour of a peer. It is registered with the
   spec page it belongs to and the requirement IDs it checks (``@server_case("server/tools",
   "TOOL-18")``). Its docstring says, in our words, what it checks.
2. While it runs, a case records *findings*: "requirement X is not met, because ...". Each
   finding names one requirement ID; the index (mcp_ref_check/requirements.py) gives that ID's
   strength, and the strength decides the status: an unmet MUST makes the case FAIL, an unmet
   SHOULD makes it WARN, a MAY never fails (it is noted).
3. A case that cannot apply (an undeclared capability, another transport, a tool call without
   ``--call-tools``) is SKIP, with the reason. A case whose own code crashes is ERROR: that is a
   fault of the kit, never blamed on the peer.
4. A case's *level* (shown by ``--list`` and in the summary) is the strongest of its IDs, with
   two exceptions the case declares: ``informative`` (INFO: no rule binds the peer there, so it
   only notes what it sees) and ``at_most="SHOULD"`` (its findings are warnings at most, and say
   why: the spec and its schema disagree, or the case applies a rule's stated purpose beyond its
   letter).
5. This module imports no case module: the case modules import it to register themselves, and
   registry.py imports them (see registry.py for the kit's layers).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn

STRENGTHS = ("MUST", "SHOULD", "MAY")  # strongest first
LEVELS = (*STRENGTHS, "INFO")  # a case's level: INFO for an informative case, which never fails


class Status(str, enum.Enum):
    """How a case ended."""

    PASS = "PASS"
    FAIL = "FAIL"  # a MUST is not met
    WARN = "WARN"  # a SHOULD is not met
    SKIP = "SKIP"  # the case does not apply to this peer (the reason says why)
    ERROR = "ERROR"  # the kit itself failed while running the case


def requirement(req_id: str) -> Any:
    """The index entry for ``req_id`` (imported here, so ``import mcp_ref`` never loads the kit):
    an ID of 2024-11-05 (requirements.py), or of a later revision's index (``SHTTP-NN`` of the
    2025-03-26 transports page, ``ELIC-NN`` of 2025-06-18, ...), all found through indexes.py."""
    from . import indexes

    return indexes.get(req_id)


def strength_of(req_id: str) -> str:
    """MUST, SHOULD or MAY, from the requirement index."""
    return str(requirement(req_id).strength)


def strongest(ids: tuple[str, ...]) -> str:
    return min((strength_of(i) for i in ids), key=STRENGTHS.index)


@dataclass
class Finding:
    """One requirement the peer did not meet, with the evidence.

    ``level`` lowers the strength an ID would give (a rule the schema contradicts is a warning);
    ``knock_on`` marks a finding that only says the peer stopped answering or went away: once the
    kit has found the root cause of that (see server_run.ServerRun.went_away), such findings of
    other cases are not counted. ``headers`` are HTTP headers the kit sent, where they matter.
    """

    id: str
    message: str
    sent: str | None = None  # the message the kit sent, as on the wire
    got: str | None = None  # what came back (or a description of the silence)
    level: str | None = None
    knock_on: bool = False
    headers: dict[str, str] | None = None
    about: str | None = None  # the rule judged, in one line, where the ID's summary does not say it

    @property
    def strength(self) -> str:
        own = strength_of(self.id)
        if self.level is not None and STRENGTHS.index(self.level) > STRENGTHS.index(own):
            return self.level
        return own

    @property
    def rule(self) -> str:
        """The rule the case judged, in one line of our own words: the index's summary of the ID,
        or, where that summary names only the ID's gist (a shape checked under the row of the
        page's capability, TOOL-05, LC-07...), what the case judged (``about``)."""
        return self.about or str(requirement(self.id).summary)

    @property
    def section(self) -> str | None:
        from .sections import section

        return section(self.id)

    @property
    def link(self) -> str:
        """The spec page of the requirement, at its section when it has one."""
        from .sections import anchor

        url = str(requirement(self.id).url)
        return f"{url}#{anchor(self.section)}" if self.section else url

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "level": self.strength, "message": self.message, "rule": self.rule,
                               "page": requirement(self.id).page, "section": self.section, "link": self.link}
        if self.sent is not None:
            out["sent"] = self.sent
        if self.got is not None:
            out["got"] = self.got
        if self.headers:
            out["headers"] = dict(self.headers)
        return out


class Abort(Exception):
    """Raised inside a case to end it at once (after a finding, or to skip)."""


class Skipped(Abort):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Case:
    """A registered check. ``func(t)`` runs it; ``t`` is the side's check context."""

    name: str
    page: str
    ids: tuple[str, ...]
    side: str  # "server" or "client"
    func: Callable[[Any], None]
    fresh: bool = False  # needs a connection of its own (server side)
    transport: str | None = None  # only over "stdio" or "sse"
    call_tools: bool = False  # runs the server's tools: only with --call-tools
    audit: bool = False  # judges the traffic of the whole run: runs last
    hostile: bool = False  # sends hostile input: only with --hostile
    informative: bool = False  # reports what it saw, never a finding: no rule binds this peer here
    at_most: str | None = None  # "SHOULD": every finding is a warning at most (see the module docstring, point 4)
    era: str | None = None  # "stateless": runs only in a run of 2026-07-28 (server_stateless.py), SKIP otherwise

    @property
    def summary(self) -> str:
        """The first sentence of the docstring (what the case checks)."""
        doc = " ".join((self.func.__doc__ or "").split())
        return doc.split(". ")[0].rstrip(".") if doc else self.name

    @property
    def description(self) -> str:
        return " ".join((self.func.__doc__ or "").split())

    @property
    def level(self) -> str:
        if self.informative:
            return "INFO"
        own = strongest(self.ids)
        if self.at_most is not None and STRENGTHS.index(self.at_most) > STRENGTHS.index(own):
            return self.at_most
        return own

    def matches(self, selector: str) -> bool:
        """``--only``: a page ("server/tools" or "tools"), a requirement ID, a case name, or
        "hostile" (the cases of --hostile)."""
        selector = selector.strip().rstrip("/")
        if selector == "hostile":
            return self.hostile
        if "://" in selector:  # a page URL
            selector = selector.split("/2024-11-05/", 1)[-1]
        return (selector.upper() in self.ids or selector in (self.name, self.name.split(".", 1)[1], self.page)
                or self.page.endswith("/" + selector))


@dataclass
class CaseResult:
    """What running one case produced."""

    case: Case
    status: Status
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    skip_reason: str | None = None
    error: str | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    duration: float = 0.0
    cut: int = 0  # messages of this case left out of the report (see MAX_CASE_MESSAGES)

    @property
    def failed_ids(self) -> list[str]:
        return [f.id for f in self.findings if f.strength in ("MUST", "SHOULD")]

    @property
    def detail(self) -> str:
        if self.status is Status.SKIP:
            return self.skip_reason or ""
        if self.status is Status.ERROR:
            return self.error or ""
        if self.findings:
            return "; ".join(f"{f.id}: {f.message}" for f in self.findings)
        return "; ".join(self.notes)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.case.name, "page": self.case.page, "ids": list(self.case.ids),
            "level": self.case.level, "status": self.status.value, "summary": self.case.summary,
            "detail": self.detail, "findings": [f.as_dict() for f in self.findings], "notes": self.notes,
            "duration": round(self.duration, 3), "messages": self.messages,
            **({"messages_cut": self.cut} if self.cut else {}),
        }


def status_of(findings: list[Finding]) -> Status:
    """FAIL if a MUST is unmet, WARN if only SHOULDs are; a MAY never fails a case."""
    strengths = {f.strength for f in findings}
    if "MUST" in strengths:
        return Status.FAIL
    if "SHOULD" in strengths:
        return Status.WARN
    return Status.PASS


MAX_FINDINGS = 50  # per case: a peer wrong a thousand times gets fifty findings and a count
MAX_CASE_MESSAGES = 400  # messages of one case kept in the JSON report
MAX_NOTES = 50


class Recorder:
    """The part of a check context every case uses: findings, notes, skipping."""

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.notes: list[str] = []
        self.dropped = 0  # findings past MAX_FINDINGS
        self.level: str | None = None  # caps the strength of every finding (a case's at_most)
        self.informative = False  # an informative case turns findings into notes

    def add(self, finding: Finding) -> None:
        if self.informative:
            self.note(f"{finding.id}: {finding.message}")
            return
        if self.level is not None and finding.level is None:
            finding.level = self.level
        if len(self.findings) < MAX_FINDINGS:
            self.findings.append(finding)
        else:
            self.dropped += 1

    def check(self, ok: bool, req_id: str, message: str, sent: str | None = None, got: str | None = None, *,
              knock_on: bool = False, headers: dict[str, str] | None = None, level: str | None = None,
              rule: str | None = None) -> bool:
        """Record a finding against ``req_id`` unless ``ok``; return ``ok``. ``rule``: the rule
        judged, in one line, when the ID's summary does not say it (see Finding.rule)."""
        if not ok:
            self.add(Finding(req_id, message, sent, got, level=level, knock_on=knock_on, headers=headers, about=rule))
        return ok

    def fail(self, req_id: str, message: str, sent: str | None = None, got: str | None = None, *,
             knock_on: bool = False, headers: dict[str, str] | None = None, level: str | None = None,
             rule: str | None = None) -> NoReturn:
        """Record a finding and end the case."""
        self.add(Finding(req_id, message, sent, got, level=level, knock_on=knock_on, headers=headers, about=rule))
        raise Abort(message)

    def note(self, text: str) -> None:
        if len(self.notes) < MAX_NOTES:
            self.notes.append(text)

    def skip(self, reason: str) -> NoReturn:
        raise Skipped(reason)


# --- registration (registry.py imports the case modules, which register themselves here) -----

SERVER_CASES: list[Case] = []
CLIENT_CASES: list[Case] = []


def _register(side: str, page: str, ids: tuple[str, ...], func: Callable[[Any], None], **options: Any) -> Case:
    from . import requirements

    if not ids:
        raise ValueError(f"case {func.__name__} names no requirement ID")
    for req_id in ids:
        requirement(req_id)  # an unknown ID fails here, at import, not in a report
    if page not in requirements.PAGES:
        raise ValueError(f"case {func.__name__}: unknown page {page!r}")
    if not (func.__doc__ or "").strip():
        raise ValueError(f"case {func.__name__} has no docstring saying what it checks")
    short = page.rsplit("/", 1)[-1]
    name = f"{short}.{func.__name__.strip('_').replace('_', '-')}"
    registry = SERVER_CASES if side == "server" else CLIENT_CASES
    if any(c.name == name for c in registry):
        raise ValueError(f"two {side} cases are named {name}")
    case = Case(name, page, ids, side, func, **options)
    registry.append(case)
    return case


def server_case(page: str, *ids: str, fresh: bool = False, transport: str | None = None, call_tools: bool = False,
                audit: bool = False, hostile: bool = False, informative: bool = False,
                at_most: str | None = None, era: str | None = None) -> Callable[[Callable[[Any], None]], Callable[[Any], None]]:
    """Register a server case: ``@server_case("server/tools", "TOOL-18")``; ``era="stateless"``
    for a case of revision 2026-07-28 alone (server_stateless.py)."""
    def register(func: Callable[[Any], None]) -> Callable[[Any], None]:
        _register("server", page, ids, func, fresh=fresh, transport=transport, call_tools=call_tools, audit=audit,
                  hostile=hostile, informative=informative, at_most=at_most, era=era)
        return func
    return register


def client_case(page: str, *ids: str, transport: str | None = None, informative: bool = False,
                at_most: str | None = None, era: str | None = None) -> Callable[[Callable[[Any], None]], Callable[[Any], None]]:
    """Register a client case: ``@client_case("basic/lifecycle", "LC-08")`` (``era`` as for server_case)."""
    def register(func: Callable[[Any], None]) -> Callable[[Any], None]:
        _register("client", page, ids, func, transport=transport, informative=informative, at_most=at_most, era=era)
        return func
    return register


def select(cases: list[Case], only: list[str]) -> list[Case]:
    """The cases matching any ``--only`` selector (all of them when there is none)."""
    if not only:
        return cases
    chosen = [c for c in cases if any(c.matches(s) for s in only)]
    return chosen


ID_PATTERN = re.compile(r"^[A-Z]+-\d+$")
