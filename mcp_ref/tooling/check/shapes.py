"""Shape checks for the results and notifications of 2024-11-05, written by hand, in our words.

Not a spec section: the checker's view of the data types each page defines (the schema's
``InitializeResult``, ``Tool``, ``Resource``, ``PromptMessage``...). Each function takes a value
as it arrived and returns a list of problems, each naming the path of the bad field
(``tools[2].inputSchema.type``); an empty list means the value is well formed. Unknown extra
fields are always allowed: later revisions add fields, and peers may send them.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from typing import Any

Problems = list[str]
MAX_SPLIT_LINES = 200  # lines a pretty-printed message may span, as far as stdout_fragments looks
NOT_IN_UNION = ", not in the 2024-11-05 content union"  # marks a content type of another revision


def outside_union(problems: Problems) -> tuple[Problems, Problems]:
    """(content types of 2024-11-05's union that are not in it, every other problem)."""
    return [p for p in problems if NOT_IN_UNION in p], [p for p in problems if NOT_IN_UNION not in p]
ROLES = ("user", "assistant")
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


def _type_name(value: Any) -> str:
    return "null" if value is None else {dict: "object", list: "array", str: "string", bool: "boolean"}.get(
        type(value), "number" if isinstance(value, (int, float)) else type(value).__name__)


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
        return f"has jsonrpc {msg.get('jsonrpc')!r}, not \"2.0\""
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


# --- content (tools, prompts, sampling) ----------------------------------------------------------


def resource_contents(item: Any, path: str) -> Problems:
    """Text (``uri``, ``text``) or blob (``uri``, base64 ``blob``) contents, ``mimeType`` optional."""
    problems: Problems = []
    if not obj(item, path, problems):
        return problems
    need(item, path, "uri", "string", problems)
    need(item, path, "mimeType", "string", problems, optional=True)
    has_text, has_blob = "text" in item, "blob" in item
    if has_text == has_blob:
        problems.append(f"{path} must have exactly one of text and blob")
    elif has_text:
        need(item, path, "text", "string", problems)
    elif not is_base64(item["blob"]):
        problems.append(f"{path}.blob is not valid base64")
    return problems


def content(item: Any, path: str, kinds: tuple[str, ...] = ("text", "image", "resource")) -> Problems:
    """One content item: text, image (base64 ``data`` and ``mimeType``) or an embedded resource."""
    problems: Problems = []
    if not obj(item, path, problems):
        return problems
    kind = need(item, path, "type", "string", problems)
    if kind is None:
        return problems
    if kind not in kinds:
        problems.append(f"{path}.type is {kind!r}{NOT_IN_UNION} ({', '.join(kinds)})")
    elif kind == "text":
        need(item, path, "text", "string", problems)
    elif kind == "image":
        need(item, path, "mimeType", "string", problems)
        if not is_base64(item.get("data")):
            problems.append(f"{path}.data is not valid base64")
    elif kind == "resource":
        if "resource" not in item:
            problems.append(f"{path}.resource is missing")
        else:
            problems += resource_contents(item["resource"], f"{path}.resource")
    check_annotations(item.get("annotations"), f"{path}.annotations", problems)
    return problems


def check_annotations(value: Any, path: str, problems: Problems) -> None:
    if value is None:
        return
    if not obj(value, path, problems):
        return
    audience = need(value, path, "audience", "array", problems, optional=True)
    for i, role in enumerate(audience or []):
        if role not in ROLES:
            problems.append(f"{path}.audience[{i}] is {role!r}, not user or assistant")
    priority = need(value, path, "priority", "number", problems, optional=True)
    if priority is not None and not 0 <= priority <= 1:
        problems.append(f"{path}.priority is {priority}, outside 0..1")


# --- feature lists and results -------------------------------------------------------------------


def list_result(result: Any, key: str, item: Callable[[Any, str], Problems]) -> Problems:
    """A page of a list method: ``key`` is an array of items; ``nextCursor`` a string if present."""
    problems: Problems = []
    if not obj(result, "result", problems):
        return problems
    items = need(result, "result", key, "array", problems)
    for i, value in enumerate(items or []):
        problems += item(value, f"result.{key}[{i}]")
    need(result, "result", "nextCursor", "string", problems, optional=True)
    return problems


def tool(value: Any, path: str) -> Problems:
    problems: Problems = []
    if not obj(value, path, problems):
        return problems
    need(value, path, "name", "string", problems)
    need(value, path, "description", "string", problems, optional=True)
    schema = need(value, path, "inputSchema", "object", problems)
    if schema is not None:
        if schema.get("type") != "object":
            problems.append(f"{path}.inputSchema.type is {schema.get('type')!r}, not \"object\"")
        need(schema, f"{path}.inputSchema", "properties", "object", problems, optional=True)
        required = need(schema, f"{path}.inputSchema", "required", "array", problems, optional=True)
        if required is not None and not all(isinstance(r, str) for r in required):
            problems.append(f"{path}.inputSchema.required holds something other than strings")
    return problems


def call_tool_result(result: Any) -> Problems:
    problems: Problems = []
    if not obj(result, "result", problems):
        return problems
    items = need(result, "result", "content", "array", problems)
    for i, item in enumerate(items or []):
        problems += content(item, f"result.content[{i}]")
    need(result, "result", "isError", "boolean", problems, optional=True)
    return problems


def resource(value: Any, path: str) -> Problems:
    problems: Problems = []
    if not obj(value, path, problems):
        return problems
    uri = need(value, path, "uri", "string", problems)
    if uri is not None and ":" not in uri:
        problems.append(f"{path}.uri {uri!r} has no scheme")
    need(value, path, "name", "string", problems)
    need(value, path, "description", "string", problems, optional=True)
    need(value, path, "mimeType", "string", problems, optional=True)
    need(value, path, "size", "integer", problems, optional=True)
    check_annotations(value.get("annotations"), f"{path}.annotations", problems)
    return problems


def template(value: Any, path: str) -> Problems:
    problems: Problems = []
    if not obj(value, path, problems):
        return problems
    uri_template = need(value, path, "uriTemplate", "string", problems)
    if uri_template is not None and uri_template.count("{") != uri_template.count("}"):
        problems.append(f"{path}.uriTemplate {uri_template!r} has unbalanced braces")
    need(value, path, "name", "string", problems)
    need(value, path, "description", "string", problems, optional=True)
    need(value, path, "mimeType", "string", problems, optional=True)
    check_annotations(value.get("annotations"), f"{path}.annotations", problems)
    return problems


def read_result(result: Any) -> Problems:
    problems: Problems = []
    if not obj(result, "result", problems):
        return problems
    items = need(result, "result", "contents", "array", problems)
    for i, item in enumerate(items or []):
        problems += resource_contents(item, f"result.contents[{i}]")
    return problems


def prompt(value: Any, path: str) -> Problems:
    problems: Problems = []
    if not obj(value, path, problems):
        return problems
    need(value, path, "name", "string", problems)
    need(value, path, "description", "string", problems, optional=True)
    arguments = need(value, path, "arguments", "array", problems, optional=True)
    for i, argument in enumerate(arguments or []):
        where = f"{path}.arguments[{i}]"
        if obj(argument, where, problems):
            need(argument, where, "name", "string", problems)
            need(argument, where, "description", "string", problems, optional=True)
            need(argument, where, "required", "boolean", problems, optional=True)
    return problems


def get_prompt_result(result: Any) -> Problems:
    problems: Problems = []
    if not obj(result, "result", problems):
        return problems
    need(result, "result", "description", "string", problems, optional=True)
    messages = need(result, "result", "messages", "array", problems)
    for i, message in enumerate(messages or []):
        where = f"result.messages[{i}]"
        if obj(message, where, problems):
            if message.get("role") not in ROLES:
                problems.append(f"{where}.role is {message.get('role')!r}, not user or assistant")
            if "content" not in message:
                problems.append(f"{where}.content is missing")
            else:
                problems += content(message["content"], f"{where}.content")
    return problems


def completion_result(result: Any) -> Problems:
    problems: Problems = []
    if not obj(result, "result", problems):
        return problems
    completion = need(result, "result", "completion", "object", problems)
    if completion is None:
        return problems
    values = need(completion, "result.completion", "values", "array", problems)
    if values is not None:
        if not all(isinstance(v, str) for v in values):
            problems.append("result.completion.values holds something other than strings")
        if len(values) > 100:
            problems.append(f"result.completion.values has {len(values)} items, more than 100")
    need(completion, "result.completion", "total", "integer", problems, optional=True)
    need(completion, "result.completion", "hasMore", "boolean", problems, optional=True)
    return problems


def log_message(params: Any) -> Problems:
    problems: Problems = []
    if not obj(params, "params", problems):
        return problems
    if params.get("level") not in LOG_LEVELS:
        problems.append(f"params.level is {params.get('level')!r}, not one of the eight syslog levels")
    if "data" not in params:
        problems.append("params.data is missing")
    need(params, "params", "logger", "string", problems, optional=True)
    return problems


def empty_result(result: Any) -> Problems:
    """``{}``, possibly with ``_meta``."""
    problems: Problems = []
    if obj(result, "result", problems):
        extra = sorted(k for k in result if k != "_meta")
        if extra:
            problems.append(f"result has {', '.join(extra)}; an empty result is {{}}")
    return problems


# --- the client's side ---------------------------------------------------------------------------


def root(value: Any, path: str) -> Problems:
    problems: Problems = []
    if not obj(value, path, problems):
        return problems
    uri = need(value, path, "uri", "string", problems)
    if uri is not None and not uri.startswith("file://"):
        problems.append(f"{path}.uri {uri!r} is not a file:// URI")
    need(value, path, "name", "string", problems, optional=True)
    return problems


def create_message_result(result: Any) -> Problems:
    problems: Problems = []
    if not obj(result, "result", problems):
        return problems
    if result.get("role") not in ROLES:
        problems.append(f"result.role is {result.get('role')!r}, not user or assistant")
    if "content" not in result:
        problems.append("result.content is missing")
    else:
        problems += content(result["content"], "result.content", kinds=("text", "image"))
    need(result, "result", "model", "string", problems)
    need(result, "result", "stopReason", "string", problems, optional=True)
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
