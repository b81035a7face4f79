"""A third-party server for interop tests: the official SDK's MCPServer with tools that elicit
(client/elicitation): ``sign_up`` asks a form (a pydantic model), ``pay`` asks the user to open a
URL and then says the interaction is complete. Run: python eliciting_server.py"""

from __future__ import annotations

import warnings

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

warnings.simplefilter("ignore")

mcp = MCPServer("sdk-eliciting")


class Person(BaseModel):
    name: str
    age: int


@mcp.tool()
async def sign_up(ctx: Context) -> str:
    """Ask the user for a name and an age."""
    result = await ctx.elicit("Please sign up", Person)
    return f"{result.action}: {result.data.name}, {result.data.age}" if result.action == "accept" else result.action


@mcp.tool()
async def pay(ctx: Context) -> str:
    """Ask the user to open a payment page, then say it is done."""
    result = await ctx.elicit_url("Pay for the order", "https://pay.example.com/order/9", "order-9")
    if result.action == "accept":
        await ctx.request_context.session.send_elicit_complete("order-9")
    return result.action


if __name__ == "__main__":
    mcp.run()
