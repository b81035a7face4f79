"""Why a peer could not be reached, in words of our own: what happened, then what to check.

Not a spec section: shared by the commands that connect (request_cmd.py for ``request`` and
``inspect``, mcp_ref_check/command.py for ``check``), so that every transport's failure to connect reads as
clearly as HTTP with SSE's (machinery/http/client_plumbing.py, ``unreachable``):
``not_started(program, exc)``: a command that could not be started, because there is no such
program (the PATH, or the path given) or it may not be run (permissions); None for any other
reason. Read from the exceptions ``exc`` was raised from, never from their text. (The checker's
``http_unreachable``, which asks a URL whether anything answers there at all, is its own.)
"""

from __future__ import annotations

import os


def causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions it was raised from, nearest first."""
    found: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not seen for seen in found):
        found.append(current)
        current = current.__cause__ or current.__context__
    return found


def not_started(program: str, exc: BaseException) -> str | None:
    """Why ``program`` could not be started, and what to check; None if it is not that."""
    chain = causes(exc)
    if any(isinstance(cause, FileNotFoundError) for cause in chain):
        if os.sep in program:
            return f"there is no program {program!r}; check the path"
        return (f"there is no program {program!r} on PATH; check its spelling and that it is installed, or give "
                "its full path")
    if any(isinstance(cause, PermissionError) for cause in chain):
        return (f"{program!r} cannot be run (permission denied); check that it is an executable program, or run "
                f"it through its interpreter (e.g. python {program})")
    return None
