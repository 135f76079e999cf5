"""The official MCP Python SDK client against every everything server, over stdio.

Each test checks one piece of the surface in examples/SURFACE.md. Every test gets a fresh
server process (see conftest.py), so no test depends on another's state.
"""

from __future__ import annotations

import base64
import json

import anyio
import mcp.types as types
import pytest
from mcp import MCPError

from conftest import ELICITATION_CONTENT, SAMPLING_ANSWER, Connection

pytestmark = pytest.mark.anyio

SURFACE_TOOLS = {
    "add",
    "echo",
    "test_simple_text",
    "test_image_content",
    "test_audio_content",
    "test_embedded_resource",
    "test_multiple_content_types",
    "test_tool_with_logging",
    "test_tool_with_progress",
    "test_error_handling",
    "test_sampling",
    "test_elicitation",
    "test_elicitation_sep1034_defaults",
    "test_elicitation_sep1330_enums",
    "json_schema_2020_12_tool",
    "test_reconnection",
    "test_slow",
    "test_cancellation_count",
}

SURFACE_PROMPTS = {
    "test_simple_prompt": [],
    "test_prompt_with_arguments": ["arg1", "arg2"],
    "test_prompt_with_embedded_resource": ["resourceUri"],
    "test_prompt_with_image": [],
}

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def only_text(result: types.CallToolResult) -> str:
    """The text of a tool result that must consist of exactly one text block."""
    assert len(result.content) == 1, result.content
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


# --- lifecycle ------------------------------------------------------------------------------


async def test_initialize_reports_server_info_and_capabilities(conn: Connection) -> None:
    init = conn.init
    assert init.server_info.name == "ferrite-everything"
    assert init.server_info.version == "0.1.0"
    # The client offers the newest handshake revision; Ferrite speaks it, so it is what comes back.
    assert init.protocol_version == "2025-11-25"
    caps = init.capabilities
    assert caps.tools is not None
    assert caps.resources is not None and caps.resources.subscribe is True
    assert caps.prompts is not None
    assert caps.logging is not None
    assert caps.completions is not None


async def test_ping(conn: Connection) -> None:
    assert isinstance(await conn.session.send_ping(), types.EmptyResult)


# --- tools ----------------------------------------------------------------------------------


async def test_tools_list_has_every_surface_tool_with_description(conn: Connection) -> None:
    tools = {tool.name: tool for tool in (await conn.session.list_tools()).tools}
    assert SURFACE_TOOLS <= tools.keys(), f"missing: {sorted(SURFACE_TOOLS - tools.keys())}"
    for name in SURFACE_TOOLS:
        assert tools[name].description, f"{name} has no description"
        assert tools[name].input_schema.get("type") == "object", f"{name}: {tools[name].input_schema}"


async def test_add_declares_input_and_output_schema(conn: Connection) -> None:
    tools = {tool.name: tool for tool in (await conn.session.list_tools()).tools}
    add = tools["add"]
    assert add.input_schema["properties"]["a"]["type"] == "integer"
    assert add.input_schema["properties"]["b"]["type"] == "integer"
    assert sorted(add.input_schema["required"]) == ["a", "b"]
    # Annotations such as `title` may ride along; the shape is what the surface fixes.
    output = add.output_schema
    assert output is not None, "add declares no outputSchema"
    assert output["type"] == "object"
    assert output["properties"]["sum"]["type"] == "integer"
    assert output["required"] == ["sum"]


async def test_call_add_returns_text_and_structured_content(conn: Connection) -> None:
    result = await conn.session.call_tool("add", {"a": 2, "b": 3})
    assert result.is_error is not True
    assert only_text(result) == "5"
    assert result.structured_content == {"sum": 5}


async def test_call_echo_returns_the_same_text(conn: Connection) -> None:
    text = 'héllo "wörld" ✓ \\ 🚀\nsecond line'
    result = await conn.session.call_tool("echo", {"text": text})
    assert result.is_error is not True
    assert only_text(result) == text


async def test_call_simple_text_without_arguments(conn: Connection) -> None:
    # arguments=None: the request carries no `arguments` field at all.
    result = await conn.session.call_tool("test_simple_text")
    assert result.is_error is not True
    assert only_text(result) == "This is a simple text response for testing."


async def test_error_handling_tool_returns_is_error_result(conn: Connection) -> None:
    result = await conn.session.call_tool("test_error_handling", {})
    assert result.is_error is True
    assert only_text(result) == "This tool intentionally returns an error for testing"


@pytest.mark.parametrize(
    "arguments",
    [
        pytest.param({"a": "two", "b": 3}, id="string-for-integer"),
        pytest.param({"a": 2}, id="missing-required"),
    ],
)
async def test_add_with_invalid_arguments_is_a_tool_error_not_a_protocol_error(
    conn: Connection, arguments: dict[str, object]
) -> None:
    # A protocol error would raise MCPError here; the surface wants a result with isError.
    result = await conn.session.call_tool("add", arguments)
    assert result.is_error is True
    assert result.content, "an isError result should say what was wrong"


async def test_call_unknown_tool_is_invalid_params_error(conn: Connection) -> None:
    with pytest.raises(MCPError) as excinfo:
        await conn.session.call_tool("no_such_tool", {})
    assert excinfo.value.code == types.INVALID_PARAMS


async def test_tool_with_logging_sends_three_info_messages_before_result(conn: Connection) -> None:
    result = await conn.session.call_tool("test_tool_with_logging", {})
    # Read before anything else can run: the messages must have arrived ahead of the result.
    logs = [(log.level, log.data) for log in conn.recorded.logs]
    assert logs == [
        ("info", "Tool execution started"),
        ("info", "Tool processing data"),
        ("info", "Tool execution completed"),
    ]
    assert only_text(result) == "Tool with logging executed successfully"


async def test_tool_with_progress_reports_0_50_100_of_100(conn: Connection) -> None:
    progress: list[tuple[float, float | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total))

    result = await conn.session.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
    seen = list(progress)
    assert seen == [(0, 100), (50, 100), (100, 100)]
    assert only_text(result) == "Tool with progress executed successfully"


async def test_sampling_round_trips_through_client_callback(conn: Connection) -> None:
    prompt = "What is the capital of France?"
    result = await conn.session.call_tool("test_sampling", {"prompt": prompt})
    assert only_text(result) == f"LLM response: {SAMPLING_ANSWER}"

    [request] = conn.recorded.sampling
    assert request.max_tokens == 100
    [message] = request.messages
    assert message.role == "user"
    assert isinstance(message.content, types.TextContent)
    assert message.content.text == prompt


async def test_elicitation_round_trips_through_client_callback(conn: Connection) -> None:
    message = "Please tell us who you are"
    result = await conn.session.call_tool("test_elicitation", {"message": message})
    text = only_text(result)
    prefix = "User response: accept "
    assert text.startswith(prefix), text
    assert json.loads(text[len(prefix) :]) == ELICITATION_CONTENT

    [request] = conn.recorded.elicitation
    assert isinstance(request, types.ElicitRequestFormParams)
    assert request.message == message
    schema = request.requested_schema
    assert schema["type"] == "object"
    assert schema["properties"]["username"]["type"] == "string"
    assert schema["properties"]["email"]["type"] == "string"
    assert sorted(schema["required"]) == ["email", "username"]


async def test_cancelled_slow_call_stops_and_server_keeps_serving(conn: Connection) -> None:
    session = conn.session
    assert only_text(await session.call_tool("test_cancellation_count", {})) == "0"

    # Cancelling the scope around call_tool makes the SDK send notifications/cancelled
    # with the request's id (mcp.shared.jsonrpc_dispatcher: "courtesy cancel").
    outcome: dict[str, types.CallToolResult] = {}
    slow_scope = anyio.CancelScope()

    async def slow_call() -> None:
        with slow_scope:
            outcome["result"] = await session.call_tool("test_slow", {"ms": 5000})

    async with anyio.create_task_group() as tg:
        tg.start_soon(slow_call)
        await anyio.sleep(0.5)  # the server has long since started the handler
        slow_scope.cancel()
    assert "result" not in outcome, "test_slow finished before it was cancelled"

    # The server answers other requests promptly, not after the 5 s call.
    with anyio.fail_after(2):
        await session.send_ping()
        assert only_text(await session.call_tool("add", {"a": 20, "b": 22})) == "42"

    # The handler observed the cancellation (it polls every 10 ms) well before 5 s elapsed.
    count = ""
    with anyio.move_on_after(2):
        while (count := only_text(await session.call_tool("test_cancellation_count", {}))) != "1":
            await anyio.sleep(0.05)
    assert count == "1"


# --- resources ------------------------------------------------------------------------------


async def test_resources_list_has_static_and_watched_resources(conn: Connection) -> None:
    resources = {r.uri: r for r in (await conn.session.list_resources()).resources}
    expected = {
        "test://static-text": ("static-text", "text/plain"),
        "test://static-binary": ("static-binary", "image/png"),
        "test://watched-resource": ("watched-resource", "text/plain"),
    }
    assert expected.keys() <= resources.keys(), f"missing: {sorted(expected.keys() - resources.keys())}"
    for uri, (name, mime_type) in expected.items():
        assert (resources[uri].name, resources[uri].mime_type) == (name, mime_type)


async def test_read_static_text_resource(conn: Connection) -> None:
    [contents] = (await conn.session.read_resource("test://static-text")).contents
    assert isinstance(contents, types.TextResourceContents)
    assert contents.uri == "test://static-text"
    assert contents.mime_type == "text/plain"
    assert contents.text == "This is the content of the static text resource."


async def test_read_static_binary_resource(conn: Connection) -> None:
    [contents] = (await conn.session.read_resource("test://static-binary")).contents
    assert isinstance(contents, types.BlobResourceContents)
    assert contents.uri == "test://static-binary"
    assert contents.mime_type == "image/png"
    assert base64.b64decode(contents.blob, validate=True).startswith(PNG_SIGNATURE)


async def test_resource_templates_list_has_template(conn: Connection) -> None:
    templates = (await conn.session.list_resource_templates()).resource_templates
    by_uri = {t.uri_template: t for t in templates}
    template = by_uri.get("test://template/{id}/data")
    assert template is not None, f"templates: {sorted(by_uri)}"
    assert template.name == "template"
    assert template.mime_type == "application/json"


async def test_read_templated_resource_substitutes_id(conn: Connection) -> None:
    [contents] = (await conn.session.read_resource("test://template/42/data")).contents
    assert isinstance(contents, types.TextResourceContents)
    assert contents.uri == "test://template/42/data"
    assert contents.mime_type == "application/json"
    assert json.loads(contents.text) == {"id": "42", "templateTest": True, "data": "Data for ID: 42"}


async def test_subscribe_to_watched_resource(conn: Connection) -> None:
    assert isinstance(await conn.session.subscribe_resource("test://watched-resource"), types.EmptyResult)


# --- prompts --------------------------------------------------------------------------------


async def test_prompts_list_has_every_surface_prompt_with_arguments(conn: Connection) -> None:
    prompts = {p.name: p for p in (await conn.session.list_prompts()).prompts}
    assert SURFACE_PROMPTS.keys() <= prompts.keys(), f"missing: {sorted(SURFACE_PROMPTS.keys() - prompts.keys())}"
    for name, argument_names in SURFACE_PROMPTS.items():
        prompt = prompts[name]
        assert prompt.description, f"{name} has no description"
        arguments = prompt.arguments or []
        assert [a.name for a in arguments] == argument_names, name
        assert all(a.required for a in arguments), name


async def test_get_prompt_with_arguments(conn: Connection) -> None:
    result = await conn.session.get_prompt("test_prompt_with_arguments", {"arg1": "alpha", "arg2": "beta"})
    [message] = result.messages
    assert message.role == "user"
    assert isinstance(message.content, types.TextContent)
    assert message.content.text == "Prompt with arguments: arg1='alpha', arg2='beta'"


async def test_get_prompt_with_embedded_resource(conn: Connection) -> None:
    uri = "test://interop/embedded"
    result = await conn.session.get_prompt("test_prompt_with_embedded_resource", {"resourceUri": uri})
    assert [m.role for m in result.messages] == ["user", "user"]
    embedded, instruction = (m.content for m in result.messages)
    assert isinstance(embedded, types.EmbeddedResource)
    assert isinstance(embedded.resource, types.TextResourceContents)
    assert embedded.resource.uri == uri
    assert embedded.resource.mime_type == "text/plain"
    assert embedded.resource.text == "Embedded resource content for testing."
    assert isinstance(instruction, types.TextContent)
    assert instruction.text == "Please process the embedded resource above."


# --- completion -----------------------------------------------------------------------------


async def test_complete_prompt_argument_by_prefix(conn: Connection) -> None:
    result = await conn.session.complete(
        types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
        {"name": "arg1", "value": "pa"},
    )
    assert result.completion.values == ["paris", "park", "party", "pasta"]


async def test_complete_other_argument_is_empty(conn: Connection) -> None:
    result = await conn.session.complete(
        types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
        {"name": "arg2", "value": "pa"},
    )
    assert result.completion.values == []
