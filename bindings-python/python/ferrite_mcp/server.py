"""``Server``: FastMCP-style decorators over the core server.

The class is assembled from mixins, one per concept: :mod:`ferrite_mcp.registration` (the
decorators for tools, resources, prompts, completers and notification observers),
:mod:`ferrite_mcp.modern` (the 2026-07-28 settings: request state, extensions, cache hints,
custom methods, skills); this module holds construction, the server-wide options and
notifications, and serving. Validation, dispatch, pagination, capabilities and every
protocol error are the core's.
"""

from __future__ import annotations

import atexit
import weakref
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Literal, Optional, Tuple

from . import _ferrite
from .modern import _Modern
from .registration import _Registration

__all__ = ["Server"]

if TYPE_CHECKING:
    from ._loop import LoopBridge

_LIVE: "weakref.WeakSet[Server]" = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    # Runtime threads must not call into an interpreter that is finalizing.
    for server in list(_LIVE):
        server.close()


class Server(_Registration, _Modern):
    """An MCP server. Register handlers with the decorators, then ``run()`` it (stdio), or
    call ``handle_raw`` in-process.

    ``stateless=True`` selects stateless mode (no sessions: handshake-era clients get no
    server-to-client requests, subscriptions or ``logging/setLevel``; 2026-07-28 clients,
    which need no session, get all of it, input requests the multi round-trip way).
    ``logging`` advertises the logging capability, so ``ctx.info(...)`` and friends reach the
    client.
    """

    def __init__(
        self,
        name: str,
        version: str = "0.1.0",
        *,
        title: Optional[str] = None,
        description: Optional[str] = None,
        website_url: Optional[str] = None,
        instructions: Optional[str] = None,
        stateless: bool = False,
        logging: bool = True,
        worker_threads: Optional[int] = None,
    ) -> None:
        self._core = _ferrite.Core(
            name,
            version,
            title=title,
            description=description,
            website_url=website_url,
            instructions=instructions,
            stateless=stateless,
            worker_threads=worker_threads,
        )
        # The event loop for `async def` handlers, made when the first one is registered (so
        # a server with only `def` handlers never imports asyncio).
        self._bridge: Optional[LoopBridge] = None
        self._observers: List[Tuple[Optional[str], Callable[..., Any], bool]] = []
        if logging:
            self._core.enable_logging()
        _LIVE.add(self)

    # ----- identity -----

    @property
    def name(self) -> str:
        return self._core.name

    @property
    def version(self) -> str:
        return self._core.version

    @property
    def stateless(self) -> bool:
        return self._core.stateless

    @property
    def closed(self) -> bool:
        return self._core.closed

    # ----- options and notifications -----

    def enable_resource_subscriptions(self) -> None:
        """Advertise ``resources.subscribe``: handshake-era sessions subscribe with
        ``resources/subscribe`` (stateful servers), 2026-07-28 clients through
        ``subscriptions/listen`` streams (either mode)."""
        self._core.enable_resource_subscriptions()

    def enable_list_changed(self, *, tools: bool = False, resources: bool = False, prompts: bool = False) -> None:
        """Advertise ``listChanged`` for the given lists."""
        if tools:
            self._core.enable_tools_list_changed()
        if resources:
            self._core.enable_resources_list_changed()
        if prompts:
            self._core.enable_prompts_list_changed()

    def disable_input_validation(self) -> None:
        """Stop validating tool arguments against their input schemas (on by default, as
        the spec requires)."""
        self._core.disable_input_validation()

    def connected_sessions(self) -> List[str]:
        """The ids of the connections being served (the stdio process, HTTP sessions)."""
        return self._core.connected_sessions()

    def set_page_size(self, size: int) -> None:
        """At most ``size`` items per ``*/list`` page (0: everything in one page)."""
        self._core.set_page_size(size)

    def require_initialized(self) -> None:
        """Refuse requests other than ``ping`` until the client sent ``initialized``."""
        self._core.require_initialized()

    def enable_output_validation(self) -> None:
        """Check ``structuredContent`` against each tool's ``outputSchema``."""
        self._core.enable_output_validation()

    def capabilities(self) -> Dict[str, Any]:
        """The capabilities the server declares."""
        return self._core.capabilities()

    def notify(self, method: str, params: Optional[Dict[str, Any]] = None) -> int:
        """Send a notification to every connected client; how many were reached."""
        return self._core.notify(method, params)

    def notify_resource_updated(self, uri: str) -> int:
        """Tell the clients subscribed to ``uri`` that it changed."""
        return self._core.notify_resource_updated(uri)

    def notify_tools_list_changed(self) -> int:
        return self._core.notify_tools_list_changed()

    def notify_resources_list_changed(self) -> int:
        return self._core.notify_resources_list_changed()

    def notify_prompts_list_changed(self) -> int:
        return self._core.notify_prompts_list_changed()

    # ----- serving -----

    def handle_raw(self, text: str) -> str:
        """Handle one JSON-RPC message (or batch) in-process and return the response text
        (``""`` for notifications). Blocks without holding the GIL; do not call it from a
        handler (use :meth:`handle_raw_async` from a coroutine)."""
        if self._bridge is not None and self._bridge.in_loop_thread():
            raise RuntimeError("handle_raw would block the event loop that runs async handlers: await handle_raw_async")
        return self._core.handle_raw(text)

    async def handle_raw_async(self, text: str) -> str:
        """:meth:`handle_raw` as an awaitable."""
        from .context import _awaitable

        return await _awaitable(lambda resolve: self._core.handle_raw_async(text, resolve))  # type: ignore[no-any-return]

    def run(
        self,
        transport: str = "stdio",
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
        path: str = "/mcp",
        json_response: bool = False,
        on_ready: Optional[Callable[[int], None]] = None,
        response_mode: Optional[Literal["auto", "json", "sse"]] = None,
        max_body_bytes: Optional[int] = None,
        session_idle_timeout: Optional[float] = _ferrite.DEFAULT_SESSION_IDLE_TIMEOUT,
        allowed_hosts: Optional[List[str]] = None,
        allowed_origins: Optional[List[str]] = None,
        allow_any_host: bool = False,
        legacy_sse: bool = False,
        sse_retry: Optional[float] = None,
        resumable: bool = True,
    ) -> None:
        """Serve until the client disconnects (stdio), ``stop()``/``close()``, or Ctrl-C;
        then close the server.

        ``transport="stdio"`` (the default) speaks newline-delimited JSON-RPC on
        stdin/stdout, so never ``print`` to stdout from a handler: log to stderr or with
        ``ctx.info``. ``transport="http"`` (or ``"streamable-http"``) serves Streamable HTTP
        on ``host:port`` at ``path`` (port 0 picks a free port; ``on_ready(port)`` is called
        once listening). The other keyword arguments configure HTTP only:

        - ``response_mode``: ``"auto"`` (JSON unless a handler sends something to the client
          first; the default), ``"json"`` or ``"sse"``. ``json_response=True`` means ``"json"``.
        - ``max_body_bytes``: larger POST bodies get 413 (default 4 MiB).
        - ``session_idle_timeout``: seconds before an idle session ends (default 30 minutes;
          ``None`` never).
        - ``allowed_hosts`` / ``allowed_origins``: the DNS-rebinding allow-lists, host names
          without port and ``scheme://host`` origins (default: the loopback names); other
          values get 403. ``allow_any_host=True`` turns both checks off (behind a proxy).
        - ``legacy_sse``: also serve the deprecated 2024-11-05 HTTP+SSE transport
          (``GET /sse``, ``POST /messages``) for old clients.
        - ``sse_retry``: the reconnection delay, in seconds, advertised in SSE ``retry``
          fields (default 1).
        - ``resumable``: keep SSE events for ``Last-Event-ID`` resumption (default True).

        Bad values raise ``ConfigError`` before anything is bound.
        """
        try:
            if transport == "stdio":
                self._core.serve_stdio()
            elif transport in ("http", "streamable-http"):
                self._core.serve_http(
                    host,
                    port,
                    path,
                    json_response,
                    on_ready,
                    response_mode=response_mode,
                    max_body_bytes=max_body_bytes,
                    session_idle_timeout=session_idle_timeout,
                    allowed_hosts=allowed_hosts,
                    allowed_origins=allowed_origins,
                    allow_any_host=allow_any_host,
                    legacy_sse=legacy_sse,
                    sse_retry=sse_retry,
                    resumable=resumable,
                )
            else:
                raise NotImplementedError(f"transport {transport!r}: use 'stdio' or 'http'")
        except KeyboardInterrupt:
            pass
        finally:
            self.close()

    async def run_async(self) -> None:
        """Serve stdio from inside a running event loop; ``async def`` handlers then run on
        that loop. Cancelling the awaiting task stops serving."""
        import asyncio

        from .context import _awaitable

        loop = asyncio.get_running_loop()
        bridge = self._loop_bridge()
        bridge.attach(loop)
        try:
            await _awaitable(self._core.start_stdio)
        except asyncio.CancelledError:
            self._core.stop()
            raise
        finally:
            bridge.detach(loop)
            self._core._served()

    def stop(self) -> None:
        """Stop serving stdio (in-flight requests finish); ``run()`` then returns."""
        self._core.stop()

    def close(self) -> None:
        """Stop serving, fail queued calls, stop the event loop thread and the runtime.
        Idempotent; the server cannot be used afterwards."""
        self._core.close()
        if self._bridge is not None:
            self._bridge.stop()
        _LIVE.discard(self)

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    async def __aenter__(self) -> "Server":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else ("stateless" if self.stateless else "stateful")
        return f"Server(name={self.name!r}, version={self.version!r}, {state})"
