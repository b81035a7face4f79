"""Server cases for the Streamable HTTP transport (``check server --http URL``).

Not a spec section: cases of the conformance checker (see __init__.py). The spec page they check
is the transports page of revision 2025-03-26, whose IDs are ``SHTTP-NN``
(requirements_2025_03_26.py; ``mcp-ref spec SHTTP-06``):
  https://modelcontextprotocol.io/specification/2025-03-26/basic/transports

What the page asks of a server at its MCP endpoint, in short:

1. Check the ``Origin`` of every request, against DNS rebinding (SHTTP-06): POST, GET and DELETE
   alike, since each reaches the same session. A rebinding page's requests carry a foreign
   ``Host`` too; refusing it is the rule's purpose beyond its letter (a warning, as for SSE).
2. A request carrying a session id the server does not have (never given, or ended) is 404
   (SHTTP-39); one without a session id, once sessions are in use, is 400 (SHTTP-38); DELETE ends
   the session, or is refused with 405 (SHTTP-41).
3. A POST holding a request is answered on its own response: one JSON object, or an event stream
   that carries the response and then ends (SHTTP-14, 16, 19).

These cases speak HTTP themselves (``exchange``), on a session they open with a plain POST of
initialize: the kit's wire would open a GET stream of its own, and a server allowing one GET
stream per session would then refuse the case's GET for that reason, not for its Origin.
A server that gives no session id keeps none (sessions are optional, SHTTP-34): the session
cases are SKIP there.
"""

from __future__ import annotations

import json
import secrets
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from . import shapes
from .helpers import FOREIGN_HOST, FOREIGN_ORIGIN, one_cause
from .model import server_case
from .revisions import ID
from .server_check import ServerCheck
from .sse_wire import SseEventParser, host_header, open_connection, request_target

TRANSPORTS = "basic/transports"
SESSION = "Mcp-Session-Id"
VERSION = "MCP-Protocol-Version"
UNDEFINED_VERSION = "1999-01-01"  # a version nobody defined
ACCEPT_BOTH = "application/json, text/event-stream"
JSON_POST = {"Content-Type": "application/json", "Accept": ACCEPT_BOTH}
INITIALIZE = {"jsonrpc": "2.0", "id": "mcp-ref-check-init", "method": "initialize", "params": {
    "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "mcp-ref-check", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def ping(request_id: str, method: str = "ping") -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method}).encode()


@dataclass
class Exchange:
    """One HTTP request the kit made and what came back: the status, the headers, the body (or,
    for an event stream, the messages of its events), and whether an event stream ended by itself."""

    method: str
    status: int
    headers: dict[str, str]
    sent_headers: dict[str, str]
    sent: str
    body: str = ""
    messages: list[Any] = field(default_factory=list)
    ended: bool = True

    @property
    def kind(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()

    @property
    def served(self) -> bool:
        return 200 <= self.status < 300

    def shown(self) -> str:
        what = f"HTTP {self.status} {self.kind}".rstrip()
        if self.headers.get(SESSION.lower()):
            what += f" ({SESSION}: {self.headers[SESSION.lower()]})"
        if self.messages:
            return f"{what}: " + " ".join(json.dumps(m) for m in self.messages)[:300]
        return f"{what} {self.body[:200]}".rstrip()

    def answer(self, request_id: str) -> Any:
        """The JSON-RPC response for ``request_id`` in the body or the stream, if any."""
        found = self.messages
        if self.kind == "application/json" and self.body:
            try:
                found = [json.loads(self.body)]
            except ValueError:
                return None
        return next((m for m in found if isinstance(m, dict) and m.get("id") == request_id and "method" not in m), None)


def exchange(t: ServerCheck, method: str, body: bytes | None = None, headers: dict[str, str] | None = None,
             wait_for: str | None = None, until_end: bool = False) -> Exchange | None:
    """One HTTP request to the MCP endpoint on a connection of its own; None when it could not be
    made or got no status line within the step. An event stream is read until the response to
    ``wait_for`` (with ``until_end``, for a step more, to see whether the stream ends), else not at all."""
    url = str(t.run.target.http)
    sent_headers = {**t.run.target.headers, **(headers or {})}
    sent = f"{method} {request_target(url)}" + (f" {body.decode('utf-8', 'replace')}" if body else "")
    conn = open_connection(url, t.timeout)
    try:
        conn.request(method, request_target(url), body=body, headers=sent_headers)
        response = conn.getresponse()
        got = Exchange(method, response.status, {k.lower(): v for k, v in response.getheaders()},
                       {"Host": host_header(url), **sent_headers}, sent)
        if got.kind != "text/event-stream":
            got.body = response.read(65536).decode("utf-8", "replace")
        elif wait_for is not None:
            got.ended = _read_events(response, got, wait_for, t.timeout, until_end)
        return got
    except (OSError, ValueError) as exc:
        t.note(f"{sent[:80]}: no answer ({exc})")
        return None
    finally:
        conn.close()


def _read_events(response: Any, got: Exchange, wait_for: str, timeout: float, until_end: bool) -> bool:
    """Read the stream's messages into ``got`` until the response to ``wait_for`` (and, with
    ``until_end``, until the stream ends); True if it ended within ``timeout`` of that response."""
    parser = SseEventParser()
    deadline = time.monotonic() + timeout
    answered = False
    while time.monotonic() < deadline:
        try:
            chunk = response.read1(65536)
        except OSError:  # the socket's own timeout: the stream stays open
            return False
        if not chunk:
            return True
        for name, data in parser.feed(chunk):
            if name == "message":
                try:
                    got.messages.append(json.loads(data))
                except ValueError:
                    got.messages.append(data)
        if not answered and got.answer(wait_for) is not None:
            if not until_end:
                return False
            answered, deadline = True, time.monotonic() + timeout
    return False


def open_session(t: ServerCheck, version: str | None = None) -> str:
    """A session of this case's own, opened with plain POSTs (initialize, then initialized): its
    id. SKIP when the server keeps no sessions or cannot be initialized so. With ``version``, the
    initialize proposes it, the server must agree on it (else SKIP), and the notification carries
    it in MCP-Protocol-Version."""
    params: dict[str, Any] = dict(shapes.as_dict(INITIALIZE["params"]))
    body = INITIALIZE if version is None else {**INITIALIZE, "params": {**params, "protocolVersion": version}}
    got = exchange(t, "POST", json.dumps(body).encode(), JSON_POST, wait_for=str(INITIALIZE["id"]))
    answer = got.answer(str(INITIALIZE["id"])) if got is not None and got.served else None
    if got is None or answer is None:
        t.skip("a plain POST of initialize was not answered with a result: " + (got.shown() if got else "no answer"))
    session = got.headers.get(SESSION.lower())
    if not session:
        t.skip(f"the server gave no {SESSION} in answer to initialize: it keeps no sessions (optional, SHTTP-34)")
    extra = {}
    if version is not None:
        agreed = shapes.as_dict(shapes.as_dict(answer).get("result")).get("protocolVersion")
        if agreed != version:
            end_session(t, session)
            t.skip(f"proposed {version} on a plain POST, the server agreed on {shapes.json_text(agreed)}")
        extra = {VERSION: version}
    exchange(t, "POST", json.dumps(INITIALIZED).encode(), {**JSON_POST, SESSION: session, **extra})
    return session


def end_session(t: ServerCheck, session: str) -> None:
    exchange(t, "DELETE", None, {SESSION: session})


# --- SHTTP-06: Origin, and Host ------------------------------------------------------------------


def foreign_origin_served(t: ServerCheck) -> tuple[list[str], list[str], list[Exchange]]:
    """Which of POST (initialize, and a ping in a live session), GET and DELETE serve a foreign
    Origin, and which refuse it: (served, refused, every exchange)."""
    origin = {"Origin": FOREIGN_ORIGIN}
    tries: list[tuple[str, Exchange | None]] = [
        ("POST of initialize", exchange(t, "POST", json.dumps(INITIALIZE).encode(), {**JSON_POST, **origin},
                                        wait_for=str(INITIALIZE["id"])))]
    given = tries[0][1].headers.get(SESSION.lower()) if tries[0][1] is not None else None
    if given:
        end_session(t, given)
    session = open_session(t)
    tries.append(("POST of a ping in a session", exchange(t, "POST", ping("mcp-ref-check-origin"),
                                                          {**JSON_POST, **origin, SESSION: session},
                                                          wait_for="mcp-ref-check-origin")))
    tries.append(("GET", exchange(t, "GET", None, {"Accept": "text/event-stream", **origin, SESSION: session})))
    tries.append(("DELETE", exchange(t, "DELETE", None, {**origin, SESSION: session})))
    end_session(t, session)
    served = [what for what, got in tries if got is not None and got.served]
    refused = [what for what, got in tries if got is not None and not got.served]
    return served, refused, [got for _, got in tries if got is not None]


def foreign_host_served(t: ServerCheck) -> Exchange | None:
    """A POST of initialize with Host: mcp-ref-check.invalid and no Origin: the exchange if served."""
    port = urllib.parse.urlsplit(str(t.run.target.http)).port
    got = exchange(t, "POST", json.dumps(INITIALIZE).encode(),
                   {**JSON_POST, "Host": f"{FOREIGN_HOST}:{port}" if port else FOREIGN_HOST},
                   wait_for=str(INITIALIZE["id"]))
    if got is not None and got.served and got.headers.get(SESSION.lower()):
        end_session(t, got.headers[SESSION.lower()])
    return got if got is not None and got.served else None


@server_case(TRANSPORTS, "SHTTP-06", ID["origin-403"], transport="http", fresh=True)
def http_refuses_a_foreign_origin(t: ServerCheck) -> None:
    """A POST of initialize, a POST in a live session, a GET and a DELETE, each carrying Origin:
    http://mcp-ref-check.invalid (a page on another site), are each refused: every request that
    reaches the endpoint is checked, not only POSTs. A server that checks neither Origin nor Host
    gets one finding here saying both (one cause), and transports.http-refuses-a-foreign-host notes it.
    In a run that agreed on 2025-11-25, each refusal is HTTP 403 Forbidden (that revision's rule;
    before it, any refusal does)."""
    served, refused, tries = foreign_origin_served(t)
    if t.since("2025-11-25"):
        other = sorted({got.status for got in tries if not got.served and got.status != 403})
        first_other = next((got for got in tries if not got.served and got.status != 403), None)
        if first_other is not None:
            t.check(False, t.rule("origin"), f"a foreign Origin was refused with HTTP {', '.join(map(str, other))}, "
                    "not 403 Forbidden, which 2025-11-25 (the agreed revision) asks for", first_other.sent,
                    first_other.shown(), headers=first_other.sent_headers)
    if not served:
        t.note(f"a foreign Origin was refused on {', '.join(refused)}")
        return
    first = next(got for got in tries if got.served)
    host = foreign_host_served(t) if not refused else None
    if host is not None:  # SHTTP-06: one cause, no DNS-rebinding check at all
        t.fail("SHTTP-06", one_cause("the MCP endpoint", served, host.sent_headers["Host"]), first.sent,
               first.shown(), headers=first.sent_headers)
    t.fail("SHTTP-06", f"a foreign Origin was served on {', '.join(served)}"
           + (f" (refused on {', '.join(refused)}: every request must be checked, whatever its method)"
              if refused else ""), first.sent, first.shown(), headers=first.sent_headers)


@server_case(TRANSPORTS, "SHTTP-06", transport="http", fresh=True, at_most="SHOULD")
def http_refuses_a_foreign_host(t: ServerCheck) -> None:
    """A POST of initialize carrying Host: mcp-ref-check.invalid and no Origin (what a DNS-rebinding
    page's requests carry) is refused. SHTTP-06 names the Origin header: serving it is a warning. A
    server that checks no Origin either is judged once, by transports.http-refuses-a-foreign-origin."""
    host = foreign_host_served(t)
    if host is None:
        return
    if "transports.http-refuses-a-foreign-origin" in t.run.selected:
        served, refused, _ = foreign_origin_served(t)
        if served and not refused:
            t.note("the server checks neither Host nor Origin: one cause, judged once, by "
                   "transports.http-refuses-a-foreign-origin")
            return
    t.fail("SHTTP-06", "a POST of initialize with a foreign Host name and no Origin was served: a page whose host "
           "name was made to resolve to this server (DNS rebinding) sends that name in Host, and refusing host "
           "names the server does not have stops it where an Origin check may not (mcp_ref answers 421)",
           host.sent, host.shown(), headers=host.sent_headers)


# --- SHTTP-38, 39, 41: sessions ------------------------------------------------------------------


@server_case(TRANSPORTS, "SHTTP-39", transport="http", fresh=True)
def http_unknown_session_is_404(t: ServerCheck) -> None:
    """Once the server uses sessions, a POST carrying a session id it never gave is answered 404
    (the page's answer for a session that ended; another 4xx is a warning, being served too)."""
    open_session(t)
    forged = secrets.token_hex(16)
    got = exchange(t, "POST", ping("mcp-ref-check-forged"), {**JSON_POST, SESSION: forged}, wait_for="mcp-ref-check-forged")
    if got is None:
        t.fail("SHTTP-39", f"a POST with an unknown {SESSION} got no HTTP answer within {t.timeout:g} s")
    t.check(got.status == 404, "SHTTP-39", f"a POST with a {SESSION} the server never gave answered HTTP {got.status}, "
            "not 404 (the page's answer for a session that is not, or no longer, there)", got.sent, got.shown(),
            headers=got.sent_headers, level="SHOULD")


@server_case(TRANSPORTS, "SHTTP-38", transport="http", fresh=True)
def http_request_without_a_session_id_is_400(t: ServerCheck) -> None:
    """Once the server uses sessions, a POST of tools/list (neither initialize nor ping, which may
    be answered at any time) without Mcp-Session-Id is answered 400 Bad Request."""
    open_session(t)
    got = exchange(t, "POST", ping("mcp-ref-check-no-session", "tools/list"), JSON_POST,
                   wait_for="mcp-ref-check-no-session")
    if got is None:
        t.fail("SHTTP-38", f"a POST without {SESSION} got no HTTP answer within {t.timeout:g} s")
    t.check(got.status == 400, "SHTTP-38", f"a POST without {SESSION}, after the server gave one, answered HTTP "
            f"{got.status}, not 400", got.sent, got.shown(), headers=got.sent_headers)


@server_case(TRANSPORTS, "SHTTP-41", "SHTTP-39", transport="http", fresh=True)
def http_delete_ends_the_session(t: ServerCheck) -> None:
    """DELETE with the session id ends the session (2xx), after which a POST with that id is
    answered 404; or the server refuses to let clients end sessions, with 405."""
    session = open_session(t)
    got = exchange(t, "DELETE", None, {SESSION: session})
    if got is None:
        t.fail("SHTTP-41", f"DELETE got no HTTP answer within {t.timeout:g} s")
    if got.status == 405:
        t.note("DELETE is refused with 405: this server does not let clients end sessions")
        return
    t.check(got.served, "SHTTP-41", f"DELETE of the session answered HTTP {got.status}: the page's answers are a 2xx "
            "(ended) or 405 (not allowed)", got.sent, got.shown(), headers=got.sent_headers)
    if not got.served:
        return
    after = exchange(t, "POST", ping("mcp-ref-check-ended"), {**JSON_POST, SESSION: session},
                     wait_for="mcp-ref-check-ended")
    if after is not None:  # SHTTP-39: an ended session is 404 from then on
        t.check(after.status == 404, "SHTTP-39", f"after DELETE answered HTTP {got.status}, a POST with that "
                f"session id answered HTTP {after.status}, not 404", after.sent, after.shown(),
                headers=after.sent_headers)


# --- SHTTP-14, 16, 19: answers -------------------------------------------------------------------


@server_case(TRANSPORTS, "SHTTP-14", "SHTTP-16", "SHTTP-19", transport="http", fresh=True)
def http_answers_a_post_on_its_own_response(t: ServerCheck) -> None:
    """A ping POSTed in a session is answered on that POST's own response: one JSON object
    (application/json) holding its response, or an event stream (text/event-stream) that carries
    its response and then ends."""
    session = open_session(t)
    got = exchange(t, "POST", ping("mcp-ref-check-own"), {**JSON_POST, SESSION: session}, wait_for="mcp-ref-check-own",
                   until_end=True)
    end_session(t, session)
    if got is None:
        t.fail("SHTTP-14", f"a POSTed ping got no HTTP answer within {t.timeout:g} s")
    # SHTTP-14: a body holding a request is answered with JSON or an event stream, nothing else
    if not got.served or got.kind not in ("application/json", "text/event-stream"):
        t.fail("SHTTP-14", f"a POSTed ping answered HTTP {got.status} {got.kind or '(no content type)'}: a request "
               "is answered with application/json or text/event-stream", got.sent, got.shown(), headers=got.sent_headers)
    answer = got.answer("mcp-ref-check-own")
    if got.kind == "application/json":
        t.check(answer is not None, "SHTTP-14", "the JSON body is not the ping's response", got.sent, got.shown())
        return
    # SHTTP-16: the POST's stream carries the response; SHTTP-19: then it ends
    if answer is None:
        t.fail("SHTTP-16", f"the event stream carried no response to the ping within {t.timeout:g} s", got.sent,
               got.shown())
    t.check(got.ended, "SHTTP-19", f"the event stream stayed open {t.timeout:g} s after carrying the ping's "
            "response, its only request", got.sent, got.shown())


@server_case(TRANSPORTS, "SHTTP-14", transport="http", fresh=True)
def http_refuses_what_it_cannot_take(t: ServerCheck) -> None:
    """A POST of a ping whose Accept lists neither type (text/html), and one whose Content-Type is
    text/plain, are each refused with a 4xx status (406 and 415 are the usual), or served with a
    JSON or event-stream answer; never a 5xx, nor left unanswered (SHTTP-10 binds the client to
    send both types and JSON; how a server turns the rest away is its own)."""
    session = open_session(t)
    for what, headers in (("Accept: text/html", {"Content-Type": "application/json", "Accept": "text/html"}),
                          ("Content-Type: text/plain", {"Content-Type": "text/plain", "Accept": ACCEPT_BOTH})):
        got = exchange(t, "POST", ping("mcp-ref-check-type"), {**headers, SESSION: session}, wait_for="mcp-ref-check-type")
        if got is None:
            t.check(False, "SHTTP-14", f"a POST with {what} got no HTTP answer within {t.timeout:g} s")
        elif 400 <= got.status < 500:
            t.note(f"{what}: refused with HTTP {got.status}")
        else:
            t.check(got.served and got.kind in ("application/json", "text/event-stream"), "SHTTP-14",
                    f"a POST with {what} answered HTTP {got.status} {got.kind}: a request is refused with a 4xx, or "
                    "answered with application/json or text/event-stream", got.sent, got.shown(), headers=got.sent_headers)
    end_session(t, session)


# --- HDR (2025-06-18): the MCP-Protocol-Version header -------------------------------------------


@server_case(TRANSPORTS, ID["header-400"], transport="http", fresh=True)
def http_unsupported_protocol_version_is_400(t: ServerCheck) -> None:
    """In a session that agreed on 2025-06-18 or later (the revision that brought the header), a
    POST of a ping whose MCP-Protocol-Version names a version nobody defined (1999-01-01) gets
    HTTP 400 Bad Request, while the same ping with the agreed version is served. Sessions of an
    older revision: SKIP (the header means nothing there)."""
    t.require_revision("2025-06-18", "the MCP-Protocol-Version header")
    session = open_session(t, t.version)
    good = exchange(t, "POST", ping("mcp-ref-check-version-ok"), {**JSON_POST, SESSION: session, VERSION: t.version},
                    wait_for="mcp-ref-check-version-ok")
    bad = exchange(t, "POST", ping("mcp-ref-check-version-bad"),
                   {**JSON_POST, SESSION: session, VERSION: UNDEFINED_VERSION}, wait_for="mcp-ref-check-version-bad")
    end_session(t, session)
    if good is None or not good.served:
        t.skip(f"a ping with {VERSION}: {t.version} (the agreed version) was not served: "
               + (good.shown() if good else "no answer"))
    if bad is None:
        t.fail(ID["header-400"], f"a ping with {VERSION}: {UNDEFINED_VERSION} got no HTTP answer within the step",
               knock_on=True)
    t.check(bad.status == 400, ID["header-400"], f"a ping with {VERSION}: {UNDEFINED_VERSION} (a version nobody "
            f"defined) answered HTTP {bad.status}, not 400 Bad Request", bad.sent, bad.shown(),
            headers=bad.sent_headers)
