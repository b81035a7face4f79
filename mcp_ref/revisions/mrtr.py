"""Multi round-trip requests: a server that needs the client's input answers "input required", and the client asks again.

Spec page: basic/patterns/mrtr
https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr

In short:

1. A server of 2026-07-28 never sends a request of its own (MRTR-01, MRTR-03). When it needs
   something from the client to finish ``tools/call``, ``prompts/get`` or ``resources/read``
   (and only these, MRTR-04), it answers with a result whose ``resultType`` is
   ``"input_required"``: ``inputRequests`` maps keys of its choosing to the requests it would
   have sent (``elicitation/create``, ``sampling/createMessage``, ``roots/list``: MRTR-05), and
   an opaque ``requestState`` carries what it wants back (MRTR-06, MRTR-10).
2. The client gathers the answers and sends the same request again, under a new id (MRTR-16),
   with ``inputResponses`` (the same keys, each the result the client would have answered) and the
   ``requestState`` unchanged (MRTR-14, MRTR-15). The server may ask again; nothing obliges the
   client to come back (MRTR-12).
3. The state comes back through the client, so the server treats it as an attacker's input: it
   is protected against tampering, bound to the request it belongs to and to a short life, and
   refused when it fails any of that (MRTR-07, MRTR-08).

How mcp_ref keeps a blocking handler a blocking handler: a tool still calls
``ctx.elicit(...)`` (or ``ctx.create_message``, ``ctx.list_roots``) and gets the answer back. In
this revision the handler runs once per round. Its first question, unanswered, ends the round:
``Asking.ask`` raises ``InputRequired``, and the server answers ``input_required`` with that one
question. When the client comes back, the handler runs again from the start; each question it
asks again is answered from what the client sent (or from the state, for the rounds before), so
it goes on to its next question, or to its result. The state holds every answer given so far,
the method and a digest of the request's parameters, and an expiry, as JSON signed with
HMAC-SHA256 under the server's key (``state_key``: ``MCP_REF_REQUEST_STATE_KEY`` from the
environment, to be the same in every process of one server, else random per process).

What a handler does before its questions runs again in each round: keep it free of side effects
there (or make them idempotent), and ask the questions in the same order each time. A question
that differs from the one answered at its place is asked anew.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import time
from typing import Any

from ..messages import InvalidParams

METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})  # MRTR-04: the only ones
ASKED = frozenset({"elicitation/create", "sampling/createMessage", "roots/list"})  # MRTR-05
STATE_LIFETIME = 15 * 60  # seconds a requestState is good for (MRTR-08): a person may take a while
KEY_VARIABLE = "MCP_REF_REQUEST_STATE_KEY"
_PER_PROCESS_KEY = secrets.token_bytes(32)
_OWN_FIELDS = ("_meta", "inputResponses", "requestState")  # what differs between rounds of one request


class InputRequired(BaseException):
    """A handler asked the client something not yet answered: this round ends here. A
    ``BaseException``, so that a handler's ``except Exception`` does not swallow it."""

    def __init__(self, requests: dict[str, Any], state: str) -> None:
        super().__init__("input required")
        self.requests, self.state = requests, state

    def result(self) -> dict[str, Any]:
        """The ``InputRequiredResult`` (without its ``resultType``: stateless.py adds it)."""
        return {"inputRequests": self.requests, "requestState": self.state}  # MRTR-10: both


def state_key(server: Any) -> bytes:
    """The key that signs the request states of ``server``: ``server.request_state_key`` if set,
    else the environment's ``MCP_REF_REQUEST_STATE_KEY``, else a key of this process."""
    own = getattr(server, "request_state_key", None)
    if own is not None:
        return own if isinstance(own, bytes) else str(own).encode("utf-8")
    from_environment = os.environ.get(KEY_VARIABLE)
    return from_environment.encode("utf-8") if from_environment else _PER_PROCESS_KEY


def digest(value: Any) -> str:
    """A short fingerprint of a JSON value (its canonical form)."""
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()[:32]


def request_digest(method: str, params: dict[str, Any]) -> str:
    """What binds a state to its request: the method and every parameter but the round's own."""
    return digest([method, {name: value for name, value in params.items() if name not in _OWN_FIELDS}])


def sign(key: bytes, payload: dict[str, Any]) -> str:
    """``payload`` as a ``requestState``: base64url JSON, a dot, its HMAC-SHA256 (MRTR-07)."""
    body = base64.urlsafe_b64encode(json.dumps(payload, separators=(",", ":")).encode("utf-8")).decode("ascii")
    return body + "." + hmac.new(key, body.encode("ascii"), hashlib.sha256).hexdigest()


def verified(key: bytes, state: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """The payload of a ``requestState`` the client sent back, or -32602 if it was altered, has
    expired, or belongs to another request (MRTR-07, MRTR-08)."""
    problem = "it is not one this server gave"
    if isinstance(state, str) and state.count(".") == 1:
        body, mac = state.split(".")
        expected = hmac.new(key, body.encode("ascii", "replace"), hashlib.sha256).hexdigest()
        if hmac.compare_digest(mac.encode("ascii", "replace"), expected.encode("ascii")):
            payload: dict[str, Any] = json.loads(base64.urlsafe_b64decode(body.encode("ascii")))
            if payload.get("request") != request_digest(method, params):
                problem = "it belongs to another request (another method, tool or arguments)"
            elif payload.get("expires", 0) < time.time():
                problem = "it has expired"
            else:
                return payload
    raise InvalidParams(f"Invalid params: requestState refused: {problem}; send the request again "
                        "without inputResponses and requestState", {"field": "requestState"})


class Asking:
    """The questions one round of one request may ask the client: ``ask`` answers those already
    answered (in this round's ``inputResponses``, or in the state of the rounds before), and
    raises ``InputRequired`` for the first that is not."""

    def __init__(self, key: bytes, method: str, params: dict[str, Any]) -> None:
        self.key, self.method, self.params = key, method, params
        self.answers: dict[str, Any] = {}  # question key -> {"asked": digest, "result": ...}
        self.asked = 0
        if "requestState" in params:
            payload = verified(key, params["requestState"], method, params)
            self.answers = dict(payload.get("answers") or {})
            responses = params.get("inputResponses", {})
            if not isinstance(responses, dict):  # MRTR-18
                raise InvalidParams("Invalid params: inputResponses must map the keys of inputRequests to results",
                                    {"field": "inputResponses"})
            for question, asked in (payload.get("pending") or {}).items():  # MRTR-19: the rest is ignored
                if isinstance(responses.get(question), dict):
                    self.answers[question] = {"asked": asked, "result": responses[question]}

    def ask(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The client's answer to the request ``method``/``params``, if this round has it."""
        if method not in ASKED:  # MRTR-05: nothing else may be asked of a client (a mistake of ours: -32603)
            raise RuntimeError(f"{method} is not a request a server of 2026-07-28 may make")
        self.asked += 1
        question, asked = f"{method.partition('/')[0]}-{self.asked}", digest([method, params])
        known = self.answers.get(question)
        if known is not None and known.get("asked") == asked:
            return dict(known["result"])
        kept = {name: given for name, given in self.answers.items() if int(name.rpartition("-")[2]) < self.asked}
        payload = {"request": request_digest(self.method, self.params), "expires": int(time.time()) + STATE_LIFETIME,
                   "answers": kept, "pending": {question: asked}}  # MRTR-08: bound to the request, short-lived
        raise InputRequired({question: {"method": method, "params": params}}, sign(self.key, payload))
