"""Exceptions from handlers: tool failures become isError results with the message; McpError
becomes the JSON-RPC error it describes; the core's errors raise the package's classes."""

from __future__ import annotations

import pytest

from ferrite_mcp import (
    ConfigError,
    InvalidParamsError,
    McpError,
    NoChannelError,
    ResourceNotFoundError,
    Server,
    ServerClosedError,
    StatelessError,
    ToolError,
    Context,
)

from conftest import call_tool, modern_ok, rpc, text_of


def test_tool_exception_is_an_error_result_with_the_message(server: Server) -> None:
    @server.tool()
    def boom() -> str:
        raise ValueError("the value was wrong")

    @server.tool()
    async def aboom() -> str:
        raise ToolError("async failure")

    assert call_tool(server, "boom") == {"content": [{"type": "text", "text": "the value was wrong"}], "isError": True}
    assert call_tool(server, "aboom") == {"content": [{"type": "text", "text": "async failure"}], "isError": True}


def test_exception_without_message_carries_its_class_name(server: Server) -> None:
    @server.tool()
    def bare() -> str:
        raise KeyError()

    assert text_of(call_tool(server, "bare")) == "KeyError"


def test_mcp_error_is_sent_as_a_jsonrpc_error(server: Server) -> None:
    @server.tool()
    def strict(n: int) -> str:
        raise InvalidParamsError("n is odd", {"n": n})

    @server.resource("test://missing")
    async def missing() -> str:
        raise ResourceNotFoundError("test://missing")

    @server.prompt()
    def custom() -> str:
        raise McpError(-32050, "custom")

    assert rpc(server, "tools/call", {"name": "strict", "arguments": {"n": 3}})["error"] == {
        "code": -32602,
        "message": "n is odd",
        "data": {"n": 3},
    }
    err = rpc(server, "resources/read", {"uri": "test://missing"})["error"]
    assert err["code"] == -32002 and err["data"] == {"uri": "test://missing"}
    assert rpc(server, "prompts/get", {"name": "custom"})["error"] == {"code": -32050, "message": "custom"}


def test_non_tool_exception_is_an_internal_error_with_the_message(server: Server) -> None:
    @server.resource("test://broken")
    def broken() -> str:
        raise RuntimeError("disk on fire")

    err = rpc(server, "resources/read", {"uri": "test://broken"})["error"]
    assert err == {"code": -32603, "message": "disk on fire"}


def test_a_return_value_that_is_not_json_is_an_invalid_result(server: Server) -> None:
    # A server bug, not a tool execution error: -32603 with the core's message, as on every
    # surface (tests/faults compares them).
    @server.tool()
    def weird() -> object:
        return object()

    err = rpc(server, "tools/call", {"name": "weird", "arguments": {}})["error"]
    assert err == {"code": -32603, "message": "the handler's result is not valid: a value of type object cannot be sent as JSON"}


def test_sync_function_returning_a_coroutine_is_reported(server: Server) -> None:
    async def inner() -> str:
        return "x"

    server.add_tool(lambda: inner(), name="sneaky")
    result = call_tool(server, "sneaky")
    assert result["isError"] is True
    assert "async def" in text_of(result)


def test_unknown_tool_is_a_protocol_error(server: Server) -> None:
    server.add_tool(lambda: "", name="known")
    assert rpc(server, "tools/call", {"name": "nope"})["error"]["code"] == -32602


def test_invalid_input_schema_is_a_config_error(server: Server) -> None:
    with pytest.raises(ConfigError):
        server.add_tool(lambda: "", name="bad", input_schema={"type": "object", "properties": {"a": {"type": 5}}})


def test_resource_subscriptions_on_stateless_server_serve_2026_listen_streams() -> None:
    # No longer a ConfigError: 2026-07-28 clients subscribe through listen streams in either
    # mode; handshake-era clients of a stateless server are not offered subscriptions.
    with Server("s", stateless=True) as s:
        s.add_resource(lambda: "r", "test://r")
        s.enable_resource_subscriptions()
        assert modern_ok(s, "server/discover")["capabilities"]["resources"] == {"subscribe": True}
        init = rpc(s, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})
        assert "subscribe" not in init["result"]["capabilities"]["resources"]


def test_server_to_client_request_without_channel_raises_peer_error(server: Server) -> None:
    @server.tool()
    async def ask(ctx: Context) -> str:
        try:
            await ctx.list_roots()
        except Exception as e:  # noqa: BLE001 (the test inspects the class)
            return type(e).__name__
        return "no error"

    # In-process: the client declared nothing, so the capability check fails first.
    assert text_of(call_tool(server, "ask")) in {"MissingCapabilityError", "NoChannelError"}

    @server.tool()
    async def raw(ctx: Context) -> str:
        try:
            await ctx.send_request("ping")
        except NoChannelError as e:
            return f"NoChannelError: {e}"
        return "no error"

    assert text_of(call_tool(server, "raw")).startswith("NoChannelError")


def test_stateless_server_refuses_server_to_client_requests() -> None:
    with Server("s", stateless=True) as s:

        @s.tool()
        async def ask(ctx: Context) -> str:
            try:
                await ctx.send_request("ping")
            except StatelessError:
                return "stateless"
            return "no error"

        assert text_of(call_tool(s, "ask")) == "stateless"


def test_closed_server_raises_server_closed_error() -> None:
    s = Server("s")
    s.close()
    s.close()  # idempotent
    with pytest.raises(ServerClosedError):
        s.handle_raw('{"jsonrpc":"2.0","id":1,"method":"ping"}')


def test_malformed_input_is_a_jsonrpc_error_not_a_crash(server: Server) -> None:
    import json

    assert json.loads(server.handle_raw("{not json"))["error"]["code"] == -32700
