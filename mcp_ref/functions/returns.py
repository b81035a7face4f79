"""What handler functions return -> the results on the wire: one conversion table per feature.

Not a spec section: this is the Python side of the results of server/tools (``CallToolResult``),
server/prompts (``GetPromptResult``) and server/resources (``ReadResourceResult``)
(https://modelcontextprotocol.io/specification/2024-11-05/server/tools#tool-result). Whatever a
handler returns, the result sent is valid against the 2024-11-05 schema, or the handler's call
fails with an error that names what was returned. Nothing invalid reaches the wire.

Three words the tables use:

- *content*: a ``str``; ``bytes`` (or bytearray, memoryview); an ``Image``, ``Audio``,
  ``EmbeddedResource`` or ``ResourceLink``; or a dict that is a valid content item
  (``content.content_problem``). An item of a kind the session's revision does not have (audio
  before 2025-03-26, a resource link before 2025-06-18) goes as ``content.stand_in``'s text:
  the one place where a result is shaped for an older client (``version``, below).
- *data*: any other value JSON can carry: dict, list, tuple, set, int, float, bool, None,
  dataclass, pydantic model, Enum (its value), datetime/date/time (ISO 8601), UUID and Path
  (as strings). Data is sent as JSON text; NaN and Infinity are refused (JSON has neither).
  A dict that merely *looks* like a content item, a message or resource contents, but is not a
  valid one, is data (and the server logs a warning saying what is wrong with it).
- a list or tuple *mixes* when one of its elements is content: each element is then converted
  on its own, in order. A list of data only is data.

Tools (``{"content": [...]}``):
  1. content -> one item: str -> text; Image -> image; EmbeddedResource -> resource; bytes ->
     an image when they are PNG, JPEG, GIF or WebP, otherwise an embedded resource with a
     base64 ``blob``, ``mimeType`` application/octet-stream, at ``mcp-ref://bytes/sha256/<hex>``
     (a name for those bytes made from their SHA-256; the server does not serve it for reading);
  2. a dict that is a valid ``CallToolResult`` (``content``: a list of valid items, Image or
     EmbeddedResource; optional ``isError`` bool) -> as it is, so a tool can set ``isError``;
  3. a mixing list -> one item per element; data -> one text item of JSON (None -> ``null``);
  4. a value that cannot be converted -> an ``isError`` result whose text names its type: for
     the model the tool failed (TOOL-17). The server log has the details.

Prompts (``{"messages": [...]}``):
  1. str -> one user message with that text; other content -> one user message with it;
  2. a dict with ``role`` and ``content`` -> that message: the role must be user or assistant,
     the content is converted as for a tool (a str becomes text, data becomes JSON text);
  3. ``{"messages": [...]}`` (with an optional ``description``) -> each message by this table;
  4. a list or tuple -> one message per element, by this table (an element that is itself a
     list is data);
  5. other data -> one user message with JSON text;
  6. None (usually a forgotten ``return``), a role other than user or assistant, a message
     whose content is a list, or a value that cannot be converted -> error -32603 whose message
     names the type returned (PRM-09).

Resources (``{"contents": [...]}``, each item at the URI that was read unless it says otherwise):
  1. str -> ``text``; bytes -> base64 ``blob`` (RES-10), with the registered ``mimeType``, else
     the sniffed image type, else none; Image -> blob with its type; EmbeddedResource -> its
     contents; a dict that is valid contents (``text`` or ``blob``, optional ``uri`` and
     ``mimeType``) -> as it is; ``{"contents": [...]}`` of valid contents -> those;
  2. a mixing list -> one contents item per element;
  3. data -> ``text`` of JSON with ``mimeType`` application/json (or the registered one);
  4. a value that cannot be converted -> error -32603 naming its type (RES-07).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import hashlib
import inspect
import json
import logging
import math
import sys
import uuid
from pathlib import PurePath
from typing import Any

from ..content import (
    LATER_KINDS,
    Audio,
    EmbeddedResource,
    Image,
    ResourceLink,
    content_problem,
    contents_problem,
    embedded_resource,
    image,
    resource_contents,
    sniff_mime_type,
    stand_in,
    text,
)
from ..lifecycle import since

log = logging.getLogger("mcp_ref.functions.returns")

BYTES_URI = "mcp-ref://bytes/sha256/{}"  # where a tool's bytes of unknown type are embedded
_CONTENTS_KEYS = {"uri", "mimeType", "text", "blob", "_meta"}


_OBJECTS = (Image, Audio, EmbeddedResource, ResourceLink)  # the content classes a handler may return


class UnsupportedReturn(TypeError):
    """A handler returned a value that no table row converts; the message says what it was."""


# --- data -> JSON text ---------------------------------------------------------------------------


def jsonable(value: Any) -> Any:
    """A data value made of JSON's own types (a dataclass -> a dict...); UnsupportedReturn if it has none."""
    try:
        return _jsonable(value, "the value")
    except RecursionError:
        raise UnsupportedReturn("a value nested too deeply, or that contains itself") from None


def to_json(value: Any) -> str:
    """JSON text for a data value (see the module docstring); UnsupportedReturn if it has none."""
    try:
        return json.dumps(_jsonable(value, "the value"), ensure_ascii=False, allow_nan=False)
    except RecursionError:
        raise UnsupportedReturn("a value nested too deeply, or that contains itself") from None
    except ValueError as exc:  # a NaN or Infinity as a dict key
        raise UnsupportedReturn(f"the value has no strict JSON form: {exc}") from None


def _jsonable(value: Any, where: str) -> Any:
    """``value`` made of JSON's own types only."""
    if isinstance(value, enum.Enum):
        return _jsonable(value.value, where)
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise UnsupportedReturn(f"{where} is {value}, which JSON cannot carry")
        return value
    if isinstance(value, dict):
        return {_key(k, where): _jsonable(v, f"{where}[{k!r}]") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, (set, frozenset)):
        items = [_jsonable(v, f"an item of {where}") for v in value]
        try:
            return sorted(items)
        except TypeError:
            return items
    if isinstance(value, (bytes, bytearray, memoryview, *_OBJECTS)):
        raise UnsupportedReturn(f"{where} is {type(value).__name__}, which cannot sit inside data: return it on "
                                "its own or as an element of a top-level list")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name), f"{where}.{f.name}") for f in dataclasses.fields(value)}
    if _is_pydantic_model(value):
        try:
            return _jsonable(value.model_dump(mode="json"), where)
        except UnsupportedReturn:
            raise
        except Exception as exc:  # pydantic could not serialise one of its fields
            raise UnsupportedReturn(f"{where} is a {type(value).__name__} that pydantic cannot dump: {exc}") from exc
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (uuid.UUID, PurePath)):
        return str(value)
    raise UnsupportedReturn(_describe_unsupported(value, where))


def _key(key: Any, where: str) -> Any:
    key = key.value if isinstance(key, enum.Enum) else key
    if key is None or isinstance(key, (str, int, float, bool)):
        return key  # json writes numbers, booleans and None as strings
    raise UnsupportedReturn(f"{where} has a key of type {type(key).__name__}; JSON object keys are strings")


def _is_pydantic_model(value: Any) -> bool:
    pydantic = sys.modules.get("pydantic")  # only when the program uses it: never imported here
    return pydantic is not None and isinstance(value, pydantic.BaseModel)


def _describe_unsupported(value: Any, where: str) -> str:
    if inspect.iscoroutine(value):
        value.close()  # never run: close it so Python does not warn that it was not awaited
        return (f"{where} is a coroutine: the function is async, but mcp_ref is synchronous; "
                "define it with plain `def`")
    if inspect.isawaitable(value) or inspect.isasyncgen(value):
        return f"{where} is awaitable ({type(value).__name__}), but mcp_ref is synchronous"
    if inspect.isgenerator(value) or isinstance(value, (map, filter, zip, range)):
        return f"{where} is a {type(value).__name__}: return a list instead"
    return (f"{where} is a {type(value).__name__}, which has no JSON form; return a str, bytes, a dict, "
            "a list, a dataclass or another supported value, or convert it first")


def _warn_lookalike(looks_like: str, problem: str | None) -> None:
    """A dict shaped almost like a wire object is sent as data; say so in the server's log."""
    log.warning("a handler returned a dict that looks like %s but is not one (%s): it is sent as JSON data",
                looks_like, problem)


# --- content -------------------------------------------------------------------------------------


def _is_bytes(value: Any) -> bool:
    return isinstance(value, (bytes, bytearray, memoryview))


def is_content(value: Any) -> bool:
    """Whether ``value`` is *content* (see the module docstring)."""
    if isinstance(value, (str, *_OBJECTS)) or _is_bytes(value):
        return True
    return isinstance(value, dict) and content_problem(value) is None


def bytes_content(data: bytes) -> dict[str, Any]:
    """Bytes as a content item: an image when the type is known, otherwise an embedded blob."""
    mime_type = sniff_mime_type(data)
    if mime_type is not None:
        return image(data, mime_type)
    uri = BYTES_URI.format(hashlib.sha256(data).hexdigest())  # TOOL-07: an embedded resource
    return embedded_resource(uri, data, "application/octet-stream")  # PRM-05: always a MIME type


def content_item(value: Any, version: str | None = None) -> dict[str, Any]:
    """One content item for a content value, as a session of ``version`` can take it (None: any
    kind); JSON text for data."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, _OBJECTS):
        return for_revision(value.to_content(), version)
    if _is_bytes(value):
        return bytes_content(bytes(value))
    if isinstance(value, dict) and value.get("type") in ("text", "image", "resource", *LATER_KINDS):
        problem = content_problem(value)
        if problem is None:
            return for_revision(value, version)
        _warn_lookalike("a content item", problem)
    return text(to_json(value))


def for_revision(item: dict[str, Any], version: str | None) -> dict[str, Any]:
    """``item``, or its ``stand_in`` for a session whose revision lacks its kind (README: "What an
    older client sees"; revisions/v2025_03_26.py, item 5; v2025_06_18.py, item 3)."""
    revision = LATER_KINDS.get(item["type"])
    return item if revision is None or version is None or since(version, revision) else stand_in(item, version)


def _mixes(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and any(is_content(v) for v in value)


# --- the three tables ----------------------------------------------------------------------------


def tool_result(value: Any, version: str | None = None) -> dict[str, Any]:
    """A tool function's return value -> a ``CallToolResult`` for a session of ``version`` (raises
    UnsupportedReturn)."""
    if _is_tool_result(value):
        return {**value, "content": [for_revision(item.to_content() if isinstance(item, _OBJECTS) else item, version)
                                     for item in value["content"]]}
    if isinstance(value, dict) and isinstance(value.get("content"), list):
        _warn_lookalike("a tool result", "each element of content must be a valid content item; isError a bool")
    if _mixes(value):
        return {"content": [content_item(v, version) for v in value]}
    return {"content": [content_item(value, version)]}


def _is_tool_result(value: Any) -> bool:
    if not isinstance(value, dict) or not isinstance(value.get("content"), list):
        return False
    if "isError" in value and not isinstance(value["isError"], bool):
        return False
    if "_meta" in value and not isinstance(value["_meta"], dict):
        return False
    if "structuredContent" in value and not isinstance(value["structuredContent"], dict):
        return False
    return all(isinstance(item, _OBJECTS) or content_problem(item) is None
               for item in value["content"])


is_tool_result = _is_tool_result  # for tools.py: a result the tool built itself (kept private on the walk)


def prompt_result(value: Any, version: str | None = None) -> dict[str, Any]:
    """A prompt function's return value -> a ``GetPromptResult`` (raises UnsupportedReturn)."""
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        if not isinstance(value.get("description", ""), str):
            raise UnsupportedReturn("a result whose description is not a string")
        if not isinstance(value.get("_meta", {}), dict):
            raise UnsupportedReturn("a result whose _meta is not an object")
        return {**value, "messages": [_message(m, version) for m in value["messages"]]}
    if isinstance(value, (list, tuple)):
        return {"messages": [_message(m, version) for m in value]}
    return {"messages": [_message(value, version)]}


def _message(value: Any, version: str | None) -> dict[str, Any]:
    if value is None:
        raise UnsupportedReturn("None: a prompt returns its messages (a str, a message dict, or a list of "
                                "them); was a `return` forgotten?")
    if isinstance(value, dict) and "role" in value and "content" in value:
        if value["role"] not in ("user", "assistant"):
            raise UnsupportedReturn(f"a message with role {value['role']!r}; prompt messages are 'user' or "
                                    "'assistant' in 2024-11-05 (put instructions in a user message)")
        if isinstance(value["content"], (list, tuple)):
            raise UnsupportedReturn("a message whose content is a list; a message has one content item: "
                                    "return one message per item instead")
        return {**value, "content": content_item(value["content"], version)}
    return {"role": "user", "content": content_item(value, version)}


def resource_contents_list(value: Any, uri: str, mime_type: str | None) -> list[dict[str, Any]]:
    """A resource function's return value -> ``contents`` items (raises UnsupportedReturn)."""
    if isinstance(value, dict) and isinstance(value.get("contents"), list) \
            and all(isinstance(item, dict) and _is_contents(item, uri) for item in value["contents"]):
        return [_contents(item, uri, mime_type) for item in value["contents"]]
    if _is_contents(value, uri):
        return [_contents(value, uri, mime_type)]
    if isinstance(value, (list, tuple)) and any(_is_contents(v, uri) for v in value):
        return [_contents(v, uri, mime_type) for v in value]
    return [_contents(value, uri, mime_type)]


def _is_contents(value: Any, uri: str) -> bool:
    if isinstance(value, (str, Image, Audio, EmbeddedResource)) or _is_bytes(value):
        return True
    return isinstance(value, dict) and set(value) <= _CONTENTS_KEYS and contents_problem({"uri": uri, **value}) is None


def _contents(value: Any, uri: str, mime_type: str | None) -> dict[str, Any]:
    if isinstance(value, str):
        return resource_contents(uri, value, mime_type)
    if _is_bytes(value):
        data = bytes(value)
        return resource_contents(uri, data, mime_type or sniff_mime_type(data))  # RES-10
    if isinstance(value, (Image, Audio)):
        return resource_contents(uri, bytes(value.data), value.mime_type)
    if isinstance(value, EmbeddedResource):
        return dict(value.to_content()["resource"])
    if _is_contents(value, uri):
        return {"uri": uri, **value}
    if isinstance(value, dict) and ("text" in value or "blob" in value or "contents" in value):
        _warn_lookalike("resource contents", contents_problem({"uri": uri, **value}) if "contents" not in value
                        else "each element of contents must be valid resource contents")
    return resource_contents(uri, to_json(value), mime_type or "application/json")
