"""The `calls` soak: N `tools/call` of `add`, each with its own operands and each answer
checked, K in flight, the server's RSS sampled every N/50 calls.

On stdio the calls are pipelined on one pipe: K requests are written at once and one more is
written for every answer read, so exactly K are outstanding until the tail. On HTTP each
in-flight slot is a thread with its own keep-alive `http.client` connection, against a
stateless server (every call stands alone) or inside one session.
"""

from __future__ import annotations

import json
import os
import select
import threading
import time
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from server import JSON_HEADERS, PROTOCOL, Server, SoakError, decode_answer, initialize


# Seconds the stdio loop waits for the next answer before it calls the server hung.
ANSWER_TIMEOUT = 30.0


def operands(i: int) -> Tuple[int, int]:
    """The arguments of call `i`: different for every call, sums well inside 2^53."""
    return (i * 7919) % 1_000_003 - 500_000, i


def request(i: int) -> bytes:
    a, b = operands(i)
    return (b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":'
            b'{"a":%d,"b":%d}}}' % (i, a, b))


def check(msg: dict, i: int) -> None:
    """Call `i`'s answer must be the sum, in text and in structuredContent when present."""
    a, b = operands(i)
    result = msg.get("result")
    if not isinstance(result, dict) or result.get("isError"):
        raise SoakError(f"call {i} (add {a} {b}) answered {json.dumps(msg)[:300]}")
    content = result.get("content") or [{}]
    if content[0].get("text") != str(a + b):
        raise SoakError(f"call {i} (add {a} {b}): text {content[0].get('text')!r}, {a + b} expected")
    structured = result.get("structuredContent")
    if structured is not None and structured.get("sum") != a + b:
        raise SoakError(f"call {i} (add {a} {b}): structuredContent {structured!r}")


@dataclass
class CallsResult:
    samples: List[Tuple[int, int]] = field(default_factory=list)  # (calls answered, RSS KiB)
    seconds: float = 0.0
    warm_seconds: float = 0.0  # time of the warm-up sample, from the first call


class Sampler:
    """Takes the RSS every `every` calls (and at the warm-up mark); thread-safe."""

    def __init__(self, server: Server, total: int, warm_at: int) -> None:
        self.server = server
        self.every = max(1, total // 50)
        self.warm_at = warm_at
        self.result = CallsResult()
        self.start = time.monotonic()

    def answered(self, done: int) -> None:
        if done % self.every == 0 or done == self.warm_at:
            self.result.samples.append((done, self.server.rss()))
            if done == self.warm_at:
                self.result.warm_seconds = time.monotonic() - self.start


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def run_stdio(server: Server, n: int, k: int, warm_at: int) -> CallsResult:
    assert server.proc.stdin is not None and server.proc.stdout is not None
    fd_in, fd_out = server.proc.stdin.fileno(), server.proc.stdout.fileno()
    buf = b""

    def lines():
        nonlocal buf
        while True:
            if not select.select([fd_out], [], [], ANSWER_TIMEOUT)[0]:
                raise SoakError(f"no answer within {ANSWER_TIMEOUT:.0f} s; {server.log_tail()}")
            chunk = os.read(fd_out, 1 << 16)
            if not chunk:
                raise SoakError(f"the server closed stdout; {server.log_tail()}")
            buf += chunk
            parts = buf.split(b"\n")
            buf = parts.pop()
            yield [p for p in parts if p.strip()]

    write_all(fd_in, json.dumps({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                   "clientInfo": {"name": "ferrite-soak", "version": "1"}},
    }).encode() + b"\n")
    reader = lines()
    while not any(json.loads(line).get("id") == 0 for line in next(reader)):
        pass
    write_all(fd_in, b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

    sampler = Sampler(server, n, warm_at)
    outstanding = set()
    next_id, done = 1, 0
    first = []
    while next_id <= min(k, n):
        first.append(request(next_id) + b"\n")
        outstanding.add(next_id)
        next_id += 1
    write_all(fd_in, b"".join(first))
    while done < n:
        out = []
        for line in next(reader):
            msg = json.loads(line)
            if "method" in msg or "id" not in msg:
                continue  # a notification or request from the server: not an answer
            i = msg["id"]
            if i not in outstanding:
                raise SoakError(f"an answer to id {i!r}, which is not outstanding")
            outstanding.discard(i)
            check(msg, i)
            done += 1
            sampler.answered(done)
            if next_id <= n:
                out.append(request(next_id) + b"\n")
                outstanding.add(next_id)
                next_id += 1
        if out:
            write_all(fd_in, b"".join(out))
    sampler.result.seconds = time.monotonic() - sampler.start
    return sampler.result


def run_http(server: Server, n: int, k: int, warm_at: int, session: bool) -> CallsResult:
    sid: Optional[str] = None
    if session:
        conn = server.connect()
        sid = initialize(conn)
        conn.close()
    headers = dict(JSON_HEADERS)
    if sid is not None:
        headers["mcp-session-id"] = sid
    lock = threading.Lock()
    state = {"next": 1, "done": 0}
    errors: List[BaseException] = []
    sampler = Sampler(server, n, warm_at)

    def slot() -> None:
        conn = server.connect()
        try:
            while not errors:
                with lock:
                    i = state["next"]
                    if i > n:
                        return
                    state["next"] = i + 1
                conn.request("POST", "/mcp", request(i), headers)
                resp = conn.getresponse()
                body = resp.read()
                if resp.status != 200:
                    raise SoakError(f"call {i}: HTTP {resp.status}: {body[:200]!r}")
                check(decode_answer({k.lower(): v for k, v in resp.getheaders()}, body), i)
                with lock:
                    state["done"] += 1
                    sampler.answered(state["done"])
        except BaseException as e:  # reported by the main thread
            errors.append(e)
        finally:
            conn.close()

    threads = [threading.Thread(target=slot, daemon=True) for _ in range(k)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise SoakError(f"{type(errors[0]).__name__}: {errors[0]}; {server.log_tail()}")
    sampler.result.seconds = time.monotonic() - sampler.start
    return sampler.result
