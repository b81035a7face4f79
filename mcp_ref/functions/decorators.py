"""The decorators through which a server's author registers Python functions: ``@server.tool``,
``@server.resource``, ``@server.resource_template``, ``@server.prompt``, ``@server.completion``.

Not a spec section: the Python face of the registries of server/tools, server/resources,
server/prompts and server/utilities/completion (tools.py, resources.py, prompts.py,
completion.py). ``Server`` inherits them (server.py); each hands the function, with what the
decorator was told, to the registry, which checks it at once (signatures.py, hints.py,
registry.py: a registration the library cannot honour is an error here, never at the first
call). The later revisions' fields (``title``, ``annotations``, ``output_schema``, ``icons``,
``meta``) are taken here and sent only to clients of the revision that has them (registry.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class Decorators:
    """The registering half of ``Server``: its ``tools``, ``resources``, ``prompts`` and
    ``completions`` registries are made by ``Server.__init__``."""

    tools: Any
    resources: Any
    prompts: Any
    completions: Any
    _roots_callbacks: list[Callable[..., None]]

    def tool(self, name: str | None = None, description: str | None = None,
             input_schema: dict[str, Any] | None = None, *, title: str | None = None,
             annotations: dict[str, Any] | None = None, output_schema: dict[str, Any] | None = None,
             icons: list[dict[str, Any]] | None = None, meta: dict[str, Any] | None = None,
             replace: bool = False) -> Callable[[F], F]:
        """Decorator: register a tool. Name and description default to the function's name and
        docstring; the input schema to one derived from its type hints (hints.py). A parameter
        named ``ctx`` receives the request context. The return value becomes content by the
        table in returns.py. A name already registered is an error unless ``replace=True``.
        (``@server.tool`` without parentheses works too.) Later revisions' fields, each sent only
        to a client of that revision or newer, and checked now: ``annotations`` (2025-03-26), a dict
        of the spec's hints (``{"readOnlyHint": True, "destructiveHint": False, "idempotentHint",
        "openWorldHint", "title"}``); ``title`` and ``meta`` (``_meta``, 2025-06-18); ``output_schema``
        (2025-06-18; default: derived from a structured return hint, signatures.py); ``icons``
        (2025-11-25), ``[{"src": "https://...", "mimeType"?, "sizes"?, "theme"?}]``."""
        later = {"title": title, "annotations": annotations, "output_schema": output_schema, "icons": icons, "meta": meta}
        if callable(name):  # used bare: @server.tool
            fn, name = name, None
            self.tools.add(fn)
            return fn

        def register(fn: F) -> F:
            self.tools.add(fn, name, description, input_schema, replace=replace, **later)
            return fn
        return register

    def resource(self, uri: str, name: str | None = None, description: str | None = None,
                 mime_type: str | None = None, *, title: str | None = None, icons: list[dict[str, Any]] | None = None,
                 meta: dict[str, Any] | None = None, replace: bool = False) -> Callable[[F], F]:
        """Decorator: register a resource at ``uri``. The function returns str (text), bytes
        (blob) or data (JSON); see returns.py. A URI already registered is an error unless
        ``replace=True``. ``title``, ``icons``, ``meta``: as for ``tool``."""
        self._refuse_bare("resource", uri)

        def register(fn: F) -> F:
            self.resources.add(fn, uri, name, description, mime_type, replace=replace, title=title, icons=icons, meta=meta)
            return fn
        return register

    def resource_template(self, uri_template: str, name: str | None = None, description: str | None = None,
                          mime_type: str | None = None, *, title: str | None = None,
                          icons: list[dict[str, Any]] | None = None, meta: dict[str, Any] | None = None,
                          replace: bool = False) -> Callable[[F], F]:
        """Decorator: register a URI template such as ``notes://{topic}``; the function gets the
        variables as keyword arguments (converted to its type hints), and must take each of them."""
        self._refuse_bare("resource_template", uri_template)

        def register(fn: F) -> F:
            self.resources.add(fn, uri_template, name, description, mime_type, template=True, replace=replace,
                               title=title, icons=icons, meta=meta)
            return fn
        return register

    @staticmethod
    def _refuse_bare(decorator: str, uri: Any) -> None:
        if callable(uri):  # @server.resource without a URI: the function arrived in its place
            example = "notes://{topic}" if decorator == "resource_template" else "notes://today"
            raise TypeError(f"@server.{decorator} needs a URI: write @server.{decorator}({example!r}) "
                            f"above {getattr(uri, '__name__', 'the function')}")

    def prompt(self, name: str | None = None, description: str | None = None,
               arguments: list[dict[str, Any]] | None = None, *, title: str | None = None,
               icons: list[dict[str, Any]] | None = None, meta: dict[str, Any] | None = None,
               replace: bool = False) -> Callable[[F], F]:
        """Decorator: register a prompt. Arguments default to the function's parameters (required
        when they have no default; an argument given by hand may have a ``title``, 2025-06-18).
        Return a str (one user message) or a list of messages; see returns.py. A name already
        registered is an error unless ``replace=True``. ``title``, ``icons``, ``meta``: as for
        ``tool``. (``@server.prompt`` without parentheses works too.)"""
        if callable(name):  # used bare: @server.prompt
            fn, name = name, None
            self.prompts.add(fn)
            return fn

        def register(fn: F) -> F:
            self.prompts.add(fn, name, description, arguments, replace=replace, title=title, icons=icons, meta=meta)
            return fn
        return register

    def completion(self, ref_type: str, ref: str, argument: str) -> Callable[[F], F]:
        """Decorator: a completer for one argument of a prompt (``"ref/prompt"``, prompt name)
        or one variable of a resource template (``"ref/resource"``, the URI template)."""
        def register(fn: F) -> F:
            self.add_completion(ref_type, ref, argument, fn)
            return fn
        return register

    def add_completion(self, ref_type: str, ref: str, argument: str, completer: Any) -> None:
        """Register a completer function, or a fixed list of values filtered by prefix."""
        if callable(completer):
            from .signatures import refuse_async  # the Python side, loaded on first use

            refuse_async(completer, f"the completer for {argument!r} of {ref!r}")
        self.completions.add(ref_type, ref, argument, completer)

    def on_roots_changed(self, callback: F) -> F:
        """Decorator: ``callback(ctx)`` runs when a client says its roots changed (ROOT-22). It runs
        on another thread of the session, so it may call ``ctx.list_roots()``; ``ctx.session`` is the client."""
        from .signatures import refuse_async  # the Python side, loaded on first use

        refuse_async(callback, "an on_roots_changed callback")
        self._roots_callbacks.append(callback)
        return callback
