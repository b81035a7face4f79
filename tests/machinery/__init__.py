"""Tests of mcp_ref/machinery/: the modules that have a test file of their own; the others are
exercised through the pages and the engine (tests/test_layout.py lists where).
"""
