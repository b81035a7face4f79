"""HTTP plumbing under both HTTP transports (sse.py and sse_client.py; streamable_http/).

Not a spec section.

- ``werkzeug_server``: werkzeug's threaded server with bounds on slow clients, in a thread.
- ``event_streams``: event streams written, and the Host and Origin checks both transports make.
- ``queues``: an HTTP session's inbox (what its client POSTed, for the session's reader) and the
  outbox of each stream (the messages waiting for one client, bounded in number and bytes).
- ``client_plumbing``: the client's side: event streams read, refusals and unreachable servers
  explained.
"""
