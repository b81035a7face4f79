"""A whole run of the kit: the selected cases of the registry against one server or one client.

Not a spec section: the conformance checker's entry points for Python (see __init__.py)::

    from mcp_ref.tooling.check.runner import Options, Target, run_server_check
    results, discovery = run_server_check(Target(stdio="mcp-ref serve"), Options())
"""

from __future__ import annotations

import time
import traceback
from pathlib import Path

from .client_check import UNSUPPORTED_VERSION, ClientCheck, ClientOptions, ClientSession, SetupFailed, run_client
from .model import Abort, CaseResult, Skipped, Status, select, status_of
from .registry import all_client_cases, all_server_cases
from .server_check import Discovery, Options, ServerRun, Target

__all__ = ["ClientOptions", "Options", "SetupFailed", "Target", "run_client_check", "run_server_check"]


def run_server_check(target: Target, options: Options) -> tuple[list[CaseResult], Discovery]:
    """Run the selected server cases; raises SetupFailed when the server cannot be reached."""
    cases = select(all_server_cases(), options.only)
    run = ServerRun(target, options)
    try:
        results = run.run(cases)
        assert run.discovery is not None
        return results, run.discovery
    finally:
        run.close()


def run_client_check(command: list[str], options: ClientOptions) -> tuple[list[CaseResult], ClientSession]:
    """Run the client and then the selected client cases over what it did."""
    session = run_client(command, options)
    cases = select(all_client_cases(), options.only)
    if options.version_run and any("LC-26" in case.ids for case in cases):
        try:
            session.version_run = run_client(command, options, version=UNSUPPORTED_VERSION)
        except SetupFailed:
            session.version_run = None  # it never connected the second time: the case says so
    results = []
    for case in cases:
        started = time.monotonic()
        t = ClientCheck(session, options.timeout)
        skip_reason = error = None
        try:
            if case.transport is not None and case.transport != session.transport:
                raise Skipped(f"applies to the {case.transport} transport only")
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
