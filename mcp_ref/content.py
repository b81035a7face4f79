"""Content items shared by tool results, prompt messages and sampling: text, image, resource.

Not a spec section of its own: these shapes are defined by the schema and used by
server/tools, server/prompts and client/sampling
(https://modelcontextprotocol.io/specification/2024-11-05/server/tools#tool-result).

In 2024-11-05 a content item is one of:
1. ``{"type": "text", "text": ...}``;
2. ``{"type": "image", "data": <base64>, "mimeType": ...}`` (PRM-03: base64 and a MIME type);
3. ``{"type": "resource", "resource": {"uri", "mimeType"?, "text" | "blob"}}``, an embedded
   resource (PRM-04..06, TOOL-07).
Each may carry ``annotations``; unknown fields from newer revisions are kept as they are.
"""

from __future__ import annotations

import base64
from typing import Any


def text(value: str) -> dict[str, Any]:
    """A text content item."""
    return {"type": "text", "text": value}


def image(data: bytes, mime_type: str) -> dict[str, Any]:
    """An image content item: raw bytes in, base64 on the wire (PRM-03)."""
    return {"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime_type}


def resource_contents(uri: str, value: str | bytes, mime_type: str | None = None) -> dict[str, Any]:
    """The contents of a resource: ``text`` for str, base64 ``blob`` for bytes (RES-10, RES-15)."""
    contents: dict[str, Any] = {"uri": uri}
    if mime_type is not None:
        contents["mimeType"] = mime_type
    if isinstance(value, bytes):
        contents["blob"] = base64.b64encode(value).decode("ascii")
    else:
        contents["text"] = value
    return contents


def embedded_resource(uri: str, value: str | bytes, mime_type: str | None = None) -> dict[str, Any]:
    """An embedded resource content item (TOOL-07, PRM-04..06)."""
    return {"type": "resource", "resource": resource_contents(uri, value, mime_type)}


def to_content_list(value: Any) -> list[dict[str, Any]]:
    """What a handler returned -> a list of content items.

    A str is one text item; a dict with a ``type`` is one item as given; a list is converted
    item by item; None is no content. Anything else (numbers, plain dicts) becomes text.
    """
    if value is None:
        return []
    if isinstance(value, str):
        return [text(value)]
    if isinstance(value, dict) and isinstance(value.get("type"), str):
        return [value]
    if isinstance(value, (list, tuple)):
        return [item for element in value for item in to_content_list(element)]
    import json

    return [text(json.dumps(value, ensure_ascii=False, default=str))]
