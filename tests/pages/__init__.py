"""Tests of the spec pages of 2024-11-05, one file per module of mcp_ref/ that is a page:
test_messages.py for messages.py, test_stdio.py for stdio.py, and so on (tests/test_layout.py
keeps it so).
"""
