"""Showing the wire: what ``Client(trace=...)`` installs as the session's trace hook.

Not a spec section: a convenience of client.py for people watching a session, the messages as
they go out and come in (the engine calls the hook with each message's bytes, session.py).

1. ``trace=True`` prints every message on stderr as it is on the wire, with its direction:
   ``client -> server  {json}``, ``client <- server  {json}``.
2. ``trace=fn`` calls ``fn(direction, data)`` with each message instead (``"->"`` or ``"<-"``, and
   its bytes); ``tracer("client")`` of mcp_ref/cli/explain.py is one such function, which
   names each message's spec page and requirement IDs.
3. Anything else is refused at once, saying what to pass (a string is a common slip).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

TraceCallback = Callable[[str, bytes], None]


def print_trace(direction: str, data: bytes) -> None:
    """The ``trace=True`` hook: each message on stderr, ``client -> server  {json}`` or ``<-``."""
    arrow = "client -> server" if direction == "->" else "client <- server"
    sys.stderr.write(f"{arrow}  {data.decode('utf-8', 'replace')}\n")
    sys.stderr.flush()


def trace_hook(trace: TraceCallback | bool | None) -> TraceCallback | None:
    """What ``Client(trace=...)`` means: True prints the raw wire; a function gets each message."""
    if isinstance(trace, str):  # (the explainer is tooling, which the library never imports)
        raise ValueError(f"trace must be True, False or a callable, not {trace!r}; for each message with its "
                         'spec page and IDs, pass trace=tracer("client") (from mcp_ref.cli.explain import tracer)')
    return print_trace if trace is True else None if trace is False else trace
