"""The client's end of the Streamable HTTP transport: a POST per message, answers on its response.

Spec page: basic/transports
Revision 2025-03-26, section Streamable HTTP (the client's end; the server's is streamable_http/server_app.py)
https://modelcontextprotocol.io/specification/2025-03-26/basic/transports

In short (the server's side and the whole picture are in streamable_http/server_app.py):

1. Every message is POSTed to the one MCP endpoint (SHTTP-09) with ``Accept: application/json,
   text/event-stream`` (SHTTP-10). A notification or a response is answered 202 (SHTTP-12).
2. The answer to a request comes on its POST's response, as one JSON object or as an event
   stream (SHTTP-14; we take both: SHTTP-15). On a stream, whatever comes first (progress, log
   lines, the server's own requests such as sampling or roots, SHTTP-17) is handed to the
   session as it arrives, then the answer; the stream is read by a thread of its own, so the
   caller's ``send`` returns once the response has begun, and a request can be cancelled or
   time out meanwhile.
3. The response to ``initialize`` may carry ``Mcp-Session-Id``: we keep it (refusing one that is
   not visible ASCII, SHTTP-36) and send it with every later request (SHTTP-37), with
   ``MCP-Protocol-Version`` once the version is negotiated (a header of revision 2025-06-18,
   accepted by servers of every revision since).
4. Before we POST ``notifications/initialized`` we open the GET stream (SHTTP-23, 24) for what
   belongs to no request, and wait (up to ``GET_WAIT`` seconds) for the server's answer to it:
   a server may send a notification (``list_changed``) the moment it hears we are initialized,
   and with the stream already open it has somewhere to send it (a server without a stream
   may drop such a message, as the TypeScript SDK's does). The session id is known by then, as
   the spec asks. A server may refuse the stream (405, SHTTP-25: then there is none), or refuse
   it until it is initialized (any other 4xx: we ask once more after the POST), or end it: we
   open it again a second later, which also tells whether the session and the server are still
   there.
5. HTTP 404 for our session means it has ended (SHTTP-39): the connection ends, and every call
   waiting fails with ``ConnectionClosed`` saying the session expired; a new session takes a new
   ``Client.http(...)`` (SHTTP-40). A server we cannot reach any more ends it too.
6. Closing DELETEs the session (SHTTP-41), within two seconds, whatever the server does.

A POST that fails because the server closed a kept-alive connection without answering (servers
close idle connections: Node after 5 s) is sent once more on a fresh connection, since the server
never read it; any other failure to reach the server ends the connection.

7. A stream that ends (or breaks) before it is done is resumed where the server gave its events
   ids: after the server's ``retry`` time, a GET with ``Last-Event-ID`` carries it on, for a
   POST's stream and for the GET stream alike (SHTTP-32, SHTC-06..08, 13; resumption.py says how,
   with its bounds: revisions/stream_resumption.py).

What the transport does that the page leaves open: a request whose stream ends (or breaks)
before its answer and cannot be resumed (no event id, or the resuming failed) can never be
answered. If the server cannot be reached any more, the connection ends (as in point 5); if it
can, the transport answers that one request itself, with a -32000 error whose ``data`` says so,
so the caller hears at once rather than at its timeout. A cancelled request's stream is closed by us after the
``notifications/cancelled`` went out. Every wait is bounded: a POST by the timeout the session
gives it (a request's own, LC-24), a JSON body by the same, the GET by ``timeout``; open
streams may then stay idle (``Client(ping_interval=...)`` watches over the connection). An
event or a JSON body over ``max_message_bytes`` (32 MiB) ends its stream.

``Client.http(url)`` first tries this transport; on a 4xx to its ``initialize`` POST (other than
401 and 403) it falls back to HTTP with SSE at the same URL (SHTTP-43, client.py). The HTTP
plumbing (one requests session, bounded reads, the event-stream parser, what a refused or broken
request says) is machinery/http/client_plumbing.py.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from typing import Any

from .. import messages
from ..machinery.http import client_plumbing as plumbing  # the HTTP plumbing (its docstring says what each does)
from ..machinery.http.client_plumbing import Cursor, HttpError, ResponseStream, short_reads, sse_events
from ..machinery.memory import put_end_marker
from ..messages import ConnectionClosed, RequestId
from ..revisions import param_headers, stateless_client
from ..revisions.http_transport import agreed_version
from ..revisions.stream_resumption import LAST_EVENT_ID_HEADER, Tries, delay, resume

log = logging.getLogger("mcp_ref.streamable_http")

SESSION_HEADER = "Mcp-Session-Id"
VERSION_HEADER = "MCP-Protocol-Version"
ACCEPT_BOTH = "application/json, text/event-stream"  # SHTTP-10

MAX_MESSAGE_BYTES = 32 * 1024 * 1024  # one JSON body or one event
DEFAULT_MAX_QUEUED = 1000  # messages read and not yet taken by the session
DELETE_TIMEOUT = 2.0  # seconds closing waits for the server to take the DELETE
PROBE_TIMEOUT = 2.0  # seconds to learn whether the server is still there, after a stream broke
GET_WAIT = 2.0  # seconds the initialized POST waits for the server's answer to the GET (point 4)


class SessionExpired(ConnectionError):
    """The server answered 404 for our session: it ended, or the server restarted (SHTTP-39)."""


class StreamableHttpClientTransport:
    """The client's end: one ``requests.Session``; each ``send`` a POST to ``url``.

    ``headers`` go with every HTTP request (an ``Authorization`` bearer token, say). ``timeout``
    bounds the GET stream's opening and a ``send`` given no timeout of its own. Nothing is sent
    until the session sends ``initialize``.
    """

    def __init__(self, url: str, *, headers: dict[str, str] | None = None, timeout: float = 30.0,
                 proxies: dict[str, str] | None = None, verify: bool | str | None = None,
                 max_queued: int = DEFAULT_MAX_QUEUED, max_message_bytes: int = MAX_MESSAGE_BYTES):
        self.url = url
        self.timeout = timeout
        self.max_message_bytes = max_message_bytes
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self._http = plumbing.http_session(url, headers, proxies, verify)
        self._inbox: queue.Queue[bytes | None] = queue.Queue(max_queued)
        self._lock = threading.Lock()
        self._streams: dict[RequestId, ResponseStream] = {}
        self._listening: ResponseStream | None = None  # the GET stream's response, while open
        self._listener: threading.Thread | None = None
        self._get_answered = threading.Event()  # the first GET has its answer: a stream, or none
        self._initialized_sent = threading.Event()
        self._initialize_id: RequestId | None = None
        self._closing = threading.Event()
        self._reached = False  # the server has answered an HTTP request of ours
        self._ended: str | None = None  # why the connection ended, once it has
        self._end_seen = False

    # --- the session's side -------------------------------------------------------------------

    def receive(self, timeout: float | None = None) -> bytes | None:
        if self._end_seen:
            return None
        try:
            data = self._inbox.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError("no message within the time given") from None
        if data is None:
            self._end_seen = True  # and it stays the end for whoever reads next
        return data

    def send(self, data: bytes, timeout: float | None = None) -> None:
        import requests

        if self._ended is not None:
            raise OSError(self._ended)
        bound = self.timeout if timeout is None else timeout
        if bound <= 0:
            raise TimeoutError(f"no time left to POST to {self.url}")
        msg = json.loads(data)  # our own engine's strict JSON
        method = msg.get("method")
        is_request = method is not None and "id" in msg
        if method == "initialize" and is_request:
            self._initialize_id = msg["id"]
        elif method == "notifications/initialized":  # SHTTP-23: the stream first, so nothing sent on
            self._start_listening()  # being initialized is lost (point 4)
            self._get_answered.wait(min(bound, GET_WAIT))
        elif method == "notifications/cancelled":  # SHTTP-21: no answer will come (CAN-06): stop reading
            self._abandon_stream((msg.get("params") or {}).get("requestId"))
            if self._initialize_id is None:  # 2026-07-28 (no handshake): closing its stream was the cancellation,
                return  # CANCEL-05: no notifications/cancelled POST (revisions/stateless_client.py, point 5)
        deadline = time.monotonic() + bound
        headers = {**self._headers(json_body=True), **param_headers.headers(msg, self)}  # HTTPX-03, MPARAM-06
        try:
            # SHTTP-09, SHTTP-10
            # SHTTP-11: every message (one, never a batch) its own POST, ready for
            # either kind of answer; SHTTP-01: the body is our engine's UTF-8; LC-24: both to
            # connect and to wait for the answer to begin. Sent once more if it crossed the close
            # of an idle kept-alive connection (machinery/http/client_plumbing.py, point 7).
            response = plumbing.resent_once(self._http, lambda left: self._http.post(
                self.url, data=data, headers=headers, timeout=(left, left), stream=True), bound)
        except requests.ConnectionError as exc:  # refused, no such host, TLS... (and a connection never made in time)
            if self._reached and isinstance(exc, requests.Timeout):
                raise TimeoutError(f"POST to {self.url}: no connection within {bound:g} s") from None
            raise self._gone(exc, bound) from None
        except requests.Timeout as exc:  # the session turns it into RequestTimeout for the caller
            if not self._reached:  # not one HTTP answer yet: this is no MCP endpoint, or a stuck one (as for SSE)
                raise self._gone(exc, bound) from None
            raise TimeoutError(f"POST to {self.url}: no answer within {bound:g} s") from None
        except requests.RequestException as exc:  # not an http(s) URL, a URL that cannot be read
            raise self._gone(exc, bound) from None
        self._reached = True
        try:
            self._take_response(response, msg, is_request, deadline)
        except BaseException:
            plumbing.stop_reading(plumbing.socket_of(response), response)
            raise
        if method == "notifications/initialized":
            self._initialized_sent.set()

    def _headers(self, *, json_body: bool = False, accept: str = ACCEPT_BOTH) -> dict[str, str]:
        headers = {"Accept": accept}
        if json_body:
            headers["Content-Type"] = "application/json"
        if self.session_id is not None:
            headers[SESSION_HEADER] = self.session_id  # SHTTP-37
        if self.protocol_version is not None:
            headers[VERSION_HEADER] = self.protocol_version
        return headers

    def _take_response(self, response: Any, msg: dict[str, Any], is_request: bool, deadline: float) -> None:
        status = response.status_code
        if status == 404 and self.session_id is not None:  # SHTTP-39, SHTTP-40: our session is no more
            raise self._expired()
        if not 200 <= status < 300:
            if stateless_client.http_headers(msg):  # HTTPX-24: 2026-07-28's refusal may be the answer
                return stateless_client.take_refusal(self, response, msg, deadline)
            why = plumbing.why_refused(response, max(0.1, deadline - time.monotonic()))
            response.close()
            raise HttpError(f"POST to {self.url} answered HTTP {status} {response.reason}: {why}", status)
        if is_request and msg["method"] == "initialize":
            self._keep_session_id(response.headers.get(SESSION_HEADER))  # SHTTP-34, SHTTP-36
        kind = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if not is_request or status == 202:  # SHTTP-12: accepted, nothing to read
            response.close()
            if is_request:  # a request answered with nothing: no answer will ever come
                self._answer_for_server(msg["id"], msg["method"], "the server answered the POST with "
                                        f"HTTP {status} and no response")
            return
        if kind == "application/json":  # SHTTP-14, SHTTP-15: one JSON object, the answer
            try:
                body = plumbing.read_body(response, deadline, self.max_message_bytes)
            except TimeoutError:
                raise TimeoutError(f"POST to {self.url}: the answer did not arrive whole in time") from None
            except (OSError, ValueError) as exc:
                raise ConnectionClosed(f"POST to {self.url}: could not read the answer: {exc}") from None
            finally:
                response.close()
            self._deliver(body)
        # SHTTP-15, SHTTP-16
        elif kind == "text/event-stream":  # SHTTP-17, SHTTP-29: read on, on a thread of its own
            stream = ResponseStream(response, msg["id"], msg["method"])
            with self._lock:
                if self._closing.is_set():
                    stream.abandon()
                    return
                self._streams[msg["id"]] = stream
            threading.Thread(target=self._read_stream, args=(stream,), name="mcp_ref-http-response",
                             daemon=True).start()
        else:
            response.close()
            raise HttpError(f"POST to {self.url} answered with content type {kind!r}, neither "
                            "application/json nor text/event-stream; is this an MCP endpoint?", status)

    def _gone(self, exc: Exception, timeout: float) -> ConnectionClosed:
        """The server cannot be reached: the connection ends, so every call waiting on it fails at
        once, saying what happened and what to check, as HTTP with SSE says it (http/client_plumbing.py)."""
        reason = plumbing.could_not_reach(self.url, exc, timeout, reached=self._reached, endpoint=plumbing.MCP_ENDPOINT)
        self._end(reason)
        return ConnectionClosed(reason)

    def _keep_session_id(self, session_id: str | None) -> None:
        if session_id is None:
            return  # a server without sessions
        if not session_id or not all(0x21 <= ord(c) <= 0x7E for c in session_id):  # SHTTP-36
            raise ConnectionClosed(f"refusing the server's {SESSION_HEADER}: it must be visible ASCII only")
        self.session_id = session_id

    # --- reading streams ----------------------------------------------------------------------

    def _read_stream(self, stream: ResponseStream) -> None:
        """Hand every message of a POST's stream to the session, until the answer (SHTTP-16),
        resuming the stream if it ends before that and the server allows it (point 7)."""
        answered, problem = False, "the server ended the stream"
        cursor, tries = Cursor(), Tries()
        try:
            while True:
                try:
                    for event, data in sse_events(short_reads(stream.response), self.max_message_bytes, cursor):
                        if event != "message":
                            continue  # other event types are not ours
                        payload = data.encode("utf-8")
                        if not self._deliver(payload):
                            return  # closing
                        if plumbing.answers(payload, stream.request_id):
                            answered = True
                            return
                    problem = "the server ended the stream"
                except Exception as exc:  # broken, or hostile (an event too large, bytes not UTF-8)
                    problem = f"the stream broke ({exc})"
                plumbing.stop_reading(stream.socket, stream.response)
                resumed = None if self._closing.is_set() else resume(  # SHTC-06: poll, resume it (point 7)
                    self._http, self.url, self._headers(accept="text/event-stream"), cursor, self.timeout,
                    stream.abandoned, tries)
                if resumed is None:
                    break
                stream.carry_on(resumed)
        finally:
            with self._lock:
                if self._streams.get(stream.request_id) is stream:
                    del self._streams[stream.request_id]
            plumbing.stop_reading(stream.socket, stream.response)
            if not answered and not stream.abandoned.is_set() and not self._closing.is_set():
                self._stream_lost(stream, problem if tries.stopped is None else f"{problem} ({tries.stopped})")

    def _stream_lost(self, stream: ResponseStream, problem: str) -> None:
        """A stream ended before its answer. If the server cannot be reached any more, the whole
        connection ends (every waiting call fails at once); else only this request fails."""
        import requests

        try:  # any answer at all says the server is there; HEAD has no meaning in MCP
            self._http.head(self.url, headers=self._headers(), timeout=(PROBE_TIMEOUT, PROBE_TIMEOUT))
        except requests.ConnectionError as exc:
            self._gone(exc, PROBE_TIMEOUT)
            return
        except requests.RequestException:
            pass
        self._answer_for_server(stream.request_id, stream.method, f"{problem} before answering")

    def _answer_for_server(self, request_id: RequestId, method: str, what: str) -> None:
        """A request that can never be answered now (no stream left to bring the answer, and
        none to resume) fails at once: the transport hands the session an error answer of
        its own making, which says so in its ``data``."""
        error = ConnectionClosed(f"Connection closed: {what} to {messages.printable(method)}",
                                 {"transport": "streamable-http", "note": "made by the client's transport, "
                                  "not sent by the server"})
        try:
            self._deliver(messages.encode(messages.error_response(request_id, error)))
        except messages.NotJson:  # an id that cannot be written cannot be waited for either
            pass

    def _start_listening(self) -> None:
        with self._lock:
            if self._listener is not None or self._closing.is_set():
                return
            self._listener = threading.Thread(target=self._listen, name="mcp_ref-http-listen", daemon=True)
        self._listener.start()

    def _listen(self) -> None:
        """The GET stream (SHTTP-23): opened, read, and opened again when the server ends it,
        until the server refuses it, the session ends or we close (point 4)."""
        asked_again, cursor = False, Cursor()
        try:
            while not self._closing.is_set():
                response, status = self._open_get(cursor.last_event_id)
                if response is None and status is not None and not asked_again and status not in (404, 405):
                    # Refused, perhaps only until the server is initialized: once more after the POST.
                    asked_again = True
                    self._get_answered.set()
                    while not (self._initialized_sent.wait(0.5) or self._closing.is_set()):
                        pass
                    continue
                if response is None:
                    return
                stream = ResponseStream(response, "", "GET")
                with self._lock:
                    self._listening = stream
                if self._closing.is_set():
                    stream.abandon()
                self._get_answered.set()  # the server holds our stream: what it sends from now on comes here
                try:
                    for event, data in sse_events(short_reads(response), self.max_message_bytes, cursor):
                        if event == "message" and not self._deliver(data.encode("utf-8")):
                            return
                except Exception as exc:
                    log.debug("the GET stream at %s broke: %s", self.url, exc)
                finally:
                    with self._lock:
                        self._listening = None
                    plumbing.stop_reading(stream.socket, response)
                # SHTTP-28: the server ended it; open it again (the answer tells all is well), from
                # the last event id if it gave one, after its retry time (SHTC-13)
                self._closing.wait(delay(cursor))  # (a second, if it named none)
        finally:
            self._get_answered.set()

    def _open_get(self, last_event_id: str | None = None) -> tuple[Any, int | None]:
        """One GET for the stream: ``(response, 200)`` when it is open; ``(None, status)`` when the
        server refused it (405: it offers none, SHTTP-25; 404: the session is gone); ``(None, None)``
        when it could not be asked (the server is gone: the connection ends)."""
        import requests

        headers = self._headers(accept="text/event-stream")  # SHTTP-24: it accepts an event stream
        if last_event_id is not None:
            headers[LAST_EVENT_ID_HEADER] = last_event_id  # SHTTP-32: where the stream left off
        try:
            response, status = plumbing.open_event_stream(self._http, self.url, headers, self.timeout)
        except requests.ConnectionError as exc:
            if not self._closing.is_set():
                self._gone(exc, self.timeout)
            return None, None
        except requests.RequestException as exc:
            log.info("the GET stream at %s could not be opened (%s); server messages outside requests "
                     "will not arrive", self.url, exc)
            return None, None
        if status == 404 and self.session_id is not None:
            self._expired()
        elif response is None and status != 405:  # SHTTP-25: 405, no GET stream here
            log.info("the GET stream at %s was refused: HTTP %d, no event stream", self.url, status)
        return response, status

    def _deliver(self, data: bytes) -> bool:
        """Into the session's inbox, waiting for room (a slow session slows the reading of the
        streams, never loses a message); False if the transport closed meanwhile."""
        if self.protocol_version is None and self._initialize_id is not None:  # HDR-01: sent from now on
            self.protocol_version = agreed_version(data, self._initialize_id)  # (revisions/http_transport.py)
        while not self._closing.is_set():
            try:
                self._inbox.put(data, timeout=0.5)
                return True
            except queue.Full:
                continue
        return False

    # --- ending -------------------------------------------------------------------------------

    def _abandon_stream(self, request_id: Any) -> None:
        """A cancelled request's stream: no answer will come (CAN-06), so we stop reading it."""
        with self._lock:
            stream = self._streams.pop(request_id, None) if messages.is_valid_id(request_id) else None
        if stream is not None:
            stream.abandon()

    def _expired(self) -> SessionExpired:
        return self._end("the session expired: the server answered HTTP 404 for it (it ended the session, or "
                         "restarted); connect again to start a new session", expired=True)

    def _end(self, reason: str, *, expired: bool = False) -> SessionExpired:
        """The connection is over (the server forgot our session, or is gone): the session's
        reader sees the end, so every waiting call fails at once with ``reason``."""
        with self._lock:
            if self._ended is None:
                self._ended = reason
            if expired:
                self.session_id = None  # nothing left to DELETE
        put_end_marker(self._inbox)
        return SessionExpired(reason)

    def close(self) -> None:
        if self._closing.is_set():
            return
        self._closing.set()
        with self._lock:
            streams = list(self._streams.values())
            self._streams.clear()
            listening = self._listening
        for stream in streams + ([listening] if listening is not None else []):
            stream.abandon()
        if self.session_id is not None and self._ended is None:
            try:  # SHTTP-41: we are done with the session; a 405 (the server keeps it) is fine too
                plumbing.resent_once(self._http, lambda left: self._http.delete(
                    self.url, headers=self._headers(), timeout=(left, left)), DELETE_TIMEOUT)
            except Exception as exc:
                log.debug("DELETE of the session at %s failed: %s", self.url, exc)
        self._http.close()
        put_end_marker(self._inbox)

    def describe_close(self) -> str:
        if self._ended is not None:
            return self._ended
        return "the client closed the connection" if self._closing.is_set() else "the connection ended"


__all__ = ["SessionExpired", "StreamableHttpClientTransport"]
