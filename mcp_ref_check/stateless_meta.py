"""The ``_meta`` every request of the kit carries in a run of revision 2026-07-28.

Not a spec section: a helper of the conformance checker (see __init__.py). The spec page:
  https://modelcontextprotocol.io/specification/2026-07-28/basic/index#meta
There is no handshake in that revision, so each request names its revision, the capabilities
the client brings and the client's name (STLS-09, STLS-11); peer.py's ``Peer.meta`` holds what
this returns, and ``Peer.send_request`` puts it in every request. ``probes_2026`` tells a client's
probe of that revision (``server/discover`` naming it) from any other request.
"""

from __future__ import annotations

from typing import Any

from .peer import CLIENT_INFO


def stateless_meta(version: str, capabilities: dict[str, Any] | None = None, **more: Any) -> dict[str, Any]:
    """The ``_meta`` of a request of 2026-07-28 from the kit: its revision, the capabilities it
    brings (none unless given), its name (STLS-09, STLS-11); ``more``: other keys, such as
    ``io.modelcontextprotocol/logLevel``."""
    return {"io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": dict(capabilities or {}),
            "io.modelcontextprotocol/clientInfo": dict(CLIENT_INFO), **more}


def probes_2026(msg: Any) -> bool:
    """Is ``msg`` a ``server/discover`` whose ``_meta`` names a revision without the handshake?"""
    from mcp_ref.lifecycle import STATELESS_REVISIONS

    params = msg.get("params") if isinstance(msg, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get("io.modelcontextprotocol/protocolVersion") if isinstance(meta, dict) else None
    return msg.get("method") == "server/discover" and version in STATELESS_REVISIONS
