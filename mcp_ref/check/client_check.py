"""Checking a client: the kit's checking server, what it records, and the probes it sends.

Not a spec section: the checker's runner for ``mcp-ref check client -- CMD ARGS...``.

1. The kit opens a *link* for the client to reach: over stdio, a local socket that relay.py
   (the command put in place of ``{server}``) connects back to; over SSE, a small HTTP server on
   127.0.0.1 whose URL replaces ``{server}``. Every byte the client sends is recorded.
2. The *checking server* speaks MCP on the link: it answers initialize (2024-11-05, with tools,
   prompts and logging, and without resources), ping, the tools and prompts methods, setLevel and
   completion, and -32601 for anything else.
3. Once the client has sent ``notifications/initialized`` the server *probes* it: a ping, a
   request for a method no client has (-32601 expected), roots/list and sampling/createMessage
   if the client declared them, a log message and list_changed notifications, and a last ping.
   The answer to the client's first request after initialization waits for the probes (each
   bounded by the step timeout), so a short-lived client stays long enough to be probed.
4. The client runs until it exits (at most ``run_timeout``); the client cases then judge the
   recorded session (client_cases.py).
"""

from __future__ import annotations

import http.server
import os
import queue
import secrets
import select
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
import urllib.parse
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .model import Abort, CaseResult, Recorder, Skipped, Status, all_client_cases, status_of
from .model import select as select_cases
from .shapes import as_dict
from .wire import Incoming, WaitTimeout, Wire, encode

RELAY = str(Path(__file__).with_name("relay.py"))
PROBES = 6  # requests the checking server may send the client (see CheckingServer._probe)
SERVER_INFO = {"name": "mcp-ref-check", "version": "0.1.0"}
# What the checking server declares: no resources, so a client that lists them anyway is using a
# capability that was never negotiated (LC-15).
SERVER_CAPABILITIES: dict[str, Any] = {"tools": {"listChanged": True}, "prompts": {"listChanged": True}, "logging": {}}
ECHO_TOOL = {"name": "echo", "description": "Returns its text argument.",
             "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}
HELLO_PROMPT = {"name": "hello", "description": "Say hello.", "arguments": [{"name": "name", "required": False}]}


class SetupFailed(Exception):
    """The client could not be run, or never connected (exit status 2)."""


@dataclass
class ClientOptions:
    timeout: float = 5.0  # seconds per step
    run_timeout: float = 30.0  # seconds the client may run in all
    sse: bool = False
    only: list[str] = field(default_factory=list)


# --- links: how the client reaches the checking server -------------------------------------------


class StdioLink(Wire):
    """A local socket the relay connects back to; the relay is the client's "server" process."""

    kind = "stdio"

    def __init__(self, timeout: float) -> None:
        super().__init__(timeout)
        self.lines: list[bytes] = []
        self.events: list[tuple[str, int]] = []  # (event, transcript length when it happened)
        self._token = secrets.token_hex(16)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._data: socket.socket | None = None
        self.connected = threading.Event()
        self._send_lock = threading.Lock()
        threading.Thread(target=self._accept, name="check-link-accept", daemon=True).start()

    @property
    def server_argument(self) -> str:
        port = self._listener.getsockname()[1]
        return shlex.join([sys.executable, RELAY, "127.0.0.1", str(port), self._token])

    def _accept(self) -> None:
        roles = 0
        while roles < 2:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            conn.settimeout(self.timeout)
            try:
                hello = b""
                while not hello.endswith(b"\n") and len(hello) < 200:
                    byte = conn.recv(1)
                    if not byte:
                        break
                    hello += byte
            except OSError:
                conn.close()
                continue
            conn.settimeout(None)
            token, _, role = hello.decode("ascii", "replace").strip().partition(" ")
            if token != self._token:
                conn.close()
                continue
            roles += 1
            if role == "data":
                self._data = conn
                self.connected.set()
                threading.Thread(target=self._read_data, args=(conn,), name="check-link-data", daemon=True).start()
            else:
                threading.Thread(target=self._read_events, args=(conn,), name="check-link-events", daemon=True).start()

    def _read_data(self, conn: socket.socket) -> None:
        buffer = b""
        try:
            while True:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    self.lines.append(line)
                    self._deliver(line)
        except OSError:
            pass
        if buffer:
            self.lines.append(buffer)
            self._deliver(buffer)
        try:
            conn.close()  # the server's stdin ended: the "server" (the relay) now exits
        except OSError:
            pass
        self.event("data-closed")
        self.closed_by_peer = True
        self._incoming.put(None)

    def _read_events(self, conn: socket.socket) -> None:
        try:
            for raw in conn.makefile("rb"):
                self.event(raw.decode("ascii", "replace").strip())
        except OSError:
            pass
        self.event("relay-gone")

    def event(self, name: str) -> None:
        with self._lock:
            self.events.append((name, len(self.transcript)))
        self.note(f"event: {name}")

    def send_raw(self, data: bytes) -> None:
        self.send_recorded(data)

    def send_recorded(self, data: bytes) -> int:
        """Record, then write, one message; return its place in the transcript."""
        line = data if data.endswith(b"\n") else data + b"\n"
        seq = self._record("sent", line.rstrip(b"\n").decode("utf-8", "replace"), _parsed(line))
        conn = self._data
        if conn is not None:
            with self._send_lock:
                try:
                    conn.sendall(line)
                except OSError:
                    pass
        return seq

    def close(self) -> None:
        for sock in (self._data, self._listener):
            if sock is not None:
                try:
                    sock.close()
                except OSError:
                    pass


def _parsed(line: bytes) -> Any:
    import json

    try:
        return json.loads(line)
    except ValueError:
        return None


class SseLink(Wire):
    """An HTTP server on 127.0.0.1 speaking the server's half of HTTP with SSE, for one client."""

    kind = "sse"

    def __init__(self, timeout: float) -> None:
        super().__init__(timeout)
        self.events: list[tuple[str, int]] = []
        self.posts: list[tuple[str, int]] = []  # (path, status) of every POST
        self.gets = 0
        self._session = secrets.token_hex(16)
        self._outbox: queue.Queue[bytes | None] = queue.Queue()
        self.connected = threading.Event()
        self.endpoint = f"/messages?session={self._session}"
        link = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                link.handle_get(self)

            def do_POST(self) -> None:
                link.handle_post(self)

        self._http = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._http.daemon_threads = True
        threading.Thread(target=self._http.serve_forever, name="check-sse-link", daemon=True).start()

    @property
    def server_argument(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}/sse"

    def event(self, name: str) -> None:
        with self._lock:
            self.events.append((name, len(self.transcript)))
        self.note(f"event: {name}")

    def handle_get(self, request: http.server.BaseHTTPRequestHandler) -> None:
        self.gets += 1
        if urllib.parse.urlsplit(request.path).path != "/sse" or self.connected.is_set():
            self.note(f"GET {request.path} refused (404): one event stream, at /sse")
            request.send_error(404)
            return
        self.connected.set()
        request.send_response(200)
        request.send_header("Content-Type", "text/event-stream")
        request.send_header("Cache-Control", "no-cache")
        request.end_headers()
        try:
            request.wfile.write(b"event: endpoint\ndata: " + self.endpoint.encode() + b"\n\n")
            request.wfile.flush()
            self._record("sent", self.endpoint, event="endpoint")
            while True:
                try:
                    data = self._outbox.get(timeout=0.2)
                except queue.Empty:
                    if _peer_gone(request.connection):
                        break
                    continue
                if data is None:
                    break
                request.wfile.write(b"event: message\ndata: " + data + b"\n\n")
                request.wfile.flush()
        except OSError:
            pass
        self.event("stream-closed")
        self.closed_by_peer = True
        self._incoming.put(None)

    def handle_post(self, request: http.server.BaseHTTPRequestHandler) -> None:
        length = int(request.headers.get("Content-Length") or 0)
        body = request.rfile.read(min(length, 4 * 1024 * 1024))
        parts = urllib.parse.urlsplit(request.path)
        session = urllib.parse.parse_qs(parts.query).get("session", [""])[0]
        status = 202 if parts.path == "/messages" and session == self._session else 404
        self.posts.append((request.path, status))
        if status == 202:
            self._deliver(body)
        else:
            self.note(f"POST {request.path} refused (404): not the endpoint this server announced")
        request.send_response(status)
        request.send_header("Content-Type", "text/plain")
        request.end_headers()
        request.wfile.write(b"Accepted" if status == 202 else b"unknown session")

    def send_raw(self, data: bytes) -> None:
        self.send_recorded(data)

    def send_recorded(self, data: bytes) -> int:
        """Record, then queue for the stream, one message; return its place in the transcript."""
        seq = self._record("sent", data.decode("utf-8", "replace"), _parsed(data))
        self._outbox.put(data)
        return seq

    def close(self) -> None:
        self._outbox.put(None)
        self._http.shutdown()
        self._http.server_close()


def _peer_gone(sock: Any) -> bool:
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable) and sock.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


# --- the record of a client session ---------------------------------------------------------------


@dataclass
class Probe:
    """A request the checking server sent the client, and its answer."""

    name: str
    sent: str
    request_id: Any
    reply: dict[str, Any] | None = None
    got: str | None = None
    gone: bool = False  # the client disconnected before answering


@dataclass
class ClientSession:
    """Everything the checking server saw, for the client cases to judge."""

    transport: str
    link: Any = None
    from_client: list[Incoming] = field(default_factory=list)
    client_init: dict[str, Any] | None = None
    init_answered_at: int | None = None  # transcript index of our initialize result
    probes: dict[str, Probe] = field(default_factory=dict)
    probe_order: list[str] = field(default_factory=list)
    notifications_sent: list[str] = field(default_factory=list)
    exit_code: int | None = None
    killed_by_kit: bool = False
    stderr_tail: deque[str] = field(default_factory=lambda: deque(maxlen=20))

    @property
    def client_info(self) -> dict[str, Any] | None:
        info = (self.client_init or {}).get("clientInfo")
        return info if isinstance(info, dict) else None

    @property
    def client_capabilities(self) -> dict[str, Any]:
        caps = (self.client_init or {}).get("capabilities")
        return caps if isinstance(caps, dict) else {}

    @property
    def proposed_version(self) -> Any:
        return (self.client_init or {}).get("protocolVersion")

    def messages(self) -> list[dict[str, Any]]:
        return [e.as_dict() for e in self.link.sent_and_received()] if self.link is not None else []


class CheckingServer:
    """The MCP server the client under test talks to; it records, answers and probes."""

    def __init__(self, link: Any, session: ClientSession, timeout: float) -> None:
        self.link = link
        self.s = session
        self.timeout = timeout
        self._pending: dict[str, tuple[threading.Event, Probe]] = {}
        self._lock = threading.Lock()
        self.probes_done = threading.Event()
        self.prober: threading.Thread | None = None
        self._closed = False  # the client is gone: probes are not sent any more
        self._probing = False
        self._operating = False

    def serve(self) -> None:
        while True:
            try:
                incoming = self.link.receive(3600)
            except WaitTimeout:
                continue
            if incoming is None:
                break
            self.s.from_client.append(incoming)
            msg = incoming.msg
            if not isinstance(msg, dict):
                continue
            if msg.get("method") == "initialize" and "id" in msg:
                self._answer(msg)  # at once, so the phase is set before the next message is read
            elif isinstance(msg.get("method"), str) and "id" in msg:
                threading.Thread(target=self._answer, args=(msg,), daemon=True).start()
            elif isinstance(msg.get("method"), str):
                self._on_notification(msg)
            else:
                self._on_response(msg, incoming.raw)
        with self._lock:  # the client is gone: nothing pending will be answered
            self._closed = True
            for event, probe in self._pending.values():
                probe.gone = True
                event.set()

    def _send(self, msg: dict[str, Any]) -> int:
        """Send one message; return its place in the transcript (recorded before it leaves)."""
        return int(self.link.send_recorded(encode(msg)))

    # --- the client's requests ---------------------------------------------------------------

    def _answer(self, msg: dict[str, Any]) -> None:
        method, rid = msg["method"], msg["id"]
        params = as_dict(msg.get("params"))
        if method == "initialize":
            if self.s.client_init is None:
                self.s.client_init = params
                result = {"protocolVersion": "2024-11-05", "capabilities": SERVER_CAPABILITIES, "serverInfo": SERVER_INFO,
                          "instructions": "The mcp-ref conformance checker's server: it records what you send."}
                self.s.init_answered_at = self._send({"jsonrpc": "2.0", "id": rid, "result": result})
                return
            self._error(rid, -32600, "initialize was already received")
            return
        if self._operating and not self.probes_done.is_set():
            # Keep a short-lived client here until it has been probed: each probe waits one step
            # at most, so this wait is bounded too.
            self.probes_done.wait(self.timeout * (PROBES + 1))
        if method == "ping":
            self._send({"jsonrpc": "2.0", "id": rid, "result": {}})
            return
        if self.s.init_answered_at is None:
            self._error(rid, -32600, f"{method} before initialize")
            return
        handlers: dict[str, Callable[[], dict[str, Any]]] = {
            "tools/list": lambda: {"tools": [ECHO_TOOL]},
            "tools/call": lambda: self._call_tool(params),
            "prompts/list": lambda: {"prompts": [HELLO_PROMPT]},
            "prompts/get": lambda: {"messages": [{"role": "user", "content": {
                "type": "text", "text": f"Hello, {as_dict(params.get('arguments')).get('name', 'you')}."}}]},
            "logging/setLevel": lambda: {},
            "completion/complete": lambda: {"completion": {"values": []}},
        }
        handler = handlers.get(method)
        if handler is None:
            self._error(rid, -32601, f"Method not found: {method}")
            return
        try:
            self._send({"jsonrpc": "2.0", "id": rid, "result": handler()})
        except ValueError as exc:
            self._error(rid, -32602, str(exc))

    def _call_tool(self, params: dict[str, Any]) -> dict[str, Any]:
        if params.get("name") != "echo":
            raise ValueError(f"Unknown tool: {params.get('name')!r}")
        arguments = as_dict(params.get("arguments"))
        return {"content": [{"type": "text", "text": str(arguments.get("text", ""))}]}

    def _error(self, rid: Any, code: int, message: str) -> None:
        self._send({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})

    def _on_notification(self, msg: dict[str, Any]) -> None:
        if msg["method"] == "notifications/initialized" and self.s.init_answered_at is not None and not self._probing:
            self._probing = True
            self._operating = True
            self.prober = threading.Thread(target=self._probe, name="check-probes", daemon=True)
            self.prober.start()

    def _on_response(self, msg: dict[str, Any], raw: str) -> None:
        with self._lock:
            entry = self._pending.pop(repr(msg.get("id")), None)
        if entry is not None:
            event, probe = entry
            probe.reply, probe.got = msg, raw
            event.set()

    # --- probing -----------------------------------------------------------------------------

    def request(self, name: str, request_id: Any, method: str, params: dict[str, Any] | None = None) -> Probe:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            msg["params"] = params
        event = threading.Event()
        probe = Probe(name, encode(msg).decode("utf-8"), request_id)
        self.s.probes[name] = probe
        self.s.probe_order.append(name)
        with self._lock:
            if self._closed:
                probe.gone = True
                return probe
            self._pending[repr(request_id)] = (event, probe)
        self._send(msg)
        event.wait(self.timeout)
        with self._lock:
            self._pending.pop(repr(request_id), None)
        return probe

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self._send(msg)
        self.s.notifications_sent.append(method)

    def _probe(self) -> None:
        try:
            self.request("ping", "mcp-ref-check-ping", "ping")
            self.request("unknown-method", 900001, "mcp-ref-check/no-such-method", {})
            caps = self.s.client_capabilities
            if isinstance(caps.get("roots"), dict):
                self.request("roots", "mcp-ref-check-roots", "roots/list")
            if isinstance(caps.get("sampling"), dict):
                self.request("sampling", "mcp-ref-check-sampling", "sampling/createMessage", {
                    "messages": [{"role": "user", "content": {"type": "text", "text": "Say OK (a conformance probe)."}}],
                    "maxTokens": 16})
            self.notify("notifications/message", {"level": "info", "logger": "mcp-ref-check",
                                                  "data": "a log message from the checking server"})
            self.notify("notifications/tools/list_changed")
            self.notify("notifications/prompts/list_changed")
            self.request("ping-after-notifications", 900002, "ping")
        finally:
            self.probes_done.set()


# --- the run -------------------------------------------------------------------------------------


class ClientCheck(Recorder):
    """What a client case gets as ``t``: the recorded session, and ways to record findings."""

    def __init__(self, session: ClientSession, timeout: float) -> None:
        super().__init__()
        self.s = session
        self.timeout = timeout

    @property
    def transport(self) -> str:
        return self.s.transport

    def shape_problems(self, problems: list[str], req_id: str, what: str, probe: Probe) -> None:
        """One finding listing the shape problems of ``what`` (none: nothing recorded)."""
        if problems:
            self.check(False, req_id, f"{what} is malformed: {'; '.join(problems[:5])}", probe.sent, probe.got)


def run_client(command: list[str], options: ClientOptions) -> ClientSession:
    """Run the client command against a checking server; return what it did."""
    link: StdioLink | SseLink = SseLink(options.timeout) if options.sse else StdioLink(options.timeout)
    session = ClientSession("sse" if options.sse else "stdio", link)
    server = CheckingServer(link, session, options.timeout)
    argv = [part.replace("{server}", link.server_argument) for part in command]
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=(os.name == "posix"))
    except OSError as exc:
        link.close()
        raise SetupFailed(f"could not start the client {argv[0]!r}: {exc}") from exc
    for stream in (proc.stdout, proc.stderr):
        threading.Thread(target=_drain, args=(stream, session.stderr_tail if stream is proc.stderr else None),
                         daemon=True).start()
    serving = threading.Thread(target=_serve_when_connected, args=(link, server, proc, options.run_timeout), daemon=True)
    serving.start()
    try:
        session.exit_code = proc.wait(options.run_timeout)
    except subprocess.TimeoutExpired:
        session.killed_by_kit = True
        _stop(proc)
        session.exit_code = proc.poll()
    serving.join(min(options.timeout, 2.0))  # the relay reports its last events
    link.close()
    serving.join(1.0)
    if server.prober is not None:
        server.prober.join(options.timeout * PROBES)  # each probe waits at most one step
    if not session.from_client:
        tail = " | ".join(list(session.stderr_tail)[-3:])[-300:]
        raise SetupFailed(f"the client never sent anything to the checking server (exit status {session.exit_code})"
                          + (f"; its stderr ended with: {tail}" if tail else ""))
    return session


def _serve_when_connected(link: Any, server: CheckingServer, proc: subprocess.Popen[bytes], limit: float) -> None:
    deadline = time.monotonic() + limit
    while not link.connected.wait(0.05):
        if proc.poll() is not None or time.monotonic() > deadline:
            return
    server.serve()


def _drain(stream: Any, tail: deque[str] | None) -> None:
    try:
        for raw in stream:
            if tail is not None:
                tail.append(raw.decode("utf-8", "replace").rstrip())
    except (OSError, ValueError):
        pass


def _stop(proc: subprocess.Popen[bytes]) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            if os.name == "posix":
                os.killpg(proc.pid, sig)
            else:
                proc.send_signal(sig)
        except (ProcessLookupError, PermissionError, OSError):
            return
        try:
            proc.wait(2.0)
            return
        except subprocess.TimeoutExpired:
            continue


def run_client_check(command: list[str], options: ClientOptions) -> tuple[list[CaseResult], ClientSession]:
    """Run the client and then the selected client cases over what it did."""
    session = run_client(command, options)
    results = []
    for case in select_cases(all_client_cases(), options.only):
        started = time.monotonic()
        t = ClientCheck(session, options.timeout)
        skip_reason = error = None
        try:
            if case.transport is not None and case.transport != session.transport:
                raise Skipped(f"applies to the {case.transport} transport only")
            case.func(t)
            status = status_of(t.findings)
        except Skipped as exc:
            status, skip_reason = (status_of(t.findings) if t.findings else Status.SKIP), exc.reason
        except Abort:
            status = status_of(t.findings)
        except Exception as exc:
            status = Status.ERROR
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            error = f"the checker failed: {type(exc).__name__}: {exc} ({Path(frame.filename).name}:{frame.lineno})"
        results.append(CaseResult(case, status, t.findings, t.notes, skip_reason, error, session.messages(),
                                  time.monotonic() - started))
    return results, session
