"""The shape the registries of tools, prompts and resources share: functions registered by key.

Not a spec section. server/tools, server/prompts and server/resources each let a server offer a
list of things, each backed by a function of the server author's. The three pages differ in what
they list and how they call; how a function is registered, found, called and its return value
converted is the same for all three, and lives here once:

1. ``Registry``: items by key (a tool's or a prompt's name, a resource's URI), in the order they
   were registered. A key already taken is refused unless ``replace=True``; every add or remove
   calls ``on_change`` (the server then tells its clients the list changed). An unknown key gets
   the closest known keys as suggestions, for "did you mean".
2. ``Registered``: one function and what registration learned from it (signatures.py): the
   parameter that takes the request context, the description from the docstring, and the
   refusal, at once, of what cannot be served (an ``async def``, a hint with no JSON Schema).
   ``call`` runs it; a ``reader`` turns the peer's values into the typed ones its hints ask for;
   a ``converter`` puts what it returned through a table of returns.py.
3. What later revisions let a listed item carry beside its 2024-11-05 fields: ``title`` and
   ``_meta`` (2025-06-18), ``icons`` (2025-11-25). ``Registered`` checks them at registration and
   ``later_fields(version)`` gives those the session's revision has, so an older client gets none
   (https://modelcontextprotocol.io/specification/2025-11-25/basic/index#icons).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..lifecycle import since

if TYPE_CHECKING:
    from .convert import ArgumentError
    from .returns import UnsupportedReturn

# signatures.py, hints.py and returns.py need inspect, dataclasses and more: they are imported when
# a function is registered, so that `import mcp_ref` and a program that only uses the client skip them.

log = logging.getLogger("mcp_ref.functions.registry")

T = TypeVar("T")
R = TypeVar("R")


class Registry(Generic[T]):
    """Items by key; ``kind`` names them in messages ("tool", "prompt", "resource")."""

    def __init__(self, kind: str, on_change: Callable[[], None]):
        self.kind = kind
        self._items: dict[str, T] = {}
        self._lock = threading.Lock()
        self._on_change = on_change

    def __bool__(self) -> bool:
        return bool(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def lookup(self, key: object) -> T | None:
        with self._lock:
            return self._items.get(key) if isinstance(key, str) else None

    def keys(self) -> list[str]:
        with self._lock:
            return list(self._items)

    def items(self) -> list[T]:
        """Every item, in the order registered (a copy: the registry may change meanwhile)."""
        with self._lock:
            return list(self._items.values())

    def put(self, key: str, item: T, *, replace: bool = False) -> T:
        with self._lock:
            if key in self._items and not replace:
                raise ValueError(f"a {self.kind} {key!r} is already registered; choose another, "
                                 "or pass replace=True to replace it")
            self._items[key] = item
        self._on_change()
        return item

    def remove(self, key: str) -> None:
        with self._lock:
            if self._items.pop(key, None) is None:
                raise KeyError(f"no {self.kind} {key!r}")
        self._on_change()

    def suggest(self, key: object) -> list[str]:
        """The known keys closest to ``key``, best first (at most three), for an error message."""
        return close_matches(key, self.keys())


def close_matches(key: object, known: Iterable[str]) -> list[str]:
    """The names in ``known`` that look most like ``key``: a typo's likely meaning."""
    if not isinstance(key, str):
        return []
    import difflib  # only on the error path

    return difflib.get_close_matches(key, list(known), n=3, cutoff=0.75)  # a typo, not a shared prefix


def error_text(exc: BaseException) -> str:
    """What an exception raised by an author's function says, as its author wrote it: a KeyError's
    message is not quoted again (``str(KeyError("no item 'x'"))`` quotes it), and one without a
    message is named by its type."""
    if isinstance(exc, KeyError) and len(exc.args) == 1 and isinstance(exc.args[0], str):
        return exc.args[0] or type(exc).__name__
    return str(exc) or type(exc).__name__


def did_you_mean(matches: list[str]) -> str:
    """``"; did you mean 'add'?"`` for the close matches of a name; ``""`` when there are none."""
    return f"; did you mean {' or '.join(repr(m) for m in matches)}?" if matches else ""


class Registered:
    """A function a server author registered, as ``what`` ("tool 'add'") names it in messages to the
    author and ``label`` ("tool add") in the server log."""

    def __init__(self, fn: Callable[..., Any], what: str, description: str | None, *, label: str,
                 title: str | None = None, icons: list[dict[str, Any]] | None = None, meta: dict[str, Any] | None = None):
        from .signatures import Signature

        check_later_fields(what, title, icons, meta)
        self.title, self.icons, self.meta = title, icons, meta
        self.fn, self.what = fn, what
        self.label = label  # how the server log names it: "tool add"
        self.signature = Signature(fn, what)  # refuses async functions and unusable hints, now
        self.description = description if description is not None else self.signature.doc
        self.context_parameter = self.signature.context

    def later_fields(self, version: str | None) -> dict[str, Any]:
        """The fields of later revisions a session of ``version`` gets in a list (none for 2024-11-05)."""
        fields: dict[str, Any] = {}
        if self.title is not None and since(version, "2025-06-18"):  # revisions/v2025_06_18.py, item 4
            fields["title"] = self.title
        if self.icons and since(version, "2025-11-25"):  # revisions/v2025_11_25.py, item 1
            fields["icons"] = self.icons
        if self.meta is not None and since(version, "2025-06-18"):
            fields["_meta"] = self.meta
        return fields

    def call(self, ctx: Any, arguments: dict[str, Any]) -> Any:
        """Run the function with ``arguments`` (already typed), and the context if it takes one."""
        if self.context_parameter:
            arguments[self.context_parameter] = ctx
        return self.fn(**arguments)

    def reader(self, read: Callable[[dict[str, Any]], dict[str, Any]],
               refuse: Callable[[ArgumentError], Exception]) -> Callable[[dict[str, Any]], dict[str, Any]]:
        """A function from the peer's values to the typed values the hints ask for (``read``, made by
        the signature); a value that does not fit is ``refuse``d with the page's own error. Made once,
        at registration, so that a call imports nothing."""
        from .convert import ArgumentError

        def read_values(values: dict[str, Any]) -> dict[str, Any]:
            try:
                return read(values)
            except ArgumentError as exc:  # valid JSON that still does not fit: a bad date, a validator
                raise refuse(exc) from None

        return read_values

    def converter(self, convert: Callable[..., R], fail: Callable[[str, UnsupportedReturn], R]) -> Callable[..., R]:
        """A function from what the function returned to the wire, through ``convert`` (a table of
        returns.py). A value no row converts is the author's bug: it is logged, and ``fail(type name,
        problem)`` says what the peer gets instead (never an invalid message). Made once, too."""
        from .returns import UnsupportedReturn

        def converted(value: Any, *more: Any) -> R:
            try:
                return convert(value, *more)
            except UnsupportedReturn as exc:
                log.warning("%s returned a %s that cannot be sent: %s", self.label, type(value).__name__, exc)
                return fail(type(value).__name__, exc)

        return converted


_ICON_FIELDS = {"src": str, "mimeType": str, "sizes": list, "theme": str}


def check_later_fields(what: str, title: Any, icons: Any, meta: Any) -> None:
    """Refuse, at registration, a ``title`` that is not a str, ``icons`` that are not a list of
    ``{"src": an https: or data: URI, "mimeType"?, "sizes"?: [str], "theme"?: "light"|"dark"}`` (a
    client must reject any other scheme: javascript:, file:, even http:), a ``meta`` that is not
    a JSON object (the spec's ``_meta``). ``Server(icons=)`` is checked here too."""
    import json

    from ..content import is_uri

    if title is not None and not isinstance(title, str):
        raise TypeError(f"{what}: title must be a str, not {type(title).__name__}")
    for icon in icons if isinstance(icons, list) else [None] if icons is not None else []:
        if (not isinstance(icon, dict) or not isinstance(icon.get("src"), str) or icon.get("theme") not in (None, "light", "dark")
                or not is_uri(icon["src"]) or not icon["src"].lower().startswith(("https://", "data:"))  # SCHEMA-13: no other
                or any(k not in _ICON_FIELDS or not isinstance(v, _ICON_FIELDS[k]) for k, v in icon.items())
                or not all(isinstance(size, str) for size in icon.get("sizes", []))):
            raise ValueError(f"{what}: icons must be a list of dicts {{'src': an https: or data: URI, 'mimeType'?: str, "
                             f"'sizes'?: ['48x48', ...], 'theme'?: 'light' or 'dark'}}, not {icons!r}")
    if meta is not None:
        try:
            plain = isinstance(meta, dict) and all(isinstance(k, str) for k in meta) and bool(json.dumps(meta, allow_nan=False))
        except (TypeError, ValueError):
            plain = False
        if not plain:
            raise TypeError(f"{what}: meta must be a dict of JSON values with str keys (it is sent as _meta), not {meta!r}")
