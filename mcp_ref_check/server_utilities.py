"""Server cases for the server utilities: logging, completion, pagination.

Not a spec section: cases of the conformance checker (see __init__.py). The spec pages they
check (each case names its own):
  https://modelcontextprotocol.io/specification/2024-11-05/server/utilities/logging
  https://modelcontextprotocol.io/specification/2024-11-05/server/utilities/completion
  https://modelcontextprotocol.io/specification/2024-11-05/server/utilities/pagination

What these pages ask of a server, in short:

1. Logging: a server that sends log messages declares ``logging``; ``logging/setLevel`` accepts
   the eight syslog levels and refuses anything else with -32602; after it, messages below the
   level are not sent; each message has a level, data and optionally a logger name.
2. Completion: ``completion/complete`` (no capability gates it in 2024-11-05; a server without it
   answers -32601) returns at most 100 string values; its inputs are validated.
3. Pagination: list results may carry an opaque ``nextCursor``; following it gives the next page;
   a cursor the server never issued is -32602.
"""

from __future__ import annotations

import base64
import re
import secrets
from typing import Any

from . import result_shapes, shapes
from .helpers import refused
from .model import server_case
from .peer import Reply
from .revisions import ID
from .server_check import ServerCheck, code_words
from .wire import shown

LOGGING = "server/utilities/logging"
COMPLETION = "server/utilities/completion"
PAGINATION = "server/utilities/pagination"
FILLER = "mcp-ref-check"
TEMPLATE_VARIABLE = re.compile(r"\{[+#./;?&]?([A-Za-z0-9_]+)")
MAX_PAGES = 20


# --- server/utilities/logging --------------------------------------------------------------------


@server_case(LOGGING, "LOG-01")
def set_level_accepts_every_level(t: ServerCheck) -> None:
    """With logging declared, logging/setLevel accepts each of the eight levels, from emergency
    down to debug, with an empty result."""
    t.require("logging")
    peer = t.session()
    for level in reversed(shapes.LOG_LEVELS):
        reply = peer.request("logging/setLevel", {"level": level})
        result = t.expect_result(reply, "LOG-01", f"logging/setLevel {level}")
        t.shape(result_shapes.empty_result(result), "LOG-01", "the logging/setLevel result", reply)


@server_case(LOGGING, "LOG-03")
def invalid_level_is_32602(t: ServerCheck) -> None:
    """logging/setLevel with an unknown level name, or a level that is not a string (a number, an
    object), gets error -32602."""
    t.require("logging")
    peer = t.session()
    for level in (f"{FILLER}-verbose", 42, {"name": "debug"}):
        reply = peer.request("logging/setLevel", {"level": level})
        t.expect_error(reply, "LOG-03", f"logging/setLevel {shapes.json_text(level)}", (-32602,))


@server_case(LOGGING, "LOG-01")
def logging_refused_when_undeclared(t: ServerCheck) -> None:
    """A server that does not declare logging does not serve logging/setLevel."""
    if t.info.declares("logging"):
        t.skip("the server declares logging (the other logging cases check it)")
    peer = t.session()
    reply = peer.request("logging/setLevel", {"level": "debug"})
    t.answered(reply, "logging/setLevel without the logging capability")
    t.check(not reply.is_result, "LOG-01", "logging/setLevel was served although logging was not declared",
            reply.sent, reply.got)


@server_case(LOGGING, "LOG-01", audit=True)
def log_messages_are_declared_and_well_formed(t: ServerCheck) -> None:
    """Every notifications/message of the run comes from a server that declared logging, and has
    one of the eight levels, data, and a string logger if any."""
    for peer in t.run.peers:
        for note in peer.notifications:
            if note.get("method") != "notifications/message":
                continue
            if not t.info.declares("logging"):
                t.fail("LOG-01", "sent a log message without declaring logging", got=shown(shapes.json_text(note)))
            problems = result_shapes.log_message(note.get("params"))
            if problems:
                t.fail("LOG-01", f"a log message is malformed: {'; '.join(problems)}", got=shown(shapes.json_text(note)))


LOG_FLOOD = 100  # log notifications within one second (wire.LOG_WINDOW) that make a flood


@server_case(LOGGING, "LOG-05", audit=True)
def log_messages_are_rate_limited(t: ServerCheck) -> None:
    """No connection of the run received more than 100 log notifications within one second: a
    server should throttle its log messages."""
    worst = max(t.run.wires, key=lambda wire: wire.log_peak, default=None)
    if worst is None or worst.log_count == 0:
        t.note("no log message was sent in this run")
        return
    t.check(worst.log_peak <= LOG_FLOOD, "LOG-05", f"{worst.log_peak} log notifications arrived within one second "
            f"({worst.log_count} on that connection in all): log messages are not rate limited")
    t.note(f"at most {worst.log_peak} log notification(s) within one second")


@server_case(LOGGING, "LOG-20", audit=True)
def log_level_is_respected(t: ServerCheck) -> None:
    """After logging/setLevel succeeded on a connection, no log message below that level arrives
    on it."""
    for wire in t.run.wires:
        level: str | None = None
        pending: dict[str, str] = {}  # setLevel request id -> level asked for
        for entry in wire.sent_and_received():
            msg = entry.msg
            if not isinstance(msg, dict):
                continue
            if entry.direction == "sent" and msg.get("method") == "logging/setLevel":
                asked = (msg.get("params") or {}).get("level")
                if asked in shapes.LOG_LEVELS:
                    pending[repr(msg.get("id"))] = asked
            elif entry.direction == "got" and "result" in msg and repr(msg.get("id")) in pending:
                level = pending.pop(repr(msg.get("id")))
            elif entry.direction == "got" and msg.get("method") == "notifications/message" and level is not None:
                got = (msg.get("params") or {}).get("level")
                if got in shapes.LOG_LEVELS and shapes.LOG_LEVELS.index(got) < shapes.LOG_LEVELS.index(level):
                    t.fail("LOG-20", f"a {got} message arrived after setLevel {level}", got=shown(entry.data))


# --- server/utilities/completion -----------------------------------------------------------------


def complete(t: ServerCheck, ref: dict[str, Any], argument: dict[str, Any]) -> Reply:
    """Ask for completions; skip the case if the server has no completion/complete at all. From
    2025-03-26 the completions capability gates it: a server that does not declare it is not
    asked (completion.refused-when-undeclared judges that it refuses)."""
    if t.since("2025-03-26"):
        t.require("completions")
    peer = t.session()
    reply = peer.request("completion/complete", {"ref": ref, "argument": argument})
    t.answered(reply, "completion/complete")
    if reply.is_error and reply.code == -32601:
        t.skip("the server has no completion/complete (it answered -32601; 2024-11-05 has no capability for it)")
    return reply


@server_case(COMPLETION, "CMP-12")
def completes_a_prompt_argument(t: ServerCheck) -> None:
    """Completing the first argument of a listed prompt returns completion.values (at most 100
    strings), total an integer and hasMore a boolean if present."""
    prompt = next((p for p in t.info.prompts or [] if isinstance(p.get("arguments"), list) and p["arguments"]
                   and isinstance(p["arguments"][0], dict)), None)
    if prompt is None:
        t.skip("no listed prompt has an argument to complete")
    reply = complete(t, {"type": "ref/prompt", "name": prompt.get("name")},
                     {"name": prompt["arguments"][0].get("name"), "value": ""})
    if reply.is_error:
        t.note(f"completing an argument of {prompt.get('name')} failed with {reply.code}")
        return
    t.shape(result_shapes.completion_result(reply.result), "CMP-12", "the completion result", reply)


@server_case(COMPLETION, "CMP-12")
def completes_a_template_variable(t: ServerCheck) -> None:
    """Completing the first variable of a listed resource template returns a well-formed
    completion (at most 100 string values)."""
    found = next(((tpl, m.group(1)) for tpl in t.info.templates or []
                  for m in [TEMPLATE_VARIABLE.search(str(tpl.get("uriTemplate")))] if m), None)
    if found is None:
        t.skip("no listed resource template has a variable to complete")
    template, variable = found
    reply = complete(t, {"type": "ref/resource", "uri": template.get("uriTemplate")}, {"name": variable, "value": ""})
    if reply.is_error:
        t.note(f"completing {variable} of {template.get('uriTemplate')} failed with {reply.code}")
        return
    t.shape(result_shapes.completion_result(reply.result), "CMP-12", "the completion result", reply)


@server_case(COMPLETION, "CMP-04")
def completion_of_an_unknown_prompt_is_refused(t: ServerCheck) -> None:
    """Completing an argument of a prompt that does not exist gets an error (-32602), not a list
    of suggestions."""
    reply = complete(t, {"type": "ref/prompt", "name": f"{FILLER}-no-such-prompt-{secrets.token_hex(3)}"},
                     {"name": "x", "value": ""})
    t.check(reply.is_error, "CMP-04", "completion for an unknown prompt got a result", reply.sent, reply.got)


@server_case(COMPLETION, ID["completions"])
def refused_when_undeclared(t: ServerCheck) -> None:
    """In a session of 2025-03-26 or later, where the completions capability gates
    completion/complete, a server that does not declare it does not serve it (an error,
    -32601 says it best, CMPL-02). In 2024-11-05 there is no such capability: SKIP."""
    t.require_revision("2025-03-26", "the completions capability")
    if t.info.declares("completions"):
        t.skip("the server declares completions")
    refused(t, "completion/complete", {"ref": {"type": "ref/prompt", "name": FILLER}, "argument": {"name": "x", "value": ""}},
            ID["completions"], "completions")


@server_case(COMPLETION, "CMP-08")
def completion_with_malformed_params_is_refused(t: ServerCheck) -> None:
    """completion/complete without ref and argument, or with an unknown ref type, is refused with
    an error: the server validates completion inputs."""
    complete(t, {"type": "ref/prompt", "name": FILLER}, {"name": "x", "value": ""})  # skips if unsupported
    peer = t.session()
    for params in ({}, {"ref": {"type": f"ref/{FILLER}"}, "argument": {"name": "x", "value": ""}}):
        reply = peer.request("completion/complete", params)
        t.answered(reply, "completion/complete with malformed params")
        t.check(reply.is_error, "CMP-08", "completion/complete with malformed params got a result", reply.sent, reply.got)


# --- server/utilities/pagination -----------------------------------------------------------------

LISTS = (("tools", "tools/list", "tools"), ("resources", "resources/list", "resources"),
         ("resources", "resources/templates/list", "resourceTemplates"), ("prompts", "prompts/list", "prompts"))


FORGED_CURSORS = (f"{FILLER}-not-a-cursor", base64.urlsafe_b64encode(b'[1000000, "mcp-ref-check"]').decode())


def cursor_answer(t: ServerCheck, reply: Reply, method: str) -> str | None:
    """What is wrong with ``reply`` to a forged cursor, in words that name no method (so that the
    same cause on several lists is one finding), or None if it is -32602."""
    if reply.is_result:
        return "a page came back, so the cursor was ignored (or taken for the first page)"
    if t.code_in(reply.code, (-32602,), f"{method} with a cursor the server never issued"):
        return None
    return f"error {code_words(reply.code)} came back, not -32602 (Invalid params)"


@server_case(PAGINATION, "PAG-09", "PAG-03")
def invalid_cursor_is_32602(t: ServerCheck) -> None:
    """Each declared list (tools/list, resources/list, resources/templates/list, prompts/list), asked
    with a cursor the server never issued (a random string, and base64 of a JSON position far past
    the end), gets error -32602 (Invalid params), not a page. One cause is one finding: a server
    that ignores cursors on every list is warned once, naming the lists."""
    lists = [(capability, method) for capability, method, _ in LISTS if t.info.declares(capability)]
    if not lists:
        t.skip("the server declares none of tools, resources and prompts: it has no list to page")
    peer = t.session()
    causes: dict[str, list[tuple[str, Reply]]] = {}  # what went wrong -> the lists it went wrong on
    for _, method in lists:
        for cursor in FORGED_CURSORS:
            reply = peer.request(method, {"cursor": cursor})
            t.answered(reply, f"{method} with a cursor the server never issued")
            cause = cursor_answer(t, reply, method)
            if cause is not None:
                causes.setdefault(cause, []).append((method, reply))
                break  # one example per list and cause is enough
    for cause, seen in causes.items():
        methods = ", ".join(method for method, _ in seen)
        t.check(False, "PAG-09", f"a cursor the server never issued: {cause}; seen on {len(seen)} of the "
                f"{len(lists)} list(s) asked ({methods})", seen[0][1].sent, seen[0][1].got)
    right = [method for _, method in lists if all(method not in [m for m, _ in seen] for seen in causes.values())]
    if right:
        t.note(f"refused with -32602: {', '.join(right)}")


def _identity(item: Any) -> str:
    if isinstance(item, dict):
        for key in ("name", "uri", "uriTemplate"):
            if isinstance(item.get(key), str):
                return f"{key}={item[key]}"
    return repr(item)


@server_case(PAGINATION, "PAG-10", "PAG-02")
def cursors_lead_through_every_page(t: ServerCheck) -> None:
    """For each declared list, following nextCursor gives the next page (up to 20 pages): every
    page is a result, no cursor repeats and no item appears on two pages."""
    peer = t.session()
    paged = 0
    for capability, method, key in LISTS:
        if not t.info.declares(capability):
            continue
        cursors: list[str] = []
        items: set[str] = set()
        params: dict[str, Any] | None = None
        for _ in range(MAX_PAGES):
            reply = peer.request(method, params)
            result = t.expect_result(reply, "PAG-10", f"{method}" + (" with a cursor it issued" if params else ""))
            page = result.get(key) if isinstance(result, dict) else None
            for item in page if isinstance(page, list) else []:
                ident = _identity(item)
                t.check(ident not in items, "PAG-02", f"{method}: {ident} appears on two pages", reply.sent, shown(reply.got))
                items.add(ident)
            cursor = result.get("nextCursor") if isinstance(result, dict) else None
            if not isinstance(cursor, str):
                break
            if cursor in cursors:
                t.fail("PAG-02", f"{method}: the cursor {shapes.json_text(cursor)} came back again (a loop)", reply.sent,
                       shown(reply.got))
            cursors.append(cursor)
            params = {"cursor": cursor}
        paged += bool(cursors)
    if not paged:
        t.note("no list had a second page, so there was no cursor to follow")
