"""The official MCP Python SDK (``mcp`` 2.3.0, pinned in tests/interop/python/requirements.txt)
serving the same ``add`` tool as the everything servers, over stdio: the comparison row of
the Python benchmark.

    EXTRA_SERVERS="mcp-sdk=$HOME/.cache/ferrite/venv/bin/python bindings-python/bench/mcp_sdk_add_server.py" bench/stdio.sh

(run it with the interop venv's python, which has ``mcp`` installed).
"""

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent

server = MCPServer("mcp-sdk-add")


@server.tool()
def add(a: int, b: int) -> CallToolResult:
    """Add two integers and return their sum"""
    # The same result as every everything server's `add` (what the load generator checks):
    # text "<sum>" and structuredContent {"sum": <sum>}.
    s = a + b
    return CallToolResult(content=[TextContent(type="text", text=str(s))], structured_content={"sum": s})


if __name__ == "__main__":
    server.run()
