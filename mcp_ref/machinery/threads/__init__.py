"""Threads: how a session runs the peer's requests and waits for answers to its own.

Not a spec section. The spec asks that reading go on while a request is handled (a ping
answered, a cancellation seen, the answer to the handler's own sampling request read); the
engine (session.py) does it with one reader thread per session and these:

- ``pool``: the bounded pool of threads that runs the peer's requests.
- ``outgoing``: a request we sent, the ``concurrent.futures.Future`` its answer settles, and how
  its caller waits (Ctrl-C felt at once on the main thread).
- ``unmatched``: what arrived that no request of ours was waiting for, named when a wait ends.
- ``lifetime``: clients that do not outlive their program, nor are kept alive by their threads.
"""
