"""Tests of mcp_ref/cli/, the mcp-ref command, each run as a real subprocess."""
