"""Client: the client side of MCP, composed from the section modules, with ONE dispatch table.

Spec page: client (overview), and basic/lifecycle for the client's part of initialization
https://modelcontextprotocol.io/specification/2024-11-05/client

In short:

1. A ``Client`` talks to one server over one transport. ``Client.stdio([...])`` spawns the
   server as a child process; the constructor takes any transport.
2. Connecting runs the lifecycle: ``initialize`` with our version, capabilities and name
   (LC-04..06), a check of the version the server chose (LC-13), then
   ``notifications/initialized`` (LC-08). Nothing else is sent before (LC-09).
3. Requests the server may send to a client are listed in ``Client.request_handlers``:
   method string -> handler; anything else is answered -32601.
4. Every request waits at most ``timeout`` seconds (LC-24); then the server is told
   ``notifications/cancelled`` and the caller gets ``RequestTimeout``.

Use it as a context manager so the connection (and a spawned server) is always shut down::

    with Client.stdio(["mcp-ref", "serve"]) as client:
        client.ping()
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from . import lifecycle
from .jsonrpc import McpError, MethodNotFound
from .session import DEFAULT_TIMEOUT, ProgressCallback, RequestContext, Session, TraceCallback, Transport
from .stdio import SubprocessTransport

CLIENT_INFO = {"name": "mcp_ref", "version": "0.1.0"}

NotificationCallback = Callable[[str, dict[str, Any]], None]


class Client:
    """An MCP client on one transport. Prefer ``Client.stdio(...)`` as a context manager."""

    def __init__(
        self,
        transport: Transport,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        client_info: dict[str, Any] | None = None,
        on_notification: NotificationCallback | None = None,
        trace: TraceCallback | None = None,
    ):
        self.client_info = dict(client_info or CLIENT_INFO)
        self._on_notification = on_notification
        # Every request a server may send to this client.
        self.request_handlers: dict[str, Callable[[RequestContext], dict[str, Any]]] = {
            "ping": lambda ctx: {},  # PING-01
        }
        self._session = Session(
            transport,
            on_request=self._handle_request,
            on_notification=self._handle_notification,
            inline_methods=frozenset({"ping"}),
            default_timeout=timeout,
            trace=trace,
            name="mcp_ref-client",
        )

    # --- connecting ---------------------------------------------------------------------------

    @classmethod
    def stdio(
        cls,
        command: Sequence[str],
        *,
        env: dict[str, str | None] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        inherit_env: bool = True,
        on_stderr: Callable[[str], None] | None = None,
        **kwargs: Any,
    ) -> Client:
        """Spawn ``command`` as the server, initialize, and return the connected client.

        ``env`` is applied on top of this process's environment (see stdio.py). The server's
        stderr is forwarded to ours line by line, or to ``on_stderr(line)``.
        """
        transport = SubprocessTransport(command, env=env, inherit_env=inherit_env, cwd=cwd, on_stderr=on_stderr)
        return cls(transport, timeout=timeout, **kwargs).connect()

    def connect(self) -> Client:
        """Start reading and run the initialization phase; on any failure, close and raise."""
        self._session.start()
        try:
            result = self._session.request(
                "initialize", lifecycle.initialize_params(self.client_info, self.capabilities())
            )
            lifecycle.accept_initialize_result(self._session.lifecycle, result)  # LC-13
            self._session.notify("notifications/initialized")  # LC-08
        except BaseException:
            self.close()
            raise
        return self

    def capabilities(self) -> dict[str, Any]:
        """The capabilities this client declares in ``initialize``."""
        return {}

    def close(self) -> None:
        """Close the connection (and shut a spawned server down: LC-16..18)."""
        self._session.close("the client closed the connection")

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- what initialization told us ------------------------------------------------------------

    @property
    def protocol_version(self) -> str | None:
        return self._session.lifecycle.protocol_version

    @property
    def server_info(self) -> dict[str, Any] | None:
        return self._session.lifecycle.peer_info

    @property
    def server_capabilities(self) -> dict[str, Any]:
        return self._session.lifecycle.peer_capabilities

    @property
    def instructions(self) -> str | None:
        return self._session.lifecycle.instructions

    @property
    def session(self) -> Session:
        return self._session

    # --- requests and notifications -------------------------------------------------------------

    def request(
        self, method: str, params: dict[str, Any] | None = None, *,
        timeout: float | None = None, on_progress: ProgressCallback | None = None,
    ) -> dict[str, Any]:
        """Send any request; return its result as on the wire, or raise ``McpError``."""
        return self._session.request(method, params, timeout=timeout, on_progress=on_progress)

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send any notification."""
        self._session.notify(method, params)

    def ping(self, *, timeout: float | None = None) -> None:
        """Check that the server answers (PING-01); raise ``RequestTimeout`` if it does not."""
        self.request("ping", timeout=timeout)

    # --- dispatch of what the server sends --------------------------------------------------------

    def _handle_request(self, ctx: RequestContext) -> dict[str, Any]:
        handler = self.request_handlers.get(ctx.method)
        if handler is None:
            raise MethodNotFound(f"Method not found: {ctx.method}")
        return handler(ctx)

    def _handle_notification(self, session: Session, method: str, params: dict[str, Any]) -> None:
        if self._on_notification is not None:
            self._on_notification(method, params)


__all__ = ["Client", "McpError"]
