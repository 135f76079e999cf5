"""The fixed set of requests compare.py sends every everything server, in order.

Each is an `Op`: a label that names it in a failure, the JSON-RPC method whose answer is
compared, and how the official SDK client sends it. The lists come first (everything a client
sees before calling), then calls whose answers pin the handlers: normal and overflowing
integers, echo, every content type, errors the handler reports and errors the core reports
(unknown names, arguments the schema refuses), prompts, resources and completion.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import mcp.types as types
from mcp import ClientSession

HANDSHAKE = "handshake"
MODERN = "2026-07-28"
ERAS = (HANDSHAKE, MODERN)

I64_MAX = 2**63 - 1
I64_MIN = -(2**63)


@dataclass(frozen=True)
class Op:
    label: str
    method: str
    run: Callable[[ClientSession], Awaitable[Any]]


async def discover(session: ClientSession) -> None:
    session.adopt(types.DiscoverResult.model_validate(await session.send_discover(MODERN)))


async def ignore_progress(_progress: float, _total: float | None, _message: str | None) -> None:
    pass


def call(label: str, name: str, arguments: dict[str, Any] | None = None, progress: bool = False) -> Op:
    async def run(s: ClientSession) -> Any:
        return await s.call_tool(name, arguments, progress_callback=ignore_progress if progress else None)

    return Op(f"tools/call {label}", "tools/call", run)


def prompt(label: str, name: str, arguments: dict[str, str] | None = None) -> Op:
    return Op(f"prompts/get {label}", "prompts/get", lambda s: s.get_prompt(name, arguments))


def read(uri: str) -> Op:
    return Op(f"resources/read {uri}", "resources/read", lambda s: s.read_resource(uri))


def complete(label: str, prompt_name: str, argument: str, value: str) -> Op:
    ref = types.PromptReference(type="ref/prompt", name=prompt_name)
    return Op(
        f"completion/complete {label}",
        "completion/complete",
        lambda s: s.complete(ref, {"name": argument, "value": value}),
    )


def ops_for(era: str) -> list[Op]:
    if era == HANDSHAKE:
        ops = [Op("initialize", "initialize", lambda s: s.initialize())]
    else:
        ops = [Op("server/discover", "server/discover", discover)]
    ops += [
        Op("tools/list", "tools/list", lambda s: s.list_tools()),
        Op("resources/list", "resources/list", lambda s: s.list_resources()),
        Op("resources/templates/list", "resources/templates/list", lambda s: s.list_resource_templates()),
        Op("prompts/list", "prompts/list", lambda s: s.list_prompts()),
        call("test_simple_text (no arguments)", "test_simple_text"),
        call("add(2, 3)", "add", {"a": 2, "b": 3}),
        call("add(-4, 10)", "add", {"a": -4, "b": 10}),
        call("add(i64 max, 1) (overflow)", "add", {"a": I64_MAX, "b": 1}),
        call("add(i64 min, -1) (overflow)", "add", {"a": I64_MIN, "b": -1}),
        call("add(i64 max, 0)", "add", {"a": I64_MAX, "b": 0}),
        call("add(2**64, 0) (beyond i64)", "add", {"a": 2**64, "b": 0}),
        call("add(1.5, 2) (not an integer)", "add", {"a": 1.5, "b": 2}),
        call("add(a only) (b missing)", "add", {"a": 1}),
        call("echo(text)", "echo", {"text": "héllo, wörld ✓ \"quoted\"\n"}),
        call("echo(no text)", "echo", {}),
        call("test_image_content", "test_image_content"),
        call("test_audio_content", "test_audio_content"),
        call("test_embedded_resource", "test_embedded_resource"),
        call("test_multiple_content_types", "test_multiple_content_types"),
        call("test_error_handling", "test_error_handling"),
        call("test_tool_with_logging", "test_tool_with_logging"),
        call("test_tool_with_progress", "test_tool_with_progress", progress=True),
        call("test_sampling", "test_sampling", {"prompt": "What is the capital of France?"}),
        call("test_elicitation", "test_elicitation", {"message": "Who are you?"}),
        call("test_elicitation_sep1034_defaults", "test_elicitation_sep1034_defaults"),
        call("test_elicitation_sep1330_enums", "test_elicitation_sep1330_enums"),
        call(
            "json_schema_2020_12_tool (valid)",
            "json_schema_2020_12_tool",
            {"name": "Ada", "contactMethod": "email", "email": "ada@example.com", "address": {"city": "London"}},
        ),
        call(
            "json_schema_2020_12_tool (phone without phone)",
            "json_schema_2020_12_tool",
            {"contactMethod": "phone", "email": "a@b"},
        ),
        call("json_schema_2020_12_tool (extra property)", "json_schema_2020_12_tool", {"email": "a@b", "extra": 1}),
        call("test_reconnection (stdio)", "test_reconnection"),
        call("test_slow(ms=1)", "test_slow", {"ms": 1}),
        call("test_cancellation_count", "test_cancellation_count"),
        call("test_input_required_result_elicitation", "test_input_required_result_elicitation"),
        call("greet (task fixture)", "greet", {"name": "Ada"}),
        call("no_such_tool (unknown)", "no_such_tool", {}),
        prompt("test_simple_prompt", "test_simple_prompt"),
        prompt("test_prompt_with_image", "test_prompt_with_image"),
        prompt("test_prompt_with_arguments", "test_prompt_with_arguments", {"arg1": "a", "arg2": "b"}),
        prompt("test_prompt_with_arguments (arg2 missing)", "test_prompt_with_arguments", {"arg1": "a"}),
        prompt(
            "test_prompt_with_embedded_resource",
            "test_prompt_with_embedded_resource",
            {"resourceUri": "test://static-text"},
        ),
        prompt("test_dynamic_prompt", "test_dynamic_prompt"),
        prompt("test_input_required_result_prompt", "test_input_required_result_prompt"),
        prompt("no_such_prompt (unknown)", "no_such_prompt"),
        read("test://static-text"),
        read("test://static-binary"),
        read("test://watched-resource"),
        read("test://template/42/data"),
        read("test://no-such-resource"),
        complete("arg1 'pa'", "test_prompt_with_arguments", "arg1", "pa"),
        complete("arg1 ''", "test_prompt_with_arguments", "arg1", ""),
        complete("arg2 'x' (no candidates)", "test_prompt_with_arguments", "arg2", "x"),
        complete("test_simple_prompt (no arguments)", "test_simple_prompt", "x", ""),
    ]
    return ops
