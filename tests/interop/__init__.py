"""Peers of the interop tests: the official SDKs' servers and clients, the everything server and
the conformance suite (Node), each started as its own documentation starts it.
"""
