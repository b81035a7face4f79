"""Tests of mcp_ref_check, the conformance checker (mcp-ref check and mcp-ref spec), against our
own peers and deliberately broken ones.
"""
