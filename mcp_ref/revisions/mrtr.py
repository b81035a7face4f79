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

from ..messages import InvalidParams, McpError

METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})  # MRTR-04: the only ones
# MRTR-05: what may be asked of a client, and the capability it must have declared for each (MRTR-11)
ASKED = {"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}
STATE_LIFETIME = 15 * 60  # seconds a requestState is good for (MRTR-08): a person may take a while
KEY_VARIABLE = "MCP_REF_REQUEST_STATE_KEY"
_PER_PROCESS_KEY = secrets.token_bytes(32)
_OWN_FIELDS = ("_meta", "inputResponses", "requestState")  # what differs between rounds of one request


class MissingCapability(BaseException):
    """A handler needs of the client a capability this request did not bring: the request is
    answered -32021 (STLS-12). A ``BaseException`` for the same reason as ``InputRequired``."""

    def __init__(self, capability: str, detail: dict[str, Any] | None = None) -> None:
        super().__init__(capability)
        self.required = {capability: detail or {}}  # as data.requiredCapabilities names it
        self.named = ".".join([capability, *(detail or {})])  # "elicitation.url", for the message


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
        if hmac.compare_digest(mac.encode("ascii", "replace"), expected.encode("ascii")):  # MRTR-07
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
        responses = params.get("inputResponses", {})
        if not isinstance(responses, dict):  # MRTR-18
            raise InvalidParams("Invalid params: inputResponses must map the keys of inputRequests to results",
                                {"field": "inputResponses"})
        if "requestState" not in params:  # answers the client gives without a state: to whatever is asked by that key
            self.answers = {question: {"asked": None, "result": answer} for question, answer in responses.items()
                            if isinstance(answer, dict)}  # (the client answers either way: no more trust needed)
            return
        payload = verified(key, params["requestState"], method, params)
        self.answers = dict(payload.get("answers") or {})
        for question, asked in (payload.get("pending") or {}).items():  # MRTR-19: the rest is ignored
            if isinstance(responses.get(question), dict):
                self.answers[question] = {"asked": asked, "result": responses[question]}

    def ask(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The client's answer to the request ``method``/``params``, if this round has it (the
        way of ``ctx.elicit`` and its kin: one question at a time, keyed by its place)."""
        question = f"{method.partition('/')[0]}-{self.asked + 1}"
        return self.ask_all({question: {"method": method, "params": params}})[question]

    def ask_all(self, questions: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """The client's answers to ``questions`` (key -> ``{"method", "params"}``), once it has
        answered every one; until then this round ends asking those not yet answered, all at once."""
        missing: dict[str, Any] = {}
        for question, request in questions.items():
            method, params = request.get("method"), request.get("params") or {}
            if method not in ASKED:  # MRTR-05: nothing else may be asked (a mistake of ours: -32603)
                raise RuntimeError(f"{method} is not a request a server of 2026-07-28 may make")
            self.asked += 1
            known, asked = self.answers.get(question), digest([method, params])
            if known is None or known.get("asked") not in (None, asked):  # unanswered, or a different question now
                missing[question] = {"method": method, "params": params}
        if not missing:
            return {question: dict(self.answers[question]["result"]) for question in questions}
        kept = {name: given for name, given in self.answers.items() if name not in missing}
        pending = {question: digest([request["method"], request["params"]]) for question, request in missing.items()}
        payload = {"request": request_digest(self.method, self.params), "expires": int(time.time()) + STATE_LIFETIME,
                   "answers": kept, "pending": pending}  # MRTR-08: bound to the request, short-lived
        raise InputRequired(missing, sign(self.key, payload))


def ask(ctx: Any, questions: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """From a handler of ``tools/call``, ``prompts/get`` or ``resources/read`` in a request of
    2026-07-28: ask the client several things at once, under keys of your choosing
    (``{"user_name": {"method": "elicitation/create", "params": {...}}}``), and get its results
    by the same keys (raw, as the client sent them). The handler runs again when the client
    comes back, as for ``ctx.elicit``. ``McpError`` in a session of an earlier revision, where a
    server asks with ``ctx.elicit``, ``ctx.create_message`` and ``ctx.list_roots`` one at a time.
    A question of a kind the client did not declare is -32021 for the request (MRTR-11)."""
    asking = getattr(ctx.session, "asking", None)
    if not isinstance(asking, Asking):
        raise McpError("mrtr.ask serves requests of 2026-07-28 only; ask with ctx.elicit, ctx.create_message "
                       "or ctx.list_roots, one at a time, in a session of an earlier revision")
    for request in questions.values():
        capability = ASKED.get(str(request.get("method")), "")
        if capability and not isinstance(ctx.session.lifecycle.peer_capabilities.get(capability), dict):
            raise MissingCapability(capability)
    return asking.ask_all(questions)
