"""The Python side: ordinary typed functions in, valid wire shapes out.

Not a spec section. The spec pages say what a tool's ``inputSchema`` and a ``CallToolResult``
look like; these modules turn a Python function into them:

- ``signatures``: what registration learns from a function (parameters, the context parameter,
  descriptions) and the refusal of ``async`` functions.
- ``hints`` and ``convert``: type hints -> JSON Schema, and JSON values -> the typed values the
  function asked for.
- ``returns``: what a function returns -> tool content, prompt messages, resource contents.
- ``registry``: the one shape shared by the registries of tools, prompts and resources.
"""
