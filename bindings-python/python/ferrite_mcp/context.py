"""The request context a handler receives when one of its parameters is annotated
``Context``.

Logging, progress and notifications are plain methods (they queue a message and return at
once). Server-to-client requests are awaitables: they run on the server's Rust runtime and
complete on the event loop of the handler that awaits them. On a 2026-07-28 request they
raise :class:`~ferrite_mcp.UseInputRequiredError`: such a handler returns
:class:`~ferrite_mcp.InputRequired` and reads the answers with :meth:`Context.input_response_as`
(which also works on handshake-era sessions, where the core asks the client itself).
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Type, TypeVar, Union, cast

from . import _ferrite
from .content import ElicitResult, Root, RootsResult, SamplingResult
from .mrtr import DEFAULT_MAX_TOKENS, sampling_params

if TYPE_CHECKING:
    import asyncio

__all__ = ["Context"]

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


def _awaitable(start: Callable[[Callable[[Optional[BaseException], Any], None]], None]) -> "asyncio.Future[Any]":
    import asyncio  # imported on first use: a server with only `def` handlers never needs it

    loop = asyncio.get_running_loop()
    fut: asyncio.Future[Any] = loop.create_future()

    def resolve(error: Optional[BaseException], value: Any) -> None:  # on a runtime thread
        try:
            loop.call_soon_threadsafe(_settle, fut, error, value)
        except RuntimeError:  # the loop is closed: nobody is waiting
            pass

    start(resolve)
    return fut


class Context:
    """Everything a handler can know and do about the request it serves."""

    __slots__ = ("_raw",)

    def __init__(self, raw: _ferrite.RequestContext) -> None:
        self._raw = raw

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

    @property
    def is_stateless(self) -> bool:
        """Whether the server is stateless (no server-to-client requests)."""
        return self._raw.is_stateless

    def is_cancelled(self) -> bool:
        """Whether the client cancelled this request; stop work when it turns true."""
        return self._raw.is_cancelled()

    def close_sse_stream(self, retry: Optional[float] = None) -> bool:
        """Close the stream this request's messages ride on (Streamable HTTP: the POST's
        SSE stream) while the handler keeps running; the client reconnects after ``retry``
        seconds and receives the rest. False on transports that cannot (stdio)."""
        return self._raw.close_sse_stream(retry)

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

    def log(self, level: str, data: Any, logger: Optional[str] = None) -> bool:
        """Send ``notifications/message``; whether it was sent (not when logging is off or
        ``level`` is below the client's minimum)."""
        return self._raw.log(level, data, logger)

    def debug(self, message: str) -> bool:
        """Log ``message`` at debug level."""
        return self._raw.debug(message)

    def info(self, message: str) -> bool:
        """Log ``message`` at info level."""
        return self._raw.info(message)

    def warning(self, message: str) -> bool:
        """Log ``message`` at warning level."""
        return self._raw.warning(message)

    def error(self, message: str) -> bool:
        """Log ``message`` at error level."""
        return self._raw.error(message)

    def report_progress(self, progress: float, total: Optional[float] = None, message: Optional[str] = None) -> bool:
        """Send ``notifications/progress``; false when the request carried no progress token."""
        return self._raw.report_progress(progress, total, message)

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
        (``stop_sequences=...``). ``max_tokens`` defaults to 100."""
        body = sampling_params(prompt, max_tokens, system_prompt, temperature, params)
        r = await _awaitable(lambda resolve: self._raw.sample(body, resolve))
        return _sampling_result(r)

    async def elicit(self, message: str, schema: Any) -> ElicitResult[Dict[str, Any]]:
        """Ask the user to fill a form (``elicitation/create``). ``schema`` is a JSON Schema
        dict, or a dataclass/TypedDict/pydantic type to derive it from."""
        if not isinstance(schema, dict):
            from .schema import schema_for

            schema = schema_for(schema)
        r = await _awaitable(lambda resolve: self._raw.elicit(message, schema, resolve))
        return ElicitResult(r["action"], r.get("content"))

    async def elicit_url(self, message: str, url: str, elicitation_id: str) -> ElicitResult[Dict[str, Any]]:
        """Send the user to a URL (``elicitation/create`` in URL mode)."""
        r = await _awaitable(lambda resolve: self._raw.elicit_url(message, url, elicitation_id, resolve))
        return ElicitResult(r["action"], r.get("content"))

    async def list_roots(self) -> List[Root]:
        """The client's roots (``roots/list``)."""
        r = await _awaitable(self._raw.list_roots)
        return _roots_result(r).roots

    def __repr__(self) -> str:
        return f"Context(request_id={self.request_id!r}, protocol_version={self.protocol_version!r})"
