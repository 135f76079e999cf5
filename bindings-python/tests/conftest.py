"""Helpers for the ferrite_mcp tests: JSON-RPC over ``handle_raw`` (in-process) and a tiny
stdio client that drives a server script in a subprocess (for what needs a channel back to
the client: notifications, server-to-client requests, cancellation, signals)."""

from __future__ import annotations

import itertools
import json
import os
import queue
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import pytest

from ferrite_mcp import Server

_ids = itertools.count(1)


def rpc(server: Server, method: str, params: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """One request in-process; the whole response object."""
    msg: Dict[str, Any] = {"jsonrpc": "2.0", "id": next(_ids), "method": method}
    if params is not None:
        msg["params"] = params
    return json.loads(server.handle_raw(json.dumps(msg)))


def call_tool(server: Server, name: str, arguments: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """``tools/call``; the result (fails the test on a JSON-RPC error)."""
    params: Dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    resp = rpc(server, "tools/call", params)
    assert "result" in resp, resp
    return resp["result"]


def text_of(result: Dict[str, Any]) -> str:
    return "".join(c["text"] for c in result["content"] if c["type"] == "text")


@pytest.fixture
def server() -> Any:
    s = Server("test-server", "1.2.3")
    yield s
    s.close()


class StdioClient:
    """A server script run as a subprocess, spoken to over its stdin/stdout."""

    def __init__(self, script: str, tmp_path: Path, args: List[str] = (), capabilities: Optional[Dict[str, Any]] = None) -> None:
        path = tmp_path / "server_under_test.py"
        path.write_text(textwrap.dedent(script))
        self.proc = subprocess.Popen(
            [sys.executable, str(path), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.messages: "queue.Queue[Dict[str, Any]]" = queue.Queue()
        self.notifications: List[Dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.responders: Dict[str, Callable[[Dict[str, Any]], Dict[str, Any]]] = {}
        self.pending: Dict[Any, Dict[str, Any]] = {}
        init = self.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": capabilities or {},
                "clientInfo": {"name": "pytest", "version": "1"},
            },
        )
        assert "result" in init, init
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.messages.put(json.loads(line))

    def send(self, msg: Dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()

    def start(self, method: str, params: Optional[Dict[str, Any]] = None) -> int:
        rid = next(_ids)
        msg: Dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return rid

    def wait(self, rid: Any, timeout: float = 10.0) -> Dict[str, Any]:
        deadline = time.monotonic() + timeout
        while rid not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no response to request {rid}")
            msg = self.messages.get(timeout=left)
            if "method" in msg and "id" in msg:  # a server-to-client request
                responder = self.responders.get(msg["method"])
                if responder is None:
                    self.send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no"}})
                else:
                    self.send({"jsonrpc": "2.0", "id": msg["id"], "result": responder(msg.get("params") or {})})
            elif "method" in msg:
                self.notifications.append(msg)
            else:
                self.pending[msg.get("id")] = msg
        return self.pending.pop(rid)

    def request(self, method: str, params: Optional[Dict[str, Any]] = None, timeout: float = 10.0) -> Dict[str, Any]:
        return self.wait(self.start(method, params), timeout)

    def close(self) -> int:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


@pytest.fixture
def stdio(tmp_path: Path) -> Any:
    clients: List[StdioClient] = []

    def start(script: str, **kwargs: Any) -> StdioClient:
        c = StdioClient(script, tmp_path, **kwargs)
        clients.append(c)
        return c

    yield start
    for c in clients:
        c.close()


PYTHON = sys.executable
ENV = dict(os.environ)
