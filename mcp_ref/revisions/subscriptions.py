"""Subscriptions: one long request through which a client of 2026-07-28 hears what changed on the server.

Spec page: basic/patterns/subscriptions
https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions
It replaces ``resources/subscribe`` and the GET stream of the revisions before.

1. The client sends ``subscriptions/listen`` with a filter, ``notifications``: which of
   ``toolsListChanged``, ``promptsListChanged``, ``resourcesListChanged`` it wants (true), and
   ``resourceSubscriptions``, the URIs whose updates it wants (SUBS-11: this is how resources are
   watched now). The server sends nothing it was not asked for (SUBS-01).
2. The server first sends ``notifications/subscriptions/acknowledged``, with the part of the
   filter it will honour, before anything else of that subscription (SUBS-02, SUBS-03). We honour
   the lists of what the server offers (a server without prompts honours no prompt flag) and
   every URI asked for.
3. Every notification of the subscription carries its id, the JSON-RPC id of the listen
   request, in ``_meta`` under ``io.modelcontextprotocol/subscriptionId`` (SUBS-10): on stdio,
   where many subscriptions share one pipe, that is how the client tells them apart (SUBS-05).
   A client may hold several at once (SUBS-06).
4. The request never ends by itself: the client ends it by closing its response stream (HTTP)
   or with ``notifications/cancelled`` (stdio), and the end of the connection ends it. Then no
   answer is sent (a cancelled request gets none: session.py, CAN-06). Progress and log messages
   never go on it: they belong to the request they are about. mcp_ref's server never ends a
   subscription on its own while the connection lasts, so it has no occasion for the closing
   result of SUBS-07 nor for the ``notifications/cancelled`` of CANCEL-02.

How it hooks in: stateless.py routes ``subscriptions/listen`` here; the handler registers a
``Listener`` for the server, sends the acknowledgement and waits for its end, while
``changed`` (which Server calls where it tells the sessions of the handshake about a change)
sends each listener what its filter asked for, on the listener's own connection.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from ..messages import InvalidParams, McpError
from .versioning import LISTEN, PREFIX

METHOD = LISTEN
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
SUBSCRIPTION_KEY = PREFIX + "subscriptionId"
FLAGS = {"toolsListChanged": "tools", "promptsListChanged": "prompts", "resourcesListChanged": "resources"}
URIS = "resourceSubscriptions"
CHECK_EVERY = 1.0  # seconds between looks at whether the listener's connection is still there


class Listener:
    """One open ``subscriptions/listen`` request: where to send, under which id, and what for."""

    def __init__(self, session: Any, subscription_id: Any, honoured: dict[str, Any], ended: Any) -> None:
        self.session, self.subscription_id, self.honoured = session, subscription_id, honoured
        self.ended = ended  # the request's cancellation flag: set, nothing more goes (even before its thread wakes)
        self.lock = threading.Lock()  # held while the acknowledgement goes out: nothing overtakes it

    def wants(self, method: str, params: dict[str, Any]) -> bool:
        if method == "notifications/resources/updated":
            return params.get("uri") in self.honoured.get(URIS, [])
        feature = method.split("/")[1]  # notifications/<feature>/list_changed
        return any(self.honoured.get(flag) for flag, of in FLAGS.items() if of == feature)

    def send(self, method: str, params: dict[str, Any]) -> bool:
        """``params`` with the subscription's id in ``_meta``; whether it went."""
        with self.lock:
            if self.ended.is_set():  # cancelled: the client's notifications/cancelled came before this change
                return False
            try:
                self.session.notify(method, {**params, "_meta": {SUBSCRIPTION_KEY: self.subscription_id}})  # SUBS-10
                return True
            except McpError:
                return False  # its connection ended meanwhile


_listeners: weakref.WeakKeyDictionary[Any, set[Listener]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def listen(server: Any, ctx: Any, offered: dict[str, Any]) -> dict[str, Any]:
    """The handler of ``subscriptions/listen`` (points 1..4), for a server whose capabilities in
    this revision are ``offered``; returns only if the request ends without being cancelled."""
    wanted = ctx.params.get("notifications", {})
    if not isinstance(wanted, dict) or not all(isinstance(wanted.get(flag, False), bool) for flag in FLAGS):
        raise InvalidParams("Invalid params: notifications must be an object of true/false flags "
                            f"({', '.join(FLAGS)}) and {URIS}, a list of URIs", {"field": "notifications"})
    uris = wanted.get(URIS, [])
    if not isinstance(uris, list) or not all(isinstance(uri, str) for uri in uris):
        raise InvalidParams(f"Invalid params: notifications.{URIS} must be a list of URIs", {"field": URIS})
    # SUBS-01: only what was asked, of what this server offers
    honoured: dict[str, Any] = {flag: True for flag, feature in FLAGS.items() if wanted.get(flag) and feature in offered}
    if uris and "resources" in offered:
        honoured[URIS] = list(dict.fromkeys(uris))
    listener = Listener(ctx.session, ctx.request_id, honoured, ctx.cancelled)
    with listener.lock:  # SUBS-02: registered, but nothing goes out before the acknowledgement
        with _lock:
            _listeners.setdefault(server, set()).add(listener)
        ctx.session.notify(ACKNOWLEDGED, {"notifications": honoured, "_meta": {SUBSCRIPTION_KEY: ctx.request_id}})
    try:
        while not ctx.cancelled.wait(CHECK_EVERY) and not ctx.session.is_closed:
            pass  # point 4: until the client cancels it or its connection ends
    finally:
        with _lock:
            _listeners.get(server, set()).discard(listener)
    return {"_meta": {SUBSCRIPTION_KEY: ctx.request_id}}


def changed(server: Any, method: str, params: dict[str, Any] | None = None) -> int:
    """Tell every listener of ``server`` whose filter asked for it (SUBS-01); how many were told."""
    with _lock:
        listeners = list(_listeners.get(server, ()))
    return sum(listener.send(method, params or {}) for listener in listeners  # LISTS-04, LISTS-06
               if listener.wants(method, params or {}))  # SUBS-01
