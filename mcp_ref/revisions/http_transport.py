"""What revisions after 2024-11-05 change in the Streamable HTTP endpoint: the version header and batches.

Spec page: basic/transports
https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#protocol-version-header
Two rules of the transports page of later revisions, kept out of streamable_http/server_app.py so
that the endpoint reads as the 2025-03-26 page describes it.
https://modelcontextprotocol.io/specification/2025-03-26/basic/transports#sending-messages-to-the-server

1. From 2025-06-18 on, a client names the agreed revision in an ``MCP-Protocol-Version`` header
   on every request after ``initialize``; a server answers 400 to a version it does not speak
   (``version_refused``). A header naming another revision the server speaks is taken: the
   session already knows which one it agreed on. Our client learns the version from the
   server's answer to ``initialize`` (``agreed_version``) and sends it from then on.
2. In a session of 2025-03-26, the body of a POST may be a JSON-RPC batch, an array of messages
   (revisions/batches.py says what a batch is). ``post_batch`` takes each message of the array as
   if it had come in a POST of its own; an array without requests is answered 202, and one with
   requests gets one event stream carrying every answer, which ends after the last of them. In a
   session of any other revision, or before a session exists, an array is refused with 400
   (``initialize`` never travels in a batch).

How point 2 keeps every request to one answer, whatever the client sends:

- Every message of the array is checked, and turned into the bytes the session will read, before
  any is taken: a batch with one bad message is refused whole (400, a JSON-RPC error as its body),
  and never half taken. A string holding a lone surrogate escape (``"\\ud800"``), which the session
  takes in a message that came alone, is passed on with every non-ASCII character escaped.
- A member the session cannot take (its id is in use, or the session already has its
  ``max_in_flight`` requests in progress, or it ended) gets its error in a list of this response,
  written first on the stream: the POST's thread never waits for the client to read.
- Each member taken gets a route of its own (``_Member``) on the batch's one stream
  (``_BatchStream``). Its answer goes on the stream; its end (the client cancelled it, or the
  session ended) ends only its own part: the stream ends once every member is answered or ended.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from typing import Any

from werkzeug.wrappers import Request, Response

from .. import messages
from ..machinery.http.event_streams import OPENING, SSE_HEADERS, SseStreamWriter, client_socket, pollable, sse_event

VERSION_HEADER = "MCP-Protocol-Version"
# The revisions whose messages this server speaks, by default every one mcp_ref speaks
# (lifecycle.SUPPORTED_PROTOCOL_VERSIONS, written out here because a transport imports no page);
# HttpApp passes its server's ``protocol_versions``.
SPOKEN_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
UNSUPPORTED_VERSION = -32022  # the code 2026-07-28 gives this refusal (revisions/stateless.py), clear to any client
BATCH_REVISION = "2025-03-26"  # the one revision whose POST bodies may be arrays

Refuse = Callable[..., Response]  # server_app._error: (status, text, *, code=..., request_id=...)


def version_refused(request: Request, spoken: tuple[str, ...], refuse: Refuse) -> Response | None:
    """Point 1: a 400 for a header naming a revision this server does not speak, else None."""
    version = request.headers.get(VERSION_HEADER)
    if version is not None and version not in spoken:  # HDR-04: 400 for a version it does not speak
        return refuse(400, f"unsupported {VERSION_HEADER} {version[:40]!r}; this server speaks {', '.join(spoken)}",
                      code=UNSUPPORTED_VERSION, data={"supported": list(spoken), "requested": version})  # HTTPX-15
    return None


def agreed_version(data: bytes, initialize_id: Any) -> str | None:
    """Point 1, the client's side: the version the server chose, if ``data`` is its answer to
    our ``initialize`` (``initialize_id``) and names one that can go in a header; else None."""
    try:
        msg = json.loads(data)
        version = msg["result"]["protocolVersion"] if msg.get("id") == initialize_id else None
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    if isinstance(version, str) and 0 < len(version) <= 32 and all(0x21 <= ord(c) <= 0x7E for c in version):
        return version  # HDR-01: the client sends it on every later request
    return None


def post_batch(request: Request, transport: Any, items: list[Any], stream: Any,
               keepalive: float, refuse: Refuse, accepted: Callable[[], Response]) -> Response:
    """Point 2: a POST whose body is an array, for the session ``transport`` (None: none here)."""
    session = transport.session if transport is not None else None
    if transport is None or session is None or session.lifecycle.protocol_version != BATCH_REVISION:
        return refuse(400, "Invalid Request: a JSON-RPC batch (JSON array) is taken only in a session of "  # SHTTP-11
                           "revision 2025-03-26; send one message per POST")
    if not items:
        return refuse(400, "Invalid Request: an empty batch")
    kinds, bodies = [], []  # every message checked and encoded before any is taken
    for item in items:
        try:
            kinds.append(messages.classify(item))
            bodies.append(_as_read(item))
        except messages.McpError as exc:
            return refuse(400, exc.message)
        except messages.NotJson as exc:
            return refuse(400, f"Invalid Request: a message of the batch cannot be passed on ({exc}); send it alone")
        if kinds[-1] is messages.REQUEST and item["method"] == "initialize":  # BATCH-04
            return refuse(400, "Invalid Request: initialize may not be part of a batch; send it alone, first")
        if kinds[-1] is messages.REQUEST and not _echoable(item["id"]):  # MSG-05: no answer could name it
            return refuse(400, "Invalid Request: a request id of the batch is a string with no UTF-8 form")
    if messages.REQUEST not in kinds:
        for body, item, kind in zip(bodies, items, kinds, strict=True):
            transport.take(body, item, kind, None)
        return accepted()  # only notifications and responses: SHTTP-12
    batch = _BatchStream(stream)
    refusals: list[bytes] = []  # written first, by the response: taking never waits for the client
    for body, item, kind in zip(bodies, items, kinds, strict=True):  # BATCH-01: each as if it came in a POST of its own
        member = batch.member() if kind is messages.REQUEST else None
        refusal = transport.take(body, item, kind, member)
        if refusal is not None and member is not None:  # answered on the stream, as the session would have
            refusals.append(messages.encode_answer(item["id"], refusal))
            member.end()
    batch.end()  # every member is taken: the stream may end once they are all done
    writer = SseStreamWriter(pollable(client_socket(request.environ)), keepalive)

    def events() -> Iterable[bytes]:
        try:
            yield OPENING
            for refusal in refusals:
                yield sse_event("message", refusal)
            yield from writer.events(stream, batch.answered)  # every answer of the batch, then the end
        finally:
            stream.abandon()

    return Response(events(), status=200, mimetype="text/event-stream", headers=SSE_HEADERS)


class _BatchStream:
    """The one event stream of a batch, which the routes of its members share. It ends once every
    member taken is done: answered (counted when the writer has written the answer), or ended
    without one. So when the last member ends unanswered, every other answer was written already,
    and ending the stream drops none of them."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self._lock = threading.Lock()
        self._due = 1  # the members not yet done, and one more while members are being taken

    def member(self) -> _Member:
        with self._lock:
            self._due += 1
        return _Member(self)

    def end(self) -> None:
        """One member is done without an answer (or, from ``post_batch``, the taking is over)."""
        with self._lock:
            self._due -= 1
            last = self._due == 0
        if last:
            self.stream.end()

    def answered(self, data: bytes) -> bool:
        """After the writer wrote ``data``: True if it was the last answer due (the stream ends)."""
        if "method" in json.loads(data):  # a request or notification sent while a member was handled
            return False
        with self._lock:
            self._due -= 1
            return self._due == 0


class _Member:
    """The stream a member's route holds (session_transport.Stream): what is sent for it goes on
    the batch's stream; its end (CAN-06: cancelled, or the session ended) ends only its own part."""

    __slots__ = ("batch", "ended")

    def __init__(self, batch: _BatchStream) -> None:
        self.batch = batch
        self.ended = False

    def put(self, data: bytes, timeout: float | None) -> None:
        self.batch.stream.put(data, timeout)

    def end(self) -> None:
        if not self.ended:  # once: the transport ends a route at most once, but a refused one is ended here
            self.ended = True
            self.batch.end()


def _as_read(item: Any) -> bytes:
    """A message of the array as bytes the session reads back as the same message: our strict
    encoding, or, for a string holding a lone surrogate, JSON with every non-ASCII character
    escaped. ``NotJson`` if neither can carry it (a number too large for a float reads as infinity)."""
    try:
        return messages.encode(item)
    except messages.NotJson:
        try:
            return json.dumps(item, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")
        except (ValueError, RecursionError) as exc:
            raise messages.NotJson(str(exc)) from None


def _echoable(request_id: Any) -> bool:
    """Whether an answer can carry this id: an integer, or a string with a UTF-8 form."""
    try:
        return not isinstance(request_id, str) or request_id.encode("utf-8") is not None
    except UnicodeEncodeError:  # a lone surrogate: the session would answer with id null
        return False
