"""``Server``: FastMCP-style decorators over the core server.

The class is assembled from mixins, one per concept: :mod:`ferrite_mcp.registration` (the
decorators for tools, resources, prompts, completers and notification observers),
:mod:`ferrite_mcp.modern` (the 2026-07-28 settings: request state, extensions, cache hints,
custom methods, skills), :mod:`ferrite_mcp.fleet` (shared state in Redis),
:mod:`ferrite_mcp.middleware` (the middleware chain); this module holds construction, the server-wide options and
notifications, and serving (its HTTP options are gathered by :mod:`ferrite_mcp.http_options`).
Validation, dispatch, pagination, capabilities and every protocol error are the core's.
"""

from __future__ import annotations

import atexit
import weakref
from typing import TYPE_CHECKING, Any, AsyncContextManager, Callable, Dict, List, Literal, Optional, Tuple

from . import _ferrite
from .errors import ConfigError
from .fleet import _Fleet
from .http_options import _transport_config
from .middleware import _Middlewares
from .modern import _Modern
from .registration import _Registration

__all__ = ["Server", "Lifespan"]

#: A lifespan: called with the server, it returns an async context manager whose value
#: handlers read as ``ctx.request_context.lifespan_context``.
Lifespan = Callable[[Any], AsyncContextManager[Any]]

if TYPE_CHECKING:
    from ._loop import LoopBridge
    from .asgi import AsgiApp

_LIVE: "weakref.WeakSet[Server]" = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    # Runtime threads must not call into an interpreter that is finalizing.
    for server in list(_LIVE):
        server.close()
    # A server closed from now on (collected during finalization) leaves its workers parked.
    _ferrite.interpreter_exiting()


class Server(_Registration, _Modern, _Fleet, _Middlewares):
    """An MCP server. Register handlers with the decorators, then ``run()`` it (stdio or
    Streamable HTTP), drive it in-process with :class:`~ferrite_mcp.Client`, or call
    ``handle_raw``.

    The defaults are the core's, the same on every surface: stateful (sessions,
    server-to-client requests, subscriptions, ``logging/setLevel``), the ``logging``
    capability on, tool arguments validated against their input schema.
    ``stateless=True`` selects stateless mode (handshake-era clients get no server-to-client
    requests, subscriptions or ``logging/setLevel``; 2026-07-28 clients, which need no
    session, get all of it, input requests the multi round-trip way). ``logging=False``
    stops advertising logging (``ctx.info(...)`` and friends then send nothing).

    ``lifespan`` (as in the official SDK) is called with the server and returns an async
    context manager, entered before serving (``run``, ``run_async``, ``async with server``,
    ``Client(server)``) and exited when serving ends; handlers read its value as
    ``ctx.request_context.lifespan_context``.

    ``auth`` (:class:`~ferrite_mcp.AuthSettings`, the official SDK's ``AuthSettings``, or a
    dict of the core's keys) makes the server an OAuth 2.1 resource server over Streamable
    HTTP: every request needs a bearer token the core verifies, with the configuration's
    ``jwt`` or ``introspection`` settings or with ``token_verifier`` (the official
    ``TokenVerifier``, ``verify_token(token) -> AccessToken | None``, or a callable answering
    the token's claims; ``def`` or ``async def``). Handlers see the caller as
    ``ctx.identity`` and ``get_access_token()``. See :mod:`ferrite_mcp.auth`.

    Tools registered with ``task_support="optional"`` or ``"required"`` may run as tasks
    (both generations: 2025-11-25's ``tasks`` capability and the 2026-07-28 tasks extension).
    ``task_ttl`` (how long a task is kept when the client asks for nothing else; default 300
    seconds), ``task_max_ttl`` (the longest a 2025-11-25 client may ask for; default 3600) and
    ``task_poll_interval`` (the interval suggested to clients; default 1) are in seconds; the
    core keeps tasks in memory (at most 100,000), or in Redis after ``use_redis`` (a fleet).

    ``limits`` (a dict, the keys of :meth:`set_limits`) bounds what peers can make the server
    run: ``max_batch_len``, ``max_in_flight_per_connection``, ``max_in_flight``,
    ``max_json_depth``.
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
        lifespan: Optional[Lifespan] = None,
        icons: Optional[List[Any]] = None,
        auth: Any = None,
        token_verifier: Any = None,
        task_ttl: Optional[float] = None,
        task_max_ttl: Optional[float] = None,
        task_poll_interval: Optional[float] = None,
        limits: Optional[Dict[str, int]] = None,
    ) -> None:
        from .auth import _settings
        from .registration import _plain

        config, verifier, verifier_is_async = _settings(auth, token_verifier)
        self._core = _ferrite.Core(
            name,
            version,
            title=title,
            description=description,
            website_url=website_url,
            instructions=instructions,
            stateless=stateless,
            worker_threads=worker_threads,
            icons=_plain(icons),
            auth=config,
            token_verifier=verifier,
            token_verifier_is_async=verifier_is_async,
            task_ttl=task_ttl,
            task_max_ttl=task_max_ttl,
            task_poll_interval=task_poll_interval,
        )
        self._auth = config is not None
        # The event loop for `async def` handlers, made when the first one is registered (so
        # a server with only `def` handlers never imports asyncio).
        self._bridge: Optional[LoopBridge] = None
        self._observers: List[Tuple[Optional[str], Callable[..., Any], bool]] = []
        self._roots_observers: List[Tuple[Callable[..., Any], bool]] = []
        self._has_async = False
        self._lifespan = lifespan
        self._lifespan_cm: Any = None
        self._lifespan_state: Any = None
        self._lifespan_depth = 0
        if not logging:
            self._core.disable_logging()
        if limits is not None:
            self._core.set_limits(limits)
        _LIVE.add(self)
        if verifier_is_async:  # an `async def` verifier runs on the event loop, as handlers do
            self._registered(True)

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
        the spec requires); pydantic still validates the arguments of decorated tools."""
        self._core.disable_input_validation()

    def enable_input_validation(self) -> None:
        """Validate tool arguments against their input schemas again (the default)."""
        self._core.enable_input_validation()

    def disable_logging(self) -> None:
        """Stop advertising ``logging`` (on by default): ``logging/setLevel`` is refused and
        ``ctx.info(...)`` and friends send nothing."""
        self._core.disable_logging()

    def enable_logging(self) -> None:
        """Advertise ``logging`` again (the default)."""
        self._core.enable_logging()

    def connected_sessions(self) -> List[str]:
        """The ids of the connections being served (the stdio process, HTTP sessions)."""
        return self._core.connected_sessions()

    def stats(self) -> Dict[str, int]:
        """What the server counts now (the figures telemetry exports as metrics):
        ``sse_streams`` (SSE streams open), ``tasks_running`` (tasks running in this process),
        ``tasks_created`` and ``store_round_trips`` (Redis round trips of :meth:`use_redis`)."""
        sse, running, created, trips = self._core.stats()
        return {"sse_streams": sse, "tasks_running": running, "tasks_created": created, "store_round_trips": trips}

    def set_page_size(self, size: int) -> None:
        """At most ``size`` items per ``*/list`` page (0: everything in one page)."""
        self._core.set_page_size(size)

    def set_limits(self, **limits: int) -> Dict[str, int]:
        """Change the dispatch limits given (the core's ``Limits``; the others keep their
        value) and return the limits now in force. They apply at once:

        - ``max_batch_len`` (default 100): messages in one JSON-RPC batch (2025-03-26); a
          longer batch is refused whole with -32600 and ``data: {"limit": "max_batch_len",
          "value": N}``;
        - ``max_in_flight_per_connection`` (default 256): requests running at once on one
          connection (the stdio process, an HTTP session, a connection of :meth:`connect`,
          ``handle_raw``'s); one more is answered -32603 with ``data.limit`` naming it;
        - ``max_in_flight`` (default 10,000): requests running at once in the whole server;
          one more is answered -32603 with ``data.limit`` naming it;
        - ``max_json_depth`` (default and at most 127, serde_json's own limit): objects and
          arrays nested inside one another in one inbound message; deeper text is answered
          -32700 (HTTP 400) with ``data: {"limit": "max_json_depth", "value": N}``.

        Each is a whole number at least 1; a bad value or an unknown key raises
        ``ConfigError`` with the core's message (``invalid limit max_in_flight: must be at
        least 1``) and changes nothing."""
        return self._core.set_limits(limits)

    @property
    def limits(self) -> Dict[str, int]:
        """The dispatch limits in force (every key of :meth:`set_limits`)."""
        return self._core.limits

    @property
    def in_flight(self) -> int:
        """Requests running now in the whole server (what ``max_in_flight`` bounds)."""
        return self._core.in_flight

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

    def send_log_message(
        self, level: str, data: Any, logger: Optional[str] = None, session_id: Optional[str] = None
    ) -> int:
        """``notifications/message`` at ``level`` (``"debug"`` ... ``"emergency"``) with ``data``
        (any JSON value) from ``logger`` to every connected client whose minimum level
        (``logging/setLevel``) it reaches, or with ``session_id`` to that session only; how many
        were reached. The server-wide form of the official SDKs' ``send_log_message`` /
        ``sendLoggingMessage``; inside a handler, ``await ctx.log(...)`` reaches the requesting
        client in either era. Nothing is sent without the logging capability; an unknown
        level raises ``ValueError``."""
        return self._core.send_log_message(level, data, logger, session_id)

    def notify_tools_list_changed(self) -> int:
        return self._core.notify_tools_list_changed()

    def notify_resources_list_changed(self) -> int:
        return self._core.notify_resources_list_changed()

    def notify_prompts_list_changed(self) -> int:
        return self._core.notify_prompts_list_changed()

    def notify_elicitation_complete(self, connection_id: str, elicitation_id: str) -> bool:
        """Tell the client on connection ``connection_id`` (``ctx.connection_id``, an entry of
        :meth:`connected_sessions`) that the URL elicitation ``elicitation_id`` has completed
        (``notifications/elicitation/complete``): the out-of-band end of a URL elicitation,
        for the web page or callback that learns of it after the request that asked (or that
        raised :class:`~ferrite_mcp.UrlElicitationRequiredError`) has ended. The connection
        must be listening (a stdio connection, a :meth:`connect` connection, or an HTTP
        session with its GET stream open) and have negotiated 2025-11-25 or later; whether
        the notification went out."""
        return self._core.notify_elicitation_complete(connection_id, elicitation_id)

    # ----- the lifespan -----

    def _lifespan_value(self) -> Any:
        if self._lifespan is None:
            return {}
        if self._lifespan_depth == 0:
            raise RuntimeError(
                "the server's lifespan is not entered: serve with run() or run_async(), "
                "or use `async with server` or Client(server)"
            )
        return self._lifespan_state

    async def _enter_lifespan(self) -> None:
        if self._lifespan_depth == 0 and self._lifespan is not None:
            cm = self._lifespan(self)
            state = await cm.__aenter__()
            self._lifespan_cm, self._lifespan_state = cm, state
        self._lifespan_depth += 1

    async def _exit_lifespan(self, *exc: Any) -> None:
        if self._lifespan_depth == 0:
            return
        self._lifespan_depth -= 1
        if self._lifespan_depth == 0 and self._lifespan_cm is not None:
            cm, self._lifespan_cm, self._lifespan_state = self._lifespan_cm, None, None
            await cm.__aexit__(*(exc or (None, None, None)))

    def _on_own_loop(self, coro: Any) -> Any:
        """Run ``coro`` on the package's event loop thread and wait for it (sync ``run``)."""
        import asyncio

        bridge = self._loop_bridge()
        bridge.start_thread()
        if bridge.loop is None:
            coro.close()
            raise RuntimeError("the server is closed")
        return asyncio.run_coroutine_threadsafe(coro, bridge.loop).result()

    # ----- serving -----

    def handle_raw(self, text: str) -> str:
        """Handle one JSON-RPC message (or batch) in-process and return the response text
        (``""`` for notifications), on the server's in-process connection, which has no
        channel back to a client. Blocks without holding the GIL; do not call it from a
        handler (use :meth:`handle_raw_async` from a coroutine)."""
        if self._bridge is not None and self._bridge.in_loop_thread():
            raise RuntimeError("handle_raw would block the event loop that runs async handlers: await handle_raw_async")
        return self._core.handle_raw(text)

    async def handle_raw_async(self, text: str) -> str:
        """:meth:`handle_raw` as an awaitable."""
        from .context import _awaitable

        return await _awaitable(lambda resolve: self._core.handle_raw_async(text, resolve))  # type: ignore[no-any-return]

    def connect(
        self,
        on_message: Optional[Callable[[str], None]] = None,
        on_request: Optional[Callable[[str, Any, Any], None]] = None,
    ) -> _ferrite.Connection:
        """A connection of your own to this server (the core's ``ConnectionState`` with a peer
        that calls you back), for serving it over a channel the package does not provide, as
        Rust code does with ``Server::handle_raw_on``. ``on_message(frame)`` receives the
        server's notifications as JSON text, from the thread that sends them;
        ``on_request(method, params, reply)`` its requests (``sampling/createMessage``,
        ``elicitation/create``, ``roots/list``, ``ping``), answered with
        ``reply.resolve(result)`` or ``reply.reject(code, message)``. Hand it text with
        :meth:`handle_raw_on`; ``connection.close()`` ends it. The connection counts as a
        session: ``connected_sessions()``, ``notify*`` and ``ping_client`` reach it."""
        return self._core.connect(on_message, on_request)

    def handle_raw_on(self, text: str, connection: _ferrite.Connection) -> Optional[str]:
        """Handle JSON-RPC text on ``connection`` (from :meth:`connect`): the response text,
        or ``None`` when there is nothing to answer. Blocks without holding the GIL."""
        if self._bridge is not None and self._bridge.in_loop_thread():
            raise RuntimeError("handle_raw_on would block the event loop that runs async handlers: await handle_raw_on_async")
        return connection.handle_raw(text)

    async def handle_raw_on_async(self, text: str, connection: _ferrite.Connection) -> Optional[str]:
        """:meth:`handle_raw_on` as an awaitable."""
        from .context import _awaitable

        return await _awaitable(lambda resolve: connection.handle_raw_async(text, resolve))  # type: ignore[no-any-return]

    def ping_client(self, connection_id: str, timeout: float = 10.0) -> None:
        """Send ``ping`` to a connected client (a stdio process, an HTTP session or a
        :meth:`connect` connection, by the id ``ctx.connection_id`` and
        ``connected_sessions()`` show) and wait up to ``timeout`` seconds for its answer.
        Raises ``NoChannelError`` when no such connection can take requests (stateless
        servers have none), ``RequestTimeoutError`` when it does not answer in time."""
        if self._bridge is not None and self._bridge.in_loop_thread():
            raise RuntimeError("ping_client would block the event loop that runs async handlers: await ping_client_async")
        self._core.ping_client(connection_id, float(timeout))

    async def ping_client_async(self, connection_id: str, timeout: float = 10.0) -> None:
        """:meth:`ping_client` as an awaitable."""
        from .context import _awaitable

        await _awaitable(lambda resolve: self._core.ping_client_async(connection_id, float(timeout), resolve))

    def run(
        self,
        transport: str = "stdio",
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
        path: Optional[str] = None,
        on_ready: Optional[Callable[[int], None]] = None,
        response_mode: Optional[Literal["auto", "json", "sse"]] = None,
        json_response: bool = False,
        max_body_bytes: Optional[int] = None,
        session_idle_timeout: Optional[float] = None,
        session_idle_timeout_ms: Optional[int] = None,
        max_sessions: Optional[int] = None,
        header_read_timeout_ms: Optional[int] = None,
        body_read_timeout_ms: Optional[int] = None,
        allowed_hosts: Optional[List[str]] = None,
        allowed_origins: Optional[List[str]] = None,
        allow_any_host: Optional[bool] = None,
        resumable: Optional[bool] = None,
        max_events_per_stream: Optional[int] = None,
        max_event_streams: Optional[int] = None,
        sse_retry_ms: Optional[int] = None,
        sse_keep_alive_ms: Optional[int] = None,
        stream_buffer: Optional[int] = None,
        legacy_sse: Optional[bool] = None,
        legacy_sse_path: Optional[str] = None,
        legacy_messages_path: Optional[str] = None,
        streamable_http_path: Optional[str] = None,
        max_request_body_size: Optional[int] = None,
        retry_interval: Optional[int] = None,
    ) -> None:
        """Serve until the client disconnects (stdio), ``stop()``/``close()``, or Ctrl-C;
        then close the server. The lifespan is entered first and exited at the end.

        ``transport="stdio"`` (the default) speaks newline-delimited JSON-RPC on
        stdin/stdout, so never ``print`` to stdout from a handler: log to stderr or with
        ``ctx.info``. A server whose handlers are all ``async def`` serves it from its event
        loop's thread (``FERRITE_PY_STDIO=loop`` or ``runtime`` chooses).
        ``transport="streamable-http"`` (or ``"http"``) serves Streamable HTTP on
        ``host:port`` at ``path``; ``"sse"`` does too, with the deprecated HTTP+SSE endpoints
        on (``legacy_sse=True``). ``on_ready(port)`` is called once listening (``port=0``
        picks a free port).

        The other keyword arguments are the core's HTTP options (``HttpConfig``), by their
        names, each left out by default (the core's default then applies): ``host`` (an IP
        address), ``port``, ``path`` (default ``/mcp``), ``response_mode`` (``"auto"``,
        ``"json"``, ``"sse"``), ``max_body_bytes`` (default 4 MiB), ``session_idle_timeout_ms``
        (default 30 minutes; 0: never), ``max_sessions`` (default 10,000; 0: unbounded; a new
        session past it evicts the longest idle one, or gets 503 with ``Retry-After`` when
        every one is busy), ``header_read_timeout_ms`` (default 30,000; 0: never: a connection
        whose request head has not arrived in time is closed), ``body_read_timeout_ms``
        (default 30,000; 0: never: a body not arrived in time gets 408), ``allowed_hosts``, ``allowed_origins``,
        ``allow_any_host``, ``resumable``, ``max_events_per_stream`` (default 1024) and
        ``max_event_streams`` (default 4096), the in-memory event store's bounds,
        ``sse_retry_ms``, ``sse_keep_alive_ms`` (0: never),
        ``stream_buffer``, ``legacy_sse``, ``legacy_sse_path``, ``legacy_messages_path``. The
        official SDK's spellings are accepted too: ``json_response=True`` (``response_mode=
        "json"``), ``session_idle_timeout`` (seconds; 0: never), ``streamable_http_path``
        (``path``), ``max_request_body_size`` (``max_body_bytes``), ``retry_interval``
        (``sse_retry_ms``). A bad value raises ``ConfigError`` with the core's message
        (``invalid HTTP option max_body_bytes: must be at least 1 byte, not 0``) before
        anything is bound.
        """
        config = _transport_config(
            transport,
            host=host,
            port=port,
            path=path,
            response_mode=response_mode,
            json_response=json_response,
            max_body_bytes=max_body_bytes,
            session_idle_timeout=session_idle_timeout,
            session_idle_timeout_ms=session_idle_timeout_ms,
            max_sessions=max_sessions,
            header_read_timeout_ms=header_read_timeout_ms,
            body_read_timeout_ms=body_read_timeout_ms,
            allowed_hosts=allowed_hosts,
            allowed_origins=allowed_origins,
            allow_any_host=allow_any_host,
            resumable=resumable,
            max_events_per_stream=max_events_per_stream,
            max_event_streams=max_event_streams,
            sse_retry_ms=sse_retry_ms,
            sse_keep_alive_ms=sse_keep_alive_ms,
            stream_buffer=stream_buffer,
            legacy_sse=legacy_sse,
            legacy_sse_path=legacy_sse_path,
            legacy_messages_path=legacy_messages_path,
            streamable_http_path=streamable_http_path,
            max_request_body_size=max_request_body_size,
            retry_interval=retry_interval,
        )
        entered = False
        try:
            if self._lifespan is not None:
                self._on_own_loop(self._enter_lifespan())
                entered = True
            from ._loop import stdio_on_loop

            if config is None and stdio_on_loop(self._core):
                self._loop_bridge().serve_stdio(self._core)
            elif config is None:
                self._core.serve_stdio()
            else:
                self._core.serve_http(config, on_ready)
        except KeyboardInterrupt:
            pass
        finally:
            try:
                if entered:
                    self._on_own_loop(self._exit_lifespan())
            finally:
                self.close()

    async def run_async(
        self,
        transport: str = "stdio",
        *,
        on_ready: Optional[Callable[[int], None]] = None,
        **http_options: Any,
    ) -> None:
        """Serve from inside a running event loop, until the client disconnects (stdio),
        ``stop()``/``close()``, or the awaiting task is cancelled; ``async def`` handlers (and
        the lifespan) run on that loop. ``transport`` and the keyword arguments are those of
        :meth:`run` (``"http"`` binds ``host:port``; ``on_ready(port)`` is called once
        listening). The server stays open afterwards."""
        import asyncio

        from ._loop import stdio_on_loop
        from .context import _awaitable, _settle

        config = _transport_config(transport, **http_options)
        loop = asyncio.get_running_loop()
        bridge = self._loop_bridge()
        bridge.attach(loop)
        try:
            await self._enter_lifespan()
            try:
                if config is None and stdio_on_loop(self._core):
                    await bridge.serve_stdio_here(self._core)
                elif config is None:
                    await _awaitable(self._core.start_stdio)
                else:
                    done = loop.create_future()

                    def resolve(error: Optional[BaseException], value: Any) -> None:  # a runtime thread
                        try:
                            loop.call_soon_threadsafe(_settle, done, error, value)
                        except RuntimeError:
                            pass

                    port = self._core.start_http(config, resolve)
                    if on_ready is not None:
                        on_ready(port)
                    await done
            except asyncio.CancelledError:
                self._core.stop()
                raise
            finally:
                await self._exit_lifespan()
        finally:
            bridge.detach(loop)
            self._core._served()

    def asgi_app(self, path: Optional[str] = "/mcp", **http_options: Any) -> "AsgiApp":
        """The server's Streamable HTTP endpoint as an ASGI 3 application (see
        :mod:`ferrite_mcp.asgi`), for uvicorn or hypercorn on its own or mounted in a
        Starlette or FastAPI app: ``Mount("/", app=server.asgi_app())`` serves ``/mcp``.
        ``path`` is relative to the mount point (``None``: serve every path handed over).
        The keyword arguments are :meth:`run`'s HTTP options but the address (the ASGI
        server listens): ``response_mode``, ``max_body_bytes``, ``allowed_hosts``,
        ``resumable``... (the official SDK's spellings too), checked by the core: a bad one
        raises ``ConfigError`` here. Handlers see the HTTP request as ``ctx.request``."""
        from .asgi import AsgiApp

        for refused in (
            "host",
            "port",
            "header_read_timeout_ms",
            "legacy_sse",
            "legacy_sse_path",
            "legacy_messages_path",
            "streamable_http_path",
        ):
            if refused in http_options:
                why = {
                    "host": "the ASGI server listens",
                    "port": "the ASGI server listens",
                    "header_read_timeout_ms": "the ASGI server reads the request head",
                    "streamable_http_path": "pass path=",
                }.get(refused, "the ASGI app serves Streamable HTTP only")
                raise ConfigError(f"invalid HTTP option {refused}: not an asgi_app option ({why})")
        config = _transport_config("http", path=path, **http_options)
        assert config is not None
        return AsgiApp(self, path, config)

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
        """Enter the lifespan (``async with server:``); the server closes at the end."""
        await self._enter_lifespan()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        try:
            await self._exit_lifespan(*exc)
        finally:
            self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else ("stateless" if self.stateless else "stateful")
        return f"Server(name={self.name!r}, version={self.version!r}, {state})"
