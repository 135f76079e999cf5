"""Middleware: code around every request the server answers, in the core's chain.

A middleware is an ``async`` callable ``(context, call_next)``: it reads (and may change)
``context.params``, answers without the handler by returning a result or raising
:class:`~ferrite_mcp.McpError`, or awaits ``call_next(context)`` and reads or changes what it
returns (the result as a dict; a JSON-RPC error arrives as ``McpError``). Subclass
:class:`Middleware` for typed hooks, named as FastMCP names them (``on_message``,
``on_request``, ``on_call_tool``, ``on_list_tools``, ``on_read_resource``, ...). The core calls
each middleware once per request, whatever hooks it overrides; the hooks run inside that call,
outermost first: ``on_message``, ``on_request``, then the method's own hook. Which method has
which hook is the core's table (``context.hook``), the same on every surface.

The core's built-ins (no Python in the path) are added by name with
:meth:`Server.add_builtin_middleware`: ``timing``, ``logging``, ``rate_limit`` (``per_second``,
``burst``, ``key`` = ``"client"`` | ``"session"`` | ``"global"``, ``methods``), ``cache``
(``max_entries``) and ``error_masking`` (``message``); their events go to the
``ferrite.request`` logger.

Middleware runs after the transport, the 2026-07-28 classifier and the server's limits, before
routing, in both eras; ``initialize`` and ``ping`` do not pass through it.

Notifications from the client (``notifications/initialized``, ``notifications/cancelled``,
``notifications/roots/list_changed``, ...) pass through the same chain before the server acts on
them, and reach the middlewares that have notification hooks: ``on_notification``, and
``on_message``, which FastMCP runs for every message. There ``context.hook`` is
``"notification"``, ``context.context`` is ``None`` (a notification has no request), and
``call_next`` resolves to ``None`` once the rest of the chain has handled it; a hook that does
not call it drops the notification. A plain ``async (context, call_next)`` function sees
requests only.
"""

from __future__ import annotations

import functools
import inspect
import weakref
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Dict, Optional, Union

from ._handlers import _ServerBase
from .context import Context, _awaitable
from .errors import _InvalidResult

if TYPE_CHECKING:
    from . import _ferrite

__all__ = ["CallNext", "Middleware", "MiddlewareContext", "NOTIFICATION_HOOK", "telemetry_flush"]

#: The rest of the chain: awaits the answer to the (possibly changed) request.
CallNext = Callable[["MiddlewareContext"], Awaitable[Dict[str, Any]]]


#: ``MiddlewareContext.hook`` for a client notification.
NOTIFICATION_HOOK = "notification"


class MiddlewareContext:
    """One request (or client notification) as a middleware sees it."""

    __slots__ = ("_method", "params", "hook", "context")

    def __init__(
        self, method: str, params: Optional[Dict[str, Any]], hook: Optional[str], context: Optional[Context]
    ) -> None:
        self._method = method
        #: Its params as the client sent them (a dict to change in place, or ``None``); what
        #: the middleware leaves here is what the rest of the chain gets.
        self.params = params
        #: The method's typed hook (``call_tool``, ``list_tools``, ...), or ``None``.
        self.hook = hook
        #: The request's :class:`~ferrite_mcp.Context` (identity, request info, logging);
        #: ``None`` for a notification.
        self.context = context

    @property
    def method(self) -> str:
        """The JSON-RPC method (``tools/call``, ...). Read-only: a middleware changes what is
        asked (the params), not which route answers."""
        return self._method

    @property
    def name(self) -> Optional[str]:
        """``params["name"]``: the tool or prompt a ``tools/call`` or ``prompts/get`` names."""
        name = (self.params or {}).get("name")
        return name if isinstance(name, str) else None

    @property
    def message(self) -> Optional[Dict[str, Any]]:
        """The params (FastMCP's name for them)."""
        return self.params

    @property
    def fastmcp_context(self) -> Optional[Context]:
        """The request's context (FastMCP's name for it)."""
        return self.context

    def copy(self, **changes: Any) -> "MiddlewareContext":
        """A copy with some fields changed (``params=`` or FastMCP's ``message=``)."""
        if "message" in changes:
            changes["params"] = changes.pop("message")
        unknown = set(changes) - {"params", "context"}
        if unknown:
            raise TypeError(f"MiddlewareContext.copy() takes params and context, not {sorted(unknown)}")
        return MiddlewareContext(
            self._method, changes.get("params", self.params), self.hook, changes.get("context", self.context)
        )

    def __repr__(self) -> str:
        return f"MiddlewareContext(method={self.method!r}, hook={self.hook!r}, name={self.name!r})"


class Middleware:
    """A middleware with typed hooks; override the ones you need. Each hook is
    ``async (context, call_next)`` and, by default, passes the request on."""

    async def __call__(self, context: MiddlewareContext, call_next: CallNext) -> Dict[str, Any]:
        handler = call_next
        if context.hook == NOTIFICATION_HOOK:
            handler = functools.partial(self.on_notification, call_next=handler)
            handler = functools.partial(self.on_message, call_next=handler)
            return await handler(context)
        if context.hook is not None:
            hook = getattr(self, "on_" + context.hook, None)
            if hook is not None:
                handler = functools.partial(hook, call_next=handler)
        handler = functools.partial(self.on_request, call_next=handler)
        handler = functools.partial(self.on_message, call_next=handler)
        return await handler(context)

    async def on_message(self, context: MiddlewareContext, call_next: CallNext) -> Dict[str, Any]:
        return await call_next(context)

    async def on_request(self, context: MiddlewareContext, call_next: CallNext) -> Dict[str, Any]:
        return await call_next(context)

    async def on_notification(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        """A client notification (``context.context`` is ``None``); not calling ``call_next``
        drops it."""
        return await call_next(context)

    async def on_call_tool(self, context: MiddlewareContext, call_next: CallNext) -> Dict[str, Any]:
        return await call_next(context)

    async def on_list_tools(self, context: MiddlewareContext, call_next: CallNext) -> Dict[str, Any]:
        return await call_next(context)

    async def on_read_resource(self, context: MiddlewareContext, call_next: CallNext) -> Dict[str, Any]:
        return await call_next(context)

    async def on_list_resources(self, context: MiddlewareContext, call_next: CallNext) -> Dict[str, Any]:
        return await call_next(context)

    async def on_list_resource_templates(self, context: MiddlewareContext, call_next: CallNext) -> Dict[str, Any]:
        return await call_next(context)

    async def on_get_prompt(self, context: MiddlewareContext, call_next: CallNext) -> Dict[str, Any]:
        return await call_next(context)

    async def on_list_prompts(self, context: MiddlewareContext, call_next: CallNext) -> Dict[str, Any]:
        return await call_next(context)

    async def on_complete(self, context: MiddlewareContext, call_next: CallNext) -> Dict[str, Any]:
        return await call_next(context)


MiddlewareLike = Union[Middleware, Callable[[MiddlewareContext, CallNext], Awaitable[Dict[str, Any]]]]


def _is_async_callable(mw: Any) -> bool:
    if inspect.iscoroutinefunction(mw):
        return True
    call = getattr(mw, "__call__", None)
    return call is not None and inspect.iscoroutinefunction(call)


def _has_notification_hooks(mw: Any) -> bool:
    """Whether a :class:`Middleware` overrides ``on_notification`` or ``on_message`` (the others
    never see notifications, so none crosses into Python for them)."""
    if not isinstance(mw, Middleware):
        return False
    cls = type(mw)
    return cls.on_notification is not Middleware.on_notification or cls.on_message is not Middleware.on_message


def _wrapper(mw: MiddlewareLike, server: Any) -> Callable[..., Any]:
    """The callable the core calls: ``wrapper((method, params, hook, call_next), ctx)``."""
    server_ref = weakref.ref(server)

    async def run(inp: Any, ctx: "Optional[_ferrite.RequestContext]") -> Any:
        method, params, hook, raw_next = inp
        context = MiddlewareContext(method, params, hook, None if ctx is None else Context(ctx, server_ref()))

        def call_next(next_context: Optional[MiddlewareContext] = None) -> "Awaitable[Dict[str, Any]]":
            params = (next_context or context).params
            return _awaitable(lambda resolve: raw_next.run(params, resolve))

        result = await mw(context, call_next)
        if hook == NOTIFICATION_HOOK:
            return None
        if not isinstance(result, dict):
            raise _InvalidResult(
                f"a middleware returned {type(result).__name__}, not the result dict (return what call_next returned)"
            )
        return result

    return run


_TELEMETRY_AT_EXIT = False


def _shutdown_telemetry_at_exit() -> None:
    global _TELEMETRY_AT_EXIT
    if not _TELEMETRY_AT_EXIT:
        import atexit

        from . import _ferrite

        atexit.register(_ferrite.telemetry_shutdown)
        _TELEMETRY_AT_EXIT = True


def telemetry_flush() -> None:
    """Export the pending spans and metrics now (the exporters stay)."""
    from . import _ferrite

    _ferrite.telemetry_flush()


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part.title() for part in rest)


class _Middlewares(_ServerBase):
    """Adding middleware to a server."""

    def add_middleware(self, middleware: MiddlewareLike) -> None:
        """Add ``middleware`` at the end of the chain: the first added runs first (outermost)."""
        if not _is_async_callable(middleware):
            raise TypeError(
                f"{middleware!r} is not an async middleware: declare `async def (context, call_next)` "
                "or subclass ferrite_mcp.Middleware"
            )
        wrapper, _, _ = self._handler(_wrapper(middleware, self), True, True)
        self._registered(True)
        self._core.add_middleware(wrapper, _has_notification_hooks(middleware))

    def add_builtin_middleware(self, name: str, **config: Any) -> None:
        """Add the core's built-in middleware ``name`` at the end of the chain, configured by
        keyword (snake_case, e.g. ``per_second=5, burst=10``). An unknown name or a bad
        configuration raises :class:`~ferrite_mcp.ConfigError`."""
        self._core.add_builtin_middleware(name, {_camel(k): v for k, v in config.items()})

    def enable_telemetry(self) -> None:
        """Turn OpenTelemetry on: OTLP/HTTP exporters for spans and metrics (once per process,
        configured by the standard ``OTEL_*`` environment variables) and a span plus metrics per
        request following the MCP semantic conventions, recorded in the core. What is pending is
        exported at exit (or call :func:`ferrite_mcp.telemetry_flush`)."""
        self._core.enable_telemetry()
        _shutdown_telemetry_at_exit()

    def middleware(self, fn: Callable[[MiddlewareContext, CallNext], Awaitable[Dict[str, Any]]]) -> Callable[..., Any]:
        """Decorator form of :meth:`add_middleware`."""
        self.add_middleware(fn)
        return fn
