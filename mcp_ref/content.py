"""Content items shared by tool results, prompt messages and sampling: text, image, resource, ...

Not a spec section of its own: these shapes are defined by the schema and used by
server/tools, server/prompts and client/sampling
(https://modelcontextprotocol.io/specification/2024-11-05/server/tools#tool-result).

In 2024-11-05 a content item is one of:
1. ``{"type": "text", "text": ...}``;
2. ``{"type": "image", "data": <base64>, "mimeType": ...}`` (PRM-03: base64 and a MIME type);
3. ``{"type": "resource", "resource": {"uri", "mimeType"?, "text" | "blob"}}``, an embedded
   resource (PRM-04..06, TOOL-07). The inner object is a resource's *contents*, the same shape
   ``resources/read`` returns: a URI and either ``text`` or a base64 ``blob`` (RES-10, RES-15).
Each may carry ``annotations``; unknown fields from newer revisions are kept as they are.
Later revisions add two kinds (``LATER_KINDS``): 4. ``{"type": "audio", "data", "mimeType"}``
(2025-03-26, https://modelcontextprotocol.io/specification/2025-03-26/server/tools#audio-content)
and 5. ``{"type": "resource_link", "uri", "name", ...}``, a resource named but not embedded
(2025-06-18, https://modelcontextprotocol.io/specification/2025-06-18/server/tools#resource-links).
A session of an older revision gets ``stand_in(item, version)`` instead: a text item saying what
was left out and why (functions/returns.py decides when).

Below: functions that build each shape, ``Image``, ``Audio``, ``EmbeddedResource`` and
``ResourceLink`` (values a handler
may return; see returns.py), and checks that say why a dict is *not* a valid item. The checks
are how the conversion tables tell a real content item from data that merely looks like one.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

# --- building items ------------------------------------------------------------------------------


def text(value: str) -> dict[str, Any]:
    """A text content item."""
    return {"type": "text", "text": value}


def image(data: bytes, mime_type: str) -> dict[str, Any]:
    """An image content item: raw bytes in, base64 on the wire (PRM-03)."""
    return {"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime_type}


def audio(data: bytes, mime_type: str) -> dict[str, Any]:
    """An audio content item (2025-03-26): raw bytes in, base64 on the wire."""
    return {"type": "audio", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime_type}


def resource_link(uri: str, name: str, **optional: Any) -> dict[str, Any]:
    """A resource link (2025-06-18): ``uri`` and ``name``, and any of ``title``, ``description``,
    ``mimeType``, ``size``, ``annotations`` given (None: left out)."""
    return {"type": "resource_link", "uri": uri, "name": name, **{k: v for k, v in optional.items() if v is not None}}


# The content kinds a later revision added, and that revision: what an older session gets instead.
LATER_KINDS = {"audio": "2025-03-26", "resource_link": "2025-06-18"}  # revisions/v2025_03_26.py item 5, v2025_06_18.py item 3


def stand_in(item: dict[str, Any], version: str | None) -> dict[str, Any]:
    """The text item a session of ``version`` gets for an item of a later kind: honest about what
    was left out, and keeping what a model can still use (a link's URI)."""
    if item["type"] == "audio":
        what = f"an audio clip ({item['mimeType']}) was left out"
    else:
        what = f"a link to the resource {item['uri']} ({item['name']}) was sent as this text"
    return text(f"[{what}: this client speaks MCP {version}, which has no {item['type']} content]")


def resource_contents(uri: str, value: str | bytes, mime_type: str | None = None) -> dict[str, Any]:
    """The contents of a resource: ``text`` for str, base64 ``blob`` for bytes (RES-10, RES-15)."""
    contents: dict[str, Any] = {"uri": uri} | ({} if mime_type is None else {"mimeType": mime_type})
    if isinstance(value, bytes):  # PRM-06: text or a base64 blob, never both
        contents["blob"] = base64.b64encode(value).decode("ascii")  # RES-10
    else:
        contents["text"] = value  # RES-15: text only for what is text
    return contents


def embedded_resource(uri: str, value: str | bytes, mime_type: str | None = None) -> dict[str, Any]:
    """An embedded resource content item (TOOL-07, PRM-04..06)."""
    return {"type": "resource", "resource": resource_contents(uri, value, mime_type)}


# --- values a handler may return -----------------------------------------------------------------

_IMAGE_SIGNATURES = [  # (offset, magic bytes, MIME type)
    (0, b"\x89PNG\r\n\x1a\n", "image/png"),
    (0, b"\xff\xd8\xff", "image/jpeg"),
    (0, b"GIF87a", "image/gif"),
    (0, b"GIF89a", "image/gif"),
    (8, b"WEBP", "image/webp"),  # after b"RIFF" and a 4-byte length
]


_AUDIO_SIGNATURES = [(0, b"ID3", "audio/mpeg"), (0, b"\xff\xfb", "audio/mpeg"), (0, b"\xff\xf3", "audio/mpeg"),
                     (0, b"OggS", "audio/ogg"), (0, b"fLaC", "audio/flac"), (8, b"WAVE", "audio/wav")]


def sniff_mime_type(data: bytes, signatures: list[tuple[int, bytes, str]] = _IMAGE_SIGNATURES) -> str | None:
    """The MIME type of a PNG, JPEG, GIF or WebP image (or with ``_AUDIO_SIGNATURES``, of MP3, Ogg,
    FLAC or WAV audio), from its first bytes; None otherwise."""
    for offset, magic, mime_type in signatures:
        if data[offset:offset + len(magic)] == magic and (offset == 0 or data.startswith(b"RIFF")):
            return mime_type
    return None




class _Value:
    """Equality and a readable repr from ``__slots__``: what a frozen dataclass would give, without
    importing dataclasses (and with it inspect) when mcp_ref is imported."""

    __slots__: tuple[str, ...] = ()

    def _fields(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Value) and type(other) is type(self) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash((type(self), self._fields()[:2]))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({shown})"


class Image(_Value):
    """An image a tool or prompt returns: ``Image(png_bytes)``, or with an explicit ``mime_type``.

    Without ``mime_type`` the type is read from the bytes (PNG, JPEG, GIF, WebP); bytes of any
    other kind need it given. It goes on the wire as an image content item (PRM-03).
    """

    __slots__ = ("data", "mime_type", "annotations")

    def __init__(self, data: bytes, mime_type: str | None = None, annotations: dict[str, Any] | None = None):
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"Image data must be bytes, not {type(data).__name__}")
        mime_type = mime_type or sniff_mime_type(bytes(data))
        if mime_type is None:
            raise ValueError("Image: these bytes are not a PNG, JPEG, GIF or WebP image; "
                             "pass mime_type='image/...' to say what they are")
        self.data, self.mime_type, self.annotations = data, mime_type, annotations

    def to_content(self) -> dict[str, Any]:
        return image(bytes(self.data), self.mime_type) | ({} if self.annotations is None else {"annotations": self.annotations})


class Audio(_Value):
    """An audio clip a tool or prompt returns (2025-03-26): ``Audio(wav_bytes)``, or with ``mime_type``.

    Without ``mime_type`` the type is read from the bytes (MP3, Ogg, FLAC, WAV). A session of
    2024-11-05 gets a text item saying that a clip was left out (``stand_in``).
    """

    __slots__ = ("data", "mime_type", "annotations")

    def __init__(self, data: bytes, mime_type: str | None = None, annotations: dict[str, Any] | None = None):
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"Audio data must be bytes, not {type(data).__name__}")
        mime_type = mime_type or sniff_mime_type(bytes(data), _AUDIO_SIGNATURES)
        if mime_type is None:
            raise ValueError("Audio: these bytes are not MP3, Ogg, FLAC or WAV; pass mime_type='audio/...'")
        self.data, self.mime_type, self.annotations = data, mime_type, annotations

    def to_content(self) -> dict[str, Any]:
        return audio(bytes(self.data), self.mime_type) | ({"annotations": self.annotations} if self.annotations else {})


class ResourceLink(_Value):
    """A link to a resource in a tool result or prompt message (2025-06-18): the client may read it
    (``resources/read``) or show it; unlike ``EmbeddedResource`` its contents do not travel here."""

    __slots__ = ("uri", "name", "title", "description", "mime_type", "size", "annotations")

    def __init__(self, uri: str, name: str, *, title: str | None = None, description: str | None = None,
                 mime_type: str | None = None, size: int | None = None, annotations: dict[str, Any] | None = None):
        self.uri, self.name, self.title, self.description = uri, name, title, description
        self.mime_type, self.size, self.annotations = mime_type, size, annotations
        problem = content_problem(self.to_content())
        if problem:
            raise ValueError(f"ResourceLink({uri!r}, {name!r}): {problem}")

    def to_content(self) -> dict[str, Any]:
        return resource_link(self.uri, self.name, title=self.title, description=self.description,
                             mimeType=self.mime_type, size=self.size, annotations=self.annotations)


class EmbeddedResource(_Value):
    """A resource embedded in a tool result or prompt message (TOOL-07, PRM-04..06).

    ``data`` is a str (sent as ``text``) or bytes (sent as a base64 ``blob``). The MIME type,
    which prompts must carry (PRM-05), defaults to ``text/plain`` for text and, for bytes, to
    the sniffed image type or ``application/octet-stream``.
    """

    __slots__ = ("uri", "data", "mime_type", "annotations")

    def __init__(self, uri: str, data: str | bytes, mime_type: str | None = None,
                 annotations: dict[str, Any] | None = None):
        if not isinstance(uri, str) or not is_uri(uri):  # PRM-04: a valid URI
            raise ValueError(f"EmbeddedResource needs an absolute URI such as 'docs://readme', not {uri!r}")
        if isinstance(data, (bytearray, memoryview)):
            data = bytes(data)
        if not isinstance(data, (str, bytes)):
            raise TypeError(f"EmbeddedResource data must be str or bytes, not {type(data).__name__}")
        if mime_type is None:  # PRM-05: always a MIME type that fits the data
            guessed = "text/plain" if isinstance(data, str) else sniff_mime_type(data)
            mime_type = guessed or "application/octet-stream"
        self.uri, self.data, self.mime_type, self.annotations = uri, data, mime_type, annotations

    def to_content(self) -> dict[str, Any]:
        # PRM-04, PRM-05
        item = embedded_resource(self.uri, self.data, self.mime_type)  # PRM-06
        return item | ({} if self.annotations is None else {"annotations": self.annotations})


# --- telling valid items from look-alikes ---------------------------------------------------------

_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s\x00-\x1f\x7f]*")  # RFC 3986: a scheme, then no blanks
ROLES = ("user", "assistant")


def is_uri(value: str) -> bool:
    """Whether ``value`` is an absolute URI: a scheme, a colon, and no spaces or controls."""
    return _URI.fullmatch(value) is not None


def _is_base64(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _annotations_problem(item: dict[str, Any]) -> str | None:
    annotations = item.get("annotations")
    if annotations is None and "annotations" not in item:
        return None
    if not isinstance(annotations, dict):
        return '"annotations" must be an object'
    audience = annotations.get("audience", [])
    if not isinstance(audience, list) or any(role not in ROLES for role in audience):
        return '"annotations.audience" must be a list of "user" / "assistant"'
    priority = annotations.get("priority", 0)
    if isinstance(priority, bool) or not isinstance(priority, (int, float)) or not 0 <= priority <= 1:
        return '"annotations.priority" must be a number from 0 to 1'
    return None


def contents_problem(item: Any) -> str | None:
    """Why ``item`` is not valid resource contents (``uri`` + ``text`` or ``blob``); None if it is."""
    if not isinstance(item, dict):
        return f"resource contents must be an object, not {type(item).__name__}"
    if not isinstance(item.get("uri"), str) or not is_uri(item["uri"]):
        return '"uri" must be an absolute URI'
    if "mimeType" in item and not isinstance(item["mimeType"], str):
        return '"mimeType" must be a string'
    if ("text" in item) == ("blob" in item):  # RES-15, PRM-06: exactly one of them
        return 'exactly one of "text" and "blob" is needed'
    if "text" in item and not isinstance(item["text"], str):
        return '"text" must be a string'
    if "blob" in item and not _is_base64(item["blob"]):  # RES-10
        return '"blob" must be base64'
    return None


def _link_problem(item: dict[str, Any]) -> str | None:
    if not isinstance(item.get("uri"), str) or not is_uri(item["uri"]):
        return 'a resource link needs "uri", an absolute URI'
    if not isinstance(item.get("name"), str):
        return 'a resource link needs "name", a string'
    wrong = [key for key in ("title", "description", "mimeType") if key in item and not isinstance(item[key], str)]
    if wrong:
        return f'"{wrong[0]}" must be a string'
    size = item.get("size", 0)
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        return '"size" must be a non-negative integer'
    return None


def content_problem(item: Any) -> str | None:
    """Why ``item`` is not a valid content item (of 2024-11-05, or of a later kind); None when it is one."""
    if not isinstance(item, dict):
        return f"a content item must be an object, not {type(item).__name__}"
    kind = item.get("type")
    if kind == "text":
        problem = None if isinstance(item.get("text"), str) else 'a text item needs "text", a string'
    elif kind in ("image", "audio"):
        problem = None if _is_base64(item.get("data")) else f'an {kind} item needs "data", base64'  # PRM-03
        if problem is None and not isinstance(item.get("mimeType"), str):
            problem = f'an {kind} item needs "mimeType", a string'
    elif kind == "resource_link":
        problem = _link_problem(item)
    elif kind == "resource":
        problem = contents_problem(item.get("resource"))
        problem = problem and f"its resource: {problem}"
    else:
        problem = f'"type" must be "text", "image", "audio", "resource" or "resource_link", not {kind!r}'
    return problem or _annotations_problem(item)


def message_problem(message: Any) -> str | None:
    """Why ``message`` is not a valid prompt message (``role`` + one content item); None if it is."""
    if not isinstance(message, dict):
        return f"a message must be an object, not {type(message).__name__}"
    if message.get("role") not in ROLES:
        return f'"role" must be "user" or "assistant", not {message.get("role")!r}'
    problem = content_problem(message.get("content"))
    return problem and f"its content: {problem}"
