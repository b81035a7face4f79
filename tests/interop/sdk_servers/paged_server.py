"""A third-party server for interop tests: the official SDK's low-level Server, paging every
list two items at a time with its own cursor format. Run: python paged_server.py"""

from __future__ import annotations

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

TOOLS = [types.Tool(name=f"sdk_tool_{i}", input_schema={"type": "object"}) for i in range(5)]
RESOURCES = [types.Resource(uri=f"sdk://r/{i}", name=f"r{i}") for i in range(5)]
TEMPLATES = [types.ResourceTemplate(uri_template=f"sdk://t{i}/{{x}}", name=f"t{i}") for i in range(3)]
PROMPTS = [types.Prompt(name=f"sdk_prompt_{i}") for i in range(7)]
PAGE = 2


def page(items: list, params: types.PaginatedRequestParams | None) -> tuple[list, str | None]:
    start = int(params.cursor[len("page-"):]) if params and params.cursor else 0
    end = start + PAGE
    return items[start:end], (f"page-{end}" if end < len(items) else None)


async def list_tools(ctx, params):
    items, cursor = page(TOOLS, params)
    return types.ListToolsResult(tools=items, next_cursor=cursor)


async def list_resources(ctx, params):
    items, cursor = page(RESOURCES, params)
    return types.ListResourcesResult(resources=items, next_cursor=cursor)


async def list_templates(ctx, params):
    items, cursor = page(TEMPLATES, params)
    return types.ListResourceTemplatesResult(resource_templates=items, next_cursor=cursor)


async def list_prompts(ctx, params):
    items, cursor = page(PROMPTS, params)
    return types.ListPromptsResult(prompts=items, next_cursor=cursor)


server = Server("sdk-paged", on_list_tools=list_tools, on_list_resources=list_resources,
                on_list_resource_templates=list_templates, on_list_prompts=list_prompts)


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
