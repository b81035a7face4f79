"""A message tap for tests: records every message a session sends and receives, and checks each
against the official JSON schema of the revision the session agreed on
(../shared/spec/<revision>/schema.json: 2024-11-05 until ``initialize`` is answered, then the
revision its result names, 2025-03-26 .. 2025-11-25 included). A request whose ``_meta`` names
2026-07-28 (that revision has no handshake: each request names its own) switches the tap to the
2026-07-28 schema, where each method's result is checked with its ``...ResultResponse``
definition (a complete result or ``input_required``); an ``initialize`` switches it back.

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
SPEC = Path(__file__).resolve().parents[3] / "shared" / "spec"
SCHEMA_PATH = Path(os.environ.get("MCP_REF_SCHEMA") or SPEC / "2024-11-05" / "schema.json")
LATER_REVISIONS = ("2025-03-26", "2025-06-18", "2025-11-25")  # checked against their own schema files
STATELESS = "2026-07-28"  # named in each request's _meta, not agreed by a handshake
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"

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
    "elicitation/create": "ElicitResult",
}
# What a later schema calls a definition the 2024-11-05 one names otherwise.
RENAMED = {revision: {"JSONRPCError": "JSONRPCErrorResponse", "JSONRPCResponse": "JSONRPCResultResponse"}
           for revision in ("2025-11-25", STATELESS)}

_validators: dict[str, dict[str, Any]] = {}  # revision -> definition name -> validator
_method_defs: dict[str, dict[str, str]] = {}  # revision -> method -> definition name
_lock = threading.Lock()


def schema_available() -> bool:
    return SCHEMA_PATH.is_file()


def _path(revision: str) -> Path:
    return SCHEMA_PATH if revision == "2024-11-05" or os.environ.get("MCP_REF_SCHEMA") else SPEC / revision / "schema.json"


def _load(revision: str) -> None:
    import jsonschema

    schema = json.loads(_path(revision).read_text(encoding="utf-8"))
    key = "definitions" if "definitions" in schema else "$defs"
    validator_class = jsonschema.validators.validator_for(schema)
    _validators[revision], _method_defs[revision] = {}, {}
    for name, definition in schema[key].items():
        method = definition.get("properties", {}).get("method", {}).get("const")
        if method and (name.endswith("Request") or name.endswith("Notification")):
            _method_defs[revision][method] = name
        _validators[revision][name] = validator_class({"$ref": f"#/{key}/{name}", key: schema[key]})


def _validator(name: str, revision: str = "2024-11-05") -> Any:
    with _lock:
        if revision not in _validators:
            _load(revision)
        return _validators[revision][RENAMED.get(revision, {}).get(name, name)]


def _method_definition(method: str, revision: str) -> str | None:
    _validator("JSONRPCRequest", revision)  # loaded
    return _method_defs[revision].get(method)


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
        self.revision = "2024-11-05"  # until an initialize result names another the schemas hold

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
            self.violations.append(f"{sender} sent {what} that breaks the {self.revision} schema at {where}: {error.message}")

    def _check(self, sender: str, msg: Any) -> None:
        if not isinstance(msg, dict):
            self.violations.append(f"{sender} sent a non-object message: {msg!r}"[:300])
            return
        method = msg.get("method")
        if method is not None:
            meta = msg.get("params", {}).get("_meta") if isinstance(msg.get("params"), dict) else None
            if method == "initialize":
                self.revision = "2024-11-05"  # until its result names another
            elif isinstance(meta, dict) and meta.get(VERSION_KEY) == STATELESS and _path(STATELESS).is_file():
                self.revision = STATELESS
            envelope = "JSONRPCRequest" if "id" in msg else "JSONRPCNotification"
            errors = list(_validator(envelope, self.revision).iter_errors(msg))
            definition = _method_definition(method, self.revision)
            if definition is not None:
                errors += list(_validator(definition, self.revision).iter_errors(msg))
            self._fail(sender, f"{method}", errors)
            if "id" in msg:
                self._methods[(sender, msg["id"])] = method
            return
        if "error" in msg:
            if msg.get("id") is None:
                self.null_id_errors += 1  # the documented exception: JSON-RPC's id null
                msg = {k: v for k, v in msg.items() if k != "id"}
                msg["id"] = 0
            self._fail(sender, "an error response", list(_validator("JSONRPCError", self.revision).iter_errors(msg)))
            return
        requester = self.peer if sender == self.side else self.side
        request_method = self._methods.pop((requester, msg.get("id")), None)
        errors = list(_validator("JSONRPCResponse", self.revision).iter_errors(msg))
        if self.revision == STATELESS:  # the schema names each method's response
            definition = _method_definition(request_method or "", self.revision) or ""
            response = definition.removesuffix("Request") + "ResultResponse"
            if response in _validators[self.revision]:
                errors += list(_validator(response, self.revision).iter_errors(msg))
            self._fail(sender, f"the result of {request_method}", errors)
            return
        result_def = RESULT_OF.get(request_method or "")
        if result_def is not None:
            errors += list(_validator(result_def, self.revision).iter_errors(msg.get("result")))
        self._fail(sender, f"the result of {request_method}", errors)
        agreed = msg.get("result", {}).get("protocolVersion") if request_method == "initialize" else None
        if agreed in LATER_REVISIONS and _path(agreed).is_file():  # from here on, that revision's schema
            self.revision = agreed

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
