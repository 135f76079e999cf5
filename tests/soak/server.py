"""The server under test: one everything server started on stdio or on a free port, and its
resident memory read from /proc.

Every everything server (Rust, C, Go, Python, Node) serves in the very process its command
starts (no launcher, no child process), so the pid of that process is the one whose memory is
sampled. The soak would measure the wrong process if a surface ever grew a wrapper, so the
start checks that the pid is alive and, on HTTP, that it answers before any figure is taken.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import tempfile
import time
from typing import Dict, List, Optional

PROTOCOL = "2025-11-25"
JSON_HEADERS = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": PROTOCOL,
}


class SoakError(Exception):
    """A soak run that cannot go on: the server died, answered wrongly, or did not start."""


def rss_kb(pid: int) -> int:
    """The process's resident set (VmRSS) in KiB."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError as e:
        raise SoakError(f"cannot read /proc/{pid}/status: {e}") from e
    raise SoakError(f"/proc/{pid}/status has no VmRSS line")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One everything server process: stdio pipes, or Streamable HTTP on 127.0.0.1:port/mcp."""

    def __init__(self, argv: List[str], *, http: bool, stateless: bool = False,
                 env: Optional[Dict[str, str]] = None) -> None:
        self.http = http
        self.port: Optional[int] = None
        argv = list(argv)
        if http:
            self.port = free_port()
            argv += ["--port", str(self.port)]
        if stateless:
            argv.append("--stateless")
        self.argv = argv
        self.log = tempfile.NamedTemporaryFile(prefix="soak-server-", suffix=".log", delete=False)
        pipe = subprocess.PIPE
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL if http else pipe,
            stdout=subprocess.DEVNULL if http else pipe,
            stderr=self.log,
            bufsize=0,
            start_new_session=True,
            env=None if env is None else {**os.environ, **env},
        )
        if http:
            self._wait_listening()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def rss(self) -> int:
        self.check_alive()
        return rss_kb(self.proc.pid)

    def check_alive(self) -> None:
        if self.proc.poll() is not None:
            raise SoakError(f"the server exited with status {self.proc.returncode}; {self.log_tail()}")

    def log_tail(self, n: int = 2000) -> str:
        try:
            with open(self.log.name, "rb") as f:
                data = f.read()[-n:].decode("utf-8", "replace").strip()
        except OSError:
            return "(no server log)"
        return f"server stderr: {data}" if data else "the server wrote nothing on stderr"

    def _wait_listening(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.check_alive()
            try:
                conn = self.connect(timeout=2)
                status, _, body = post(conn, {"jsonrpc": "2.0", "id": 0, "method": "ping"}, stateless_ok=True)
                conn.close()
                if status in (200, 400):  # 400: a stateful server wants initialize first; it serves
                    return
                raise SoakError(f"the server answered a ping with HTTP {status}: {body[:200]!r}")
            except (OSError, http.client.HTTPException):
                time.sleep(0.1)
        raise SoakError(f"the server did not answer on port {self.port} within {timeout:.0f} s; {self.log_tail()}")

    def connect(self, timeout: float = 30.0) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def _signal_group(self, sig: int) -> None:
        """Signals the server's own process group (it was started in a new session), so that
        nothing it started outlives the run."""
        try:
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            pass

    def stop(self) -> None:
        if self.proc.poll() is None:
            if self.proc.stdin is not None:
                try:
                    self.proc.stdin.close()
                except OSError:
                    pass
                try:
                    self.proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
            if self.proc.poll() is None:
                self._signal_group(signal.SIGTERM)
                try:
                    self.proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self._signal_group(signal.SIGKILL)
                    self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self.log.close()
        os.unlink(self.log.name)


def post(conn: http.client.HTTPConnection, message: dict, session: Optional[str] = None,
         stateless_ok: bool = False) -> tuple:
    """POSTs one JSON-RPC message; (status, headers as a lower-case dict, body bytes)."""
    headers = dict(JSON_HEADERS)
    if session is not None:
        headers["mcp-session-id"] = session
    conn.request("POST", "/mcp", json.dumps(message, separators=(",", ":")), headers)
    resp = conn.getresponse()
    body = resp.read()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, body


def decode_answer(headers: dict, body: bytes) -> dict:
    """The JSON-RPC response in an HTTP answer, whether JSON or an SSE stream (the last `data:`
    line that is a response)."""
    ctype = headers.get("content-type", "")
    if ctype.startswith("application/json"):
        return json.loads(body)
    if ctype.startswith("text/event-stream"):
        answer = None
        for line in body.split(b"\n"):
            if line.startswith(b"data:"):
                data = line[5:].strip()
                if data:
                    msg = json.loads(data)
                    if "id" in msg and "method" not in msg:
                        answer = msg
        if answer is not None:
            return answer
    raise SoakError(f"an answer that is no JSON-RPC response (content-type {ctype!r}): {body[:200]!r}")


def initialize(conn: http.client.HTTPConnection) -> str:
    """The handshake on a stateful server: `initialize`, then `notifications/initialized`; the
    session id."""
    status, headers, body = post(conn, {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                   "clientInfo": {"name": "ferrite-soak", "version": "1"}},
    })
    session = headers.get("mcp-session-id")
    if status != 200 or not session:
        raise SoakError(f"initialize: HTTP {status}, session {session!r}: {body[:200]!r}")
    status, _, body = post(conn, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    if status != 202:
        raise SoakError(f"notifications/initialized: HTTP {status} (202 expected): {body[:200]!r}")
    return session


def delete_session(conn: http.client.HTTPConnection, session: str) -> int:
    """DELETE of a session; the HTTP status."""
    conn.request("DELETE", "/mcp", headers={"mcp-session-id": session, "mcp-protocol-version": PROTOCOL})
    resp = conn.getresponse()
    resp.read()
    return resp.status


def ping(conn: http.client.HTTPConnection, session: Optional[str]) -> None:
    """A `ping` that must answer an empty result."""
    status, headers, body = post(conn, {"jsonrpc": "2.0", "id": 7, "method": "ping"}, session)
    if status != 200:
        raise SoakError(f"ping: HTTP {status}: {body[:200]!r}")
    answer = decode_answer(headers, body)
    if answer.get("result") != {}:
        raise SoakError(f"ping: {answer!r}")



def heap_figures(server: "Server") -> tuple:
    """(glibc heap bytes in use, RSS KiB after `malloc_trim(0)`), through gdb: `malloc_stats()`
    prints the in-use total on the server's stderr, `malloc_trim(0)` hands the allocator's free
    pages back to the OS. The in-use bytes count what is still allocated through malloc (all of
    the core and the C server; not the Python, V8 or Go heaps); the trimmed RSS counts what is
    still resident once glibc keeps nothing for reuse. None for both when gdb fails."""
    try:
        out = subprocess.run(["gdb", "-p", str(server.pid), "-batch", "-nx",
                              "-ex", "call (void) malloc_stats()", "-ex", "call (int) malloc_trim(0)"],
                             stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SoakError(f"--heap: gdb: {e}") from e
    if out.returncode != 0 or b"$1 = " not in out.stdout:
        raise SoakError(f"--heap: gdb could not call malloc_trim(0) in pid {server.pid}: {out.stderr[-300:]!r}")
    with open(server.log.name, "rb") as f:
        log = f.read().decode("utf-8", "replace")
    total = log.rfind("Total (incl. mmap):")
    in_use = None
    for line in log[total:].splitlines():
        if total >= 0 and line.startswith("in use bytes"):
            in_use = int(line.split("=")[1])
            break
    if in_use is None:
        raise SoakError("--heap: malloc_stats() printed no total on the server's stderr")
    return in_use, server.rss()
