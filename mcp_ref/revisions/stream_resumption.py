"""What 2025-11-25 adds to Streamable HTTP's event streams: polling, and the resuming it stands on.

Spec page: basic/transports
Section "Resumability and Redelivery" (revision 2025-03-26, SHTTP-31..33), and the polling that
revision 2025-11-25 adds to it (SHTC-04..13)
https://modelcontextprotocol.io/specification/2025-03-26/basic/transports#resumability-and-redelivery
https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery

Revision 2025-03-26 let a client resume a broken stream (a SHOULD we left aside until then);
2025-11-25 turned it into a way for a server to end connections early and have the client poll.
The client's side of both is here, used by streamable_http/client_transport.py (its point 7) for a
POST's stream and for the GET stream. In short:

1. A server may give the events it sends an id (the ``id:`` field of an event stream), unique
   across every stream of the session (SHTTP-31), and should make the id tell which stream it
   belongs to (SHTC-12). The id is a cursor: "everything up to here has reached you".
2. When a stream breaks (the network) or the server ends the HTTP response before the stream is
   done (for a POST's stream, before the answer), a client that saw an id resumes it: a GET to
   the endpoint with the header ``Last-Event-ID`` naming the last id it received (SHTTP-32,
   SHTC-13), whether the stream came from a POST or from a GET. What the server sends on that
   response continues the same stream, never another one (SHTTP-33).
3. Revision 2025-11-25 makes this a way for a server to avoid long-lived connections: it opens a
   POST's stream with an event that carries an id and no data (SHTC-04; an event stream never
   hands such an event on as a message, machinery/http/client_plumbing.py), may end the
   connection whenever it likes after that (SHTC-05), and sends ``retry:`` first, the
   milliseconds a client must wait before it reconnects (SHTC-07, SHTC-08). The client then
   polls: waits, GETs with ``Last-Event-ID``, reads, and does it again if the server ends that
   response too (SHTC-06).

What this module adds, as bounds (the page sets none): with no ``retry:`` from the server we wait
``DEFAULT_DELAY``; a delay longer than a day is taken as a day; from one id we try at most
``MAX_TRIES`` times (a try that brings a new id starts the count again). The wait ends at once
when the stream is abandoned: the caller's request was cancelled or timed out (its timeout still
bounds the whole), or the transport closed. A stream without an id is not resumed: a GET
without ``Last-Event-ID`` would open the session's general stream, not continue this one, so
its request fails as before (client_transport.py). A GET answered with anything but an event
stream ends the resuming.

Our own server gives its events no id: it never ends a stream before the stream is done, so the
only way to lose one is a broken connection, and it keeps no copy of what it sent to replay
(SHTTP-31 and SHTTP-33 are a MAY). The client's side here is for the servers that do, such as the
official SDKs' with an event store, and the conformance suite's ``sse-retry`` scenario.
"""

from __future__ import annotations

import threading
from typing import Any

from ..machinery.http.client_plumbing import Cursor, open_event_stream

LAST_EVENT_ID_HEADER = "Last-Event-ID"
DEFAULT_DELAY = 1.0  # seconds to wait before resuming, when the server sent no retry field
MAX_DELAY = 86400.0  # seconds: a longer retry is taken as this (the request's own timeout ends it sooner)
MAX_TRIES = 3  # tries to resume from one event id


class Tries:
    """How many times in a row a stream was resumed from the same event id, and, once resuming
    has stopped, why (for the error the request then fails with)."""

    def __init__(self) -> None:
        self.event_id: str | None = None
        self.count = 0
        self.stopped: str | None = None

    def another(self, event_id: str) -> bool:
        """Whether one more try from ``event_id`` is allowed (and count it)."""
        if event_id != self.event_id:
            self.event_id, self.count = event_id, 0
        self.count += 1
        if self.count > MAX_TRIES:
            self.stopped = f"{MAX_TRIES} tries to resume it from event {event_id!r} brought nothing new"
        return self.count <= MAX_TRIES


def delay(cursor: Cursor) -> float:
    """Seconds to wait before reconnecting: the server's ``retry`` (SHTC-08), else ``DEFAULT_DELAY``."""
    if cursor.retry_ms is None:
        return DEFAULT_DELAY
    return min(cursor.retry_ms / 1000, MAX_DELAY)


def resume(http: Any, url: str, headers: dict[str, str], cursor: Cursor, timeout: float,
           stop: threading.Event, tries: Tries) -> Any | None:
    """The response that carries the stream on from ``cursor``, or None when it cannot be resumed:
    no event id to resume from, too many tries, ``stop`` set while waiting (abandoned), the server
    unreachable or answering with no event stream (``tries.stopped`` then says which). Raises
    nothing."""
    event_id = cursor.last_event_id
    if event_id is None or not tries.another(event_id):
        return None
    if stop.wait(delay(cursor)):  # SHTC-08: not before the server's retry time
        return None
    try:  # SHTTP-32, SHTC-13: a GET naming the last event received, for a POST's stream as for a GET's
        response, status = open_event_stream(http, url, {**headers, LAST_EVENT_ID_HEADER: event_id}, timeout)
    except Exception as exc:  # requests' exceptions (the caller then asks whether the server is there)
        tries.stopped = f"the GET to resume it from event {event_id!r} failed ({type(exc).__name__})"
        return None
    if response is None:
        tries.stopped = f"resuming it from event {event_id!r} was refused: HTTP {status}, no event stream"
    return response


__all__ = ["DEFAULT_DELAY", "LAST_EVENT_ID_HEADER", "MAX_TRIES", "Tries", "delay", "resume"]
