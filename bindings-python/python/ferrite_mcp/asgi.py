"""``server.asgi_app()``: the core's Streamable HTTP endpoint as an ASGI 3 application, to run
under uvicorn or hypercorn on its own or mounted in a Starlette or FastAPI app beside other
routes.

The app only moves bytes between the ASGI server and the core's endpoint (the compiled
``HttpEndpoint``): the request head and each ``http.request`` body chunk as it arrives go
in, the response head and each body chunk come out, one ``http.response.body`` (with
``more_body=True``) per chunk, the next pulled only after the previous was sent
(back-pressure). A client that goes away (``http.disconnect``, a failing ``send``, the ASGI
server cancelling the task) drops the response, which cancels the requests it carried.
Sessions, SSE, resumability, the body limit, DNS-rebinding checks, the Protected Resource
Metadata: all the core's.

Routing: the app serves ``path`` relative to where it is mounted (the ASGI ``root_path``, as
Starlette's ``Mount`` sets it), so ``Mount("/", app=server.asgi_app())`` serves ``/mcp`` and
``Mount("/api", app=...)`` serves ``/api/mcp``; ``path=None`` serves every path it is handed
(for ``Route("/mcp", endpoint=app)``). Other paths get 404. A server with ``auth`` also
answers its Protected Resource Metadata path (``/.well-known/oauth-protected-resource...``,
at the host's root: mount the app at ``/`` or route that path to it).

Lifespan: run on its own, the app answers ``lifespan.startup`` (entering the server's
``lifespan``) and ``lifespan.shutdown`` (ending every session, exiting the lifespan). Mounted
in an app that does not forward lifespan events (Starlette's ``Mount`` does not), it starts
on its first request; pass ``app.lifespan`` as the host app's ``lifespan=`` to end the
sessions at shutdown. ``async def`` handlers run on the ASGI server's event loop (asyncio;
uvloop too), ``def`` handlers on the package's thread pool, as everywhere.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, List, MutableMapping, Optional, Tuple

from . import _ferrite
from .context import _awaitable

__all__ = ["AsgiApp"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_METADATA_PREFIX = "/.well-known/oauth-protected-resource"


class AsgiApp:
    """The ASGI 3 application ``Server.asgi_app()`` returns (see the module docstring)."""

    def __init__(self, server: Any, path: Optional[str], config: Dict[str, Any]) -> None:
        self._server = server
        self._path = path
        self._config = config
        # Made now so that a bad option raises here (`ConfigError`), not on the first request.
        self._endpoint: Optional[_ferrite.HttpEndpoint] = _ferrite.HttpEndpoint(server._core, config)
        self._protected = self._endpoint.metadata_url is not None
        self._started: Optional["asyncio.Future[None]"] = None
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._borrowed = False

    @property
    def server(self) -> Any:
        """The MCP server this app serves."""
        return self._server

    @property
    def path(self) -> Optional[str]:
        """The path served, relative to the mount point (None: every path)."""
        return self._path

    def session_ids(self) -> List[str]:
        """The ids of the live sessions."""
        return [] if self._endpoint is None else self._endpoint.session_ids()

    # ----- starting and stopping -----

    async def _startup(self) -> None:
        loop = asyncio.get_running_loop()
        server = self._server
        if server.closed:
            raise RuntimeError("the server is closed")
        if self._endpoint is None:
            self._endpoint = _ferrite.HttpEndpoint(server._core, self._config)
        # `async def` handlers run on this loop (unless an in-memory Client lent another).
        self._borrowed = server._loop_bridge().borrow(loop)
        self._loop = loop
        await server._enter_lifespan()

    async def _shutdown(self) -> None:
        started, self._started = self._started, None
        if started is None:
            return
        endpoint, self._endpoint = self._endpoint, None
        if endpoint is not None:
            endpoint.close()
        server = self._server
        try:
            await server._exit_lifespan()
        finally:
            if self._borrowed and self._loop is not None:
                self._borrowed = False
                server._loop_bridge().release(self._loop, restart=server._has_async and not server.closed)
            self._loop = None

    async def _ensure_started(self) -> None:
        if self._started is None:
            self._started = asyncio.ensure_future(self._startup())
        await asyncio.shield(self._started)

    @contextlib.asynccontextmanager
    async def lifespan(self, _app: Any = None) -> AsyncIterator[None]:
        """The app's startup and shutdown as an async context manager, for a host app that
        mounts it: ``Starlette(routes=[Mount("/", app=mcp_app)], lifespan=mcp_app.lifespan)``
        (FastAPI: ``FastAPI(lifespan=mcp_app.lifespan)``)."""
        await self._ensure_started()
        try:
            yield
        finally:
            await self._shutdown()

    async def _lifespan_events(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await self._ensure_started()
                except Exception as e:  # reported to the ASGI server, which stops
                    self._started = None
                    await send({"type": "lifespan.startup.failed", "message": f"{type(e).__name__}: {e}"})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                try:
                    await self._shutdown()
                except Exception as e:
                    await send({"type": "lifespan.shutdown.failed", "message": f"{type(e).__name__}: {e}"})
                    return
                await send({"type": "lifespan.shutdown.complete"})
                return

    # ----- requests -----

    def _serves(self, scope: Scope) -> bool:
        if self._path is None:
            return True
        path = scope.get("path") or "/"
        root = scope.get("root_path") or ""
        route = path[len(root) :] or "/" if root and path.startswith(root) else path
        if route == self._path:
            return True
        return self._protected and (route.startswith(_METADATA_PREFIX) or path.startswith(_METADATA_PREFIX))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            if not self._serves(scope):
                await _plain(send, 404, b"Not Found")
                return
            await self._ensure_started()
            endpoint = self._endpoint
            if endpoint is None:  # shut down meanwhile
                await _plain(send, 503, b"Service Unavailable: the MCP endpoint is shut down")
                return
            await _exchange(endpoint, scope, receive, send)
        elif kind == "lifespan":
            await self._lifespan_events(receive, send)
        elif kind == "websocket":
            await send({"type": "websocket.close", "code": 1008})

    def __repr__(self) -> str:
        return f"AsgiApp(server={self._server!r}, path={self._path!r})"


async def _plain(send: Send, status: int, body: bytes) -> None:
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def _client(scope: Scope) -> Optional[Tuple[str, int]]:
    client = scope.get("client")
    try:
        host, port = client  # type: ignore[misc]
        return (str(host), int(port))
    except (TypeError, ValueError):
        return None


async def _exchange(endpoint: _ferrite.HttpEndpoint, scope: Scope, receive: Receive, send: Send) -> None:
    query = scope.get("query_string") or b""
    target = scope.get("path") or "/"
    if query:
        target += "?" + query.decode("latin-1")
    state = scope.get("state")
    exchange = endpoint.request(
        scope["method"],
        target,
        scope.get("headers") or [],
        _client(scope),
        state if isinstance(state, dict) and state else None,
    )
    done = False
    watcher: Optional["asyncio.Task[None]"] = None
    try:
        # The body, chunk by chunk as it arrives; the endpoint may stop reading early (413).
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                exchange.cancel()
                return
            if message["type"] != "http.request":
                continue
            more = bool(message.get("more_body", False))
            body = message.get("body") or b""
            taken = await _awaitable(lambda resolve: exchange.write(bytes(body), more, resolve))
            if not taken:
                break

        if not more:
            # The client going away from now on cancels what it asked for.
            async def watch() -> None:
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        if not done:
                            exchange.cancel()
                        return

            watcher = asyncio.ensure_future(watch())

        head = await _awaitable(exchange.response)
        if head is None:  # cancelled: the client went away
            return
        status, headers, _stream = head
        await send({"type": "http.response.start", "status": status, "headers": headers})
        while True:
            chunk = await _awaitable(exchange.next_chunk)
            if chunk is None:
                done = True
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                return
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
    except OSError:
        # `send` failed: the client is gone (uvicorn's ClientDisconnected is an OSError).
        exchange.cancel()
    finally:
        if not done:
            exchange.cancel()
        if watcher is not None:
            watcher.cancel()
