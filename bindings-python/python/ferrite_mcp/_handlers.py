"""How a registered Python function becomes the callable the core calls: which parameter is
the ``Context``, how request values become keyword arguments (validated and converted by
pydantic, see :mod:`ferrite_mcp.schema`), how ``def`` and ``async def`` are told apart, and
how the return value becomes the result (or input required). Also the base of the ``Server``
mixins (its core object, the event loop for ``async def``, the lifespan's value)."""

from __future__ import annotations

import functools
import inspect
import typing
import weakref
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Tuple

from . import _ferrite
from .context import Context
from .errors import _InvalidResult
from .mrtr import InputRequired
from .schema import Arguments

if TYPE_CHECKING:
    from ._loop import LoopBridge


def _is_context(annotation: Any) -> bool:
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    origin = typing.get_origin(annotation)  # `Context[...]` as the official SDK's generic spelling
    if origin is not None:
        annotation = origin
    return isinstance(annotation, type) and issubclass(annotation, (Context, _ferrite.RequestContext))


def _is_async(fn: Callable[..., Any]) -> bool:
    while isinstance(fn, functools.partial):
        fn = fn.func
    if inspect.iscoroutinefunction(fn):
        return True
    call = getattr(fn, "__call__", None)
    return call is not None and not inspect.isfunction(fn) and inspect.iscoroutinefunction(call)


class _Binder:
    """Builds a handler's keyword arguments from the request's values: ``args`` validates and
    converts them (a value that does not fit raises ``error(message)``), and the ``Context``
    goes to the parameter that asked for it."""

    __slots__ = ("args", "ctx_name", "server", "error")

    def __init__(
        self,
        args: Optional[Arguments],
        ctx_name: Optional[str],
        server: Any,
        error: Callable[[str], Exception],
    ) -> None:
        self.args = args
        self.ctx_name = ctx_name
        # A weak reference: the core holds the handler, and the server holds the core.
        self.server = weakref.ref(server)
        self.error = error

    def __call__(self, values: Dict[str, Any], ctx: Optional[_ferrite.RequestContext]) -> Dict[str, Any]:
        if self.args is None:
            kwargs: Dict[str, Any] = {}
        else:
            try:
                kwargs = self.args(values)
            except ValueError as e:
                raise self.error(str(e)) from None
        if self.ctx_name is not None:
            kwargs[self.ctx_name] = Context(ctx, self.server())  # type: ignore[arg-type]
        return kwargs


def _not_awaitable(fn: Callable[..., Any], value: Any) -> Any:
    if inspect.isawaitable(value):
        close = getattr(value, "close", None)
        if close:
            close()
        raise TypeError(f"{getattr(fn, '__qualname__', fn)!r} returned an awaitable: declare it `async def`")
    return value


def _returned(to_result: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """What the core receives for a handler's return value: the core ``InputRequired`` when
    the handler asked for input (MRTR), else the result's wire shape."""

    def convert(value: Any) -> Any:
        if isinstance(value, InputRequired):
            return value._to_core()
        try:
            return to_result(value)
        except Exception as e:  # the conversion of what the handler returned, whatever failed
            raise _InvalidResult(str(e)) from e

    return convert


def _wrap(fn: Callable[..., Any], bind: Callable[..., Dict[str, Any]], to_result: Callable[[Any], Any], is_async: bool) -> Callable[..., Any]:
    """The callable the core calls: ``wrapper(input, ctx)`` returning the result's JSON (or
    the core ``InputRequired``)."""
    convert = _returned(to_result)
    if is_async:

        async def call_async(inp: Any, ctx: Any) -> Any:
            return convert(await fn(**bind(inp, ctx)))

        return call_async

    def call(inp: Any, ctx: Any) -> Any:
        return convert(_not_awaitable(fn, fn(**bind(inp, ctx))))

    return call


def _drop_none(d: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


class _ServerBase:
    """What the ``Server`` mixins share: the core object, the event loop that runs ``async
    def`` handlers (made when the first one is registered, so a server with only ``def``
    handlers never imports asyncio) and the lifespan's value."""

    _core: _ferrite.Core
    _bridge: Optional["LoopBridge"]
    _has_async: bool
    #: Whether the server is protected (``auth``): handlers then always get the request
    #: context, so that ``get_access_token()`` answers inside them.
    _auth: bool = False

    def _handler(self, wrapper: Callable[..., Any], is_async: bool, wants_context: bool) -> Tuple[Callable[..., Any], bool, bool]:
        """``(wrapper, is_async, wants_context)`` as the core registers them."""
        if not self._auth:
            return wrapper, is_async, wants_context
        from .auth import _with_request

        return _with_request(wrapper, is_async, wants_context)

    def _loop_bridge(self) -> "LoopBridge":
        if self._bridge is None:
            from ._loop import LoopBridge

            self._bridge = LoopBridge(self._core)
        return self._bridge

    def _registered(self, is_async: bool) -> None:
        if is_async:
            self._has_async = True
            if self._bridge is None or self._bridge.loop is None:
                self._loop_bridge().start_thread()
