"""``mcp-ref check``: the conformance checker's command line.

Not a spec section: argument handling for the kit (see __init__.py).

    mcp-ref check --list
    mcp-ref check server (--stdio "CMD" | --sse URL) [--only PAGE_OR_ID ...] [--call-tools]
                         [--json PATH] [--junit PATH] [--strict] [--timeout S] [--header "K: V"]
    mcp-ref check client [--sse] [--only PAGE_OR_ID ...] [--json PATH] [--junit PATH] [--strict]
                         [--timeout S] -- CMD ARGS...     ({server} in ARGS: the checking server)

Exit status: 0 when no MUST failed (with --strict, no SHOULD either), 1 otherwise, 2 when the
peer could not be reached at all. This module imports the kit only when a command runs.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_check_parser(sub: Any) -> None:
    """Register ``check`` on the ``mcp-ref`` subparsers."""
    check = sub.add_parser("check", help="check a server or a client against MCP 2024-11-05, rule by rule",
                           description="The 2024-11-05 conformance checker. Each case names its requirement IDs.")
    check.add_argument("--list", action="store_true", help="print every case with its requirement IDs and exit")
    sides = check.add_subparsers(dest="side")

    server = sides.add_parser("server", help="connect as a client and check a server")
    where = server.add_mutually_exclusive_group(required=True)
    where.add_argument("--stdio", metavar="CMD", help='the server command, e.g. "mcp-ref serve"')
    where.add_argument("--sse", metavar="URL", help="the server's SSE endpoint, e.g. http://127.0.0.1:8000/sse")
    server.add_argument("--call-tools", action="store_true",
                        help="also call the server's tools (with arguments made from their input schemas)")
    server.add_argument("--startup", type=float, default=10.0, metavar="S",
                        help="seconds a new connection may take to answer its first request (default 10)")
    server.add_argument("--header", action="append", default=[], metavar="'NAME: VALUE'",
                        help="an HTTP header for every SSE request (e.g. Authorization); repeatable")
    _common(server)

    client = sides.add_parser("client", help="run a client against the kit's checking server",
                              description="Runs CMD ARGS with {server} replaced by the checking server "
                                          "(a command for stdio, a URL with --sse).")
    client.add_argument("--sse", action="store_true", help="serve HTTP with SSE on 127.0.0.1 instead of stdio")
    client.add_argument("--run-timeout", type=float, default=30.0, metavar="S",
                        help="seconds the client may run in all (default 30)")
    _common(client)
    client.add_argument("command", nargs="+", metavar="CMD", help="the client command; put it after --")
    check.set_defaults(func=cmd_check)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--only", nargs="+", action="extend", default=[], metavar="PAGE_OR_ID",
                        help='run only these pages ("server/tools" or "tools"), IDs ("TOOL-08") or case names')
    parser.add_argument("--json", metavar="PATH", help="write every case, with the messages exchanged, as JSON")
    parser.add_argument("--junit", metavar="PATH", help="write JUnit XML for CI systems")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a SHOULD is not met, too")
    parser.add_argument("--timeout", type=float, default=5.0, metavar="S", help="seconds per step (default 5)")
    parser.add_argument("--verbose", "-v", action="store_true", help="show the notes of every case")


def cmd_check(args: argparse.Namespace) -> int:
    from .model import select
    from .registry import all_client_cases, all_server_cases
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
    return check_server(args) if args.side == "server" else check_client(args)


def _finish(args: argparse.Namespace, results: list[Any], header: str, about: dict[str, Any]) -> int:
    from .report import exit_status, write_json, write_junit, write_text

    write_text(sys.stdout, results, header=header, strict=args.strict, verbose=args.verbose)
    if args.json:
        write_json(args.json, results, about=about, strict=args.strict)
    if args.junit:
        write_junit(args.junit, results, suite=f"mcp-ref check {args.side}", strict=args.strict)
    return exit_status(results, args.strict)


def check_server(args: argparse.Namespace) -> int:
    from .runner import Options, Target, run_server_check
    from .server_check import SetupFailed
    from .shapes import as_dict

    headers = {}
    for header in args.header:
        name, sep, value = header.partition(":")
        if not sep:
            print(f"mcp-ref check: --header {header!r} is not 'Name: value'", file=sys.stderr)
            return 2
        headers[name.strip()] = value.strip()
    target = Target(stdio=args.stdio, sse=args.sse, headers=headers)
    options = Options(timeout=args.timeout, startup=args.startup, call_tools=args.call_tools, only=args.only)
    try:
        results, discovery = run_server_check(target, options)
    except SetupFailed as exc:
        print(f"mcp-ref check: could not connect to {target.describe()!r}: {exc}", file=sys.stderr)
        return 2
    info = as_dict(discovery.init.get("serverInfo"))
    declared = ", ".join(sorted(discovery.capabilities)) or "nothing"
    header = (f"mcp-ref check server ({target.kind}): {target.describe()}\n"
              f"server {info.get('name')!r} {info.get('version')!r}, protocol {discovery.init.get('protocolVersion')!r}, "
              f"declares {declared}" + ("; tools are called" if args.call_tools else ""))
    about = {"side": "server", "transport": target.kind, "target": target.describe(), "initialize": discovery.init,
             "call_tools": args.call_tools}
    return _finish(args, results, header, about)


def check_client(args: argparse.Namespace) -> int:
    from .client_check import ClientOptions, SetupFailed
    from .runner import run_client_check

    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if not any("{server}" in part for part in command):
        print("mcp-ref check: the client command has no {server} argument to replace", file=sys.stderr)
        return 2
    options = ClientOptions(timeout=args.timeout, run_timeout=args.run_timeout, sse=args.sse, only=args.only)
    try:
        results, session = run_client_check(command, options)
    except SetupFailed as exc:
        print(f"mcp-ref check: {exc}", file=sys.stderr)
        return 2
    info = session.client_info or {}
    header = (f"mcp-ref check client ({'sse' if args.sse else 'stdio'}): {' '.join(command)}\n"
              f"client {info.get('name')!r} {info.get('version')!r}, proposed protocol {session.proposed_version!r}, "
              f"declares {', '.join(sorted(session.client_capabilities)) or 'nothing'}; exit status {session.exit_code}")
    about = {"side": "client", "transport": "sse" if args.sse else "stdio", "target": " ".join(command)}
    return _finish(args, results, header, about)
