"""Tests of mcp_ref/revisions/: each later revision's delta and the pages it brought, both sides,
in a table of the revisions a session can agree on."""
