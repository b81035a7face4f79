"""Tests of the faces and the engine: client.py (test_client.py), server.py (test_server.py),
session.py (test_session.py; its reader and pool seen from a user in test_reader.py), and the
promises all of them keep against hostile peers (test_robustness.py, test_properties.py,
test_hostile_stdio_servers.py).
"""
