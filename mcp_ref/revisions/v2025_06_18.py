"""Revision 2025-06-18: what it adds to 2025-03-26, changes and removes, and where mcp_ref does it.

Not a spec page: the delta of one revision, read beside its changelog.
https://modelcontextprotocol.io/specification/2025-06-18/changelog

Adds
1. Elicitation, a page of its own (``elicitation.py``, its schema rules in ``elicitation_schema.py``):
   a server asks the user, through the client, for structured input. Server: ``ctx.elicit`` (server.py
   ``RequestContext.elicit`` -> ``elicitation.elicit``), refused locally in older sessions and
   without the client's capability. Client: ``Client(elicitation_handler=)``, declared by
   ``elicitation.capability`` and answered by ``elicitation.answer``; ``ask_in_terminal``
   (``elicitation_terminal.py``) asks a person.
   https://modelcontextprotocol.io/specification/2025-06-18/client/elicitation
2. Structured tool output: a tool may declare an ``outputSchema`` and return ``structuredContent``
   that conforms to it, with the same JSON as text beside it (functions/signatures.py
   ``Signature.output_schema`` derives it; tools.py ``Tool.structured`` adds and checks it,
   ``ToolRegistry.call`` leaves it out for an older session; the client checks it:
   ``structured_output.py``). https://modelcontextprotocol.io/specification/2025-06-18/server/tools#structured-content
3. Resource links (``{"type": "resource_link", "uri", "name", ...}``) in tool results (content.py
   ``ResourceLink``, ``resource_link``; an older session gets ``stand_in``'s text: returns.py).
4. ``title``, a name for people, on tools, resources, templates, prompts and their arguments, and
   on ``serverInfo``/``clientInfo`` (``title=`` of the decorators; functions/registry.py
   ``Registered.later_fields``, prompts.py ``Prompt.to_wire``; also ``_meta`` there, ``meta=``;
   on ``serverInfo``: ``Server(title=)``, left out of older sessions' ``serverInfo`` by
   lifecycle.py ``implementation_info``; ``Client(client_info=)`` sends what it is given).
5. The ``MCP-Protocol-Version`` header on every HTTP request after ``initialize``
   (streamable_http/client_transport.py sends it, streamable_http/server_app.py checks it: 400 for
   a version the server does not speak).
   https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#protocol-version-header
6. Completion context: ``completion/complete`` may carry the arguments already chosen
   (``Client.complete(context=...)``; completion.py ``_context_arguments`` reads them and hands
   them to a completer with a parameter named ``arguments``).

Removes
7. JSON-RPC batches (2025-03-26, item 2): from this revision on an array is invalid again.
"""

from __future__ import annotations

REVISION = "2025-06-18"
