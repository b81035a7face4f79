"""Completion: argument suggestions for prompts and resource templates, as the user types.

Spec page: server/utilities/completion
https://modelcontextprotocol.io/specification/2024-11-05/server/utilities/completion

In short:

1. ``completion/complete`` names what is being filled in, ``ref``: a prompt
   (``{"type": "ref/prompt", "name": ...}``) or a resource template
   (``{"type": "ref/resource", "uri": <the template>}``), and the ``argument`` with its
   ``name`` and the ``value`` typed so far.
2. The result is ``{"completion": {"values": [...], "total"?, "hasMore"?}}``: at most 100
   values (CMP-12), best first (CMP-01); ``total`` and ``hasMore`` say how many there are.
3. 2024-11-05 has no capability for completion: a server without completers answers -32601.
4. Inputs are validated (CMP-04, CMP-08): a bad ``ref`` or ``argument``, or a ref to a prompt
   or template the server does not have, is -32602.

A completer is a function ``(value) -> list[str]`` (optionally taking ``ctx``), or a fixed list
of strings that is filtered by prefix. From 2025-06-18 a request may carry ``context.arguments``,
the values of the other arguments already chosen
(https://modelcontextprotocol.io/specification/2025-06-18/server/utilities/completion): a
completer with a parameter named ``arguments`` receives them as a dict of strings (empty when
there are none, or in a session of an older revision, which has no context). A completer may
also return a dict with ``values``, ``total`` and ``hasMore`` when it knows better.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, Union

from . import messages
from .functions.registry import close_matches, did_you_mean
from .lifecycle import since
from .messages import InvalidParams, MethodNotFound

MAX_VALUES = 100  # CMP-12
REF_TYPES = {"ref/prompt": "name", "ref/resource": "uri"}

Completer = Union[Callable[..., Any], Sequence[str]]


def completion_result(values: Sequence[str], total: int | None = None, has_more: bool | None = None) -> dict[str, Any]:
    """The ``completion`` object, cut to 100 values (CMP-12) with ``total`` and ``hasMore`` kept
    consistent with what is sent: ``total`` is never less than the values we had, and
    ``hasMore`` is true whenever values were left out, whatever a completer claimed."""
    values = list(values)
    sent = values[:MAX_VALUES]  # CMP-12
    if not all(isinstance(value, str) for value in sent):
        raise TypeError(f"a completer must return strings, got {[type(v).__name__ for v in sent]}")
    if total is not None and (isinstance(total, bool) or not isinstance(total, int) or total < 0):
        raise TypeError(f"a completer's total must be a non-negative integer, got {total!r}")
    total = len(values) if total is None else max(total, len(values))
    more = len(values) > len(sent) or total > len(sent) or bool(has_more)
    return {"completion": {"values": sent, "total": total, "hasMore": more}}


class CompletionRegistry:
    """Completers by (ref type, prompt name or URI template, argument name)."""

    def __init__(self) -> None:
        self._completers: dict[tuple[str, str, str], Completer] = {}
        self._lock = threading.Lock()

    def __bool__(self) -> bool:
        return bool(self._completers)

    def add(self, ref_type: str, ref: str, argument: str, completer: Completer) -> None:
        if ref_type not in REF_TYPES:
            raise ValueError(f"ref_type must be one of {', '.join(REF_TYPES)}")
        with self._lock:
            self._completers[(ref_type, ref, argument)] = completer

    def complete(self, ctx: Any, params: dict[str, Any], known_refs: Callable[[str], list[str]]) -> dict[str, Any]:
        """``completion/complete``. ``known_refs(type)`` lists the server's prompts or resource URIs
        and templates."""
        if not self:
            raise MethodNotFound("Method not found: completion/complete (this server offers no completions)")
        # CMP-04, CMP-08: every input checked, each bad field named.
        ref = messages.param(params, "ref", "object")
        ref_type = messages.param(ref, "type", "string", path="ref.")
        if ref_type not in REF_TYPES:
            raise InvalidParams(f'Invalid params: "ref.type" must be "ref/prompt" or "ref/resource", not '
                                f'{messages.printable(ref_type)!r}', {"field": "ref.type"})
        key = messages.param(ref, REF_TYPES[ref_type], "string", path="ref.")
        argument = messages.param(params, "argument", "object")
        name = messages.param(argument, "name", "string", path="argument.")
        value = messages.param(argument, "value", "string", path="argument.")
        chosen = _context_arguments(params) if since(ctx.session.lifecycle.protocol_version, "2025-06-18") else {}
        known = known_refs(ref_type)
        if key not in known:
            suggestions = close_matches(key, known)
            raise InvalidParams(f"Invalid params: no {ref_type[4:]} {messages.printable(key)!r} on this server"
                                f"{did_you_mean(suggestions)}",
                                {"field": f"ref.{REF_TYPES[ref_type]}", "suggestions": suggestions})
        with self._lock:
            completer = self._completers.get((ref_type, key, name))
        if completer is None:
            return completion_result([])  # CMP-07: nothing to suggest is a valid answer
        return self._run(completer, ctx, value, chosen)

    @staticmethod
    def _run(completer: Completer, ctx: Any, value: str, chosen: dict[str, str]) -> dict[str, Any]:
        if not callable(completer):  # a fixed list: filter by prefix, case-insensitively
            # CMP-01, CMP-02: the list's own order, matched loosely (any case); a function orders its own
            folded = value.casefold()
            return completion_result([v for v in completer if v.casefold().startswith(folded)])
        import inspect

        from .functions.signatures import context_parameter_name  # the Python side, loaded on first use

        context = context_parameter_name(completer)
        extra = {context: ctx} if context else {}
        if "arguments" in inspect.signature(completer).parameters:  # revisions/v2025_06_18.py, item 6
            extra["arguments"] = chosen
        found = completer(value, **extra)
        if isinstance(found, dict):
            return completion_result(found.get("values", []), found.get("total"), found.get("hasMore"))
        return completion_result(list(found))


def _context_arguments(params: dict[str, Any]) -> dict[str, str]:
    """The ``context.arguments`` of a request of 2025-06-18 or later: a map of strings, or -32602 (CMP-04)."""
    context = messages.param(params, "context", "object", required=False) or {}
    chosen = messages.param(context, "arguments", "object", required=False, path="context.") or {}
    if not all(isinstance(v, str) for v in chosen.values()):
        raise InvalidParams('Invalid params: "context.arguments" must map names to strings', {"field": "context.arguments"})
    return dict(chosen)
