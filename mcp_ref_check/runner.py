"""A whole run of the kit: the selected cases of the registry against one server or one client.

Not a spec section: the conformance checker's entry points for Python (see __init__.py)::

    from mcp_ref_check.runner import Options, Target, run_server_check
    results, discovery = run_server_check(Target(stdio="mcp-ref serve"), Options())

How a server run goes (server_run.ServerRun holds its state):

1. Discovery first (one session, initialized, every list read).
2. Cases marked ``fresh`` get connections of their own (lifecycle cases, malformed input, the
   transport's rules); they run a few at a time in threads. The other cases share the discovery
   session, one after another: they only read, and a server is cheap to ask twice.
3. Audit cases run next: they judge everything every connection of the run received (envelopes,
   progress, notifications the server was not entitled to send). Hostile cases run last, one at
   a time: they may bring the server down.
4. A case that saw the server go silent or away asks the run whether it is gone; if it is, the
   root cause is one finding (lifecycle.keeps-answering) and the case is SKIP, not a failure.
"""

from __future__ import annotations

import time
import traceback
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from .case_registry import all_client_cases, all_server_cases
from .client_check import UNSUPPORTED_VERSION, ClientCheck, ClientOptions, ClientSession, SetupFailed, run_client
from .client_stateless_server import stateless
from .model import Abort, Case, CaseResult, Finding, Skipped, Status, select, status_of
from .server_check import ServerCheck
from .server_run import Discovery, Options, ServerRun, Target
from .server_run import SetupFailed as ServerSetupFailed
from .stateless_helpers import stateless_reason
from .wire import ConnectFailed

__all__ = ["ClientOptions", "Options", "SetupFailed", "Target", "run_client_check", "run_server_check"]


def of_the_run(cases: list[Case], stateless_run: bool, only: list[str]) -> list[Case]:
    """The cases of 2026-07-28 belong to its runs: a run of the handshake leaves them out, so that
    it reports exactly as before, even when ``--only`` selects their page; one that ``--only``
    names by its own name stays, and is SKIP saying how to run it."""
    if stateless_run:
        return cases
    return [case for case in cases if case.era != "stateless" or case.name in only]


def run_server_check(target: Target, options: Options) -> tuple[list[CaseResult], Discovery]:
    """Run the selected server cases; raises SetupFailed when the server cannot be reached."""
    cases = of_the_run(select(all_server_cases(), options.only), options.stateless, options.only)
    run = ServerRun(target, options)
    try:
        results = run_server_cases(run, cases)
        assert run.discovery is not None
        return results, run.discovery
    finally:
        run.close()


def run_server_cases(run: ServerRun, cases: list[Case]) -> list[CaseResult]:
    """Run ``cases`` (discovery first); results come back in the order of ``cases``."""
    run.selected = {case.name for case in cases}
    run.discover()
    results: dict[str, CaseResult | Future[CaseResult]] = {}
    hostile = [c for c in cases if c.hostile]  # last, one at a time: they may bring a server down
    fresh = [c for c in cases if c.fresh and not c.audit and not c.hostile]
    shared = [c for c in cases if not c.fresh and not c.audit and not c.hostile]
    audits = [c for c in cases if c.audit]
    with ThreadPoolExecutor(max_workers=max(1, run.options.jobs), thread_name_prefix="check-case") as pool:
        for case in fresh:
            results[case.name] = pool.submit(run_server_case, run, case)
        for case in shared:
            results[case.name] = run_server_case(run, case)
        done = {name: (r.result() if isinstance(r, Future) else r) for name, r in results.items()}
    for case in audits:
        done[case.name] = run_server_case(run, case)
    for case in hostile:
        done[case.name] = run_server_case(run, case)
    return [done[c.name] for c in cases]


def run_server_case(run: ServerRun, case: Case) -> CaseResult:
    """Run one server case; its findings decide its status (see model.status_of)."""
    started = time.monotonic()
    t = ServerCheck(run, case)
    status: Status
    skip_reason = error = None
    try:
        reason = _not_applicable(run, case)
        if reason:
            raise Skipped(reason)
        case.func(t)
        status = status_of(t.findings)
    except Skipped as exc:
        status, skip_reason = Status.SKIP, exc.reason
    except Abort:
        status = status_of(t.findings)
    except (ServerSetupFailed, ConnectFailed) as exc:  # a shared session could not be (re)opened
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
    first = run.gone is None
    if knocked and not case.audit and run.went_away(case.name) and not (case.hostile and first):
        # The server went away: what this case saw is that, not a fault of its own. The root
        # cause is one finding (lifecycle.keeps-answering); this case could not be judged.
        t.findings = [f for f in t.findings if not f.knock_on]
        if status is not Status.ERROR:
            status = status_of(t.findings)
            if not t.findings:
                status, skip_reason = Status.SKIP, f"could not be judged: the server went away ({run.gone})"
    elif status in (Status.PASS, Status.WARN) and not knocked:
        run.last_ok = f"case {case.name}"
    if t.dropped:
        t.notes.append(f"{t.dropped} more finding(s) of this case are not listed")
    return CaseResult(case, status, t.findings, t.notes, skip_reason, error, messages, time.monotonic() - started, cut)


def _not_applicable(run: ServerRun, case: Case) -> str | None:
    era = stateless_reason(case, run.options.stateless, run.target.kind)
    if era:
        return era
    if case.transport is not None and case.transport != run.target.kind:
        return f"applies to the {case.transport} transport only"
    if case.call_tools and not run.options.call_tools:
        return "runs the server's tools: only with --call-tools"
    if case.hostile and not run.options.hostile:
        return "sends hostile input: only with --hostile"
    if case.hostile and run.target.kind == "http":  # its wires are stdio's and HTTP with SSE's (http_wire.py)
        return "sends hostile input over stdio and HTTP with SSE only, not yet over Streamable HTTP"
    if run.gone is not None and not case.audit:
        return f"not run: the server went away ({run.gone})"
    return None


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    last = frames[-1] if frames else None
    return f"{last.filename.rsplit('/', 1)[-1]}:{last.lineno}" if last else "?"


def run_client_check(command: list[str], options: ClientOptions) -> tuple[list[CaseResult], ClientSession]:
    """Run the client and then the selected client cases over what it did."""
    session = run_client(command, options)
    cases = of_the_run(select(all_client_cases(), options.only), stateless(session), options.only)
    if options.version_run and not stateless(session) and any("LC-26" in case.ids for case in cases):
        try:
            session.version_run = run_client(command, options, version=UNSUPPORTED_VERSION)
        except SetupFailed:
            session.version_run = None  # it never connected the second time: the case says so
    results = []
    for case in cases:
        started = time.monotonic()
        t = ClientCheck(session, options.timeout)
        t.level, t.informative = case.at_most, case.informative
        skip_reason = error = None
        try:
            if case.transport is not None and case.transport != session.transport:
                raise Skipped(f"applies to the {case.transport} transport only")
            if case.era == "stateless" and not stateless(session):
                raise Skipped("a case of revision 2026-07-28, which has no handshake: it runs with --protocol-version "
                              "2026-07-28")
            if stateless(session) and case.era != "stateless":
                raise Skipped("not run in revision 2026-07-28: it judges a session opened by initialize, and the "
                              "checking server's requests to the client, which 2026-07-28 does not have (STLS-26, "
                              "MRTR-01)")
            case.func(t)
            status = status_of(t.findings)
        except Skipped as exc:
            status, skip_reason = (status_of(t.findings) if t.findings else Status.SKIP), exc.reason
        except Abort:
            status = status_of(t.findings)
        except Exception as exc:
            status = Status.ERROR
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            error = f"the checker failed: {type(exc).__name__}: {exc} ({Path(frame.filename).name}:{frame.lineno})"
        results.append(CaseResult(case, status, t.findings, t.notes, skip_reason, error, session.messages(),
                                  time.monotonic() - started))
    return results, session
