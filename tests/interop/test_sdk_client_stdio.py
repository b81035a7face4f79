"""Interop: the official Python SDK's client (``mcp`` 2.x, default settings) against our server.

https://modelcontextprotocol.io/specification/2024-11-05/basic/lifecycle
The SDK's default mode probes ``server/discover`` and proposes a newer revision; our server
must answer -32601 at once and then negotiate 2024-11-05.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import pytest

from ..conftest import ROOT

mcp = pytest.importorskip("mcp", reason="the official SDK (pip install 'mcp>=2') is the interop peer")
anyio = pytest.importorskip("anyio")


def sdk_client(target: str | None = None, **kwargs: Any) -> Any:
    from mcp import Client, StdioServerParameters

    args = ["-m", "mcp_ref", "serve"] + ([target] if target else [])
    params = StdioServerParameters(command=sys.executable, args=args, cwd=str(ROOT))
    return Client(params, **kwargs)


def test_sdk_client_default_settings_connects_and_pings() -> None:
    async def main() -> tuple[str, Any, float]:
        start = time.monotonic()
        async with sdk_client() as client:
            elapsed = time.monotonic() - start
            await client.send_ping()
            return client.protocol_version, client.server_info, elapsed

    version, info, elapsed = anyio.run(main)
    assert version == "2024-11-05"
    assert info.name == "mcp-ref-demo"
    assert elapsed < 5  # the server/discover probe was answered at once, not waited out
