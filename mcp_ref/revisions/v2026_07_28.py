"""Revision 2026-07-28: what it adds to 2025-11-25, changes and removes, and where mcp_ref does it.

Not a spec page: the delta of one revision, read beside its changelog.
https://modelcontextprotocol.io/specification/2026-07-28/changelog

The stateless revision. It drops the handshake of every revision before it, so a server that
speaks it beside them serves two eras (versioning.py says which a request belongs to). The
requirement IDs are those of mcp_ref_check/requirements_2026_07_28.py.

Adds
1. A revision named in every request: ``_meta`` carries ``io.modelcontextprotocol/protocolVersion``,
   ``.../clientCapabilities`` and ``.../clientInfo``; -32022 with the supported versions for one
   the server does not serve; -32602 for a request missing them (versioning.py ``refusal``).
   https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
2. ``server/discover``: the revisions served, the capabilities, the instructions, the server's
   name in ``_meta`` (stateless.py ``discover``).
3. ``resultType`` on every result, the server's name in every result's ``_meta``, and ``ttlMs`` /
   ``cacheScope`` on the lists, ``resources/read`` and ``server/discover`` (stateless.py ``answer``).
4. Multi round-trip requests: what a server needs of the client (elicitation, sampling, roots)
   goes back in an ``input_required`` result with a signed ``requestState``, and the client asks
   again with ``inputResponses``; ``ctx.elicit``, ``ctx.create_message`` and ``ctx.list_roots``
   keep working, the handler running again each round (mrtr.py; ``mrtr.ask`` asks several things
   at once under keys of the author's choosing).
   https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
5. Error codes of the specification's own range: -32020 (a header that disagrees with the
   body), -32021 (a client capability the request needs and did not bring: stateless.py
   ``RequestView.missing_capability``), -32022 (versioning.py).
6. Over Streamable HTTP: ``Mcp-Method`` and ``Mcp-Name`` headers, checked with
   ``MCP-Protocol-Version`` against the body (stateless_http.py ``header_problem``).
   https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
7. ``subscriptions/listen``: one long request whose stream carries the list changes and resource
   updates its filter asked for, each tagged with the subscription's id (subscriptions.py).
   https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions

Changes
8. No session: a request is served from what it carries alone, whatever came before it on the
   same pipe or connection (stateless.py ``RequestView``); over HTTP no ``Mcp-Session-Id``, one
   engine session per POST (stateless_http.py). Closing a request's event stream cancels it.
9. The log level comes with each request (``io.modelcontextprotocol/logLevel``); without it no
   log message is sent for that request (stateless.py ``serve``).
10. A resource that does not exist is -32602, no longer -32002 (stateless.py ``serve``).

Removes
11. ``initialize`` and ``notifications/initialized``; ``ping``; ``logging/setLevel``;
     ``resources/subscribe`` and ``resources/unsubscribe`` (versioning.py ``GONE``: -32601); the
     GET stream and stream resumption; requests from the server to the client.

The client's side: a ``Client`` (by default) probes with ``server/discover`` and speaks the
revision wherever the server does (stateless_client.py; ``protocol_versions=`` without it keeps
the handshake, and ``Client.sse`` never probes); what item 11 took away keeps its method on
``Client``, done this revision's way (client_subscriptions.py: ``ping`` asks ``server/discover``,
the log level goes with each request, subscriptions go through ``subscriptions/listen``); the
``x-mcp-header`` parameters become ``Mcp-Param-*`` headers (param_headers.py), which a server
of ours checks against the arguments (param_headers.py, point 4). How ``mcp-ref request
--explain`` labels this revision on the wire: wire_labels.py.

Not done yet: the tasks extension (no longer part of the core protocol).
"""

from __future__ import annotations

REVISION = "2026-07-28"
