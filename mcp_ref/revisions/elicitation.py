"""Elicitation: a server asks the user, through the client, for information it needs.

Spec page: client/elicitation
https://modelcontextprotocol.io/specification/2025-06-18/client/elicitation
(new in revision 2025-06-18; revision 2025-11-25 added URL mode:
https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation)

In short:

1. A client that can ask its user declares the ``elicitation`` capability (ELIC-01); a server
   asks only such clients, in a session of 2025-06-18 or later, and never in a mode the client
   did not declare (ELICU-04). From 2025-11-25 the capability names its modes: ``form``,
   ``url``, or both; an empty object means form only (ELICU-03).
2. Form mode: ``elicitation/create`` carries a ``message`` for the user and a
   ``requestedSchema``, a flat JSON Schema object whose properties are primitive: string
   (perhaps with a format), number, integer, boolean, or an enum of strings (ELIC-02, ELIC-03);
   2025-11-25 adds titled choices, multi-select arrays of choices and defaults.
   A request without ``mode`` is form mode (ELICU-06).
3. URL mode (2025-11-25): the request carries a ``url`` the user should open out of band, and an
   ``elicitationId``; the client must show the full URL and open it only with the user's consent
   (ELICU-28, ELICU-29). The server may later send ``notifications/elicitation/complete`` with
   that id (ELICU-10, ELICU-11), and a request that cannot go on until the user has been there
   may fail with -32042, listing the URL elicitations it needs (ELICU-14, ELICU-15).
4. The answer: ``action`` is ``accept`` (with ``content`` for form mode), ``decline`` or
   ``cancel``. Both sides check ``content`` against the requested schema (ELICU-33).

Server side: ``elicit`` and ``elicit_url`` (what ``ctx.elicit`` and ``ctx.elicit_url`` call); each
refuses, without sending anything, what the client cannot take. ``requested_schema`` is the wire
dict, or a shorthand ``{"name": str, "age": int, "color": ["red", "green"]}`` (a type or a list
of choices per field, all required). Client side: ``Client(elicitation_handler=...)`` gets the
params and returns the result dict; ``answer`` checks both. Without a handler the client
declares nothing and is never asked. ``ask_in_terminal`` is a handler that asks the person at
the terminal (the message and each field on stderr, the answers from stdin).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TextIO
from urllib.parse import urlsplit

from ..lifecycle import since
from ..messages import InternalError, InvalidParams, McpError, MethodNotFound

ElicitationHandler = Callable[[dict[str, Any]], dict[str, Any]]
ACTIONS = ("accept", "decline", "cancel")
PRIMITIVE_TYPES = ("string", "number", "integer", "boolean")
URL_ELICITATION_REQUIRED = -32042  # ELICU-14: the error of a request that waits for a URL elicitation
_SHORTHAND = {str: "string", int: "integer", float: "number", bool: "boolean"}


class UrlElicitationRequired(McpError):
    """Raise from a handler whose request cannot go on until the user has completed the URL
    elicitations listed (each ``{"mode": "url", "message", "url", "elicitationId"}``; ELICU-15)."""

    code = URL_ELICITATION_REQUIRED

    def __init__(self, elicitations: list[dict[str, Any]], message: str = "This request needs the user to visit a URL first"):
        super().__init__(message, {"elicitations": elicitations})


def capability(version: str) -> dict[str, Any]:
    """What a client with a handler declares for the revision it offers: both modes from
    2025-11-25 (ELICU-03), the bare capability before (ELIC-01)."""
    return {"form": {}, "url": {}} if since(version, "2025-11-25") else {}


# --- the server's side -------------------------------------------------------------------------


def requested_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The wire form of ``schema`` (ELIC-03): a flat object of primitive properties. A shorthand
    ``{"name": str, "color": ["red", "green"]}`` is expanded; anything else is a ValueError saying
    what is wrong, before anything is sent."""
    if not isinstance(schema, dict):
        raise ValueError(f"requested_schema must be a dict, not {type(schema).__name__}")
    if schema.get("type") != "object":  # the shorthand: every field a type or a list of choices
        properties: dict[str, Any] = {}
        for name, kind in schema.items():
            if isinstance(kind, list) and kind and all(isinstance(choice, str) for choice in kind):
                properties[name] = {"type": "string", "enum": list(kind)}
            elif kind in _SHORTHAND:
                properties[name] = {"type": _SHORTHAND[kind]}
            else:
                raise ValueError(f"field {name!r} of requested_schema: give str, int, float, bool or a list of "
                                 f"strings (choices), or write the schema out; not {kind!r}")
        schema = {"type": "object", "properties": properties, "required": list(properties)}
    fields = schema.get("properties")
    if not isinstance(fields, dict):
        raise ValueError('requested_schema needs "properties": a dict of field name -> primitive schema')
    for name, field in fields.items():  # ELIC-03: flat, primitive properties only
        choices = isinstance(field, dict) and field.get("type") == "array" and isinstance(field.get("items"), dict) \
            and ("enum" in field["items"] or "anyOf" in field["items"])  # 2025-11-25: a multi-select enum
        if not choices and (not isinstance(field, dict) or field.get("type") not in PRIMITIVE_TYPES):
            raise ValueError(f"field {name!r} of requested_schema must be a string, number, integer or boolean "
                             f"schema, or an array of choices (no nested objects), not {field!r}")
    return schema


def _require_client(session: Any, mode: str) -> None:
    """Refuse locally what the client cannot take (ELIC-01, ELICU-04); the error says why."""
    version = session.lifecycle.protocol_version
    declared = session.lifecycle.peer_capabilities.get("elicitation")
    modes = ({"form"} if not declared else set(declared)) if isinstance(declared, dict) else set()
    if not since(version, "2025-06-18" if mode == "form" else "2025-11-25"):
        problem = f"this session speaks MCP {version}, which has no {'URL ' if mode == 'url' else ''}elicitation"
    elif not isinstance(declared, dict):
        problem = "the client did not declare the 'elicitation' capability"
    elif mode not in modes:  # ELICU-04: only a mode the client declared
        problem = f"the client declared elicitation modes {sorted(modes)}, not {mode!r}"
    else:
        return
    error = MethodNotFound(f"cannot ask the user: {problem}")
    error.failed_request = "elicitation/create"  # a tool that asked reports it as its own failure
    raise error


def elicit(session: Any, message: str, schema: dict[str, Any], *, timeout: float | None = None) -> dict[str, Any]:
    """Server side, form mode: ask the user; the ``ElicitResult`` dict, its content checked."""
    wire_schema = requested_schema(schema)
    _require_client(session, "form")
    params: dict[str, Any] = {"message": message, "requestedSchema": wire_schema}
    if since(session.lifecycle.protocol_version, "2025-11-25"):
        params = {"mode": "form", **params}  # ELICU-05
    result = session.request("elicitation/create", params, timeout=timeout)
    problem = result_problem(result, wire_schema)
    if problem is not None:  # ELICU-33: the server checks what came back too
        error = McpError(f"the client's answer to elicitation/create is not valid: {problem}")
        error.failed_request = "elicitation/create"
        raise error
    return dict(result)


def elicit_url(session: Any, message: str, url: str, elicitation_id: str, *,
               timeout: float | None = None) -> dict[str, Any]:
    """Server side, URL mode (2025-11-25): ask the user to visit ``url``; the ``ElicitResult``."""
    if urlsplit(url).scheme not in ("https", "http") or not urlsplit(url).netloc:  # ELICU-09: a valid URL
        raise ValueError(f"elicit_url needs an http(s) URL, not {url!r}")
    _require_client(session, "url")
    params = {"mode": "url", "message": message, "url": url, "elicitationId": elicitation_id}  # ELICU-09
    result = session.request("elicitation/create", params, timeout=timeout)
    if not isinstance(result, dict) or result.get("action") not in ACTIONS:
        raise McpError(f"the client's answer to elicitation/create is not valid: {result!r}"[:300])
    return dict(result)


def complete(session: Any, elicitation_id: str) -> None:
    """Server side: tell the client a URL elicitation it started is done (ELICU-10, ELICU-11)."""
    session.notify("notifications/elicitation/complete", {"elicitationId": elicitation_id})


# --- the client's side -------------------------------------------------------------------------


def result_problem(result: Any, schema: dict[str, Any]) -> str | None:
    """What is wrong with an ``ElicitResult`` for a form request, or None (ELICU-33)."""
    if not isinstance(result, dict) or result.get("action") not in ACTIONS:
        return f'"action" must be one of {", ".join(ACTIONS)}'
    if result["action"] != "accept":
        return None
    content = result.get("content")
    if not isinstance(content, dict):
        return 'an accepted form answer needs "content", an object'
    import jsonschema  # heavy: loaded with the first answer checked

    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(content), key=lambda e: list(e.absolute_path))
    if errors:
        where = "/".join(map(str, errors[0].absolute_path))
        return f"content{'.' + where if where else ''}: {errors[0].message}"
    return None


def answer(handler: ElicitationHandler | None, ctx: Any) -> dict[str, Any]:
    """Client side: check an ``elicitation/create`` request, ask the handler, check its answer."""
    version = ctx.session.lifecycle.protocol_version
    if handler is None or not since(version, "2025-06-18"):
        raise MethodNotFound("Method not found: elicitation/create (this client declared no elicitation)")
    params = ctx.params
    mode = params.get("mode", "form")  # ELICU-06: no mode is form mode
    if not isinstance(params.get("message"), str):
        raise InvalidParams('Invalid params: elicitation/create needs "message", a string')
    if mode == "url" and since(version, "2025-11-25"):
        if not isinstance(params.get("url"), str) or not isinstance(params.get("elicitationId"), str):
            raise InvalidParams('Invalid params: a URL elicitation needs "url" and "elicitationId", strings')
        schema = None
    elif mode == "form":
        try:
            schema = requested_schema(params.get("requestedSchema"))
        except ValueError as exc:
            raise InvalidParams(f"Invalid params: requestedSchema: {exc}") from None
    else:  # ELICU-22: a mode this client did not declare
        raise InvalidParams(f"Invalid params: this client does not take elicitation mode {mode!r}")
    result = handler(params)
    problem = result_problem(result, schema) if schema is not None else (
        None if isinstance(result, dict) and result.get("action") in ACTIONS else '"action" missing')
    if problem is not None:  # ELICU-33: the handler's bug, said loudly (logged; the server gets -32603)
        raise InternalError(f"the elicitation handler returned an invalid answer: {problem}")
    return dict(result)


def ask_in_terminal(params: dict[str, Any], *, ask: Callable[[str], str] = input, out: TextIO | None = None) -> dict[str, Any]:
    """An elicitation handler that asks the person at the terminal: the server's message and each
    field on stderr, the answers typed on stdin. An empty answer takes the default; ``!decline``
    declines, end of input (Ctrl-D) cancels. A URL request shows the whole URL, its host apart,
    and asks before anything is opened (ELICU-28, ELICU-29): mcp_ref opens nothing itself."""
    out = out or sys.stderr
    print(f"\nThe server asks: {params.get('message', '')}", file=out)
    try:
        if params.get("mode") == "url":
            url = str(params.get("url", ""))
            print(f"  It wants you to open: {url}\n  (host: {urlsplit(url).hostname})", file=out)  # ELICU-30
            agreed = ask("  Will you open it yourself in a browser? [y/N] ").strip().lower() in ("y", "yes")
            return {"action": "accept" if agreed else "decline"}
        content: dict[str, Any] = {}
        schema = params.get("requestedSchema", {})
        for name, field in schema.get("properties", {}).items():
            label = field.get("title") or name
            hint = f" ({'/'.join(field['enum'])})" if "enum" in field else f" [{field.get('type')}]"
            default = f" default {field['default']!r}" if "default" in field else ""
            while True:
                typed = ask(f"  {label}{hint}{default}: ").strip()
                if typed == "!decline":
                    return {"action": "decline"}
                if not typed and "default" in field:
                    content[name] = field["default"]
                    break
                if not typed and name not in schema.get("required", []):
                    break
                value = _typed(typed, field)
                if value is not None:
                    content[name] = value
                    break
                print(f"  that is not a {field.get('type')}{hint}; try again (or !decline)", file=out)
        return {"action": "accept", "content": content}
    except EOFError:
        return {"action": "cancel"}


def _typed(text: str, field: dict[str, Any]) -> Any:
    """What the person typed, as the field's type, or None if it is not one."""
    kind = field.get("type")
    try:
        if kind == "boolean":
            return {"y": True, "yes": True, "true": True, "n": False, "no": False, "false": False}.get(text.lower())
        if kind == "integer":
            return int(text)
        if kind == "number":
            return float(text)
    except ValueError:
        return None
    return text if "enum" not in field or text in field["enum"] else None
