"""mcp_ref: a synchronous, thread-based reference implementation of MCP 2024-11-05.

https://modelcontextprotocol.io/specification/2024-11-05

Only light modules are imported here: werkzeug, requests and jsonschema load where used.
"""

from .client import Client
from .content import Audio, EmbeddedResource, Image, ResourceLink
from .lifecycle import PROTOCOL_VERSION, UnsupportedProtocolVersion
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
    "PROTOCOL_VERSION",
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
