"""A server written the way the official MCP Python SDK's README writes one (``MCPServer``
with decorators, pydantic ``Field`` constraints, ``await ctx.info``, ``await
ctx.report_progress``, a resource template, a prompt, a tool returning a model, a lifespan),
for the port test (tests/interop/python/test_port_python.py).

Only the import lines differ from the official SDK's spelling; the port test runs this very
file under the official SDK too (with ``from mcp.server import MCPServer`` and
``from mcp.server.mcpserver import Context``), so both servers answer the same client alike.
"""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, Field

from ferrite_mcp import Context, MCPServer  # the official SDK: see the module docstring


@dataclass
class AppContext:
    """What the lifespan yields: the handlers read it through the context."""

    greeting: str


@asynccontextmanager
async def lifespan(server: MCPServer) -> AsyncIterator[AppContext]:
    yield AppContext(greeting="Hello")


mcp = MCPServer("Port Demo", lifespan=lifespan)


@mcp.tool()
def add(
    a: int = Field(description="The first addend", ge=0, le=1000),
    b: Annotated[int, Field(description="The second addend", ge=0, le=1000)] = 1,
) -> int:
    """Add two small non-negative integers."""
    return a + b


@mcp.tool()
async def count(n: Annotated[int, Field(ge=1, le=10)], ctx: Context) -> str:
    """Count to n, logging each step and reporting progress."""
    await ctx.info(f"counting to {n}")
    for i in range(1, n + 1):
        await ctx.report_progress(progress=i, total=n, message=f"step {i}")
    await ctx.debug("done counting")
    return f"counted to {n}"


@mcp.tool()
def greet(ctx: Context, name: str = Field(min_length=1, max_length=20, pattern=r"^[A-Za-z]+$")) -> str:
    """Greet someone, with the lifespan's greeting."""
    return f"{ctx.request_context.lifespan_context.greeting}, {name}!"


class Weather(BaseModel):
    """The weather in a city."""

    city: str
    temperature: float = Field(description="Degrees Celsius")
    conditions: str


@mcp.tool()
def get_weather(city: str) -> Weather:
    """The weather in a city, as structured output."""
    return Weather(city=city, temperature=21.5, conditions="sunny")


@mcp.resource("greeting://{name}")
def greeting(name: str) -> str:
    """Greet someone by name."""
    return f"Hello, {name}!"


@mcp.prompt()
def review_code(code: str) -> str:
    """Ask for a review of some code."""
    return f"Please review this code:\n\n{code}"


if __name__ == "__main__":
    mcp.run()
