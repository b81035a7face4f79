"""A third-party server for interop tests: the official SDK's low-level Server offering every
2024-11-05 server feature, over stdio (default), HTTP with SSE (`python full_server.py sse`) or
Streamable HTTP (`python full_server.py http`, or `http-json` for its JSON-response mode); the
HTTP modes print their URL first. Its tools exercise what a server may send: progress, cancellation,
sampling, roots, log messages, resource updates and list_changed notifications."""

from __future__ import annotations

import socket
import sys
import warnings

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server

warnings.simplefilter("ignore")  # the SDK marks 2024-era features as deprecated in its newest revision

STATE: dict[str, object] = {"cancelled": False, "level": "debug"}
LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]


def tool(name: str, **properties: str) -> types.Tool:
    return types.Tool(name=name, input_schema={"type": "object", "properties": {k: {"type": v} for k, v in properties.items()}})


TOOLS = [tool("add", a="integer", b="integer"), tool("slow", steps="integer"), tool("ask", question="string"),
         tool("touch"), tool("log", message="string"), tool("was_cancelled")]


def text(value: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=value)])


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx, params):
    args = params.arguments or {}
    if params.name == "add":
        return text(str(args["a"] + args["b"]))
    if params.name == "slow":
        meta = ctx.meta or {}
        token = meta.get("progressToken", meta.get("progress_token"))
        try:
            for step in range(1, args.get("steps", 3) + 1):
                if token is not None:
                    await ctx.session.send_progress_notification(token, step, args.get("steps", 3))
                await anyio.sleep(0.05)
        except anyio.get_cancelled_exc_class():
            STATE["cancelled"] = True
            raise
        return text("slow done")
    if params.name == "ask":
        sampled = await ctx.session.create_message(
            [types.SamplingMessage(role="user", content=types.TextContent(type="text", text=args["question"]))],
            max_tokens=10)
        roots = await ctx.session.list_roots()
        return text(f"{sampled.model}: {sampled.content.text} | {[str(r.uri) for r in roots.roots]}")
    if params.name == "touch":
        await ctx.session.send_resource_updated("sdk://counter")
        await ctx.session.send_tool_list_changed()
        return text("touched")
    if params.name == "log":
        for level in ("debug", "info", "warning"):
            if LEVELS.index(level) >= LEVELS.index(str(STATE["level"])):
                await ctx.session.send_log_message(level, args.get("message", ""), logger="sdk")
        return text("logged")
    if params.name == "was_cancelled":
        return text(str(STATE["cancelled"]))
    raise ValueError(f"unknown tool {params.name}")


async def list_resources(ctx, params):
    return types.ListResourcesResult(resources=[types.Resource(uri="sdk://counter", name="counter", mime_type="text/plain")])


async def list_templates(ctx, params):
    template = types.ResourceTemplate(uri_template="sdk://items/{id}", name="item")
    return types.ListResourceTemplatesResult(resource_templates=[template])


async def read_resource(ctx, params):
    uri = str(params.uri)
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type="text/plain", text=f"read {uri}")])


async def subscribe(ctx, params):
    return types.EmptyResult()


async def list_prompts(ctx, params):
    greet = types.Prompt(name="greet", arguments=[types.PromptArgument(name="name", required=True)])
    return types.ListPromptsResult(prompts=[greet])


async def get_prompt(ctx, params):
    name = (params.arguments or {}).get("name", "?")
    message = types.PromptMessage(role="user", content=types.TextContent(type="text", text=f"Hello {name}"))
    return types.GetPromptResult(messages=[message])


async def complete(ctx, params):
    values = [v for v in ("alpha", "beta", "alps") if v.startswith(params.argument.value)]
    return types.CompleteResult(completion=types.Completion(values=values, total=len(values), has_more=False))


async def set_level(ctx, params):
    STATE["level"] = params.level
    return types.EmptyResult()


server = Server("sdk-full", on_list_tools=list_tools, on_call_tool=call_tool, on_list_resources=list_resources,
                on_list_resource_templates=list_templates, on_read_resource=read_resource,
                on_subscribe_resource=subscribe, on_unsubscribe_resource=subscribe, on_list_prompts=list_prompts,
                on_get_prompt=get_prompt, on_completion=complete, on_set_logging_level=set_level)


async def serve_stdio() -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve_sse() -> None:
    import uvicorn
    from mcp.server.sse import SseServerTransport
    from starlette.applications import Starlette
    from starlette.responses import Response
    from starlette.routing import Mount, Route

    sse = SseServerTransport("/messages/")

    async def handle_sse(request):  # type: ignore[no-untyped-def]
        async with sse.connect_sse(request.scope, request.receive, request._send) as streams:
            await server.run(streams[0], streams[1], server.create_initialization_options())
        return Response()

    app = Starlette(routes=[Route("/sse", endpoint=handle_sse, methods=["GET"]),
                            Mount("/messages/", app=sse.handle_post_message)])
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    print(f"listening at http://127.0.0.1:{sock.getsockname()[1]}/sse", flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


def serve_http(json_response: bool) -> None:
    """Streamable HTTP as the SDK's documentation serves it (``streamable_http_app``, uvicorn),
    on a socket bound here so that the port is known before uvicorn starts."""
    import uvicorn

    app = server.streamable_http_app(json_response=json_response)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    print(f"listening at http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


if __name__ == "__main__":
    if sys.argv[1:] in (["http"], ["http-json"]):
        serve_http(json_response=sys.argv[1] == "http-json")
    elif sys.argv[1:] == ["sse"]:
        serve_sse()
    else:
        anyio.run(serve_stdio)
