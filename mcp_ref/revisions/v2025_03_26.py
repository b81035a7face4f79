"""Revision 2025-03-26: what it adds to 2024-11-05, changes and removes, and where mcp_ref does it.

Not a spec page: the delta of one revision, read beside its changelog.
https://modelcontextprotocol.io/specification/2025-03-26/changelog

A session speaks this revision when the client offered it (or a newer one the server does not
speak) and the server answered it (lifecycle.py). Each item below names the place that does it;
``lifecycle.since(version, "2025-03-26")`` is the test those places make.

Adds
1. The Streamable HTTP transport, replacing HTTP with SSE (which stays, for older peers): a room
   of its own, mcp_ref/streamable_http/, indexed SHTTP-01..46.
   https://modelcontextprotocol.io/specification/2025-03-26/basic/transports
2. JSON-RPC batches: an array of requests and notifications, answered by an array; a party must
   accept them, may send them, and ``initialize`` never travels in one.
   https://modelcontextprotocol.io/specification/2025-03-26/basic
3. The ``completions`` capability: a server that answers ``completion/complete`` declares it, and
   a client asks only such servers (server.py ``Server.capabilities`` and ``LATER_CAPABILITY``;
   client.py ``Client.complete``).
   https://modelcontextprotocol.io/specification/2025-03-26/server/utilities/completion
4. Tool annotations: hints about a tool's behaviour (``readOnlyHint``, ``destructiveHint``,
   ``idempotentHint``, ``openWorldHint``, ``title``), to be treated as untrusted by clients
   (``@server.tool(annotations={...})``, checked by tools.py ``checked_annotations``, listed by
   ``Tool.to_wire``). https://modelcontextprotocol.io/specification/2025-03-26/server/tools
5. Audio content (``{"type": "audio", "data", "mimeType"}``) in tool results, prompt messages and
   sampling messages (content.py ``Audio``, ``audio``, ``content_problem``; an older session gets
   ``stand_in``'s text, by functions/returns.py ``for_revision``).
6. A ``message`` on ``notifications/progress``, for people: ``ctx.report_progress(..., message=)``
   (progress.py ``Reporter.report``) sends it only when the session speaks this revision or a later
   one (session.py tells the Reporter); a requester's ``on_progress`` gets it in the params.
   https://modelcontextprotocol.io/specification/2025-03-26/basic/utilities/progress

Changes
7. The authorization framework for HTTP transports (OAuth 2.1): not implemented by mcp_ref, which
   carries whatever credentials the caller puts in ``headers=`` (as 2024-11-05's TR-08 allows).
"""

from __future__ import annotations

REVISION = "2025-03-26"
