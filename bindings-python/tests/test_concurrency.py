"""Handlers run concurrently: async handlers overlap on the event loop, a slow sync handler
occupies one worker thread only, cancellation reaches the handler, and many concurrent calls
from many threads never deadlock on the GIL."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, List

from ferrite_mcp import Context, Server

from conftest import call_tool, text_of


def test_two_slow_async_handlers_overlap(server: Server) -> None:
    @server.tool()
    async def slow(tag: str) -> str:
        await asyncio.sleep(0.5)
        return tag

    start = time.monotonic()
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda t: text_of(call_tool(server, "slow", {"tag": t})), ["a", "b"]))
    elapsed = time.monotonic() - start
    assert results == ["a", "b"]
    assert elapsed < 0.9, f"two 0.5 s handlers took {elapsed:.2f} s: they did not overlap"


def test_slow_sync_handler_does_not_block_others(server: Server) -> None:
    @server.tool()
    def blocking() -> str:
        time.sleep(1.0)
        return "slow done"

    @server.tool()
    def fast() -> str:
        return "fast"

    @server.tool()
    async def fast_async() -> str:
        return "fast async"

    with ThreadPoolExecutor(1) as pool:
        slow = pool.submit(call_tool, server, "blocking")
        time.sleep(0.1)  # the slow call is running
        start = time.monotonic()
        assert text_of(call_tool(server, "fast")) == "fast"
        assert text_of(call_tool(server, "fast_async")) == "fast async"
        elapsed = time.monotonic() - start
        assert not slow.done()
        assert text_of(slow.result()) == "slow done"
    assert elapsed < 0.5, f"fast calls took {elapsed:.2f} s behind a slow sync handler"


def test_no_gil_deadlock_under_concurrent_calls(server: Server) -> None:
    lock = threading.Lock()
    counter = {"n": 0}

    @server.tool()
    def sync_add(a: int, b: int, ctx: Context) -> int:
        ctx.info("sync")
        with lock:
            counter["n"] += 1
        return a + b

    @server.tool()
    async def async_add(a: int, b: int, ctx: Context) -> int:
        ctx.info("async")
        await asyncio.sleep(0)
        return a + b

    def work(i: int) -> List[str]:
        name = "sync_add" if i % 2 else "async_add"
        return [text_of(call_tool(server, name, {"a": i, "b": j})) for j in range(25)]

    done = threading.Event()
    results: List[Any] = []

    def run() -> None:
        with ThreadPoolExecutor(16) as pool:
            results.extend(pool.map(work, range(32)))
        done.set()

    threading.Thread(target=run, daemon=True).start()
    assert done.wait(60), "concurrent calls did not finish: deadlock"
    assert [r[3] for r in results] == [str(i + 3) for i in range(32)]
    assert counter["n"] == 16 * 25


def test_async_handlers_run_concurrently_over_stdio(stdio: Any) -> None:
    c = stdio(
        """
        import asyncio
        from ferrite_mcp import Server
        server = Server("s")
        @server.tool()
        async def nap(ms: int) -> str:
            await asyncio.sleep(ms / 1000)
            return str(ms)
        server.run()
        """
    )
    start = time.monotonic()
    ids = [c.start("tools/call", {"name": "nap", "arguments": {"ms": 400}}) for _ in range(10)]
    assert [c.wait(i)["result"]["content"][0]["text"] for i in ids] == ["400"] * 10
    assert time.monotonic() - start < 2.0


def test_cancellation_is_observed_by_the_handler(stdio: Any) -> None:
    c = stdio(
        """
        import asyncio, time
        from ferrite_mcp import Server, Context
        server = Server("s")
        observed = []
        @server.tool()
        async def wait_async(ctx: Context) -> str:
            for _ in range(500):
                if ctx.is_cancelled():
                    observed.append("async")
                    return "cancelled"
                await asyncio.sleep(0.01)
            return "not cancelled"
        @server.tool()
        def wait_sync(ctx: Context) -> str:
            for _ in range(500):
                if ctx.is_cancelled():
                    observed.append("sync")
                    return "cancelled"
                time.sleep(0.01)
            return "not cancelled"
        @server.tool()
        def seen() -> str:
            return ",".join(sorted(observed))
        server.run()
        """
    )
    ids = [c.start("tools/call", {"name": n}) for n in ("wait_async", "wait_sync")]
    time.sleep(0.3)
    for rid in ids:
        c.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid, "reason": "test"}})
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        seen = c.request("tools/call", {"name": "seen"})["result"]["content"][0]["text"]
        if seen == "async,sync":
            break
        time.sleep(0.05)
    assert seen == "async,sync"
    # The cancelled requests get no response (the core suppresses it).
    time.sleep(0.2)
    assert all(rid not in c.pending for rid in ids)
