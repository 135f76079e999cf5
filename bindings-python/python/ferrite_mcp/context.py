"""The request context a handler receives when one of its parameters is annotated
``Context``.

Logging, progress and notifications are plain methods (they queue a message and return at
once). Server-to-client requests are awaitables: they run on the server's Rust runtime and
complete on the event loop of the handler that awaits them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Union

from . import _ferrite
from .content import ElicitResult, Root, SamplingResult

if TYPE_CHECKING:
    import asyncio

__all__ = ["Context"]


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
        prompt: Union[str, List[Dict[str, Any]]],
        *,
        max_tokens: int = 100,
        system_prompt: Optional[str] = None,
        temperature: Optional[float] = None,
        **params: Any,
    ) -> SamplingResult:
        """Ask the client's LLM (``sampling/createMessage``). ``prompt`` is one user text or a
        list of ``{"role", "content"}`` messages; other ``createMessage`` parameters go in
        camelCase keywords (``stopSequences=...``)."""
        if isinstance(prompt, str):
            messages: List[Dict[str, Any]] = [{"role": "user", "content": {"type": "text", "text": prompt}}]
        else:
            messages = list(prompt)
        body: Dict[str, Any] = {"messages": messages, "maxTokens": max_tokens, **params}
        if system_prompt is not None:
            body["systemPrompt"] = system_prompt
        if temperature is not None:
            body["temperature"] = temperature
        r = await _awaitable(lambda resolve: self._raw.sample(body, resolve))
        return SamplingResult(r["role"], r["content"], r["model"], r.get("stopReason"))

    async def elicit(self, message: str, schema: Any) -> ElicitResult:
        """Ask the user to fill a form (``elicitation/create``). ``schema`` is a JSON Schema
        dict, or a dataclass/TypedDict/pydantic type to derive it from."""
        if not isinstance(schema, dict):
            from .schema import schema_for

            schema = schema_for(schema)
        r = await _awaitable(lambda resolve: self._raw.elicit(message, schema, resolve))
        return ElicitResult(r["action"], r.get("content"))

    async def elicit_url(self, message: str, url: str, elicitation_id: str) -> ElicitResult:
        """Send the user to a URL (``elicitation/create`` in URL mode)."""
        r = await _awaitable(lambda resolve: self._raw.elicit_url(message, url, elicitation_id, resolve))
        return ElicitResult(r["action"], r.get("content"))

    async def list_roots(self) -> List[Root]:
        """The client's roots (``roots/list``)."""
        r = await _awaitable(self._raw.list_roots)
        return [Root(x["uri"], x.get("name")) for x in r.get("roots", [])]

    def __repr__(self) -> str:
        return f"Context(request_id={self.request_id!r}, protocol_version={self.protocol_version!r})"
