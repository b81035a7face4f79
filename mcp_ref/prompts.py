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
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import pagination
from .functions.registry import Registered, Registry, close_matches, did_you_mean
from .lifecycle import since
from .messages import InternalError, InvalidParams

# The Python side (signatures.py, hints.py, returns.py: type hints in, return values out) is
# imported where a function is registered, not at the top: it needs inspect,
# dataclasses and more, which `import mcp_ref` and a program that only uses the client skip.
if TYPE_CHECKING:
    from .functions.signatures import Signature

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


class Prompt(Registered):
    """One registered prompt: its wire description and the function behind it."""

    def __init__(self, fn: Callable[..., Any], name: str, description: str | None,
                 arguments: list[dict[str, Any]] | None = None, **later: Any):
        from .functions.returns import prompt_result

        super().__init__(fn, f"prompt {name!r}", description, label=f"prompt {name}", **later)
        self.name = name
        self.read_arguments = self.reader(self.signature.string_reader(), lambda exc: InvalidParams(
            # PRM-10: "abc" for an int, "purple" for an Enum...
            f"Invalid argument {exc.field!r} for prompt {name!r}: {exc.problem}",
            {"prompt": name, "field": exc.field, "problem": exc.problem}))
        self.result = self.converter(prompt_result, self._cannot_send)  # the conversion table of returns.py
        self.arguments = arguments if arguments is not None else arguments_from_signature(self.signature)
        self.accepts_any = self.signature.takes_kwargs
        if arguments is not None:
            _check_explicit_arguments(self.signature, arguments, name)

    def _cannot_send(self, kind: str, problem: Exception) -> dict[str, Any]:
        # PRM-09: the server's fault, said plainly
        raise InternalError(f"Prompt {self.name!r} returned a {kind}, which cannot be sent as prompt messages: {problem}")

    def to_wire(self, version: str | None = None) -> dict[str, Any]:
        """The prompt in ``prompts/list``, with the fields of later revisions a session of ``version`` has."""
        prompt: dict[str, Any] = {"name": self.name}
        if self.description:
            prompt["description"] = self.description
        if self.arguments:  # an argument's title: revisions/v2025_06_18.py, item 4
            titled = since(version, "2025-06-18")
            prompt["arguments"] = [a if titled else {k: v for k, v in a.items() if k != "title"} for a in self.arguments]
        return prompt | self.later_fields(version)

    def check_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """PRM-08, PRM-10: every required argument present, every value a string, no strangers;
        returns them converted to the types the function's hints ask for."""
        known = {a["name"] for a in self.arguments}
        missing = [a["name"] for a in self.arguments if a.get("required") and a["name"] not in arguments]
        if missing:  # PRM-08, PRM-14: a call without a required argument is refused
            raise InvalidParams(f"Missing required argument(s) for prompt {self.name!r}: {', '.join(missing)}",
                                {"prompt": self.name, "missing": missing, "field": missing[0]})
        for key, value in arguments.items():  # PRM-10, PRM-13: strings, for known arguments only
            if not isinstance(value, str):
                raise InvalidParams(f"Argument {key!r} of prompt {self.name!r} must be a string", {"field": key})
            if key not in known and not self.accepts_any:
                raise InvalidParams(f"Unknown argument {key!r} for prompt {self.name!r}; it takes: "
                                    f"{', '.join(sorted(known)) or 'no arguments'}"
                                    f"{did_you_mean(close_matches(key, known))}", {"field": key})
        return self.read_arguments(arguments)


def _check_explicit_arguments(signature: Signature, arguments: list[dict[str, Any]], name: str) -> None:
    """Arguments given by hand must be well formed and fit the function they are passed to."""
    for argument in arguments:
        if not isinstance(argument, dict) or not isinstance(argument.get("name"), str) \
                or not isinstance(argument.get("required", False), bool) \
                or not all(isinstance(argument.get(key, ""), str) for key in ("title", "description")):
            raise TypeError(f"prompt {name!r}: each argument must be a dict with a str 'name', an optional bool "
                            f"'required' and optional str 'title' and 'description', not {argument!r}")
    names = {a["name"] for a in arguments}
    parameters = {p.name for p in signature.parameters}
    strangers = sorted(names - parameters) if not signature.takes_kwargs else []
    needed = sorted(p.name for p in signature.parameters if p.required and p.name not in names)
    if strangers:
        raise TypeError(f"prompt {name!r}: the function has no parameter for argument(s) {', '.join(strangers)}")
    if needed:
        raise TypeError(f"prompt {name!r}: the function requires {', '.join(needed)}, which no argument passes")



class PromptRegistry(Registry[Prompt]):
    """The prompts a server offers. ``on_change`` is called after every add or remove."""

    def __init__(self, on_change: Callable[[], None]):
        super().__init__("prompt", on_change)

    def add(self, fn: Callable[..., Any], name: str | None = None, description: str | None = None,
            arguments: list[dict[str, Any]] | None = None, *, replace: bool = False, **later: Any) -> Prompt:
        """Register ``fn`` as a prompt. A name already taken is an error unless ``replace=True``.
        ``later``: ``title``, ``icons``, ``meta`` (see ``Server.prompt``)."""
        name = name if name is not None else getattr(fn, "__name__", None)
        if not isinstance(name, str) or not name:
            raise TypeError("a prompt needs a name: pass name='...'")
        return self.put(name, Prompt(fn, name, description, arguments, **later), replace=replace)  # PRM-02: list_changed

    def page(self, params: dict[str, Any], page_size: int | None, version: str | None = None) -> dict[str, Any]:
        """``prompts/list``: one page of prompts, as a session of ``version`` sees them."""
        return pagination.list_result(self.items(), lambda p: p.name, "prompts", params, page_size, version)

    def get(self, ctx: Any, params: dict[str, Any]) -> dict[str, Any]:
        """``prompts/get``: check the arguments, call the function, shape the messages."""
        name = params.get("name")
        prompt = self.lookup(name)
        if prompt is None:  # PRM-07
            suggestions = self.suggest(name)
            raise InvalidParams(f"Unknown prompt: {name!r}{did_you_mean(suggestions)}",
                                {"prompt": name, "suggestions": suggestions})
        arguments = params.get("arguments") or {}
        if not isinstance(arguments, dict):
            raise InvalidParams('Invalid params: "arguments" must be an object of strings')
        kwargs = prompt.check_arguments(arguments)  # PRM-08, PRM-10
        value = prompt.call(ctx, kwargs)  # an exception in the function becomes -32603 (PRM-09)
        version = ctx.session.lifecycle.protocol_version if ctx is not None else None  # None: no session, every kind
        result = prompt.result(value, version)  # stand-ins for an older session (returns.py)
        if prompt.description and "description" not in result:
            result = {"description": prompt.description, **result}
        return result


def get_prompt_params(name: str, arguments: dict[str, str] | None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return params
