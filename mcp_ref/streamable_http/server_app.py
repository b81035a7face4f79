"""The Streamable HTTP transport: one MCP endpoint; each client message a POST, answered on its response.

Spec page: basic/transports
Revision 2025-03-26, section Streamable HTTP (the server's end; the client's is streamable_http/client_transport.py)
https://modelcontextprotocol.io/specification/2025-03-26/basic/transports

This transport came with revision 2025-03-26 and replaces HTTP with SSE (sse.py). It does not
depend on the revision negotiated inside it: the messages it carries here are those of
2024-11-05, exactly as over stdio or HTTP with SSE. The IDs cited below (SHTTP-01...) are those
of that page, indexed in mcp_ref_check/requirements_2025_03_26.py. In short:

1. The server offers one path, the *MCP endpoint* (here ``/mcp``), taking POST, GET and DELETE
   (SHTTP-05). The Origin and Host checks, the localhost binding and the advice to authenticate
   of HTTP with SSE hold here too (SHTTP-06..08).
2. Every message from the client is the body of a POST of its own (SHTTP-09), whose ``Accept``
   lists both ``application/json`` and ``text/event-stream`` (SHTTP-10). A body holding a
   notification or a response is answered ``202 Accepted`` with no body (SHTTP-12); one the
   server cannot take gets an HTTP error, with a JSON-RPC error (id null) as its body (SHTTP-13).
3. A body holding a request is answered on that POST's own response (SHTTP-14): either one JSON
   object, the JSON-RPC response, or an event stream carrying first what the server sends while
   handling that request (its progress, its log lines, its own requests to the client such as
   sampling or roots: SHTTP-17), then the response (SHTTP-16), and ending there (SHTTP-19).
   We answer with JSON when the response is ready within a tenth of a second and nothing came
   before it, and open an event stream otherwise. A client that leaves does not cancel its
   request (SHTTP-20); it cancels by sending ``notifications/cancelled``, which also ends that
   request's stream.
4. A GET opens a stream for what belongs to no request: ``list_changed``, a resource update, a
   request the server makes outside any request of the client (SHTTP-23..28). Never a response
   (SHTTP-27). Each message goes on one stream only (SHTTP-30): a second GET replaces the first.
   While no GET stream is open, up to ``max_queued`` such messages (``max_queued_bytes`` in all)
   wait for one.
5. Sessions: the response to ``initialize`` carries ``Mcp-Session-Id``, 128 random bits in hex
   (SHTTP-34..36); every later request must carry it (SHTTP-37): without it, 400 (SHTTP-38; a
   ``ping`` alone is answered without a session, as one may be sent at any time); for
   a session that ended or never was, 404 (SHTTP-39), and the client must start anew
   (SHTTP-40). ``DELETE`` with the header ends the session (SHTTP-41). A session nobody has
   used for ``idle_timeout`` seconds (no POST, no request running, no GET stream open) ends too.
6. Backwards compatibility: the same WSGI application serves the old transport's ``/sse`` and
   ``/messages/`` beside ``/mcp`` (SHTTP-42; both.py hands ``/mcp`` to this module), so clients of
   either kind reach one server; the client's side of it is in streamable_http/client_transport.py.

Not implemented, all optional: resuming a broken stream (``Last-Event-ID``, SHTTP-31..33; our
events carry no ``id``), and JSON-RPC batches (a JSON array: a 2025-03-26 message shape, not a
2024-11-05 one; answered 400, see SHTTP-11).

Status codes: 200 (``application/json`` or ``text/event-stream``); 202; 400 malformed or
unreadable body, a batch, no ``Mcp-Session-Id``, or an ``MCP-Protocol-Version`` we do not speak;
403 disallowed ``Origin``; 404 unknown session (or another path); 405 another method (with
``Allow``); 406 an ``Accept`` without the needed types; 408 a body that did not arrive whole;
413 a body over ``max_body_bytes``; 415 a content type other than ``application/json``; 421
disallowed ``Host``; 503 (``Retry-After``) too many sessions, too many requests in flight in one
session, or the relay cannot reach the session's process. Each error's body is a JSON-RPC error
saying why.

Several processes or hosts (``relay=``, scaleout/relay.py): a POST, GET or DELETE that arrives
at a process other than the one holding its session is carried there; what the holder sends in
answer comes back through the relay to the process that took the POST, which writes it on that
POST's response (or on the GET stream). Every check is made where the request arrives.

Server (this module): ``StreamableHttpApp``, a WSGI application (``Server.wsgi_app()`` serves it
at ``/mcp`` inside the HTTP with SSE application): the checks, the status codes, and what goes
on which response. How it runs is one floor down, in machinery/: ``streamable_http/session_transport.py`` (a
session's transport: which of its streams each message of the engine goes on, points 3 and 4,
and the bounds of those streams), ``session_table.py`` (the sessions by id, how many, how long
unused), ``streamable_http/relayed.py`` (what the relay carries), ``http/event_streams.py`` (writing an
event stream). Client: streamable_http/client_transport.py.
"""

from __future__ import annotations

import json
import queue
import secrets
import time
from collections.abc import Callable, Iterable
from typing import Any

from werkzeug.exceptions import ClientDisconnected
from werkzeug.wrappers import Request, Response

from .. import messages
from ..machinery.http.event_streams import (
    LOCAL_HOSTS,
    OPENING,
    SSE_HEADERS,
    SseStreamWriter,
    client_socket,
    hostname,
    origin_allowed,
    pollable,
    sse_event,
)
from ..messages import CONNECTION_CLOSED, INVALID_REQUEST, PARSE_ERROR, McpError, RequestId
from ..revisions import stateless_http
from ..revisions.http_transport import SPOKEN_VERSIONS, post_batch, version_refused
from ..scaleout.redis_relay import relay_from
from ..scaleout.relay import Relay, RelayUnavailable, UnknownSession
from .relayed import forward, open_mailbox, relay_key, still_held, take_relayed
from .session_table import SessionTable
from .session_transport import Busy, LocalStream, OpenedSession, SessionTransport

# The headers of this transport (HTTP header names are case-insensitive).
SESSION_HEADER = "Mcp-Session-Id"

# --- limits (each a keyword of StreamableHttpApp; the README's "Limits" lists them) ---------------

DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024  # one POST body
DEFAULT_MAX_SESSIONS = 100  # each holds a session (its threads); idle ones end after idle_timeout
DEFAULT_MAX_IN_FLIGHT = 100  # requests of one session answered on open POST responses at once
DEFAULT_MAX_QUEUED = 1000  # messages waiting for one stream's writer (or for a GET stream)
DEFAULT_MAX_QUEUED_BYTES = 4 * 1024 * 1024  # and their bytes (one larger message goes alone)
KEEPALIVE_SECONDS = 15.0  # silence on a stream before a comment line
DEFAULT_IDLE_TIMEOUT = 30 * 60.0  # seconds a session may go unused before it ends
# Seconds the response to a request waits for the answer before it opens an event stream: a
# quick answer then goes back as plain JSON.
QUICK_ANSWER_SECONDS = 0.1
RETRY_AFTER_SECONDS = 5  # told to a client refused for too many sessions or requests
RELAY_RETRY_AFTER_SECONDS = 2  # told to a client whose session's process cannot be reached now

# What a request for a session that ended (or never was) is told, with HTTP 404.
_GONE = "Session not found: it ended or the server restarted; start a new session with initialize"

SessionOpener = Callable[[Any], OpenedSession]  # open_session(transport) -> a session not yet started


# --- the WSGI application -------------------------------------------------------------------------


class StreamableHttpApp:
    """The MCP endpoint as a WSGI application: ``POST``, ``GET`` and ``DELETE`` at ``path``.

    ``open_session(transport)`` makes the session for each new client (``Server.open_session``,
    with its trace bound); the app starts it. ``allowed_hosts`` are host names accepted in the
    ``Host`` header; ``allowed_origins`` are origins accepted in an ``Origin`` header; both default
    to localhost only, and ``["*"]`` accepts any. A request without ``Origin`` (not from a
    browser) is accepted. The limits are the module's ``DEFAULT_*`` constants; ``relay`` reaches
    sessions held by other processes (see relay.py; a ``Relay`` given here is not closed with
    the app, one made from a URL is).
    """

    def __init__(self, open_session: SessionOpener, *, path: str = "/mcp", allowed_hosts: Iterable[str] = LOCAL_HOSTS,
                 allowed_origins: Iterable[str] | None = None, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
                 max_sessions: int = DEFAULT_MAX_SESSIONS, max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
                 max_queued: int = DEFAULT_MAX_QUEUED, max_queued_bytes: int = DEFAULT_MAX_QUEUED_BYTES,
                 keepalive: float = KEEPALIVE_SECONDS, idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
                 quick_answer: float = QUICK_ANSWER_SECONDS, relay: Relay | str | None = None,
                 protocol_versions: Iterable[str] = SPOKEN_VERSIONS, tools: Any = None):
        self.open_session = open_session
        self.protocol_versions = tuple(protocol_versions)
        self.tools = tools  # the server's tool table: 2026-07-28's Mcp-Param-* checks (revisions/param_headers.py)
        self.path = path
        self.allowed_hosts = frozenset(allowed_hosts)
        self.allowed_origins = frozenset(allowed_origins) if allowed_origins is not None else None
        self.max_body_bytes = max_body_bytes
        self.max_sessions = max_sessions
        self.max_in_flight = max_in_flight
        self.max_queued = max_queued
        self.max_queued_bytes = max_queued_bytes
        self.keepalive = keepalive
        self.idle_timeout = idle_timeout
        self.quick_answer = quick_answer
        self.relay, self._owns_relay = relay_from(relay)
        self._table = SessionTable(max_sessions, idle_timeout)

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        return self.dispatch(Request(environ))(environ, start_response)

    @property
    def session_count(self) -> int:
        return len(self._table)

    def close(self) -> None:
        """End every session (their streams end), stop the sweeper, and the relay if the app made it."""
        self._table.close("the server is shutting down")
        if self._owns_relay:
            self.relay.close()

    # --- every request ---------------------------------------------------------------------------

    def dispatch(self, request: Request) -> Response:
        if "*" not in self.allowed_hosts and hostname(request.host) not in self.allowed_hosts:
            return _error(421, f"Host {request.host!r} is not allowed (DNS rebinding protection)")
        if not self._origin_allowed(request.headers.get("Origin")):  # SHTTP-06
            return _error(403, f"Origin {request.headers.get('Origin')!r} is not allowed")
        if request.path != self.path:
            return _error(404, f"not found; the MCP endpoint is {self.path}")
        # SHTTP-05: the one MCP endpoint takes POST and GET (and DELETE, SHTTP-41)
        if request.method == "POST":
            return self._post(request)
        if request.method == "GET":
            return self._get(request)
        if request.method == "DELETE":
            return self._delete(request)
        return _error(405, "use POST, GET or DELETE", headers={"Allow": "GET, POST, DELETE"})

    def _origin_allowed(self, origin: str | None) -> bool:
        return origin_allowed(origin, self.allowed_origins)  # the same check as HTTP with SSE's (TR-06)

    # --- POST: one message from the client -------------------------------------------------------

    def _post(self, request: Request) -> Response:
        accept = request.accept_mimetypes
        if not (accept["application/json"] and accept["text/event-stream"]):  # SHTTP-10
            return _error(406, "the Accept header must list both application/json and text/event-stream")
        if request.mimetype != "application/json":
            return _error(415, "the body must be application/json")
        if request.content_length is not None and request.content_length > self.max_body_bytes:
            return _error(413, f"the body is larger than {self.max_body_bytes} bytes")
        try:
            body = request.stream.read(self.max_body_bytes + 1)
        except ClientDisconnected:  # it stopped coming: the server's request_timeout, or the client left
            return _error(408, "the body did not arrive whole in time")
        if len(body) > self.max_body_bytes:
            return _error(413, f"the body is larger than {self.max_body_bytes} bytes")
        try:  # SHTTP-13: what we cannot take is an HTTP error with a JSON-RPC error as its body
            msg = messages.decode(body)  # SHTTP-01: the session's own test: strict UTF-8 JSON, not too deep
        except messages.ParseError as exc:
            return _error(400, exc.message, code=PARSE_ERROR)
        if stateless_http.addressed(request, msg, self.protocol_versions):  # 2026-07-28: no session at all
            return stateless_http.post(self, request, body, msg, _error, _json)  # (revisions/stateless_http.py)
        refused = version_refused(request, self.protocol_versions, _error)  # revisions/http_transport.py, point 1
        if refused is not None:
            return refused
        if isinstance(msg, list):  # SHTTP-11: a batch, taken only in a session of 2025-03-26
            session_id = request.headers.get(SESSION_HEADER)
            stream = LocalStream(self.max_queued, client_socket(request.environ), self.max_queued_bytes)
            return post_batch(request, self._table.get(session_id) if session_id else None, msg, stream,
                              self.keepalive, _error, _accepted)  # revisions/http_transport.py, point 2
        try:
            kind = messages.classify(msg)
        except McpError as exc:
            return _error(400, exc.message)
        session_id = request.headers.get(SESSION_HEADER)
        if not session_id:
            if kind is messages.REQUEST and msg["method"] == "initialize":
                return self._initialize(request, body, msg)  # SHTTP-34: a new session
            if kind is messages.REQUEST and msg["method"] == "ping":  # PING-01: a ping needs no session
                return _json(200, messages.encode(messages.result_response(msg["id"], {})))
            return _error(400, f"Bad Request: no {SESSION_HEADER} header; a session starts with an "  # SHTTP-38
                               "initialize request", request_id=msg["id"] if kind is messages.REQUEST else None)
        transport = self._table.get(session_id)
        if transport is None:
            return self._relay_post(request, session_id, body, msg, kind)
        if kind is not messages.REQUEST:
            refusal = transport.take(body, msg, kind, None)
            return _error(404, _GONE) if refusal is not None else _accepted()  # SHTTP-12
        stream = LocalStream(self.max_queued, client_socket(request.environ), self.max_queued_bytes)
        refusal = transport.take(body, msg, kind, stream)
        if refusal is not None:
            return self._refusal(refusal, msg["id"])
        return self._answer(request, stream, msg["id"], stream.abandon)

    def _initialize(self, request: Request, body: bytes, msg: dict[str, Any]) -> Response:
        """A new session for an ``initialize`` that came without a session id (SHTTP-34..36)."""
        session_id = secrets.token_hex(16)  # SHTTP-35, SHTTP-36: 128 random bits, as hex: visible ASCII only
        transport = SessionTransport(session_id, self.max_queued, self.max_in_flight, self.max_queued_bytes)
        if not self._table.add(transport):
            return _error(503, f"this server already has {self.max_sessions} sessions; try again later",
                          headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
        # Reachable from every process (through the relay) before the client learns the id.
        self.relay.hold(relay_key(session_id), lambda payload: take_relayed(self.relay, transport, payload, _GONE))
        session = self.open_session(transport)
        session.around_request = transport.handling  # what a handler sends goes on its request's stream
        transport.session = session
        session.on_close(lambda s: self._forget(session_id))
        session.start()
        stream = LocalStream(self.max_queued, client_socket(request.environ), self.max_queued_bytes)
        transport.take(body, msg, messages.REQUEST, stream)

        def answered(answer: dict[str, Any]) -> None:
            if "error" in answer:  # initialization failed: the session is of no use
                session.close("initialize failed")

        return self._answer(request, stream, msg["id"], stream.abandon,
                            headers={SESSION_HEADER: session_id}, answered=answered)

    def _refusal(self, refusal: McpError, request_id: RequestId) -> Response:
        if isinstance(refusal, Busy):
            return _error(503, refusal.message, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
        if refusal.code == CONNECTION_CLOSED:
            return _error(404, _GONE)
        # the request is answered here, as the session would have answered it (MSG-04)
        return _json(200, messages.encode(messages.error_response(request_id, refusal)))

    # --- the answer to a request: JSON or an event stream ----------------------------------------

    def _answer(self, request: Request, source: Any, request_id: RequestId, finished: Callable[[], None], *,
                headers: dict[str, str] | None = None, still_wanted: Callable[[], bool] | None = None,
                answered: Callable[[dict[str, Any]], None] | None = None) -> Response:
        """The response to a POST carrying a request: the answer as JSON if it comes first and
        quickly, else an event stream of everything for that request, ending with the answer
        (SHTTP-14..19). ``finished()`` runs once the response is over, however it ends."""
        writer = SseStreamWriter(pollable(client_socket(request.environ)), self.keepalive, still_wanted)

        def is_answer(data: bytes) -> bool:
            msg = json.loads(data)
            if "method" in msg or msg.get("id") != request_id or type(msg.get("id")) is not type(request_id):
                return False
            if answered is not None:
                answered(msg)
            return True

        try:
            first = writer.next_message(source, time.monotonic() + self.quick_answer)
        except queue.Empty:
            first = None
            waited = False
        else:
            waited = True
        if waited and first is not None and is_answer(first):  # SHTTP-14: one JSON object
            finished()
            return _json(200, first, headers)

        def stream() -> Iterable[bytes]:
            try:
                if first is not None:
                    yield sse_event("message", first)  # SHTTP-17: what came before the answer
                else:
                    yield OPENING  # the headers go now: the client waits for them
                if waited and first is None:
                    return  # the stream ended (the request was cancelled, or the session ended)
                yield from writer.events(source, is_answer)  # SHTTP-16, SHTTP-19: ends with the answer
            finally:  # SHTTP-20: the client leaving does not cancel the request
                finished()

        return Response(stream(), status=200, mimetype="text/event-stream", headers={**SSE_HEADERS, **(headers or {})})

    # --- GET: the stream for what belongs to no request ------------------------------------------

    def _get(self, request: Request) -> Response:
        if not request.accept_mimetypes["text/event-stream"]:  # SHTTP-24
            return _error(406, "the Accept header must list text/event-stream")
        refused = version_refused(request, self.protocol_versions, _error)  # revisions/http_transport.py, point 1
        if refused is not None:
            return refused
        session_id = request.headers.get(SESSION_HEADER)
        if not session_id:
            return _error(400, f"Bad Request: no {SESSION_HEADER} header")  # SHTTP-38
        transport = self._table.get(session_id)
        if transport is None:
            return self._relay_get(request, session_id)
        stream = LocalStream(self.max_queued, client_socket(request.environ), self.max_queued_bytes)
        transport.listen(stream)  # SHTTP-25: a stream, or 405 where a server offers none
        writer = SseStreamWriter(pollable(client_socket(request.environ)), self.keepalive)

        def events() -> Iterable[bytes]:
            try:
                yield OPENING
                yield from writer.events(stream)  # SHTTP-26, SHTTP-27: requests and notifications only
            finally:
                stream.abandon()
                transport.unlisten(stream)

        return Response(events(), status=200, mimetype="text/event-stream", headers=SSE_HEADERS)

    # --- DELETE: the client ends its session -----------------------------------------------------

    def _delete(self, request: Request) -> Response:
        session_id = request.headers.get(SESSION_HEADER)
        if not session_id:
            return _error(400, f"Bad Request: no {SESSION_HEADER} header")
        transport = self._table.get(session_id)
        if transport is None:
            return self._relay_simple(session_id, "delete")
        if transport.session is not None:
            transport.session.close("the client ended the session (HTTP DELETE)")  # SHTTP-41
        return Response(status=200)

    # --- sessions held by other processes: through the relay -------------------------------------

    def _publish(self, session_id: str, kind: str, body: bytes = b"", reply: str | None = None) -> Response | None:
        """Carry a message to the process holding ``session_id``; an error Response if it cannot."""
        try:
            forward(self.relay, session_id, kind, body, reply)
        except UnknownSession:
            return _error(404, _GONE)  # SHTTP-39
        except RelayUnavailable as exc:
            return _error(503, f"cannot reach the session now: {exc}; try again shortly",
                          headers={"Retry-After": str(RELAY_RETRY_AFTER_SECONDS)})
        return None

    def _relay_simple(self, session_id: str, kind: str, body: bytes = b"") -> Response:
        failed = self._publish(session_id, kind, body)
        if failed is not None:
            return failed
        return _accepted() if kind == "post" else Response(status=200)

    def _relay_post(self, request: Request, session_id: str, body: bytes, msg: dict[str, Any], kind: str) -> Response:
        if kind is not messages.REQUEST:
            return self._relay_simple(session_id, "post", body)
        mailbox = open_mailbox(self.relay, self.max_queued)
        if mailbox is None:  # a relay of another kind: it cannot bring answers back
            return _error(503, "this server's relay cannot carry answers back; ask its operator")
        failed = self._publish(session_id, "post", body, mailbox.address)
        if failed is not None:
            mailbox.close()
            return failed
        return self._answer(request, mailbox, msg["id"], mailbox.close,
                            still_wanted=lambda: still_held(self.relay, session_id))

    def _relay_get(self, request: Request, session_id: str) -> Response:
        mailbox = open_mailbox(self.relay, self.max_queued)
        if mailbox is None:  # a relay of another kind: it cannot bring messages back
            return _error(405, "no GET stream here", headers={"Allow": "POST, DELETE"})
        failed = self._publish(session_id, "listen", reply=mailbox.address)
        if failed is not None:
            mailbox.close()
            return failed
        writer = SseStreamWriter(pollable(client_socket(request.environ)), self.keepalive,
                                 lambda: still_held(self.relay, session_id))

        def events() -> Iterable[bytes]:
            try:
                yield OPENING
                yield from writer.events(mailbox)
            finally:
                mailbox.close()
                self._publish(session_id, "unlisten", reply=mailbox.address)  # best effort

        return Response(events(), status=200, mimetype="text/event-stream", headers=SSE_HEADERS)

    # --- ending sessions ---------------------------------------------------------------------------

    def _forget(self, session_id: str) -> None:
        self.relay.release(relay_key(session_id))
        transport = self._table.pop(session_id)
        if transport is not None:
            transport.close()


def _accepted() -> Response:
    return Response(status=202)  # SHTTP-12: accepted, no body


def _json(status: int, body: bytes, headers: dict[str, str] | None = None) -> Response:
    return Response(body, status=status, mimetype="application/json", headers=headers)


def _error(status: int, text: str, *, code: int = INVALID_REQUEST, headers: dict[str, str] | None = None,
           request_id: RequestId | None = None, data: Any = None) -> Response:
    """An HTTP error whose body is a JSON-RPC error (SHTTP-13): every client can show it. Its id is
    null, or the refused request's own when one was read, so the client knows which failed."""
    if status == 404 and text == _GONE:
        code = CONNECTION_CLOSED
    body = messages.encode(messages.error_response(request_id, McpError(text, data, code=code)))
    return _json(status, body, headers)

