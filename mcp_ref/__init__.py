"""mcp_ref: a synchronous, thread-based reference implementation of MCP 2024-11-05, and of the
three later revisions with the same handshake (2025-03-26, 2025-06-18, 2025-11-25: mcp_ref/revisions/).

https://modelcontextprotocol.io/specification/2024-11-05

Only light modules are imported here: werkzeug, requests and jsonschema load where used.
"""

from .client import Client
from .content import Audio, EmbeddedResource, Image, ResourceLink
from .lifecycle import LATEST_PROTOCOL_VERSION, PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, UnsupportedProtocolVersion
from .messages import (
    ConnectionClosed,
    InternalError,
    InvalidParams,
    InvalidRequest,
    McpError,
    MethodNotFound,
    ParseError,
    RateLimited,
    RequestCancelled,
    RequestTimeout,
    ResourceNotFound,
)
from .revisions.structured_output import InvalidStructuredContent
from .sampling import SamplingRejected
from .server import RequestContext, Server
from .sse_client import HttpError

__version__ = "0.1.0"

__all__ = [
    "LATEST_PROTOCOL_VERSION",
    "PROTOCOL_VERSION",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "Audio",
    "Client",
    "ConnectionClosed",
    "EmbeddedResource",
    "HttpError",
    "Image",
    "InternalError",
    "InvalidStructuredContent",
    "InvalidParams",
    "InvalidRequest",
    "McpError",
    "MethodNotFound",
    "ParseError",
    "RateLimited",
    "RequestCancelled",
    "RequestContext",
    "RequestTimeout",
    "ResourceLink",
    "ResourceNotFound",
    "SamplingRejected",
    "Server",
    "UnsupportedProtocolVersion",
]
