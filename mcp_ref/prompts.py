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
from the function's signature. Client side: ``list_prompts`` and ``get_prompt_params``.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from typing import Any

from . import content, pagination
from .jsonrpc import InvalidParams
from .tools import context_parameter_name

ROLES = ("user", "assistant")


def arguments_from_signature(fn: Callable[..., Any]) -> list[dict[str, Any]]:
    """One argument per parameter (except the context); required when it has no default."""
    context = context_parameter_name(fn)  # every other argument is a string on the wire
    arguments = []
    for parameter in inspect.signature(fn).parameters.values():
        if parameter.name == context or parameter.kind in (
                inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            continue
        arguments.append({"name": parameter.name, "required": parameter.default is inspect.Parameter.empty})
    return arguments


class Prompt:
    def __init__(self, fn: Callable[..., Any], name: str, description: str | None, arguments: list[dict[str, Any]]):
        self.fn = fn
        self.name = name
        self.description = description
        self.arguments = arguments
        self.context_parameter = context_parameter_name(fn)
        self.accepts_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in inspect.signature(fn).parameters.values())

    def to_wire(self) -> dict[str, Any]:
        prompt: dict[str, Any] = {"name": self.name}
        if self.description:
            prompt["description"] = self.description
        if self.arguments:
            prompt["arguments"] = self.arguments
        return prompt

    def check_arguments(self, arguments: dict[str, Any]) -> None:
        """PRM-08, PRM-10: every required argument present, every value a string, no strangers."""
        known = {a["name"] for a in self.arguments}
        missing = [a["name"] for a in self.arguments if a.get("required") and a["name"] not in arguments]
        if missing:
            raise InvalidParams(f"Missing required argument(s) for prompt {self.name!r}: {', '.join(missing)}",
                                {"prompt": self.name, "missing": missing})
        for key, value in arguments.items():
            if not isinstance(value, str):
                raise InvalidParams(f"Argument {key!r} of prompt {self.name!r} must be a string")
            if key not in known and not self.accepts_any:
                raise InvalidParams(f"Unknown argument {key!r} for prompt {self.name!r}; it takes: "
                                    f"{', '.join(sorted(known)) or 'no arguments'}")


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
            arguments: list[dict[str, Any]] | None = None) -> Prompt:
        prompt = Prompt(fn, name or fn.__name__, description if description is not None else inspect.getdoc(fn),
                        arguments if arguments is not None else arguments_from_signature(fn))
        with self._lock:
            self._prompts[prompt.name] = prompt
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
        prompt.check_arguments(arguments)
        kwargs: dict[str, Any] = dict(arguments)
        if prompt.context_parameter:
            kwargs[prompt.context_parameter] = ctx
        value = prompt.fn(**kwargs)  # an exception here becomes -32603 (PRM-09)
        result = value if isinstance(value, dict) and "messages" in value else {"messages": to_messages(value)}
        if prompt.description and "description" not in result:
            result = {"description": prompt.description, **result}
        return result


def to_messages(value: Any) -> list[dict[str, Any]]:
    """A prompt function's return value -> ``PromptMessage`` items.

    A str is one user message; a dict with ``role`` is one message (its ``content`` may be a
    plain string); a list is converted item by item.
    """
    if isinstance(value, str):
        return [{"role": "user", "content": content.text(value)}]
    if isinstance(value, dict) and "role" in value:
        if value["role"] not in ROLES:
            raise ValueError(f"prompt message role must be 'user' or 'assistant', not {value['role']!r}")
        body = value.get("content")
        return [{**value, "content": content.text(body) if isinstance(body, str) else body}]
    if isinstance(value, (list, tuple)):
        return [message for item in value for message in to_messages(item)]
    raise TypeError(f"a prompt must return a str, a message dict or a list of them, not {type(value).__name__}")


def get_prompt_params(name: str, arguments: dict[str, str] | None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return params
