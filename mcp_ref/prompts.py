"""Prompts: message templates a server offers for the user to pick and fill in.

Spec page: server/prompts
https://modelcontextprotocol.io/specification/2024-11-05/server/prompts

In short:

1. A server with prompts declares the ``prompts`` capability, with ``listChanged`` when it
   will say that the list changed (PRM-01, PRM-02).
2. ``prompts/list`` (paginated) gives each prompt's ``name``, ``description`` and
   ``arguments``: each with a ``name``, a ``description`` and whether it is ``required``.
3. ``prompts/get`` with ``name`` and ``arguments`` (a map of strings) returns ``messages``:
   each has a ``role`` (``user`` or ``assistant``) and one content item: text, image
   (base64 + MIME type, PRM-03) or an embedded resource (PRM-04..06).
4. An unknown prompt or a missing required argument is -32602 (PRM-07, PRM-08); a failure
   while building the messages is -32603 (PRM-09). Arguments are checked first (PRM-10).

Server side: ``PromptRegistry`` (used by ``@server.prompt``), with the argument list derived
from the function's signature (descriptions from ``Annotated`` hints or the docstring, and
string arguments converted for int, Enum, date... hints: hints.py). What the function returns
becomes messages by the table in returns.py. Client side: ``list_prompts`` and
``get_prompt_params``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import pagination
from .messages import InternalError, InvalidParams

# The Python side (signatures.py, hints.py, returns.py: type hints in, return values out) is
# imported where a function is registered, not at the top: it needs inspect,
# dataclasses and more, which `import mcp_ref` and a program that only uses the client skip.
if TYPE_CHECKING:
    from .python.signatures import Signature

log = logging.getLogger("mcp_ref.prompts")


def arguments_from_signature(signature: Signature) -> list[dict[str, Any]]:
    """One argument per parameter (except the context); required when it has no default."""
    arguments = []
    for parameter in signature.parameters:  # every one a string on the wire
        argument: dict[str, Any] = {"name": parameter.name}
        if parameter.description:
            argument["description"] = parameter.description
        argument["required"] = parameter.required
        arguments.append(argument)
    return arguments


class Prompt:
    def __init__(self, fn: Callable[..., Any], name: str, description: str | None,
                 arguments: list[dict[str, Any]] | None = None):
        self.fn = fn
        self.name = name
        from .python.hints import ArgumentError
        from .python.returns import UnsupportedReturn, prompt_result
        from .python.signatures import Signature

        signature = Signature(fn, f"prompt {name!r}")  # refuses async functions and unusable hints
        self.description = description if description is not None else signature.doc
        read = signature.string_reader()

        # The prompt's two conversions (hints.py, returns.py), made here once, so a call imports nothing.
        def read_arguments(arguments: dict[str, str]) -> dict[str, Any]:
            try:
                return read(arguments)
            except ArgumentError as exc:  # PRM-10: "abc" for an int, "purple" for an Enum...
                raise InvalidParams(f"Invalid argument {exc.field!r} for prompt {name!r}: {exc.problem}",
                                    {"prompt": name, "field": exc.field, "problem": exc.problem}) from None

        def result(value: Any) -> dict[str, Any]:
            try:
                return prompt_result(value)  # the conversion table of returns.py
            except UnsupportedReturn as exc:  # PRM-09: the server's fault, said plainly
                log.warning("prompt %s returned a %s that cannot be sent: %s", name, type(value).__name__, exc)
                raise InternalError(f"Prompt {name!r} returned a {type(value).__name__}, which cannot be "
                                    f"sent as prompt messages: {exc}") from None

        self.read_arguments = read_arguments
        self.result = result
        self.arguments = arguments if arguments is not None else arguments_from_signature(signature)
        self.context_parameter = signature.context
        self.accepts_any = signature.takes_kwargs
        if arguments is not None:
            _check_explicit_arguments(signature, arguments, name)

    def to_wire(self) -> dict[str, Any]:
        prompt: dict[str, Any] = {"name": self.name}
        if self.description:
            prompt["description"] = self.description
        if self.arguments:
            prompt["arguments"] = self.arguments
        return prompt

    def check_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """PRM-08, PRM-10: every required argument present, every value a string, no strangers;
        returns them converted to the types the function's hints ask for."""
        known = {a["name"] for a in self.arguments}
        missing = [a["name"] for a in self.arguments if a.get("required") and a["name"] not in arguments]
        if missing:  # PRM-08, PRM-14: a call without a required argument is refused
            raise InvalidParams(f"Missing required argument(s) for prompt {self.name!r}: {', '.join(missing)}",
                                {"prompt": self.name, "missing": missing})
        for key, value in arguments.items():  # PRM-10, PRM-13: strings, for known arguments only
            if not isinstance(value, str):
                raise InvalidParams(f"Argument {key!r} of prompt {self.name!r} must be a string")
            if key not in known and not self.accepts_any:
                raise InvalidParams(f"Unknown argument {key!r} for prompt {self.name!r}; it takes: "
                                    f"{', '.join(sorted(known)) or 'no arguments'}")
        return self.read_arguments(arguments)


def _check_explicit_arguments(signature: Signature, arguments: list[dict[str, Any]], name: str) -> None:
    """Arguments given by hand must be well formed and fit the function they are passed to."""
    for argument in arguments:
        if not isinstance(argument, dict) or not isinstance(argument.get("name"), str) \
                or not isinstance(argument.get("required", False), bool):
            raise TypeError(f"prompt {name!r}: each argument must be a dict with a str 'name' and an "
                            f"optional bool 'required', not {argument!r}")
    names = {a["name"] for a in arguments}
    parameters = {p.name for p in signature.parameters}
    strangers = sorted(names - parameters) if not signature.takes_kwargs else []
    needed = sorted(p.name for p in signature.parameters if p.required and p.name not in names)
    if strangers:
        raise TypeError(f"prompt {name!r}: the function has no parameter for argument(s) {', '.join(strangers)}")
    if needed:
        raise TypeError(f"prompt {name!r}: the function requires {', '.join(needed)}, which no argument passes")



class PromptRegistry:
    """The prompts a server offers. ``on_change`` is called after every add or remove."""

    def __init__(self, on_change: Callable[[], None]):
        self._prompts: dict[str, Prompt] = {}
        self._lock = threading.Lock()
        self._on_change = on_change

    def __bool__(self) -> bool:
        return bool(self._prompts)

    def __contains__(self, name: object) -> bool:
        return name in self._prompts

    def add(self, fn: Callable[..., Any], name: str | None = None, description: str | None = None,
            arguments: list[dict[str, Any]] | None = None, *, replace: bool = False) -> Prompt:
        """Register ``fn`` as a prompt. A name already taken is an error unless ``replace=True``."""
        name = name if name is not None else getattr(fn, "__name__", None)
        if not isinstance(name, str) or not name:
            raise TypeError("a prompt needs a name: pass name='...'")
        prompt = Prompt(fn, name, description, arguments)
        with self._lock:
            if name in self._prompts and not replace:
                raise ValueError(f"a prompt named {name!r} is already registered; choose another name, "
                                 "or pass replace=True to replace it")
            self._prompts[name] = prompt
        self._on_change()  # PRM-02
        return prompt

    def remove(self, name: str) -> None:
        with self._lock:
            if self._prompts.pop(name, None) is None:
                raise KeyError(f"no prompt named {name!r}")
        self._on_change()

    def page(self, params: dict[str, Any], page_size: int | None) -> dict[str, Any]:
        with self._lock:
            prompts = list(self._prompts.values())
        return pagination.list_result(prompts, lambda p: p.name, "prompts", params, page_size)

    def get(self, ctx: Any, params: dict[str, Any]) -> dict[str, Any]:
        """``prompts/get``: check the arguments, call the function, shape the messages."""
        name = params.get("name")
        with self._lock:
            prompt = self._prompts.get(name) if isinstance(name, str) else None
        if prompt is None:  # PRM-07
            raise InvalidParams(f"Unknown prompt: {name!r}", {"prompt": name})
        arguments = params.get("arguments") or {}
        if not isinstance(arguments, dict):
            raise InvalidParams('Invalid params: "arguments" must be an object of strings')
        kwargs = prompt.check_arguments(arguments)  # PRM-08, PRM-10
        if prompt.context_parameter:
            kwargs[prompt.context_parameter] = ctx
        result = prompt.result(prompt.fn(**kwargs))  # an exception in the function becomes -32603 (PRM-09)
        if prompt.description and "description" not in result:
            result = {"description": prompt.description, **result}
        return result


def get_prompt_params(name: str, arguments: dict[str, str] | None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return params
