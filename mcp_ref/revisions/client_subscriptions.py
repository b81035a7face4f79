"""What a client of 2026-07-28 does for the calls its revision took away: ``subscriptions/listen``
in place of ``resources/subscribe`` and the GET stream, a log level on each request in place of
``logging/setLevel``, ``server/discover`` in place of ``ping``.

Spec page: basic/patterns/subscriptions
https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions
(the client's side of that page; the server's is subscriptions.py)
https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging
https://modelcontextprotocol.io/specification/2026-07-28/changelog (ping and logging/setLevel removed)

``mcp_ref.Client`` keeps one API for both eras. With a server of 2026-07-28 its calls become:

1. ``ping()``: the revision has no ``ping``. Every server of it answers ``server/discover``, so
   that is what a ping asks: a round trip that proves the server is there, its result dropped.
   ``ping_interval=N`` asks it every N seconds, and closes the connection when it goes unanswered,
   as a ping would (ping.py's ``keep_alive``, told what to send).
2. ``set_logging_level(level)``: the revision asks for log messages per request, with
   ``io.modelcontextprotocol/logLevel`` in ``_meta``; a request without it gets none (LOGX-01).
   The call checks the level, keeps it for this connection and sends nothing; every later request
   carries it (stateless_client.meta), and the messages of a request come while it runs, to
   ``on_log_message`` as before.
3. ``on_list_changed`` and ``on_resource_updated`` hear what a subscription brings. The client
   holds at most one ``subscriptions/listen`` request per connection (a MAY allows more: SUBS-06),
   whose filter asks for the lists the callbacks want and the server says may change
   (``listChanged``), and for the URIs of ``subscribe_resource``. It opens at connect when the
   filter asks for anything; ``subscribe_resource``/``unsubscribe_resource`` change the URIs, so
   the old request is cancelled (on stdio ``notifications/cancelled``; over HTTP its stream is
   closed) and a new one opened with the new filter.
4. Opening one waits (within the caller's timeout) for the server's acknowledgement (SUBS-02),
   then compares it with what was asked (SUBS-04): a URI left out is an error naming it (the
   server will not watch it); a list left out is logged and not waited for.
5. Only notifications tagged with the current subscription's id reach the callbacks (SUBS-05):
   one of a cancelled subscription that was on its way is dropped.
6. The subscription lasts as long as the connection: a new connection (a new ``Client``) opens
   its own (SUBS-09). A subscription whose HTTP stream breaks is not opened again (SUBS-08 is a
   MAY): the callbacks then hear nothing more, and the log says so.
"""

from __future__ import annotations

import logging
import time
from typing import Any, TypeVar

from .. import logs
from .. import ping as ping_
from ..messages import InvalidParams, McpError, RequestTimeout
from . import stateless_client
from .stateless_client import Connection, connection, meta
from .subscriptions import ACKNOWLEDGED, FLAGS, SUBSCRIPTION_KEY, URIS
from .versioning import DISCOVER, LISTEN

log = logging.getLogger("mcp_ref.client")
C = TypeVar("C")  # the Client

MAX_WAITING = 4
TAGGED = ("notifications/tools/list_changed", "notifications/prompts/list_changed",
          "notifications/resources/list_changed", "notifications/resources/updated")


# --- where Client comes in ----------------------------------------------------------------------


def discovered(client: Any) -> bool:
    """``stateless_client.discovered``, then, for a server of this era, what the callbacks hear
    (``start``) and ``ping_interval`` (ping.py's ``keep_alive``, asking ``server/discover``)."""
    if not stateless_client.discovered(client):
        return False
    _started(client)
    return True


def rediscovered(client: C, exc: Any) -> C:
    """``stateless_client.rediscovered`` (a server still starting when the probe gave up), then as ``discovered``."""
    stateless_client.rediscovered(client, exc)
    _started(client)
    return client


def _started(client: Any) -> None:
    start(client)  # what the callbacks hear: subscriptions/listen
    if client.ping_interval:  # PING-05: this era's ping (point 1), on ping.py's keep-alive thread
        ping_.keep_alive(client.session, client.ping_interval, method=DISCOVER,
                         params=meta(client, {}, client.protocol_version))


def request(client: Any, method: str, params: dict[str, Any] | None, *, timeout: float | None = None,
            on_progress: Any = None) -> dict[str, Any]:
    """A request of ``Client`` in this era: a stand-in for what the revision took away (points 1
    to 3), anything else ``stateless_client.request``."""
    if method in STAND_INS:
        answered: dict[str, Any] = STAND_INS[method](client, method, dict(params or {}), timeout)
        return answered
    return stateless_client.request(client, method, params, timeout=timeout, on_progress=on_progress)


# --- points 1 and 2: ping and the log level -------------------------------------------------------


def ping(client: Any, timeout: float | None) -> dict[str, Any]:
    """A ping of this era: ``server/discover``, answered by every server of it; its result dropped."""
    client.session.request(DISCOVER, meta(client, {}, client.protocol_version), timeout=timeout)
    return {}


def set_log_level(client: Any, params: dict[str, Any]) -> dict[str, Any]:
    """``logging/setLevel`` of this era (point 2): the level kept, sent with every later request."""
    level = params.get("level")
    if level not in logs.LEVELS:  # LOGX-03 would refuse it on every request: say so now, once
        raise InvalidParams(f"unknown log level {level!r}: use one of {', '.join(logs.LEVELS)}")
    connection(client.session).log_level = level  # LOGX-02: from now on, in each request's _meta
    return {}


# --- points 3 to 5: the subscription --------------------------------------------------------------


def start(client: Any) -> None:
    """At connect: take the notifications of this era in hand, and open the subscription if the
    callbacks want anything the server offers (point 3)."""
    state = connection(client.session)
    handlers = client.notification_handlers
    handlers[ACKNOWLEDGED] = lambda params: _acknowledged(state, params)
    for method in TAGGED:  # SUBS-05: only the current subscription's reach the callbacks
        if handlers.get(method) is not None:
            handlers[method] = _of_current(state, handlers[method])
    if _filter(client, state):  # SUBS-09: each connection opens its own; the server kept none
        try:
            listen(client, None)
        except McpError as exc:  # the connection is still good for everything else: say so, and go on
            log.warning("could not subscribe to the server's changes (%s): on_list_changed and "
                        "on_resource_updated will hear nothing on this connection", exc)


def subscribe(client: Any, method: str, params: dict[str, Any], timeout: float | None) -> dict[str, Any]:
    """``resources/subscribe`` or ``unsubscribe`` of this era: the URIs change, a new subscription
    is opened with them (point 3)."""
    uri = params.get("uri")
    if not isinstance(uri, str):
        raise InvalidParams("resources/subscribe needs the resource's uri, a string")
    state = connection(client.session)
    with state.lock:
        uris = [u for u in state.uris if u != uri] + ([uri] if method == "resources/subscribe" else [])
        if uris == state.uris:
            return {}
        state.uris = uris
    listen(client, timeout)
    return {}


def _filter(client: Any, state: Connection) -> dict[str, Any]:
    """What the subscription asks for: the lists the callbacks want and the server says may
    change, and the URIs asked for (only if someone hears their updates)."""
    handlers, offered = client.notification_handlers, client.server_capabilities
    wanted: dict[str, Any] = {
        flag: True for flag, feature in FLAGS.items()
        if handlers.get(f"notifications/{feature}/list_changed") is not None
        and isinstance(offered.get(feature), dict) and offered[feature].get("listChanged")}
    if state.uris:
        wanted[URIS] = list(state.uris)
    return wanted


def listen(client: Any, timeout: float | None) -> None:
    """Cancel the open subscription, if any, and open one with the current filter; return once the
    server acknowledged it (SUBS-02), within ``timeout`` (default: the client's)."""
    session, state = client.session, connection(client.session)
    bound = session.default_timeout if timeout is None else timeout
    with state.lock:
        if state.listening is not None:  # the old filter ends: its stream closed, or notifications/cancelled
            session.give_up(state.listening, "the client's subscriptions changed")
            state.listening = None
        wanted = _filter(client, state)
        if not wanted:
            return
        deadline = time.monotonic() + bound
        params = meta(client, {"notifications": wanted}, client.protocol_version)
        state.listening = out = session.start_request(LISTEN, params, timeout=bound)
        with state.changed:  # SUBS-02: the acknowledgement comes first; wait for it
            while out.id not in state.acknowledged and not out.future.done():
                left = deadline - time.monotonic()
                if left <= 0:
                    session.give_up(out, "no acknowledgement in time")
                    state.listening = None
                    raise RequestTimeout(f"{LISTEN} was not acknowledged within {bound:g} s")
                state.changed.wait(left)
        with state.changed:
            honoured = state.acknowledged.pop(out.id, None)
            state.acknowledged.clear()  # any other was of no request of ours (or of one given up)
        if honoured is None:  # it ended at once: an error (say, a server without subscriptions)
            state.listening = None
            out.result()  # raises the server's error
            return
    _compare(wanted, honoured)


def _compare(wanted: dict[str, Any], honoured: dict[str, Any]) -> None:
    """SUBS-04: what the server will not send, said out loud."""
    given: list[Any] = honoured[URIS] if isinstance(honoured.get(URIS), list) else []
    refused = [uri for uri in wanted.get(URIS, []) if uri not in given]  # SUBS-04
    if refused:
        raise McpError(f"the server will not send updates of {', '.join(refused)} (its acknowledgement of "
                       f"{LISTEN} left them out)", {"acknowledged": honoured})
    left_out = [flag for flag in FLAGS if wanted.get(flag) and not honoured.get(flag)]
    if left_out:
        log.info("the server will not send %s (its acknowledgement left them out)", ", ".join(left_out))


def _acknowledged(state: Connection, params: dict[str, Any]) -> None:
    """On the reader thread: an acknowledgement; the one waited for wakes ``listen``."""
    own: dict[str, Any] = params["_meta"] if isinstance(params.get("_meta"), dict) else {}
    honoured = params.get("notifications")
    with state.changed:
        if len(state.acknowledged) < MAX_WAITING:
            state.acknowledged[own.get(SUBSCRIPTION_KEY)] = honoured if isinstance(honoured, dict) else {}
            state.changed.notify_all()


def _of_current(state: Connection, handler: Any) -> Any:
    """``handler``, for the notifications of the open subscription only (SUBS-05)."""
    def heard(params: dict[str, Any]) -> None:
        own: dict[str, Any] = params["_meta"] if isinstance(params.get("_meta"), dict) else {}
        current, tag = state.listening, own.get(SUBSCRIPTION_KEY)
        # SUBS-05: its own subscription's, or one acknowledged and not yet taken by listen()
        if (current is not None and tag == current.id) or tag in state.acknowledged:
            handler(params)
        else:
            log.debug("dropped a notification of subscription %r, not the current one", own.get(SUBSCRIPTION_KEY))
    return heard


STAND_INS: dict[str, Any] = {
    "ping": lambda client, method, params, timeout: ping(client, timeout),
    "logging/setLevel": lambda client, method, params, timeout: set_log_level(client, params),
    "resources/subscribe": subscribe,
    "resources/unsubscribe": subscribe,
}
