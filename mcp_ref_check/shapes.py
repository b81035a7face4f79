"""Shape checks of the base protocol (envelopes, initialize, lines on stdout), and the helpers
every shape check uses; written by hand, in our words.

Not a spec section: the checker's view of the data types of 2024-11-05 (the schema's
``JSONRPCMessage``, ``InitializeResult``...; result_shapes.py has those of the feature pages).
Each function takes a value as it arrived and returns a list of problems, each naming the path
of the bad field (``result.serverInfo.name``); an empty list means the value is well formed.
Unknown extra fields are always allowed: later revisions add fields, and peers may send them.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

Problems = list[str]
MAX_SPLIT_LINES = 200  # lines a pretty-printed message may span, as far as stdout_fragments looks
NOT_IN_UNION = ", not in the session's content union"  # marks a content type of another revision


def outside_union(problems: Problems) -> tuple[Problems, Problems]:
    """(content types outside the session revision's union, every other problem)."""
    return [p for p in problems if NOT_IN_UNION in p], [p for p in problems if NOT_IN_UNION not in p]


ROLES = ("user", "assistant")
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


def _type_name(value: Any) -> str:
    return "null" if value is None else {dict: "object", list: "array", str: "string", bool: "boolean"}.get(
        type(value), "number" if isinstance(value, (int, float)) else type(value).__name__)


def json_text(value: Any) -> str:
    """A value a peer sent, as JSON writes it: reports speak JSON (null, "1", true), not Python (None, '1', True)."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return repr(value)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")  # line breaks to a terminal


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one: for reading what a peer sent."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """``value`` if it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_base64(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        base64.b64decode(value, validate=True)
        return True
    except (binascii.Error, ValueError):
        return False


def need(obj: Any, path: str, key: str, kind: str, problems: Problems, *, optional: bool = False) -> Any:
    """Check ``obj[key]`` is of ``kind`` ("string", "object", "array", "boolean", "integer", "number")."""
    if not isinstance(obj, dict):
        return None
    if key not in obj:
        if not optional:
            problems.append(f"{path}.{key} is missing")
        return None
    value = obj[key]
    ok = {"string": isinstance(value, str), "object": isinstance(value, dict), "array": isinstance(value, list),
          "boolean": isinstance(value, bool), "integer": is_int(value), "number": is_number(value)}[kind]
    if not ok:
        problems.append(f"{path}.{key} is {_type_name(value)}, not {kind}")
        return None
    return value


def obj(value: Any, path: str, problems: Problems) -> bool:
    if not isinstance(value, dict):
        problems.append(f"{path} is {_type_name(value)}, not an object")
        return False
    return True


# --- lifecycle -----------------------------------------------------------------------------------


def envelope_problem(msg: Any) -> str | None:
    """What is wrong with a message's JSON-RPC envelope (MSG-01), as the end of a sentence
    starting "a message ...", or None if it is a well-formed request, notification or response."""
    if not isinstance(msg, dict):
        return "is not a JSON object (2024-11-05 has no batches)"
    if msg.get("jsonrpc") != "2.0":
        return f"has jsonrpc {json_text(msg.get('jsonrpc'))}, not \"2.0\"" if "jsonrpc" in msg else 'has no "jsonrpc": "2.0"'
    if "method" not in msg and "result" not in msg and "error" not in msg:
        return "is neither a request, a notification nor a response"
    if "method" in msg and not isinstance(msg["method"], str):
        return "has a method that is not a string"
    return None


def implementation(info: Any, path: str) -> Problems:
    """``clientInfo`` / ``serverInfo``: a name and a version, both strings."""
    problems: Problems = []
    if obj(info, path, problems):
        need(info, path, "name", "string", problems)
        need(info, path, "version", "string", problems)
    return problems


def server_capabilities(caps: Any) -> Problems:
    """Known capabilities must be objects; their flags booleans. Unknown keys are allowed."""
    problems: Problems = []
    if not obj(caps, "capabilities", problems):
        return problems
    flags = {"logging": (), "prompts": ("listChanged",), "resources": ("subscribe", "listChanged"),
             "tools": ("listChanged",), "experimental": ()}
    for name, names in flags.items():
        value = need(caps, "capabilities", name, "object", problems, optional=True)
        for flag in names:
            need(value, f"capabilities.{name}", flag, "boolean", problems, optional=True)
    return problems


def client_capabilities(caps: Any) -> Problems:
    problems: Problems = []
    if not obj(caps, "capabilities", problems):
        return problems
    roots = need(caps, "capabilities", "roots", "object", problems, optional=True)
    need(roots, "capabilities.roots", "listChanged", "boolean", problems, optional=True)
    need(caps, "capabilities", "sampling", "object", problems, optional=True)
    need(caps, "capabilities", "experimental", "object", problems, optional=True)
    return problems


def initialize_result(result: Any) -> Problems:
    problems: Problems = []
    if not obj(result, "result", problems):
        return problems
    need(result, "result", "protocolVersion", "string", problems)
    if "capabilities" not in result:
        problems.append("result.capabilities is missing")
    if "serverInfo" not in result:
        problems.append("result.serverInfo is missing")
    else:
        problems += implementation(result["serverInfo"], "result.serverInfo")
    need(result, "result", "instructions", "string", problems, optional=True)
    return problems


def initialize_params(params: Any) -> Problems:
    problems: Problems = []
    if not obj(params, "params", problems):
        return problems
    need(params, "params", "protocolVersion", "string", problems)
    if "capabilities" not in params:
        problems.append("params.capabilities is missing")
    else:
        problems += client_capabilities(params["capabilities"])
    if "clientInfo" not in params:
        problems.append("params.clientInfo is missing")
    else:
        problems += implementation(params["clientInfo"], "params.clientInfo")
    return problems


# --- lines of a stdio stream -------------------------------------------------------------------


def is_message(value: Any) -> bool:
    return isinstance(value, dict) and value.get("jsonrpc") == "2.0"


def stdout_fragments(lines: list[bytes]) -> tuple[list[str], list[str]]:
    """Sort the lines of stdout that are not messages: (pieces of messages split by raw newlines,
    anything else). A run of bad lines that joins into a message is the first kind."""
    split: list[str] = []
    garbage: list[str] = []
    run: list[bytes] = []

    def flush() -> None:
        if not run:
            return
        joined = b"\n".join(run)
        try:
            whole = is_message(json.loads(joined))
        except (ValueError, RecursionError):
            whole = False
        (split if whole and len(run) > 1 else garbage).extend(r.decode("utf-8", "replace") for r in run)
        run.clear()

    for line in lines:
        try:
            good = is_message(json.loads(line.decode("utf-8")))
        except (ValueError, UnicodeDecodeError, RecursionError):
            good = False
        if good:
            flush()
        else:
            run.append(line)
            if len(run) > MAX_SPLIT_LINES:  # no message is split over this many lines: it is not one
                garbage.extend(r.decode("utf-8", "replace") for r in run)
                run.clear()
                continue
            try:
                if is_message(json.loads(b"\n".join(run))):
                    flush()
            except (ValueError, RecursionError):
                pass
    flush()
    return split, garbage
