"""Pipes and processes: the operating system's side of the stdio transport (stdio.py).

Not a spec section.

- ``pipes``: writes to a pipe that a stalled reader cannot block forever.
- ``processes``: starting a server as a child process and stopping it in the order LC-16 and
  LC-17 give (close its stdin, wait, then signal).
"""
