"""The Python everything server's task fixtures (``examples/SURFACE.md``, "Task fixtures"; the
conformance suite's ``tasks-*`` scenarios, and 2025-11-25 tasks): ordinary handlers whose tools
declare a task support; the core decides per call whether they run inline or as tasks.

=====================  ============  =====================================================
tool                   task support  does
=====================  ============  =====================================================
``greet``              forbidden     answers "Hello, {name}!" at once
``slow_compute``       optional      sleeps ``seconds``, then answers; ends early when
                                     cancelled
``failing_job``        required      a tool error (``isError``) after a second
``protocol_error_job`` required      a JSON-RPC error (-32603) after 300 ms
``confirm_delete``     required      asks to confirm (``ctx.elicit``, in the task), then
                                     answers
``multi_input``        required      asks two questions at once (in the task), then answers
``test_tool_with_task`` required     asks for a name before the task exists (MRTR), then
                                     greets
=====================  ============  =====================================================
"""

from __future__ import annotations

import asyncio
from typing import Any, Dict, Union

from ferrite_mcp import Context, ElicitResult, InputRequest, InputRequired, InternalError, Server, ToolError, ToolResult, error

NO_ARGS: Dict[str, Any] = {"type": "object", "additionalProperties": False}

CONFIRM_FORM = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}
QUESTION_FORM = {"type": "object", "properties": {"name": {"type": "string"}, "confirm": {"type": "boolean"}}}
NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


async def pause(ctx: Context, seconds: float) -> None:
    """Sleep, unless the call (or its task) is cancelled first: then fail (a cancelled task's
    outcome is dropped by the core; an inline call the client cancelled gets no answer)."""
    cancel = asyncio.ensure_future(ctx.cancelled())
    try:
        done, _ = await asyncio.wait({cancel}, timeout=seconds)
    finally:
        cancel.cancel()
    if done:
        raise ToolError("cancelled")


def register(server: Server) -> None:
    @server.tool(
        structured_output=False,
        input_schema={"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
        task_support="forbidden",
    )
    def greet(name: str) -> str:
        """Greets someone at once (never a task)"""
        return f"Hello, {name}!"

    @server.tool(
        structured_output=False,
        input_schema={
            "type": "object",
            "properties": {"seconds": {"type": "number", "minimum": 0}, "label": {"type": "string"}},
        },
        task_support="optional",
    )
    async def slow_compute(ctx: Context, seconds: Union[int, float] = 1, label: str = "slow_compute") -> str:
        """Works for `seconds` seconds, then answers (a task when the client can take one)"""
        await pause(ctx, min(seconds, 3600))
        return f"{label}: computed for {seconds} s"

    @server.tool(structured_output=False, input_schema=NO_ARGS, task_support="required")
    async def failing_job(ctx: Context) -> ToolResult:
        """Fails as a tool (isError) after a second; only as a task"""
        await pause(ctx, 1)
        return error("failing_job failed, as it always does")

    @server.tool(structured_output=False, input_schema=NO_ARGS, task_support="required")
    async def protocol_error_job(ctx: Context) -> str:
        """Fails with a JSON-RPC error after 300 ms; only as a task"""
        await pause(ctx, 0.3)
        raise InternalError("protocol_error_job failed with a protocol error")

    @server.tool(
        structured_output=False,
        input_schema={"type": "object", "properties": {"filename": {"type": "string"}}, "required": ["filename"]},
        task_support="required",
    )
    async def confirm_delete(filename: str, ctx: Context) -> str:
        """Asks the user to confirm deleting a file; only as a task"""
        # Asked in the task (not as an MRTR reply): the call becomes a task at once and waits
        # in input_required until the client answers.
        answer = await ctx.elicit(f"Delete {filename}?", CONFIRM_FORM)
        return f"Deleted {filename}" if answer.action == "accept" else f"Kept {filename}"

    @server.tool(structured_output=False, input_schema=NO_ARGS, task_support="required")
    async def multi_input(ctx: Context) -> str:
        """Asks two questions at once; only as a task"""
        first, second = await asyncio.gather(
            ctx.elicit("First question", QUESTION_FORM), ctx.elicit("Second question", QUESTION_FORM)
        )
        return f"first accepted: {str(first.action == 'accept').lower()}, second accepted: {str(second.action == 'accept').lower()}"

    @server.tool(structured_output=False, input_schema=NO_ARGS, task_support="required")
    async def test_tool_with_task(ctx: Context) -> Union[str, InputRequired]:
        """Asks for a name (before the task exists), then greets as a task"""
        answer = ctx.input_response_as("user_name", ElicitResult)
        if answer is None:
            return InputRequired().ask("user_name", InputRequest.elicit("What is your name?", NAME_FORM))
        name = (answer.content or {}).get("name") or "stranger"
        await pause(ctx, 0.2)
        return f"Hello, {name}!"
