"""The ``mcp-ref`` command: serve a server, send one request, or run the demo tour.

Not a spec section; a thin shell over Client and Server.

    mcp-ref serve [TARGET] [--transport sse --host H --port P]
                                                serve TARGET (module:attribute) over stdio or SSE
    mcp-ref request (--stdio "CMD ARGS" | --sse URL) METHOD [PARAMS_JSON] [--timeout S] [--trace]
                    [--sampling-reply TEXT] [--root URI ...]
    mcp-ref demo                                a scripted tour of the demo server, on the wire

Exit codes of ``request``: 0 with the result JSON on stdout; 1 with the JSON-RPC error object
on stdout; 2 when it could not connect or timed out (the reason on stderr).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import json
import logging
import shlex
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import stdio
from .client import Client
from .jsonrpc import ConnectionClosed, McpError, MethodNotFound, RequestTimeout
from .server import Server

DEFAULT_TARGET = "mcp_ref.demo_server:server"


def load_server(target: str) -> Server:
    """Import ``module:attribute`` (or ``path/to/file.py:attribute``); call it if it is a factory."""
    module_name, _, attribute = target.partition(":")
    attribute = attribute or "server"
    if module_name.endswith(".py"):
        path = Path(module_name)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None:
            raise SystemExit(f"mcp-ref: cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(module_name)
    obj = getattr(module, attribute, None)
    if obj is None:
        raise SystemExit(f"mcp-ref: {module_name} has no attribute {attribute!r}")
    if inspect.isfunction(obj):  # a factory: def make_server() -> Server
        obj = obj()
    if not isinstance(obj, Server):
        raise SystemExit(f"mcp-ref: {target} is not an mcp_ref Server")
    return obj


def _print_trace(direction: str, data: bytes) -> None:
    arrow = "client -> server" if direction == "->" else "client <- server"
    sys.stderr.write(f"{arrow}  {data.decode('utf-8', 'replace')}\n")
    sys.stderr.flush()


class TraceFile:
    """A session ``trace`` hook that appends each message to a file: ``-> {json}`` sent by the
    server, ``<- {json}`` received. For seeing what a host application and a server say."""

    def __init__(self, path: str):
        self._file = open(path, "ab", buffering=0)  # noqa: SIM115 - lives as long as the server
        self._lock = threading.Lock()

    def __call__(self, direction: str, data: bytes) -> None:
        with self._lock:
            self._file.write(direction.encode() + b" " + data + b"\n")


def cmd_serve(args: argparse.Namespace) -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    server = load_server(args.target)
    trace = TraceFile(args.trace_file) if args.trace_file else None
    if args.transport == "stdio":
        if sys.stdin.isatty():  # a person, not a client: say what is going on (on stderr, TR-04)
            print(f"mcp-ref: serving {server.name} on stdin/stdout; type one JSON-RPC message per line, "
                  "Ctrl-D to stop", file=sys.stderr)
        stdio.serve(lambda transport: server.open_session(transport, trace=trace))
        return 0

    def ready(url: str) -> None:
        print(f"mcp-ref: serving {server.name} over HTTP with SSE at {url}", flush=True)

    server.serve_sse(args.host, args.port, on_ready=ready, trace=trace)
    return 0


def _sampling_reply(text: str | None) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The CLI's sampling handler: answer with --sampling-reply TEXT, or refuse clearly."""
    def answer(params: dict[str, Any]) -> dict[str, Any]:
        if text is None:
            raise MethodNotFound("no sampling handler is configured: pass --sampling-reply TEXT to answer")
        return {"role": "assistant", "content": {"type": "text", "text": text}, "model": "mcp-ref-cli",
                "stopReason": "endTurn"}
    return answer


def cmd_request(args: argparse.Namespace) -> int:
    params: dict[str, Any] | None = None
    if args.params is not None:
        try:
            params = json.loads(args.params)
        except ValueError as exc:
            print(f"mcp-ref: PARAMS_JSON is not valid JSON: {exc}", file=sys.stderr)
            return 2
        if not isinstance(params, dict):
            print("mcp-ref: PARAMS_JSON must be a JSON object", file=sys.stderr)
            return 2
    options: dict[str, Any] = {"sampling_handler": _sampling_reply(args.sampling_reply), "timeout": args.timeout,
                               "trace": _print_trace if args.trace else None}
    if args.root:
        options["roots"] = [{"uri": uri} for uri in args.root]
    target = args.stdio or args.sse
    try:
        if args.stdio:
            client = Client.stdio(shlex.split(args.stdio), **options)
        else:
            client = Client.sse(args.sse, **options)
    except (ConnectionClosed, RequestTimeout, OSError, ValueError) as exc:
        print(f"mcp-ref: could not connect to {target!r}: {exc}", file=sys.stderr)
        return 2
    except McpError as exc:
        print(f"mcp-ref: the server refused initialize: {exc.message} (code {exc.code})", file=sys.stderr)
        return 2
    with client:
        try:
            result = client.request(args.method, params)
        except (ConnectionClosed, RequestTimeout) as exc:
            print(f"mcp-ref: {exc}", file=sys.stderr)
            return 2
        except McpError as exc:
            print(json.dumps(exc.to_error(), ensure_ascii=False))
            return 1
    print(json.dumps(result, ensure_ascii=False))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mcp-ref", description="mcp_ref: MCP 2024-11-05, synchronously.")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run a server over stdio")
    serve.add_argument("target", nargs="?", default=DEFAULT_TARGET,
                       help=f"module:attribute of an mcp_ref Server (default: {DEFAULT_TARGET})")
    serve.add_argument("--transport", choices=["stdio", "sse"], default="stdio", help="default: stdio")
    serve.add_argument("--host", default="127.0.0.1", help="for sse: the address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="for sse: the port (default 8000; 0 picks a free one)")
    serve.add_argument("--trace-file", metavar="PATH", help="append every message, with its direction, to PATH")
    serve.set_defaults(func=cmd_serve)

    request = sub.add_parser("request", help="connect, initialize, send one request, print the result")
    where = request.add_mutually_exclusive_group(required=True)
    where.add_argument("--stdio", metavar="CMD", help='spawn this server command, e.g. "mcp-ref serve"')
    where.add_argument("--sse", metavar="URL", help="connect to this SSE endpoint, e.g. http://127.0.0.1:8000/sse")
    request.add_argument("method")
    request.add_argument("params", nargs="?", metavar="PARAMS_JSON")
    request.add_argument("--timeout", type=float, default=30.0, metavar="S", help="seconds (default 30)")
    request.add_argument("--trace", action="store_true", help="print every message on stderr")
    request.add_argument("--sampling-reply", metavar="TEXT",
                         help="answer sampling/createMessage with this text (without it: an error)")
    request.add_argument("--root", action="append", metavar="URI", default=[],
                         help="a file:// root to offer the server (repeatable)")
    request.set_defaults(func=cmd_request)

    demo = sub.add_parser("demo", help="a scripted tour of the demo server, showing the wire")
    demo.set_defaults(func=cmd_demo)

    from .check.cli import add_check_parser  # the conformance kit: mcp-ref check --list

    add_check_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))
