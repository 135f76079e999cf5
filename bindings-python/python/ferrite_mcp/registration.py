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
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, TypeVar, overload

from . import _ferrite
from ._handlers import (
    _Binder,
    _drop_none,
    _from_string,
    _is_async,
    _is_context,
    _not_awaitable,
    _output_schema_of,
    _ServerBase,
    _wrap,
)
from .errors import ConfigError
from .mrtr import InputRequired
from .results import completion_result, prompt_result, resource_result, tool_result
from .schema import object_schema, parse_docstring, signature_params

F = TypeVar("F", bound=Callable[..., Any])


class _Registration(_ServerBase):
    """Registering tools, resources, prompts, completers and notification observers."""

    _observers: List[Tuple[Optional[str], Callable[..., Any], bool]]

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
        refuse calls from clients that did not declare them. The tool may return
        ``InputRequired`` to ask the client for input first (see :mod:`ferrite_mcp.mrtr`).
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
        ``TextResourceContents``/``BlobResourceContents`` (or a list of them), or
        ``InputRequired`` to ask the client for input first.
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
