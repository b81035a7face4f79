"""Server cases of revision 2026-07-28 over Streamable HTTP: the headers that mirror the body,
the HTTP statuses of its errors, and no sessions.

Not a spec section: cases of the conformance checker (see __init__.py), run only with
``mcp-ref check server --http URL --protocol-version 2026-07-28``. The spec page they check:
  https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http

Each case makes its own plain POSTs (sse_wire.http_request), so that it can send headers no
good client would and see the status, the headers and the body that came back. A POST is made
as the kit's wire makes it (http_wire.mirrored_headers), with one thing changed.
"""

from __future__ import annotations

import json
from typing import Any

from .http_wire import ACCEPT_BOTH, SESSION_HEADER, mirrored_headers
from .model import server_case
from .server_check import ServerCheck
from .shapes import json_text
from .sse_wire import HttpAnswer, http_request
from .stateless_meta import stateless_meta
from .wire import shown

TRANSPORTS = "basic/transports"
STATELESS = "stateless"
NO_SUCH_METHOD = "mcp-ref-check/no-such-method"


def post(t: ServerCheck, msg: dict[str, Any], change: dict[str, str | None] | None = None) -> tuple[HttpAnswer, str]:
    """POST ``msg`` with the headers of the kit's wire, ``change`` applied (None drops a header);
    the answer and the body sent. The case fails when the server cannot be reached."""
    headers = {"Content-Type": "application/json", "Accept": ACCEPT_BOTH, **t.run.target.headers,
               **mirrored_headers(msg)}
    for name, value in (change or {}).items():
        headers.pop(name, None)
        if value is not None:
            headers[name] = value
    body = json.dumps(msg, separators=(",", ":"))
    url = str(t.run.target.http)
    try:
        answer = http_request(url, "POST", body.encode("utf-8"), headers, t.timeout)
    except OSError as exc:
        t.fail("HTTPX-02", f"POST {url} failed: {exc}", body, knock_on=True)
    return answer, body


def request(t: ServerCheck, method: str, params: dict[str, Any] | None = None, *, meta: Any = True) -> dict[str, Any]:
    """A request of 2026-07-28 from the kit (``meta``: True for the kit's _meta, else the _meta to send)."""
    params = dict(params or {})
    params["_meta"] = stateless_meta(t.version) if meta is True else meta
    return {"jsonrpc": "2.0", "id": f"mcp-ref-check-{method}", "method": method, "params": params}


def error_code(answer: HttpAnswer) -> Any:
    """The JSON-RPC error code in an answer's body (a JSON object, or the last event of a stream)."""
    text = answer.body.strip()
    if answer.headers.get("content-type", "").startswith("text/event-stream"):
        datas = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
        text = datas[-1] if datas else ""
    try:
        msg = json.loads(text)
    except ValueError:
        return None
    error = msg.get("error") if isinstance(msg, dict) else None
    return error.get("code") if isinstance(error, dict) else None


def expect(t: ServerCheck, answer: HttpAnswer, body: str, status: int, code: int, req_id: str, what: str) -> None:
    """One finding unless the answer is HTTP ``status`` with a JSON-RPC error ``code`` in its body."""
    got = error_code(answer)
    t.check(answer.status == status and got == code, req_id, f"{what}: expected HTTP {status} with error {code}, "
            f"got HTTP {answer.status} with {'error ' + json_text(got) if got is not None else 'no JSON-RPC error'}",
            body, f"HTTP {answer.status}: {shown(answer.body)}", headers=answer.sent_headers)


@server_case(TRANSPORTS, "HTTPX-14", "HTTPX-21", transport="http", era=STATELESS)
def mismatched_headers_are_400_32020(t: ServerCheck) -> None:
    """A POST whose headers disagree with its body is refused with HTTP 400 and error -32020
    (HeaderMismatch): MCP-Protocol-Version naming another revision than the body's _meta
    (HTTPX-14); Mcp-Method missing, or naming another method than the body's; Mcp-Name naming
    another tool than the body's tools/call (HTTPX-21)."""
    listing = request(t, "tools/list" if t.info.declares("tools") else "server/discover")
    variants: list[tuple[str, dict[str, Any], dict[str, str | None], str]] = [
        ("MCP-Protocol-Version 2025-11-25 with a body naming " + t.version, listing,
         {"MCP-Protocol-Version": "2025-11-25"}, "HTTPX-14"),
        ("no Mcp-Method header", listing, {"Mcp-Method": None}, "HTTPX-21"),
        ("Mcp-Method prompts/get for a body of " + str(listing["method"]), listing, {"Mcp-Method": "prompts/get"},
         "HTTPX-21"),
    ]
    if t.info.declares("tools"):
        name = next((tool["name"] for tool in t.info.tools or [] if isinstance(tool.get("name"), str)), "echo")
        call = request(t, "tools/call", {"name": name, "arguments": {}})
        variants.append((f"Mcp-Name other-tool for a tools/call of {name!r}", call, {"Mcp-Name": "other-" + name},
                         "HTTPX-21"))
    for what, msg, change, req_id in variants:
        answer, body = post(t, msg, change)
        expect(t, answer, body, 400, -32020, req_id, what)


@server_case(TRANSPORTS, "HTTPX-15", "STLS-10", transport="http", era=STATELESS)
def meta_errors_are_400(t: ServerCheck) -> None:
    """Over HTTP the errors of the request's _meta come with HTTP 400: an unsupported revision in
    both the header and _meta gets 400 with -32022 (HTTPX-15); a request lacking the required
    clientCapabilities gets 400 with -32602 (STLS-10)."""
    method = "tools/list" if t.info.declares("tools") else "server/discover"
    unknown = request(t, method, meta={**stateless_meta(t.version), "io.modelcontextprotocol/protocolVersion":
                                       "2099-12-31"})
    answer, body = post(t, unknown)
    expect(t, answer, body, 400, -32022, "HTTPX-15", "a request naming revision 2099-12-31")
    lacking = request(t, method, meta={"io.modelcontextprotocol/protocolVersion": t.version})
    answer, body = post(t, lacking)
    expect(t, answer, body, 400, -32602, "STLS-10", "a request whose _meta lacks clientCapabilities")


@server_case(TRANSPORTS, "HTTPX-16", transport="http", era=STATELESS)
def unknown_methods_are_404(t: ServerCheck) -> None:
    """A request for a method the server does not implement (one no server has, and ping, which
    2026-07-28 dropped) is answered HTTP 404 with a -32601 error in the body (HTTPX-16)."""
    for method in (NO_SUCH_METHOD, "ping"):
        answer, body = post(t, request(t, method))
        expect(t, answer, body, 404, -32601, "HTTPX-16", f"a request for {method}")


@server_case(TRANSPORTS, "HTTPX-25", transport="http", era=STATELESS)
def no_session_is_minted_or_required(t: ServerCheck) -> None:
    """A server of 2026-07-28 has no sessions: its answers to requests of this revision carry no
    Mcp-Session-Id, and a request that brings an Mcp-Session-Id nobody gave is served as any
    other, not refused (HTTPX-25)."""
    msg = request(t, "server/discover")
    answer, body = post(t, msg)
    t.check(SESSION_HEADER.lower() not in answer.headers, "HTTPX-25", f"the answer to server/discover carries "
            f"Mcp-Session-Id {answer.headers.get(SESSION_HEADER.lower())!r}: 2026-07-28 has no sessions", body,
            f"HTTP {answer.status}", headers=answer.sent_headers)
    answer, body = post(t, msg, {SESSION_HEADER: "mcp-ref-check-no-such-session"})
    t.check(answer.status == 200, "HTTPX-25", f"server/discover with an Mcp-Session-Id nobody gave was answered "
            f"HTTP {answer.status}: the header is to be ignored", body, f"HTTP {answer.status}: {shown(answer.body)}",
            headers=answer.sent_headers)
