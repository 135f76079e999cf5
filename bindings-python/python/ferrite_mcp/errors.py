"""The exceptions of ferrite_mcp.

Two kinds of failure are kept apart, as MCP does:

- A tool that raises *any* exception produces a result with ``isError: true`` whose text is
  the exception's message: the model reads it and can react. :class:`ToolError` exists to
  say so explicitly; it behaves like any other exception.
- :class:`McpError` (and its subclasses) is a *protocol* error: raised from any handler, it
  is sent as the JSON-RPC error it describes (code, message, data).

Server-to-client requests (``ctx.sample``, ``ctx.elicit``, ``ctx.list_roots``) raise a
:class:`PeerError` subclass when they cannot produce a result (on a 2026-07-28 request,
:class:`UseInputRequiredError`). Input responses and request state that do not have the
shape asked for raise :class:`InvalidParamsError`, which a handler may let propagate
(``-32602``). The compiled module raises
these classes too, so they are the only ones a user needs to catch.
"""

from __future__ import annotations

from typing import Any, Optional

__all__ = [
    "FerriteError",
    "ConfigError",
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
    "RequestTimeoutError",
    "RequestCancelledError",
    "VerifierUnavailableError",
]

# JSON-RPC and MCP error codes.
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
RESOURCE_NOT_FOUND = -32002


class FerriteError(Exception):
    """The base class of every exception this package defines."""


class ConfigError(FerriteError, ValueError):
    """A registration or configuration mistake: an invalid schema, a URI template that does
    not parse, a handler whose parameters do not fit, a feature the server's mode forbids."""


class UpstreamError(FerriteError, ConnectionError):
    """A proxy's upstream server could not be started or reached, or refused or garbled a
    request the proxy needs (:meth:`~ferrite_mcp.Server.proxy`)."""


class ServerClosedError(FerriteError, RuntimeError):
    """The server was closed; it can no longer handle requests."""


class _InvalidResult(FerriteError):
    """Internal: a handler's return value that cannot become its result (a value that is not
    JSON, a shape its kind does not take). The core answers it as an invalid result,
    ``-32603`` "the handler's result is not valid: ...", as on every surface."""


class ToolError(FerriteError):
    """Raise from a tool to fail the call with ``isError: true`` and this message."""


class McpError(FerriteError):
    """A JSON-RPC error. Raised from a handler, it is sent to the client as is."""

    def __init__(self, code: int, message: str, data: Optional[Any] = None) -> None:
        super().__init__(message)
        self.code = int(code)
        self.message = message
        self.data = data

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code}, message={self.message!r}, data={self.data!r})"


class InvalidParamsError(McpError):
    """``-32602``: the request's parameters are wrong."""

    def __init__(self, message: str, data: Optional[Any] = None) -> None:
        super().__init__(INVALID_PARAMS, message, data)


class UrlElicitationRequiredError(McpError):
    """``-32042``: the request cannot go on until the user completes these URL elicitations
    (the official SDK's class of the same name). Each elicitation is a dict with ``message``,
    ``url`` and ``elicitation_id`` (``elicitationId`` is read too) or an object with those
    attributes (the official SDK's ``ElicitRequestURLParams``). ``data.elicitations`` is
    the core's wire shape (``{mode: "url", message, url, elicitationId}``)."""

    def __init__(self, elicitations: Any, message: Optional[str] = None) -> None:
        from . import _ferrite

        self._elicitations = list(elicitations)
        code, core_message, data = _ferrite.url_elicitation_required([_url_elicitation(e) for e in self._elicitations])
        super().__init__(code, core_message if message is None else message, data)

    @property
    def elicitations(self) -> Any:
        """The elicitations as given."""
        return self._elicitations


def _url_elicitation(e: Any) -> Any:
    """One URL elicitation as the dict the core reads."""
    if isinstance(e, dict):
        return {
            "message": e.get("message"),
            "url": e.get("url"),
            "elicitation_id": e.get("elicitation_id", e.get("elicitationId")),
        }
    return {"message": getattr(e, "message", None), "url": getattr(e, "url", None), "elicitation_id": getattr(e, "elicitation_id", None)}


class InternalError(McpError):
    """``-32603``: the server failed."""

    def __init__(self, message: str, data: Optional[Any] = None) -> None:
        super().__init__(INTERNAL_ERROR, message, data)


class ResourceNotFoundError(McpError):
    """``-32002`` with ``data.uri``: no resource at that URI."""

    def __init__(self, uri: str) -> None:
        super().__init__(RESOURCE_NOT_FOUND, f"Resource not found: {uri}", {"uri": uri})


class PeerError(FerriteError):
    """A server-to-client request did not produce a result."""


class NoChannelError(PeerError):
    """The transport has no channel back to the client (e.g. ``handle_raw``)."""


class StatelessError(PeerError):
    """Server-to-client requests need a stateful server."""


class UseInputRequiredError(StatelessError):
    """A 2026-07-28 request: the server cannot send the client requests. Return
    :class:`~ferrite_mcp.InputRequired` from the handler instead and read the answers with
    ``ctx.input_response_as`` (this works on handshake-era sessions too)."""


class MissingCapabilityError(PeerError):
    """The client did not declare the capability the request needs."""


class InvalidElicitationError(PeerError, ValueError):
    """The form asks for something the spec does not let an elicitation ask (a nested object,
    an array that is not a multi-select, a format other than email/uri/date/date-time, a default
    of the wrong type, ...); nothing was sent. The message is the core's, naming the property:
    ``invalid elicitation schema: property "address": ...``."""


class ConnectionClosedError(PeerError):
    """The connection closed before the client answered."""


class MalformedResponseError(PeerError):
    """The client's answer did not have the expected shape, including an accepted elicitation
    whose values do not fit the form (a missing required field, a value of the wrong type or
    outside its options or bounds: the core checks every accepted answer)."""


class RequestTimeoutError(PeerError, TimeoutError):
    """The client did not answer in time (``ping_client``)."""


class RequestCancelledError(PeerError):
    """The client cancelled the request being handled: the server-to-client request was not
    sent, or its answer is no longer awaited."""


class ClientError(PeerError):
    """The client answered with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Optional[Any] = None) -> None:
        super().__init__(f"client error {code}: {message}")
        self.code = int(code)
        self.message = message
        self.data = data


class VerifierUnavailableError(FerriteError):
    """Raise from a token verifier that cannot decide now (its own backend is down): the
    request gets 503 with ``Retry-After`` instead of 401, so the client retries rather than
    re-authorizing. Any other exception refuses the token (401, its message the challenge's
    ``error_description``)."""
