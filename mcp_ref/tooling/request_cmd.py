"""``mcp-ref request`` and ``mcp-ref inspect``: talking to a server from the command line.

Not a spec section: a thin shell over ``Client``. Both connect the same way (``--stdio "CMD"``,
``--sse URL`` or ``--http URL``), initialize, and then ``request`` sends one request and prints
its result as JSON, while ``inspect`` prints one screen about the server (inspect_cmd.py). What
the server says meanwhile is shown on stderr as it arrives: its log messages (``LogDisplay``),
and the progress of the request (``ProgressDisplay``). The exit codes are cli.py's.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Callable
from typing import Any, TextIO, TypeGuard

from ..client import Client
from ..messages import CONNECTION_CLOSED, ConnectionClosed, McpError, MethodNotFound, RequestTimeout, json_type
from .inspect_cmd import printable

TOOL_ERROR = 3  # request: tools/call answered with a result whose isError is true


def _fail(message: str) -> int:
    print(f"mcp-ref: {message}", file=sys.stderr)
    return 2



def add_connection_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--stdio", metavar="CMD", help='spawn this server command, e.g. "mcp-ref serve"')
    where.add_argument("--sse", metavar="URL", help="connect to this SSE endpoint, e.g. http://127.0.0.1:8000/sse")
    where.add_argument("--http", metavar="URL", help="connect to this Streamable HTTP endpoint, e.g. "
                                                    "http://127.0.0.1:8000/mcp (an HTTP with SSE one works too)")
    parser.add_argument("--timeout", type=float, default=30.0, metavar="S", help="seconds (default 30)")
    parser.add_argument("--trace", action="store_true", help="print every message on stderr")
    parser.add_argument("--explain", action="store_true",
                        help="print every message on stderr with its spec page and requirement IDs")


def _connect(args: argparse.Namespace, **options: Any) -> Client | None:
    """Connect as ``--stdio``/``--sse`` say; on failure say why on stderr and return None."""
    trace: Any = args.trace
    if args.explain:
        from .explain import tracer

        trace = tracer("client", show_json=args.trace)
    options.update(timeout=args.timeout, trace=trace)
    target = args.stdio or args.sse or args.http
    try:
        if args.stdio:
            return Client.stdio(shlex.split(args.stdio), **options)
        if args.http:
            return Client.http(args.http, **options)
        return Client.sse(args.sse, **options)
    except (ConnectionClosed, RequestTimeout, OSError, ValueError) as exc:
        _fail(_could_not_connect(target, str(exc)))
    except McpError as exc:
        if exc.code == CONNECTION_CLOSED:  # HttpError: the SSE endpoint refused, with its reason
            _fail(_could_not_connect(target, exc.message))
        else:
            _fail(f"the server refused initialize: {exc.message} (code {exc.code})")
    return None


def _could_not_connect(target: str, reason: str) -> str:
    """One sentence: the SSE client's messages already begin ``could not connect to URL: ...``
    (what happened, then what to check); any other reason gets that beginning here."""
    return reason if reason.startswith(f"could not connect to {target}") else f"could not connect to {target!r}: {reason}"


class LogDisplay:
    """``request``'s ``on_log_message``: each ``notifications/message`` the server sends, as one
    line on stderr the moment it arrives: ``[server log] warning demo: {"message": "..."}``.
    A progress bar being drawn is ended first, so the two do not share a line."""

    def __init__(self, stream: TextIO, progress: ProgressDisplay):
        self.stream = stream
        self.progress = progress

    def __call__(self, params: dict[str, Any]) -> None:
        level, logger, data = params.get("level"), params.get("logger"), params.get("data")
        # A string as it is, unless it holds control characters (a newline...): then as JSON, escaped.
        plain = isinstance(data, str) and printable(data) == data
        text = data if plain else json.dumps(data, ensure_ascii=False, default=repr)
        source = f"{level} {logger}" if logger is not None else f"{level}"
        self.progress.finish()
        # The server's text, with control characters shown as "?", one line per message.
        self.stream.write(printable(f"[server log] {source}: {text}") + "\n")
        self.stream.flush()


# Shown when PARAMS_JSON is not a JSON object: what the params of each method look like.
PARAMS_EXAMPLES = {
    "tools/call": '{"name": "add", "arguments": {"a": 2, "b": 3}}',
    "prompts/get": '{"name": "review_code", "arguments": {"code": "x = 1"}}',
    "resources/read": '{"uri": "demo://readme"}',
    "resources/subscribe": '{"uri": "demo://counter"}',
    "resources/unsubscribe": '{"uri": "demo://counter"}',
    "completion/complete": '{"ref": {"type": "ref/prompt", "name": "review_code"}, '
                           '"argument": {"name": "language", "value": "py"}}',
    "logging/setLevel": '{"level": "info"}',
    "tools/list": '{"cursor": "NEXT_CURSOR"}',
    "resources/list": '{"cursor": "NEXT_CURSOR"}',
    "resources/templates/list": '{"cursor": "NEXT_CURSOR"}',
    "prompts/list": '{"cursor": "NEXT_CURSOR"}',
}


def params_example(method: str) -> str:
    """What to write instead of a PARAMS_JSON that is not a JSON object, for ``method``."""
    if method == "ping":
        return "ping needs no params: leave PARAMS_JSON out"
    example = PARAMS_EXAMPLES.get(method)
    if example is None:
        return ("write it as a JSON object in single quotes, e.g. '{\"name\": \"value\"}' (the shell then "
                "keeps the double quotes)")
    optional = " (or leave it out)" if "NEXT_CURSOR" in example else ""
    return f"for {method} write it like '{example}'{optional}, in single quotes so the shell keeps the double quotes"


def _tool_error_text(result: dict[str, Any]) -> str:
    """The text items of a tool's ``isError`` result, joined; what ``request`` shows on stderr."""
    content = result.get("content")
    texts = [str(item.get("text")) for item in (content if isinstance(content, list) else [])
             if isinstance(item, dict) and item.get("type") == "text"]
    return printable(" ".join(texts)) or "(the result has no text)"


def _sampling_reply(text: str | None) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The CLI's sampling handler: answer with --sampling-reply TEXT, or refuse clearly."""
    def answer(params: dict[str, Any]) -> dict[str, Any]:
        if text is None:
            raise MethodNotFound("no sampling handler is configured: pass --sampling-reply TEXT to answer")
        return {"role": "assistant", "content": {"type": "text", "text": text}, "model": "mcp-ref-cli",
                "stopReason": "endTurn"}
    return answer


class ProgressDisplay:
    """``request``'s progress callback: on a terminal, a bar redrawn in place with ``\\r``;
    otherwise one plain line per notification, ``progress 3/5``."""

    BAR_WIDTH = 30

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.on_terminal = stream.isatty()
        self._drawn = False

    def __call__(self, params: dict[str, Any]) -> None:
        try:
            self._show(params.get("progress"), params.get("total"))
        except (ArithmeticError, ValueError):  # absurd numbers from the server: show nothing
            pass

    def _show(self, progress: Any, total: Any) -> None:
        count = _number(progress) + (f"/{_number(total)}" if total is not None else "")
        if not self.on_terminal:
            self.stream.write(f"progress {count}\n")
        elif _is_number(progress) and _is_number(total) and total > 0:
            filled = max(0, min(self.BAR_WIDTH, int(self.BAR_WIDTH * progress / total)))
            self.stream.write(f"\r[{'#' * filled}{'.' * (self.BAR_WIDTH - filled)}] {count}")
            self._drawn = True
        else:
            self.stream.write(f"\rprogress {count}")
            self._drawn = True
        self.stream.flush()

    def finish(self) -> None:
        """End the bar's line, if one was drawn."""
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False


def _is_number(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number(value: Any) -> str:
    return f"{value:g}" if _is_number(value) else repr(value)[:20]


def cmd_request(args: argparse.Namespace) -> int:
    params: dict[str, Any] | None = None
    if args.params is not None:
        try:
            params = json.loads(args.params)
        except ValueError as exc:
            return _fail(f"PARAMS_JSON is not valid JSON ({exc}); {params_example(args.method)}")
        if not isinstance(params, dict):
            return _fail(f"PARAMS_JSON must be a JSON object, not {json_type(params)}; "
                         f"{params_example(args.method)}")
    progress = ProgressDisplay(sys.stderr)
    options: dict[str, Any] = {"sampling_handler": _sampling_reply(args.sampling_reply)}
    if args.root:
        options["roots"] = [{"uri": uri} for uri in args.root]
    if not args.quiet:
        options["on_log_message"] = LogDisplay(sys.stderr, progress)
    client = _connect(args, **options)
    if client is None:
        return 2
    with client:
        try:  # on_progress puts a progressToken in the params' _meta (PROG-01)
            result = client.request(args.method, params, on_progress=None if args.no_progress else progress)
        except (ConnectionClosed, RequestTimeout) as exc:
            return _fail(str(exc))
        except McpError as exc:
            print(json.dumps(exc.to_error(), ensure_ascii=False))
            return 1
        finally:
            progress.finish()
    print(json.dumps(result, ensure_ascii=False))
    if args.method == "tools/call" and result.get("isError") is True:  # the tool ran, and failed
        print(f"mcp-ref: the tool reported an error: {_tool_error_text(result)}", file=sys.stderr)
        return TOOL_ERROR
    return 0


def cmd_inspect(args: argparse.Namespace) -> int:
    from .inspect_cmd import gather, render

    client = _connect(args)
    if client is None:
        return 2
    with client:
        try:
            info = gather(client)
        except McpError as exc:  # the connection ended or a list timed out
            return _fail(str(exc))
    print(json.dumps(info, ensure_ascii=False, indent=2) if args.json else render(info))
    return 0
