"""Middleware (issue 16): order, changing the request, answering without the handler (result or
error), reading and changing the answer, typed hooks picked inside one call, in both eras."""

from __future__ import annotations

import asyncio
from typing import Any, Dict, List

import pytest

from ferrite_mcp import Client, McpError, Middleware, MiddlewareContext, Server

from conftest import modern, modern_ok


def add_server(calls: List[int]) -> Server:
    s = Server("mw", "1.0.0")

    @s.tool()
    def add(a: int, b: int) -> int:
        calls.append(1)
        return a + b

    @s.tool()
    def hidden() -> str:
        return "secret"

    return s


def text(result: Dict[str, Any]) -> str:
    return result["content"][0]["text"]


def test_middleware_runs_in_the_order_added_around_the_handler_in_both_eras() -> None:
    calls: List[int] = []
    s = add_server(calls)
    log: List[str] = []
    for name in ("a", "b"):

        def make(name: str) -> Any:
            async def mw(ctx: MiddlewareContext, call_next: Any) -> Dict[str, Any]:
                log.append(f"{name}> {ctx.method} {ctx.name}")
                result = await call_next(ctx)
                log.append(f"<{name}")
                return result

            return mw

        s.add_middleware(make(name))

    async def go() -> None:
        async with Client(s) as c:
            assert (await c.call_tool("add", {"a": 1, "b": 2})).text == "3"

    asyncio.run(go())
    assert log == ["a> tools/call add", "b> tools/call add", "<b", "<a"]
    log.clear()
    assert text(modern_ok(s, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 2}})) == "4"
    assert log == ["a> tools/call add", "b> tools/call add", "<b", "<a"]
    assert len(calls) == 2
    s.close()


def test_middleware_can_change_the_request_and_the_answer() -> None:
    s = add_server([])

    @s.middleware
    async def forty(ctx: MiddlewareContext, call_next: Any) -> Dict[str, Any]:
        if ctx.name == "add":
            ctx.params["arguments"]["a"] = 40
        result = await call_next(ctx)
        if ctx.name == "add":
            result["content"][0]["text"] += "!"
        return result

    assert text(modern_ok(s, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})) == "42!"
    s.close()


def test_middleware_can_answer_without_the_handler_with_a_result_or_an_error() -> None:
    calls: List[int] = []
    s = add_server(calls)

    @s.middleware
    async def gate(ctx: MiddlewareContext, call_next: Any) -> Dict[str, Any]:
        if ctx.name == "add" and ctx.params["arguments"].get("a") == 13:
            raise McpError(-32001, "thirteen is refused here", {"why": "superstition"})
        if ctx.name == "add" and ctx.params["arguments"].get("a") == 7:
            return {"content": [{"type": "text", "text": "seven, from the middleware"}], "isError": False}
        return await call_next(ctx)

    err = modern(s, "tools/call", {"name": "add", "arguments": {"a": 13, "b": 1}})["error"]
    assert err == {"code": -32001, "message": "thirteen is refused here", "data": {"why": "superstition"}}
    assert text(modern_ok(s, "tools/call", {"name": "add", "arguments": {"a": 7, "b": 1}})) == "seven, from the middleware"
    assert calls == []
    assert text(modern_ok(s, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}})) == "2"
    assert calls == [1]
    s.close()


def test_an_error_from_the_chain_reaches_the_middleware_as_mcp_error() -> None:
    s = add_server([])
    seen: List[int] = []

    @s.middleware
    async def observe(ctx: MiddlewareContext, call_next: Any) -> Dict[str, Any]:
        try:
            return await call_next(ctx)
        except McpError as e:
            seen.append(e.code)
            raise

    err = modern(s, "tools/call", {"name": "nope", "arguments": {}})["error"]
    assert err["code"] == -32602 and seen == [-32602]
    s.close()


class Hooks(Middleware):
    def __init__(self) -> None:
        self.log: List[str] = []

    async def on_message(self, context: MiddlewareContext, call_next: Any) -> Dict[str, Any]:
        self.log.append("message")
        return await call_next(context)

    async def on_request(self, context: MiddlewareContext, call_next: Any) -> Dict[str, Any]:
        self.log.append("request")
        return await call_next(context)

    async def on_call_tool(self, context: MiddlewareContext, call_next: Any) -> Dict[str, Any]:
        self.log.append("call_tool")
        return await call_next(context)

    async def on_list_tools(self, context: MiddlewareContext, call_next: Any) -> Dict[str, Any]:
        self.log.append("list_tools")
        result = await call_next(context)
        result["tools"] = [t for t in result["tools"] if t["name"] != "hidden"]
        return result


def test_typed_hooks_run_inside_one_call_outermost_first_and_can_filter_lists() -> None:
    s = add_server([])
    hooks = Hooks()
    s.add_middleware(hooks)
    assert [t["name"] for t in modern_ok(s, "tools/list")["tools"]] == ["add"]
    assert hooks.log == ["message", "request", "list_tools"]
    hooks.log.clear()
    modern_ok(s, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}})
    assert hooks.log == ["message", "request", "call_tool"]
    hooks.log.clear()
    # A method without a typed hook (here one no route answers) gets the two general hooks.
    assert modern(s, "x/unknown")["error"]["code"] == -32601
    assert hooks.log == ["message", "request"]
    s.close()


def test_the_context_carries_the_method_the_hook_and_the_request_context() -> None:
    s = add_server([])
    seen: List[Any] = []

    @s.middleware
    async def look(ctx: MiddlewareContext, call_next: Any) -> Dict[str, Any]:
        seen.append((ctx.method, ctx.hook, ctx.context.protocol_version, ctx.message is ctx.params))
        return await call_next(ctx)

    modern_ok(s, "tools/list")
    assert modern(s, "resources/templates/list")["error"]["code"] == -32601  # no resources here
    assert seen == [
        ("tools/list", "list_tools", "2026-07-28", True),
        ("resources/templates/list", "list_resource_templates", "2026-07-28", True),
    ]
    s.close()


def test_a_middleware_that_breaks_is_minus_32603_and_the_server_keeps_serving() -> None:
    s = add_server([])

    @s.middleware
    async def broken(ctx: MiddlewareContext, call_next: Any) -> Any:
        if ctx.name == "add" and ctx.params["arguments"].get("a") == 0:
            raise RuntimeError("middleware went wrong")
        if ctx.name == "add" and ctx.params["arguments"].get("a") == 1:
            return None
        if ctx.name == "add" and ctx.params["arguments"].get("a") == 2:
            await call_next(ctx)
            return await call_next(ctx)
        return await call_next(ctx)

    assert modern(s, "tools/call", {"name": "add", "arguments": {"a": 0, "b": 0}})["error"] == {
        "code": -32603,
        "message": "middleware went wrong",
    }
    none = modern(s, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 0}})["error"]
    assert none["code"] == -32603
    assert none["message"] == (
        "the handler's result is not valid: a middleware returned NoneType, not the result dict "
        "(return what call_next returned)"
    )
    twice = modern(s, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 0}})["error"]
    assert twice == {"code": -32603, "message": "a middleware called next twice"}
    assert text(modern_ok(s, "tools/call", {"name": "add", "arguments": {"a": 3, "b": 4}})) == "7"
    s.close()


def test_a_call_next_kept_past_the_middlewares_answer_is_refused_and_runs_nothing() -> None:
    calls: List[int] = []
    s = add_server(calls)
    kept: List[Any] = []

    @s.middleware
    async def keeps(ctx: MiddlewareContext, call_next: Any) -> Any:
        if ctx.name == "add" and ctx.params["arguments"].get("a") == 9:
            kept.append((ctx, call_next))
            return {"content": [{"type": "text", "text": "answered early"}]}
        return await call_next(ctx)

    assert text(modern_ok(s, "tools/call", {"name": "add", "arguments": {"a": 9, "b": 0}})) == "answered early"
    ctx, call_next = kept[0]

    async def late() -> None:
        with pytest.raises(McpError) as e:
            await call_next(ctx)
        assert e.value.code == -32603
        assert e.value.message == "a middleware called next after it answered"

    asyncio.run(late())
    assert calls == [], "the tool never ran"
    assert text(modern_ok(s, "tools/call", {"name": "add", "arguments": {"a": 3, "b": 4}})) == "7"
    s.close()


def test_the_method_is_read_only() -> None:
    s = add_server([])

    @s.middleware
    async def reroutes(ctx: MiddlewareContext, call_next: Any) -> Any:
        if ctx.name == "hidden":
            ctx.method = "tools/list"  # type: ignore[misc]
        return await call_next(ctx)

    refused = modern(s, "tools/call", {"name": "hidden", "arguments": {}})["error"]
    assert refused["code"] == -32603 and "method" in refused["message"], refused
    assert text(modern_ok(s, "tools/call", {"name": "add", "arguments": {"a": 3, "b": 4}})) == "7"
    s.close()


def test_a_def_middleware_is_refused_at_registration() -> None:
    s = Server("mw", "1.0.0")

    def sync(ctx: Any, call_next: Any) -> Any:
        return None

    with pytest.raises(TypeError, match="is not an async middleware"):
        s.add_middleware(sync)
    s.close()


def test_builtin_middleware_runs_in_the_core_configured_by_keyword() -> None:
    from ferrite_mcp import ConfigError

    s = add_server([])
    s.add_builtin_middleware("rate_limit", per_second=0.01, burst=2, methods=["tools/call"])
    for _ in range(2):
        assert text(modern_ok(s, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})) == "3"
    over = modern(s, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})["error"]
    assert over["code"] == -32000
    assert over["data"]["limit"] == "rate" and over["data"]["retryAfterMs"] > 90_000
    assert "tools" in modern_ok(s, "tools/list")  # a method the limit does not name
    with pytest.raises(ConfigError, match='middleware "rate_limit": perSecond must be a positive number'):
        s.add_builtin_middleware("rate_limit", per_second=0)
    with pytest.raises(ConfigError, match='no such built-in middleware "nope"'):
        s.add_builtin_middleware("nope")
    s.close()


def test_builtin_error_masking_and_python_middleware_compose() -> None:
    s = add_server([])
    s.add_builtin_middleware("error_masking", message="Something went wrong")

    @s.middleware
    async def broken(ctx: MiddlewareContext, call_next: Any) -> Dict[str, Any]:
        if ctx.name == "add" and ctx.params["arguments"].get("a") == 0:
            raise RuntimeError("secret detail")
        return await call_next(ctx)

    assert modern(s, "tools/call", {"name": "add", "arguments": {"a": 0, "b": 0}})["error"] == {
        "code": -32603,
        "message": "Something went wrong",
    }
    assert text(modern_ok(s, "tools/call", {"name": "add", "arguments": {"a": 5, "b": 0}})) == "5"
    s.close()


class Notes(Middleware):
    """Logs the notifications it sees under ``name``, drops the methods in ``drop``, stamps the
    params of the others with its name."""

    def __init__(self, name: str, log: List[str], drop: Any = ()) -> None:
        self.name, self.log, self.drop = name, log, set(drop)

    async def on_notification(self, context: MiddlewareContext, call_next: Any) -> Any:
        self.log.append(f"{self.name}> {context.method} {context.hook} {context.context}")
        if context.method in self.drop:
            return None
        if context.params is not None:
            context.params["stamped"] = self.name
        await call_next(context)
        self.log.append(f"<{self.name}")
        return None


def _eventually(check: Any) -> None:
    import time

    for _ in range(100):
        if check():
            return
        time.sleep(0.02)
    assert check()


def test_notifications_pass_through_the_hooks_in_order_and_can_be_changed_or_dropped() -> None:
    import json

    calls: List[int] = []
    s = add_server(calls)
    log: List[str] = []
    s.add_middleware(Notes("a", log))
    s.add_middleware(Notes("b", log, drop={"notifications/roots/list_changed"}))
    plain: List[str] = []

    async def requests_only(ctx: MiddlewareContext, call_next: Any) -> Dict[str, Any]:
        plain.append(ctx.method)
        return await call_next(ctx)

    s.add_middleware(requests_only)
    seen: List[Any] = []

    @s.on_notification()
    def observe(method: str, params: Any) -> None:
        seen.append((method, params))

    conn = s.connect()
    try:
        progress = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "t", "progress": 1}}
        assert s.handle_raw_on(json.dumps(progress), conn) is None
        assert log == [
            "a> notifications/progress notification None",
            "b> notifications/progress notification None",
            "<b",
            "<a",
        ]
        # What the server acted on is what the innermost hook left: stamped by a, then by b.
        _eventually(lambda: seen == [("notifications/progress", {"progressToken": "t", "progress": 1, "stamped": "b"})])
        log.clear()
        roots = {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}
        assert s.handle_raw_on(json.dumps(roots), conn) is None
        # b dropped it: a saw it, the server did not.
        assert log == [
            "a> notifications/roots/list_changed notification None",
            "b> notifications/roots/list_changed notification None",
            "<a",
        ]
        import time

        time.sleep(0.1)
        assert len(seen) == 1
        # A plain function middleware sees requests only; requests pass the hooks by.
        assert text(modern_ok(s, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})) == "3"
        assert plain == ["tools/call"] and calls == [1]
    finally:
        conn.close()
        s.close()


def test_on_message_sees_requests_and_notifications_and_a_failing_hook_drops_only_its_notification() -> None:
    import json

    s = add_server([])
    log: List[str] = []

    class Everything(Middleware):
        async def on_message(self, context: MiddlewareContext, call_next: Any) -> Any:
            log.append(f"message {context.method}")
            return await call_next(context)

        async def on_notification(self, context: MiddlewareContext, call_next: Any) -> Any:
            if context.method == "notifications/progress":
                raise RuntimeError("this hook fails")
            return await call_next(context)

    s.add_middleware(Everything())
    seen: List[str] = []

    @s.on_notification()
    def observe(method: str, params: Any) -> None:
        seen.append(method)

    conn = s.connect()
    try:
        for method in ("notifications/progress", "notifications/roots/list_changed"):
            assert s.handle_raw_on(json.dumps({"jsonrpc": "2.0", "method": method, "params": {}}), conn) is None
        assert text(modern_ok(s, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 2}})) == "4"
        assert log == ["message notifications/progress", "message notifications/roots/list_changed", "message tools/call"]
        _eventually(lambda: seen == ["notifications/roots/list_changed"])
    finally:
        conn.close()
        s.close()
