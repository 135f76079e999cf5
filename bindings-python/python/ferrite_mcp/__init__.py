"""ferrite_mcp: MCP servers in Python, on Ferrite's Rust core.

Quick start (the official SDK's ``MCPServer`` spelling works too)::

    from ferrite_mcp import Server, Context

    server = Server("demo", "1.0.0")

    @server.tool()
    def add(a: int, b: int) -> int:
        \"\"\"Add two integers.\"\"\"
        return a + b

    if __name__ == "__main__":
        server.run()  # stdio
"""

from . import _ferrite
from .diagnostics import set_diagnostics
from .auth import AccessToken, AuthSettings, Identity, TokenVerifier, get_access_token
from .content import (
    Audio,
    AudioContent,
    AssistantMessage,
    BlobResourceContents,
    Completion,
    Content,
    ElicitResult,
    EmbeddedResource,
    Image,
    ImageContent,
    Message,
    ReadResourceContents,
    ResourceLink,
    Root,
    RootsResult,
    SamplingResult,
    TextContent,
    TextResourceContents,
    ToolResult,
    UserMessage,
    error,
)
from .client import Client
from .context import Context, Sent, ServerRequestContext
from .errors import (
    ClientError,
    ConfigError,
    UpstreamError,
    ConnectionClosedError,
    FerriteError,
    InternalError,
    InvalidParamsError,
    MalformedResponseError,
    InvalidElicitationError,
    McpError,
    MissingCapabilityError,
    UrlElicitationRequiredError,
    NoChannelError,
    PeerError,
    RequestCancelledError,
    RequestTimeoutError,
    ResourceNotFoundError,
    ServerClosedError,
    StatelessError,
    ToolError,
    UseInputRequiredError,
    VerifierUnavailableError,
)
from .modern import CacheHint
from .mrtr import InputRequest, InputRequired
from .mcpserver import FastMCP, MCPServer
from .middleware import CallNext, Middleware, MiddlewareContext, telemetry_flush
from .registration import CompletionArgument, CompletionContext, TaskSupport
from .request_info import Address, Headers, HostState, RequestInfo
from .schema import schema_for
from .server import Server

__version__ = _ferrite.CORE_VERSION

__all__ = [
    "Server",
    "set_diagnostics",
    "MCPServer",
    "FastMCP",
    "Client",
    "Context",
    "Middleware",
    "MiddlewareContext",
    "CallNext",
    "telemetry_flush",
    "Sent",
    "ServerRequestContext",
    "RequestInfo",
    "Headers",
    "HostState",
    "Address",
    "CompletionArgument",
    "CompletionContext",
    "ReadResourceContents",
    "InputRequest",
    "InputRequired",
    "CacheHint",
    "TaskSupport",
    "schema_for",
    "AuthSettings",
    "AccessToken",
    "Identity",
    "TokenVerifier",
    "get_access_token",
    "Audio",
    "AudioContent",
    "AssistantMessage",
    "BlobResourceContents",
    "Completion",
    "Content",
    "ElicitResult",
    "EmbeddedResource",
    "Image",
    "ImageContent",
    "Message",
    "ResourceLink",
    "Root",
    "RootsResult",
    "SamplingResult",
    "TextContent",
    "TextResourceContents",
    "ToolResult",
    "UserMessage",
    "error",
    "FerriteError",
    "ConfigError",
    "UpstreamError",
    "ServerClosedError",
    "ToolError",
    "McpError",
    "InvalidParamsError",
    "InternalError",
    "ResourceNotFoundError",
    "PeerError",
    "NoChannelError",
    "StatelessError",
    "UseInputRequiredError",
    "MissingCapabilityError",
    "InvalidElicitationError",
    "UrlElicitationRequiredError",
    "ConnectionClosedError",
    "ClientError",
    "MalformedResponseError",
    "RequestCancelledError",
    "RequestTimeoutError",
    "VerifierUnavailableError",
]

from .diagnostics import _from_environment as _diagnostics_from_environment  # noqa: E402

_diagnostics_from_environment()
