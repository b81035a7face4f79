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
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from werkzeug.wrappers import Request, Response

from .. import messages
from ..machinery.http.event_streams import OPENING, SSE_HEADERS, SseStreamWriter, client_socket, pollable

VERSION_HEADER = "MCP-Protocol-Version"
# The revisions whose messages this server speaks, by default every one mcp_ref speaks
# (lifecycle.SUPPORTED_PROTOCOL_VERSIONS, written out here because a transport imports no page);
# HttpApp passes its server's ``protocol_versions``.
SPOKEN_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
BATCH_REVISION = "2025-03-26"  # the one revision whose POST bodies may be arrays

Refuse = Callable[..., Response]  # server_app._error: (status, text, *, code=..., request_id=...)


def version_refused(request: Request, spoken: tuple[str, ...], refuse: Refuse) -> Response | None:
    """Point 1: a 400 for a header naming a revision this server does not speak, else None."""
    version = request.headers.get(VERSION_HEADER)
    if version is not None and version not in spoken:  # HDR-04: 400 for a version it does not speak
        return refuse(400, f"unsupported {VERSION_HEADER} {version[:40]!r}; this server speaks {', '.join(spoken)}")
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
    kinds = []
    for item in items:
        try:
            kinds.append(messages.classify(item))
        except messages.McpError as exc:
            return refuse(400, exc.message)
        if kinds[-1] is messages.REQUEST and item["method"] == "initialize":  # BATCH-04
            return refuse(400, "Invalid Request: initialize may not be part of a batch; send it alone, first")
    answers_due = [sum(1 for kind in kinds if kind is messages.REQUEST)]
    if not answers_due[0]:
        for item, kind in zip(items, kinds, strict=True):
            transport.take(messages.encode(item), item, kind, None)
        return accepted()  # only notifications and responses: SHTTP-12
    for item, kind in zip(items, kinds, strict=True):  # BATCH-01: each as if it came in a POST of its own
        is_request = kind is messages.REQUEST
        refusal = transport.take(messages.encode(item), item, kind, stream if is_request else None)
        if refusal is not None and is_request:  # answered on the stream, as the session would have
            stream.put(messages.encode(messages.error_response(item["id"], refusal)), None)

    def is_last(data: bytes) -> bool:  # the stream ends with the last of the batch's answers
        if "method" not in json.loads(data):
            answers_due[0] -= 1
        return answers_due[0] == 0

    writer = SseStreamWriter(pollable(client_socket(request.environ)), keepalive)

    def events() -> Iterable[bytes]:
        try:
            yield OPENING
            yield from writer.events(stream, is_last)  # every answer of the batch, then the end
        finally:
            stream.abandon()

    return Response(events(), status=200, mimetype="text/event-stream", headers=SSE_HEADERS)
