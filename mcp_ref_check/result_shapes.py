"""Shape checks for the results and notifications of the feature pages, written by hand, in our words.

Not a spec section: the checker's view of the data types of tools, resources, prompts,
completion, logging, roots and sampling in 2024-11-05 (the schema's ``Tool``, ``Resource``,
``PromptMessage``, ``CreateMessageResult``...), and of the content items they carry; with a
``version``, the content union of that revision (audio from 2025-03-26, resource_link from
2025-06-18: revisions.content_kinds), and the fields later revisions added to a tool
(annotations, title, outputSchema, icons) and to a tool's result (structuredContent). As in
shapes.py, each function returns a list of problems naming the path of the bad field
(``result.tools[2].inputSchema.type``), empty when the value is well formed, and unknown extra
fields are allowed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .revisions import BASE, content_kinds
from .shapes import LOG_LEVELS, NOT_IN_UNION, ROLES, Problems, is_base64, json_text, need, obj

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
        problems.append(f"{path}.type is {json_text(kind)}{NOT_IN_UNION} ({', '.join(kinds)})")
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
    elif kind == "audio":  # 2025-03-26: like an image, base64 data with a MIME type
        own: Problems = []
        need(item, path, "mimeType", "string", own)
        if not is_base64(item.get("data")):
            own.append(f"{path}.data is not valid base64")
        problems += [f"{p} (audio)" for p in own]
    elif kind == "resource_link":  # 2025-06-18: a link to a resource, as resources/list lists one
        problems += [f"{p} (resource_link)" for p in resource(item, path)]
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
            problems.append(f"{path}.audience[{i}] is {json_text(role)}, not user or assistant")
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
            problems.append(f"{path}.inputSchema.type is {json_text(schema.get('type'))}, not \"object\"")
        need(schema, f"{path}.inputSchema", "properties", "object", problems, optional=True)
        required = need(schema, f"{path}.inputSchema", "required", "array", problems, optional=True)
        if required is not None and not all(isinstance(r, str) for r in required):
            problems.append(f"{path}.inputSchema.required holds something other than strings")
    return problems


def call_tool_result(result: Any, version: str = BASE) -> Problems:
    problems: Problems = []
    if not obj(result, "result", problems):
        return problems
    items = need(result, "result", "content", "array", problems)
    for i, item in enumerate(items or []):
        problems += content(item, f"result.content[{i}]", content_kinds(version))
    need(result, "result", "isError", "boolean", problems, optional=True)
    return problems


# --- what later revisions added to a tool and its result -----------------------------------------

HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def tool_annotations(value: Any, path: str) -> Problems:
    """2025-03-26: ``annotations``, when present, is an object; its title a string, its hints booleans."""
    problems: Problems = []
    annotations = value.get("annotations") if isinstance(value, dict) else None
    if annotations is None:
        return problems
    if not obj(annotations, f"{path}.annotations", problems):
        return problems
    need(annotations, f"{path}.annotations", "title", "string", problems, optional=True)
    for hint in HINTS:
        need(annotations, f"{path}.annotations", hint, "boolean", problems, optional=True)
    return problems


def title(value: Any, path: str) -> Problems:
    """2025-06-18: ``title``, when present, is a string (a name for people to read)."""
    problems: Problems = []
    if isinstance(value, dict):
        need(value, path, "title", "string", problems, optional=True)
    return problems


def icons(value: Any, path: str) -> Problems:
    """2025-11-25: ``icons``, when present, is an array of objects each with a ``src`` string
    (mimeType a string, sizes an array of strings, theme "light" or "dark", when present)."""
    problems: Problems = []
    found = need(value, path, "icons", "array", problems, optional=True) if isinstance(value, dict) else None
    for i, icon in enumerate(found or []):
        where = f"{path}.icons[{i}]"
        if obj(icon, where, problems):
            need(icon, where, "src", "string", problems)
            need(icon, where, "mimeType", "string", problems, optional=True)
            sizes = need(icon, where, "sizes", "array", problems, optional=True)
            if sizes is not None and not all(isinstance(size, str) for size in sizes):
                problems.append(f"{where}.sizes holds something other than strings")
            if "theme" in icon and icon["theme"] not in ("light", "dark"):
                problems.append(f"{where}.theme is {json_text(icon['theme'])}, not light or dark")
    return problems


def output_schema(value: Any, path: str) -> Problems:
    """2025-06-18: ``outputSchema``, when present, is a JSON Schema object of type "object"."""
    problems: Problems = []
    if not isinstance(value, dict) or "outputSchema" not in value:
        return problems
    schema = need(value, path, "outputSchema", "object", problems)
    if schema is not None:
        if schema.get("type") != "object":
            problems.append(f"{path}.outputSchema.type is {json_text(schema.get('type'))}, not \"object\"")
        need(schema, f"{path}.outputSchema", "properties", "object", problems, optional=True)
        required = need(schema, f"{path}.outputSchema", "required", "array", problems, optional=True)
        if required is not None and not all(isinstance(r, str) for r in required):
            problems.append(f"{path}.outputSchema.required holds something other than strings")
    return problems


# Fields a later revision added, where the revision that added them: for a session of an older one.
LATER_TOOL_FIELDS = {"annotations": "2025-03-26", "title": "2025-06-18", "outputSchema": "2025-06-18",
                     "icons": "2025-11-25", "execution": "2025-11-25"}
LATER_ITEM_FIELDS = {"title": "2025-06-18", "icons": "2025-11-25"}  # resources, templates, prompts
LATER_RESULT_FIELDS = {"structuredContent": "2025-06-18"}  # a tools/call result

def resource(value: Any, path: str) -> Problems:
    problems: Problems = []
    if not obj(value, path, problems):
        return problems
    uri = need(value, path, "uri", "string", problems)
    if uri is not None and ":" not in uri:
        problems.append(f"{path}.uri {json_text(uri)} has no scheme")
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
        problems.append(f"{path}.uriTemplate {json_text(uri_template)} has unbalanced braces")
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


def get_prompt_result(result: Any, version: str = BASE) -> Problems:
    problems: Problems = []
    if not obj(result, "result", problems):
        return problems
    need(result, "result", "description", "string", problems, optional=True)
    messages = need(result, "result", "messages", "array", problems)
    for i, message in enumerate(messages or []):
        where = f"result.messages[{i}]"
        if obj(message, where, problems):
            if message.get("role") not in ROLES:
                problems.append(f"{where}.role is {json_text(message.get('role'))}, not user or assistant")
            if "content" not in message:
                problems.append(f"{where}.content is missing")
            else:
                problems += content(message["content"], f"{where}.content", content_kinds(version))
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
        problems.append(f"params.level is {json_text(params.get('level'))}, not one of the eight syslog levels")
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


def root(value: Any, path: str) -> Problems:
    problems: Problems = []
    if not obj(value, path, problems):
        return problems
    uri = need(value, path, "uri", "string", problems)
    if uri is not None and not uri.startswith("file://"):
        problems.append(f"{path}.uri {json_text(uri)} is not a file:// URI")
    need(value, path, "name", "string", problems, optional=True)
    return problems


def create_message_result(result: Any) -> Problems:
    problems: Problems = []
    if not obj(result, "result", problems):
        return problems
    if result.get("role") not in ROLES:
        problems.append(f"result.role is {json_text(result.get('role'))}, not user or assistant")
    if "content" not in result:
        problems.append("result.content is missing")
    else:
        problems += content(result["content"], "result.content", kinds=("text", "image"))
    need(result, "result", "model", "string", problems)
    need(result, "result", "stopReason", "string", problems, optional=True)
    return problems
