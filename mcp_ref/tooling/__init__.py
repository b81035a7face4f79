"""Tooling: the command line, the guided demo, the explainer, the requirement index and the kit.

Not a spec section, and not needed to use the library: nothing outside this folder imports it
(an import-linter contract in ``make lint``).

- ``cli``: the ``mcp-ref`` command; ``target``: finding the Server a ``serve TARGET`` names.
- ``demo``: the guided tour of ``make demo``; ``inspect_cmd``: ``mcp-ref inspect``.
- ``explain``: which spec page and requirement IDs each message exercises (``--explain``).
- ``requirements``: the index of every 2024-11-05 requirement ID, in our own words;
  ``notes`` reads ``spec_notes/``; ``spec_cmd``: ``mcp-ref spec ID``.
- ``check/``: the conformance kit, ``mcp-ref check``.
"""
