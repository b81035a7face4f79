"""JSON-RPC 2.0 messages as MCP uses them: shapes, parsing, classification, errors.

Spec page: basic/messages
https://modelcontextprotocol.io/specification/2024-11-05/basic/messages

In short:

1. Every MCP message is a JSON-RPC 2.0 object with ``"jsonrpc": "2.0"`` (MSG-01). There are
   three kinds: a *request* (``id`` + ``method`` + optional ``params``), a *response* (``id`` and
   exactly one of ``result`` / ``error``), and a *notification* (``method`` without ``id``).
2. A request id is a string or an integer, never null, and never reused by the same sender in a
   session (MSG-02..04). ``"1"`` and ``1`` are different ids; ``0`` is a perfectly good id.
3. A response carries the id of the request it answers (MSG-05); an error has an integer
   ``code`` and a short ``message`` (MSG-06, MSG-07, MSG-09).
4. A receiver classifies what arrives in JSON-RPC order: bytes that are not JSON -> -32700;
   JSON that is not a valid envelope -> -32600; an unknown method -> -32601; bad params ->
   -32602; a failure inside the handler -> -32603. MCP adds -32002 for an unknown resource.
   2024-11-05 has no batching: a JSON array is an invalid request.

Params and results stay plain dicts, exactly as they appear on the wire. This module knows no
method names; it only knows envelopes. The exception hierarchy below carries error codes in both
directions: a handler raises ``InvalidParams("...")`` and the peer's caller catches ``McpError``
with ``.code == -32602``.
"""

from __future__ import annotations

import json
from typing import Any, TypeGuard, Union

JSONRPC_VERSION = "2.0"  # BASE-01, MSG-01: every message we build says so

# Standard JSON-RPC 2.0 error codes, and MCP's one addition.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
RESOURCE_NOT_FOUND = -32002  # server/resources, RES-06
# client/sampling: a person declined a sampling request; the page's example uses -1 (SAMP-07).
USER_REJECTED = -1
# mcp_ref's one code of its own, in JSON-RPC's range for implementation-defined server errors:
# a rate limit was exceeded (see ratelimit.py; 2024-11-05 defines no code for it).
RATE_LIMITED = -32010

# Codes this library uses *locally* for failures that never came from the peer. They sit in
# JSON-RPC's implementation-defined range and are never put on the wire by mcp_ref.
CONNECTION_CLOSED = -32000
REQUEST_TIMEOUT = -32001
REQUEST_CANCELLED = -32800  # we cancelled our own request (basic/utilities/cancellation)

RequestId = Union[str, int]
Message = dict[str, Any]


class McpError(Exception):
    """A JSON-RPC error: raised by handlers to answer with an error, raised to callers that got one.

    ``code`` is the integer error code, ``message`` a one-sentence description (MSG-09) and
    ``data`` optional extra detail, exactly as in the wire's ``error`` object.
    """

    code: int = INTERNAL_ERROR  # MSG-07: error codes are integers

    def __init__(self, message: str, data: Any = None, *, code: int | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message
        self.data = data
        # Set to the method of a request *this side sent* when the error is that request's
        # failure (the peer's error answer, a timeout, a closed connection). A handler that lets
        # such an error escape did not choose it; see tools.ToolRegistry.call.
        self.failed_request: str | None = None

    def to_error(self) -> dict[str, Any]:
        """The wire ``error`` object for this exception."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error

    @classmethod
    def from_error(cls, error: Any) -> McpError:
        """Build the most specific exception for a wire ``error`` object received from a peer."""
        if not isinstance(error, dict):
            return McpError(f"peer sent a malformed error object: {error!r}")
        code = error.get("code")
        message = error.get("message")
        if not isinstance(message, str):
            message = f"peer sent an error without a message: {error!r}"
        exc_type = _BY_CODE.get(code, McpError) if isinstance(code, int) else McpError
        return exc_type(message, error.get("data"), code=code if isinstance(code, int) else None)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code}, message={self.message!r})"


class ParseError(McpError):
    """-32700: the bytes received are not valid JSON (or not UTF-8)."""

    code = PARSE_ERROR


class InvalidRequest(McpError):
    """-32600: valid JSON, but not a valid JSON-RPC message (or not allowed right now).

    ``request_id`` is the id of the offending message when it could be read, so the error
    response can carry it; otherwise ``None`` and the response goes out with ``"id": null``.
    """

    code = INVALID_REQUEST

    def __init__(
        self, message: str, data: Any = None, *, code: int | None = None,
        request_id: RequestId | None = None,
    ) -> None:
        super().__init__(message, data, code=code)
        self.request_id = request_id


class MessageTooLong(InvalidRequest):
    """-32600: a message over the transport's size limit (``limit`` bytes), discarded unread.
    ``head`` is its first bytes, where an answer's id usually stands, so the request it answers
    can be told at once (Session._discarded) rather than wait out its timeout."""

    def __init__(self, message: str, *, limit: int, head: bytes = b"") -> None:
        super().__init__(message)
        self.limit, self.head = limit, head


class MethodNotFound(McpError):
    """-32601: the receiver does not implement this method (or did not advertise it)."""

    code = METHOD_NOT_FOUND


class InvalidParams(McpError):
    """-32602: the method exists but its params are wrong (unknown tool, missing argument...)."""

    code = INVALID_PARAMS


class InternalError(McpError):
    """-32603: the handler failed for a reason that is not the caller's fault."""

    code = INTERNAL_ERROR


class ResourceNotFound(McpError):
    """-32002: MCP's code for ``resources/read`` of a URI the server does not know (RES-06)."""

    code = RESOURCE_NOT_FOUND


class RateLimited(McpError):
    """-32010: too many requests of this kind in this session; retry after ``data.retryAfter`` s."""

    code = RATE_LIMITED


class ConnectionClosed(McpError):
    """Local: the connection ended (EOF, peer exited, close()) before a response arrived."""

    code = CONNECTION_CLOSED


class RequestTimeout(McpError, TimeoutError):
    """Local: no response within the timeout. The peer was sent ``notifications/cancelled``."""

    code = REQUEST_TIMEOUT


class RequestCancelled(McpError):
    """Local: this side cancelled its own request (``OutgoingRequest.cancel``)."""

    code = REQUEST_CANCELLED


_BY_CODE: dict[int, type[McpError]] = {
    PARSE_ERROR: ParseError,
    INVALID_REQUEST: InvalidRequest,
    METHOD_NOT_FOUND: MethodNotFound,
    INVALID_PARAMS: InvalidParams,
    INTERNAL_ERROR: InternalError,
    RESOURCE_NOT_FOUND: ResourceNotFound,
    RATE_LIMITED: RateLimited,
}


# --- building messages -----------------------------------------------------------------------


def request(request_id: RequestId, method: str, params: dict[str, Any] | None = None) -> Message:
    """A request. ``params`` is left out when None (it is optional on the wire)."""
    msg: Message = {"jsonrpc": JSONRPC_VERSION, "id": request_id, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def notification(method: str, params: dict[str, Any] | None = None) -> Message:
    """A notification: like a request, but without an id (MSG-08), so nobody answers it."""
    msg: Message = {"jsonrpc": JSONRPC_VERSION, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def result_response(request_id: RequestId, result: dict[str, Any]) -> Message:
    """A successful response (MSG-05: same id as the request)."""
    return {"jsonrpc": JSONRPC_VERSION, "id": request_id, "result": result}  # MSG-05, MSG-06


def error_response(request_id: RequestId | None, error: McpError) -> Message:
    """An error response (MSG-06: ``error`` and never ``result``).

    ``request_id`` is None only when the id of the offending message could not be read; JSON-RPC
    2.0 then requires ``"id": null``. (The 2024-11-05 schema has no null id; this is the one
    known exception, where JSON-RPC's rule wins.)
    """
    return {"jsonrpc": JSONRPC_VERSION, "id": request_id, "error": error.to_error()}


# Built once: json.dumps with any option builds a new encoder on every call.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _build_c_encoder() -> Any:
    """``_ENCODER``'s C encoder, built the way ``JSONEncoder.iterencode`` builds it, except that it
    does not check for cycles; None where json has no C part, or where _ENCODER indents.

    JSONEncoder.encode builds this object anew on every call; building it once is a measured gain
    (benchmarks/RESULTS.md, "Figures that stood in the code"). Without the check for cycles (its
    table of the objects being encoded could not be shared between threads), a cycle fails as
    RecursionError, and ``encode`` then asks _ENCODER, which says what is wrong.
    """
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None or _ENCODER.indent is not None:
        return None
    e = _ENCODER
    strings = json.encoder.encode_basestring_ascii if e.ensure_ascii else json.encoder.encode_basestring
    return make(None, e.default, strings, None, e.key_separator, e.item_separator, e.sort_keys, e.skipkeys,
                e.allow_nan)


_C_ENCODER = _build_c_encoder()


class NotJson(ValueError):
    """A message we were about to send cannot be written as strict JSON (see ``encode``)."""


def encode(msg: Message) -> bytes:
    """Compact, strict UTF-8 JSON on one line (TR-02): json escapes newlines and control characters.

    Strict means what every peer can parse: no ``NaN`` or ``Infinity`` (Python's json writes
    them by default; JSON has no such tokens), no lone UTF-16 surrogates (they have no UTF-8
    form), no objects json does not know. Anything else raises ``NotJson`` saying why, so the
    caller can send a proper error instead of a broken line.

    U+2028 and U+2029 are legal raw inside JSON strings, but peers that split lines with
    ``str.splitlines()`` would cut a message there, so we escape them too.
    """
    try:
        text = "".join(_C_ENCODER(msg, 0)) if _C_ENCODER is not None else _ENCODER.encode(msg)
        data = text.encode("utf-8")
    except Exception:  # not strict JSON: json's own checks say why (below)
        data = _checked_encode(msg)
    if b"\xe2\x80\xa8" in data or b"\xe2\x80\xa9" in data:  # U+2028, U+2029 in UTF-8
        data = data.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")
    return data


def _checked_encode(msg: Message) -> bytes:
    """``msg`` encoded by _ENCODER, which checks everything; NotJson saying why it cannot be."""
    try:
        return _ENCODER.encode(msg).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise NotJson(f"a string holds {exc.object[exc.start:exc.end]!a}, which is not valid Unicode text") from None
    except RecursionError:
        raise NotJson("it is nested too deeply") from None
    except (ValueError, TypeError) as exc:  # NaN/Infinity, an int too long, an object json does not know
        raise NotJson(str(exc)) from None


def printable(text: str) -> str:
    """``text`` with anything that has no UTF-8 form (a lone surrogate) spelled as an escape, so a
    message that quotes what the peer sent can always be encoded."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def encode_answer(request_id: RequestId | None, outcome: dict[str, Any] | McpError, method: str = "") -> bytes:
    """The bytes of the one answer to a request: its result, or its error. Whatever the handler
    produced, these are strict JSON: a result that is not becomes -32603 saying so; an error
    message quoting text with no UTF-8 form is escaped; an id with no UTF-8 form is answered with
    id null (the one answer that can still be written)."""
    # MSG-05: the response carries the id of the request it answers, unchanged
    if isinstance(outcome, McpError):
        msg = error_response(request_id, outcome)
    else:
        msg = result_response(request_id, outcome)  # type: ignore[arg-type]  # a request's id is never None
    try:
        return encode(msg)
    except NotJson as problem:
        if isinstance(outcome, McpError):
            error = McpError(printable(outcome.message), code=outcome.code)
        else:
            error = InternalError(f"Internal error: the result of {printable(method)} cannot be sent as JSON: {problem}")
    try:
        return encode(error_response(request_id, error))
    except NotJson:  # the id itself has no UTF-8 form: it cannot be echoed
        return encode(error_response(None, error))


# --- reading params ----------------------------------------------------------------------------


def json_type(value: Any) -> str:
    """The JSON type of a decoded value: "null", "boolean", "integer", "number", "string",
    "array" or "object"."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def param(params: dict[str, Any], name: str, expected: str, *, required: bool = True, path: str = "") -> Any:
    """``params[name]`` if it is of the JSON type ``expected``; None if absent and not required.

    Anything else from the peer is -32602 naming the field (``path`` is the prefix of a nested
    field, e.g. ``"ref."``): a handler never meets a value of the wrong type, so a list where a
    string belongs can never become an internal error. ``"number"`` accepts integers too; an
    optional field given as null counts as absent.
    """
    value = params.get(name)
    if value is None and not required:  # absent, or an explicit null: both mean "not given"
        return None
    actual = json_type(value)
    if actual == expected or (expected == "number" and actual == "integer"):
        return value
    article = "an" if expected[0] in "aeiou" else "a"
    problem = "is missing" if name not in params else f"must be {article} {expected}, not {actual}"
    raise InvalidParams(f'Invalid params: "{path}{name}" {problem}', {"field": f"{path}{name}"})


# --- parsing and classifying -----------------------------------------------------------------

REQUEST = "request"
NOTIFICATION = "notification"
RESPONSE = "response"


def _not_json(token: str) -> Any:
    raise ValueError(f"{token} is not a JSON value")


# Built once, like _ENCODER: json.loads with any option builds a new decoder on every call.
_DECODER = json.JSONDecoder(parse_constant=_not_json)


def decode(data: bytes) -> Any:
    """Bytes -> JSON value, or ParseError (-32700). Only strict JSON in UTF-8 is read (one leading
    byte-order mark is tolerated): bytes that are not UTF-8 (UTF-16, or the UTF-8 form of a lone
    surrogate, which Python's json would otherwise accept), the tokens ``NaN`` and ``Infinity``
    (not JSON), and JSON nested too deeply to read (about a thousand levels) are parse errors."""
    try:
        # utf-8-sig would drop a byte-order mark too, but it is a Python codec: slower by far.
        text = (data[3:] if data.startswith(b"\xef\xbb\xbf") else data).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(f"Parse error: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    try:
        # The usual line, an object with nothing around it, skips json's two whitespace scans
        # (a measured gain, as for _C_ENCODER).
        if text[:1] == "{":
            value, end = _DECODER.raw_decode(text)
            if end == len(text):
                return value
        return _DECODER.decode(text)  # the full rules: whitespace around the value, extra data
    except ValueError as exc:
        raise ParseError(f"Parse error: {exc}") from None
    except RecursionError:  # valid JSON, but deeper than Python's parser can follow
        raise ParseError("Parse error: the JSON is nested too deeply to read") from None


def outcome(msg: Message, method: str) -> dict[str, Any] | McpError:
    """What an answer to our request ``method`` says: its result, or the error to raise. An answer
    that breaks the envelope's rules is an error too, saying how."""
    if msg.get("jsonrpc") != JSONRPC_VERSION:  # MSG-01
        return InvalidRequest(f'peer answered {method} with a message whose "jsonrpc" is not "2.0"')
    if "result" in msg and "error" not in msg:  # MSG-06: exactly one of the two
        result = msg["result"]
        if isinstance(result, dict):
            return result
        return InvalidRequest(f"peer answered {method} with a non-object result: {result!r}")
    if "error" in msg and "result" not in msg:
        return McpError.from_error(msg["error"])
    return InvalidRequest(f"peer answered {method} with both result and error")


def is_valid_id(value: Any) -> TypeGuard[RequestId]:
    """MSG-02/MSG-03: a string or an integer; not null, not a float, and not a JSON boolean."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def classify(msg: Any) -> str:
    """Return REQUEST, NOTIFICATION or RESPONSE, or raise InvalidRequest (-32600).

    The raised error carries the message's id when it is readable, so the answer can reach the
    right caller. Unknown extra members are allowed and kept (newer revisions add fields).
    """
    if not isinstance(msg, dict):
        # 2024-11-05 has no JSON-RPC batching: an array is as invalid as a bare number.
        kind = "a batch (JSON array)" if isinstance(msg, list) else type(msg).__name__
        raise InvalidRequest(f"Invalid Request: expected a JSON object, got {kind}")
    raw_id = msg.get("id")
    readable_id = raw_id if is_valid_id(raw_id) else None
    if "method" not in msg and ("result" in msg or "error" in msg):
        # Response-shaped messages are never answered, even when malformed ("jsonrpc" wrong or
        # missing included): an answer to a bad response could be answered in turn, forever. The
        # session checks them, and fails or drops the bad ones; see Session._on_response.
        return RESPONSE
    if msg.get("jsonrpc") != JSONRPC_VERSION:  # MSG-01
        raise InvalidRequest('Invalid Request: "jsonrpc" must be "2.0"', request_id=readable_id)
    if "method" in msg:
        if not isinstance(msg["method"], str):
            raise InvalidRequest('Invalid Request: "method" must be a string', request_id=readable_id)
        params = msg.get("params")
        if params is not None and not isinstance(params, (dict, list)):
            raise InvalidRequest('Invalid Request: "params" must be an object', request_id=readable_id)
        if "id" not in msg:
            return NOTIFICATION  # MSG-08
        if readable_id is None:  # MSG-02, MSG-03
            raise InvalidRequest('Invalid Request: "id" must be a string or an integer')
        return REQUEST
    raise InvalidRequest(
        'Invalid Request: not a request, response or notification (no "method", "result" or "error")',
        request_id=readable_id,
    )
