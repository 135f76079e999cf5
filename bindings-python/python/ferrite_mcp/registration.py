"""The decorators that register handlers: tools, resources and resource templates,
prompts, completers, and observers of client notifications (the ``Server`` mixin
``_Registration``).

The decorators read a handler's signature once, at registration: its parameters become the
tool's ``inputSchema`` (or the prompt's arguments, or the template's variables), the
parameter annotated ``Context`` receives the request context, and the return value is
mapped to the result's wire shape (see :mod:`ferrite_mcp.results`). A tool, prompt or
resource handler may also return :class:`~ferrite_mcp.InputRequired` (see
:mod:`ferrite_mcp.mrtr`).
"""

from __future__ import annotations

import sys
import traceback
from typing import Any, Callable, Dict, List, Literal, Optional, Sequence, Tuple, TypeVar, overload

from . import _ferrite
from ._handlers import _Binder, _drop_none, _is_async, _is_context, _not_awaitable, _ServerBase, _wrap
from .content import Content, ToolResult
from .errors import ConfigError, InvalidParamsError, ToolError
from .mrtr import InputRequired
from .results import completion_result, prompt_result, resource_result, to_jsonable, tool_result
from .schema import Arguments, Output, parse_docstring, signature_params

F = TypeVar("F", bound=Callable[..., Any])

#: Whether a tool may run as a task (``execution.taskSupport``): never (the default), when the
#: client asks for one (2025-11-25) or declares the tasks extension (2026-07-28), or always.
TaskSupport = Literal["forbidden", "optional", "required"]


def _plain(value: Any) -> Any:
    """Descriptor metadata (annotations, icons, ``_meta``) as JSON: dicts as given, pydantic
    models by alias (the official SDK's ``ToolAnnotations``, ``Icon``), dataclasses as
    objects."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(by_alias=True, exclude_none=True, mode="json")
    return to_jsonable(value)


class CompletionArgument(str):
    """The argument being completed, as a completer's ``argument`` parameter receives it: the
    argument's name (a ``str``), with ``.name`` and ``.value`` (the text typed so far) as the
    official SDK's ``CompletionArgument`` has."""

    value: str

    def __new__(cls, name: str, value: str) -> "CompletionArgument":
        self = super().__new__(cls, name)
        self.value = value
        return self

    @property
    def name(self) -> str:
        return str(self)


class _Fields(Dict[str, Any]):
    """A completion reference: a dict whose keys read as attributes too (``ref.type``,
    ``ref.name``, ``ref.uri``), as the official SDK's reference types do."""

    def __getattr__(self, key: str) -> Any:
        try:
            return self[key]
        except KeyError:
            return None


class CompletionContext(Dict[str, Any]):
    """The already-resolved arguments of a completion request: a dict, also read as
    ``context.arguments`` (the official SDK's ``CompletionContext``)."""

    @property
    def arguments(self) -> Dict[str, Any]:
        return dict(self)


def _core_of(server: Any) -> _ferrite.Core:
    core = getattr(server, "_core", None)
    if not isinstance(core, _ferrite.Core):
        raise TypeError(f"mount takes a ferrite_mcp server, not {type(server).__name__}")
    return core


class _Registration(_ServerBase):
    """Registering tools, resources, prompts, completers and notification observers."""

    _observers: List[Tuple[Optional[str], Callable[..., Any], bool]]
    _roots_observers: List[Tuple[Callable[..., Any], bool]]

    # ----- tools -----

    @overload
    def tool(self, name: F) -> F: ...

    @overload
    def tool(
        self,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        annotations: Any = None,
        icons: Any = None,
        meta: Optional[Dict[str, Any]] = None,
        structured_output: Optional[bool] = None,
        *,
        input_schema: Optional[Dict[str, Any]] = None,
        output_schema: Optional[Dict[str, Any]] = None,
        required_capabilities: Optional[Dict[str, Any]] = None,
        task_support: Optional[TaskSupport] = None,
        execution: Any = None,
    ) -> Callable[[F], F]: ...

    def tool(self, name: Any = None, *args: Any, **options: Any) -> Any:
        """Register a function as a tool: ``@server.tool()`` (or ``@server.tool``).

        The parameters are the official SDK's (``name``, ``title``, ``description``,
        ``annotations``, ``icons``, ``meta``, ``structured_output``), plus ``input_schema=`` /
        ``output_schema=`` (replace the derived schemas) and ``required_capabilities=``
        (client capabilities as in ``initialize``, e.g. ``{"sampling": {}}``: the core refuses
        calls from clients that did not declare them).

        ``task_support=`` (``"forbidden"``, the default, ``"optional"`` or ``"required"``)
        lets the tool run as a task: the core then decides per call whether the same handler
        runs inline or as a task (see :attr:`Context.is_task <ferrite_mcp.Context.is_task>`).
        ``execution=`` is the official SDK's spelling (its ``ToolExecution(task_support=...)``
        or a dict ``{"taskSupport": ...}``), copied into the descriptor. Any other word, or two
        that disagree, raises :class:`~ferrite_mcp.ConfigError`.

        The name defaults to the function's, the description to its docstring, the
        ``inputSchema`` to the pydantic schema of its parameters (arguments are validated and
        converted by pydantic before the call; the core checks them against the schema
        first), and the ``outputSchema`` to the one its return annotation gives (see
        :class:`~ferrite_mcp.schema.Output`). The tool may return ``InputRequired`` to ask the
        client for input first (see :mod:`ferrite_mcp.mrtr`).
        """
        if callable(name):
            self.add_tool(name)
            return name
        names = ("title", "description", "annotations", "icons", "meta", "structured_output")
        if len(args) > len(names):
            raise TypeError(f"tool() takes at most {len(names) + 1} positional arguments")
        options.update(zip(names, args))

        def decorator(fn: F) -> F:
            self.add_tool(fn, name=name, **options)
            return fn

        return decorator

    def add_tool(
        self,
        fn: Callable[..., Any],
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        annotations: Any = None,
        icons: Any = None,
        meta: Optional[Dict[str, Any]] = None,
        structured_output: Optional[bool] = None,
        *,
        input_schema: Optional[Dict[str, Any]] = None,
        output_schema: Optional[Dict[str, Any]] = None,
        required_capabilities: Optional[Dict[str, Any]] = None,
        task_support: Optional[TaskSupport] = None,
        execution: Any = None,
    ) -> None:
        """Register ``fn`` as a tool (the non-decorator form of :meth:`tool`)."""
        if task_support is not None and not isinstance(task_support, str):
            raise ConfigError(f"tool {name or fn.__name__}: task_support must be a str, not {type(task_support).__name__}")
        params, ctx_name, var_kw = signature_params(fn, _is_context)
        doc, _ = parse_docstring(fn)
        is_async = _is_async(fn)
        tool_name = name or fn.__name__
        args = Arguments(fn.__name__, params, var_kw)
        output = Output(fn, structured_output, (Content, ToolResult), (InputRequired,))

        def refuse(message: str) -> Exception:
            return ToolError(f"Invalid arguments for tool {tool_name}: {message}")

        descriptor = _drop_none(
            {
                "name": tool_name,
                "title": title,
                "description": description if description is not None else doc,
                "inputSchema": input_schema if input_schema is not None else args.schema,
                "outputSchema": output_schema if output_schema is not None else output.schema,
                "annotations": _plain(annotations),
                "icons": _plain(icons),
                "execution": _plain(execution),
                "_meta": meta,
            }
        )
        bind = _Binder(args, ctx_name, self, refuse)
        result = output if output.schema is not None else None
        wrapper = _wrap(fn, bind, lambda value: tool_result(value, result), is_async)
        self._core.add_tool(descriptor, *self._handler(wrapper, is_async, ctx_name is not None), task_support)
        if required_capabilities is not None:
            self._core.set_tool_required_client_capabilities(descriptor["name"], required_capabilities)
        self._registered(is_async)

    def remove_tool(self, name: str) -> bool:
        """Remove a tool; whether it existed."""
        return self._core.remove_tool(name)

    # ----- composition -----

    def mount(self, server: Any, prefix: Optional[str] = None) -> None:
        """Serve ``server``'s tools, prompts, resources, templates and completions from this
        server, as FastMCP's ``mount`` does: with a ``prefix``, tools and prompts become
        ``{prefix}_{name}`` and URIs ``scheme://{prefix}/rest``; without one, names stay. The
        mount is live: what ``server`` registers or removes later shows here, and its
        notifications (list changes, resource updates) reach this server's clients. Its
        handlers run as registered, with their own names and URIs; this server's own
        registrations win over mounted ones of the same name, and this server's middleware
        runs, not ``server``'s. ``mount("prefix", server)`` (the older FastMCP order) works
        too. A prefix with characters other than ASCII letters, digits, ``-``, ``_`` and
        ``.``, or a mount that makes a cycle, raises :class:`~ferrite_mcp.ConfigError`."""
        if isinstance(server, str) and not isinstance(prefix, str):
            server, prefix = prefix, server
        child = _core_of(server)
        self._core.mount(prefix or "", child)
        # The child's executor runs its handlers: keep it while it is mounted.
        mounts: Dict[Tuple[str, int], Any] = self.__dict__.setdefault("_mounts", {})
        mounts[(prefix or "", id(child))] = server

    def proxy(
        self,
        command: Optional[Sequence[str]] = None,
        *,
        url: Optional[str] = None,
        env: Optional[Dict[str, str]] = None,
        headers: Optional[Dict[str, str]] = None,
        era: Literal["auto", "handshake", "modern"] = "auto",
        timeout: Optional[float] = None,
    ) -> None:
        """Serve what another MCP server serves: ``command`` (a program and its arguments,
        with ``env`` added) started as a child speaking MCP on stdio, or the Streamable HTTP
        endpoint at ``url`` (with ``headers``). Connects now; then the upstream's tools,
        resources, templates and prompts are served here and forwarded (progress, logs,
        sampling, elicitation and cancellation go between the upstream and the client of the
        call), its list changes followed, its completions, subscriptions and custom methods
        forwarded. ``era``: ``"auto"`` (each client's request upstream in the client's era,
        when the upstream serves both), ``"handshake"`` or ``"modern"``. ``timeout``: seconds a
        request to the upstream may go without an answer, a progress notification or a
        question open with the client (default 60); past it the request is cancelled upstream
        and the client gets ``-32001``. An upstream that cannot be started, reached or
        initialized raises :class:`~ferrite_mcp.UpstreamError`; neither ``command`` nor
        ``url`` (or both), or a timeout under a millisecond, raises
        :class:`~ferrite_mcp.ConfigError`."""
        spec: Dict[str, Any] = {"era": era}
        if timeout is not None:
            # The core takes whole milliseconds and refuses 0 (as it does a non-number).
            spec["timeout_ms"] = round(timeout * 1000) if isinstance(timeout, (int, float)) else timeout
        if command is not None:
            words = [command] if isinstance(command, str) else list(command)
            if not words:
                raise ConfigError("proxy: command is empty")
            spec.update(command=words[0], args=words[1:], env=env or {})
        if url is not None:
            spec.update(url=url, headers=headers or {})
        self._core.proxy(spec)

    def unmount(self, server: Any, prefix: Optional[str] = None) -> bool:
        """Stop serving what ``server`` was mounted with under ``prefix``; whether it was."""
        child = _core_of(server)
        self.__dict__.get("_mounts", {}).pop((prefix or "", id(child)), None)
        return self._core.unmount(prefix or "", child)

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
        icons: Any = None,
        annotations: Any = None,
        meta: Optional[Dict[str, Any]] = None,
        size: Optional[int] = None,
    ) -> Callable[[F], F]:
        """Register a function as the reader of a resource. A URI with ``{variables}`` is a
        template (RFC 6570): the function's parameters must be exactly its variables (plus,
        optionally, a ``Context``), and receive the captured values, converted by pydantic to
        their annotated types.

        The reader returns ``str`` (text), ``bytes`` (a blob), JSON-able data (JSON text), or
        ``TextResourceContents``/``BlobResourceContents`` (or a list of them), or
        ``InputRequired`` to ask the client for input first.
        """
        if callable(uri):
            raise TypeError("@resource needs the URI: @server.resource('scheme://path')")

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
        annotations: Any = None,
        size: Optional[int] = None,
        icons: Any = None,
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

        def refuse(message: str) -> Exception:
            return InvalidParamsError(f"Invalid value for resource template {uri}: {message}")

        bind = _Binder(Arguments(fn.__name__, params, var_kw) if params or var_kw else None, ctx_name, self, refuse)

        def read_input(inp: Any, ctx: Any) -> Dict[str, Any]:
            return bind(inp[1], ctx)

        descriptor = _drop_none(
            {
                "name": name or fn.__name__,
                "title": title,
                "description": description if description is not None else doc,
                "mimeType": mime_type,
                "annotations": _plain(annotations),
                "icons": _plain(icons),
                "_meta": meta,
            }
        )

        def finish(value: Any, uri: str) -> Any:
            if isinstance(value, InputRequired):
                return value._to_core()
            return resource_result(value, uri, mime_type)

        if is_async:

            async def reader_async(inp: Any, ctx: Any) -> Any:
                return finish(await fn(**read_input(inp, ctx)), inp[0])

            wrapper: Callable[..., Any] = reader_async
        else:

            def reader(inp: Any, ctx: Any) -> Any:
                return finish(_not_awaitable(fn, fn(**read_input(inp, ctx))), inp[0])

            wrapper = reader
        if is_template:
            descriptor["uriTemplate"] = uri
            self._core.add_resource_template(descriptor, *self._handler(wrapper, is_async, ctx_name is not None))
        else:
            descriptor["uri"] = uri
            if size is not None:
                descriptor["size"] = size
            self._core.add_resource(descriptor, *self._handler(wrapper, is_async, ctx_name is not None))
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
        title: Optional[str] = None,
        description: Optional[str] = None,
        icons: Any = None,
        *,
        meta: Optional[Dict[str, Any]] = None,
    ) -> Callable[[F], F]:
        """Register a function as a prompt. Its parameters are the prompt's arguments
        (required unless they have a default; values arrive as strings and are converted by
        pydantic to the annotated types). It returns a ``str`` (one user message), a
        ``Message``, a content block, or a list of these; or ``InputRequired`` to ask the
        client for input first."""
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
        icons: Any = None,
        meta: Optional[Dict[str, Any]] = None,
    ) -> None:
        """Register ``fn`` as a prompt (the non-decorator form of :meth:`prompt`)."""
        params, ctx_name, var_kw = signature_params(fn, _is_context)
        doc, _ = parse_docstring(fn)
        is_async = _is_async(fn)
        prompt_name = name or fn.__name__
        arguments = [_drop_none({"name": p.name, "description": p.description, "required": p.required}) for p in params]
        descriptor = _drop_none(
            {
                "name": prompt_name,
                "title": title,
                "description": description if description is not None else doc,
                # A prompt without arguments lists none (no "arguments": []), as on every surface.
                "arguments": arguments or None,
                "icons": _plain(icons),
                "_meta": meta,
            }
        )

        def refuse(message: str) -> Exception:
            return InvalidParamsError(f"Invalid arguments for prompt {prompt_name}: {message}")

        bind = _Binder(Arguments(fn.__name__, params, var_kw) if params or var_kw else None, ctx_name, self, refuse)
        self._core.add_prompt(descriptor, *self._handler(_wrap(fn, bind, prompt_result, is_async), is_async, ctx_name is not None))
        self._registered(is_async)

    def remove_prompt(self, name: str) -> bool:
        """Remove a prompt; whether it existed."""
        return self._core.remove_prompt(name)

    # ----- completion -----

    def completion(
        self, *, prompt: Optional[str] = None, resource: Optional[str] = None, argument: Optional[str] = None
    ) -> Callable[[F], F]:
        """Register a completer: for one prompt's (or resource template's) ``argument``, or,
        with no arguments, for every ``completion/complete`` request (as the official SDK's
        ``@mcp.completion()``).

        The function takes any of ``value`` (the text typed so far), ``argument`` (the
        argument's name; also ``.name`` and ``.value``), ``ref`` (the reference: a dict, also
        read as ``ref.type``/``ref.name``/``ref.uri``), ``context`` (the already-resolved
        arguments: a dict, also ``context.arguments``) and a ``Context``; it returns a list
        of strings, a ``Completion``, or ``None``. The core sends at most 100 values.
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
        params, ctx_name, _var_kw = signature_params(fn, _is_context)
        allowed = {"value", "argument", "ref", "context"}
        unknown = [p.name for p in params if p.name not in allowed]
        if unknown:
            raise ConfigError(f"completer {fn.__qualname__}: unknown parameters {unknown}; use value, argument, ref, context")
        wanted = [p.name for p in params]
        is_async = _is_async(fn)
        ctx_binder = _Binder(None, ctx_name, self, ValueError)

        def bind(inp: Dict[str, Any], ctx: Any) -> Dict[str, Any]:
            # The request's wire shape, as the core serialized it.
            arg = inp.get("argument") or {}
            given = {
                "value": arg.get("value", ""),
                "argument": CompletionArgument(arg.get("name", ""), arg.get("value", "")),
                "ref": _Fields(inp.get("ref") or {}),
                "context": CompletionContext((inp.get("context") or {}).get("arguments") or {}),
            }
            kwargs = {k: given[k] for k in wanted}
            kwargs.update(ctx_binder({}, ctx))
            return kwargs

        wrapper = _wrap(fn, bind, completion_result, is_async)
        reference = self._reference(prompt, resource, argument)
        if reference is None:
            self._core.set_completion_handler(*self._handler(wrapper, is_async, ctx_name is not None))
        else:
            self._core.set_argument_completer(reference, argument or "", *self._handler(wrapper, is_async, ctx_name is not None))
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

    def on_roots_list_changed(self) -> Callable[[F], F]:
        """Observe ``notifications/roots/list_changed`` (the client's roots changed; ask again
        with ``ctx.list_roots()``) through the core's roots observer. The function takes no
        arguments; ``def`` observers run on the worker pool, ``async def`` ones on the event
        loop. Their exceptions are printed to stderr."""

        def decorator(fn: F) -> F:
            is_async = _is_async(fn)
            if not self._roots_observers:
                self._core.set_roots_list_changed_observer(self._dispatch_roots_changed)
            self._roots_observers.append((fn, is_async))
            self._registered(is_async)
            return fn

        return decorator

    def _dispatch_roots_changed(self, _inp: Any, _ctx: Any) -> None:
        for fn, is_async in list(self._roots_observers):
            try:
                if is_async:
                    self._run_on_loop(fn())
                else:
                    fn()
            except Exception:
                traceback.print_exc(file=sys.stderr)

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
