"""A third-party server for interop tests at revision 2026-07-28: the official SDK's low-level
Server (``mcp`` 2.x), whose ``tools/call`` handler builds its ``input_required`` results itself,
over stdio (default) or Streamable HTTP (``python modern_lowlevel_server.py http``, or
``http-json`` for its JSON-response mode; the URL is printed first).

- ``add(a, b)``;
- ``ask``: round 1 asks, in one ``InputRequiredResult``, for a sampling, the roots and a form
  elicitation, with ``requestState`` "round-1"; round 2 (that state back, with the three answers)
  asks a confirmation, carrying the three answers in its state; round 3 answers with everything
  it got. A state it did not mint, or an answer missing, is an error result saying so.
"""

from __future__ import annotations

import json
import socket
import sys
import warnings

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server

warnings.simplefilter("ignore")

TOOLS = [types.Tool(name="add", input_schema={"type": "object", "properties": {"a": {"type": "integer"},
                                                                              "b": {"type": "integer"}}}),
         types.Tool(name="ask", input_schema={"type": "object"})]
NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def text(value: str, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=value)], is_error=error)


def elicit(message: str) -> types.ElicitRequest:
    return types.ElicitRequest(params=types.ElicitRequestFormParams(message=message, requested_schema=NAME))


async def list_tools(ctx, params):  # type: ignore[no-untyped-def]
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx, params):  # type: ignore[no-untyped-def]
    args = params.arguments or {}
    if params.name == "add":
        return text(str(args["a"] + args["b"]))
    answers = {key: value.model_dump(mode="json", by_alias=True, exclude_none=True)
               for key, value in (params.input_responses or {}).items()}
    state = params.request_state
    if state is None:
        question = types.SamplingMessage(role="user", content=types.TextContent(type="text", text="Say hi"))
        return types.InputRequiredResult(request_state="round-1", input_requests={
            "model": types.CreateMessageRequest(params=types.CreateMessageRequestParams(messages=[question],
                                                                                        max_tokens=10)),
            "roots": types.ListRootsRequest(),
            "user": elicit("Your name?")})
    if state == "round-1":
        if set(answers) != {"model", "roots", "user"}:
            return text(f"round 2 got {sorted(answers)}", error=True)
        return types.InputRequiredResult(request_state="round-2:" + json.dumps(answers),
                                         input_requests={"confirm": elicit("Sure?")})
    if state.startswith("round-2:") and set(answers) == {"confirm"}:
        return text(json.dumps({**json.loads(state.removeprefix("round-2:")), **answers}))
    return text(f"unexpected state {state!r} with {sorted(answers)}", error=True)


server = Server("sdk-modern-lowlevel", on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_stdio() -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve_http(json_response: bool) -> None:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    print(f"listening at http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    app = server.streamable_http_app(json_response=json_response)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


if __name__ == "__main__":
    if sys.argv[1:] in (["http"], ["http-json"]):
        serve_http(json_response=sys.argv[1] == "http-json")
    else:
        anyio.run(serve_stdio)
