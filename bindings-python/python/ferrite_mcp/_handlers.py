"""How a registered Python function becomes the callable the core calls: which parameter is
the ``Context``, how request values become keyword arguments, how ``def`` and ``async def``
are told apart, and how the return value becomes the result (or input required). Also the
base of the ``Server`` mixins (its core object and the event loop for ``async def``)."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Sequence

from . import _ferrite, content
from .context import Context
from .errors import ConfigError
from .mrtr import InputRequired
from .schema import Param, _identity, _is_pydantic_model, _is_typeddict, schema_for

if TYPE_CHECKING:
    from ._loop import LoopBridge


def _is_context(annotation: Any) -> bool:
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return isinstance(annotation, type) and issubclass(annotation, (Context, _ferrite.RequestContext))


def _is_async(fn: Callable[..., Any]) -> bool:
    while isinstance(fn, functools.partial):
        fn = fn.func
    if inspect.iscoroutinefunction(fn):
        return True
    call = getattr(fn, "__call__", None)
    return call is not None and not inspect.isfunction(fn) and inspect.iscoroutinefunction(call)


def _str_to_bool(v: Any) -> Any:
    if isinstance(v, str):
        low = v.strip().lower()
        if low in ("true", "1", "yes", "on"):
            return True
        if low in ("false", "0", "no", "off", ""):
            return False
        raise ValueError(f"{v!r} is not a boolean")
    return v


def _from_string(annotation: Any, default: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Converter for values that arrive as strings (template variables, prompt arguments)."""
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) is typing.Union:
        non_null = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(non_null) == 1:
            annotation = non_null[0]
    if annotation is int:
        return int
    if annotation is float:
        return float
    if annotation is bool:
        return _str_to_bool
    if annotation in (str, Any, inspect.Parameter.empty):
        return _identity
    return default


class _Binder:
    """Builds a handler's keyword arguments from the request's values."""

    __slots__ = ("names", "convs", "ctx_name", "var_kw")

    def __init__(self, params: Sequence[Param], ctx_name: Optional[str], var_kw: bool, convs: Dict[str, Callable[[Any], Any]]) -> None:
        self.names = frozenset(p.name for p in params)
        self.convs = [(n, c) for n, c in convs.items() if c is not _identity]
        self.ctx_name = ctx_name
        self.var_kw = var_kw

    def __call__(self, args: Dict[str, Any], ctx: Optional[_ferrite.RequestContext]) -> Dict[str, Any]:
        if not self.var_kw and not self.names.issuperset(args):
            args = {k: v for k, v in args.items() if k in self.names}
        for name, conv in self.convs:
            if name in args:
                args[name] = conv(args[name])
        if self.ctx_name is not None:
            args[self.ctx_name] = Context(ctx)  # type: ignore[arg-type]
        return args


def _not_awaitable(fn: Callable[..., Any], value: Any) -> Any:
    if inspect.isawaitable(value):
        close = getattr(value, "close", None)
        if close:
            close()
        raise TypeError(f"{getattr(fn, '__qualname__', fn)!r} returned an awaitable: declare it `async def`")
    return value


def _returned(to_result: Callable[[Any], Dict[str, Any]]) -> Callable[[Any], Any]:
    """What the core receives for a handler's return value: the core ``InputRequired`` when
    the handler asked for input (MRTR), else the result's wire shape."""

    def convert(value: Any) -> Any:
        if isinstance(value, InputRequired):
            return value._to_core()
        return to_result(value)

    return convert


def _wrap(fn: Callable[..., Any], bind: Callable[..., Dict[str, Any]], to_result: Callable[[Any], Dict[str, Any]], is_async: bool) -> Callable[..., Any]:
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


def _output_schema_of(fn: Callable[..., Any]) -> Optional[Dict[str, Any]]:
    """An ``outputSchema`` derived from a structured return annotation (dataclass, TypedDict,
    pydantic model), else None."""
    try:
        ret = typing.get_type_hints(fn, include_extras=True).get("return")
    except Exception:
        return None
    if ret is None:
        return None
    if isinstance(ret, type) and ret.__module__ == content.__name__:
        return None  # content blocks and ToolResult are not structured output
    if (isinstance(ret, type) and dataclasses.is_dataclass(ret)) or _is_typeddict(ret) or _is_pydantic_model(ret):
        try:
            return schema_for(ret)
        except ConfigError:
            return None
    return None


def _drop_none(d: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


class _ServerBase:
    """What the ``Server`` mixins share: the core object and the event loop that runs
    ``async def`` handlers (made when the first one is registered, so a server with only
    ``def`` handlers never imports asyncio)."""

    _core: _ferrite.Core
    _bridge: Optional["LoopBridge"]

    def _loop_bridge(self) -> "LoopBridge":
        if self._bridge is None:
            from ._loop import LoopBridge

            self._bridge = LoopBridge(self._core)
        return self._bridge

    def _registered(self, is_async: bool) -> None:
        if is_async and (self._bridge is None or self._bridge.loop is None):
            self._loop_bridge().start_thread()
