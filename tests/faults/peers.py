"""The peers faults.py drives: a JSON-RPC client on a child process's stdio, and a raw
Streamable HTTP client (one connection per request, so a test can also hold a request's
socket open or close it at any point), plus what the test reads of the server process
(/proc: open file descriptors, resident memory, the ports of its TCP peers). Standard
library only."""

from __future__ import annotations

import json
import os
import queue
import socket
import subprocess
import threading
import time
from typing import Any, Callable, Optional

TIMEOUT = 10.0
VERSION = "2025-06-18"
# How long the file descriptor count may take to come back after the last client left.
FD_SETTLE = 5.0


class Failure(Exception):
    pass


def fd_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise Failure("no VmRSS")


def settle_fds(pid: int, want: int) -> int:
    """The fd count once it is back at `want` (or what it is after FD_SETTLE seconds)."""
    deadline = time.monotonic() + FD_SETTLE
    n = fd_count(pid)
    while n != want and time.monotonic() < deadline:
        time.sleep(0.05)
        n = fd_count(pid)
    return n


def request(id_: Any, method: str, params: Optional[dict] = None) -> dict:
    m: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        m["params"] = params
    return m


def init_params(elicitation: bool = False) -> dict:
    caps: dict[str, Any] = {"elicitation": {}} if elicitation else {}
    return {"protocolVersion": VERSION, "capabilities": caps, "clientInfo": {"name": "faults", "version": "1"}}


def outcome(answer: dict) -> str:
    """What is compared between repeated calls: the result or the error, as canonical JSON."""
    return json.dumps({k: answer[k] for k in ("result", "error") if k in answer}, sort_keys=True)


# ------------------------------------------------------------------------------- stdio


class Stdio:
    """A JSON-RPC peer on a child process's stdin and stdout."""

    def __init__(self, argv: list[str], stderr: Any) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
        self.messages: "queue.Queue[Optional[dict]]" = queue.Queue()
        self.answers: dict[Any, dict] = {}
        self.requests: list[dict] = []  # server-to-client requests
        self.lock = threading.Condition()
        self.eof = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                m = json.loads(line)
            except ValueError:
                continue
            with self.lock:
                if isinstance(m, dict) and "id" in m and "method" not in m:
                    self.answers[m["id"]] = m
                elif isinstance(m, dict) and "id" in m:
                    self.requests.append(m)
                self.lock.notify_all()
        with self.lock:
            self.eof = True
            self.lock.notify_all()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def send(self, m: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(m) + "\n").encode())
        self.proc.stdin.flush()

    def wait_for(self, pred: Callable[[], Any], what: str, timeout: float = TIMEOUT) -> Any:
        deadline = time.monotonic() + timeout
        with self.lock:
            while not (v := pred()):
                left = deadline - time.monotonic()
                if left <= 0 or (self.eof and not pred()):
                    raise Failure(f"{what}: nothing within {timeout} s" if not self.eof else f"{what}: stdout closed")
                self.lock.wait(left)
            return v

    def answer(self, id_: Any, timeout: float = TIMEOUT) -> dict:
        return self.wait_for(lambda: self.answers.pop(id_, None), f"answer to {id_}", timeout)

    def call(self, id_: Any, method: str, params: Optional[dict] = None) -> dict:
        self.send(request(id_, method, params))
        return self.answer(id_)

    def notify(self, method: str, params: Optional[dict] = None) -> None:
        m: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            m["params"] = params
        self.send(m)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


# ------------------------------------------------------------------------------- HTTP


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def dechunk(body: bytes) -> bytes:
    out = b""
    while body:
        size_line, _, rest = body.partition(b"\r\n")
        size = int(size_line.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out += rest[:size]
        body = rest[size + 2 :]
    return out


def messages_in(ctype: str, body: bytes) -> list[dict]:
    """The JSON-RPC messages of a JSON or SSE body."""
    if not body.strip():
        return []
    if ctype.startswith("text/event-stream"):
        out = []
        for event in body.decode().replace("\r\n", "\n").split("\n\n"):
            data = "\n".join(line[5:].lstrip() for line in event.split("\n") if line.startswith("data:"))
            if data.strip():
                out.append(json.loads(data))
        return out
    v = json.loads(body)
    return v if isinstance(v, list) else [v]


class Http:
    """A stateful Streamable HTTP client: one connection per request (Connection: close)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.session: Optional[str] = None

    def head(self, method: str, body: bytes = b"", accept: str = "application/json, text/event-stream") -> bytes:
        lines = [
            f"{method} /mcp HTTP/1.1",
            f"Host: 127.0.0.1:{self.port}",
            f"Accept: {accept}",
            "Connection: close",
            f"MCP-Protocol-Version: {VERSION}",
        ]
        if self.session:
            lines.append(f"Mcp-Session-Id: {self.session}")
        if method == "POST":
            lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + body

    def open(
        self, method: str, m: Optional[dict] = None, accept: str = "application/json, text/event-stream"
    ) -> socket.socket:
        s = socket.create_connection(("127.0.0.1", self.port), timeout=TIMEOUT)
        s.sendall(self.head(method, json.dumps(m).encode() if m is not None else b"", accept))
        return s

    @staticmethod
    def read_all(s: socket.socket, timeout: float = TIMEOUT) -> tuple[int, dict[str, str], bytes]:
        s.settimeout(timeout)
        data = b""
        try:
            while chunk := s.recv(65536):
                data += chunk
        finally:
            s.close()
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        if not lines[0].startswith("HTTP/1.1 "):
            raise Failure(f"not an HTTP response: {data[:200]!r}")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = dechunk(body)
        return status, headers, body

    def post(self, m: dict) -> tuple[int, dict[str, str], list[dict]]:
        status, headers, body = self.read_all(self.open("POST", m))
        return status, headers, messages_in(headers.get("content-type", ""), body)

    def call(self, id_: Any, method: str, params: Optional[dict] = None) -> dict:
        status, headers, msgs = self.post(request(id_, method, params))
        if method == "initialize":
            self.session = headers.get("mcp-session-id")
        for m in msgs:
            if m.get("id") == id_ and "method" not in m:
                return m
        raise Failure(f"{method} (id {id_}): status {status}, no answer in {msgs}")

    def notify(self, method: str, params: Optional[dict] = None) -> None:
        m: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            m["params"] = params
        status, _, _ = self.post(m)
        if status != 202:
            raise Failure(f"{method}: status {status}, want 202")


def peer_ports(pid: int) -> set[int]:
    """The remote ports of the process's TCP sockets (its clients' local ports)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            cols = row.split()
            if len(cols) > 9 and cols[9] in inodes:
                ports.add(int(cols[2].rsplit(":", 1)[1], 16))
    return ports


def stable_fds(pid: int) -> int:
    """The fd count once it has not changed for 0.5 s (at most FD_SETTLE): connections the
    client closed a moment ago are gone from the baseline."""
    deadline = time.monotonic() + FD_SETTLE
    n, since = fd_count(pid), time.monotonic()
    while time.monotonic() - since < 0.5 and time.monotonic() < deadline:
        time.sleep(0.05)
        m = fd_count(pid)
        if m != n:
            n, since = m, time.monotonic()
    return n
