"""Tests of mcp_ref/streamable_http/, the transport of revision 2025-03-26: its server app, its
client, and sessions across processes.
"""
