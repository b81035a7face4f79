"""``mcp-ref check``: the conformance checker's command line.

Not a spec section: argument handling for the kit (see __init__.py).

    mcp-ref check --list
    mcp-ref check server (--stdio "CMD" | --sse URL | --http URL) [--only PAGE_OR_ID ...] [--call-tools]
                         [--call-timeout S] [--hostile] [--json PATH] [--max-message-bytes N] [--junit PATH]
                         [--strict] [--timeout S] [--startup S] [--header "K: V"] [--verbose] [--protocol-version V]
    mcp-ref check client [--sse | --http] [--only PAGE_OR_ID ...] [--json PATH] [--max-message-bytes N]
                         [--junit PATH] [--strict] [--timeout S] [--run-timeout S] [--verbose]
                         [--protocol-version V] -- CMD ARGS...
                         ({server} in ARGS: the checking server; without --, the line to write is shown)

Exit status: 0 when no MUST failed (with --strict, no SHOULD either), 1 otherwise, 2 when the
peer could not be reached at all; 130 (Ctrl-C) or 143 (SIGTERM) when the run was stopped, after
every server process group the kit started is killed. The --json and --junit files are written
on every exit, with the reason when there are no results. This module imports the kit only when
a command runs.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Any

STOPPED: dict[int, int] = {int(signal.SIGINT): 130, int(signal.SIGTERM): 143}  # exit status of a run stopped by the signal


class Stopped(BaseException):
    """The run was stopped by a signal (raised in the main thread once every child is killed)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def add_check_parser(sub: Any) -> None:
    """Register ``check`` on the ``mcp-ref`` subparsers."""
    check = sub.add_parser("check", help="check a server or a client against MCP (2024-11-05 to 2026-07-28), rule by "
                                         "rule",
                           description="The conformance checker: it grades a peer at the revision the two agree on "
                                       "(mcp-ref check server or client --protocol-version V pins one). Each case names its "
                                       "requirement IDs.")
    check.add_argument("--list", action="store_true", help="print every case with its requirement IDs and exit")
    sides = check.add_subparsers(dest="side")

    server = sides.add_parser("server", help="connect as a client and check a server")
    where = server.add_mutually_exclusive_group(required=True)
    where.add_argument("--stdio", metavar="CMD", help='the server command, e.g. "mcp-ref serve"')
    where.add_argument("--sse", metavar="URL", help="the server's SSE endpoint, e.g. http://127.0.0.1:8000/sse")
    where.add_argument("--http", metavar="URL", help="the server's Streamable HTTP endpoint (the 2025-03-26 "
                                                    "transport), e.g. http://127.0.0.1:8000/mcp")
    server.add_argument("--call-tools", action="store_true",
                        help="also call the server's tools (with arguments made from their input schemas)")
    server.add_argument("--startup", type=float, default=10.0, metavar="S",
                        help="seconds a new connection may take to answer its first request (default 10)")
    server.add_argument("--header", action="append", default=[], metavar="'NAME: VALUE'",
                        help="for --sse and --http: a header for every HTTP request (e.g. 'Authorization: "
                             "Bearer TOKEN'); repeatable")
    server.add_argument("--call-timeout", type=float, default=30.0, metavar="S",
                        help="seconds a tool call may take with --call-tools (default 30); each progress "
                             "notification starts it again, up to ten times that in all")
    server.add_argument("--hostile", action="store_true",
                        help="also send hostile input (broken and huge lines, deep nesting, bursts, a stalled "
                             "reader; over SSE idle and half-sent connections) and check the server survives it")
    _common(server)

    client = sides.add_parser("client", help="run a client against the kit's checking server",
                              usage="mcp-ref check client [-h] [--sse | --http] [--run-timeout S] "
                                    "[--only PAGE_OR_ID ...]\n                            [--json PATH] "
                                    "[--max-message-bytes N] [--junit PATH] [--strict] [--timeout S] [--verbose] "
                                    "[--protocol-version V] -- CMD ARGS...",
                              description="Runs CMD ARGS with {server} replaced by the checking server "
                                          "(a command for stdio, its URL with --sse or --http). Put the client's "
                                          "command after --, so that its own options stay its own: "
                                          "mcp-ref check client -- mcp-ref request --stdio {server} ping")
    served = client.add_mutually_exclusive_group()
    served.add_argument("--sse", action="store_true", help="serve HTTP with SSE on 127.0.0.1 instead of stdio")
    served.add_argument("--http", action="store_true", help="serve Streamable HTTP on 127.0.0.1 instead of stdio")
    client.add_argument("--run-timeout", type=float, default=30.0, metavar="S",
                        help="seconds the client may run in all (default 30)")
    _common(client)
    client.add_argument("command", nargs="+", metavar="CMD", help="the client command; put it after --")
    check.set_defaults(func=cmd_check)


def _common(parser: argparse.ArgumentParser) -> None:
    from mcp_ref.lifecycle import STATELESS_REVISIONS, SUPPORTED_PROTOCOL_VERSIONS

    parser.add_argument("--protocol-version", choices=SUPPORTED_PROTOCOL_VERSIONS + STATELESS_REVISIONS, metavar="V",
                        help="speak only this revision (" + ", ".join(SUPPORTED_PROTOCOL_VERSIONS) + "); by default "
                             "the kit proposes the newest and grades at whichever of them the peer agrees on. "
                             + ", ".join(STATELESS_REVISIONS) + " (no handshake, _meta on every request) is "
                             "spoken only when named here")
    parser.add_argument("--only", nargs="+", action="extend", default=[], metavar="PAGE_OR_ID",
                        help='run only these pages ("server/tools" or "tools"), IDs ("TOOL-08") or case names')
    parser.add_argument("--json", metavar="PATH", help="write every case, with the messages exchanged, as JSON")
    parser.add_argument("--max-message-bytes", type=_positive_int, metavar="N",
                        help="in the --json file, cut each message at N bytes (default: every message whole, as "
                             "kept: up to 1 MiB each, 8 MiB per connection)")
    parser.add_argument("--junit", metavar="PATH", help="write JUnit XML for CI systems")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a SHOULD is not met, too")
    parser.add_argument("--timeout", type=float, default=5.0, metavar="S", help="seconds per step (default 5)")
    parser.add_argument("--verbose", "-v", action="store_true", help="show the notes of every case")


def _positive_int(text: str) -> int:
    """--max-message-bytes: a whole number of bytes, at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a number of bytes (1 or more)")
    return value


def cmd_check(args: argparse.Namespace) -> int:
    from .case_registry import all_client_cases, all_server_cases
    from .model import select
    from .report import write_list

    if args.list or args.side is None:
        cases = all_server_cases() + all_client_cases()
        write_list(sys.stdout, cases)
        if args.side is None and not args.list:
            print("mcp-ref check: choose `server` or `client` (see mcp-ref check --help)", file=sys.stderr)
            return 2
        return 0
    if args.only:
        every = all_server_cases() if args.side == "server" else all_client_cases()
        if not select(every, args.only):
            print(f"mcp-ref check: --only {' '.join(args.only)} matches no {args.side} case (see --list)",
                  file=sys.stderr)
            return 2
    previous = _stop_on_signals()
    try:
        return check_server(args) if args.side == "server" else check_client(args)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _finish(args: argparse.Namespace, results: list[Any], header: str, about: dict[str, Any]) -> int:
    from .report import exit_status, write_text

    write_text(sys.stdout, results, header=header, strict=args.strict, verbose=args.verbose)
    _write_files(args, results, about)
    return exit_status(results, args.strict)


def _write_files(args: argparse.Namespace, results: list[Any], about: dict[str, Any], reason: str | None = None) -> None:
    """--json and --junit, on every exit: with ``reason`` when the run could not be made or was stopped."""
    from .report import write_json, write_junit

    if args.json:
        write_json(args.json, results, about=about, strict=args.strict, reason=reason,
                   max_message_bytes=args.max_message_bytes)
    if args.junit:
        write_junit(args.junit, results, suite=f"mcp-ref check {args.side}", strict=args.strict, reason=reason)


def _cannot(args: argparse.Namespace, about: dict[str, Any], reason: str) -> int:
    """Exit status 2: say why on stderr, and in the report files."""
    print(f"mcp-ref check: {reason}", file=sys.stderr)
    _write_files(args, [], about, reason)
    return 2


def _stop_on_signals() -> dict[int, Any]:
    """SIGTERM and SIGINT kill every server the kit started at once, then stop the run."""
    def stop(signum: int, frame: Any) -> None:
        from .wire import kill_all

        kill_all()
        raise Stopped(signum)

    if threading.current_thread() is not threading.main_thread():
        return {}
    return {signum: signal.signal(signum, stop) for signum in STOPPED}


def _stopped(args: argparse.Namespace, about: dict[str, Any], exc: Stopped) -> int:
    from .wire import kill_all

    kill_all()
    reason = f"stopped by {exc} before the end of the run; every server process the kit started was killed"
    print(f"\nmcp-ref check: {reason}", file=sys.stderr)
    _write_files(args, [], about, reason)
    return STOPPED.get(exc.signum, 2)


def check_server(args: argparse.Namespace) -> int:
    from mcp_ref.lifecycle import STATELESS_REVISIONS

    from .runner import Options, Target, run_server_check
    from .server_run import SetupFailed
    from .shapes import as_dict

    headers = {}
    about: dict[str, Any] = {"side": "server",
                             "transport": "stdio" if args.stdio is not None else "http" if args.http else "sse",
                             "target": args.stdio if args.stdio is not None else args.http or args.sse}
    if args.stdio is not None and args.header:  # as its help says: a process on stdio gets no HTTP request
        return _cannot(args, about, "--header is for --sse and --http (a header of every HTTP request); a --stdio "
                                    "server is spoken to on its stdin and stdout, with no HTTP")
    if args.sse is not None and args.protocol_version in STATELESS_REVISIONS:
        return _cannot(args, about, f"revision {args.protocol_version} is spoken over stdio and Streamable HTTP "
                                    "(--http), not over HTTP with SSE, which it deprecates")
    for header in args.header:
        name, sep, value = header.partition(":")
        if not sep:
            return _cannot(args, about, f"--header {header!r} is not 'Name: value'")
        headers[name.strip()] = value.strip()
    target = Target(stdio=args.stdio, sse=args.sse, headers=headers, http=args.http)
    options = Options(timeout=args.timeout, startup=args.startup, call_tools=args.call_tools, only=args.only,
                      call_timeout=args.call_timeout, hostile=args.hostile, protocol_version=args.protocol_version)
    try:
        results, discovery = run_server_check(target, options)
    except SetupFailed as exc:
        return _cannot(args, about, _why_not(target, args, exc))
    except Stopped as exc:
        return _stopped(args, about, exc)
    info = as_dict(discovery.init.get("serverInfo"))
    declared = ", ".join(sorted(discovery.capabilities)) or "nothing"
    offered = (f"offered {discovery.offered[0]} only (--protocol-version)" if args.protocol_version else
               f"offered {discovery.offered[0]} (accepting {', '.join(discovery.offered[1:])})")
    header = (f"mcp-ref check server ({target.kind}): {target.describe()}\n"
              f"server {info.get('name')!r} {info.get('version')!r}, protocol {discovery.answered_version!r} "
              f"({offered}; graded at {discovery.version}), declares {declared}"
              + ("; tools are called" if args.call_tools else ""))
    about.update({"initialize": discovery.init, "call_tools": args.call_tools, "hostile": args.hostile,
                  "offered": list(discovery.offered), "agreed": discovery.answered_version,
                  "revision": discovery.version})
    return _finish(args, results, header, about)


def check_client(args: argparse.Namespace) -> int:
    from mcp_ref.lifecycle import STATELESS_REVISIONS

    from .client_check import ClientOptions, SetupFailed
    from .runner import run_client_check

    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    transport = "http" if args.http else "sse" if args.sse else "stdio"
    about: dict[str, Any] = {"side": "client", "transport": transport, "target": " ".join(command)}
    if transport != "stdio" and args.protocol_version in STATELESS_REVISIONS:
        return _cannot(args, about, f"the checking server speaks {args.protocol_version} over stdio only, for now")
    if not any("{server}" in part for part in command):
        return _cannot(args, about, "the client command has no {server} argument to replace")
    options = ClientOptions(timeout=args.timeout, run_timeout=args.run_timeout, sse=args.sse, only=args.only,
                            http=args.http, protocol_version=args.protocol_version)
    try:
        results, session = run_client_check(command, options)
    except SetupFailed as exc:
        return _cannot(args, about, _client_not_started(command[0], exc))
    except Stopped as exc:
        return _stopped(args, about, exc)
    info = session.client_info or {}
    header = (f"mcp-ref check client ({transport}): {' '.join(command)}\n"
              f"client {info.get('name')!r} {info.get('version')!r}, proposed protocol {session.proposed_version!r}, "
              f"the checking server answered {session.version}"
              + (" (--protocol-version)" if args.protocol_version else "") + f", graded at {session.version}; "
              f"declares {', '.join(sorted(session.client_capabilities)) or 'nothing'}; exit status {session.exit_code}")
    about.update({"proposed": session.proposed_version, "agreed": session.version, "revision": session.version})
    return _finish(args, results, header, about)


def _why_not(target: Any, args: argparse.Namespace, exc: Exception) -> str:
    """Why the server under check could not be reached, as clearly as ``request`` says it
    (machinery/reach.py): a command that did not start, or a URL where nothing answers HTTP;
    otherwise the kit's own account of what happened."""
    from mcp_ref.machinery.http.client_plumbing import MCP_ENDPOINT, SSE_ENDPOINT
    from mcp_ref.machinery.reach import not_started

    where = target.describe()
    if target.kind == "stdio":
        import shlex

        try:
            words = shlex.split(target.stdio) if isinstance(target.stdio, str) else list(target.stdio)
        except ValueError:  # unbalanced quotes: the kit said what it could
            words = []
        reason = not_started((words or [""])[0], exc)
        return f"could not start {where!r}: {reason}" if reason else f"could not connect to {where!r}: {exc}"
    why = http_unreachable(where, args.timeout, MCP_ENDPOINT if target.kind == "http" else SSE_ENDPOINT)
    return f"could not connect to {where!r}: {why or exc}"


def http_unreachable(url: str, timeout: float, endpoint: Any) -> str | None:
    """After a failure whose cause is not known here (the checker's own HTTP wire says only that
    the connection ended), one plain request to the URL tells whether anything answers there at
    all; if nothing does, why, as the library's HTTP clients say it. None when something answered
    (whatever it said)."""
    import requests

    from mcp_ref.machinery.http.client_plumbing import unreachable

    try:
        requests.head(url, timeout=(timeout, timeout), allow_redirects=False).close()
    except requests.RequestException as exc:
        return unreachable(url, exc, timeout, endpoint)
    return None


def _client_not_started(program: str, exc: Exception) -> str:
    """The client command did not start: say why and what to check (machinery/reach.py)."""
    from mcp_ref.machinery.reach import not_started

    reason = not_started(program, exc)
    return f"could not start the client {program!r}: {reason}" if reason else str(exc)
