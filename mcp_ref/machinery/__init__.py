"""How it runs: the machinery under the spec pages.

Not a spec section. Nothing here knows an MCP method (but for two names the Streamable HTTP
session's streams look at: a cancelled request's stream ends, CAN-06, and initialize is never
cancelled, CAN-03): these modules are the threads, pipes, processes, HTTP plumbing and fast
paths that the pages and the engine stand on. Each module's docstring says which page it serves
and why it is not that page.

- ``transport``: what the engine needs of a transport (the ``Transport`` protocol); ``pool``: the
  bounded pool of threads that runs the peer's requests while the session's reader reads on;
  ``outgoing``: a request we sent, the Future its answer settles, and how its caller waits.
- ``lifetime``: clients that do not outlive their program, nor are kept alive by their threads.
- ``pipes`` and ``processes``: bounded writes to a pipe, spawning and stopping a child process.
- ``http_server``: werkzeug's threaded server with bounds on slow clients; ``http_streams``:
  event streams written, and the Host and Origin checks both HTTP transports make; ``outbox``:
  an HTTP session's inbox (what its client POSTed, for the session's reader) and the outbox of
  each stream (the messages waiting for one client, bounded in number and bytes).
- ``relay`` and ``redis_relay``: carrying an HTTP POST to the process that holds its session.
- under the Streamable HTTP page (streamable_http/server_app.py): ``streamable_session`` (a session's
  transport: which stream each message goes on, the streams and their bounds), ``session_table``
  (the sessions by id, how many, how long unused), ``streamable_relay`` (what the relay carries
  for them), ``http_client`` (the
  client's HTTP plumbing: event streams read, refusals explained).
- ``memory``: an in-process transport pair, for tests and for client and server in one program.
- ``ratelimit``: a token bucket per session and method.
- ``quickcheck``: proving simple arguments valid without jsonschema (a measured fast path).
"""
