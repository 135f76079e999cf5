"""The HTTP benchmark's `add` server on the official Python MCP SDK (`mcp` 2.3.0).

Written the way the SDK documents it: an `MCPServer` with one `@mcp.tool()`, served with
`mcp.run(transport="streamable-http", ...)` (Starlette on uvicorn; asyncio sets TCP_NODELAY on
every connection).

    python python_server.py --port N               stateful: sessions, answers as SSE
    python python_server.py --port N --stateless   stateless_http + json_response

The tool returns what examples/SURFACE.md specifies: text "<sum>" and structuredContent
{"sum": <sum>}, with an output schema (from `AddOutput`).
"""

from __future__ import annotations

import argparse
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel


class AddOutput(BaseModel):
    sum: int


mcp = MCPServer("python-sdk-bench", version="0.0.0", log_level="WARNING")


@mcp.tool()
def add(a: int, b: int) -> Annotated[CallToolResult, AddOutput]:
    """Add two integers."""
    total = a + b
    return CallToolResult(content=[TextContent(type="text", text=str(total))], structured_content={"sum": total})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--stateless", action="store_true", help="no sessions, answers as JSON")
    args = parser.parse_args()
    mcp.run(
        transport="streamable-http",
        host="127.0.0.1",
        port=args.port,
        stateless_http=args.stateless,
        json_response=args.stateless,
    )


if __name__ == "__main__":
    main()
