"""Streamable HTTP: ``run(transport="http")`` serves the core's HTTP transport; Ctrl-C stops
it cleanly."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import urllib.request
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

SERVER = """
import sys
from ferrite_mcp import Server, Context
server = Server("http-server")
@server.tool()
async def add(a: int, b: int, ctx: Context) -> int:
    return a + b
server.run(transport="http", port=0, on_ready=lambda port: print(port, file=sys.stderr, flush=True))
print("run returned", flush=True)
"""


def post(url: str, body: Dict[str, Any], session: Optional[str] = None) -> Tuple[int, Dict[str, str], str]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    req.add_header("Content-Type", "application/json")
    req.add_header("Accept", "application/json, text/event-stream")
    if session:
        req.add_header("Mcp-Session-Id", session)
        req.add_header("Mcp-Protocol-Version", "2025-11-25")
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read().decode()


def test_http_serves_tools_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    script = tmp_path / "http_server.py"
    script.write_text(textwrap.dedent(SERVER))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stderr is not None
        port = int(proc.stderr.readline())
        url = f"http://127.0.0.1:{port}/mcp"
        status, headers, body = post(
            url,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
            },
        )
        assert status == 200
        session = headers["mcp-session-id"]
        assert json.loads(body)["result"]["serverInfo"]["name"] == "http-server"
        status, _, _ = post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        assert status == 202
        status, _, body = post(
            url, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}, session
        )
        assert json.loads(body)["result"]["content"] == [{"type": "text", "text": "5"}]
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=15)
    assert proc.returncode == 0, err
    assert out == b"run returned\n"
