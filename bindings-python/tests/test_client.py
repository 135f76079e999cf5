"""The in-memory ``Client`` (typed results, through the core on a connection of its own), the
lifespan, per-session state, and ``ctx.elicit(message, schema=Model)`` returning a validated
instance."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Coroutine, Dict, List, TypeVar

import pytest
from pydantic import BaseModel, Field

from ferrite_mcp import Client, Context, McpError, MCPServer, Server, TextContent
from ferrite_mcp.client import ClientRequestContext, ElicitRequest, LogMessage, SamplingRequest

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def test_call_tool_returns_typed_results(server: Server) -> None:
    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    async def go() -> None:
        async with Client(server) as c:
            result = await c.call_tool("add", {"a": 1, "b": 2})
            assert result.is_error is False
            assert result.structured_content == {"result": 3}
            assert result.content == [TextContent("3")]
            tools = (await c.list_tools()).tools
            assert [t.name for t in tools] == ["add"]
            assert tools[0].description == "Add two integers."
            assert tools[0].input_schema["required"] == ["a", "b"]
            assert c.server_info["name"] == "test-server"

    run(go())


def test_a_failing_tool_is_an_error_result_and_a_protocol_error_raises(server: Server) -> None:
    @server.tool()
    def small(n: int = Field(le=3)) -> int:
        return n

    async def go() -> None:
        async with Client(server) as c:
            bad = await c.call_tool("small", {"n": 4})
            assert bad.is_error is True
            assert bad.text == "Invalid arguments for tool small: /n: 4 is greater than the maximum of 3"
            with pytest.raises(McpError) as e:
                await c.call_tool("nope", {})
            assert e.value.code == -32602
            assert str(e.value) == "Unknown tool: nope"

    run(go())


def test_resources_prompts_and_logging_reach_the_client(server: Server) -> None:
    @server.resource("greeting://{name}")
    def greeting(name: str) -> str:
        return f"Hello, {name}!"

    @server.prompt()
    def review(code: str) -> str:
        return f"Review: {code}"

    @server.tool()
    async def chatty(ctx: Context) -> str:
        await ctx.info("hi")
        await ctx.report_progress(1, 2, "half")
        return "ok"

    logs: List[LogMessage] = []
    progress: List[Any] = []

    async def go() -> None:
        async with Client(server, logging_callback=logs.append) as c:
            read = await c.read_resource("greeting://Ada")
            assert [x.text for x in read.contents] == ["Hello, Ada!"]  # type: ignore[union-attr]
            got = await c.get_prompt("review", {"code": "x"})
            assert got.messages[0].role == "user"
            assert got.messages[0].content == TextContent("Review: x")
            out = await c.call_tool("chatty", {}, progress_callback=lambda p, t, m: progress.append((p, t, m)))
            assert out.text == "ok"

    run(go())
    assert logs == [LogMessage("info", "hi", None)]
    assert progress == [(1, 2, "half")]


def test_the_lifespan_is_entered_once_and_its_value_reaches_handlers() -> None:
    events: List[str] = []

    @asynccontextmanager
    async def lifespan(server: MCPServer) -> AsyncIterator[Dict[str, str]]:
        events.append("enter")
        yield {"db": "connected"}
        events.append("exit")

    mcp = MCPServer("life", lifespan=lifespan)

    @mcp.tool()
    def db(ctx: Context) -> str:
        assert ctx.lifespan_context is ctx.request_context.lifespan_context
        return str(ctx.request_context.lifespan_context["db"])

    async def go() -> None:
        async with Client(mcp) as c:
            assert events == ["enter"]
            assert (await c.call_tool("db", {})).text == "connected"
        assert events == ["enter", "exit"]

    run(go())
    mcp.close()


def test_the_lifespan_outside_serving_is_a_clear_error() -> None:
    @asynccontextmanager
    async def lifespan(server: Any) -> AsyncIterator[int]:
        yield 1

    s = Server("unserved", lifespan=lifespan)

    @s.tool()
    def peek(ctx: Context) -> str:
        return str(ctx.request_context.lifespan_context)

    from conftest import call_tool

    result = call_tool(s, "peek")
    assert result["isError"] is True
    assert "the server's lifespan is not entered" in result["content"][0]["text"]
    s.close()


def test_session_state_lives_as_long_as_the_connection(server: Server) -> None:
    @server.tool()
    def bump(ctx: Context) -> int:
        n = int(ctx.session_state.get("n", 0)) + 1
        ctx.set_state("n", n)
        return n

    async def go() -> None:
        async with Client(server) as first:
            assert [(await first.call_tool("bump", {})).structured_content for _ in range(3)] == [
                {"result": 1},
                {"result": 2},
                {"result": 3},
            ]
            async with Client(server) as second:  # another session: its own state
                assert (await second.call_tool("bump", {})).structured_content == {"result": 1}

    run(go())


def test_session_state_is_per_request_on_a_stateless_http_server_and_a_modern_request(http_serve: Any) -> None:
    s = Server("stateless", stateless=True)

    @s.tool()
    def bump(ctx: Context) -> int:
        n = int(ctx.get_state("n", 0)) + 1
        ctx.set_state("n", n)
        return n

    h = http_serve(s)
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    assert h.post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})[0] == 200
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "bump", "arguments": {}}}
    version = {"MCP-Protocol-Version": "2025-11-25"}
    assert [h.post(call, version)[2]["result"]["structuredContent"] for _ in range(2)] == [{"result": 1}, {"result": 1}]
    # A 2026-07-28 request has no session either.
    from conftest import modern_ok

    stateful = Server("modern")
    stateful.add_tool(bump)
    assert [modern_ok(stateful, "tools/call", {"name": "bump"})["structuredContent"] for _ in range(2)] == [
        {"result": 1},
        {"result": 1},
    ]
    stateful.close()


class Booking(BaseModel):
    city: str
    nights: int = Field(ge=1)


def test_elicit_with_a_model_returns_a_validated_instance(server: Server) -> None:
    @server.tool()
    async def book(ctx: Context) -> str:
        answer = await ctx.elicit("Where to?", schema=Booking)
        if answer.action != "accept":
            return answer.action
        assert isinstance(answer.data, Booking)
        return f"{answer.data.nights} nights in {answer.data.city}"

    seen: List[ElicitRequest] = []
    replies: List[Any] = [
        {"action": "accept", "content": {"city": "Oslo", "nights": 2}},
        {"action": "decline"},
        {"action": "accept", "content": {"city": "Oslo", "nights": 0}},
    ]

    def elicit(_ctx: ClientRequestContext, req: ElicitRequest) -> Any:
        seen.append(req)
        return replies.pop(0)

    async def go() -> None:
        async with Client(server, elicitation_callback=elicit) as c:
            assert (await c.call_tool("book", {})).text == "2 nights in Oslo"
            assert (await c.call_tool("book", {})).text == "decline"
            bad = await c.call_tool("book", {})
            assert bad.is_error is True
            # The core checks the answer against the form (minimum 1) before pydantic sees it.
            assert bad.text == 'the accepted answer does not fit the requested form: field "nights": 0 is below the minimum'

    run(go())
    assert seen[0].mode == "form" and seen[0].message == "Where to?"
    # The core spells the form the restricted way: the model's schema without its root title.
    assert seen[0].requested_schema == {k: v for k, v in Booking.model_json_schema().items() if k != "title"}


def test_sampling_defaults_to_the_cores_1000_max_tokens(server: Server) -> None:
    @server.tool()
    async def ask(ctx: Context) -> str:
        reply = await ctx.sample("Capital of France?")
        return reply.text

    seen: List[SamplingRequest] = []

    def sample(_ctx: ClientRequestContext, req: SamplingRequest) -> Any:
        seen.append(req)
        return {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"}

    async def go() -> None:
        async with Client(server, sampling_callback=sample) as c:
            assert (await c.call_tool("ask", {})).text == "Paris"

    run(go())
    assert seen[0].max_tokens == 1000


def test_the_client_refuses_what_is_not_a_ferrite_server() -> None:
    with pytest.raises(TypeError, match="Client connects to an in-process ferrite_mcp Server, not str"):
        Client("http://example.com")  # type: ignore[arg-type]
