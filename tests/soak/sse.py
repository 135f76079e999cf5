"""The `sse` soak: C concurrent GET SSE streams, one session each, held open together.

Each stream must answer 200 `text/event-stream`. With all of them open the server must still
answer a ping, and one `test_trigger_tool_change` (a tool every everything server has, which
sends `notifications/tools/list_changed` to every session's GET stream) must reach every
stream. The RSS is sampled as streams open (the cost of one stream), and after all closed
(the server must still serve).
"""

from __future__ import annotations

import re
import resource
import selectors
import socket
import time
from dataclasses import dataclass, field
from typing import List, Tuple

from server import PROTOCOL, Server, SoakError, decode_answer, delete_session, heap_figures, initialize, ping, post
from sessions import end, in_slots

NOTIFICATION = b"notifications/tools/list_changed"


class Dechunker:
    """Undoes HTTP/1.1 chunked transfer coding, fed bytes as they arrive."""

    def __init__(self, chunked: bool) -> None:
        self.chunked = chunked
        self.buf = b""
        self.left = 0  # bytes of the current chunk still to come, then its CRLF

    def feed(self, data: bytes) -> bytes:
        if not self.chunked:
            return data
        self.buf += data
        out = []
        while True:
            if self.left == 0:
                eol = self.buf.find(b"\r\n")
                if eol < 0:
                    break
                size_text = self.buf[:eol].split(b";")[0].strip()
                if not size_text:  # the CRLF after a chunk's data
                    self.buf = self.buf[eol + 2:]
                    continue
                self.left = int(size_text, 16)
                self.buf = self.buf[eol + 2:]
                if self.left == 0:
                    break  # the last chunk: the stream ended
            take = self.buf[:self.left]
            out.append(take)
            self.left -= len(take)
            self.buf = self.buf[len(take):]
            if self.left:
                break
        return b"".join(out)


class Stream:
    """One open GET stream on its own socket."""

    def __init__(self, server: Server, session: str) -> None:
        self.session = session
        self.sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
        self.sock.sendall((
            f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nAccept: text/event-stream\r\n"
            f"Mcp-Session-Id: {session}\r\nMcp-Protocol-Version: {PROTOCOL}\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise SoakError(f"a GET stream closed before its head: {head[:200]!r}")
            head += chunk
        head, rest = head.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = lines[0].split(" ")
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if len(status) < 2 or status[1] != "200" or not headers.get("content-type", "").startswith(
                "text/event-stream"):
            raise SoakError(f"GET stream: {lines[0]!r}, content-type {headers.get('content-type')!r}")
        self.body = Dechunker(headers.get("transfer-encoding", "").lower() == "chunked")
        self.text = self.body.feed(rest)
        self.closed = False

    def read(self) -> None:
        data = self.sock.recv(65536)
        if not data:
            self.closed = True
        self.text += self.body.feed(data)


@dataclass
class SseRound:
    samples: List[Tuple[int, int]] = field(default_factory=list)  # (streams open, RSS KiB)
    listeners: int = -1
    received: int = 0
    notify_seconds: float = 0.0
    closed_kb: int = 0
    deleted_kb: int = 0
    in_use: int = 0  # glibc heap bytes in use, when --heap
    trimmed_kb: int = 0  # RSS after malloc_trim(0), when --heap


@dataclass
class SseResult:
    baseline_kb: int = 0
    baseline_in_use: int = 0
    trimmed_baseline_kb: int = 0
    rounds: List[SseRound] = field(default_factory=list)


def raise_fd_limit(need: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    if soft < need:
        raise SoakError(f"{need} descriptors needed, the hard limit is {hard}")


def run(server: Server, count: int, slots: int, hold: float, settle: float, rounds: int,
        heap: bool) -> SseResult:
    raise_fd_limit(count + 64)
    result = SseResult()
    # Warm-up: a few streams opened and closed, so the baseline has the code paths loaded.
    conn = server.connect()
    for _ in range(10):
        sid = initialize(conn)
        Stream(server, sid).sock.close()
        delete_session(conn, sid)
    conn.close()
    time.sleep(settle)
    result.baseline_kb = server.rss()
    if heap:
        result.baseline_in_use, result.trimmed_baseline_kb = heap_figures(server)
    for _ in range(rounds):
        result.rounds.append(one_round(server, count, slots, hold, settle, heap))
    return result


def one_round(server: Server, count: int, slots: int, hold: float, settle: float, heap: bool) -> SseRound:
    r = SseRound()
    conn = server.connect()
    sessions = in_slots(server, list(range(count)), slots, lambda c, _: initialize(c))
    streams: List[Stream] = []
    every = max(1, count // 10)
    for n, sid in enumerate(sessions, 1):
        streams.append(Stream(server, sid))
        if n % every == 0 or n == count:
            r.samples.append((n, server.rss()))

    # All open: the server answers a ping, and one notification reaches every stream.
    trigger = initialize(conn)
    time.sleep(hold)
    ping(conn, trigger)
    start = time.monotonic()
    status, headers, body = post(conn, {"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                                        "params": {"name": "test_trigger_tool_change", "arguments": {}}}, trigger)
    if status != 200:
        raise SoakError(f"test_trigger_tool_change: HTTP {status}: {body[:200]!r}")
    answer = decode_answer(headers, body)
    text = ((answer.get("result") or {}).get("content") or [{}])[0].get("text", "")
    m = re.search(r"(\d+) listeners", text)
    r.listeners = int(m.group(1)) if m else -1
    selector = selectors.DefaultSelector()
    waiting = 0
    for s in streams:
        if NOTIFICATION in s.text:
            r.received += 1
        else:
            s.sock.setblocking(False)
            selector.register(s.sock, selectors.EVENT_READ, s)
            waiting += 1
    deadline = time.monotonic() + 60
    while waiting and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=1):
            s = key.data
            s.read()
            if NOTIFICATION in s.text or s.closed:
                selector.unregister(s.sock)
                waiting -= 1
                if s.closed and NOTIFICATION not in s.text:
                    raise SoakError("a GET stream closed while the streams were held")
                r.received += 1
    r.notify_seconds = time.monotonic() - start
    selector.close()
    if r.received != count:
        raise SoakError(f"{r.received} of {count} streams got {NOTIFICATION.decode()} within 60 s")
    ping(conn, trigger)

    for s in streams:
        s.sock.close()
    time.sleep(settle)
    ping(conn, trigger)  # still serves with every stream gone
    r.closed_kb = server.rss()
    in_slots(server, sessions + [trigger], slots, end)
    conn.close()
    time.sleep(settle)
    r.deleted_kb = server.rss()
    if heap:
        r.in_use, r.trimmed_kb = heap_figures(server)
    return r
