"""Revision 2025-11-25: what it adds to 2025-06-18, changes and removes, and where mcp_ref does it.

Not a spec page: the delta of one revision, read beside its changelog.
https://modelcontextprotocol.io/specification/2025-11-25/changelog

Adds
1. Icons on the server's identity, tools, resources, templates and prompts; a ``description``
   and ``websiteUrl`` on ``serverInfo`` (``Server(description=, website_url=, icons=)``, sent to
   sessions of this revision only: lifecycle.py ``implementation_info``; icons of tools,
   resources, templates and prompts: ``icons=`` of the decorators, checked and listed by functions/registry.py).
2. URL-mode elicitation (``mode: "url"``), with ``notifications/elicitation/complete`` and error
   -32042: elicitation.py ``elicit_url`` (``ctx.elicit_url``), ``notify_complete``,
   ``URLElicitationRequired``; the client's ``elicitation_url=True``, ``answer`` and ``Completions``.
   Form requests now say ``mode: "form"`` and the capability names its modes (``capability``).
   https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation
3. Tools in sampling: ``tools`` and ``toolChoice`` in ``sampling/createMessage``, for a client that
   declared ``sampling.tools`` (``Client(sampling_tools=True)``), with ``tool_use`` and
   ``tool_result`` content: sampling.py ``create_message`` and ``answer``. ``includeContext`` other
   than ``"none"`` is soft-deprecated: sent only to a client that declared ``sampling.context``.
   https://modelcontextprotocol.io/specification/2025-11-25/client/sampling
4. Defaults and titled enums in elicitation schemas, and multiple choice (elicitation_schema.py,
   checked per session by ``schema_problem``; asked by ``ask_in_terminal``).

Changes
5. JSON Schema 2020-12 is the dialect of a schema that names none (``inputSchema``,
   ``outputSchema``): tools.py ``schema_validator``; a derived tuple uses ``prefixItems`` (hints.py).
6. Arguments that fail a tool's ``inputSchema`` are a tool error (a result with ``isError``) the
   model can read and correct, no longer a protocol error (tools.py ``ToolRegistry.call``).
7. Tool names: 1 to 128 characters of ``A-Z a-z 0-9 _ - .`` (a SHOULD: tools.py ``Tool`` warns).
8. An ``Origin`` the server refuses gets HTTP 403.
9. Streamable HTTP's event streams may be polled: a server may end a stream's connection early
   after an event with an id, having sent ``retry``; the client waits that long and resumes the
   stream with a GET carrying ``Last-Event-ID`` (stream_resumption.py, the client's side; our
   server ends no stream early, so it gives its events no ids).
   https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery
"""

from __future__ import annotations

REVISION = "2025-11-25"
