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
keyword arguments, converted to its hints (``{id}`` with ``id: int``: a URI whose id is not a
number matches no resource; see hints.py). Its return value becomes ``contents`` by the table in
returns.py. A handler that finds nothing for the URI raises ``ResourceNotFound`` (-32002); a
``KeyError`` or any other ``LookupError`` it raises means the same, and says so to the client.
"""

from __future__ import annotations

import logging
import re
import threading
import urllib.parse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import messages, pagination
from .content import is_uri
from .functions.registry import Registered, Registry, did_you_mean, error_text
from .messages import InternalError, InvalidParams, ResourceNotFound

# The Python side (signatures.py, hints.py, returns.py: type hints in, return values out) is
# imported where a function is registered, not at the top: it needs inspect,
# dataclasses and more, which `import mcp_ref` and a program that only uses the client skip.
if TYPE_CHECKING:
    from .functions.signatures import Signature

log = logging.getLogger("mcp_ref.resources")

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


class _Misfit(Exception):
    """A URI matches a template, but a variable does not convert to its parameter's hint."""


class Resource(Registered):
    """A concrete resource, or (with a template) a family of them."""

    def __init__(self, fn: Callable[..., Any], uri: str, name: str, description: str | None,
                 mime_type: str | None, is_template: bool = False, **later: Any):
        from .functions.returns import resource_contents_list

        super().__init__(fn, f"resource template {uri!r}" if is_template else f"resource {uri!r}", description,
                         label=f"resource {uri}", **later)
        self.uri = uri
        self.name = name
        self.mime_type = mime_type
        self.is_template = is_template
        self.pattern: re.Pattern[str] | None = None
        self.variables: list[str] = []
        if is_template:
            self.pattern, self.variables = compile_template(uri)
        _check_parameters(self.signature, self.variables, self.what)
        # users://abc for {id} with id: int: the template does not match that URI
        self.read_variables = self.reader(self.signature.string_reader(self.variables),
                                          lambda exc: _Misfit(f"{{{exc.field}}} of {uri}: {exc.problem}"))
        self.contents = self.converter(  # the table of returns.py
            lambda value, read_uri: resource_contents_list(value, read_uri, mime_type), self._cannot_send)

    def _cannot_send(self, kind: str, problem: Exception) -> list[dict[str, Any]]:
        # RES-07: the server's fault, said plainly
        raise InternalError(f"The handler of {self.uri} returned a {kind}, which cannot be sent as resource "
                            f"contents: {problem}")

    def to_wire(self, version: str | None = None) -> dict[str, Any]:
        """The resource or template in a list, with the fields of later revisions a session of ``version`` has."""
        item: dict[str, Any] = {("uriTemplate" if self.is_template else "uri"): self.uri, "name": self.name}
        if self.description:
            item["description"] = self.description
        if self.mime_type:
            item["mimeType"] = self.mime_type  # RES-14: the author vouches for every match
        return item | self.later_fields(version)

    def match(self, uri: str) -> dict[str, str] | None:
        if self.pattern is None:
            return {} if uri == self.uri else None
        found = self.pattern.fullmatch(uri)
        if found is None:
            return None
        return {name: urllib.parse.unquote(value) for name, value in found.groupdict().items()}

    def read(self, ctx: Any, uri: str, variables: dict[str, Any]) -> dict[str, Any]:
        """Call the function with the (converted) variables; its value as a ``resources/read``
        result: ``contents`` items, and the ``_meta`` of a result the function built itself."""
        try:
            value = self.call(ctx, dict(variables))  # any other exception here becomes -32603 (RES-07)
        except LookupError as exc:  # a KeyError or IndexError in the handler: no such resource, RES-06
            raise ResourceNotFound(f"Resource not found: {uri} ({error_text(exc)})", {"uri": uri}) from None
        result = {"contents": self.contents(value, uri)}
        if isinstance(value, dict) and "contents" in value and isinstance(value.get("_meta"), dict):
            result["_meta"] = value["_meta"]  # every result may carry _meta: keep the author's
        return result


def _check_parameters(signature: Signature, variables: list[str], what: str) -> None:
    """The URI (template) must provide every parameter the function requires, and the
    function must take every variable of the template."""
    parameters = {p.name for p in signature.parameters}
    for variable in variables:
        if variable not in parameters and not signature.takes_kwargs:
            raise ValueError(f"{what}: the function has no parameter {variable!r} for the variable "
                             f"{{{variable}}}; rename one so that they match")
    for parameter in signature.parameters:
        if parameter.required and parameter.name not in variables:
            how = (f"add {{{parameter.name}}} to the template" if variables else
                   f"use @server.resource_template with {{{parameter.name}}} in the URI")
            raise ValueError(f"{what}: the function requires {parameter.name!r}, which the URI does not "
                             f"provide; {how}, or give the parameter a default")



class ResourceRegistry:
    """The resources and templates a server offers (two registries, each keyed by its URI), and who
    subscribed to what."""

    def __init__(self, on_change: Callable[[], None]):
        # RES-02, RES-16: every add or remove tells every session told listChanged, subscribed or not
        self.concrete: Registry[Resource] = Registry("resource", on_change)
        self.templates: Registry[Resource] = Registry("resource template", on_change)
        self._subscribers: dict[str, set[Any]] = {}  # uri -> sessions
        self._lock = threading.Lock()

    def __bool__(self) -> bool:
        return bool(self.concrete or self.templates)

    def add(self, fn: Callable[..., Any], uri: str, name: str | None = None, description: str | None = None,
            mime_type: str | None = None, *, template: bool = False, replace: bool = False, **later: Any) -> Resource:
        """Register ``fn`` at ``uri`` (a URI template when ``template``). A URI already taken is an
        error unless ``replace=True``. ``later``: ``title``, ``icons``, ``meta`` (see ``Server.resource``)."""
        kind = "resource_template" if template else "resource"
        if not isinstance(uri, str):
            raise TypeError(f"@server.{kind} needs the URI first, e.g. @server.{kind}('notes://"
                            f"{'{topic}' if template else 'today'}'), not {type(uri).__name__}")
        if not is_uri(uri):  # RES-08: only URIs a client can use
            raise ValueError(f"{uri!r} is not an absolute URI: give it a scheme, as in 'notes://{uri}'")
        if not template and "{" in uri:
            raise ValueError(f"{uri!r} has template variables: register it with @server.resource_template")
        if template and "{" not in uri:
            raise ValueError(f"{uri!r} has no {{variables}}: register it with @server.resource")
        name = name if name is not None else getattr(fn, "__name__", None)
        if not isinstance(name, str) or not name:
            raise TypeError("a resource needs a name: pass name='...'")
        resource = Resource(fn, uri, name, description, mime_type, template, **later)
        return (self.templates if template else self.concrete).put(uri, resource, replace=replace)

    def remove(self, uri: str) -> None:
        """Remove a resource or template by its URI (or URI template)."""
        if uri in self.concrete:
            self.concrete.remove(uri)
        elif uri in self.templates:
            self.templates.remove(uri)
        else:
            raise KeyError(f"no resource or template {uri!r}")

    def page(self, params: dict[str, Any], page_size: int | None, *, templates: bool = False,
             version: str | None = None) -> dict[str, Any]:
        """``resources/list`` or ``resources/templates/list``: one page, as a session of ``version`` sees it."""
        items = (self.templates if templates else self.concrete).items()
        field = "resourceTemplates" if templates else "resources"
        return pagination.list_result(items, lambda r: r.uri, field, params, page_size, version)

    def has(self, uri: str) -> bool:
        """Whether ``uri`` is a registered resource URI or URI template (as written)."""
        return uri in self.concrete or uri in self.templates

    def find(self, uri: str) -> tuple[Resource, dict[str, Any]]:
        """The resource serving ``uri`` and its variables: a concrete one first, then the
        templates in order. A template matches when its variables convert to the hints."""
        concrete = self.concrete.lookup(uri)
        candidates = [concrete] if concrete is not None else self.templates.items()
        misfits = []
        for resource in candidates:
            variables = resource.match(uri)
            if variables is None:
                continue
            try:
                return resource, resource.read_variables(variables)
            except _Misfit as exc:
                misfits.append(str(exc))
        why = f" ({'; '.join(misfits)})" if misfits else ""
        suggestions = [] if misfits else self.concrete.suggest(uri)
        raise ResourceNotFound(f"Resource not found: {uri}{why}{did_you_mean(suggestions)}",  # RES-06
                               {"uri": uri, "suggestions": suggestions} if suggestions else {"uri": uri})

    def read(self, ctx: Any, params: dict[str, Any]) -> dict[str, Any]:
        """``resources/read``."""
        uri = _uri_param(params)
        resource, variables = self.find(uri)
        return resource.read(ctx, uri, variables)

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
            if sessions is not None:  # RES-12: a URI never subscribed to is a harmless no-op
                sessions.discard(session)
                if not sessions:
                    del self._subscribers[uri]  # an empty entry is memory nobody uses
        return {}

    def subscription_count(self) -> int:
        """How many (URI, session) subscriptions there are now."""
        with self._lock:
            return sum(len(sessions) for sessions in self._subscribers.values())

    def subscribers(self, uri: str) -> list[Any]:
        with self._lock:
            return list(self._subscribers.get(uri, ()))  # RES-13: exactly this URI's subscribers

    def forget_session(self, session: Any) -> None:
        """Drop every subscription of a session that ended, and the URIs nobody else watches."""
        with self._lock:  # RES-13: a session that ended is told nothing more
            for uri, sessions in list(self._subscribers.items()):
                sessions.discard(session)
                if not sessions:
                    del self._subscribers[uri]


MAX_URI_LENGTH = 8192  # characters; longer URIs are refused before any handler sees them


def _uri_param(params: dict[str, Any]) -> str:
    """The request's ``uri``: a non-empty string of at most ``MAX_URI_LENGTH`` characters with no
    NUL (raw or as ``%00``), which no file name or resource key can hold; else -32602."""
    uri: str = messages.param(params, "uri", "string")
    problem = None
    if not uri:
        problem = "is empty"
    elif len(uri) > MAX_URI_LENGTH:
        problem = f"is longer than {MAX_URI_LENGTH} characters"
    elif "\0" in urllib.parse.unquote(uri):
        problem = "holds a NUL character"
    if problem:
        raise InvalidParams(f'Invalid params: "uri" {problem}', {"field": "uri"})
    return uri
