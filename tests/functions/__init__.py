"""Tests of mcp_ref/functions/: how a Python function becomes a tool, a prompt or a resource
(hints, convert, signatures, returns).
"""
