"""An in-memory client for tests: ``async with Client(server) as c`` connects to a server of
this process through the core (a :meth:`Server.connect` connection, so the core does every
bit of protocol work, as over stdio), runs the ``initialize`` handshake, and returns typed
results::

    async with Client(server) as client:
        result = await client.call_tool("add", {"a": 1, "b": 2})
        assert result.structured_content == {"result": 3}

The names follow the official SDK's ``mcp.Client`` (``call_tool``, ``list_tools``,
``read_resource``, ``get_prompt``, ``complete``, ``send_ping``, ``set_logging_level``, the
``sampling_callback``/``elicitation_callback``/``list_roots_callback``/``logging_callback``
keyword arguments, ``progress_callback`` per call), but the results are this package's
dataclasses (the official ones are pydantic models of the ``mcp`` package), a JSON-RPC error
raises :class:`~ferrite_mcp.McpError`, and only in-process servers are reached.

While the client is open, ``async def`` handlers run on the client's event loop (as in the
official SDK's in-memory client), and the server's lifespan is entered.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import itertools
import json
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Dict, List, Optional, Set, Union

from . import _ferrite
from .content import (
    AudioContent,
    BlobResourceContents,
    Completion,
    Content,
    ElicitResult,
    EmbeddedResource,
    ImageContent,
    Message,
    ResourceLink,
    Root,
    RootsResult,
    SamplingResult,
    TextContent,
    TextResourceContents,
)
from .errors import McpError
from .results import content_block, to_jsonable

if TYPE_CHECKING:
    from .server import Server

__all__ = [
    "Client",
    "ClientRequestContext",
    "ElicitRequest",
    "SamplingRequest",
    "LogMessage",
    "CallToolResult",
    "Tool",
    "ListToolsResult",
    "Resource",
    "ResourceTemplate",
    "ListResourcesResult",
    "ListResourceTemplatesResult",
    "ReadResourceResult",
    "PromptArgument",
    "Prompt",
    "ListPromptsResult",
    "GetPromptResult",
]

#: The revision the client asks for in ``initialize``.
PROTOCOL_VERSION = "2025-11-25"

_METHOD_NOT_FOUND = -32601
_INTERNAL_ERROR = -32603


# ----- what the server asks and sends -----


@dataclasses.dataclass(frozen=True)
class ClientRequestContext:
    """What a callback learns about the server's request besides its params."""

    method: str


@dataclasses.dataclass(frozen=True)
class ElicitRequest:
    """``elicitation/create`` as the elicitation callback receives it (read by the core's
    ``ElicitRequestParams``): a form (``requested_schema``) or a URL."""

    mode: str
    message: str
    requested_schema: Optional[Dict[str, Any]] = None
    url: Optional[str] = None
    elicitation_id: Optional[str] = None


@dataclasses.dataclass(frozen=True)
class SamplingRequest:
    """``sampling/createMessage`` as the sampling callback receives it (read by the core's
    ``CreateMessageParams``)."""

    messages: List[Message]
    max_tokens: int
    system_prompt: Optional[str] = None
    temperature: Optional[float] = None
    stop_sequences: Optional[List[str]] = None
    model_preferences: Optional[Dict[str, Any]] = None
    include_context: Optional[str] = None
    metadata: Optional[Any] = None


@dataclasses.dataclass(frozen=True)
class LogMessage:
    """A ``notifications/message`` as the logging callback receives it."""

    level: str
    data: Any
    logger: Optional[str] = None


# ----- results -----


@dataclasses.dataclass
class CallToolResult:
    """A tool's result: content blocks (:class:`~ferrite_mcp.TextContent`, ...),
    ``structured_content``, and ``is_error`` (a failed tool is a result, not an exception)."""

    content: List[Any]
    structured_content: Optional[Any] = None
    is_error: bool = False
    meta: Optional[Dict[str, Any]] = None

    @property
    def text(self) -> str:
        """The text of the text blocks, joined."""
        return "".join(c.text for c in self.content if isinstance(c, TextContent))


@dataclasses.dataclass
class Tool:
    """A tool as ``tools/list`` shows it."""

    name: str
    input_schema: Dict[str, Any]
    title: Optional[str] = None
    description: Optional[str] = None
    output_schema: Optional[Dict[str, Any]] = None
    annotations: Optional[Dict[str, Any]] = None
    icons: Optional[List[Dict[str, Any]]] = None
    meta: Optional[Dict[str, Any]] = None


@dataclasses.dataclass
class ListToolsResult:
    tools: List[Tool]
    next_cursor: Optional[str] = None


@dataclasses.dataclass
class Resource:
    """A resource as ``resources/list`` shows it."""

    uri: str
    name: str
    title: Optional[str] = None
    description: Optional[str] = None
    mime_type: Optional[str] = None
    size: Optional[int] = None
    annotations: Optional[Dict[str, Any]] = None
    meta: Optional[Dict[str, Any]] = None


@dataclasses.dataclass
class ResourceTemplate:
    """A resource template as ``resources/templates/list`` shows it."""

    uri_template: str
    name: str
    title: Optional[str] = None
    description: Optional[str] = None
    mime_type: Optional[str] = None
    annotations: Optional[Dict[str, Any]] = None
    meta: Optional[Dict[str, Any]] = None


@dataclasses.dataclass
class ListResourcesResult:
    resources: List[Resource]
    next_cursor: Optional[str] = None


@dataclasses.dataclass
class ListResourceTemplatesResult:
    resource_templates: List[ResourceTemplate]
    next_cursor: Optional[str] = None


@dataclasses.dataclass
class ReadResourceResult:
    """A resource's contents: :class:`~ferrite_mcp.TextResourceContents` (``.text``) or
    :class:`~ferrite_mcp.BlobResourceContents` (``.data``: base64, as sent)."""

    contents: List[Union[TextResourceContents, BlobResourceContents]]
    meta: Optional[Dict[str, Any]] = None


@dataclasses.dataclass
class PromptArgument:
    name: str
    description: Optional[str] = None
    required: bool = False


@dataclasses.dataclass
class Prompt:
    """A prompt as ``prompts/list`` shows it."""

    name: str
    title: Optional[str] = None
    description: Optional[str] = None
    arguments: List[PromptArgument] = dataclasses.field(default_factory=list)
    meta: Optional[Dict[str, Any]] = None


@dataclasses.dataclass
class ListPromptsResult:
    prompts: List[Prompt]
    next_cursor: Optional[str] = None


@dataclasses.dataclass
class GetPromptResult:
    """A prompt's messages, each a :class:`~ferrite_mcp.Message` with a content block."""

    messages: List[Message]
    description: Optional[str] = None


def _block(d: Dict[str, Any]) -> Any:
    """A content block from its wire shape (unknown types stay dicts)."""
    kind = d.get("type")
    ann, meta = d.get("annotations"), d.get("_meta")
    if kind == "text":
        return TextContent(d.get("text", ""), ann, meta)
    if kind == "image":
        return ImageContent(d.get("data", ""), d.get("mimeType", ""), ann, meta)
    if kind == "audio":
        return AudioContent(d.get("data", ""), d.get("mimeType", ""), ann, meta)
    if kind == "resource":
        r = d.get("resource", {})
        return EmbeddedResource(r.get("uri", ""), text=r.get("text"), blob=r.get("blob"), mime_type=r.get("mimeType"), annotations=ann, meta=meta)
    if kind == "resource_link":
        return ResourceLink(
            d.get("uri", ""), d.get("name", ""), d.get("title"), d.get("description"), d.get("mimeType"), d.get("size"), ann, meta
        )
    return d


def _contents(d: Dict[str, Any]) -> Union[TextResourceContents, BlobResourceContents]:
    if "blob" in d:
        return BlobResourceContents(d["blob"], d.get("uri"), d.get("mimeType"), d.get("_meta"))
    return TextResourceContents(d.get("text", ""), d.get("uri"), d.get("mimeType"), d.get("_meta"))


def _message(d: Dict[str, Any]) -> Message:
    content = d.get("content")
    if isinstance(content, list):
        return Message(d.get("role", ""), [_block(c) for c in content])
    return Message(d.get("role", ""), _block(content) if isinstance(content, dict) else content)


async def _maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


class Client:
    """An in-memory MCP client of an in-process :class:`~ferrite_mcp.Server` (see the module
    docs). Callbacks may be ``def`` or ``async def``; declaring one declares the matching
    client capability (``sampling``, ``elicitation``, ``roots``)."""

    def __init__(
        self,
        server: "Server",
        *,
        sampling_callback: Optional[Callable[[ClientRequestContext, SamplingRequest], Any]] = None,
        elicitation_callback: Optional[Callable[[ClientRequestContext, ElicitRequest], Any]] = None,
        list_roots_callback: Optional[Callable[[ClientRequestContext], Any]] = None,
        logging_callback: Optional[Callable[[LogMessage], Any]] = None,
        message_handler: Optional[Callable[[Dict[str, Any]], Any]] = None,
        client_info: Optional[Dict[str, Any]] = None,
        read_timeout_seconds: Optional[float] = None,
        protocol_version: str = PROTOCOL_VERSION,
    ) -> None:
        from .server import Server

        if not isinstance(server, Server):
            raise TypeError(f"Client connects to an in-process ferrite_mcp Server, not {type(server).__name__}")
        self._server = server
        self._sampling = sampling_callback
        self._elicitation = elicitation_callback
        self._roots = list_roots_callback
        self._logging = logging_callback
        self._message_handler = message_handler
        self._client_info = client_info or {"name": "ferrite-mcp-client", "version": _ferrite.CORE_VERSION}
        self._timeout = read_timeout_seconds
        self._version = protocol_version
        self._conn: Optional[_ferrite.Connection] = None
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._borrowed = False
        self._entered_lifespan = False
        self._progress: Dict[str, Callable[..., Any]] = {}
        self._tokens = itertools.count(1)
        self._callbacks: Set["asyncio.Task[Any]"] = set()
        self.server_capabilities: Dict[str, Any] = {}
        self.server_info: Dict[str, Any] = {}
        self.instructions: Optional[str] = None
        self.protocol_version: Optional[str] = None

    # ----- connecting -----

    async def __aenter__(self) -> "Client":
        if self._conn is not None:
            raise RuntimeError("this Client is already connected")
        loop = asyncio.get_running_loop()
        self._loop = loop
        server = self._server
        bridge = server._loop_bridge()
        self._borrowed = bridge.borrow(loop)
        try:
            if self._borrowed or bridge.loop is None:
                await server._enter_lifespan()
            else:
                await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(server._enter_lifespan(), bridge.loop))
            self._entered_lifespan = True
            self._conn = server.connect(self._on_message, self._on_request)
            caps: Dict[str, Any] = {}
            if self._sampling is not None:
                caps["sampling"] = {}
            if self._elicitation is not None:
                caps["elicitation"] = {"form": {}, "url": {}}
            if self._roots is not None:
                caps["roots"] = {"listChanged": True}
            init = await self._request(
                "initialize", {"protocolVersion": self._version, "capabilities": caps, "clientInfo": self._client_info}
            )
            self.server_capabilities = init.get("capabilities", {})
            self.server_info = init.get("serverInfo", {})
            self.instructions = init.get("instructions")
            self.protocol_version = init.get("protocolVersion")
            await self._notify("notifications/initialized")
        except BaseException:
            await self.__aexit__(None, None, None)
            raise
        return self

    async def __aexit__(self, *exc: Any) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
        server = self._server
        bridge = server._loop_bridge()
        try:
            if self._entered_lifespan:
                self._entered_lifespan = False
                if self._borrowed or bridge.loop is None:
                    await server._exit_lifespan(*exc)
                else:
                    await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(server._exit_lifespan(*exc), bridge.loop))
        finally:
            if self._borrowed and self._loop is not None:
                self._borrowed = False
                bridge.release(self._loop, restart=server._has_async and not server.closed)

    @property
    def connection_id(self) -> str:
        """The id of this client's connection (``ctx.connection_id`` in handlers)."""
        return self._connection().id

    def _connection(self) -> _ferrite.Connection:
        if self._conn is None:
            raise RuntimeError("the Client is not connected: use `async with Client(server) as client`")
        return self._conn

    # ----- the wire, through the core -----

    async def _request(self, method: str, params: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        from .context import _awaitable

        conn = self._connection()
        ids: List[int] = []
        fut = _awaitable(lambda resolve: ids.append(conn.request(method, params, resolve)))
        try:
            if self._timeout is None:
                result = await fut
            else:
                result = await asyncio.wait_for(fut, self._timeout)
        except (asyncio.TimeoutError, asyncio.CancelledError):
            if ids and self._conn is not None:
                await self._notify("notifications/cancelled", {"requestId": ids[0], "reason": "the client stopped waiting"})
            raise
        # Callbacks of the notifications sent before the response finish first.
        if self._callbacks:
            await asyncio.gather(*list(self._callbacks), return_exceptions=True)
        return result  # type: ignore[no-any-return]

    async def _notify(self, method: str, params: Optional[Dict[str, Any]] = None) -> None:
        from .context import _awaitable

        conn = self._connection()
        await _awaitable(lambda resolve: conn.notify(method, params, resolve))

    def _on_message(self, frame: str) -> None:  # any thread
        loop = self._loop
        if loop is not None:
            try:
                loop.call_soon_threadsafe(self._dispatch, frame)
            except RuntimeError:  # the loop is closed
                pass

    def _dispatch(self, frame: str) -> None:
        msg = json.loads(frame)
        method, params = msg.get("method"), msg.get("params") or {}
        calls: List[Any] = []
        if method == "notifications/message" and self._logging is not None:
            calls.append(lambda: self._logging(LogMessage(params.get("level", ""), params.get("data"), params.get("logger"))))
        elif method == "notifications/progress":
            cb = self._progress.get(str(params.get("progressToken")))
            if cb is not None:
                calls.append(lambda: cb(params.get("progress"), params.get("total"), params.get("message")))
        if self._message_handler is not None:
            calls.append(lambda: self._message_handler(msg))
        for call in calls:
            self._spawn(_maybe_await(call()))

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._callbacks.add(task)
        task.add_done_callback(self._callbacks.discard)

    def _on_request(self, method: str, params: Any, reply: Any) -> None:  # a runtime thread
        loop = self._loop
        if loop is None:
            reply.reject(_INTERNAL_ERROR, "the client is closed")
            return
        try:
            loop.call_soon_threadsafe(lambda: self._spawn(self._answer(method, params, reply)))
        except RuntimeError:
            reply.reject(_INTERNAL_ERROR, "the client is closed")

    async def _answer(self, method: str, params: Any, reply: Any) -> None:
        ctx = ClientRequestContext(method)
        try:
            if method == "ping":
                result: Any = {}
            elif method == "elicitation/create" and self._elicitation is not None:
                result = _elicit_answer(await _maybe_await(self._elicitation(ctx, ElicitRequest(**params))))
            elif method == "sampling/createMessage" and self._sampling is not None:
                result = _sampling_answer(await _maybe_await(self._sampling(ctx, _sampling_request(params))))
            elif method == "roots/list" and self._roots is not None:
                result = _roots_answer(await _maybe_await(self._roots(ctx)))
            else:
                reply.reject(_METHOD_NOT_FOUND, f"Method not found: {method}")
                return
        except McpError as e:
            reply.reject(e.code, e.message, e.data)
        except Exception as e:
            reply.reject(_INTERNAL_ERROR, str(e) or type(e).__name__)
        else:
            reply.resolve(result)

    # ----- requests -----

    async def send_ping(self) -> None:
        """``ping``."""
        await self._request("ping")

    async def set_logging_level(self, level: str) -> None:
        """``logging/setLevel``: the least severe level the server sends to this client."""
        await self._request("logging/setLevel", {"level": level})

    async def list_tools(self, cursor: Optional[str] = None) -> ListToolsResult:
        r = await self._request("tools/list", {"cursor": cursor} if cursor else None)
        tools = [
            Tool(
                t["name"], t.get("inputSchema", {}), t.get("title"), t.get("description"), t.get("outputSchema"),
                t.get("annotations"), t.get("icons"), t.get("_meta"),
            )
            for t in r.get("tools", [])
        ]
        return ListToolsResult(tools, r.get("nextCursor"))

    async def call_tool(
        self,
        name: str,
        arguments: Optional[Dict[str, Any]] = None,
        read_timeout_seconds: Optional[float] = None,
        progress_callback: Optional[Callable[[float, Optional[float], Optional[str]], Any]] = None,
        *,
        meta: Optional[Dict[str, Any]] = None,
    ) -> CallToolResult:
        """``tools/call``. ``arguments`` are Python values (dataclasses, pydantic models,
        ``datetime``, ... are sent as JSON); ``progress_callback(progress, total, message)``
        receives the tool's progress notifications."""
        params: Dict[str, Any] = {"name": name, "arguments": to_jsonable(arguments or {})}
        token: Optional[str] = None
        if meta is not None or progress_callback is not None:
            params["_meta"] = dict(meta or {})
        if progress_callback is not None:
            token = f"ferrite-progress-{next(self._tokens)}"
            params["_meta"]["progressToken"] = token
            self._progress[token] = progress_callback
        saved = self._timeout
        if read_timeout_seconds is not None:
            self._timeout = read_timeout_seconds
        try:
            r = await self._request("tools/call", params)
        finally:
            self._timeout = saved
            if token is not None:
                self._progress.pop(token, None)
        return CallToolResult(
            [_block(c) for c in r.get("content", [])], r.get("structuredContent"), bool(r.get("isError", False)), r.get("_meta")
        )

    async def list_resources(self, cursor: Optional[str] = None) -> ListResourcesResult:
        r = await self._request("resources/list", {"cursor": cursor} if cursor else None)
        return ListResourcesResult(
            [
                Resource(
                    x["uri"], x.get("name", ""), x.get("title"), x.get("description"), x.get("mimeType"), x.get("size"),
                    x.get("annotations"), x.get("_meta"),
                )
                for x in r.get("resources", [])
            ],
            r.get("nextCursor"),
        )

    async def list_resource_templates(self, cursor: Optional[str] = None) -> ListResourceTemplatesResult:
        r = await self._request("resources/templates/list", {"cursor": cursor} if cursor else None)
        return ListResourceTemplatesResult(
            [
                ResourceTemplate(
                    x["uriTemplate"], x.get("name", ""), x.get("title"), x.get("description"), x.get("mimeType"),
                    x.get("annotations"), x.get("_meta"),
                )
                for x in r.get("resourceTemplates", [])
            ],
            r.get("nextCursor"),
        )

    async def read_resource(self, uri: str) -> ReadResourceResult:
        r = await self._request("resources/read", {"uri": str(uri)})
        return ReadResourceResult([_contents(c) for c in r.get("contents", [])], r.get("_meta"))

    async def subscribe_resource(self, uri: str) -> None:
        await self._request("resources/subscribe", {"uri": str(uri)})

    async def unsubscribe_resource(self, uri: str) -> None:
        await self._request("resources/unsubscribe", {"uri": str(uri)})

    async def list_prompts(self, cursor: Optional[str] = None) -> ListPromptsResult:
        r = await self._request("prompts/list", {"cursor": cursor} if cursor else None)
        return ListPromptsResult(
            [
                Prompt(
                    p["name"], p.get("title"), p.get("description"),
                    [PromptArgument(a["name"], a.get("description"), bool(a.get("required", False))) for a in p.get("arguments", [])],
                    p.get("_meta"),
                )
                for p in r.get("prompts", [])
            ],
            r.get("nextCursor"),
        )

    async def get_prompt(self, name: str, arguments: Optional[Dict[str, str]] = None) -> GetPromptResult:
        params: Dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        r = await self._request("prompts/get", params)
        return GetPromptResult([_message(m) for m in r.get("messages", [])], r.get("description"))

    async def complete(
        self, ref: Dict[str, Any], argument: Dict[str, str], context_arguments: Optional[Dict[str, str]] = None
    ) -> Completion:
        """``completion/complete``: ``ref`` is ``{"type": "ref/prompt", "name": ...}`` or
        ``{"type": "ref/resource", "uri": ...}``, ``argument`` ``{"name": ..., "value": ...}``."""
        params: Dict[str, Any] = {"ref": ref, "argument": argument}
        if context_arguments:
            params["context"] = {"arguments": context_arguments}
        r = (await self._request("completion/complete", params)).get("completion", {})
        return Completion(r.get("values", []), r.get("total"), r.get("hasMore"))

    def __repr__(self) -> str:
        state = "connected" if self._conn is not None else "not connected"
        return f"Client({self._server!r}, {state})"


# ----- answers to the server's requests -----


def _sampling_request(params: Dict[str, Any]) -> SamplingRequest:
    return SamplingRequest(
        [_message(m) for m in params.get("messages", [])],
        params.get("maxTokens", 0),
        params.get("systemPrompt"),
        params.get("temperature"),
        params.get("stopSequences"),
        params.get("modelPreferences"),
        params.get("includeContext"),
        params.get("metadata"),
    )


def _elicit_answer(value: Any) -> Dict[str, Any]:
    if isinstance(value, ElicitResult):
        out: Dict[str, Any] = {"action": value.action}
        if value.content is not None:
            out["content"] = to_jsonable(value.content)
        return out
    return dict(to_jsonable(value))


def _sampling_answer(value: Any) -> Dict[str, Any]:
    if isinstance(value, SamplingResult):
        content = value.content
        if isinstance(content, (str, Content)):
            content = content_block(content)
        out: Dict[str, Any] = {"role": value.role, "content": content, "model": value.model}
        if value.stop_reason is not None:
            out["stopReason"] = value.stop_reason
        return out
    return dict(to_jsonable(value))


def _roots_answer(value: Any) -> Dict[str, Any]:
    if isinstance(value, RootsResult):
        value = value.roots
    if isinstance(value, list):
        roots = []
        for r in value:
            if isinstance(r, str):
                roots.append({"uri": r})
            elif isinstance(r, Root):
                roots.append({"uri": r.uri, **({"name": r.name} if r.name is not None else {})})
            else:
                roots.append(to_jsonable(r))
        return {"roots": roots}
    return dict(to_jsonable(value))
