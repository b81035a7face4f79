"""``mcp-ref request`` and ``mcp-ref inspect``: talking to a server from the command line.

Not a spec section: a thin shell over ``Client``. Both connect the same way (``--stdio "CMD"``,
``--sse URL`` or ``--http URL``), initialize, and then ``request`` sends one request and prints
its result as JSON, while ``inspect`` prints one screen about the server (inspect_cmd.py). What
the server says meanwhile is shown on stderr as it arrives: its log messages (``LogDisplay``),
and the progress of the request (``ProgressDisplay``). The exit codes are cli.py's.

Which revision: these are tools for the servers of today, so by default the client offers every
revision mcp_ref speaks and the session is the newest both sides speak (lifecycle.py;
2026-07-28 after a ``server/discover`` probe, revisions/stateless_client.py, where ``request`` asks
for log messages of every level, as a session of the handshake gets them unasked);
``--protocol-version V`` offers V alone (``Client(protocol_versions=[V])``), e.g. 2024-11-05 to
see a server as the base revision sees it. ``mcp-ref demo`` is a lesson, not a tool: it speaks
2024-11-05 unless told otherwise (demo.py).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO, TypeGuard

from ..client import Client
from ..lifecycle import ALL_REVISIONS, STATELESS_REVISIONS
from ..machinery.reach import not_started
from ..messages import CONNECTION_CLOSED, ConnectionClosed, McpError, RequestTimeout, json_type
from ..roots import check_roots
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
    add_protocol_version_argument(parser, default=None)


def add_protocol_version_argument(parser: argparse.ArgumentParser, default: str | None) -> None:
    """``--protocol-version V``: the one revision the client offers (one of lifecycle.ALL_REVISIONS:
    2026-07-28, without a handshake, too: revisions/stateless_client.py)."""
    said = (f"default {default}" if default else
            "default: offer every one, probing for 2026-07-28 first, and use the newest the server speaks")
    parser.add_argument("--protocol-version", choices=ALL_REVISIONS, default=default, metavar="V",
                        help=f"offer only this protocol revision, one of {', '.join(ALL_REVISIONS)} ({said})")


def _connect(args: argparse.Namespace, display: ProgressDisplay | None = None, **options: Any) -> Client | None:
    """Connect as ``--stdio``, ``--sse`` or ``--http`` say; on failure say why on stderr (what
    happened, then what to check) and return None. With a ``display``, the ``--trace`` and
    ``--explain`` lines go through it, so that they never share a line with its progress bar."""
    write = display.write_line if display is not None else None
    trace: Any = args.trace
    if args.explain:
        from .explain import Explainer, tracer

        trace = Explainer(write, side="client", show_json=args.trace) if write else tracer("client", show_json=args.trace)
    elif args.trace and write is not None:
        trace = _wire_lines(write)
    options.update(timeout=args.timeout, trace=trace)
    if args.protocol_version is not None:
        options["protocol_versions"] = [args.protocol_version]
    if args.stdio is not None:
        return _connect_stdio(args.stdio, options)
    target = args.http if args.http is not None else args.sse
    try:
        if args.http is not None:
            return Client.http(args.http, **options)
        return Client.sse(args.sse, **options)
    except (ConnectionClosed, RequestTimeout, OSError, ValueError) as exc:
        _fail(_could_not_connect(target, str(exc)))
    except McpError as exc:
        if exc.code == CONNECTION_CLOSED:  # HttpError: the endpoint refused, with its reason
            _fail(_could_not_connect(target, exc.message))
        else:
            _fail(f"the server refused initialize: {exc.message} (code {exc.code})")
    return None


def _wire_lines(write: Callable[[str], None]) -> Callable[[str, bytes], None]:
    """``--trace``: each message as ``Client(trace=True)`` prints it, one whole line through ``write``."""
    def trace(direction: str, data: bytes) -> None:
        arrow = "client -> server" if direction == "->" else "client <- server"
        write(f"{arrow}  {data.decode('utf-8', 'replace')}")
    return trace


def _connect_stdio(command_line: str, options: dict[str, Any]) -> Client | None:
    """``--stdio``: split the command as a shell would, start it, initialize. A failure says what
    to check: the program's name and PATH, its permissions, or what the program did instead."""
    try:
        command = shlex.split(command_line)
    except ValueError as exc:  # "No closing quotation"
        _fail(f"--stdio {command_line!r} cannot be split into words ({str(exc).lower()}); check its quotes")
        return None
    if not command:
        _fail("--stdio needs the server's command, e.g. --stdio 'mcp-ref serve' or --stdio 'python server.py'")
        return None
    try:
        return Client.stdio(command, **options)
    except McpError as exc:
        if exc.code != CONNECTION_CLOSED:
            _fail(f"the server refused initialize: {exc.message} (code {exc.code})")
        else:
            _fail(_why_not_started(command_line, command[0], exc))
    except (OSError, ValueError) as exc:
        _fail(f"could not connect to {command_line!r}: {exc}")
    return None


def _why_not_started(command_line: str, program: str, exc: McpError) -> str:
    """Why a stdio server did not answer ``initialize``, and what to check."""
    not_found = not_started(program, exc)
    if not_found is not None:
        return f"could not start {command_line!r}: {not_found}"
    if "exited" in exc.message:  # the server's own stderr, if it said anything, is on ours already
        return (f"could not connect to {command_line!r}: {exc.message.removeprefix('Connection closed: ')}; check "
                "that the command serves MCP on its stdin and stdout: run it alone to see what it does")
    return f"could not connect to {command_line!r}: {exc.message}"


def _could_not_connect(target: str, reason: str) -> str:
    """One sentence: the HTTP clients' messages already begin ``could not connect to URL: ...``
    (what happened, then what to check); any other reason gets that beginning here."""
    reason = reason.removeprefix("Connection closed: ")
    return reason if reason.startswith(f"could not connect to {target}") else f"could not connect to {target!r}: {reason}"


class LogDisplay:
    """``request``'s ``on_log_message``: each ``notifications/message`` the server sends, as one
    line on stderr the moment it arrives: ``[server log] warning demo: {"message": "..."}``.
    It goes through the progress display, so it never shares a line with the bar."""

    def __init__(self, stream: TextIO, progress: ProgressDisplay):
        self.stream = stream
        self.progress = progress

    def __call__(self, params: dict[str, Any]) -> None:
        level, logger, data = params.get("level"), params.get("logger"), params.get("data")
        # A string as it is, unless it holds control characters (a newline...): then as JSON, escaped.
        plain = isinstance(data, str) and printable(data) == data
        text = data if plain else json.dumps(data, ensure_ascii=False, default=repr)
        source = f"{level} {logger}" if logger is not None else f"{level}"
        # The server's text, with control characters shown as "?", one line per message.
        self.progress.write_line(printable(f"[server log] {source}: {text}"))


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


def _roots(uris: list[str]) -> list[dict[str, Any]] | str:
    """The roots ``--root`` names, checked now (ROOT-03, ROOT-07); or what is wrong with one."""
    for uri in uris:
        try:
            check_roots([{"uri": uri}])
        except ValueError as exc:
            if uri.startswith("file://"):
                return f"--root {uri!r}: {exc}"
            return f"--root takes a file:// URI, not {uri!r}; e.g. --root {Path(uri).absolute().as_uri()}"
    return [{"uri": uri} for uri in uris]


def _tool_error_text(result: dict[str, Any]) -> str:
    """The text items of a tool's ``isError`` result, joined; what ``request`` shows on stderr."""
    content = result.get("content")
    texts = [str(item.get("text")) for item in (content if isinstance(content, list) else [])
             if isinstance(item, dict) and item.get("type") == "text"]
    return printable(" ".join(texts)) or "(the result has no text)"


def _sampling_reply(text: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The CLI's sampling handler, given only with --sampling-reply TEXT: it answers with TEXT."""
    def answer(params: dict[str, Any]) -> dict[str, Any]:
        return {"role": "assistant", "content": {"type": "text", "text": text}, "model": "mcp-ref-cli",
                "stopReason": "endTurn"}
    return answer


# The client capabilities ``request`` declares only when given an option, and that option: the
# client declares only what it can answer (SAMP-05, ROOT-01), so a server may well ask for nothing.
DECLARED_BY = {"sampling": "--sampling-reply TEXT", "roots": "--root URI"}


def _undeclared_notes(args: argparse.Namespace, text: str) -> list[str]:
    """For an error whose text names a capability this run did not declare: which option declares it."""
    given = {"sampling": args.sampling_reply is not None, "roots": bool(args.root)}
    return [f"mcp-ref: note: this client declared no {capability} capability; {option} declares it"
            for capability, option in DECLARED_BY.items() if not given[capability] and capability in text.lower()]


class ProgressDisplay:
    """``request``'s progress callback: on a terminal, a bar redrawn in place with ``\\r``;
    otherwise one plain line per notification, ``progress 3/5``.

    Everything else ``request`` shows on stderr while the bar may be drawn (the server's log
    messages, the ``--trace`` and ``--explain`` lines) goes through ``write_line``, which ends
    the bar's line first: on a terminal no line runs into the bar. One lock keeps the reader
    thread's lines and the caller's whole."""

    BAR_WIDTH = 30

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.on_terminal = stream.isatty()
        self._drawn = False
        self._lock = threading.Lock()

    def __call__(self, params: dict[str, Any]) -> None:
        try:
            with self._lock:
                self._show(params.get("progress"), params.get("total"))
        except (ArithmeticError, ValueError):  # absurd numbers from the server: show nothing
            pass

    def write_line(self, text: str) -> None:
        """One whole line on the stream, on a line of its own (a bar being drawn is ended first)."""
        with self._lock:
            self._end_bar()
            self.stream.write(text + "\n")
            self.stream.flush()

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
        with self._lock:
            self._end_bar()

    def _end_bar(self) -> None:
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
        corrected = getattr(args, "corrected", None)  # --stdio python server.py ping: see argv_hints.py
        try:
            params = json.loads(args.params)
        except ValueError as exc:
            if corrected:
                return _fail(f"PARAMS_JSON {args.params!r} is not JSON: if {args.method!r} belongs to the server's "
                             f"command, {corrected}")
            return _fail(f"PARAMS_JSON is not valid JSON ({exc}); {params_example(args.method)}")
        if not isinstance(params, dict):
            return _fail(f"PARAMS_JSON must be a JSON object, not {json_type(params)}; "
                         f"{params_example(args.method)}")
    progress = ProgressDisplay(sys.stderr)
    options: dict[str, Any] = {}
    if args.sampling_reply is not None:  # SAMP-05: sampling is declared only when it can be answered
        options["sampling_handler"] = _sampling_reply(args.sampling_reply)
    if args.root:
        roots = _roots(args.root)
        if isinstance(roots, str):
            return _fail(roots)
        # ROOT-01: roots declared only when given. A function rather than the list: this client never
        # changes its roots, so it declares them without listChanged (it sends no list_changed).
        options["roots"] = lambda: roots
    if not args.quiet:
        options["on_log_message"] = LogDisplay(sys.stderr, progress)
    client = _connect(args, progress, **options)
    if client is None:
        return 2
    with client:
        if not args.quiet and client.protocol_version in STATELESS_REVISIONS and "logging" in client.server_capabilities:
            client.set_logging_level("debug")  # 2026-07-28: log messages come only at a level asked for (LOGX-01)
        try:  # on_progress puts a progressToken in the params' _meta (PROG-01)
            result = client.request(args.method, params, on_progress=None if args.no_progress else progress)
        except (ConnectionClosed, RequestTimeout) as exc:
            return _fail(str(exc))
        except McpError as exc:
            print(json.dumps(exc.to_error(), ensure_ascii=False))
            for note in _undeclared_notes(args, exc.message):
                print(note, file=sys.stderr)
            return 1
        finally:
            progress.finish()
    print(json.dumps(result, ensure_ascii=False))
    if args.method == "tools/call" and result.get("isError") is True:  # the tool ran, and failed
        text = _tool_error_text(result)
        print(f"mcp-ref: the tool reported an error: {text}", file=sys.stderr)
        for note in _undeclared_notes(args, text):
            print(note, file=sys.stderr)
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
