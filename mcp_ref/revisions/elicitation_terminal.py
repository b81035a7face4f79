"""An elicitation handler that asks a person at a terminal: ``ask_in_terminal``.

Spec page: client/elicitation
https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#user-interaction-model
A host's side of that page, for scripts and teaching.

In short:

1. ``Client.stdio([...], elicitation_handler=ask_in_terminal)`` (add ``elicitation_url=True`` for URL
   mode): each question of the server is written on stderr, each answer read from stdin, one
   question at a time even when several come at once.
2. Form mode: the person first chooses to answer, decline or cancel. Then each field is asked
   with its title (or name), description, choices (numbered) and default; the typed text becomes
   the field's kind (an integer, a number, yes/no for a boolean, numbers or values separated by
   commas for a multiple choice) and is checked against the field's limits, and asked again
   when it does not fit. An empty line takes the default, or leaves an optional field out.
   Before anything is sent the answers are shown, to send, edit, decline or cancel.
3. URL mode: the whole URL is shown with its host set apart (and a warning for a host in
   punycode); the person says whether they will open it. This helper never opens it.
4. End of input (Ctrl-D) at any point cancels.
5. Whatever the server wrote (its message, the URL and its host, the fields' names, titles,
   descriptions and choices, what its schema says of a wrong answer) reaches the terminal
   through ``shown``: a control character (ESC, CR, BEL, NUL...) or a bidi override (U+202E)
   there could rewrite the screen, make one URL look like another or hide a choice, so each is
   written as its escape (``\x1b``, ``\r``, ``\u202e``) instead. Values (a default, an answer)
   are shown as Python writes them (``repr``), which escapes the same characters.

``server=`` names the server in the header (``functools.partial(ask_in_terminal, server="notes")``),
so the person knows who asks; ``stdin=`` and ``stderr=`` replace the terminal (tests give files).
"""

from __future__ import annotations

import math
import sys
import threading
import unicodedata
import urllib.parse
from typing import Any, TextIO

from ..messages import printable
from .elicitation_schema import value_problem

_one_at_a_time = threading.Lock()  # one question on the terminal at once: the client's threads may ask together


def shown(text: Any) -> str:
    """``text`` from the server as it may reach a terminal (item 5): ``messages.printable`` spells
    what has no UTF-8 form (a lone surrogate) as its escape, and here every other character that a
    terminal would not show as itself does the same: controls and format characters (categories C*,
    the bidi overrides among them) and the line and paragraph separators."""
    return "".join(char.encode("unicode_escape").decode("ascii")
                   if unicodedata.category(char)[0] == "C" or unicodedata.category(char) in ("Zl", "Zp") else char
                   for char in printable(str(text)))


class _Cancelled(Exception):
    """End of input: the person dismissed the question."""


class _Terminal:
    def __init__(self, stdin: TextIO, stderr: TextIO):
        self.stdin, self.stderr = stdin, stderr

    def say(self, text: str) -> None:
        self.stderr.write(text + "\n")
        self.stderr.flush()

    def ask(self, prompt: str) -> str:
        self.stderr.write(prompt)
        self.stderr.flush()
        line = self.stdin.readline()
        if not line:  # item 4: end of input cancels
            raise _Cancelled
        return line.strip()

    def choose(self, prompt: str, answers: dict[str, str]) -> str:
        while True:
            said = self.ask(prompt).lower()
            if said[:1] in answers:
                return answers[said[:1]]
            self.say(f"  please answer one of: {', '.join(answers)}")


def ask_in_terminal(params: dict[str, Any], *, server: str | None = None, stdin: TextIO | None = None,
                    stderr: TextIO | None = None) -> dict[str, Any]:
    """An elicitation handler: ask the person at this terminal (items 1 to 4 above)."""
    terminal = _Terminal(stdin or sys.stdin, stderr or sys.stderr)
    with _one_at_a_time:
        terminal.say(f"\n== {f'The server {server!r}' if server else 'The server'} asks: {shown(params.get('message', ''))}")
        try:
            if params.get("mode") == "url":
                return _url(terminal, params["url"])
            return _form(terminal, params["requestedSchema"])
        except _Cancelled:
            terminal.say("  (cancelled)")
            return {"action": "cancel"}


def _url(terminal: _Terminal, url: str) -> dict[str, Any]:
    host = urllib.parse.urlsplit(url).hostname or ""
    terminal.say(f"  It asks you to open this URL:\n    {shown(url)}\n  on the host: {shown(host.upper())}")
    if "xn--" in host or not host.isascii():  # item 3: a look-alike host is worth a second look
        terminal.say("  WARNING: the host is written in punycode or non-ASCII letters; it may imitate another.")
    action = terminal.choose("Will you open it (this program will not)? [y]es, [n]o, [c]ancel: ",
                             {"y": "accept", "n": "decline", "c": "cancel"})
    return {"action": action}


def _form(terminal: _Terminal, schema: dict[str, Any]) -> dict[str, Any]:
    action = terminal.choose("Answer? [y]es, [n]o (decline), [c]ancel: ", {"y": "accept", "n": "decline", "c": "cancel"})
    if action != "accept":
        return {"action": action}
    required = set(schema.get("required", []))
    content: dict[str, Any] = {}
    while True:
        for name, prop in schema["properties"].items():
            value = _field(terminal, name, prop, name in required, content.get(name, prop.get("default")))
            if value is None:
                content.pop(name, None)
            else:
                content[name] = value
        terminal.say("  Your answers:\n" + "".join(f"    {shown(name)}: {value!r}\n" for name, value in content.items()))
        action = terminal.choose("Send them? [y]es, [e]dit, [n]o (decline), [c]ancel: ",
                                 {"y": "accept", "e": "edit", "n": "decline", "c": "cancel"})
        if action != "edit":
            return {"action": action, "content": content} if action == "accept" else {"action": action}


def _choices(prop: dict[str, Any]) -> list[tuple[str, str]] | None:
    """(value, label) of each choice of an enum property, or None."""
    source = prop.get("items", prop)
    if "enum" in source:
        names = prop.get("enumNames")  # display names, in 2025-06-18's form; used if there is one for each
        names = names if isinstance(names, list) and len(names) == len(source["enum"]) else source["enum"]
        return list(zip(source["enum"], [str(name) for name in names], strict=True))
    titled = source.get("oneOf", source.get("anyOf"))
    return [(choice["const"], choice["title"]) for choice in titled] if titled else None


def _field(terminal: _Terminal, name: str, prop: dict[str, Any], required: bool, default: Any) -> Any:
    """Ask one field until the answer fits (None: left out)."""
    label = shown(prop.get("title") or name)
    about = f": {shown(prop['description'])}" if prop.get("description") else ""
    terminal.say(f"  {label}{'' if required else ' (optional)'}{about}")
    choices = _choices(prop)
    for number, (value, title) in enumerate(choices or [], start=1):
        terminal.say(f"    {number}) {shown(title)}" + (f" [{shown(value)}]" if title != value else ""))
    hint = {"boolean": " (yes/no)", "array": " (numbers or values, comma-separated)"}.get(prop["type"], "")
    while True:
        text = terminal.ask(f"  {label}{hint}{f' [{default!r}]' if default is not None else ''}: ")
        if not text and default is not None:
            return default
        if not text and not required:
            return None
        try:
            value = _convert(text, prop, choices)
        except ValueError as exc:
            terminal.say(f"    {shown(exc)}")
            continue
        problem = value_problem(value, prop)
        if problem is None:
            return value
        terminal.say(f"    {shown(problem)}")


def _convert(text: str, prop: dict[str, Any], choices: list[tuple[str, str]] | None) -> Any:
    """The typed ``text`` as a value of the property's kind; ValueError saying what was expected."""
    kind = prop["type"]
    if choices is not None:
        picked = [_pick(part.strip(), choices) for part in (text.split(",") if kind == "array" else [text])]
        return picked if kind == "array" else picked[0]
    if kind == "boolean":
        if text.lower() in ("y", "yes", "true", "1"):
            return True
        if text.lower() in ("n", "no", "false", "0"):
            return False
        raise ValueError("answer yes or no")
    if kind == "integer":
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{text!r} is not a whole number") from None
    if kind == "number":
        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"{text!r} is not a number") from None
        if not math.isfinite(number):  # JSON has no infinity nor NaN
            raise ValueError(f"{text!r} is not a finite number")
        return int(number) if number.is_integer() and "." not in text else number
    return text


def _pick(text: str, choices: list[tuple[str, str]]) -> str:
    if text.isdigit() and 1 <= int(text) <= len(choices):
        return choices[int(text) - 1][0]
    for value, shown in choices:
        if text in (value, shown):
            return value
    raise ValueError(f"{text!r} is not one of the choices: give its number or its value")
