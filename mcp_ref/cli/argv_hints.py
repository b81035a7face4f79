"""What to write instead, when a command line is nearly right.

Not a spec section: part of the command line (cli.py). argparse knows only that some arguments
were not its own ("unrecognized arguments"); the usual reason is a command line handed to
``mcp-ref`` inside its own:

1. ``mcp-ref check client CMD ARGS`` without ``--`` in front of the client's command: the
   client's options (``--stdio {server}``) are read as check's. The same for ``mcp-ref config
   NAME CMD ARGS`` and the server's command.
2. ``--stdio python server.py``: the server's command split into several arguments, where
   ``--stdio`` takes one, in quotes (``--stdio "python server.py"``). What is left over is
   unrecognized, or, for ``request``, taken for METHOD and PARAMS_JSON.

A hint is why, then the whole command line as it should be, on a line of its own to copy; it is
given only when that line parses cleanly (tried here, on a parser of the same build that raises
instead of printing and exiting), so a hint never sends anyone to a line that fails as well.
Otherwise the usual message stands, under the usage of the command that was meant rather than
the top-level one.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
from collections.abc import Callable
from typing import Any, NoReturn

# A parser of the command line, made with the given class for it and its subcommands.
Build = Callable[[type[argparse.ArgumentParser]], argparse.ArgumentParser]

# The commands whose line ends with another program's command line, after ``--``.
COMMAND_AFTER_DASHES = {("check", "client"): "the client's command", ("config",): "the server's command"}


class _Refused(Exception):
    """The line does not parse (raised by ``_TryingParser`` where argparse would exit); ``error``
    is False for a clean exit (``--help``, ``--version``)."""

    def __init__(self, message: str, *, error: bool) -> None:
        super().__init__(message)
        self.error = error


class _TryingParser(argparse.ArgumentParser):
    """A parser that says nothing and raises ``_Refused`` rather than exiting: for trying lines."""

    def error(self, message: str) -> NoReturn:
        raise _Refused(message, error=True)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        raise _Refused(message or "", error=False)

    def _print_message(self, message: str, file: Any = None) -> None:
        pass


def split_server_command(argv: list[str]) -> tuple[list[str], list[str]]:
    """``config``'s line: what argparse reads, and the server's command after ``--``."""
    if argv[:1] == ["config"] and "--" in argv:
        cut = argv.index("--")
        return argv[:cut], argv[cut + 1:]
    return argv, []


def parse_command_line(build: Build, argv: list[str]) -> argparse.Namespace:
    """Parse ``argv`` as ``build`` says. A line that does not parse (arguments left over, or an
    option of ours given another program's word as its value) exits 2 under the usage of the
    command meant, with the line to write instead when one is sure (the module docstring)."""
    line, server_command = split_server_command(argv)
    parser = build(argparse.ArgumentParser)
    parsed: argparse.Namespace | None = None
    try:
        parsed, extras = build(_TryingParser).parse_known_args(line)
        problem = f"unrecognized arguments: {' '.join(extras)}" if extras else None
    except _Refused as refused:
        if not refused.error:
            parser.parse_args(line)  # --help, --version: shown, and the exit, as argparse does them
        problem, extras = str(refused), []
    path, chosen, last = chosen_command(parser, line)
    if problem is not None or parsed is None:
        hint = _after_dashes(build, argv, path, last) or _quoted_stdio(build, argv, request=path == ("request",))
        if hint is None and not extras:
            parser.parse_args(line)  # argparse's own message and exit, as without us
        why, corrected = hint or ("", "")
        chosen.error(f"{problem}" + (f"\n{why}:\n  {corrected}" if hint else ""))
    args = parsed
    if hasattr(args, "server_command"):
        args.server_command = server_command
    if path == ("request",) and args.params is not None and not _json_object(args.params):
        hint = _quoted_stdio(build, argv, request=True)
        args.corrected = f"{hint[0]}: {hint[1]}" if hint else None
    return args


def chosen_command(parser: argparse.ArgumentParser, argv: list[str]) -> tuple[tuple[str, ...], argparse.ArgumentParser, int]:
    """The (sub)command ``argv`` names, its parser, and the index of its last word in ``argv``:
    ``(("check", "client"), <check client's parser>, 1)`` for ``check client ...``. (Read from the
    words, not from the parsed namespace: ``check client``'s CMD is stored where the name of the
    command is.)"""
    path: list[str] = []
    last = -1
    while True:
        commands = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
        if commands is None:
            break
        found = next((i for i in range(last + 1, len(argv)) if argv[i] in commands.choices), None)
        if found is None or any(not word.startswith("-") for word in argv[last + 1:found]):
            break  # no subcommand, or one given after some other positional argument
        path.append(argv[found])
        parser, last = commands.choices[argv[found]], found
    return tuple(path), parser, last


def _tried(build: Build, argv: list[str]) -> tuple[argparse.Namespace, list[str]] | None:
    """``argv`` parsed in full (the parsed line and ``config``'s server command), or None."""
    line, server_command = split_server_command(argv)
    try:
        args = build(_TryingParser).parse_args(line)
    except _Refused:
        return None
    return args, server_command


def _shown(argv: list[str]) -> str:
    """The line as a shell takes it back: quoted where needed (``{server}`` needs no quotes)."""
    return " ".join(word if _SAFE.fullmatch(word) else shlex.quote(word) for word in ["mcp-ref", *argv])


_SAFE = re.compile(r"[\w@%+=:,./{}-]+")


def _after_dashes(build: Build, argv: list[str], path: tuple[str, ...], last: int) -> tuple[str, str] | None:
    """Point 1: the line with ``--`` in front of the other program's command, if that parses."""
    what = COMMAND_AFTER_DASHES.get(path)
    if what is None or "--" in argv:
        return None
    for start in range(last + 1, len(argv)):
        if argv[start].startswith("-"):
            continue
        corrected = [*argv[:start], "--", *argv[start:]]
        tried = _tried(build, corrected)
        if tried is None:
            continue
        parsed, server_command = tried
        if argv[start:] in (getattr(parsed, "command", None), server_command):
            return f"{what} goes after --, so that its own options are not read as mcp-ref's", _shown(corrected)
    return None


def _quoted_stdio(build: Build, argv: list[str], *, request: bool = False) -> tuple[str, str] | None:
    """Point 2: the line with ``--stdio``'s one-word value joined with the arguments after it (as
    few as parse), if that parses; for ``request``, only if METHOD then looks like a method and
    PARAMS_JSON, if given, is a JSON object."""
    if "--stdio" not in argv[:-1]:
        return None
    at = argv.index("--stdio") + 1
    if len(argv[at].split()) != 1:  # already a whole command, in quotes
        return None
    for end in range(at + 2, len(argv) + 1):
        corrected = [*argv[:at], " ".join(argv[at:end]), *argv[end:]]
        tried = _tried(build, corrected)
        if tried is None:
            continue
        parsed = tried[0]
        if request and not (_method_like(parsed.method) and (parsed.params is None or _json_object(parsed.params))):
            continue
        return "--stdio takes the server's whole command as one argument, in quotes", _shown(corrected)
    return None


def _method_like(method: str) -> bool:
    return "/" in method or method == "ping"


def _json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False
