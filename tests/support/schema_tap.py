"""A message tap for tests: records every message a session sends and receives, and checks each
against the official 2024-11-05 JSON schema (../shared/spec/2024-11-05/schema.json).

Requests and notifications are checked by their method; results by the method of the request
they answer. A violation says which side sent what and which rule it broke. Where the schema
file is absent (a user's machine has no ../shared), nothing is validated and the report header
and ``test_schema_file_is_present`` say so.

The one known exception: an error answering a message whose id could not be read carries
``"id": null`` (JSON-RPC 2.0), which the 2024-11-05 schema does not allow; such errors are
checked with the id left out, and counted in ``null_id_errors``.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# ``MCP_REF_SCHEMA`` names another file (test_optional_parts.py points it at none, to see the run say so).
SCHEMA_PATH = Path(os.environ.get("MCP_REF_SCHEMA")
                   or Path(__file__).resolve().parents[3] / "shared" / "spec" / "2024-11-05" / "schema.json")

RESULT_OF = {
    "initialize": "InitializeResult",
    "ping": "EmptyResult",
    "resources/list": "ListResourcesResult",
    "resources/templates/list": "ListResourceTemplatesResult",
    "resources/read": "ReadResourceResult",
    "resources/subscribe": "EmptyResult",
    "resources/unsubscribe": "EmptyResult",
    "prompts/list": "ListPromptsResult",
    "prompts/get": "GetPromptResult",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "logging/setLevel": "EmptyResult",
    "completion/complete": "CompleteResult",
    "roots/list": "ListRootsResult",
    "sampling/createMessage": "CreateMessageResult",
}

_validators: dict[str, Any] = {}
_method_defs: dict[str, str] = {}
_lock = threading.Lock()


def schema_available() -> bool:
    return SCHEMA_PATH.is_file()


def _load() -> None:
    import jsonschema

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    for name, definition in schema["definitions"].items():
        method = definition.get("properties", {}).get("method", {}).get("const")
        if method and (name.endswith("Request") or name.endswith("Notification")):
            _method_defs[method] = name
        _validators[name] = jsonschema.Draft7Validator(
            {"$ref": f"#/definitions/{name}", "definitions": schema["definitions"]}
        )


def _validator(name: str) -> Any:
    with _lock:
        if not _validators:
            _load()
        return _validators[name]


class SchemaTap:
    """Use as a session ``trace`` hook: ``Client.stdio(cmd, trace=tap)``.

    ``side`` names the side the tap sits on ("client" or "server"), so that a violation can say
    who sent the offending message.
    """

    def __init__(self, side: str = "client") -> None:
        self.side = side
        self.peer = "server" if side == "client" else "client"
        self.messages: list[tuple[str, Any]] = []
        self.violations: list[str] = []
        self.null_id_errors = 0
        self._methods: dict[tuple[str, Any], str] = {}  # (sender, id) -> method
        self._lock = threading.Lock()
        self._paused = False

    @contextlib.contextmanager
    def deliberately_invalid(self) -> Iterator[None]:
        """Inside this block the test sends invalid messages on purpose: record, do not check."""
        self._paused = True
        try:
            yield
        finally:
            self._paused = False

    def __call__(self, direction: str, data: bytes) -> None:
        sender = self.side if direction == "->" else self.peer
        try:
            msg = json.loads(data)
        except ValueError:
            msg = None
        with self._lock:
            self.messages.append((direction, msg))
            if msg is None:
                self.violations.append(f"{sender} sent bytes that are not JSON: {data[:200]!r}")
                return
            if schema_available() and not self._paused:
                self._check(sender, msg)

    def _fail(self, sender: str, what: str, errors: list[Any]) -> None:
        for error in errors[:3]:
            where = "/".join(str(p) for p in error.absolute_path) or "(top)"
            self.violations.append(f"{sender} sent {what} that breaks the 2024-11-05 schema at {where}: {error.message}")

    def _check(self, sender: str, msg: Any) -> None:
        if not isinstance(msg, dict):
            self.violations.append(f"{sender} sent a non-object message: {msg!r}"[:300])
            return
        method = msg.get("method")
        if method is not None:
            envelope = "JSONRPCRequest" if "id" in msg else "JSONRPCNotification"
            errors = list(_validator(envelope).iter_errors(msg))
            definition = _method_defs.get(method)
            if definition is not None:
                errors += list(_validator(definition).iter_errors(msg))
            self._fail(sender, f"{method}", errors)
            if "id" in msg:
                self._methods[(sender, msg["id"])] = method
            return
        if "error" in msg:
            if msg.get("id") is None:
                self.null_id_errors += 1  # the documented exception: JSON-RPC's id null
                msg = {k: v for k, v in msg.items() if k != "id"}
                msg["id"] = 0
            self._fail(sender, "an error response", list(_validator("JSONRPCError").iter_errors(msg)))
            return
        requester = self.peer if sender == self.side else self.side
        request_method = self._methods.pop((requester, msg.get("id")), None)
        errors = list(_validator("JSONRPCResponse").iter_errors(msg))
        result_def = RESULT_OF.get(request_method or "")
        if result_def is not None:
            errors += list(_validator(result_def).iter_errors(msg.get("result")))
        self._fail(sender, f"the result of {request_method}", errors)

    def feed_file(self, path: str) -> None:
        """Check a trace written by ``mcp-ref serve --trace-file`` (lines of ``-> {json}``/``<- {json}``)."""
        with open(path, "rb") as trace:
            for line in trace:
                direction, _, data = line.rstrip(b"\n").partition(b" ")
                self(direction.decode(), data)

    def methods(self, direction: str) -> list[str]:
        """Methods of the requests/notifications seen in one direction ("->" or "<-")."""
        with self._lock:
            return [m["method"] for d, m in self.messages if d == direction and isinstance(m, dict) and "method" in m]

    def assert_clean(self) -> None:
        assert not self.violations, "schema violations:\n" + "\n".join(self.violations)
