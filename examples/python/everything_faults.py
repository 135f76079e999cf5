"""The fault tools (examples/SURFACE.md, "Fault tools"; tests/faults): handlers that fail the
ways a Python handler can, so a test can show the server keeps serving, answers each failure
the same way every time, and leaks nothing (file descriptors, memory, asyncio tasks)."""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from ferrite_mcp import Context, Server

NO_ARGS = {"type": "object", "additionalProperties": False}
CRASH_MESSAGE = "test_fault_crash: the handler crashed"
REJECT_MESSAGE = "test_fault_reject: the handler failed after it returned"


class NotJson:
    """An object the JSON encoder cannot serialize."""


def register(server: Server, count_cancellation: Callable[[], None]) -> None:
    """Registers the four fault tools, listed after test_cancellation_count;
    `count_cancellation` adds one to that tool's counter."""

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    def test_fault_crash() -> str:
        """Fails the worst way the language allows inside the handler"""
        raise RuntimeError(CRASH_MESSAGE)

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    async def test_fault_reject() -> str:
        """Fails asynchronously, after the handler has returned"""
        await asyncio.sleep(0.001)
        raise RuntimeError(REJECT_MESSAGE)

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    def test_fault_bad_result() -> Any:
        """Returns a result that is not a valid tool result"""
        return {"content": [{"type": "text", "text": NotJson()}]}

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    async def test_fault_hang(ctx: Context) -> str:
        """Never returns unless the request is cancelled"""
        while not ctx.is_cancelled():
            await asyncio.sleep(0.01)
        count_cancellation()
        return "cancelled"
