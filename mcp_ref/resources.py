"""Resources: data a server exposes by URI, templates of URIs, and subscriptions to changes.

Spec page: server/resources
https://modelcontextprotocol.io/specification/2024-11-05/server/resources

In short:

1. A server with resources declares the ``resources`` capability, with ``subscribe`` and
   ``listChanged`` when it supports them (RES-01).
2. ``resources/list`` (paginated) names concrete resources: ``uri``, ``name``, optional
   ``description`` and ``mimeType``. ``resources/templates/list`` names URI templates
   (RFC 6570) for families of resources, such as ``notes://{topic}``.
3. ``resources/read`` with a ``uri`` returns ``contents``: items with the ``uri`` and either
   ``text`` or base64 ``blob`` (RES-10, RES-15). An unknown URI is error -32002 (RES-06).
4. ``resources/subscribe`` / ``unsubscribe`` with a ``uri``: the server then sends
   ``notifications/resources/updated`` when that resource changes, to subscribers only
   (RES-13), and ``notifications/resources/list_changed`` when the list itself changes (RES-02).

Templates here support RFC 6570 simple expansion ``{var}`` (one path segment, percent-decoded)
and reserved expansion ``{+var}`` (may span ``/``). The handler receives the variables as
keyword arguments.
"""

from __future__ import annotations

import inspect
import re
import threading
import urllib.parse
from collections.abc import Callable
from typing import Any

from . import content, pagination
from .jsonrpc import InvalidParams, ResourceNotFound
from .tools import context_parameter_name

_VARIABLE = re.compile(r"\{(\+?)([A-Za-z0-9_]+)\}")


def compile_template(uri_template: str) -> tuple[re.Pattern[str], list[str]]:
    """A regular expression that matches URIs of ``uri_template``, and its variable names."""
    if "{" in _VARIABLE.sub("", uri_template) or "}" in _VARIABLE.sub("", uri_template):
        raise ValueError(f"unsupported URI template {uri_template!r}: only {{var}} and {{+var}} are supported")
    pattern = ""
    names: list[str] = []
    position = 0
    for match in _VARIABLE.finditer(uri_template):
        pattern += re.escape(uri_template[position:match.start()])
        reserved, name = match.groups()
        if name in names:
            raise ValueError(f"variable {name!r} appears twice in {uri_template!r}")
        names.append(name)
        pattern += f"(?P<{name}>.+)" if reserved else f"(?P<{name}>[^/?#]+)"
        position = match.end()
    pattern += re.escape(uri_template[position:])
    return re.compile(pattern), names


class Resource:
    """A concrete resource, or (with a template) a family of them."""

    def __init__(self, fn: Callable[..., Any], uri: str, name: str, description: str | None,
                 mime_type: str | None, is_template: bool = False):
        self.fn = fn
        self.uri = uri
        self.name = name
        self.description = description
        self.mime_type = mime_type
        self.is_template = is_template
        self.context_parameter = context_parameter_name(fn)
        self.pattern: re.Pattern[str] | None = None
        self.variables: list[str] = []
        if is_template:
            self.pattern, self.variables = compile_template(uri)

    def to_wire(self) -> dict[str, Any]:
        item: dict[str, Any] = {("uriTemplate" if self.is_template else "uri"): self.uri, "name": self.name}
        if self.description:
            item["description"] = self.description
        if self.mime_type:
            item["mimeType"] = self.mime_type  # RES-14: the author vouches for every match
        return item

    def match(self, uri: str) -> dict[str, str] | None:
        if self.pattern is None:
            return {} if uri == self.uri else None
        found = self.pattern.fullmatch(uri)
        if found is None:
            return None
        return {name: urllib.parse.unquote(value) for name, value in found.groupdict().items()}

    def read(self, ctx: Any, uri: str, variables: dict[str, str]) -> list[dict[str, Any]]:
        kwargs: dict[str, Any] = dict(variables)
        if self.context_parameter:
            kwargs[self.context_parameter] = ctx
        return self._contents(uri, self.fn(**kwargs))

    def _contents(self, uri: str, value: Any) -> list[dict[str, Any]]:
        """What the handler returned -> ``contents`` items (str: text, bytes: base64 blob)."""
        if isinstance(value, dict) and isinstance(value.get("contents"), list):
            return list(value["contents"])
        if isinstance(value, (str, bytes)):
            return [content.resource_contents(uri, value, self.mime_type)]
        if isinstance(value, dict):
            return [{"uri": uri, **value}]
        if isinstance(value, (list, tuple)):
            return [item for element in value for item in self._contents(uri, element)]
        raise TypeError(f"resource handler for {uri!r} returned {type(value).__name__}; return str, bytes or a dict")


class ResourceRegistry:
    """The resources and templates a server offers, and who subscribed to what."""

    def __init__(self, on_change: Callable[[], None]):
        self._resources: dict[str, Resource] = {}
        self._templates: dict[str, Resource] = {}
        self._subscribers: dict[str, set[Any]] = {}  # uri -> sessions
        self._lock = threading.Lock()
        self._on_change = on_change

    def __bool__(self) -> bool:
        return bool(self._resources or self._templates)

    def add(self, fn: Callable[..., Any], uri: str, name: str | None = None, description: str | None = None,
            mime_type: str | None = None, *, template: bool = False) -> Resource:
        resource = Resource(fn, uri, name or fn.__name__,
                            description if description is not None else inspect.getdoc(fn), mime_type, template)
        with self._lock:
            (self._templates if template else self._resources)[uri] = resource
        self._on_change()  # RES-02
        return resource

    def remove(self, uri: str) -> None:
        """Remove a resource or template by its URI (or URI template)."""
        with self._lock:
            if self._resources.pop(uri, None) is None and self._templates.pop(uri, None) is None:
                raise KeyError(f"no resource or template {uri!r}")
        self._on_change()

    def page(self, params: dict[str, Any], page_size: int | None, *, templates: bool = False) -> dict[str, Any]:
        """``resources/list`` or ``resources/templates/list``: one page."""
        with self._lock:
            items = list((self._templates if templates else self._resources).values())
        field = "resourceTemplates" if templates else "resources"
        return pagination.list_result(items, lambda r: r.uri, field, params, page_size)

    def has(self, uri: str) -> bool:
        """Whether ``uri`` is a registered resource URI or URI template (as written)."""
        with self._lock:
            return uri in self._resources or uri in self._templates

    def find(self, uri: str) -> tuple[Resource, dict[str, str]]:
        """The resource serving ``uri``: a concrete one first, then templates in order."""
        with self._lock:
            candidates = [self._resources[uri]] if uri in self._resources else list(self._templates.values())
        for resource in candidates:
            variables = resource.match(uri)
            if variables is not None:
                return resource, variables
        raise ResourceNotFound(f"Resource not found: {uri}", {"uri": uri})  # RES-06

    def read(self, ctx: Any, params: dict[str, Any]) -> dict[str, Any]:
        """``resources/read``."""
        uri = _uri_param(params)
        resource, variables = self.find(uri)
        return {"contents": resource.read(ctx, uri, variables)}

    # --- subscriptions ---------------------------------------------------------------------------

    def subscribe(self, session: Any, params: dict[str, Any]) -> dict[str, Any]:
        uri = _uri_param(params)
        self.find(uri)  # RES-08: only URIs we serve
        with self._lock:
            self._subscribers.setdefault(uri, set()).add(session)
        return {}

    def unsubscribe(self, session: Any, params: dict[str, Any]) -> dict[str, Any]:
        uri = _uri_param(params)
        with self._lock:
            sessions = self._subscribers.get(uri)
            if sessions is not None:
                sessions.discard(session)
                if not sessions:
                    del self._subscribers[uri]  # an empty entry is memory nobody uses
        return {}

    def subscribers(self, uri: str) -> list[Any]:
        with self._lock:
            return list(self._subscribers.get(uri, ()))

    def forget_session(self, session: Any) -> None:
        """Drop every subscription of a session that ended, and the URIs nobody else watches."""
        with self._lock:
            for uri, sessions in list(self._subscribers.items()):
                sessions.discard(session)
                if not sessions:
                    del self._subscribers[uri]


def _uri_param(params: dict[str, Any]) -> str:
    uri = params.get("uri")
    if not isinstance(uri, str) or not uri:
        raise InvalidParams('Invalid params: "uri" must be a non-empty string')
    return uri
