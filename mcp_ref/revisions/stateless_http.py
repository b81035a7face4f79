"""Streamable HTTP in revision 2026-07-28: no session, each POST served alone, its headers checked against its body.

Spec page: basic/transports/streamable-http
https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
Beside streamable_http/server_app.py, which keeps the endpoint of 2025-03-26 .. 2025-11-25 (with
its sessions) for clients of the handshake; one endpoint serves both (STLS-25).

1. A POST of this revision (its ``MCP-Protocol-Version`` header names a revision without a
   handshake, or its body's ``_meta`` names its revision: stateless.py) belongs to no session:
   no ``Mcp-Session-Id`` is read or given (HTTPX-25, HTTPX-26), and a session of the engine is
   opened for this one request and closed once it is answered.
2. The headers repeat parts of the body so that what stands between client and server can route
   on them; the server checks that they agree with the body before anything else, and answers
   400 with -32020 when one is missing, malformed or different (HTTPX-14, HTTPX-21):
   ``MCP-Protocol-Version`` and the ``_meta`` revision, ``Mcp-Method`` and the method,
   ``Mcp-Name`` and the ``name`` (``uri`` for ``resources/read``) of ``tools/call``,
   ``resources/read`` and ``prompts/get``. A name that is not plain visible ASCII travels as
   ``=?base64?...?=``, decoded before the comparison (MPARAM-08).
3. What stateless.py refuses before serving is answered with an HTTP status as well: 400 for an
   unsupported revision (-32022, HTTPX-15) or a malformed ``_meta`` (-32602, STLS-10), 404 for
   a method the server does not have (-32601, HTTPX-16, also when the handler table says so).
4. A request's answer comes as server_app.py gives it: one JSON object, or an event stream of
   that request's progress and log messages ending with the answer. A client that closes the
   stream has cancelled the request (HTTPX-12, CANCEL-03): its session is closed, which cancels
   the handler. A notification is taken and answered 202 (HTTPX-05): the revision defines none
   that a client sends over HTTP.
5. Bounds: each request being served holds a session (its reader and a thread of its pool) until
   answered; at most ``max_sessions`` (the endpoint's bound on sessions of the handshake, 100 by
   default) are served at once, and one more is refused with 503 and ``Retry-After``. Its
   messages wait for the client in an outbox of ``max_queued`` messages and ``max_queued_bytes``.

The ``Mcp-Param-*`` headers of a ``tools/call`` whose tool marks arguments with ``x-mcp-header``
are checked beside the standard ones, the same way (param_headers.py, point 4: MPARAM-11..13).
"""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import Callable
from typing import Any

from werkzeug.wrappers import Request, Response

from .. import messages
from ..lifecycle import STATELESS_REVISIONS
from ..machinery.http.queues import Full, Inbox, Outbox
from . import param_headers
from . import versioning as stateless

VERSION_HEADER, METHOD_HEADER, NAME_HEADER = "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"
NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}  # what Mcp-Name repeats
RETRY_AFTER_SECONDS = 5  # told to a client refused because too many requests are being served
# The HTTP status of an error this revision gives one (the others come with 200, in the body).
STATUS = {messages.METHOD_NOT_FOUND: 404, stateless.MISSING_CLIENT_CAPABILITY: 400,  # HTTPX-16, STLS-12
          stateless.UNSUPPORTED_PROTOCOL_VERSION: 400}  # HTTPX-15


_in_flight: weakref.WeakKeyDictionary[Any, threading.BoundedSemaphore] = weakref.WeakKeyDictionary()
_in_flight_lock = threading.Lock()


def _slots(app: Any) -> threading.BoundedSemaphore:
    """The bound of point 5 for ``app``: one slot per request of this revision being served."""
    with _in_flight_lock:
        if app not in _in_flight:
            _in_flight[app] = threading.BoundedSemaphore(app.max_sessions)
        return _in_flight[app]


def addressed(request: Request, msg: Any, spoken: tuple[str, ...]) -> bool:
    """Point 1: whether this POST is one of this revision, for a server that serves it."""
    if not stateless.modern_versions(spoken) or not isinstance(msg, dict):
        return False
    return request.headers.get(VERSION_HEADER) in STATELESS_REVISIONS or stateless.is_modern(msg.get("params"))


def header_problem(request: Request, msg: dict[str, Any]) -> str | None:
    """Point 2: why the headers disagree with the body, or None."""
    params: dict[str, Any] = msg["params"] if isinstance(msg.get("params"), dict) else {}
    meta: dict[str, Any] = params["_meta"] if isinstance(params.get("_meta"), dict) else {}
    method = msg.get("method")
    checks = [(METHOD_HEADER, method)]  # HTTPX-14; a body without its revision is refused -32602 (STLS-10)
    if stateless.VERSION_KEY in meta:
        checks.append((VERSION_HEADER, meta[stateless.VERSION_KEY]))
    if method in NAMED and "id" in msg:
        checks.append((NAME_HEADER, params.get(NAMED[method])))
    for header, body_value in checks:
        given = request.headers.get(header)  # HTTPX-20: the name in any case
        if given is None:
            return f"Header mismatch: the {header} header is missing"
        given = given.strip(" \t")  # the whitespace around a field value is not part of it (RFC 9110)
        value = param_headers.decoded(given) if header == NAME_HEADER else given  # MPARAM-08
        if value is None:
            return f"Header mismatch: the {header} header is not valid base64 between =?base64? and ?="
        if value != body_value:
            return (f"Header mismatch: {header} is {messages.printable(value)[:80]!r}, the body says "
                    f"{messages.printable(str(body_value))[:80]!r}")
    return None


def post(app: Any, request: Request, body: bytes, msg: dict[str, Any],
         refuse: Callable[..., Response], as_json: Callable[[int, bytes], Response]) -> Response:
    """Serve one POST of this revision (points 1..4). ``refuse`` and ``as_json`` are
    server_app.py's ``_error`` and ``_json``, so every refusal looks like the endpoint's others."""
    try:
        kind = messages.classify(msg)
    except messages.McpError as exc:
        return refuse(400, exc.message)
    request_id = msg.get("id") if kind is messages.REQUEST else None
    problem = header_problem(request, msg) or param_headers.param_problem(request.headers, msg, app.tools)
    if problem is not None:  # HTTPX-21, MPARAM-12
        return refuse(400, problem, code=stateless.HEADER_MISMATCH, request_id=request_id)
    if kind is not messages.REQUEST:
        return Response(status=202)  # HTTPX-05
    refusal = stateless.refusal(app.protocol_versions, msg["method"], msg.get("params"))
    if refusal is not None:  # HTTPX-15, HTTPX-16
        status = STATUS.get(refusal.code, 400)  # STLS-10: a malformed _meta is 400 too
        return as_json(status, messages.encode(messages.error_response(msg["id"], refusal)))
    slots = _slots(app)
    if not slots.acquire(blocking=False):  # point 5: at most max_sessions of them at once
        return refuse(503, f"this server already serves {app.max_sessions} requests of 2026-07-28; try again later",
                      headers={"Retry-After": str(RETRY_AFTER_SECONDS)}, request_id=request_id)
    transport = OneRequest(app.max_queued, app.max_queued_bytes)
    try:
        session = app.open_session(transport)  # a session for this request alone, started and ended here
        known = msg["method"] in stateless.OWN or session.knows_method is None or session.knows_method(msg["method"])
        if not known:  # HTTPX-16: 404 now, not whenever the handler table's -32601 comes back
            session.close("a method this server does not have")
            slots.release()
            return as_json(404, messages.encode(messages.error_response(
                msg["id"], messages.MethodNotFound(f"Method not found: {msg['method']}"))))
        session.start()
    except BaseException:
        slots.release()
        raise
    transport.deliver(body)

    def finished() -> None:  # answered, or the client closed the stream: HTTPX-12, CANCEL-03
        session.close("the request of 2026-07-28 was answered, or its client closed the stream")
        slots.release()

    response: Response = app._answer(request, transport, msg["id"], finished)
    if response.mimetype == "application/json":  # HTTPX-16 for a method the handler table lacks; STLS-12
        error = json.loads(response.get_data()).get("error")
        if isinstance(error, dict) and error.get("code") in STATUS:
            response.status_code = STATUS[error["code"]]
    return response


class OneRequest(Inbox):
    """The engine's transport for the one request of a POST (point 1): the request comes in
    through the inbox (http/queues.py), and everything the engine sends (that request's progress
    and log messages, then its answer) goes out on the POST's response, through an outbox of at
    most ``max_queued`` messages and ``max_queued_bytes`` bytes that the response's writer drains."""

    def __init__(self, max_queued: int, max_queued_bytes: int) -> None:
        super().__init__()
        self.outbox = Outbox(max_queued, max_queued_bytes)

    def send(self, data: bytes, timeout: float | None = None) -> None:
        try:
            self.outbox.put(data, timeout)
        except Full as unread:
            raise TimeoutError(f"the client took nothing from its response in time, with {unread}") from None

    def get(self, timeout: float | None = None) -> bytes | None:
        """The next message for the response (None: the session ended); ``queue.Empty`` after ``timeout``."""
        return self.outbox.get(timeout)

    def close(self) -> None:
        self.deliver(None)
        self.outbox.close()

    def describe_close(self) -> str:
        return "the request of 2026-07-28 was answered, or its client left"
