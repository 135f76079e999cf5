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


def default_sigint() -> None:
    """A ``preexec_fn`` that gives the child the default SIGINT: a launcher that started this
    run as a background job leaves SIGINT ignored, and Python then never turns Ctrl-C into
    KeyboardInterrupt, so the tests that stop a server with SIGINT would wait forever."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)

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


def call(c: "StdioClient", tool: str, args: Optional[Dict[str, Any]] = None) -> int:
    """Send a ``tools/call`` of ``tool`` over ``c`` without waiting; its request id."""
    return c.start("tools/call", {"name": tool, "arguments": args or {}})


def answer(c: "StdioClient", rid: int) -> str:
    """The text of the tool result answering request ``rid`` (which must be a result)."""
    resp = c.wait(rid)
    assert "result" in resp, resp
    return text_of(resp["result"])


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
            preexec_fn=default_sigint,
        )
        self.messages: "queue.Queue[Dict[str, Any]]" = queue.Queue()
        self.notifications: List[Dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.responders: Dict[str, Callable[[Dict[str, Any]], Dict[str, Any]]] = {}
        self.pending: Dict[Any, Dict[str, Any]] = {}
        # Every response read so far, in arrival order (``pending`` loses those already waited for).
        self.responses: List[Dict[str, Any]] = []
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
                self.responses.append(msg)
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


# ----- 2026-07-28 (per-request envelope) -----

V2026 = "2026-07-28"


def envelope(caps: Optional[Dict[str, Any]] = None, **extra: Any) -> Dict[str, Any]:
    """The 2026-07-28 ``_meta`` envelope declaring ``caps`` (``extra``: more ``_meta`` keys)."""
    meta = {"io.modelcontextprotocol/protocolVersion": V2026, "io.modelcontextprotocol/clientCapabilities": caps or {}}
    meta.update(extra)
    return meta


def modern(server: Server, method: str, params: Optional[Dict[str, Any]] = None, caps: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """One 2026-07-28 request in-process; the whole response object."""
    p = dict(params or {})
    p["_meta"] = envelope(caps)
    return json.loads(server.handle_raw(json.dumps({"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": p})))


def modern_ok(server: Server, method: str, params: Optional[Dict[str, Any]] = None, caps: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """A 2026-07-28 request that must succeed; its result."""
    resp = modern(server, method, params, caps)
    assert "result" in resp, resp
    return resp["result"]


def modern_error(server: Server, method: str, params: Optional[Dict[str, Any]] = None, caps: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """A 2026-07-28 request that must fail; its error object."""
    resp = modern(server, method, params, caps)
    assert "error" in resp, resp
    return resp["error"]


class HttpServer:
    """``server.run(transport="http", port=0)`` on a thread of this process."""

    def __init__(self, server: Server, **options: Any) -> None:
        self.server = server
        ready: "queue.Queue[int]" = queue.Queue()
        self.errors: List[BaseException] = []

        def run() -> None:
            try:
                server.run(transport="http", port=0, on_ready=ready.put, **options)
            except BaseException as e:  # reported by the test
                self.errors.append(e)
                ready.put(-1)

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        self.port = ready.get(timeout=10)
        assert self.port > 0, self.errors

    def post(self, body: Any, headers: Optional[Dict[str, str]] = None) -> "tuple[int, Dict[str, str], Any]":
        """POST ``body`` (JSON) to /mcp; (status, lower-case headers, parsed JSON body or None)."""
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
            h.update(headers or {})
            conn.request("POST", "/mcp", body=json.dumps(body), headers=h)
            resp = conn.getresponse()
            raw = resp.read()
            hs = {k.lower(): v for k, v in resp.getheaders()}
            return resp.status, hs, (json.loads(raw) if raw and hs.get("content-type", "").startswith("application/json") else raw)
        finally:
            conn.close()

    def modern(self, method: str, params: Optional[Dict[str, Any]] = None, caps: Optional[Dict[str, Any]] = None,
               name: Optional[str] = None, headers: Optional[Dict[str, str]] = None) -> "tuple[int, Any]":
        """A 2026-07-28 request with the standard headers; (status, parsed body)."""
        p = dict(params or {})
        p["_meta"] = envelope(caps)
        h = {"MCP-Protocol-Version": V2026, "Mcp-Method": method}
        if name is not None:
            h["Mcp-Name"] = name
        h.update(headers or {})
        status, _, body = self.post({"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": p}, h)
        return status, body

    def close(self) -> None:
        self.server.stop()
        self.thread.join(timeout=10)


@pytest.fixture
def http_serve() -> Any:
    """Start servers over HTTP on free ports; stopped after the test."""
    running: List[HttpServer] = []

    def start(server: Server, **options: Any) -> HttpServer:
        s = HttpServer(server, **options)
        running.append(s)
        return s

    yield start
    for s in running:
        s.close()
