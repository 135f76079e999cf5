"""The official MCP Python SDK client pinned to 2026-07-28 against every everything server.

Over stdio and over Streamable HTTP (see conftest.py for FERRITE_STDIO_SERVERS and
FERRITE_HTTP_SERVERS): discovery, tools, resources, prompts, completion, logging and progress
on the request's own stream, multi round-trip tools driven by the client's callbacks, and a
`subscriptions/listen` stream receiving a tools list change. Every test gets a fresh server.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as t
import pytest
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.subscriptions import ToolsListChanged

from conftest import Target

pytestmark = pytest.mark.anyio

V = "2026-07-28"
TIMEOUT = 10.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def http_server(argv: list[str]) -> Any:
    """Start an everything server on a free port; yield its URL; stop it."""
    port = free_port()
    proc = subprocess.Popen([*argv, "--port", str(port)], stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while True:
            if proc.poll() is not None:
                err = proc.stderr.read().decode() if proc.stderr else ""
                raise RuntimeError(f"{argv} exited with {proc.returncode}: {err[-2000:]}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"{argv} did not listen on {port} within 20 s")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass
class Seen:
    logs: list[Any] = field(default_factory=list)
    progress: list[float] = field(default_factory=list)
    elicitations: list[str] = field(default_factory=list)


# What the client answers, by the question the server asks.
ANSWERS = {
    "What is your name?": {"name": "Ada"},
    "Step 1: What is your name?": {"name": "Ada"},
    "Step 2: What is your favorite color?": {"color": "blue"},
}


@contextlib.asynccontextmanager
async def connect(target: Target, *, log_level: str | None = None) -> AsyncIterator[tuple[Client, Seen]]:
    """A client pinned to 2026-07-28 that answers elicitations from ANSWERS and records what
    it receives, having sent a real server/discover (the pin alone sends none)."""
    seen = Seen()

    async def on_elicit(ctx: Any, params: t.ElicitRequestParams) -> t.ElicitResult:
        seen.elicitations.append(params.message)
        return t.ElicitResult(action="accept", content=dict(ANSWERS[params.message]))

    async def on_log(p: t.LoggingMessageNotificationParams) -> None:
        seen.logs.append(p.data)

    with contextlib.ExitStack() as stack:
        if target.transport == "stdio":
            server: Any = StdioServerParameters(command=target.server.argv[0], args=target.server.argv[1:])
        else:
            server = stack.enter_context(http_server(target.server.argv))
        client = Client(
            server,
            mode=V,
            read_timeout_seconds=TIMEOUT,
            elicitation_callback=on_elicit,
            logging_callback=on_log,
            log_level=log_level,
            client_info=t.Implementation(name="ferrite-interop-tests", version="0.1.0"),
        )
        async with client:
            discovered = t.DiscoverResult.model_validate(await client.session.send_discover(V))
            client.session.adopt(discovered)
            yield client, seen


def text_of(result: t.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, t.TextContent), result
    return block.text


async def test_discover_names_the_revision_the_server_and_its_capabilities(target: Target) -> None:
    async with connect(target) as (client, _):
        assert client.protocol_version == V
        assert client.server_info is not None and client.server_info.name == "ferrite-everything"
        disc = client.session.discover_result
        assert disc is not None and V in disc.supported_versions
        caps = client.server_capabilities
        assert caps.tools is not None and caps.tools.list_changed is True
        assert caps.prompts is not None and caps.resources is not None and caps.completions is not None
        assert "io.modelcontextprotocol/skills" in (caps.extensions or {})


async def test_tools_list_and_call(target: Target) -> None:
    async with connect(target) as (client, _):
        tools = (await client.list_tools()).tools
        assert tools[0].name == "test_simple_text"
        assert {"add", "test_input_required_result_elicitation", "test_x_mcp_header"} <= {x.name for x in tools}
        r = await client.call_tool("add", {"a": 2, "b": 3})
        assert text_of(r) == "5"
        assert r.structured_content == {"sum": 5}
        assert not r.is_error


async def test_a_mirrored_header_argument_reaches_the_tool(target: Target) -> None:
    async with connect(target) as (client, _):
        await client.list_tools()  # the client mirrors x-mcp-header arguments of listed tools
        r = await client.call_tool("test_x_mcp_header", {"region": "eu-west-1"})
        assert text_of(r) == "region: eu-west-1"


async def test_resources_read_and_unknown_uri(target: Target) -> None:
    async with connect(target) as (client, _):
        listed = {r.uri for r in (await client.list_resources()).resources}
        assert {"test://static-text", "skill://add-numbers/SKILL.md"} <= {str(u) for u in listed}
        text = (await client.read_resource("test://static-text")).contents[0]
        assert isinstance(text, t.TextResourceContents)
        assert text.text == "This is the content of the static text resource."
        templated = (await client.read_resource("test://template/42/data")).contents[0]
        assert isinstance(templated, t.TextResourceContents) and '"id":"42"' in templated.text
        with pytest.raises(MCPError) as e:
            await client.read_resource("test://nope")
        assert e.value.error.code == -32602
        assert e.value.error.data == {"uri": "test://nope"}


async def test_prompt_and_completion(target: Target) -> None:
    async with connect(target) as (client, _):
        p = await client.get_prompt("test_prompt_with_arguments", {"arg1": "x", "arg2": "y"})
        msg = p.messages[0].content
        assert isinstance(msg, t.TextContent) and msg.text == "Prompt with arguments: arg1='x', arg2='y'"
        c = await client.complete(
            t.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"), {"name": "arg1", "value": "pa"}
        )
        assert c.completion.values == ["paris", "park", "party", "pasta"]


async def test_logs_arrive_only_for_a_request_that_asked_for_a_level(target: Target) -> None:
    async with connect(target, log_level="info") as (client, seen):
        assert text_of(await client.call_tool("test_logging_tool", {})) == "Logging tool executed"
        assert seen.logs == ["Logging tool started", "Logging tool finished"]
    async with connect(target) as (client, seen):
        assert text_of(await client.call_tool("test_logging_tool", {})) == "Logging tool executed"
        assert seen.logs == []


async def test_progress_arrives_on_the_request_stream(target: Target) -> None:
    async with connect(target) as (client, seen):

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen.progress.append(progress)

        r = await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
        assert text_of(r) == "Tool with progress executed successfully"
        assert seen.progress == [0, 50, 100]


async def test_an_input_required_tool_completes_in_two_rounds(target: Target) -> None:
    async with connect(target) as (client, seen):
        r = await client.call_tool("test_input_required_result_elicitation", {})
        assert text_of(r) == "Hello, Ada!"
        assert seen.elicitations == ["What is your name?"]
    # The same rounds by hand: the first answer is input_required, the retry completes.
    async with connect(target) as (client, _):
        first = await client.session.call_tool(
            "test_input_required_result_elicitation", {}, allow_input_required=True
        )
        assert isinstance(first, t.InputRequiredResult)
        assert list((first.input_requests or {}).keys()) == ["user_name"]
        answers = {"user_name": t.ElicitResult(action="accept", content={"name": "Grace"})}
        final = await client.session.call_tool(
            "test_input_required_result_elicitation",
            {},
            input_responses=answers,
            request_state=first.request_state,
            allow_input_required=True,
        )
        assert isinstance(final, t.CallToolResult) and text_of(final) == "Hello, Grace!"


async def test_sealed_state_carries_a_tool_through_three_rounds(target: Target) -> None:
    async with connect(target) as (client, seen):
        r = await client.call_tool("test_input_required_result_multi_round", {})
        assert text_of(r) == "Ada likes blue"
        assert seen.elicitations == ["Step 1: What is your name?", "Step 2: What is your favorite color?"]


async def test_a_listen_stream_receives_a_tools_list_change(target: Target) -> None:
    async with connect(target) as (client, _):
        async with client.listen(tools_list_changed=True) as sub:
            assert sub.honored.tools_list_changed is True
            r = await client.call_tool("test_trigger_tool_change", {})
            assert text_of(r).startswith("tools list changed (version 1, ")
            with anyio.fail_after(TIMEOUT):
                event = await sub.__anext__()
            assert isinstance(event, ToolsListChanged)
