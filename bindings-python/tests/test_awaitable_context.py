"""Context methods awaitable where the official SDK's are (``await ctx.info(...)``, ``await
ctx.report_progress(...)``, ``await ctx.read_resource(uri)``), with the official parameter
names, and still usable without ``await`` from ``def`` handlers: the work is done at call time,
once, and no "never awaited" warning is possible."""

from __future__ import annotations

import asyncio
import inspect
import warnings
from typing import Any, List

import pytest

from ferrite_mcp import Client, Context, McpError, ReadResourceContents, Sent, Server
from ferrite_mcp.client import LogMessage


def test_the_official_parameter_names_and_defaults() -> None:
    def params(name: str) -> List[Any]:
        return [(p.name, p.default, p.kind) for p in inspect.signature(getattr(Context, name)).parameters.values()][1:]

    kw = inspect.Parameter.KEYWORD_ONLY
    pos = inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert params("report_progress") == [("progress", inspect.Parameter.empty, pos), ("total", None, pos), ("message", None, pos)]
    for level in ("debug", "info", "warning", "error"):
        assert params(level) == [("data", inspect.Parameter.empty, pos), ("logger_name", None, kw)]
    assert params("log")[:3] == [("level", inspect.Parameter.empty, pos), ("data", inspect.Parameter.empty, pos), ("logger_name", None, pos)]
    assert params("read_resource") == [("uri", inspect.Parameter.empty, pos)]
    assert params("elicit") == [("message", inspect.Parameter.empty, pos), ("schema", inspect.Parameter.empty, pos)]


def make_server() -> Server:
    s = Server("awaitable")

    @s.resource("data://{name}", mime_type="text/plain")
    def data(name: str) -> str:
        return f"data of {name}"

    @s.resource("blob://one", mime_type="application/octet-stream")
    def blob() -> bytes:
        return b"\x00\x01"

    @s.tool()
    async def awaited(ctx: Context) -> str:
        sent = [
            await ctx.debug("d"),
            await ctx.info("i", logger_name="lg"),
            await ctx.warning("w"),
            await ctx.error("e"),
            await ctx.log("notice", {"k": 1}),
            await ctx.report_progress(1, total=2, message="half"),
        ]
        return repr(sent)

    @s.tool()
    def plain(ctx: Context) -> str:
        sent = [ctx.info("i"), ctx.report_progress(progress=2, total=2)]
        return repr([bool(x) for x in sent])

    @s.tool()
    async def forgot_await(ctx: Context) -> str:
        ctx.info("sent without await")  # the work happens here; nothing is left pending
        return "ok"

    @s.tool()
    async def read_async(ctx: Context) -> str:
        contents = await ctx.read_resource("data://x")
        blob = list(await ctx.read_resource("blob://one"))
        return repr([contents, blob])

    @s.tool()
    def read_sync(ctx: Context) -> str:
        contents = ctx.read_resource("data://y")
        return repr(list(contents))

    @s.tool()
    async def read_missing(ctx: Context) -> str:
        try:
            await ctx.read_resource("nope://x")
        except McpError as e:
            return f"{e.code}"
        return "read"

    return s


def test_awaited_and_plain_calls_send_once_each() -> None:
    s = make_server()
    logs: List[LogMessage] = []
    progress: List[Any] = []

    async def go() -> None:
        async with Client(s, logging_callback=logs.append) as c:
            await c.set_logging_level("info")
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # a "coroutine was never awaited" warning fails the test
                out = await c.call_tool("awaited", {}, progress_callback=lambda p, t, m: progress.append((p, t, m)))
                assert out.text == "[False, True, True, True, True, True]"  # debug is below info
                assert (await c.call_tool("plain", {}, progress_callback=lambda p, t, m: progress.append((p, t, m)))).text == "[True, True]"
                assert (await c.call_tool("forgot_await", {})).text == "ok"

    asyncio.run(go())
    assert [(m.level, m.data, m.logger) for m in logs] == [
        ("info", "i", "lg"),
        ("warning", "w", None),
        ("error", "e", None),
        ("notice", {"k": 1}, None),
        ("info", "i", None),
        ("info", "sent without await", None),
    ]
    assert progress == [(1, 2, "half"), (2, 2, None)]
    s.close()


def test_sent_is_truthy_awaitable_and_compares_with_bool() -> None:
    async def go() -> bool:
        return await Sent(True)

    assert asyncio.run(go()) is True
    assert Sent(False) == False  # noqa: E712
    assert bool(Sent(True)) and not Sent(False)


def test_read_resource_goes_through_the_core_awaited_or_not() -> None:
    s = make_server()

    async def go() -> None:
        async with Client(s) as c:
            text = (await c.call_tool("read_async", {})).text
            assert text == repr(
                [
                    [ReadResourceContents("data of x", "text/plain", None, "data://x")],
                    [ReadResourceContents(b"\x00\x01", "application/octet-stream", None, "blob://one")],
                ]
            )
            assert (await c.call_tool("read_sync", {})).text == repr([ReadResourceContents("data of y", "text/plain", None, "data://y")])
            assert (await c.call_tool("read_missing", {})).text == "-32002"

    asyncio.run(go())
    s.close()


def test_report_progress_without_a_token_sends_nothing() -> None:
    s = make_server()

    async def go() -> None:
        async with Client(s) as c:
            assert (await c.call_tool("plain", {})).text == "[True, False]"

    asyncio.run(go())
    s.close()


def test_logging_off_sends_nothing() -> None:
    s = Server("quiet", logging=False)

    @s.tool()
    async def talk(ctx: Context) -> str:
        return repr(bool(await ctx.info("x")))

    logs: List[LogMessage] = []

    async def go() -> None:
        async with Client(s, logging_callback=logs.append) as c:
            assert "logging" not in c.server_capabilities
            assert (await c.call_tool("talk", {})).text == "False"

    asyncio.run(go())
    assert logs == []
    s.close()


@pytest.mark.parametrize("name", ["info", "report_progress"])
def test_the_methods_return_sent_not_a_coroutine(name: str) -> None:
    assert not inspect.iscoroutinefunction(getattr(Context, name))


def test_await_ctx_cancelled_resolves_when_the_client_cancels(server: Server) -> None:
    observed: List[Any] = []

    async def go() -> None:
        started, done = asyncio.Event(), asyncio.Event()

        @server.tool()
        async def wait(ctx: Context) -> str:
            started.set()
            await ctx.cancelled()
            observed.append(ctx.is_cancelled())
            done.set()
            return "cancelled"

        @server.tool()
        async def quick(ctx: Context) -> str:
            # Race the work with the cancellation; the losing wait is cancelled and ends.
            work = asyncio.ensure_future(asyncio.sleep(0, "work"))
            cancel = asyncio.ensure_future(ctx.cancelled())
            finished, pending = await asyncio.wait({work, cancel}, return_when=asyncio.FIRST_COMPLETED)
            for p in pending:
                p.cancel()
            return str(work.result()) if work in finished else "cancelled"

        async with Client(server) as c:
            call = asyncio.ensure_future(c.call_tool("wait", {}))
            await started.wait()
            call.cancel()  # the client sends notifications/cancelled
            with pytest.raises(asyncio.CancelledError):
                await call
            await done.wait()
            assert (await c.call_tool("quick", {})).text == "work"

    asyncio.run(go())
    assert observed == [True]


def test_the_official_notify_methods_and_close_sse_stream_are_awaitable(server: Server) -> None:
    @server.tool()
    async def change(ctx: Context) -> str:
        sent = [
            await ctx.notify_tools_changed(),
            await ctx.notify_prompts_changed(),
            await ctx.notify_resources_changed(),
            await ctx.notify_resource_updated("test://nobody-subscribed"),
            await ctx.close_sse_stream(),  # not a stream transport: nothing to close
        ]
        return repr([bool(x) for x in sent])

    messages: List[Any] = []

    async def go() -> None:
        async with Client(server, message_handler=messages.append) as c:
            assert (await c.call_tool("change", {})).text == "[True, True, True, False, False]"

    asyncio.run(go())
    assert [m["method"] for m in messages if isinstance(m, dict)] == [
        "notifications/tools/list_changed",
        "notifications/prompts/list_changed",
        "notifications/resources/list_changed",
    ]
