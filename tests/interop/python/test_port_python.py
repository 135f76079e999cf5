"""The port test: a server written as the official Python SDK's README writes one
(examples/python/port_server.py: ``MCPServer``, pydantic ``Field`` constraints, ``await
ctx.info``, ``await ctx.report_progress``, a resource template, a prompt, a structured-output
tool, a lifespan), with only its import changed to ``ferrite_mcp``, driven over stdio by the
official SDK's client.

Each test runs twice: against the file as it is (on ferrite_mcp) and, as the reference,
against the same file with the official SDK's import lines (on the ``mcp`` package), so the
expectations are the official SDK's own behaviour, not ours.

The interpreter with ferrite_mcp installed: ``FERRITE_PORT_PYTHON``, else the interpreter of the
``python=`` entry of ``FERRITE_STDIO_SERVERS`` (what bindings-python/run-tests.sh sets); with
neither, the ferrite run is skipped.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import mcp.types as types
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[3]
SERVER = ROOT / "examples" / "python" / "port_server.py"
FERRITE_IMPORT = "from ferrite_mcp import Context, MCPServer  # the official SDK: see the module docstring\n"
OFFICIAL_IMPORT = "from mcp.server import MCPServer\nfrom mcp.server.mcpserver import Context\n"


def ferrite_python() -> Optional[str]:
    explicit = os.environ.get("FERRITE_PORT_PYTHON")
    if explicit:
        return explicit
    for entry in os.environ.get("FERRITE_STDIO_SERVERS", "").split(";"):
        name, sep, command = entry.partition("=")
        if sep and name.strip() == "python":
            argv = shlex.split(command)
            if argv:
                return argv[0]
    return None


@pytest.fixture(params=["ferrite", "official"])
def flavour(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def server_argv(flavour: str, tmp_path: Path) -> list[str]:
    source = SERVER.read_text()
    assert source.count(FERRITE_IMPORT) == 1, "the port server's import line changed"
    if flavour == "official":
        official = tmp_path / "port_server_official.py"
        official.write_text(source.replace(FERRITE_IMPORT, OFFICIAL_IMPORT))
        return [sys.executable, str(official)]
    python = ferrite_python()
    if python is None:
        pytest.skip("no interpreter with ferrite_mcp: set FERRITE_PORT_PYTHON or a python= entry in FERRITE_STDIO_SERVERS")
    return [python, str(SERVER)]


@dataclass
class Port:
    flavour: str
    session: ClientSession
    init: types.InitializeResult
    logs: list[types.LoggingMessageNotificationParams] = field(default_factory=list)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def port(flavour: str, server_argv: list[str]) -> AsyncIterator[Port]:
    logs: list[types.LoggingMessageNotificationParams] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params)

    params = StdioServerParameters(command=server_argv[0], args=server_argv[1:], cwd=str(ROOT))
    async with AsyncExitStack() as stack:
        read, write = await stack.enter_async_context(stdio_client(params))
        session = await stack.enter_async_context(ClientSession(read, write, logging_callback=on_log))
        init = await session.initialize()
        yield Port(flavour, session, init, logs)


def text(result: types.CallToolResult) -> str:
    assert len(result.content) == 1, result.content
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


async def tools(port: Port) -> dict[str, types.Tool]:
    return {t.name: t for t in (await port.session.list_tools()).tools}


async def test_the_tools_schemas_carry_the_field_constraints(port: Port) -> None:
    listed = await tools(port)
    assert set(listed) == {"add", "count", "greet", "get_weather"}
    add = listed["add"].input_schema
    assert add["properties"]["a"] == {"description": "The first addend", "maximum": 1000, "minimum": 0, "title": "A", "type": "integer"}
    assert add["properties"]["b"] == {
        "default": 1,
        "description": "The second addend",
        "maximum": 1000,
        "minimum": 0,
        "title": "B",
        "type": "integer",
    }
    assert add["required"] == ["a"]
    assert listed["count"].input_schema["properties"]["n"] == {"maximum": 10, "minimum": 1, "title": "N", "type": "integer"}
    assert "ctx" not in listed["greet"].input_schema["properties"]
    assert listed["greet"].input_schema["properties"]["name"] == {
        "maxLength": 20,
        "minLength": 1,
        "pattern": "^[A-Za-z]+$",
        "title": "Name",
        "type": "string",
    }
    # A primitive return is wrapped as {"result": ...}; a model is the structured content.
    assert listed["add"].output_schema == {
        "properties": {"result": {"title": "Result", "type": "integer"}},
        "required": ["result"],
        "title": "addOutput",
        "type": "object",
    }
    weather = listed["get_weather"].output_schema
    assert weather is not None
    assert weather["properties"]["temperature"] == {"description": "Degrees Celsius", "title": "Temperature", "type": "number"}
    assert weather["required"] == ["city", "temperature", "conditions"]


async def test_add_answers_with_text_and_the_wrapped_structured_result(port: Port) -> None:
    result = await port.session.call_tool("add", {"a": 2, "b": 3})
    assert not result.is_error
    assert text(result) == "5"
    assert result.structured_content == {"result": 5}


async def test_a_constraint_violation_is_a_tool_error_naming_the_field(port: Port) -> None:
    # The wording differs (Ferrite's core checks the input schema before the handler runs;
    # the official SDK reports pydantic's message): both name the field and the bound.
    result = await port.session.call_tool("add", {"a": 5000, "b": 3})
    assert result.is_error
    assert re.search(r"\ba\b", text(result)) and "1000" in text(result), text(result)
    result = await port.session.call_tool("greet", {"name": "R2-D2"})
    assert result.is_error
    assert "name" in text(result) and "^[A-Za-z]+$" in text(result), text(result)
    result = await port.session.call_tool("count", {})
    assert result.is_error
    assert re.search(r"\bn\b", text(result)) and "required" in text(result).lower(), text(result)


async def test_the_lifespan_value_reaches_the_handler(port: Port) -> None:
    assert text(await port.session.call_tool("greet", {"name": "Ada"})) == "Hello, Ada!"


async def test_the_model_return_is_structured_content(port: Port) -> None:
    result = await port.session.call_tool("get_weather", {"city": "Oslo"})
    assert not result.is_error
    assert result.structured_content == {"city": "Oslo", "temperature": 21.5, "conditions": "sunny"}


async def test_logs_and_progress_arrive(port: Port) -> None:
    progress: list[tuple[float, Optional[float], Optional[str]]] = []

    async def on_progress(p: float, total: Optional[float], message: Optional[str]) -> None:
        progress.append((p, total, message))

    result = await port.session.call_tool("count", {"n": 3}, progress_callback=on_progress)
    assert text(result) == "counted to 3"
    assert progress == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
    # No `logging/setLevel` was sent: the official SDK delivers every level, Ferrite's core
    # starts each session at `info` (so the debug line waits for a `setLevel("debug")`).
    expected = [("info", "counting to 3")] + ([("debug", "done counting")] if port.flavour == "official" else [])
    assert [(m.level, m.data) for m in port.logs] == expected


async def test_set_level_filters_the_logs_on_ferrite(port: Port) -> None:
    if port.flavour == "official":
        pytest.skip("the official SDK 2.x no longer serves logging/setLevel (deprecated in 2026-07-28)")
    await port.session.set_logging_level("info")
    assert text(await port.session.call_tool("count", {"n": 1})) == "counted to 1"
    assert [(m.level, m.data) for m in port.logs] == [("info", "counting to 1")]  # debug is below info


async def test_the_resource_template_is_listed_and_read(port: Port) -> None:
    templates = (await port.session.list_resource_templates()).resource_templates
    assert [(t.name, t.uri_template) for t in templates] == [("greeting", "greeting://{name}")]
    read = await port.session.read_resource("greeting://Ada")
    assert len(read.contents) == 1
    contents = read.contents[0]
    assert isinstance(contents, types.TextResourceContents)
    assert contents.text == "Hello, Ada!"


async def test_the_prompt_is_listed_and_got(port: Port) -> None:
    prompts = (await port.session.list_prompts()).prompts
    assert [(p.name, [(a.name, a.required) for a in p.arguments or []]) for p in prompts] == [("review_code", [("code", True)])]
    got = await port.session.get_prompt("review_code", {"code": "x = 1"})
    assert len(got.messages) == 1
    message = got.messages[0]
    assert message.role == "user"
    assert isinstance(message.content, types.TextContent)
    assert message.content.text == "Please review this code:\n\nx = 1"


async def test_the_server_advertises_logging_and_its_name(port: Port) -> None:
    assert port.init.server_info.name == "Port Demo"
    # Ferrite's default (on every surface) advertises logging; the official SDK 2.x does not.
    assert (port.init.capabilities.logging is not None) == (port.flavour == "ferrite")
    assert port.init.capabilities.tools is not None
