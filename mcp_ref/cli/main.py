"""The ``mcp-ref`` command: serve a server, talk to one, describe one, register one, or the demo.

Not a spec section; a thin shell over Client and Server.

    mcp-ref serve [TARGET] [--transport sse|http --host H --port P --allow-host NAME --allow-origin URL
                   --relay redis://HOST:PORT/DB --quiet] [--trace-file PATH] [--stats SECONDS]
        serve TARGET over stdio (or HTTP: ``http`` serves Streamable HTTP at /mcp and HTTP with
        SSE at /sse, ``sse`` the same app, announcing /sse). TARGET is module:attribute (found
        from the current directory, as ``python -m`` does) or path/to/file.py:attribute; the
        attribute (default ``server``) is a Server or a no-argument function returning one.
        ``--relay`` lets several such processes, on one host or many, serve the same sessions
        (relay.py). Over HTTP each request is logged on stderr in one line (``--quiet``: not
        logged); the options of HTTP given without ``--transport sse`` or ``http`` are an error,
        and an address it cannot listen on is said in one line (``cannot_listen``). Ctrl-C stops
        it on every transport with exit status 130 (``CtrlC``). SIGUSR1 prints ``Server.stats()``
        as a JSON line on stderr, and ``--stats SECONDS`` every SECONDS too (serve_stats.py).
    mcp-ref request (--stdio "CMD ARGS" | --sse URL | --http URL) METHOD [PARAMS_JSON] [--timeout S] [--trace]
                    [--explain] [--protocol-version V] [--sampling-reply TEXT] [--root URI ...] [--no-progress]
                    [--quiet]
        connect, initialize, send one request, print its result. The client declares sampling
        only with ``--sampling-reply`` and roots only with ``--root``. It asks for progress (a
        ``progressToken`` in ``_meta``), shown on stderr as a bar on a terminal, else as lines.
        The server's log messages (notifications/message) are shown on stderr as they arrive,
        with their level and logger (``--quiet``: not shown).
        ``--trace`` prints every message on stderr; ``--explain`` prints each with its spec page
        and requirement IDs (explain.py); both together: the explanation, then the message. On
        a terminal none of these lines shares a line with the progress bar. A server that cannot
        be reached or started is said in one sentence: what happened, what to check (reach.py).
        ``--protocol-version V`` offers revision V alone; by default the client offers every
        revision mcp_ref speaks and the session is the newest the server speaks too.
    mcp-ref inspect (--stdio "CMD ARGS" | --sse URL | --http URL) [--json] [--timeout S] [--trace] [--explain]
                    [--protocol-version V]
        one screen about the server: info, capabilities, instructions, tools with their
        argument signatures, resources, templates, prompts.
    mcp-ref config NAME [--env KEY=VALUE ...] [-- COMMAND ARGS...]
        print the ``mcpServers`` JSON that registers a stdio server with a desktop host.
    mcp-ref demo [--explain] [--step] [--only N] [--protocol-version V]
        a scripted tour of the demo server, on the wire; ``--explain`` names the page and IDs of
        each message, ``--step`` waits for Enter between sections, ``--only N`` runs section N
        (``mcp-ref demo --help`` lists them). It speaks 2024-11-05, the revision the course and
        the top of mcp_ref/ teach; ``--protocol-version V`` shows a later revision on the wire.
    mcp-ref spec ID_OR_PAGE
        a requirement from the index (level, side, page, URL, summary), the code lines citing
        it and the tests proving it (spec_cmd.py); a page lists its requirements.
    mcp-ref check ...
        the conformance checker (mcp_ref_check/command.py).

    mcp-ref --version, and a bare mcp-ref prints the help. A line that does not parse is answered
    under the usage of the command it names, with the whole line to write instead when one is
    sure (argv_hints.py: ``--`` before the client's or server's command, ``--stdio`` in quotes).

Exit codes: 0 success; 1 a JSON-RPC error (``request`` prints the error object on stdout) or
an exception in the served module's import (its traceback on stderr); 2 could not connect,
timed out, or bad arguments or target (one line on stderr); 3 ``request tools/call`` got a
result with ``isError: true`` (the result on stdout, its text on stderr); 130 interrupted with
Ctrl-C (``serve`` too, on every transport).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from .. import __version__
from ..lifecycle import PROTOCOL_VERSION
from ..server import Server
from .argv_hints import parse_command_line
from .request_cmd import add_connection_arguments, add_protocol_version_argument, cmd_inspect, cmd_request
from .serve_stats import StatsReporter
from .target import TargetError, load_server, stdout_to_stderr, user_traceback

__all__ = ["TraceFile", "build_parser", "load_server", "main"]

DEFAULT_TARGET = "mcp_ref.demo_server:server"
DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8000  # mcp-ref serve --transport sse
INTERRUPTED = 130  # 128 + SIGINT, what shells report for a command stopped with Ctrl-C


def _fail(message: str) -> int:
    print(f"mcp-ref: {message}", file=sys.stderr)
    return 2


# --- serve ---------------------------------------------------------------------------------------


class TraceFile:
    """A session ``trace`` hook that appends each message to a file: ``-> {json}`` sent by the
    server, ``<- {json}`` received. For seeing what a host application and a server say."""

    def __init__(self, path: str):
        self._file = open(path, "ab", buffering=0)  # noqa: SIM115 - lives as long as the server
        self._lock = threading.Lock()

    def __call__(self, direction: str, data: bytes) -> None:
        with self._lock:
            self._file.write(direction.encode() + b" " + data + b"\n")


def _options_of_http_without_sse(args: argparse.Namespace) -> list[str]:
    """The HTTP options given to ``serve`` without ``--transport sse`` or ``http``: they would do nothing."""
    if args.transport in ("sse", "http"):
        return []
    given = {"--host": args.host is not None, "--port": args.port is not None, "--allow-host": bool(args.allow_host),
             "--allow-origin": bool(args.allow_origin), "--relay": args.relay is not None}
    return [option for option, present in given.items() if present]


def _seconds(text: str) -> float:
    """A number of seconds above 0, for ``--stats``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of seconds above 0, e.g. 60")
    return value


def cmd_serve(args: argparse.Namespace) -> int:
    misplaced = _options_of_http_without_sse(args)
    if misplaced:  # before importing anything: a stdio server here would be a silent surprise
        return _fail(f"{' and '.join(misplaced)} {'is' if len(misplaced) == 1 else 'are'} for --transport sse or "
                     "http, which is missing: add --transport sse or http (without it, mcp-ref serve speaks stdio, "
                     "on stdin and stdout)")
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        with stdout_to_stderr():  # TR-04: a print() at import time must not reach the client
            server = load_server(args.target)
    except TargetError as exc:
        return _fail(str(exc))
    except Exception as exc:  # the user's module failed: their traceback is what they need
        print(f"mcp-ref: loading {args.target} failed:\n{user_traceback(exc)}", end="", file=sys.stderr)
        return 1
    trace = TraceFile(args.trace_file) if args.trace_file else None
    with CtrlC() as ctrl_c, StatsReporter(server, args.stats):
        if args.transport == "stdio":
            if sys.stdin.isatty():  # a person, not a client: say what is going on (on stderr, TR-04)
                print(f"mcp-ref: serving {server.name} on stdin/stdout; type one JSON-RPC message per line, "
                      "Ctrl-D to stop", file=sys.stderr)
            server.serve_stdio(trace=trace)
            status = 0
        else:
            status = _serve_sse(server, args, trace)
    if ctrl_c.pressed:  # the server stopped serving on it and returned: exit as interrupted (130)
        raise KeyboardInterrupt
    return status


class CtrlC:
    """Around serving: notes whether Ctrl-C (SIGINT) stopped it. ``Server.serve_stdio`` and
    ``serve_sse`` take KeyboardInterrupt as the end of serving and return normally (a program
    embedding them goes on); the command must still exit 130, as after any Ctrl-C. Python's own
    handler raises KeyboardInterrupt as before; this one notes it too. Where SIGINT is ignored
    (a job a shell started in the background), it stays ignored."""

    def __init__(self) -> None:
        self.pressed = False
        self._previous: Any = None

    def __enter__(self) -> CtrlC:
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self._previous = signal.signal(signal.SIGINT, self._note)
        return self

    def _note(self, signum: int, frame: Any) -> None:
        self.pressed = True
        raise KeyboardInterrupt

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)


def _serve_sse(server: Server, args: argparse.Namespace, trace: TraceFile | None) -> int:
    from ..sse import LOCAL_HOSTS

    host = DEFAULT_HOST if args.host is None else args.host
    port = DEFAULT_PORT if args.port is None else args.port
    cannot = cannot_listen(host, port)
    if cannot is not None:  # said here, in our words, rather than by the HTTP server as it exits
        return _fail(cannot)
    options: dict[str, Any] = {"allowed_hosts": [*LOCAL_HOSTS, *args.allow_host]}
    if args.allow_origin:
        options["allowed_origins"] = args.allow_origin
    if args.relay:
        from ..scaleout.redis_relay import RedisRelay

        try:
            options["relay"] = RedisRelay(args.relay)
        except ImportError:
            return _fail("--relay needs the redis package; in a checkout of mcp_ref install it with "
                         ".venv/bin/pip install -e '.[redis]' (elsewhere: pip install 'redis>=5')")
        except ValueError as exc:
            return _fail(str(exc))
        print(f"mcp-ref: sessions reachable through the relay at {options['relay'].where}", flush=True)

    def ready(url: str) -> None:
        if host not in LOCAL_HOSTS and not args.allow_host:  # TR-07: bound wide, yet Host still checked
            print(f"mcp-ref: listening on {host}, but only requests whose Host header names localhost are "
                  "accepted (the others get 421); add --allow-host NAME for the name clients use, or --allow-host "
                  "'*'", file=sys.stderr)
        if args.transport == "http":  # the same app serves both (streamable_http/server_app.py): the new one first
            print(f"mcp-ref: serving {server.name} over Streamable HTTP at {url.rsplit('/', 1)[0]}/mcp", flush=True)
            print(f"mcp-ref: and over HTTP with SSE at {url}", flush=True)
        else:
            print(f"mcp-ref: serving {server.name} over HTTP with SSE at {url}", flush=True)

    server.serve_sse(host, port, on_ready=ready, trace=trace, log_requests=not args.quiet, **options)
    return 0


def cannot_listen(host: str, port: int) -> str | None:
    """Why ``serve`` could not listen on ``host:port``, and what to do; None if it can (a socket
    bound there now and closed at once, as the HTTP server will bind it next)."""
    import errno
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET  # as werkzeug chooses it
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError):
        return (f"cannot listen on {host!r}: no address of that name could be found; give an address of this "
                "machine to --host, e.g. 127.0.0.1 (or 0.0.0.0 for every interface)")
    try:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the HTTP server binds it
            probe.bind(address)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            return (f"cannot listen on {host}:{port}: another program uses that port; stop it, or give another "
                    "--port (--port 0 picks a free one)")
        if exc.errno == errno.EADDRNOTAVAIL:
            return (f"cannot listen on {host}: it is not an address of this machine; give one of its own to "
                    "--host, e.g. 127.0.0.1 (or 0.0.0.0 for every interface)")
        if exc.errno == errno.EACCES:
            return (f"cannot listen on {host}:{port}: permission denied (ports below 1024 need privileges); give "
                    "--port 1024 or above (--port 0 picks a free one)")
        return f"cannot listen on {host}:{port}: {(exc.strerror or str(exc)).lower()}"
    return None


# --- config --------------------------------------------------------------------------------------


def cmd_config(args: argparse.Namespace) -> int:
    """Print ``{"mcpServers": {NAME: {"command", "args", "env"?}}}`` for a desktop host's settings.

    Desktop hosts start servers with their own PATH and working directory, not your shell's
    virtual environment: so ``mcp-ref`` and ``python`` become the absolute paths of the ones
    running now, and arguments naming an existing ``.py`` file (or ``file.py:attribute``)
    become absolute paths.
    """
    command = list(args.server_command or ["mcp-ref", "serve"])
    env: dict[str, str] = {}
    for item in args.env:
        key, sep, value = item.partition("=")
        if not sep or not key:
            return _fail(f"--env takes KEY=VALUE, not {item!r}")
        env[key] = value
    program = _absolute_program(command[0])
    entry: dict[str, Any] = {"command": program[0], "args": program[1:] + [_absolute_file(a) for a in command[1:]]}
    if env:
        entry["env"] = env
    print(json.dumps({"mcpServers": {args.name: entry}}, indent=2, ensure_ascii=False))
    return 0


def _absolute_program(program: str) -> list[str]:
    if program in ("python", "python3"):
        return [sys.executable]
    if program == "mcp-ref":
        script = Path(sys.executable).parent / "mcp-ref"
        return [str(script)] if script.is_file() else [sys.executable, "-m", "mcp_ref"]
    return [program]


def _absolute_file(arg: str) -> str:
    path, sep, attribute = arg.partition(":")
    if path.endswith(".py") and os.path.isfile(path):
        return os.path.abspath(path) + sep + attribute
    return arg


# --- the command line ----------------------------------------------------------------------------


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(explain=args.explain, step=args.step, only=args.only, protocol_version=args.protocol_version)


def cmd_spec(args: argparse.Namespace) -> int:
    from mcp_ref_check.spec_cmd import run_spec

    return run_spec(args.what)


def build_parser(parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The whole command line; ``parser_class`` makes it and every subcommand's parser (argv_hints.py
    tries corrected lines on parsers that raise rather than exit)."""
    parser = parser_class(prog="mcp-ref", description="mcp_ref: MCP 2024-11-05, synchronously.",
                          epilog="Each command has its own --help, e.g. mcp-ref request --help.")
    parser.add_argument("--version", action="version", version=f"mcp-ref {__version__} (MCP {PROTOCOL_VERSION})")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    serve = sub.add_parser("serve", help="run a server over stdio, HTTP with SSE or Streamable HTTP",
                           description="Serve TARGET over stdio (the default), over HTTP with SSE at /sse "
                                       "(--transport sse), or over Streamable HTTP at /mcp and HTTP with SSE at "
                                       "/sse, one port for both (--transport http). Exit status: 0 at the end of "
                                       "stdin (stdio); 1 the module failed to import; 2 bad arguments or target; "
                                       "130 interrupted (Ctrl-C).")
    serve.add_argument("target", nargs="?", default=DEFAULT_TARGET,
                       help="module:attribute or file.py:attribute of an mcp_ref Server, or of a function "
                            f"returning one (default: {DEFAULT_TARGET}; attribute default: server)")
    serve.add_argument("--transport", choices=["stdio", "sse", "http"], default="stdio",
                       help="stdio (the default) on stdin and stdout; sse serves HTTP with SSE at /sse; http "
                            "serves Streamable HTTP at /mcp and HTTP with SSE at /sse")
    serve.add_argument("--host", help=f"for sse and http: the address to bind (default {DEFAULT_HOST})")
    serve.add_argument("--port", type=int, help=f"for sse and http: the port (default {DEFAULT_PORT}; 0 picks a free one)")
    serve.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                       help="for sse and http: also accept this name in the Host header (repeatable; '*' for any)")
    serve.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                       help="for sse and http: accept this browser Origin, e.g. https://app.example (repeatable; '*' for "
                            "any); replaces the default, which accepts localhost origins only")
    serve.add_argument("--relay", metavar="URL",
                       help="for sse and http: share sessions with every process using this Redis, e.g. "
                            "redis://127.0.0.1:6379/0 "
                            "(needs the redis package: .venv/bin/pip install -e '.[redis]' in the checkout)")
    serve.add_argument("--quiet", action="store_true",
                       help="for sse and http: do not log each HTTP request on stderr (stdio logs none anyway)")
    serve.add_argument("--trace-file", metavar="PATH", help="append every message, with its direction, to PATH")
    serve.add_argument("--stats", type=_seconds, metavar="SECONDS",
                       help="print what the server holds (sessions, streams, queues, requests, threads) as a JSON "
                            "line on stderr every SECONDS, e.g. 60; SIGUSR1 prints it at any time, with or "
                            "without this flag")
    serve.set_defaults(func=cmd_serve)

    request = sub.add_parser("request", help="connect, initialize, send one request, print the result",
                             description="Exit status: 0 the result is on stdout; 1 a JSON-RPC error (on stdout); "
                                         "2 could not connect, timed out, or bad arguments; 3 tools/call answered "
                                         "with isError: true (the result on stdout, its text on stderr); "
                                         "130 interrupted.")
    add_connection_arguments(request)
    request.add_argument("method", metavar="METHOD", help="the method to call, e.g. ping, tools/list, tools/call")
    request.add_argument("params", nargs="?", metavar="PARAMS_JSON",
                         help="the params as a JSON object, in single quotes, e.g. "
                              "'{\"name\": \"add\", \"arguments\": {\"a\": 2, \"b\": 3}}'")
    request.add_argument("--sampling-reply", metavar="TEXT",
                         help="declare the sampling capability and answer sampling/createMessage with this text "
                              "(without it the client declares no sampling, so a server does not ask)")
    request.add_argument("--root", action="append", metavar="URI", default=[],
                         help="declare the roots capability and offer this file:// root (repeatable; without it "
                              "the client declares no roots)")
    request.add_argument("--no-progress", action="store_true",
                         help="do not ask for progress notifications: send PARAMS_JSON exactly as given")
    request.add_argument("--quiet", action="store_true",
                         help="do not show the server's log messages (shown on stderr by default)")
    request.set_defaults(func=cmd_request, corrected=None)

    inspect = sub.add_parser("inspect", help="one screen about a server: info, capabilities, tools, resources, prompts")
    add_connection_arguments(inspect)
    inspect.add_argument("--json", action="store_true", help="print the same as one JSON object")
    inspect.set_defaults(func=cmd_inspect)

    config = sub.add_parser("config", usage="mcp-ref config NAME [--env KEY=VALUE ...] [-- COMMAND ARGS...]",
                            help="print the JSON that registers a stdio server with a desktop host (mcpServers)",
                            description="COMMAND defaults to `mcp-ref serve` (the demo server).")
    config.add_argument("name", help="the name the host shows for the server")
    config.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                        help="an environment variable for the server (repeatable)")
    config.set_defaults(func=cmd_config, server_command=[])

    from .demo import SECTION_TITLES

    demo = sub.add_parser("demo", help="a scripted tour of the demo server, showing the wire",
                          formatter_class=argparse.RawDescriptionHelpFormatter,
                          epilog="sections (for --only N):\n" + "\n".join(
                              f"  {number:2}  {title}" for number, title in enumerate(SECTION_TITLES, start=1)))
    demo.add_argument("--explain", action="store_true", help="name each message's spec page and requirement IDs")
    demo.add_argument("--step", action="store_true", help="wait for Enter between sections")
    demo.add_argument("--only", type=int, metavar="N",
                      help=f"run section N only, 1 to {len(SECTION_TITLES)} (listed below; initialization "
                           "still happens)")
    add_protocol_version_argument(demo, default=PROTOCOL_VERSION)  # the base the course teaches
    demo.set_defaults(func=cmd_demo)

    spec = sub.add_parser("spec", help="look a requirement ID (LC-08) or a spec page (server/tools) up",
                          description="A requirement's level, side, page, URL and summary, the code lines "
                                      "citing it and the tests proving it; or every requirement of a page.")
    spec.add_argument("what", metavar="ID_OR_PAGE", help="a requirement ID such as LC-08, or a page such as "
                                                          "server/tools, tools or a spec URL")
    spec.set_defaults(func=cmd_spec)

    from mcp_ref_check.command import add_check_parser  # the conformance kit: mcp-ref check --list

    add_check_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # config's server command is what follows --; arguments left over get a hint when one is sure
    args = parse_command_line(build_parser, argv)
    if args.command is None:  # a bare `mcp-ref`: what it can do, rather than an error
        build_parser().print_help()
        return 0
    try:
        return int(args.func(args))
    except KeyboardInterrupt:  # Ctrl-C: the with-blocks above have closed what they opened
        print("\nmcp-ref: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:  # `mcp-ref check --list | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 0
