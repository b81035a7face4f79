"""Sampling: a server asks the client's language model for a completion.

Spec page: client/sampling
https://modelcontextprotocol.io/specification/2024-11-05/client/sampling

In short:

1. A client that can sample declares the ``sampling`` capability (SAMP-05, AR-05); a server
   asks only such clients (ROOT-17 says the same for roots).
2. The server sends ``sampling/createMessage`` with ``messages`` (role + text or image content;
   audio too from 2025-03-26 on: ``SAMPLING_KINDS``), ``maxTokens`` and optional ``systemPrompt``,
   ``includeContext``, ``temperature``, ``stopSequences``, ``modelPreferences`` (hints and
   priorities, all advisory: SAMP-14, SAMP-19) and ``metadata``.
3. The client shows the request to its user, who may edit or refuse it (SAMP-01..04), calls
   its model, and answers with ``role``, ``content``, ``model`` and ``stopReason``. A refusal is
   an error (the spec's example uses code -1, SAMP-07).

Client side: ``Client(sampling_handler=...)``; ``answer`` checks the request's params (-32602, also
for a kind of content the session's revision lacks), hands them to the handler, and checks the
result dict it returns. Server side: ``create_message`` (what ``ctx.create_message`` calls), which
refuses locally when the client did not declare sampling. A kind the session's revision lacks goes
as ``content.stand_in``'s text, as in a tool result (audio to a client of 2024-11-05); what no
revision's sampling message holds (a resource, a resource link) is a ValueError, nothing sent.

Where revision 2025-11-25 hooks in (revisions/v2025_11_25.py, item 3): a client that declares
``sampling.tools`` (``Client(sampling_tools=True)``) may be sent ``tools`` (tool definitions, as in
``tools/list``) and ``toolChoice`` (``{"mode": "auto" | "required" | "none"}``); its model may then
answer with ``tool_use`` content, and the server sends the results back as ``tool_result``
content, a message's content becoming a list. Sent to any other client, they are refused here,
before anything is sent. ``includeContext`` other than ``"none"`` is soft-deprecated in that
revision: sent only to a client that declared ``sampling.context``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .content import LATER_KINDS, message_problem, stand_in
from .lifecycle import LATEST_PROTOCOL_VERSION, require_peer, since
from .messages import USER_REJECTED, InternalError, InvalidParams, McpError, MethodNotFound, param, printable

SamplingHandler = Callable[[dict[str, Any]], Any]
INCLUDE_CONTEXT = ("none", "thisServer", "allServers")
# Each content kind of a sampling message, and the revision whose SamplingMessage first allows it (schema.json).
SAMPLING_KINDS = {"text": "2024-11-05", "image": "2024-11-05", "audio": "2025-03-26",
                  "tool_use": "2025-11-25", "tool_result": "2025-11-25"}  # "resource", "resource_link": in none


class SamplingRejected(McpError):
    """Raise this from a sampling handler when the user declines (the spec's example code, -1)."""

    code = USER_REJECTED  # SAMP-07: a refusal is an error; -1 as in the spec's example

    def __init__(self, message: str = "User rejected sampling request", data: Any = None):
        super().__init__(message, data)


def _message(item: Any) -> dict[str, Any]:
    if isinstance(item, str):  # a plain string is a user's text message
        return {"role": "user", "content": {"type": "text", "text": item}}
    return dict(item)


def create_message_params(
    messages: list[Any], max_tokens: int, *, system_prompt: str | None = None, include_context: str | None = None,
    temperature: float | None = None, stop_sequences: list[str] | None = None,
    model_preferences: dict[str, Any] | None = None, metadata: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The params of ``sampling/createMessage``, leaving out what was not given."""
    if include_context is not None and include_context not in INCLUDE_CONTEXT:
        raise ValueError(f"include_context must be one of {', '.join(INCLUDE_CONTEXT)}")
    params: dict[str, Any] = {"messages": [_message(m) for m in messages], "maxTokens": max_tokens}
    optional = {"systemPrompt": system_prompt, "includeContext": include_context, "temperature": temperature,
                "stopSequences": stop_sequences, "modelPreferences": model_preferences, "metadata": metadata}
    return params | {key: value for key, value in optional.items() if value is not None}


TOOL_CHOICES = ("auto", "required", "none")


def _refuse(message: str) -> None:
    error = MethodNotFound(message)
    error.failed_request = "sampling/createMessage"
    raise error


def create_message(session: Any, messages: list[Any], max_tokens: int, *, timeout: float | None = None,
                   tools: list[dict[str, Any]] | None = None, tool_choice: str | dict[str, Any] | None = None,
                   **options: Any) -> dict[str, Any]:
    """Server side: ask the client's model; returns the ``CreateMessageResult`` dict. ``tools`` and
    ``tool_choice`` (a mode, or the wire's dict) only for a 2025-11-25 client that declared them."""
    require_peer(session, "sampling", "sampling/createMessage")
    version, declared = session.lifecycle.protocol_version, session.lifecycle.peer_capabilities["sampling"]
    params = create_message_params([_for_session(_message(m), version) for m in messages], max_tokens, **options)
    try:  # what this client's check would refuse is the author's mistake: raised here, nothing sent
        check_params(params, isinstance(declared.get("tools"), dict), version)
    except InvalidParams as exc:
        raise ValueError(f"sampling/createMessage not sent (the client speaks MCP {version}): {exc.message}") from None
    if tools is not None or tool_choice is not None:  # revisions/v2025_11_25.py, item 3
        if not since(version, "2025-11-25"):
            _refuse(f"tools in sampling came with MCP 2025-11-25; this session speaks {version}")
        if not isinstance(declared.get("tools"), dict):
            getattr(session, "missing_capability", lambda *_: None)("sampling", {"tools": {}})  # 2026-07-28: -32021
            _refuse("the client did not declare sampling.tools, so it cannot be sent tools or toolChoice")
        params.update(_tool_params(tools, tool_choice))
    if options.get("include_context") not in (None, "none") and since(version, "2025-11-25") \
            and not isinstance(declared.get("context"), dict):  # soft-deprecated: only if declared
        getattr(session, "missing_capability", lambda *_: None)("sampling", {"context": {}})  # (as above)
        _refuse("includeContext other than 'none' needs a client that declared sampling.context (MCP 2025-11-25)")
    result: dict[str, Any] = session.request("sampling/createMessage", params, timeout=timeout)
    return result


def _for_session(message: dict[str, Any], version: str) -> dict[str, Any]:
    """Server side: ``message``, or for a kind of content its session's revision lacks (audio before
    2025-03-26) the same message holding ``stand_in``'s text, as a tool result does (functions/returns.py)."""
    kind = message["content"].get("type") if isinstance(message.get("content"), dict) else None
    later = kind in LATER_KINDS and kind in SAMPLING_KINDS and not since(version, SAMPLING_KINDS[kind])
    return {**message, "content": stand_in(message["content"], version)} if later else message  # v2025_03_26.py, item 5


def _tool_params(tools: list[dict[str, Any]] | None, tool_choice: str | dict[str, Any] | None) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if tools is not None:
        if not isinstance(tools, list) or not all(isinstance(t, dict) and isinstance(t.get("name"), str)
                                                  and isinstance(t.get("inputSchema"), dict) for t in tools):
            raise ValueError('tools must be a list of tool dicts, each with "name" and "inputSchema"')
        params["tools"] = tools
    if tool_choice is not None:
        choice = {"mode": tool_choice} if isinstance(tool_choice, str) else tool_choice
        if not isinstance(choice, dict) or choice.get("mode", "auto") not in TOOL_CHOICES:
            raise ValueError(f"tool_choice must be one of {', '.join(TOOL_CHOICES)} (or {{'mode': ...}})")
        params["toolChoice"] = choice
    return params


# The optional fields of sampling/createMessage and their JSON types (the handler gets them as sent).
OPTIONAL_FIELDS = {"systemPrompt": "string", "includeContext": "string", "temperature": "number",
                   "stopSequences": "array", "metadata": "object", "modelPreferences": "object"}


def _message_problem(message: Any, version: str, tools: bool) -> str | None:
    """Why ``message`` is not a sampling message for a client of ``version``: its content one item (or
    from 2025-11-25 on a list), each of a kind ``SAMPLING_KINDS`` gives that revision; ``tool_use`` (id,
    name, input) and ``tool_result`` (toolUseId, content list) only with ``tools`` (declared ``sampling.tools``)."""
    kinds = [k for k, first in SAMPLING_KINDS.items() if since(version, first) and (tools or not k.startswith("tool_"))]
    items = message.get("content") if isinstance(message, dict) else None
    for item in items if isinstance(items, list) and since(version, "2025-11-25") else [items]:
        if not isinstance(item, dict) or item.get("type") in kinds and item["type"] not in ("tool_use", "tool_result"):
            problem = message_problem(message if item is items else {"role": message.get("role"), "content": item})
        elif item.get("type") not in kinds:
            problem = f'its content: "type" must be one of {", ".join(kinds)} in this sampling message, not {item.get("type")!r}'
        elif item["type"] == "tool_use":
            ok = isinstance(item.get("id"), str) and isinstance(item.get("name"), str) and isinstance(item.get("input"), dict)
            problem = None if ok else 'its content: a tool_use item needs "id", "name" and "input"'
        else:
            ok = isinstance(item.get("toolUseId"), str) and isinstance(item.get("content"), list)
            problem = None if ok else 'its content: a tool_result item needs "toolUseId" and "content", a list'
        if problem is not None:
            return problem
    return None if message.get("role") in ("user", "assistant") else '"role" must be "user" or "assistant"'


def check_params(params: dict[str, Any], tools: bool = False, version: str = LATEST_PROTOCOL_VERSION) -> None:
    """Client side, SAMP-09: raise InvalidParams (-32602, naming the field) unless ``params`` is a
    well-formed request, so a handler never meets a message or a field of the wrong shape.
    ``tools``: this client declared ``sampling.tools``, so tool content may come (2025-11-25).
    ``version``: the session's revision; a content kind it lacks is refused too (``SAMPLING_KINDS``)."""
    messages = param(params, "messages", "array")
    param(params, "maxTokens", "integer")
    for index, message in enumerate(messages):
        problem = _message_problem(message, version, tools)
        if problem is not None:
            raise InvalidParams(f"Invalid params: messages[{index}]: {printable(problem)}", {"field": f"messages.{index}"})
    for name, expected in OPTIONAL_FIELDS.items():
        param(params, name, expected, required=False)
    if params.get("includeContext") not in (None, *INCLUDE_CONTEXT):
        raise InvalidParams(f'Invalid params: "includeContext" must be one of {", ".join(INCLUDE_CONTEXT)}',
                            {"field": "includeContext"})


def answer(handler: SamplingHandler | None, params: dict[str, Any], declared: Any = None,
           version: str | None = None) -> dict[str, Any]:
    """Client side: run the sampling handler and check what it returns (SAMP-09).

    A handler may return the full result dict, or just a str (an assistant text message from an
    unnamed model). It declines by raising ``SamplingRejected`` (or any ``McpError``). ``declared``
    is the ``sampling`` capability this client declared (its ``tools`` flag, 2025-11-25); ``version``
    the session's revision, whose content kinds both the request and the result keep to.
    """
    if handler is None:
        raise MethodNotFound("Method not found: this client has no sampling handler")
    tools = isinstance(declared, dict) and isinstance(declared.get("tools"), dict)
    if not tools and ("tools" in params or "toolChoice" in params):  # revisions/v2025_11_25.py, item 3
        raise InvalidParams("Invalid params: this client did not declare sampling.tools; send no tools or toolChoice",
                            {"field": "tools"})
    version = version or LATEST_PROTOCOL_VERSION  # (None: not yet negotiated, as in a test of the function alone)
    check_params(params, tools, version)  # SAMP-09
    # SAMP-01, SAMP-02
    # SAMP-03, SAMP-04
    # SAMP-08, SAMP-13
    # SAMP-18, OV-14
    # OV-15: every request goes
    # to the host's handler, which shows it, may edit or refuse it, and approves the answer.
    # SAMP-06, SAMP-10
    # SAMP-14, SAMP-15
    # SAMP-16, SAMP-17
    # SAMP-19, SAMP-20
    # SAMP-21, SAMP-22: ,
    # SAMP-23: the params arrive untouched (model hints in their order), for the host to weigh.
    result = handler(params)
    if isinstance(result, str):
        result = {"role": "assistant", "content": {"type": "text", "text": result}, "model": "unknown", "stopReason": "endTurn"}
    problem = _message_problem(result, version, tools) if isinstance(result, dict) else "it is not an object"
    if not isinstance(result, dict) or problem is not None or not isinstance(result.get("model"), str):  # SAMP-09
        raise InternalError(f"the sampling handler returned an invalid result: {printable(problem or 'it has no model')}")
    return result
