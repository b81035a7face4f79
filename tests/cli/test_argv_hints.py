"""Every command's help against what the command does, and what a command line nearly right is told.

Not a spec page: the ``mcp-ref`` command line (cli/main.py, mcp_ref_check/command.py, argv_hints.py).
The help is read from the argparse structure itself, every (sub)command's one-line summary,
description, usage and option helps, and held to three rules:

1. every flag a help text names is one its command accepts (a text quoting another command,
   ``mcp-ref request --stdio ...``, is held to that command's flags);
2. every transport a help text names (stdio, sse or "HTTP with SSE", http or "Streamable HTTP")
   is one its command takes, as its arguments say (``--transport`` choices, ``--stdio``, ``--sse``
   and ``--http``); and a summary that lists transports lists them all (``serve`` once said
   "stdio or HTTP with SSE", leaving Streamable HTTP out);
3. an option whose help begins "for sse and http:" (or "for --sse and --http:") works with each,
   and is refused, saying so, with the transports it does not name; the serve options of HTTP
   really work over Streamable HTTP too (a real server, real requests).

The docstrings of cli.py and mcp_ref_check/command.py list each command's flags: they list the flags the
parser has, no more, no fewer. And a command line with another command's line inside it, given
without ``--`` or with ``--stdio``'s command unquoted, is told the whole line to write instead,
a line that itself parses.
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from mcp_ref import Client
from mcp_ref.cli import main as cli
from mcp_ref.cli.argv_hints import parse_command_line
from mcp_ref.cli.main import build_parser
from mcp_ref_check import command as check_cli

from ..conftest import ROOT, SseServerProcess
from .test_main import MCP_REF

TRANSPORTS = ("stdio", "sse", "http")
# How help texts name each transport. "HTTP" alone is a protocol, not a transport: not counted.
NAMES = {"stdio": r"\bstdio\b", "sse": r"\bsse\b|\bSSE\b|HTTP with SSE", "http": r"\bhttp\b|Streamable HTTP"}
# A command that takes no transport option, yet works with one transport only, says so here.
TAKES_WITHOUT_OPTION = {"mcp-ref config": {"stdio"}}  # it registers a command a desktop host starts


def commands(parser: argparse.ArgumentParser, path: str = "mcp-ref",
             summary: str = "") -> Iterator[tuple[str, argparse.ArgumentParser, str]]:
    """Every (sub)command: its path, its parser, its one-line summary in its parent's list."""
    yield path, parser, summary
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            summaries = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, child in action.choices.items():
                yield from commands(child, f"{path} {name}", summaries.get(name, ""))


EVERY = {path: (parser, summary) for path, parser, summary in commands(build_parser())}


def texts(path: str) -> list[str]:
    parser, summary = EVERY[path]
    found = [summary, parser.description or "", parser.epilog or "", parser.format_usage()]
    return found + [action.help or "" for action in parser._actions]


def options(path: str) -> set[str]:
    return set(EVERY[path][0]._option_string_actions)


def takes(path: str) -> set[str]:
    """The transports the command takes, read from its arguments."""
    given = EVERY[path][0]._option_string_actions
    if "--transport" in given:
        return set(given["--transport"].choices or ())
    flags = {name for name in TRANSPORTS if f"--{name}" in given}
    if flags and "--stdio" not in given and all(given[f"--{n}"].nargs == 0 for n in flags):
        flags.add("stdio")  # --sse and --http switch from stdio, which needs no flag (check client)
    return flags or TAKES_WITHOUT_OPTION.get(path, set())


def named(text: str) -> set[str]:
    text = re.sub(r"https?://\S+", "", text)  # an example URL names no transport
    return {name for name, pattern in NAMES.items() if re.search(pattern, text)}


def quoted_flags(path: str, text: str) -> list[tuple[str, str]]:
    """(command, flag) for each flag in ``text``: a flag after ``mcp-ref NAME...`` belongs to that command."""
    found = []
    pieces = re.split(r"\bmcp-ref\b", text)
    for index, piece in enumerate(pieces):
        owner = path
        if index:  # the words after "mcp-ref": the longest command path they spell
            words = piece.split()
            for count in range(len(words), 0, -1):
                if "mcp-ref " + " ".join(words[:count]) in EVERY:
                    owner = "mcp-ref " + " ".join(words[:count])
                    break
            else:
                owner = "mcp-ref"
        found += [(owner, flag) for flag in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", piece)]
    return found


def test_the_table_covers_every_command() -> None:
    assert {"mcp-ref serve", "mcp-ref request", "mcp-ref inspect", "mcp-ref config", "mcp-ref demo", "mcp-ref spec",
            "mcp-ref check", "mcp-ref check server", "mcp-ref check client"} <= set(EVERY)
    assert takes("mcp-ref serve") == takes("mcp-ref request") == takes("mcp-ref check client") == set(TRANSPORTS)


@pytest.mark.parametrize("path", EVERY)
def test_every_flag_a_help_text_names_is_accepted(path: str) -> None:
    named_flags = [(owner, flag) for text in texts(path) for owner, flag in quoted_flags(path, text)]
    assert [(owner, flag) for owner, flag in named_flags if flag not in options(owner)] == []


@pytest.mark.parametrize("path", EVERY)
def test_every_transport_a_help_text_names_is_one_the_command_takes(path: str) -> None:
    taken = takes(path)
    for text in texts(path):
        assert named(text) <= taken, (text, taken)
    summary = EVERY[path][1]
    if named(summary):  # a summary that lists transports lists them all
        assert named(summary) == taken, summary


def for_transports(help_text: str) -> set[str] | None:
    """The transports an option's help says it is for ("for sse and http: ..."), or None."""
    match = re.match(r"for ([-\w ,]+?):", help_text)
    return {word.lstrip("-") for word in re.split(r",\s*|\s+and\s+|\s+or\s+", match.group(1))} if match else None


def options_for_some_transports(path: str) -> list[tuple[argparse.Action, set[str]]]:
    found = []
    for action in EVERY[path][0]._actions:
        meant = for_transports(action.help or "")
        if meant is not None:
            found.append((action, meant))
    return found


def test_the_options_for_some_transports_are_found() -> None:
    serve = {action.option_strings[0]: meant for action, meant in options_for_some_transports("mcp-ref serve")}
    assert serve == {flag: {"sse", "http"} for flag in
                     ("--host", "--port", "--allow-host", "--allow-origin", "--relay", "--quiet")}
    server = {action.option_strings[0]: meant for action, meant in options_for_some_transports("mcp-ref check server")}
    assert server == {"--header": {"sse", "http"}}


def example_value(action: argparse.Action) -> list[str]:
    if action.nargs == 0:
        return [action.option_strings[0]]
    value = {"--port": "0", "--header": "X-Test: 1", "--relay": "redis://127.0.0.1:6379/0"}.get(action.option_strings[0],
                                                                                             "example.test")
    return [action.option_strings[0], value]


@pytest.mark.parametrize("path, transport_args", [
    ("mcp-ref serve", {"stdio": [], "sse": ["--transport", "sse"], "http": ["--transport", "http"]}),
    ("mcp-ref check server", {"stdio": ["--stdio", "x"], "sse": ["--sse", "http://x/sse"],
                              "http": ["--http", "http://x/mcp"]}),
])
def test_an_option_for_some_transports_is_accepted_with_them_and_refused_without(
        path: str, transport_args: dict[str, list[str]]) -> None:
    words = path.split()[1:]
    for action, meant in options_for_some_transports(path):
        given = example_value(action)
        for transport in TRANSPORTS:
            argv = [*words, *transport_args[transport], *given]
            args = parse_command_line(build_parser, argv)  # accepted by the parser on every transport...
            if transport in meant:
                continue
            # ...but where the help does not promise it, it is refused, saying so (or the help says why not)
            if path == "mcp-ref serve":
                refused = cli._options_of_http_without_sse(args)
                assert refused == [action.option_strings[0]] or "stdio" in (action.help or ""), action.help
            else:
                proc = subprocess.run([MCP_REF, *argv], capture_output=True, text=True, timeout=60, cwd=ROOT)
                assert proc.returncode == 2 and f"{action.option_strings[0]} is for --sse and --http" in proc.stderr


def status(url: str, **headers: str) -> int:
    with requests.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=10, stream=True,
                       headers={"Accept": "application/json, text/event-stream", **headers}) as response:
        return response.status_code


@pytest.mark.parametrize("transport", ["sse", "http"])
def test_the_serve_options_of_http_work_on_both_http_transports(transport: str) -> None:
    server = SseServerProcess("mcp_ref.demo_server:server", "--transport", transport, "--allow-host", "mcp.example.test",
                              "--allow-origin", "https://app.example.test", "--quiet")
    try:
        port = server.url.split(":")[2].split("/")[0]
        url = server.url
        if transport == "http":
            assert url.endswith("/mcp")  # Streamable HTTP's endpoint checks Host and Origin as /sse does
            assert status(url, Host=f"mcp.example.test:{port}") != 421
            assert status(url, Host=f"other.example.test:{port}") == 421
            assert status(url, Origin="https://app.example.test") != 403
            assert status(url, Origin="https://evil.example.test") == 403
            with Client.http(url, headers={"Host": f"mcp.example.test:{port}", "Origin": "https://app.example.test"},
                             timeout=10, fallback=False) as client:
                assert client.call_tool("add", {"a": 1, "b": 2})["content"][0]["text"] == "3"
        else:
            with Client.sse(server.url, headers={"Host": f"mcp.example.test:{port}"}, timeout=10) as client:
                assert client.call_tool("add", {"a": 1, "b": 2})["content"][0]["text"] == "3"
    finally:
        server.proc.terminate()
        _, logged = server.proc.communicate(timeout=10)
    assert " POST /" not in logged and " GET /" not in logged  # --quiet: no request was logged
    assert "mcp-ref: interrupted" not in logged  # (SIGTERM, not Ctrl-C)


def test_without_quiet_each_http_request_is_logged() -> None:
    server = SseServerProcess("mcp_ref.demo_server:server", "--transport", "http")
    try:
        with Client.http(server.url, timeout=10, fallback=False) as client:
            client.ping()
    finally:
        server.proc.terminate()
        _, err = server.proc.communicate(timeout=10)
    assert " POST /mcp 200" in err


# --- the docstrings' lists of flags -------------------------------------------------------------------


def synopsis(module: Any, path: str) -> set[str]:
    """The flags the module docstring lists for ``path`` (its lines from ``path`` to the next command)."""
    doc = module.__doc__ or ""
    start = doc.index(path + " ")
    following = re.search(r"\n\s*mcp-ref \w", doc[start + 1:])
    block = doc[start: start + 1 + following.start()] if following else doc[start:]
    usage = "\n".join(line for line in block.splitlines()  # its usage lines, not the prose under them
                      if line.strip().startswith(("mcp-ref", "[", "(", "--")) and "``" not in line)
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", usage))


@pytest.mark.parametrize(("module", "path"), [
    (cli, "mcp-ref serve"), (cli, "mcp-ref request"), (cli, "mcp-ref inspect"), (cli, "mcp-ref config"),
    (cli, "mcp-ref demo"), (check_cli, "mcp-ref check server"), (check_cli, "mcp-ref check client"),
])
def test_the_docstrings_list_exactly_the_flags_each_command_has(module: Any, path: str) -> None:
    every = {flag for flag in options(path) if flag.startswith("--") and flag != "--help"}
    assert synopsis(module, path) == every


# --- a command line nearly right ---------------------------------------------------------------------


def hinted(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MCP_REF, *argv], capture_output=True, text=True, timeout=60, cwd=ROOT,
                          stdin=subprocess.DEVNULL)


HINTS = [  # (the line given, what it is told, the line it should be)
    ("check client mcp-ref request --stdio {server} ping", "the client's command goes after --",
     "check client -- mcp-ref request --stdio {server} ping"),
    ("check client --http --timeout 3 mcp-ref inspect --http {server} --json", "the client's command goes after --",
     "check client --http --timeout 3 -- mcp-ref inspect --http {server} --json"),
    ("check client python client.py --server {server}", "the client's command goes after --",
     "check client -- python client.py --server {server}"),
    ("config desktop python server.py --verbose", "the server's command goes after --",
     "config desktop -- python server.py --verbose"),
    ("config desktop --env A=1 mcp-ref serve my_server", "the server's command goes after --",
     "config desktop --env A=1 -- mcp-ref serve my_server"),
    ("inspect --stdio python server.py --json", "--stdio takes the server's whole command as one argument",
     "inspect --stdio 'python server.py' --json"),
    ("check server --stdio python server.py --timeout 3", "--stdio takes the server's whole command as one argument",
     "check server --stdio 'python server.py' --timeout 3"),
    ("request --stdio mcp-ref serve tools/call {} --trace", "--stdio takes the server's whole command as one argument",
     "request --stdio 'mcp-ref serve' tools/call {} --trace"),
]


@pytest.mark.parametrize(("given", "says", "meant"), HINTS, ids=[h[0] for h in HINTS])
def test_a_line_with_a_command_inside_is_told_the_whole_line_to_write(given: str, says: str, meant: str) -> None:
    proc = hinted(*shlex.split(given))
    assert proc.returncode == 2 and proc.stdout == ""
    command = given.split(" --")[0].split()[:2 if given.startswith("check") else 1]
    assert f"mcp-ref {' '.join(command)}: error: " in proc.stderr  # under its own usage, argparse's reason first
    why = f"{says}, so that its own options are not read as mcp-ref's" if "goes after" in says else f"{says}, in quotes"
    assert proc.stderr.endswith(f"\n{why}:\n  mcp-ref {meant}\n")  # the line to write, on a line of its own
    parse_command_line(build_parser, shlex.split(meant))  # and the line it is told parses (SystemExit if not)


@pytest.mark.parametrize(("given", "method"), [
    ("request --stdio python server.py tools/list", "server.py"),
    ("request --stdio mcp-ref serve ping", "serve"),
])
def test_request_with_an_unquoted_server_command_is_told_to_quote_it(given: str, method: str) -> None:
    proc = hinted(*shlex.split(given))
    assert proc.returncode == 2
    words = given.split()
    meant = f"request --stdio '{words[2]} {words[3]}' {words[4]}"
    assert proc.stderr == (f"mcp-ref: PARAMS_JSON {words[4]!r} is not JSON: if {method!r} belongs to the server's "
                           "command, --stdio takes the server's whole command as one argument, in quotes: "
                           f"mcp-ref {meant}\n")


@pytest.mark.parametrize("given", [
    "serve --bogus",  # a typo: no line to suggest, the usage of serve
    "request --stdio 'mcp-ref serve' ping {} extra",  # --stdio is quoted already: nothing joined
    "check client -- mcp-ref request --stdio {server} ping extra --bogus-after-dashes-is-fine",
])
def test_no_hint_where_no_corrected_line_is_sure(given: str) -> None:
    proc = hinted(*shlex.split(given))
    if "--bogus-after" in given:  # after --, everything is the client's: it parses
        args = parse_command_line(build_parser, shlex.split(given))
        assert args.command[-1] == "--bogus-after-dashes-is-fine"
        return
    assert proc.returncode == 2 and "error: unrecognized arguments" in proc.stderr
    assert "goes after --" not in proc.stderr and "in quotes" not in proc.stderr


def test_check_client_takes_one_transport() -> None:
    proc = hinted("check", "client", "--sse", "--http", "--", "x", "{server}")
    assert proc.returncode == 2 and "not allowed with argument" in proc.stderr
