"""JSON-RPC batches: several messages in one JSON array, a message shape of revision 2025-03-26 only.

Spec page: basic
https://modelcontextprotocol.io/specification/2025-03-26/basic#batching

In short:

1. In a session of 2025-03-26, a party may send an array of requests and notifications (or an
   array of responses) as one message, and each party must be able to receive such an array.
2. The requests of a batch are answered by one array holding their responses, in any order; the
   notifications and responses in it get no answer. An empty array is itself invalid.
3. ``initialize`` never travels in a batch: it comes first and alone.
4. The next revision, 2025-06-18, took batches out again; in it (and in 2024-11-05 before) an array
   is an invalid request (-32600), as messages.classify says.

mcp_ref sends no batches (a party may, but need not) and receives them in sessions that agreed on
2025-03-26: the face sets ``Session.on_batch`` to ``receive_batch`` once ``initialize`` agreed on
that revision. Each message of the array then goes through the engine as if it had come alone,
so it is checked, run on the pool and cancelled as any other; only the answers are held back:
the first batch wraps the session's transport in ``BatchedAnswers``, which keeps the answers of a
batch's requests until the last one is ready and sends them as one array. The engine gets each
message as the decoded object itself, never re-encoded: a message that the session takes alone
(a string holding a lone surrogate escape such as ``"\\ud800"``, a number too large for a float)
is taken inside a batch too, and nothing in the hand-over can fail halfway through the array.

A request of the batch that is cancelled gets no answer (CAN-06), so the array leaves without it,
wherever the ``notifications/cancelled`` comes: alone, later in the same batch, or in a later
batch. (A handler that had already finished when the cancellation reached it has its answer sent
on its own.) Every other request of the batch gets exactly one answer, inside the array. A request
whose id is already in flight (waiting in an earlier batch, running in the session, or earlier in
the same batch) is answered -32600 there (MSG-04) and not run, so an id always names one request;
so is, with id null, a request whose id is a string no answer could carry (a lone surrogate: alone,
it is answered with id null, which no batch could wait for). The table of the ids waiting for
their answers holds only requests the session is running, so it is as bounded as they are; an id
leaves it when its request is answered or cancelled, and every id when the session ends.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

from .. import cancellation, messages
from ..machinery.transport import Transport
from ..messages import NOTIFICATION, REQUEST, InvalidRequest, RequestId, classify, encode_answer
from ..session import Session

REVISION = "2025-03-26"  # the one revision with batches

log = logging.getLogger("mcp_ref.revisions.batches")


def receive_batch(session: Session, items: list[Any]) -> None:
    """``Session.on_batch`` in a session of 2025-03-26: each message of the array in turn."""
    if not items:  # BATCH-03: an empty array is not a batch
        session._answer(None, InvalidRequest("Invalid Request: an empty batch (JSON array)"))
        return
    answers = BatchedAnswers.of(session)
    refused: list[bytes] = []  # answers known at once: the messages of the batch that are not valid
    accepted: list[tuple[Any, str]] = []
    ids: set[RequestId] = set()  # the ids of the batch's requests that will run
    for item in items:
        try:
            kind = classify(item)
        except InvalidRequest as exc:  # MSG-01..03: answered inside the batch's answer
            refused.append(encode_answer(exc.request_id, exc))
            continue
        if kind is REQUEST and item["method"] == "initialize":  # BATCH-04: never inside a batch
            refused.append(encode_answer(item["id"], InvalidRequest(
                "Invalid Request: initialize may not be part of a batch; send it alone, first")))
            continue
        if kind is REQUEST and not _echoable(item["id"]):  # MSG-05: the answer could not carry it
            refused.append(encode_answer(None, InvalidRequest(
                "Invalid Request: a request id of the batch is a string with no UTF-8 form")))
            continue
        if kind is REQUEST and (item["id"] in ids or answers.in_flight(item["id"])):  # MSG-04: one id, one request
            refused.append(encode_answer(item["id"], InvalidRequest(
                f"Invalid Request: id {item['id']!r} is already in use by a request in progress")))
            continue
        if kind is REQUEST:
            ids.add(item["id"])
        accepted.append((item, kind))
    answers.expect(ids, refused)  # BATCH-01, BATCH-02
    for item, kind in accepted:
        _hand_over(session, answers, item, kind)  # as if it had come alone (the reader thread runs this)


def _hand_over(session: Session, answers: BatchedAnswers, item: Any, kind: str) -> None:
    """One message of the batch to the engine, as ``Session._dispatch`` hands a message that came
    alone: the decoded object itself, so there is nothing to re-encode and nothing that can fail."""
    try:
        if kind is REQUEST:
            session._on_incoming_request(item)
        elif kind is NOTIFICATION:
            if item["method"] == cancellation.METHOD:  # CAN-06: a member cancelled in the same batch, or a later one
                answers.cancelling(item.get("params"))
            session._on_incoming_notification(item)
        else:
            session._on_response(item)
    except Exception:  # a bug of ours: this message is dropped, and a request still gets its one answer
        log.exception("%s: could not dispatch a message of a batch; it was dropped", session.name)
        if kind is REQUEST and item["id"] not in session._running:
            session._answer(item["id"], messages.InternalError("Internal error: the request could not be dispatched"))


def _echoable(request_id: RequestId) -> bool:
    """Whether an answer can carry this id: an integer, or a string with a UTF-8 form (a lone
    surrogate has none; alone, such a request is answered with id null, which no batch waits for)."""
    try:
        return not isinstance(request_id, str) or request_id.encode("utf-8") is not None
    except UnicodeEncodeError:
        return False


class BatchedAnswers:
    """A session's transport once a batch has arrived: answers to the requests of a batch wait for
    each other and leave as one array (BATCH-02); every other message passes straight through."""

    def __init__(self, transport: Transport, session: Session):
        self.inner = transport
        self.session = session
        self._lock = threading.Lock()
        self._batches: dict[RequestId, _Batch] = {}  # request id -> the batch it belongs to

    @classmethod
    def of(cls, session: Session) -> BatchedAnswers:
        """The session's wrapper, made and put in place the first time (on the reader thread, so no
        receive is under way; writers read ``session._transport`` afresh on every send)."""
        if not isinstance(session._transport, BatchedAnswers):
            session._transport = cls(session._transport, session)
        return session._transport

    def in_flight(self, request_id: RequestId) -> bool:
        """Whether a request with this id is in progress: waiting in a batch, or running in the session."""
        with self._lock:
            return request_id in self._batches or request_id in self.session._running

    def expect(self, ids: set[RequestId], refused: list[bytes]) -> None:
        batch = _Batch(set(ids), list(refused))
        with self._lock:
            for request_id in ids:
                self._batches[request_id] = batch
        if not ids and refused:  # nothing to wait for: the errors are the whole answer
            self._send_array(batch)

    def cancelling(self, params: Any) -> None:
        """The peer cancels a request (``notifications/cancelled``, alone or in a batch), and the
        session is about to read it. If the session will stop that request (it is running, and is
        not ``initialize``: what cancellation.receive does), no answer will come (CAN-06): its batch
        stops waiting for it, and leaves now if that was the last answer it waited for."""
        request_id = params.get("requestId") if isinstance(params, dict) else None
        if not messages.is_valid_id(request_id):
            return
        ctx = self.session._running.get(request_id)
        if ctx is None or ctx.method == "initialize":  # CAN-16, CAN-03: ignored, so its answer still comes
            return
        with self._lock:
            batch = self._batches.pop(request_id, None)
            ready = batch is not None and batch.add(request_id, None)
        if batch is not None and ready and batch.parts:
            self._send_array(batch)

    def _send_array(self, batch: _Batch) -> None:
        """A batch's answer sent from the reader thread, within the session's timeout."""
        try:
            self.inner.send(batch.array(), self.session.default_timeout)  # BATCH-02: one array of answers
        except (OSError, TimeoutError, ValueError) as exc:  # the peer is gone or not reading: the session will see
            log.debug("%s: dropped the answer to a batch: %s", self.session.name, exc)

    # --- the Transport protocol (machinery/transport.py) ------------------------------------------

    def receive(self, timeout: float | None = None) -> bytes | None:
        data = self.inner.receive(timeout)
        if data is not None and self._batches and b"notifications/cancelled" in data:
            self._cancelled(data)  # a cancelled request of a batch will get no answer: stop waiting for it
        return data

    def send(self, data: bytes, timeout: float | None = None) -> None:
        request_id = _answered_id(data) if self._batches else None
        if request_id is not None:
            with self._lock:
                batch = self._batches.pop(request_id, None)
                ready = batch is not None and batch.add(request_id, data)
            if batch is not None:
                if ready:
                    self.inner.send(batch.array(), timeout)  # BATCH-02: one array of answers
                return
        self.inner.send(data, timeout)

    def close(self) -> None:
        with self._lock:
            self._batches.clear()  # the session has ended: no answer will come for what still waits
        self.inner.close()

    def describe_close(self) -> str:
        return str(self.inner.describe_close())

    def stats(self) -> dict[str, Any]:
        stats = getattr(self.inner, "stats", None)  # optional in the protocol
        return dict(stats()) if stats is not None else {}

    def _cancelled(self, data: bytes) -> None:
        """A message that came alone and may be a cancellation (one in an array: ``receive_batch``).
        Read as the session will read it, so that only what the session takes as one counts."""
        try:
            msg = messages.decode(data)
            if classify(msg) is not NOTIFICATION or msg["method"] != cancellation.METHOD:
                return
        except (messages.ParseError, InvalidRequest):
            return
        self.cancelling(msg.get("params"))


class _Batch:
    """The answers of one batch, gathered until none is missing."""

    def __init__(self, waiting: set[RequestId], parts: list[bytes]):
        self.waiting = waiting
        self.parts = parts

    def add(self, request_id: RequestId, data: bytes | None) -> bool:
        """Record one answer (None: the request was cancelled); True when the batch is complete."""
        self.waiting.discard(request_id)
        if data is not None:
            self.parts.append(data)
        return not self.waiting

    def array(self) -> bytes:
        return b"[" + b",".join(self.parts) + b"]"


def _answered_id(data: bytes) -> RequestId | None:
    """The id of an answer we are about to send, or None for any other message."""
    if b'"method"' in data[:200] and b'"result"' not in data and b'"error"' not in data:
        return None  # a request or notification of ours
    try:
        msg = json.loads(data)
    except ValueError:
        return None
    if not isinstance(msg, dict) or "method" in msg:
        return None
    request_id = msg.get("id")
    return request_id if isinstance(request_id, (str, int)) else None
