"""Tests of mcp_ref/scaleout/: several processes behind one HTTP endpoint, through a real redis-
server and gunicorn.
"""
