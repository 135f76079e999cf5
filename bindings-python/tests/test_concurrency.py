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
    # Each handler announces itself and then waits for the other: both can finish only when
    # both are in flight at once. (The timeout only keeps a serialising binding from hanging.)
    arrived = {"a": asyncio.Event(), "b": asyncio.Event()}

    @server.tool()
    async def meet(tag: str) -> str:
        other = "b" if tag == "a" else "a"
        arrived[tag].set()
        try:
            await asyncio.wait_for(arrived[other].wait(), timeout=30)
        except asyncio.TimeoutError:
            return f"{tag} alone"
        return f"{tag} met {other}"

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda t: text_of(call_tool(server, "meet", {"tag": t})), ["a", "b"]))
    assert results == ["a met b", "b met a"]


def test_slow_sync_handler_does_not_block_others(server: Server) -> None:
    started = threading.Event()
    release = threading.Event()

    @server.tool()
    def blocking() -> str:
        started.set()
        # Held until the test has had its fast answers (bounded, so a failure cannot hang).
        return "slow done" if release.wait(30) else "never released"

    @server.tool()
    def fast() -> str:
        return "fast"

    @server.tool()
    async def fast_async() -> str:
        return "fast async"

    with ThreadPoolExecutor(1) as pool:
        slow = pool.submit(call_tool, server, "blocking")
        try:
            assert started.wait(30), "the slow handler never started"
            # Both answer while the slow handler is provably still blocked: it is released
            # only after them.
            assert text_of(call_tool(server, "fast")) == "fast"
            assert text_of(call_tool(server, "fast_async")) == "fast async"
            assert not slow.done()
        finally:
            release.set()
        assert text_of(slow.result(timeout=30)) == "slow done"


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
    # Ten handlers each wait until all ten are in flight: every one answers "together" only if
    # the stdio loop runs them at once. (The timeout only keeps a serialising server from
    # hanging.)
    c = stdio(
        """
        import asyncio
        from ferrite_mcp import Server
        server = Server("s")
        arrived = []
        everyone = asyncio.Event()
        @server.tool()
        async def gather(n: int) -> str:
            arrived.append(n)
            if len(arrived) == 10:
                everyone.set()
            try:
                await asyncio.wait_for(everyone.wait(), timeout=30)
            except asyncio.TimeoutError:
                return f"alone with {len(arrived)}"
            return "together"
        server.run()
        """
    )
    ids = [c.start("tools/call", {"name": "gather", "arguments": {"n": n}}) for n in range(10)]
    assert [c.wait(i, timeout=60)["result"]["content"][0]["text"] for i in ids] == ["together"] * 10


def test_cancellation_is_observed_by_the_handler(stdio: Any) -> None:
    c = stdio(
        """
        import asyncio, time
        from ferrite_mcp import Server, Context
        server = Server("s")
        started = []
        observed = []
        @server.tool()
        async def wait_async(ctx: Context) -> str:
            started.append("async")
            for _ in range(3000):  # bounded (30 s), so a lost cancellation cannot hang
                if ctx.is_cancelled():
                    observed.append("async")
                    return "cancelled"
                await asyncio.sleep(0.01)
            return "not cancelled"
        @server.tool()
        def wait_sync(ctx: Context) -> str:
            started.append("sync")
            for _ in range(3000):
                if ctx.is_cancelled():
                    observed.append("sync")
                    return "cancelled"
                time.sleep(0.01)
            return "not cancelled"
        @server.tool()
        async def seen(which: str) -> str:
            return ",".join(sorted(started if which == "started" else observed))
        server.run()
        """
    )

    def poll(which: str, want: str) -> str:
        got = ""
        for _ in range(600):  # bounded poll; each round is a full request/response
            got = c.request("tools/call", {"name": "seen", "arguments": {"which": which}})["result"]["content"][0]["text"]
            if got == want:
                break
            time.sleep(0.05)
        return got

    ids = [c.start("tools/call", {"name": n}) for n in ("wait_async", "wait_sync")]
    # Cancel only once both handlers run (a cancellation for a request not yet begun is a
    # different case).
    assert poll("started", "async,sync") == "async,sync"
    for rid in ids:
        c.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid, "reason": "test"}})
    # Both handlers saw the cancellation and returned.
    assert poll("observed", "async,sync") == "async,sync"
    # Drain: a follow-up request sent after both handlers returned; stdout is one ordered
    # stream, so once its answer is read, anything written for the cancelled ids was read too.
    assert c.request("ping")["result"] == {}
    assert [r for r in c.responses if r.get("id") in ids] == [], "a cancelled request was answered"
