"""Scale-out: several processes, on one host or many, serving the same HTTP sessions.

Not a spec section. An HTTP session lives in the process that opened it; a POST may reach any
process behind a load balancer. The relay carries such a POST to the process that holds its
session and brings the answer back. Only the HTTP transports use it (an import-linter contract).

- ``relay``: what a relay is (``Relay``), and ``LocalRelay``, the one process's own.
- ``redis_relay``: the relay through Redis (the optional ``redis`` package), and ``relay_from``.
"""
