"""The request context a handler receives when one of its parameters is annotated
``Context``.

As in the official SDK, logging and progress are awaited (``await ctx.info("...")``,
``await ctx.report_progress(1, 2)``); each also does its work when called, so a ``def``
handler calls them without ``await`` (what they return is :class:`Sent`: truthy when the
message went out, and awaitable). ``await ctx.read_resource(uri)`` reads through the core
(from a ``def`` handler, ``ctx.read_resource(uri)`` reads at once). Server-to-client requests
(``elicit``, ``sample``, ``list_roots``, ``send_request``) are awaitables that run on the
server's Rust runtime; on a 2026-07-28 request they raise
:class:`~ferrite_mcp.UseInputRequiredError`: such a handler returns
:class:`~ferrite_mcp.InputRequired` and reads the answers with
:meth:`Context.input_response_as` (which also works on handshake-era sessions, where the
core asks the client itself).
"""

from __future__ import annotations

import base64
import dataclasses
import sys
import typing
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    Generator,
    List,
    MutableMapping,
    Optional,
    Sequence,
    Type,
    TypeVar,
    Union,
    cast,
)

from . import _ferrite
from .content import ElicitResult, ReadResourceContents, Root, RootsResult, SamplingResult
from .mrtr import DEFAULT_MAX_TOKENS, sampling_params

if TYPE_CHECKING:
    import asyncio

    from .auth import Identity
    from .request_info import Headers, RequestInfo

__all__ = ["Context", "Sent", "ServerRequestContext"]

T = TypeVar("T")

# The package's result types, decoded (and shape-checked) by the core's types.
_RESULT_KINDS: Dict[Any, str] = {ElicitResult: "elicit", SamplingResult: "sample", RootsResult: "roots"}


def _sampling_result(r: Dict[str, Any]) -> SamplingResult:
    return SamplingResult(r["role"], r["content"], r["model"], r.get("stopReason"))


def _roots_result(r: Dict[str, Any]) -> RootsResult:
    return RootsResult([Root(x["uri"], x.get("name")) for x in r.get("roots", [])])


def _settle(fut: "asyncio.Future[Any]", error: Optional[BaseException], value: Any) -> None:
    if fut.done():  # the awaiting handler was cancelled meanwhile
        return
    if error is not None:
        fut.set_exception(error)
    else:
        fut.set_result(value)


def _awaitable(start: Callable[[Callable[[Optional[BaseException], Any], None]], Any]) -> "asyncio.Future[Any]":
    import asyncio  # imported on first use: a server with only `def` handlers never needs it

    loop = asyncio.get_running_loop()
    fut: asyncio.Future[Any] = loop.create_future()

    def resolve(error: Optional[BaseException], value: Any) -> None:  # on a runtime thread
        try:
            loop.call_soon_threadsafe(_settle, fut, error, value)
        except RuntimeError:  # the loop is closed: nobody is waiting
            pass

    asking = start(resolve)
    if asking is not None:
        # Given up (``asyncio.wait_for``, a cancelled task): stop the wait, and the core
        # withdraws the request from the client.
        fut.add_done_callback(lambda f: asking.cancel() if f.cancelled() else None)
    return fut


def _in_event_loop() -> bool:
    """Whether the calling thread runs an asyncio loop (where blocking would stall it)."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return False
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class Sent:
    """What ``ctx.info(...)``, ``ctx.log(...)`` and ``ctx.report_progress(...)`` return: the
    message was sent (or dropped) when the method was called; the object is truthy when it
    went out (not when logging is off, the level is below the client's, or the request carried
    no progress token), and awaiting it gives that flag, so ``await ctx.info(...)`` (the
    official SDK's spelling) and ``ctx.info(...)`` (in a ``def`` handler) do the same, once."""

    __slots__ = ("sent",)

    def __init__(self, sent: bool) -> None:
        self.sent = bool(sent)

    def __bool__(self) -> bool:
        return self.sent

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sent):
            return self.sent == other.sent
        if isinstance(other, bool):
            return self.sent == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.sent)

    def __await__(self) -> Generator[Any, None, bool]:
        return self.sent
        yield  # a generator that finishes at once: nothing to wait for

    def __repr__(self) -> str:
        return f"Sent({self.sent})"


def _contents(result: Dict[str, Any]) -> List[ReadResourceContents]:
    if "contents" not in result:
        raise RuntimeError("the resource asked for input (InputRequired); ctx.read_resource returns contents only")
    out = []
    for c in result["contents"]:
        if "blob" in c:
            content: Union[str, bytes] = base64.b64decode(c["blob"])
        else:
            content = c.get("text", "")
        out.append(ReadResourceContents(content, c.get("mimeType"), c.get("_meta"), c.get("uri")))
    return out


class _Contents(List[ReadResourceContents]):
    """The contents read at call time (from a ``def`` handler), also awaitable."""

    def __await__(self) -> Generator[Any, None, List[ReadResourceContents]]:
        return self
        yield


@dataclasses.dataclass(frozen=True)
class ServerRequestContext:
    """``ctx.request_context``, as the official SDK names it: the request's facts and the
    value the server's lifespan yielded (``lifespan_context``)."""

    lifespan_context: Any
    request_id: Union[int, str]
    protocol_version: str
    meta: Optional[Dict[str, Any]]
    connection_id: str
    #: The HTTP request (:class:`~ferrite_mcp.RequestInfo`; the official SDK gives a
    #: Starlette ``Request``), ``None`` on stdio and in-process.
    request: Optional["RequestInfo"] = None


_UNREAD = object()


class Context:
    """Everything a handler can know and do about the request it serves. ``Context[T]``
    (the official SDK's generic spelling) is accepted as the annotation too."""

    __slots__ = ("_raw", "_server", "_request")

    def __init__(self, raw: _ferrite.RequestContext, server: Any = None) -> None:
        self._raw = raw
        self._server = server
        self._request: Any = _UNREAD

    def __class_getitem__(cls, _item: Any) -> Any:
        return cls

    # ----- the server -----

    @property
    def mcp_server(self) -> Any:
        """The server handling the request."""
        if self._server is None:
            raise RuntimeError("the server is gone")
        return self._server

    @property
    def lifespan_context(self) -> Any:
        """What the server's lifespan yielded (``{}`` without a lifespan)."""
        server = self._server
        return {} if server is None else server._lifespan_value()

    @property
    def request_context(self) -> ServerRequestContext:
        """The request's facts and ``lifespan_context``, as the official SDK spells them."""
        return ServerRequestContext(
            lifespan_context=self.lifespan_context,
            request_id=self.request_id,
            protocol_version=self.protocol_version,
            meta=self.meta,
            connection_id=self.connection_id,
            request=self.request,
        )

    # ----- per-session state -----

    @property
    def session_state(self) -> MutableMapping[str, Any]:
        """A dict that lives as long as the session: the stdio process, the HTTP session, a
        ``Client``'s connection; the same object for each request of the session. On a
        stateless server, and on a 2026-07-28 request (which has no session), it lives as long
        as the request."""
        return cast(MutableMapping[str, Any], self._raw.session_state())

    def get_state(self, key: str, default: Any = None) -> Any:
        """``session_state.get(key, default)``."""
        return self.session_state.get(key, default)

    def set_state(self, key: str, value: Any) -> None:
        """``session_state[key] = value``."""
        self.session_state[key] = value

    # ----- resources -----

    def read_resource(self, uri: str) -> Any:
        """Read one of the server's resources by URI, as a client would (the core routes it to
        the resource or template; errors raise ``McpError``, e.g. ``-32002`` for an unknown
        URI). Returns a list of :class:`~ferrite_mcp.ReadResourceContents`: awaited from an
        ``async def`` handler, read at once (and still awaitable) from a ``def`` one."""
        if _in_event_loop():

            async def read() -> List[ReadResourceContents]:
                return _contents(await _awaitable(lambda resolve: self._raw.read_resource_async(uri, resolve)))

            return read()
        return _Contents(_contents(self._raw.read_resource(uri)))

    # ----- what the request is -----

    @property
    def request_id(self) -> Union[int, str]:
        """The JSON-RPC id of the request."""
        return self._raw.request_id

    @property
    def protocol_version(self) -> str:
        """The protocol revision in effect for this request, e.g. ``"2025-11-25"``."""
        return self._raw.protocol_version

    @property
    def connection_id(self) -> str:
        """A stable identifier of the connection (the stdio process, the HTTP session)."""
        return self._raw.connection_id

    @property
    def progress_token(self) -> Optional[Union[int, str]]:
        """The request's ``_meta.progressToken``, if any."""
        return self._raw.progress_token  # type: ignore[no-any-return]

    @property
    def meta(self) -> Optional[Dict[str, Any]]:
        """The request's ``_meta``, if any."""
        return self._raw.meta

    # ----- who is calling (a server with ``auth``) -----

    @property
    def identity(self) -> Optional["Identity"]:
        """The caller's verified identity (subject, client id, scopes, expiry, issuer, every
        claim), or ``None`` when the request was not authenticated (a server without
        ``auth``, stdio, in-process). Never the token."""
        from .auth import Identity

        return Identity._from_core(self._raw.identity)

    @property
    def subject(self) -> Optional[str]:
        """The caller's verified subject (``sub``, or the client id of a token without one),
        or ``None`` when the request was not authenticated."""
        return self._raw.subject

    @property
    def is_stateless(self) -> bool:
        """Whether the server is stateless (no server-to-client requests)."""
        return self._raw.is_stateless

    @property
    def is_task(self) -> bool:
        """Whether this call runs as a task (the tool was registered with ``task_support=``
        and the core made this call one). The handler is the same either way; inside a task
        :meth:`cancelled` and :meth:`is_cancelled` follow ``tasks/cancel``, input it asks for
        (``InputRequired``, :meth:`elicit`, :meth:`sample`, :meth:`list_roots`) waits in the
        task until the client answers, and its notifications (progress, logs) are dropped."""
        return self._raw.is_task

    def is_cancelled(self) -> bool:
        """Whether the client cancelled this request (or, in a task, the task); stop work
        when it turns true."""
        return self._raw.is_cancelled()

    async def cancelled(self) -> None:
        """Resolves when the client cancels this request (``notifications/cancelled``; in a
        task, ``tasks/cancel``), at once
        if it already did; race it with the work, e.g. ``asyncio.wait({work, cancel},
        return_when=FIRST_COMPLETED)``. Cancelling the awaiting task ends the wait."""
        import asyncio

        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Any] = loop.create_future()

        def resolve(error: Optional[BaseException], value: Any) -> None:  # on a runtime thread
            try:
                loop.call_soon_threadsafe(_settle, fut, error, value)
            except RuntimeError:  # the loop is closed: nobody is waiting
                pass

        watch = self._raw.on_cancelled(resolve)
        try:
            await fut
        finally:
            watch.stop()

    def close_sse_stream(self, retry: Optional[float] = None) -> Sent:
        """Close the stream this request's messages ride on (Streamable HTTP: the POST's
        SSE stream) while the handler keeps running; the client reconnects after ``retry``
        seconds and receives the rest. Falsy on transports that cannot (stdio). Awaitable (the
        official SDK's ``await ctx.close_sse_stream()``), or called plainly."""
        return Sent(self._raw.close_sse_stream(retry))

    # ----- list changes (the official SDK's names; each reaches every connected client) -----

    def notify_tools_changed(self) -> Sent:
        """Send ``notifications/tools/list_changed``; truthy when a client was reached."""
        return Sent(self.mcp_server.notify_tools_list_changed() > 0)

    def notify_prompts_changed(self) -> Sent:
        """Send ``notifications/prompts/list_changed``; truthy when a client was reached."""
        return Sent(self.mcp_server.notify_prompts_list_changed() > 0)

    def notify_resources_changed(self) -> Sent:
        """Send ``notifications/resources/list_changed``; truthy when a client was reached."""
        return Sent(self.mcp_server.notify_resources_list_changed() > 0)

    def notify_resource_updated(self, uri: str) -> Sent:
        """Tell the clients subscribed to ``uri`` that it changed; truthy when one was."""
        return Sent(self.mcp_server.notify_resource_updated(str(uri)) > 0)

    # ----- 2026-07-28: the request's era, input responses, request state -----

    @property
    def is_modern(self) -> bool:
        """Whether the request uses the 2026-07-28 revision (per-request envelope; ask for
        input by returning ``InputRequired``)."""
        return self._raw.is_modern

    @property
    def input_responses(self) -> Dict[str, Any]:
        """The client's answers to the input requests, by key: each the bare result it
        returned (``{"action", "content"}``, ``{"role", "content", "model"}``,
        ``{"roots"}``). Empty on a first call."""
        return self._raw.input_responses

    def input_response(self, key: str) -> Optional[Dict[str, Any]]:
        """The client's answer to input request ``key``, if it answered."""
        return self._raw.input_response(key)

    def has_input_response(self, key: str) -> bool:
        """Whether the client answered input request ``key``."""
        return self._raw.has_input_response(key)

    def input_response_as(self, key: str, tp: Type[T]) -> Optional[T]:
        """The answer to input request ``key`` decoded as ``tp``: :class:`ElicitResult`
        (``ElicitResult[Model]`` also decodes the form's content into ``Model``),
        :class:`SamplingResult`, :class:`RootsResult`, or a pydantic model, dataclass or
        TypedDict of the answer's shape. ``None`` when the client did not answer it; an answer
        of another shape raises :class:`~ferrite_mcp.InvalidParamsError` (``-32602`` when it
        propagates)."""
        from .decode import decode_as

        origin = typing.get_origin(tp) or tp
        kind = _RESULT_KINDS.get(origin)
        if kind is None:
            if not self._raw.has_input_response(key):
                return None
            return decode_as(self._raw.input_response(key), tp, f"input response {key!r}")
        r = self._raw.decode_input_response(key, kind)
        if r is None:
            return None
        if kind == "sample":
            return cast(T, _sampling_result(r))
        if kind == "roots":
            return cast(T, _roots_result(r))
        content = r.get("content")
        args = typing.get_args(tp)
        if args and content is not None:
            content = decode_as(content, args[0], f"input response {key!r} content")
        return cast(T, ElicitResult(r["action"], content))

    @property
    def is_resubmission(self) -> bool:
        """Whether this call is a retry carrying the client's answers or request state."""
        return self._raw.is_resubmission

    @property
    def request_state(self) -> Optional[str]:
        """The state the handler returned with ``InputRequired``, exactly as it wrote it (the
        core sealed it on the way out and verified it on the way back). ``None`` on a first
        call."""
        return self._raw.request_state

    def request_state_as(self, tp: Type[T]) -> Optional[T]:
        """The request state (written as JSON, e.g. ``with_state(a_dataclass)``) decoded as
        ``tp`` (a dataclass, pydantic model, TypedDict, dict, ...). ``None`` when there is
        none; state of another shape raises :class:`~ferrite_mcp.InvalidParamsError`."""
        from .decode import decode_as

        value = self._raw.request_state_json()
        if value is None and self._raw.request_state is None:
            return None
        return decode_as(value, tp, "request state")

    def client_extension(self, id: str) -> Optional[Any]:  # noqa: A002 (the extension's id)
        """The settings of extension ``id`` (e.g. ``"io.modelcontextprotocol/skills"``) the
        client declared, if it did."""
        return self._raw.client_extension(id)

    def header(self, name: str) -> Optional[str]:
        """An HTTP request header by case-insensitive name (``None`` over stdio or
        in-process, or when absent)."""
        return self._raw.header(name)

    @property
    def request(self) -> Optional["RequestInfo"]:
        """The HTTP request this handler serves (:class:`~ferrite_mcp.RequestInfo`: method,
        path, headers, client address, the values the host attached), on Ferrite's own
        listener and mounted in an ASGI app alike; ``None`` on stdio and in-process."""
        if self._request is _UNREAD:
            from .request_info import RequestInfo

            self._request = RequestInfo._from_core(self._raw.request_info)
        return self._request  # type: ignore[no-any-return]

    @property
    def headers(self) -> Optional["Headers"]:
        """``ctx.request.headers`` (read-only, case-insensitive), ``None`` off HTTP."""
        request = self.request
        return None if request is None else request.headers

    # ----- the client -----

    def client_supports(self, capability: str) -> bool:
        """Whether the client declared a capability, by dotted path (``"sampling"``,
        ``"elicitation.url"``, ``"roots.listChanged"``)."""
        return self._raw.client_supports(capability)

    def client_capabilities(self) -> Dict[str, Any]:
        """The client's declared capabilities."""
        return self._raw.client_capabilities()

    def client_info(self) -> Optional[Dict[str, Any]]:
        """The client's ``clientInfo`` from ``initialize``, if known."""
        return self._raw.client_info()

    # ----- logging, progress, notifications -----

    def log(self, level: str, data: Any, logger_name: Optional[str] = None, *, logger: Optional[str] = None) -> Sent:
        """Send ``notifications/message`` with any JSON ``data``; awaitable, or called plainly
        (see :class:`Sent`: falsy when not sent, as when logging is off or ``level`` is below
        the client's minimum). ``logger_name`` may be given by keyword (the official SDK's
        spelling) or third by position (Ferrite's older one); ``logger`` is an older keyword
        spelling of it."""
        return Sent(self._raw.log(level, data, logger_name if logger_name is not None else logger))

    def debug(self, data: Any, *, logger_name: Optional[str] = None) -> Sent:
        """Log ``data`` at debug level."""
        return Sent(self._raw.log("debug", data, logger_name))

    def info(self, data: Any, *, logger_name: Optional[str] = None) -> Sent:
        """Log ``data`` at info level."""
        return Sent(self._raw.log("info", data, logger_name))

    def warning(self, data: Any, *, logger_name: Optional[str] = None) -> Sent:
        """Log ``data`` at warning level."""
        return Sent(self._raw.log("warning", data, logger_name))

    def error(self, data: Any, *, logger_name: Optional[str] = None) -> Sent:
        """Log ``data`` at error level."""
        return Sent(self._raw.log("error", data, logger_name))

    def report_progress(self, progress: float, total: Optional[float] = None, message: Optional[str] = None) -> Sent:
        """Send ``notifications/progress``; falsy when the request carried no progress token.
        Awaitable, or called plainly (see :class:`Sent`)."""
        return Sent(self._raw.report_progress(progress, total, message))

    def notify(self, method: str, params: Optional[Dict[str, Any]] = None) -> None:
        """Send a notification related to this request (it precedes the response)."""
        self._raw.notify(method, params)

    # ----- server-to-client requests -----

    async def send_request(self, method: str, params: Optional[Dict[str, Any]] = None) -> Any:
        """Send any request to the client and return its result."""
        return await _awaitable(lambda resolve: self._raw.send_request(method, params, resolve))

    async def sample(
        self,
        prompt: Union[str, Sequence[Any]],
        *,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        system_prompt: Optional[str] = None,
        temperature: Optional[float] = None,
        **params: Any,
    ) -> SamplingResult:
        """Ask the client's LLM (``sampling/createMessage``). ``prompt`` is one user text or a
        list of messages (``{"role", "content"}`` dicts or ``Message``); other
        ``createMessage`` parameters go in keywords, snake_case or camelCase
        (``stop_sequences=...``). ``max_tokens`` defaults to the core's
        ``CreateMessageParams::DEFAULT_MAX_TOKENS`` (1000), as on every surface."""
        body = sampling_params(prompt, max_tokens, system_prompt, temperature, params)
        r = await _awaitable(lambda resolve: self._raw.sample(body, resolve))
        return _sampling_result(r)

    async def elicit(self, message: str, schema: Any) -> ElicitResult[Any]:
        """Ask the user to fill a form (``elicitation/create``). ``schema`` is a pydantic
        model (as in the official SDK), a dataclass or TypedDict, whose JSON Schema is sent
        and into which the answer is validated (``result.data`` is an instance), or a JSON
        Schema dict (``result.data`` is the dict the client sent). An answer that does not fit
        the type raises :class:`~ferrite_mcp.MalformedResponseError` naming the field."""
        tp = None
        if not isinstance(schema, dict):
            from .schema import form_schema_for

            tp, schema = schema, form_schema_for(schema)
        r = await _awaitable(lambda resolve: self._raw.elicit(message, schema, resolve))
        content = r.get("content")
        if tp is not None and r.get("action") == "accept" and content is not None:
            content = _validated(content, tp)
        return ElicitResult(r["action"], content)

    async def elicit_url(self, message: str, url: str, elicitation_id: str) -> ElicitResult[Dict[str, Any]]:
        """Send the user to a URL (``elicitation/create`` in URL mode)."""
        r = await _awaitable(lambda resolve: self._raw.elicit_url(message, url, elicitation_id, resolve))
        return ElicitResult(r["action"], r.get("content"))

    def notify_elicitation_complete(self, elicitation_id: str) -> Sent:
        """Tell the client the URL elicitation ``elicitation_id`` has completed
        (``notifications/elicitation/complete``, 2025-11-25 on), so it may retry what waited
        on it. Sent when called; awaitable, or called plainly (see :class:`Sent`)."""
        self._raw.notify_elicitation_complete(elicitation_id)
        return Sent(True)

    async def list_roots(self) -> List[Root]:
        """The client's roots (``roots/list``)."""
        r = await _awaitable(self._raw.list_roots)
        return _roots_result(r).roots

    def __repr__(self) -> str:
        return f"Context(request_id={self.request_id!r}, protocol_version={self.protocol_version!r})"


def _validated(content: Any, tp: Any) -> Any:
    """The elicitation's answer as an instance of ``tp``; ``MalformedResponseError`` naming
    the field that does not fit."""
    from pydantic import TypeAdapter, ValidationError

    from .errors import MalformedResponseError
    from .schema import _readable, validation_message

    try:
        return TypeAdapter(_readable(tp)).validate_python(content)
    except ValidationError as e:
        raise MalformedResponseError(f"the elicitation's answer does not fit {getattr(tp, '__name__', tp)}: {validation_message(e)}") from None
