"""``Server``: FastMCP-style decorators over the core server.

The decorators read a handler's signature once, at registration: its parameters become the
tool's ``inputSchema`` (or the prompt's arguments, or the template's variables), the
parameter annotated ``Context`` receives the request context, and the return value is
mapped to the result's wire shape (see :mod:`ferrite_mcp.results`). Validation, dispatch,
pagination, capabilities and every protocol error are the core's.
"""

from __future__ import annotations

import atexit
import dataclasses
import functools
import inspect
import sys
import traceback
import typing
import weakref
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Literal, Optional, Sequence, Tuple, TypeVar, overload

from . import _ferrite, content
from .context import Context
from .errors import ConfigError
from .results import completion_result, prompt_result, resource_result, tool_result
from .schema import (
    Param,
    _identity,
    _is_pydantic_model,
    _is_typeddict,
    object_schema,
    parse_docstring,
    schema_for,
    signature_params,
)

__all__ = ["Server"]

if TYPE_CHECKING:
    from ._loop import LoopBridge

F = TypeVar("F", bound=Callable[..., Any])

_LIVE: "weakref.WeakSet[Server]" = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    # Runtime threads must not call into an interpreter that is finalizing.
    for server in list(_LIVE):
        server.close()


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


def _wrap(fn: Callable[..., Any], bind: Callable[..., Dict[str, Any]], to_result: Callable[[Any], Dict[str, Any]], is_async: bool) -> Callable[..., Any]:
    """The callable the core calls: ``wrapper(input, ctx)`` returning the result's JSON."""
    if is_async:

        async def call_async(inp: Any, ctx: Any) -> Dict[str, Any]:
            return to_result(await fn(**bind(inp, ctx)))

        return call_async

    def call(inp: Any, ctx: Any) -> Dict[str, Any]:
        return to_result(_not_awaitable(fn, fn(**bind(inp, ctx))))

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


class Server:
    """An MCP server. Register handlers with the decorators, then ``run()`` it (stdio), or
    call ``handle_raw`` in-process.

    ``stateless=True`` selects stateless mode (no sessions: no server-to-client requests,
    subscriptions or ``logging/setLevel``). ``logging`` advertises the logging capability, so
    ``ctx.info(...)`` and friends reach the client.
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

    def _loop_bridge(self) -> "LoopBridge":
        if self._bridge is None:
            from ._loop import LoopBridge

            self._bridge = LoopBridge(self._core)
        return self._bridge

    def _registered(self, is_async: bool) -> None:
        if is_async and (self._bridge is None or self._bridge.loop is None):
            self._loop_bridge().start_thread()

    # ----- tools -----

    @overload
    def tool(self, name: F) -> F: ...

    @overload
    def tool(
        self,
        name: Optional[str] = None,
        *,
        title: Optional[str] = None,
        description: Optional[str] = None,
        input_schema: Optional[Dict[str, Any]] = None,
        output_schema: Optional[Dict[str, Any]] = None,
        annotations: Optional[Dict[str, Any]] = None,
        icons: Optional[List[Dict[str, Any]]] = None,
        meta: Optional[Dict[str, Any]] = None,
        required_capabilities: Optional[Dict[str, Any]] = None,
    ) -> Callable[[F], F]: ...

    def tool(self, name: Any = None, **options: Any) -> Any:
        """Register a function as a tool: ``@server.tool()`` or ``@server.tool``.

        The name defaults to the function's, the description to its docstring, the
        ``inputSchema`` to the one derived from its parameters (``input_schema=`` overrides
        it; the core validates arguments against it), and the ``outputSchema`` to the one
        of a dataclass/TypedDict/pydantic return annotation. ``required_capabilities``
        (client capabilities as in ``initialize``, e.g. ``{"sampling": {}}``) makes the core
        refuse calls from clients that did not declare them.
        """
        if callable(name):
            self.add_tool(name)
            return name

        def decorator(fn: F) -> F:
            self.add_tool(fn, name=name, **options)
            return fn

        return decorator

    def add_tool(
        self,
        fn: Callable[..., Any],
        *,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        input_schema: Optional[Dict[str, Any]] = None,
        output_schema: Optional[Dict[str, Any]] = None,
        annotations: Optional[Dict[str, Any]] = None,
        icons: Optional[List[Dict[str, Any]]] = None,
        meta: Optional[Dict[str, Any]] = None,
        required_capabilities: Optional[Dict[str, Any]] = None,
    ) -> None:
        """Register ``fn`` as a tool (the non-decorator form of :meth:`tool`)."""
        params, ctx_name, var_kw = signature_params(fn, _is_context)
        doc, _ = parse_docstring(fn)
        is_async = _is_async(fn)
        bind = _Binder(params, ctx_name, var_kw, {p.name: p.convert for p in params})
        descriptor = _drop_none(
            {
                "name": name or fn.__name__,
                "title": title,
                "description": description if description is not None else doc,
                "inputSchema": input_schema if input_schema is not None else object_schema(params),
                "outputSchema": output_schema if output_schema is not None else _output_schema_of(fn),
                "annotations": annotations,
                "icons": icons,
                "_meta": meta,
            }
        )
        self._core.add_tool(descriptor, _wrap(fn, bind, tool_result, is_async), is_async, ctx_name is not None)
        if required_capabilities is not None:
            self._core.set_tool_required_client_capabilities(descriptor["name"], required_capabilities)
        self._registered(is_async)

    def remove_tool(self, name: str) -> bool:
        """Remove a tool; whether it existed."""
        return self._core.remove_tool(name)

    def tools(self) -> List[Dict[str, Any]]:
        """The registered tools' descriptors, as ``tools/list`` shows them."""
        return self._core.tools()

    # ----- resources -----

    def resource(
        self,
        uri: str,
        *,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        mime_type: Optional[str] = None,
        annotations: Optional[Dict[str, Any]] = None,
        size: Optional[int] = None,
        icons: Optional[List[Dict[str, Any]]] = None,
        meta: Optional[Dict[str, Any]] = None,
    ) -> Callable[[F], F]:
        """Register a function as the reader of a resource. A URI with ``{variables}`` is a
        template (RFC 6570): the function's parameters must be exactly its variables (plus,
        optionally, a ``Context``), and receive the captured values.

        The reader returns ``str`` (text), ``bytes`` (a blob), JSON-able data (JSON text), or
        ``TextResourceContents``/``BlobResourceContents`` (or a list of them).
        """

        def decorator(fn: F) -> F:
            self.add_resource(
                fn, uri, name=name, title=title, description=description, mime_type=mime_type,
                annotations=annotations, size=size, icons=icons, meta=meta,
            )
            return fn

        return decorator

    def add_resource(
        self,
        fn: Callable[..., Any],
        uri: str,
        *,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        mime_type: Optional[str] = None,
        annotations: Optional[Dict[str, Any]] = None,
        size: Optional[int] = None,
        icons: Optional[List[Dict[str, Any]]] = None,
        meta: Optional[Dict[str, Any]] = None,
    ) -> None:
        """Register ``fn`` as a resource reader (the non-decorator form of :meth:`resource`)."""
        params, ctx_name, var_kw = signature_params(fn, _is_context)
        doc, _ = parse_docstring(fn)
        is_async = _is_async(fn)
        is_template = "{" in uri
        variables = _ferrite.Core.template_variables(uri) if is_template else []
        names = [p.name for p in params]
        missing = [p.name for p in params if p.required and p.name not in variables]
        if missing or (not var_kw and set(variables) - set(names)):
            raise ConfigError(
                f"resource {uri!r}: the reader's parameters {names} must match the URI template's variables {variables}"
            )
        convs = {p.name: _from_string(p.annotation, p.convert) for p in params}
        bind = _Binder(params, ctx_name, var_kw, convs)

        def read_input(inp: Any, ctx: Any) -> Dict[str, Any]:
            return bind(inp[1], ctx)

        descriptor = _drop_none(
            {
                "name": name or fn.__name__,
                "title": title,
                "description": description if description is not None else doc,
                "mimeType": mime_type,
                "annotations": annotations,
                "icons": icons,
                "_meta": meta,
            }
        )
        if is_async:

            async def reader_async(inp: Any, ctx: Any) -> Dict[str, Any]:
                return resource_result(await fn(**read_input(inp, ctx)), inp[0], mime_type)

            wrapper: Callable[..., Any] = reader_async
        else:

            def reader(inp: Any, ctx: Any) -> Dict[str, Any]:
                return resource_result(_not_awaitable(fn, fn(**read_input(inp, ctx))), inp[0], mime_type)

            wrapper = reader
        if is_template:
            descriptor["uriTemplate"] = uri
            self._core.add_resource_template(descriptor, wrapper, is_async, ctx_name is not None)
        else:
            descriptor["uri"] = uri
            if size is not None:
                descriptor["size"] = size
            self._core.add_resource(descriptor, wrapper, is_async, ctx_name is not None)
        self._registered(is_async)

    def remove_resource(self, uri: str) -> bool:
        """Remove a resource or resource template by its URI (template); whether it existed."""
        if "{" in uri:
            return self._core.remove_resource_template(uri)
        return self._core.remove_resource(uri)

    # ----- prompts -----

    def prompt(
        self,
        name: Optional[str] = None,
        *,
        title: Optional[str] = None,
        description: Optional[str] = None,
        icons: Optional[List[Dict[str, Any]]] = None,
        meta: Optional[Dict[str, Any]] = None,
    ) -> Callable[[F], F]:
        """Register a function as a prompt. Its parameters are the prompt's arguments
        (required unless they have a default; values arrive as strings and are converted to
        ``int``/``float``/``bool`` annotations). It returns a ``str`` (one user message), a
        ``Message``, a content block, or a list of these."""
        if callable(name):
            fn = name
            self.add_prompt(fn)
            return fn

        def decorator(fn: F) -> F:
            self.add_prompt(fn, name=name, title=title, description=description, icons=icons, meta=meta)
            return fn

        return decorator

    def add_prompt(
        self,
        fn: Callable[..., Any],
        *,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        icons: Optional[List[Dict[str, Any]]] = None,
        meta: Optional[Dict[str, Any]] = None,
    ) -> None:
        """Register ``fn`` as a prompt (the non-decorator form of :meth:`prompt`)."""
        params, ctx_name, var_kw = signature_params(fn, _is_context)
        doc, _ = parse_docstring(fn)
        is_async = _is_async(fn)
        arguments = [_drop_none({"name": p.name, "description": p.description, "required": p.required}) for p in params]
        descriptor = _drop_none(
            {
                "name": name or fn.__name__,
                "title": title,
                "description": description if description is not None else doc,
                "arguments": arguments,
                "icons": icons,
                "_meta": meta,
            }
        )
        bind = _Binder(params, ctx_name, var_kw, {p.name: _from_string(p.annotation, p.convert) for p in params})
        self._core.add_prompt(descriptor, _wrap(fn, bind, prompt_result, is_async), is_async, ctx_name is not None)
        self._registered(is_async)

    def remove_prompt(self, name: str) -> bool:
        """Remove a prompt; whether it existed."""
        return self._core.remove_prompt(name)

    # ----- completion -----

    def completion(
        self, *, prompt: Optional[str] = None, resource: Optional[str] = None, argument: Optional[str] = None
    ) -> Callable[[F], F]:
        """Register a completer: for one prompt's (or resource template's) ``argument``, or,
        with no arguments, for every ``completion/complete`` request.

        The function takes any of ``value`` (the text typed so far), ``argument`` (its name),
        ``ref`` (the reference dict), ``context`` (already-resolved arguments) and a
        ``Context``; it returns a list of strings, a ``Completion``, or ``None``.
        """

        def decorator(fn: F) -> F:
            self.add_completion(fn, prompt=prompt, resource=resource, argument=argument)
            return fn

        return decorator

    def add_completion(
        self,
        fn: Callable[..., Any],
        *,
        prompt: Optional[str] = None,
        resource: Optional[str] = None,
        argument: Optional[str] = None,
    ) -> None:
        """Register ``fn`` as a completer (the non-decorator form of :meth:`completion`)."""
        params, ctx_name, var_kw = signature_params(fn, _is_context)
        allowed = {"value", "argument", "ref", "context"}
        unknown = [p.name for p in params if p.name not in allowed]
        if unknown:
            raise ConfigError(f"completer {fn.__qualname__}: unknown parameters {unknown}; use value, argument, ref, context")
        is_async = _is_async(fn)
        bind = _Binder(params, ctx_name, var_kw, {})
        wrapper = _wrap(fn, bind, completion_result, is_async)
        reference = self._reference(prompt, resource, argument)
        if reference is None:
            self._core.set_completion_handler(wrapper, is_async, ctx_name is not None)
        else:
            self._core.set_argument_completer(reference, argument or "", wrapper, is_async, ctx_name is not None)
        self._registered(is_async)

    def completion_values(
        self, values: Sequence[str], *, prompt: Optional[str] = None, resource: Optional[str] = None, argument: str
    ) -> None:
        """Complete one argument with the ``values`` that start with the typed text."""
        reference = self._reference(prompt, resource, argument)
        if reference is None:
            raise ConfigError("completion_values needs prompt= or resource=")
        self._core.set_argument_candidates(reference, argument, list(values))

    @staticmethod
    def _reference(prompt: Optional[str], resource: Optional[str], argument: Optional[str]) -> Optional[Dict[str, str]]:
        if prompt is not None and resource is not None:
            raise ConfigError("a completer is for a prompt or a resource template, not both")
        if prompt is None and resource is None:
            if argument is not None:
                raise ConfigError("argument= needs prompt= or resource=")
            return None
        if not argument:
            raise ConfigError("a completer for a prompt or resource template needs argument=")
        if prompt is not None:
            return {"type": "ref/prompt", "name": prompt}
        return {"type": "ref/resource", "uri": resource or ""}

    # ----- notifications from clients -----

    def on_notification(self, method: Optional[str] = None) -> Callable[[F], F]:
        """Observe notifications from clients: every one, or those of ``method`` (e.g.
        ``"notifications/roots/list_changed"``). The function is called as
        ``fn(method, params)`` after the server processed the notification; ``def``
        observers run on the worker pool, ``async def`` ones on the event loop. Their
        exceptions are printed to stderr."""

        def decorator(fn: F) -> F:
            is_async = _is_async(fn)
            if not self._observers:
                self._core.set_notification_observer(self._dispatch_notification)
            self._observers.append((method, fn, is_async))
            self._registered(is_async)
            return fn

        return decorator

    def _dispatch_notification(self, inp: Any, _ctx: Any) -> None:
        method, params = inp
        for wanted, fn, is_async in list(self._observers):
            if wanted is not None and wanted != method:
                continue
            try:
                if is_async:
                    self._run_on_loop(fn(method, params))
                else:
                    fn(method, params)
            except Exception:
                traceback.print_exc(file=sys.stderr)

    def _run_on_loop(self, coro: Any) -> None:
        import asyncio

        loop = self._loop_bridge().loop
        if loop is None:
            coro.close()
            return
        future = asyncio.run_coroutine_threadsafe(coro, loop)

        def report(f: "Any") -> None:
            if not f.cancelled() and f.exception() is not None:
                traceback.print_exception(type(f.exception()), f.exception(), f.exception().__traceback__, file=sys.stderr)

        future.add_done_callback(report)

    # ----- options and notifications -----

    def enable_resource_subscriptions(self) -> None:
        """Advertise ``resources.subscribe`` (stateful servers only)."""
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
