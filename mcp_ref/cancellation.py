"""Cancellation: telling the peer that the answer to one of our requests is no longer wanted.

Spec page: basic/utilities/cancellation
https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/cancellation

In short:

1. Either side may give up on a request it sent and is still waiting for. It tells the peer with
   the notification ``notifications/cancelled``, whose ``requestId`` is the id of that request
   and whose optional ``reason`` says why (CAN-01, CAN-20). The ``initialize`` request is never
   cancelled (CAN-03, CAN-19).
2. The side that gave up ignores an answer that still arrives afterwards (CAN-10): the two
   messages may cross on the wire, and both sides must take that race calmly (CAN-11, CAN-17).
3. The receiver stops working on the request and lets go of what it holds (CAN-04, CAN-05,
   CAN-18), and sends no answer for it (CAN-06). A cancellation of a request it does not know,
   has finished, or cannot interrupt, and a malformed one, is ignored (CAN-07..09, CAN-14..16).
4. The reason is worth logging, and may be shown to a person (CAN-12, CAN-13, CAN-21).

Here: the engine (session.py) calls ``tell_peer`` when a request of ours times out or is given
up, and ``receive`` when the peer's notice arrives. A handler sees a cancellation through its
context (``Cancellable``): ``ctx.is_cancelled``, or ``ctx.cancelled``, an Event to wait on. Two
things only the engine can do, it does: it sends no answer for a request whose flag is set
(CAN-06, ``Session._finish``), and drops a late answer (CAN-10, ``Session._on_response``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, Protocol

from . import messages
from .messages import RequestId

log = logging.getLogger("mcp_ref.cancellation")

METHOD = "notifications/cancelled"

_EVENT_LOCK = threading.Lock()  # makes each Cancellation's Event exactly once


class Cancellation:
    """The flag a handler reads: set once, when the peer cancels the request or the connection
    ends. ``is_set`` is cheap; ``event`` (made on first use: most requests never need one) can
    be waited on, so ``ctx.cancelled.wait(0.1)`` sleeps a tenth of a second unless cancelled."""

    __slots__ = ("_set", "_event", "reason")

    def __init__(self) -> None:
        self._set = False
        self._event: threading.Event | None = None
        self.reason: str | None = None  # CAN-21: kept for the handler to log or show

    @property
    def is_set(self) -> bool:
        return self._set

    @property
    def event(self) -> threading.Event:
        with _EVENT_LOCK:
            if self._event is None:
                self._event = threading.Event()
                if self._set:
                    self._event.set()
            return self._event

    def set(self, reason: str | None) -> None:
        self.reason = reason
        with _EVENT_LOCK:
            self._set = True
            if self._event is not None:
                self._event.set()


class Cancellable:
    """What this page gives a handler's context (session.RequestContext takes it in): the flag,
    as ``ctx.is_cancelled``, ``ctx.cancelled`` (an Event) and ``ctx.cancel_reason``."""

    cancellation: Cancellation

    @property
    def is_cancelled(self) -> bool:
        return self.cancellation.is_set

    @property
    def cancelled(self) -> threading.Event:
        """Set when the request is cancelled, or its connection ends: ``ctx.cancelled.wait(0.1)``
        sleeps a tenth of a second unless cancelled first."""
        return self.cancellation.event

    @property
    def cancel_reason(self) -> str | None:
        return self.cancellation.reason


class Running(Protocol):
    """What ``receive`` needs to know of a request the peer sent us and we are still handling."""

    method: str
    cancellation: Cancellation


# --- sending: we give up on a request of ours ----------------------------------------------------


def tell_peer(notify: Callable[..., None], request_id: RequestId, method: str, reason: str | None,
              timeout: float) -> None:
    """Send ``notifications/cancelled`` for our request ``request_id`` (of ``method``) with
    ``notify(method, params, timeout=...)``, within ``timeout`` seconds; a notice that cannot go
    out in that time is dropped quietly (a peer that does not read is often why we give up). The
    caller has already removed the request from its pending table, so it names only a request of
    ours still in flight (CAN-01, CAN-02, CAN-17)."""
    if method == "initialize":  # CAN-03, CAN-19: initialize is never cancelled
        return
    params: dict[str, Any] = {"requestId": request_id}  # CAN-20: the id we sent it with, same direction
    if reason:
        params["reason"] = reason
    try:
        notify(METHOD, params, timeout=timeout)
    except (messages.McpError, TimeoutError) as exc:  # the peer is gone or not reading: nobody to tell
        log.debug("could not tell the peer that %s (id %r) was cancelled: %s", method, request_id, exc)


# --- receiving: the peer gives up on a request it sent us ----------------------------------------


def receive(params: dict[str, Any], running: Callable[[RequestId], Running | None]) -> None:
    """Handle the peer's ``notifications/cancelled``: flag the request it names, if we are still
    handling it (``running(request_id)``); ignore it otherwise."""
    request_id = params.get("requestId")
    reason = params.get("reason")
    ctx = running(request_id) if messages.is_valid_id(request_id) else None
    # CAN-07, CAN-08
    # CAN-14, CAN-15
    if ctx is None:  # CAN-16: unknown, finished or malformed
        log.debug("ignoring cancellation of unknown request %r", request_id)
        return
    # CAN-09: a request that cannot be interrupted ignores the cancellation
    if ctx.method == "initialize":  # CAN-03: initialize cannot be cancelled
        return
    # CAN-12, CAN-21: the reason is logged, and kept for the handler in ctx.cancel_reason
    log.info("peer cancelled request %r (%s): %s", request_id, ctx.method, reason)
    # CAN-04, CAN-05
    # CAN-18: the handler is told, so it can stop and let go of what it holds
    ctx.cancellation.set(reason if isinstance(reason, str) else None)
