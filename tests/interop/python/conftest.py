"""Fixtures for the real-client interop tests: the official MCP Python SDK.

The servers under test come from FERRITE_STDIO_SERVERS (stdio) and FERRITE_HTTP_SERVERS
(Streamable HTTP: the command line gets `--port N` appended), each a `;`-separated list of
`name=command line` entries (the command line is split with shlex). Every test that takes the
`server` fixture runs once per stdio entry; every test that takes `target` (the 2026-07-28
tests) runs once per stdio entry and once per HTTP entry, with the transport and name in its
test id. Each stdio server gets the client's default environment only (as the Inspector's
stdio transport does too): prefix a command with `env NAME=value` when it needs more.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import mcp.types as types
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.session import ClientRequestContext

ENV_VAR = "FERRITE_STDIO_SERVERS"
HTTP_ENV_VAR = "FERRITE_HTTP_SERVERS"

# Every request of a test fails with REQUEST_TIMEOUT after this long instead of hanging the suite.
REQUEST_TIMEOUT_SECONDS = 10.0

# What the client's sampling and elicitation callbacks answer.
SAMPLING_ANSWER = "Paris is the capital of France."
ELICITATION_CONTENT = {"username": "octocat", "email": "octocat@example.com"}


@dataclass(frozen=True)
class ServerUnderTest:
    name: str
    argv: list[str]


def parse_servers(spec: str, var: str = ENV_VAR) -> list[ServerUnderTest]:
    """Parses a server list; a malformed entry is a usage error, never a silent skip."""
    servers: list[ServerUnderTest] = []
    for entry in spec.split(";"):
        entry = entry.strip()
        if not entry:
            continue
        name, sep, command = entry.partition("=")
        name = name.strip()
        argv = shlex.split(command)
        if not sep or not name or not argv:
            raise pytest.UsageError(f"{var}: entry {entry!r} is not of the form name=command line")
        if any(s.name == name for s in servers):
            raise pytest.UsageError(f"{var}: server name {name!r} appears twice")
        servers.append(ServerUnderTest(name, argv))
    return servers


@dataclass(frozen=True)
class Target:
    """A server and the transport the client reaches it over."""

    transport: str  # "stdio" or "http"
    server: ServerUnderTest


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "target" in metafunc.fixturenames:
        stdio = parse_servers(os.environ.get(ENV_VAR, ""), ENV_VAR)
        http = parse_servers(os.environ.get(HTTP_ENV_VAR, ""), HTTP_ENV_VAR)
        targets = [Target("stdio", s) for s in stdio] + [Target("http", s) for s in http]
        if targets:
            params = [pytest.param(t, id=f"{t.transport}-{t.server.name}") for t in targets]
        else:
            reason = f"neither {ENV_VAR} nor {HTTP_ENV_VAR} is set: no server to test"
            params = [pytest.param(None, id="no-server", marks=pytest.mark.skip(reason=reason))]
        metafunc.parametrize("target", params)
    if "server" not in metafunc.fixturenames:
        return
    spec = os.environ.get(ENV_VAR, "")
    servers = parse_servers(spec)
    if servers:
        params = [pytest.param(s, id=s.name) for s in servers]
    else:
        reason = (
            f"{ENV_VAR} is not set (or empty): set it to 'name=command line;...', e.g. "
            f"{ENV_VAR}='rust=target/debug/examples/everything'"
        )
        params = [pytest.param(None, id="no-server", marks=pytest.mark.skip(reason=reason))]
    metafunc.parametrize("server", params)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Recorded:
    """What the server sent to the client's callbacks, in arrival order."""

    logs: list[types.LoggingMessageNotificationParams] = field(default_factory=list)
    sampling: list[types.CreateMessageRequestParams] = field(default_factory=list)
    elicitation: list[types.ElicitRequestParams] = field(default_factory=list)


@dataclass
class Connection:
    session: ClientSession
    init: types.InitializeResult
    recorded: Recorded


@pytest.fixture
async def conn(server: ServerUnderTest) -> AsyncIterator[Connection]:
    """A fresh server process per test, connected and initialized through the official client.

    The client answers sampling with SAMPLING_ANSWER and accepts elicitation with
    ELICITATION_CONTENT, recording every request and log message it receives.
    """
    recorded = Recorded()

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        recorded.logs.append(params)

    async def on_sampling(
        ctx: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        recorded.sampling.append(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=SAMPLING_ANSWER),
            model="ferrite-interop-test-model",
            stop_reason="endTurn",
        )

    async def on_elicitation(ctx: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        recorded.elicitation.append(params)
        return types.ElicitResult(action="accept", content=dict(ELICITATION_CONTENT))

    # The SDK's default environment (HOME, PATH, ...), as any host using it would give: an
    # entry that needs more spells it out, e.g. `py=env PYTHONPATH=bindings-python python3 ...`.
    params = StdioServerParameters(command=server.argv[0], args=server.argv[1:])
    async with AsyncExitStack() as stack:
        read, write = await stack.enter_async_context(stdio_client(params))
        session = await stack.enter_async_context(
            ClientSession(
                read,
                write,
                read_timeout_seconds=REQUEST_TIMEOUT_SECONDS,
                sampling_callback=on_sampling,
                elicitation_callback=on_elicitation,
                logging_callback=on_log,
                client_info=types.Implementation(name="ferrite-interop-tests", version="0.1.0"),
            )
        )
        init = await session.initialize()
        yield Connection(session=session, init=init, recorded=recorded)
