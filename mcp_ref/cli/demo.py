"""``mcp-ref demo``: a scripted tour of the demo server that prints every message on the wire.

Not a spec section: a teaching aid. Each section names the part of the spec it shows; the lines
marked ``client -> server`` and ``client <- server`` are the exact bytes exchanged over stdio.
With ``--explain`` each message comes with its spec page and requirement IDs (explain.py), then
the bytes; ``--step`` waits for Enter before each section (q stops the tour); ``--only N`` runs
section N alone (the initialization still happens, unseen, unless N is 1).

The demo is a lesson on the base it teaches: its client offers revision 2024-11-05 alone
(``Client(protocol_versions=["2024-11-05"])``), so the server answers 2024-11-05 and sends nothing
a later revision added. ``--protocol-version V`` offers V instead (one of lifecycle.REVISIONS):
the same tour, in a session of that revision, and with ``--explain`` a message or field that a
later revision brought is labelled by that revision's page (explain.py).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from ..client import Client
from ..lifecycle import PROTOCOL_VERSION, REVISIONS
from ..messages import McpError

_print_lock = threading.Lock()


def _say(text: str) -> None:
    with _print_lock:
        try:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
        except BrokenPipeError:  # `mcp-ref demo | head`: the reader has all it wanted; go on quietly
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _wire(direction: str, data: bytes) -> None:
    arrow = "client -> server" if direction == "->" else "client <- server"
    _say(f"  {arrow}  {data.decode('utf-8', 'replace')}")


def _try(call: Callable[[], Any]) -> None:
    try:
        call()
    except McpError as exc:
        _say(f"  (the client raised {type(exc).__name__}: code {exc.code}, {exc.message!r})")


def _show(value: Any) -> None:
    _say(f"  => {json.dumps(value, ensure_ascii=False)[:300]}")


LIFECYCLE = "Lifecycle: initialize (our version, capabilities, name), then notifications/initialized"
# The sections between initialization and shutdown, in order; steps() gives each its action.
STEP_TITLES = (
    "Ping: either side may check the other is alive; the answer is an empty result",
    "An unknown method is answered -32601 (Method not found), in every phase",
    "Tools: list them (each with a JSON Schema for its arguments)",
    "Tools: call one",
    "Tools: a tool that fails returns isError: true (a result, not a protocol error)",
    "Tools: an unknown tool, or arguments that break the schema, are protocol errors (-32602)",
    "Progress: the request carries _meta.progressToken; the server reports until it answers",
    "Resources: list, then read a text and a binary (base64) resource",
    "Resources: templates (RFC 6570) name families of resources",
    "Resources: an unknown URI is error -32002",
    "Subscriptions: subscribe, change the resource, and a notification arrives",
    "List changes: a tool adds another tool; the server sends notifications/tools/list_changed",
    "Prompts: list, then get one with arguments",
    "Prompts: a missing required argument is -32602",
    "Completion: suggestions for a prompt argument as the user types",
    "Logging: set the level to info; debug messages are then not sent",
    "Sampling: a tool asks the client's model; the client answers sampling/createMessage",
    "Roots: a tool asks which directories the client shares; the client answers roots/list",
    "Roots: the client's roots change; it notifies, and the server asks again",
)
SHUTDOWN = "Shutdown: the client closes the server's stdin; the server exits by itself"
# Every section, numbered from 1 (what `mcp-ref demo --help` lists for --only).
SECTION_TITLES = (LIFECYCLE, *STEP_TITLES, SHUTDOWN)


def steps(client: Client) -> list[tuple[str, Callable[[], Any]]]:
    """The tour after initialization: (title, action) pairs, in order (sections 2 to N-1)."""

    def progress(params: dict[str, Any]) -> None:
        _say(f"  (progress callback: {params['progress']}/{params.get('total')})")

    def tool_errors() -> None:
        _try(lambda: client.call_tool("no_such_tool"))
        _try(lambda: client.call_tool("add", {"a": "two", "b": 3}))

    def resources() -> None:
        _show([r["uri"] for r in client.list_resources()])
        client.read_resource("demo://readme")
        client.read_resource("demo://logo.png")

    def templates() -> None:
        client.list_resource_templates()
        client.read_resource("demo://notes/mcp")

    def subscription() -> None:
        client.subscribe_resource("demo://counter")
        client.call_tool("increment")

    def prompts() -> None:
        _show([p["name"] for p in client.list_prompts()])
        client.get_prompt("review_code", {"code": "print('hi')"})

    def change_roots() -> None:
        client.set_roots([{"uri": "file:///tmp/project", "name": "project"}, {"uri": "file:///tmp/other"}])
        time.sleep(0.3)  # the server's roots/list and log message arrive on their own

    def logging() -> None:
        client.set_logging_level("info")
        client.call_tool("log_something")

    actions: list[Callable[[], Any]] = [
        client.ping,
        lambda: _try(lambda: client.request("server/discover")),
        lambda: _show([t["name"] for t in client.list_tools()]),
        lambda: client.call_tool("add", {"a": 2, "b": 3}),
        lambda: client.call_tool("fail"),
        tool_errors,
        lambda: client.call_tool("slow_count", {"steps": 3, "delay": 0.05}, on_progress=progress),
        resources,
        templates,
        lambda: _try(lambda: client.read_resource("demo://nothing-here")),
        subscription,
        lambda: client.call_tool("toggle_extra_tool"),
        prompts,
        lambda: _try(lambda: client.get_prompt("review_code", {})),
        lambda: client.complete({"type": "ref/prompt", "name": "review_code"}, {"name": "language", "value": "j"}),
        logging,
        lambda: client.call_tool("ask_model"),
        lambda: client.call_tool("list_client_roots"),
        change_roots,
    ]
    return list(zip(STEP_TITLES, actions, strict=True))


def fake_model(params: dict[str, Any]) -> dict[str, Any]:
    """A canned sampling handler: a real host would show the request to its user and call a model."""
    question = params["messages"][-1]["content"].get("text", "")
    _say(f"  (sampling handler: the server asks {question!r}; answering from a canned model)")
    return {"role": "assistant", "content": {"type": "text", "text": "A protocol for giving models context."},
            "model": "canned-model-1", "stopReason": "endTurn"}


class _Wire:
    """The demo's trace hook: every message as sent (or, with ``explain``, its explained line and
    then the message), printed only while the section being run is one to show."""

    def __init__(self, explain: bool):
        self.showing = True
        self._explainer = None
        if explain:
            from .explain import Explainer

            self._explainer = Explainer(self._write, side="client", show_json=True)

    def _write(self, text: str) -> None:
        if self.showing:
            _say("  " + text)

    def __call__(self, direction: str, data: bytes) -> None:
        if self._explainer is not None:
            self._explainer(direction, data)  # it must see every message to match responses
        elif self.showing:
            _wire(direction, data)


def _wait_for_enter(number: int, stdin: TextIO) -> bool:
    """--step: wait for Enter before section ``number``; False if the user typed q (or EOF)."""
    _say(f"\n(Enter: section {number}; q: stop)")
    line = stdin.readline()
    return bool(line) and line.strip().lower() != "q"


def run_demo(*, explain: bool = False, step: bool = False, only: int | None = None,
             stdin: TextIO | None = None, protocol_version: str = PROTOCOL_VERSION) -> int:
    """Run the tour: section 1 is initialization, then ``steps``, then shutdown. ``only`` runs one
    section (initialization still happens, unseen); ``step`` waits for Enter between sections. The
    client offers ``protocol_version`` alone: 2024-11-05, the base, unless told otherwise."""
    command = [sys.executable, "-m", "mcp_ref", "serve"]
    last = len(SECTION_TITLES)  # 1 is the lifecycle, then the steps, then the shutdown
    if only is not None and not 1 <= only <= last:
        print(f"mcp-ref: --only takes a section from 1 to {last} (mcp-ref demo --help lists them)", file=sys.stderr)
        return 2
    if protocol_version not in REVISIONS:
        print(f"mcp-ref: --protocol-version takes one of {', '.join(REVISIONS)}", file=sys.stderr)
        return 2
    wire = _Wire(explain)
    wire.showing = only in (None, 1)
    if only is None:
        _say("mcp_ref demo: the bundled demo server over stdio, every message shown as sent.")
        if explain:
            _say("Each message comes with its spec page and the requirement IDs it exercises "
                 "(look one up: mcp-ref spec LC-08).")
        _say(f"Server command: {' '.join(command)}")
        if protocol_version == PROTOCOL_VERSION:
            _say(f"The client offers revision {PROTOCOL_VERSION} only, the base mcp_ref teaches "
                 "(--protocol-version V shows a later revision).\n")
        else:
            _say(f"The client offers revision {protocol_version} only (the base is {PROTOCOL_VERSION}): what that "
                 "revision added is on the wire" + (", labelled by its pages" if explain else "") + ".\n")
    if wire.showing:
        _say(f"== 1. {LIFECYCLE} ==")
    roots = [{"uri": Path.cwd().as_uri(), "name": "current directory"}]
    with Client.stdio(command, trace=wire, timeout=10.0, sampling_handler=fake_model, roots=roots,
                      protocol_versions=[protocol_version]) as client:
        sections = steps(client)
        if wire.showing:
            info = client.server_info or {}
            _say(f"  -> negotiated protocol {client.protocol_version} with {info.get('name')} {info.get('version')}")
            _say(f"  -> server capabilities: {json.dumps(client.server_capabilities)}")
        step = step and only is None  # one section has nothing to wait between
        stopped = False
        for number, (title, action) in enumerate(sections, start=2):
            if only not in (None, number):
                continue
            if step and not _wait_for_enter(number, stdin or sys.stdin):
                stopped = True
                break
            wire.showing = True
            _say(f"\n== {number}. {title} ==")
            action()
            wire.showing = only is None
        wire.showing = only == last or (only is None and not stopped
                                        and (not step or _wait_for_enter(last, stdin or sys.stdin)))
        if wire.showing:
            _say(f"\n== {last}. {SHUTDOWN} ==")
    if only is None:
        _say("Done.")
    return 0
