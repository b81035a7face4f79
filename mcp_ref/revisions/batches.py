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
batch's requests until the last one is ready and sends them as one array. A request of the batch
that is cancelled gets no answer (CAN-06), so the array leaves without it.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from ..machinery.transport import Transport
from ..messages import REQUEST, InvalidRequest, RequestId, classify, encode, encode_answer
from ..session import Session

REVISION = "2025-03-26"  # the one revision with batches


def receive_batch(session: Session, items: list[Any]) -> None:
    """``Session.on_batch`` in a session of 2025-03-26: each message of the array in turn."""
    if not items:  # BATCH-03: an empty array is not a batch
        session._answer(None, InvalidRequest("Invalid Request: an empty batch (JSON array)"))
        return
    refused: list[bytes] = []  # answers known at once: the messages of the batch that are not valid
    accepted: list[Any] = []
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
        accepted.append(item)
    answers = BatchedAnswers.of(session)
    answers.expect([item["id"] for item in accepted if "method" in item and "id" in item], refused)  # BATCH-01, BATCH-02
    for item in accepted:
        session._dispatch(encode(item))  # as if it had come alone (the reader thread runs this)


class BatchedAnswers:
    """A session's transport once a batch has arrived: answers to the requests of a batch wait for
    each other and leave as one array (BATCH-02); every other message passes straight through."""

    def __init__(self, transport: Transport):
        self.inner = transport
        self._lock = threading.Lock()
        self._batches: dict[RequestId, _Batch] = {}  # request id -> the batch it belongs to

    @classmethod
    def of(cls, session: Session) -> BatchedAnswers:
        """The session's wrapper, made and put in place the first time (on the reader thread, so no
        receive is under way; writers read ``session._transport`` afresh on every send)."""
        if not isinstance(session._transport, BatchedAnswers):
            session._transport = cls(session._transport)
        return session._transport

    def expect(self, ids: list[RequestId], refused: list[bytes]) -> None:
        batch = _Batch(set(ids), list(refused))
        with self._lock:
            for request_id in ids:
                self._batches[request_id] = batch
        if not ids and refused:  # nothing to wait for: the errors are the whole answer
            self.inner.send(batch.array(), None)

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
        self.inner.close()

    def describe_close(self) -> str:
        return str(self.inner.describe_close())

    def stats(self) -> dict[str, Any]:
        stats = getattr(self.inner, "stats", None)  # optional in the protocol
        return dict(stats()) if stats is not None else {}

    def _cancelled(self, data: bytes) -> None:
        try:
            msg = json.loads(data)
            request_id = msg["params"]["requestId"] if msg.get("method") == "notifications/cancelled" else None
        except (ValueError, KeyError, TypeError, AttributeError):
            return
        with self._lock:
            if not isinstance(request_id, (str, int)):
                return
            batch = self._batches.pop(request_id, None)
            ready = batch is not None and batch.add(request_id, None)
        if batch is not None and ready and batch.parts:
            self.inner.send(batch.array(), None)


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
