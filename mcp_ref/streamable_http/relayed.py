"""Streamable HTTP across processes: what goes through the relay for a session another process holds.

Not a spec section: the relay glue of streamable_http/server_app.py, the transport of revision
2025-03-26 (what a relay is, and its mailboxes: scaleout/relay.py, points 1-5). A Streamable HTTP
session lives in the one process that answered its ``initialize``; its POSTs, GETs and DELETEs may
arrive at any process behind the same address. Each is checked where it arrives
(streamable_http/server_app.py), then carried to the holder. In short:

1. The holder holds the session under ``relay_key(session_id)``: a namespace of its own, so a
   session id of the other transport (sse.py shares the relay) never reaches one of ours, nor
   the reverse.
2. ``forward(relay, session_id, kind, body, reply)`` carries one *envelope*: a JSON line
   ``{"kind": ..., "reply": ...}``, then the body. ``kind`` is ``post`` (a message), ``listen``
   and ``unlisten`` (a GET stream opened or ended), or ``delete``; ``reply`` is the address of a
   mailbox of the sending process (``open_mailbox``), for a request's answers or a GET stream's
   messages. It raises what ``Relay.publish`` raises: ``UnknownSession`` (nobody holds the
   session: HTTP 404), ``RelayUnavailable`` (503).
3. ``take_relayed`` is the holder's side, on the relay's thread (so it never blocks): a relayed
   request goes into the session with a ``RelayedStream`` as the stream its answer goes on,
   which posts each message back to the mailbox named in ``reply``; a relayed GET stream is a
   ``RelayedStream`` too; a request the session refuses is answered into the mailbox at once;
   a DELETE closes the session on a thread of its own.
4. ``still_held(relay, session_id)``: whether any process holds the session still; the writer
   of a stream fed from a mailbox asks it every few seconds while idle, and ends the stream
   when its holder has died.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

from .. import messages
from ..messages import CONNECTION_CLOSED, McpError
from ..scaleout.relay import Relay, RelayUnavailable
from .session_transport import SessionTransport

log = logging.getLogger("mcp_ref.streamable_http")  # the transport's own logger, as before the split

# Relay keys: Streamable HTTP sessions in a namespace of their own, so that a session id of the
# other transport (sse.py shares the relay) never reaches one of ours, nor the reverse.
_RELAY_KEY = "mcp:"


def relay_key(session_id: str) -> str:
    return _RELAY_KEY + session_id


class RelayedStream:
    """A response another process writes: each message goes back to it through the relay, into
    the mailbox named when the request was relayed (scaleout/relay.py, point 5)."""

    def __init__(self, relay: Relay, address: str) -> None:
        self.relay = relay
        self.address = address
        self.gone = False

    def put(self, data: bytes, timeout: float | None) -> None:
        if self.gone:
            raise OSError("the process writing this stream is gone")
        try:
            heard = self.relay.post(self.address, data)  # type: ignore[attr-defined]
        except RelayUnavailable as exc:
            raise TimeoutError(f"the relay could not carry the message: {exc}") from None
        if not heard:
            self.gone = True
            raise OSError("the process writing this stream is gone")

    def end(self) -> None:
        if not self.gone:
            try:
                self.relay.post(self.address, b"")  # type: ignore[attr-defined]
            except RelayUnavailable:
                pass


# --- where the request arrived -------------------------------------------------------------------


def forward(relay: Relay, session_id: str, kind: str, body: bytes = b"", reply: str | None = None) -> None:
    """Carry a message to the process holding ``session_id`` (point 2)."""
    envelope = json.dumps({"kind": kind, "reply": reply}).encode() + b"\n" + body
    relay.publish(relay_key(session_id), envelope)


def open_mailbox(relay: Relay, max_queued: int) -> Any:
    """A mailbox for what the holder sends back, or None: a relay of another kind has none."""
    opener = getattr(relay, "open_mailbox", None)
    return opener(max_queued) if opener is not None else None


def still_held(relay: Relay, session_id: str) -> bool:
    try:
        return relay.is_live(relay_key(session_id))
    except RelayUnavailable:
        return True  # cannot tell now: keep waiting


# --- at the holder ---------------------------------------------------------------------------------


def take_relayed(relay: Relay, transport: SessionTransport, payload: bytes, gone: str) -> None:
    """A message for a session of ours, relayed from the process where it arrived (called
    on the relay's thread: it must not block). ``gone`` is what a request is told when its
    session has ended."""
    header, _, body = payload.partition(b"\n")
    try:
        meta = json.loads(header)
        kind, reply = meta["kind"], meta["reply"]
    except (ValueError, KeyError, TypeError):
        log.warning("relay: dropped a relayed message that was not ours")
        return
    if kind == "post":
        try:
            msg = messages.decode(body)
            message_kind = messages.classify(msg)  # checked where it arrived: this cannot fail
        except McpError:
            return
        stream = RelayedStream(relay, reply) if message_kind is messages.REQUEST else None
        refusal = transport.take(body, msg, message_kind, stream)
        if refusal is not None and stream is not None:
            error = refusal if refusal.code != CONNECTION_CLOSED else McpError(gone, code=CONNECTION_CLOSED)
            try:
                stream.put(messages.encode(messages.error_response(msg["id"], error)), 1.0)
            except (OSError, TimeoutError):
                pass
    elif kind == "listen" and isinstance(reply, str):
        transport.listen(RelayedStream(relay, reply))
    elif kind == "unlisten" and isinstance(reply, str):
        transport.unlisten(address=reply)
    elif kind == "delete" and transport.session is not None:  # closing may take a second: not here
        threading.Thread(target=transport.session.close, args=("the client ended the session (HTTP DELETE)",),
                         name="mcp_ref-http-delete", daemon=True).start()
