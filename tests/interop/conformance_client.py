"""The client the official conformance suite's client scenarios run: a small program on
``mcp_ref.Client.http(url)`` (tests/interop/test_conformance_client.py runs the suite with it).

How the suite drives a client (``conformance client --command COMMAND --scenario NAME``):

1. it starts a mock server made for one scenario, then runs COMMAND with that server's URL
   appended as the last argument;
2. the scenario's name is in the environment, ``MCP_CONFORMANCE_SCENARIO`` (the revision the
   suite speaks is in ``MCP_CONFORMANCE_PROTOCOL_VERSION``, and the data some scenarios need,
   the authorization ones, is JSON in ``MCP_CONFORMANCE_CONTEXT``);
3. the program does what that scenario expects of a client and exits: 0 when it could, 1 with a
   line on stderr saying why not. The suite then grades what its mock server saw.

What each scenario expects of us (``SCENARIOS`` below):

- ``initialize``, ``tools_call``: connect (the handshake is graded), list the tools, call the
  first with arguments its input schema asks for (numbers for ``add_numbers``);
- ``elicitation-sep1034-client-defaults``: declare elicitation, answer the server's request by
  accepting, and send the defaults its schema gives (what a form pre-filled with them returns);
- ``sse-retry``: call ``test_reconnection``, whose event stream the server closes before the
  result; the client must come back (GET, ``Last-Event-ID``) after the ``retry`` it was given;
- ``json-schema-2020-12-preservation``: hand the schema of ``json_schema_2020_12_tool`` back,
  as received, to ``json_schema_echo``.

Elicitation is asked for as ``Client.http(url, elicitation_handler=...)``; while mcp_ref's
``Client.http`` does not take it, that scenario exits 1 saying so.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from mcp_ref import Client
from mcp_ref.revisions.stateless_client import ALL_VERSIONS

TIMEOUT = 20.0  # seconds, for each request; the suite gives the whole program 30


def connect(url: str, **options: Any) -> Client:
    return Client.http(url, timeout=TIMEOUT, fallback=False, client_info={"name": "mcp-ref-conformance-client",
                                                                          "version": "0.1.0"}, **options)


def arguments_for(tool: dict[str, Any]) -> dict[str, Any]:
    """Arguments for each required property: 2, 3, ... for numbers, text for strings, true for booleans."""
    schema = tool.get("inputSchema", {})
    properties = schema.get("properties", {})
    values: dict[str, Any] = {}
    for name in schema.get("required", []):
        kind = properties.get(name, {}).get("type")
        if kind in ("number", "integer"):
            values[name] = 2 + len(values)
        elif kind == "boolean":
            values[name] = True
        else:
            values[name] = f"some {name}"
    return values


def of_the_run(url: str) -> Client:
    """The client for the suite's run: in its 2026-07-28 run (``MCP_CONFORMANCE_PROTOCOL_VERSION``)
    a client of both eras, which probes; else the client of the handshake."""
    return modern(url) if os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION") == "2026-07-28" else connect(url)


def call_the_first_tool(url: str) -> None:
    with of_the_run(url) as client:
        tools = client.list_tools() if "tools" in client.server_capabilities else []  # AR-01: only what it declared
        if tools:
            result = client.call_tool(tools[0]["name"], arguments_for(tools[0]))
            print(f"{tools[0]['name']}: {result['content']}", file=sys.stderr)


def accept_the_defaults(params: dict[str, Any]) -> dict[str, Any]:
    """An elicitation answered as a user who accepts a form pre-filled with its defaults."""
    properties = params.get("requestedSchema", {}).get("properties", {})
    return {"action": "accept", "content": {name: field["default"] for name, field in properties.items()
                                            if "default" in field}}


def elicitation_defaults(url: str) -> None:
    if "elicitation_handler" not in inspect.signature(Client.http).parameters:
        raise NotImplementedError("mcp_ref's Client.http takes no elicitation_handler yet: this client cannot "
                                  "declare elicitation (2025-06-18) nor answer elicitation/create")
    with connect(url, elicitation_handler=accept_the_defaults) as client:
        client.call_tool("test_client_elicitation_defaults", {})


def reconnect_after_the_stream_closes(url: str) -> None:
    with connect(url) as client:
        result = client.call_tool("test_reconnection", {})
        print(f"test_reconnection: {result['content']}", file=sys.stderr)


def echo_the_2020_12_schema(url: str) -> None:
    with of_the_run(url) as client:
        tools = {tool["name"]: tool for tool in client.list_tools()}
        client.call_tool("json_schema_echo", {"schema": tools["json_schema_2020_12_tool"]["inputSchema"]})


def modern(url: str) -> Client:
    """A client of both eras (it probes with server/discover: revisions/stateless_client.py) that
    declares roots, sampling and elicitation, with handlers for each."""
    return connect(url, protocol_versions=ALL_VERSIONS, roots=[{"uri": "file:///conformance", "name": "conformance"}],
                   sampling_handler=lambda params: "a sampled answer", elicitation_handler=accept_the_defaults)


def list_and_call_in_2026(url: str) -> None:
    with modern(url) as client:
        tools = client.list_tools() if "tools" in client.server_capabilities else []
        result = client.call_tool(tools[0]["name"], arguments_for(tools[0])) if tools else {}
        print(f"{client.protocol_version}: {result}", file=sys.stderr)


def answer_each_round_trip(url: str) -> None:
    with modern(url) as client:
        for tool in client.list_tools():  # echo_state, no_state, unrelated, no_result_type, in the server's order
            result = client.call_tool(tool["name"], {})
            print(f"{tool['name']}: {result.get('content')}", file=sys.stderr)


def use_each_kind_of_request(url: str) -> None:
    """http-standard-headers: a request of each method that names a thing (Mcp-Name) and the lists."""
    with of_the_run(url) as client:
        tools = client.list_tools()
        if tools:
            client.call_tool(tools[0]["name"], arguments_for(tools[0]))
        resources = client.list_resources() if "resources" in client.server_capabilities else []
        if resources:
            client.read_resource(resources[0]["uri"])
        prompts = client.list_prompts() if "prompts" in client.server_capabilities else []
        if prompts:
            client.get_prompt(prompts[0]["name"], {})


def make_the_calls_of_the_context(url: str) -> None:
    """http-custom-headers: list the tools (which tells the client their x-mcp-header marks), then
    make the calls the scenario's context (``MCP_CONFORMANCE_CONTEXT``) asks for, as given."""
    calls = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}").get("toolCalls", [])
    with of_the_run(url) as client:
        client.list_tools()
        for call in calls:
            client.call_tool(call["name"], call.get("arguments", {}))


def call_every_listed_tool(url: str) -> None:
    """http-invalid-tool-headers: the tools whose marks are invalid are left out of the list; call the rest."""
    with of_the_run(url) as client:
        for tool in client.list_tools():
            client.call_tool(tool["name"], arguments_for(tool))


def list_the_tools(url: str) -> None:
    """json-schema-ref-no-deref: list the tools (a schema's network $ref is never fetched)."""
    with of_the_run(url) as client:
        print(f"tools: {[tool['name'] for tool in client.list_tools()]}", file=sys.stderr)


SCENARIOS: dict[str, Callable[[str], None]] = {
    "http-standard-headers": use_each_kind_of_request,  # 2026-07-28: Mcp-Method and Mcp-Name
    "http-custom-headers": make_the_calls_of_the_context,  # 2026-07-28: x-mcp-header -> Mcp-Param-*
    "http-invalid-tool-headers": call_every_listed_tool,
    "json-schema-ref-no-deref": list_the_tools,
    "request-metadata": list_and_call_in_2026,  # 2026-07-28: the _meta and header of every request
    "sep-2322-client-request-state": answer_each_round_trip,  # 2026-07-28: input_required rounds
    "initialize": call_the_first_tool,
    "tools_call": call_the_first_tool,
    "elicitation-sep1034-client-defaults": elicitation_defaults,
    "sse-retry": reconnect_after_the_stream_closes,
    "json-schema-2020-12-preservation": echo_the_2020_12_schema,
}


def main(argv: list[str]) -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    if len(argv) < 2 or scenario not in SCENARIOS:
        print(f"conformance_client: usage: MCP_CONFORMANCE_SCENARIO=NAME {argv[0]} URL, NAME one of "
              f"{', '.join(SCENARIOS)} (got {scenario!r})", file=sys.stderr)
        return 2
    try:
        SCENARIOS[scenario](argv[-1])
    except Exception as error:  # the suite shows our stderr beside its checks: say what stopped us
        print(f"conformance_client: {scenario}: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
