"""Progress: news about a long request, before its answer.

Spec page: basic/utilities/progress
https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/progress

In short:

1. A requester that wants to hear how a request is getting on puts a *progress token* in the
   request's ``params._meta.progressToken``: a string or an integer, different from the token of
   every other request it has in flight (PROG-01, PROG-02).
2. The receiver may then send ``notifications/progress`` with that token, the work done so far
   (``progress``) and, when it knows it, the ``total`` (PROG-03..05, PROG-12). Both may be
   fractional (PROG-07). It may also send none, or as many as it likes (PROG-10, PROG-11, PROG-17).
3. ``progress`` grows with every notification, whether or not the total is known (PROG-06,
   PROG-16), and the notifications name only a token of a request still being worked on, so they
   stop once the answer has gone (PROG-08, PROG-09, PROG-15).
4. Both sides keep track of the tokens in use (PROG-13): a notification with a token nobody is
   waiting for is ignored.

Here: ``ask_for_progress`` puts the token in a request we send (the engine uses the request's
own id, unique among active requests); ``Reporter`` sends news by these rules, for a handler's
``ctx.report_progress`` (``ReportsProgress``); ``deliver`` hands a notification we receive to the callback
of the request it names (the whole params: ``progress``, ``total``, and ``message`` when sent).

Where revision 2025-03-26 hooks in (revisions/v2025_03_26.py, item 6): a notification may carry a
``message`` for people, and ``report_progress(..., message=...)`` sends it in sessions of that
revision or later only; the engine tells the ``Reporter`` whether its session speaks it.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import Any

from . import messages
from .messages import RequestId

log = logging.getLogger("mcp_ref.progress")

METHOD = "notifications/progress"

ProgressCallback = Callable[[dict[str, Any]], None]


# --- the requester's side ------------------------------------------------------------------------


def ask_for_progress(params: dict[str, Any] | None, token: RequestId) -> dict[str, Any]:
    """``params`` (a copy) with ``_meta.progressToken`` set to ``token``; other ``_meta`` kept."""
    # PROG-01, PROG-02: the engine passes the request's id: a string or integer, unique in flight
    asked = dict(params or {})
    meta = asked.get("_meta")
    asked["_meta"] = {**(meta if isinstance(meta, dict) else {}), "progressToken": token}
    return asked


def deliver(params: dict[str, Any], callback_for: Callable[[RequestId], ProgressCallback | None]) -> None:
    """Hand the peer's ``notifications/progress`` params to the callback of the request whose
    token they carry (``callback_for(token)``), if one of ours is still waiting for it."""
    token = params.get("progressToken")
    callback = callback_for(token) if messages.is_valid_id(token) else None
    if callback is None:  # PROG-13: not a token of an active request of ours
        return
    try:
        callback(params)
    except Exception:
        log.exception("progress callback failed")


# --- the receiver's side -------------------------------------------------------------------------


def token_of(params: dict[str, Any]) -> RequestId | None:
    """The progress token a request carries, or None. A value that is not a string or integer
    (``1e400`` is a float, infinity) is no token, so we never echo a value that is not JSON."""
    meta = params.get("_meta")
    token = meta.get("progressToken") if isinstance(meta, dict) else None
    return token if messages.is_valid_id(token) else None  # PROG-01


class Reporter:
    """Sends the progress of one request we are handling, by the rules above. ``finish()`` is
    called (by the engine) as its answer is sent; nothing is reported after that."""

    __slots__ = ("token", "_notify", "_speaks_message", "_last", "_finished")

    def __init__(self, token: RequestId | None, notify: Callable[[str, dict[str, Any]], None],
                 speaks_message: Callable[[], bool] = lambda: False):
        self.token = token
        self._notify = notify
        self._speaks_message = speaks_message  # whether the session's revision has the message (2025-03-26)
        self._last: float | None = None
        self._finished = False

    def finish(self) -> None:
        self._finished = True  # PROG-15

    def report(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Send ``notifications/progress``, if the requester asked for it.

        Does nothing when the request carried no token (PROG-10) or has been answered (PROG-15).
        ``progress`` must grow with every call (ValueError otherwise, PROG-06); floats are fine
        (PROG-07); ``total`` may be left out when unknown (PROG-12). ``message`` goes only to a
        session of 2025-03-26 or later."""
        if message is not None and not isinstance(message, str):
            raise ValueError(f"message must be a string, got {message!r}")
        for name, value in (("progress", progress), ("total", total)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or not math.isfinite(value)):
                raise ValueError(f"{name} must be a finite number, got {value!r}")
        # PROG-10, PROG-11
        # PROG-17: whether and how often to report is the handler's choice
        # PROG-08, PROG-09
        if self.token is None or self._finished:  # PROG-15
            return
        # PROG-16: each value larger than the last, whether or not total is known
        if self._last is not None and progress <= self._last:  # PROG-06
            raise ValueError(f"progress must increase with each notification: {progress} after {self._last}")
        self._last = progress
        # PROG-03, PROG-04
        # PROG-07: the request's own token and the work done so far (a float is fine)
        params: dict[str, Any] = {"progressToken": self.token, "progress": progress}
        if total is not None:  # PROG-05, PROG-12: total only when it is known
            params["total"] = total
        if message is not None and self._speaks_message():  # revisions/v2025_03_26.py, item 6
            params["message"] = message
        try:
            self._notify(METHOD, params)
        except messages.NotJson:  # the peer's token is a string with no UTF-8 form: drop it
            log.debug("progress token %r cannot be sent back; progress not reported", self.token)


class ReportsProgress:
    """What this page gives a handler's context (session.RequestContext takes it in):
    ``ctx.report_progress(progress, total=None, message=None)`` and ``ctx.progress_token``."""

    progress: Reporter

    @property
    def progress_token(self) -> RequestId | None:
        return self.progress.token

    def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Send ``notifications/progress`` for this request, if the requester asked for it (the
        rules: ``Reporter.report``); ``message``, for people, from revision 2025-03-26 on."""
        self.progress.report(progress, total, message)
