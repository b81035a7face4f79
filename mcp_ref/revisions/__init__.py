"""The later revisions: 2025-03-26, 2025-06-18 and 2025-11-25 with a handshake, 2026-07-28 without; each a delta on 2024-11-05.

Not a spec page of its own: the room of the revisions that came after mcp_ref's base. The top of
mcp_ref/ is revision 2024-11-05, one module per page. Three later revisions keep its handshake
(``initialize``, then ``notifications/initialized``) and change the rest piece by piece; a client
and a server agree on one of them in ``initialize`` (lifecycle.py: each side offers the newest it
speaks, and the server answers with the newest both speak). From then on the session behaves as
that revision says, and only as it says: a field a revision added is not sent to a peer that
agreed on an older one.

Read them in order; each module lists what its revision adds, changes and removes, every item
with its spec link and the place in the code that does it:

1. ``v2025_03_26.py``: JSON-RPC batches, tool annotations, audio content, the ``completions``
   capability, a ``message`` on progress; and the Streamable HTTP transport (its own room,
   mcp_ref/streamable_http/).
2. ``v2025_06_18.py``: batches gone again, structured tool output, resource links, ``title``,
   elicitation (its page: ``elicitation.py``), the ``MCP-Protocol-Version`` header, completion
   context.
3. ``v2025_11_25.py``: icons, JSON Schema 2020-12 as the default dialect, URL elicitation, tools
   in sampling, tool-name guidance, input errors as tool errors, event streams that are polled
   (its page: ``stream_resumption.py``).
4. ``v2026_07_28.py``: no handshake and no session; every request names its revision
   (``versioning.py``) and is served alone (``stateless.py``, over HTTP ``stateless_http.py``);
   ``server/discover``; results that ask the client for input (``mrtr.py``). A server speaks it
   beside the revisions with a handshake: a request that names its revision in ``_meta`` is of
   this era, an ``initialize`` opens a session of the other. A client offering it probes first and
   speaks it where the server does (``stateless_client.py``; ``client_subscriptions.py`` for what the
   revision took away: ping, the log level, subscriptions).

Beside them, ``wire_labels.py``: what each of the four brought to the messages, as ``mcp-ref
request --explain`` labels them.

How a revision hooks in: the revisions mcp_ref speaks are listed, in the order they were
published, in lifecycle.py (``REVISIONS``, and ``STATELESS_REVISIONS`` for 2026-07-28, which is
never agreed in ``initialize``), and a base page asks ``lifecycle.since(version, "2025-06-18")``
where a later revision changed what it sends or accepts. The requirement IDs
cited here are those of the revisions' indexes (mcp_ref_check/requirements_2025_*.py; ``mcp-ref
spec ID`` prints one).
"""
