"""Streamable HTTP: the transport of revision 2025-03-26, its server and its client.

Not the 2024-11-05 base: a later revision's page, in a room of its own; no 2024-11-05 page
imports it (an import-linter contract). The faces do: ``Client.http`` and ``Server.wsgi_app``.
https://modelcontextprotocol.io/specification/2025-03-26/basic/transports

It carries 2024-11-05 messages over one MCP endpoint: a POST per message, each request's answer
on that POST's own response (JSON or an event stream), a GET stream for what belongs to no
request, sessions by ``Mcp-Session-Id``. Its requirement IDs (SHTTP-01..46) have an index of
their own in mcp_ref_check/requirements_2025_03_26.py.

Read in this order:

- ``server_app``: ``StreamableHttpApp``, the WSGI endpoint.
- ``session_transport``: one session as the engine sees it: which stream each message goes on;
  it installs the session's request hook (``around_request``), so the engine calls nothing here.
- ``session_table``: the sessions by id, how many, how long unused.
- ``both``: ``HttpApp``, one WSGI application serving Streamable HTTP at ``/mcp`` beside HTTP
  with SSE (what ``Server.wsgi_app`` returns).
- ``client_transport``: ``StreamableHttpClientTransport``, the client's end.
- ``relayed``: what the relay (mcp_ref/scaleout/) carries for a session another process holds.
"""
