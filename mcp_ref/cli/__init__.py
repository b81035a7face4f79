"""The command line: ``mcp-ref`` and its commands, the guided demo, the explainer, the inspector.

Not a spec section, and not needed to use the library: nothing else in mcp_ref imports it (an
import-linter contract in ``make lint``). It stands on top: it may import the library and the
conformance checker, the package ``mcp_ref_check`` beside this one (``mcp-ref check`` and
``mcp-ref spec``).

- ``main``: the ``mcp-ref`` command (``mcp-ref serve``, ``request``, ``inspect``, ``config``,
  ``demo``, ``spec``, ``check``); ``argv_hints``: a line that does not parse, answered with the
  line to write instead; ``target``: finding the Server a ``serve TARGET`` names;
  ``serve_stats``: ``serve --stats`` and SIGUSR1.
- ``request_cmd``: ``mcp-ref request`` and ``inspect``'s connection; ``inspect_cmd``: one screen
  about a server.
- ``demo``: the guided tour of ``make demo``.
- ``explain``: which spec page and requirement IDs each message exercises (``--explain``).
"""
