"""``MCPServer`` (and ``FastMCP``): the official SDK's server class names and constructor, on
Ferrite's :class:`~ferrite_mcp.Server`, so that porting a server written for the official
SDK is an import change::

    from ferrite_mcp import MCPServer, Context      # was: from mcp.server.mcpserver import ...

    mcp = MCPServer("Demo")

    @mcp.tool()
    def add(a: int, b: int) -> int:
        return a + b

Everything else is the ``Server`` API (which already uses the official names: ``tool``,
``resource``, ``prompt``, ``completion``, ``run``); the README lists where Ferrite differs.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from .errors import ConfigError
from .server import Lifespan, Server

__all__ = ["MCPServer", "FastMCP"]

# Constructor arguments of the official SDK that configure what Ferrite does not have (its
# own Python logging, the `mcp` CLI, duplicate-name warnings): accepted and ignored.
_IGNORED = ("debug", "log_level", "dependencies", "warn_on_duplicate_resources", "warn_on_duplicate_tools", "warn_on_duplicate_prompts")


class MCPServer(Server):
    """A :class:`~ferrite_mcp.Server` built with the official SDK's ``MCPServer``
    constructor: ``MCPServer(name=None, title=None, description=None, instructions=None,
    website_url=None, icons=None, version="", *, lifespan=None, ...)``. The name defaults
    to ``"mcp-server"``. ``stateless``, ``logging``, ``worker_threads``, the ``task_*``
    settings and ``limits`` are Ferrite's own
    (keyword-only, as in ``Server``). ``token_verifier`` and ``auth`` are the official
    SDK's (see :mod:`ferrite_mcp.auth`); ``auth_server_provider`` is refused, since Ferrite
    is a resource server only."""

    def __init__(
        self,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        instructions: Optional[str] = None,
        website_url: Optional[str] = None,
        icons: Optional[List[Any]] = None,
        version: str = "",
        auth_server_provider: Any = None,
        token_verifier: Any = None,
        *,
        lifespan: Optional[Lifespan] = None,
        auth: Any = None,
        stateless: bool = False,
        logging: bool = True,
        worker_threads: Optional[int] = None,
        task_ttl: Optional[float] = None,
        task_max_ttl: Optional[float] = None,
        task_poll_interval: Optional[float] = None,
        limits: Optional[Dict[str, int]] = None,
        **ignored: Any,
    ) -> None:
        unknown = sorted(set(ignored) - set(_IGNORED))
        if unknown:
            raise TypeError(f"MCPServer() got unexpected keyword arguments {unknown} (not supported by ferrite_mcp)")
        if auth_server_provider is not None:
            raise ConfigError(
                "invalid auth option auth_server_provider: Ferrite is a resource server only; run the authorization "
                "server apart and verify its tokens with token_verifier, or the jwt or introspection settings"
            )
        super().__init__(
            name or "mcp-server",
            version,
            title=title,
            description=description,
            website_url=website_url,
            instructions=instructions,
            stateless=stateless,
            logging=logging,
            worker_threads=worker_threads,
            lifespan=lifespan,
            icons=icons,
            auth=auth,
            token_verifier=token_verifier,
            task_ttl=task_ttl,
            task_max_ttl=task_max_ttl,
            task_poll_interval=task_poll_interval,
            limits=limits,
        )


    def streamable_http_app(self, path: Optional[str] = "/mcp", **http_options: Any) -> Any:
        """The official SDK's name for :meth:`~ferrite_mcp.Server.asgi_app`: the Streamable
        HTTP endpoint as an ASGI app serving ``path`` (default ``/mcp``)."""
        return self.asgi_app(path, **http_options)


class FastMCP(MCPServer):
    """The official SDK's older name for :class:`MCPServer` (FastMCP, SDK 1.x), with its
    constructor order: ``FastMCP(name=None, instructions=None, *, lifespan=None, ...)``."""

    def __init__(self, name: Optional[str] = None, instructions: Optional[str] = None, **options: Any) -> None:
        super().__init__(name, instructions=instructions, **options)
