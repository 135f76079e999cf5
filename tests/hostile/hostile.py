#!/usr/bin/env python3
"""Hostile input against every surface's everything server, both eras, stdio and HTTP.

What a careless or malicious peer sends (malformed JSON, odd JSON-RPC, odd MCP params, bad
2026-07-28 envelopes, broken HTTP) and the exact answer the spec gives each: the JSON-RPC
error code (and, over HTTP, the status). After every case the server must still answer a
ping; at the end the process must still be running. A crash, a hang (10 s per answer) or a
different answer fails the case, naming the surface, the transport and the input.

Standard library only: the peers here must be able to send what no client library would.

    FERRITE_HOSTILE_SERVERS="rust=/path/everything;python=python everything.py" hostile.py
"""

from __future__ import annotations

import json
import os
import shlex
import socket
import subprocess
import sys
import time
from typing import Callable, Optional

TIMEOUT = 10.0
V_OLD = "2025-11-25"
V_NEW = "2026-07-28"
INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": V_OLD, "capabilities": {}, "clientInfo": {"name": "hostile", "version": "1"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def envelope(**extra) -> dict:
    meta = {
        "io.modelcontextprotocol/protocolVersion": V_NEW,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "hostile", "version": "1"},
    }
    meta.update(extra)
    return meta


_ABSENT = object()


def req(id_, method, params=_ABSENT) -> str:
    """A request; `params=None` sends `"params": null`, leaving it out sends none."""
    m = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not _ABSENT:
        m["params"] = params
    return json.dumps(m)


# Each case: (name, raw line, expected (id, code) or a predicate on the answer). `None` code:
# a result is due. The handshake cases run after initialize; the modern ones on a fresh
# process whose first request carries the envelope.
HANDSHAKE_CASES: list[tuple[str, str, object]] = [
    ("truncated JSON", '{"jsonrpc":"2.0","id":1,', (None, -32700)),
    ("not JSON at all", "hello", (None, -32700)),
    ("lone surrogate", '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"\\ud800"}}', (None, -32700)),
    ("nesting 100,000 deep", "[" * 100_000 + "]" * 100_000, (None, -32700)),
    ("a bare number", "42", (None, -32600)),
    ("empty batch", "[]", (None, -32600)),
    ("batch on 2025-11-25", "[" + req(1, "ping") + "]", (None, -32600)),
    ("nested batch", "[[" + req(1, "ping") + "]]", (None, -32600)),
    ("batch of notifications", "[" + json.dumps(INITIALIZED) + "," + json.dumps(INITIALIZED) + "]", (None, -32600)),
    ("jsonrpc 1.0", json.dumps({"jsonrpc": "1.0", "id": 5, "method": "ping"}), (5, -32600)),
    ("id is an object", json.dumps({"jsonrpc": "2.0", "id": {}, "method": "ping"}), (None, -32600)),
    ("id is a float", json.dumps({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}), (None, -32600)),
    ("method is a number", json.dumps({"jsonrpc": "2.0", "id": 6, "method": 7}), (6, -32600)),
    ("no method, no result", json.dumps({"jsonrpc": "2.0", "id": 7}), (7, -32600)),
    ("unknown method", req(8, "no/such/method"), (8, -32601)),
    ("params null", req(9, "tools/list", None), (9, -32600)),
    ("params an array", req(10, "tools/list", []), (10, -32602)),
    ("params a string", req(11, "tools/list", "x"), (11, -32600)),
    ("tools/call without a name", req(12, "tools/call", {}), (12, -32602)),
    ("tools/call of an unknown tool", req(13, "tools/call", {"name": "no_such_tool", "arguments": {}}), (13, -32602)),
    ("tools/call with arguments an array", req(14, "tools/call", {"name": "add", "arguments": [1, 2]}), (14, -32602)),
    ("resources/read of an unknown URI", req(15, "resources/read", {"uri": "test://no/such/resource"}), (15, -32002)),
    ("resources/read without a uri", req(16, "resources/read", {}), (16, -32602)),
    ("prompts/get of an unknown prompt", req(17, "prompts/get", {"name": "no_such_prompt"}), (17, -32602)),
    (
        "completion for an unknown prompt",
        req(18, "completion/complete", {"ref": {"type": "ref/prompt", "name": "no_such_prompt"}, "argument": {"name": "a", "value": ""}}),
        (18, -32602),
    ),
    ("completion with a bad ref", req(19, "completion/complete", {"ref": {"type": "ref/nothing"}, "argument": {"name": "a", "value": ""}}), (19, -32602)),
    ("logging/setLevel to a bad level", req(20, "logging/setLevel", {"level": "loudest"}), (20, -32602)),
    ("a second initialize", json.dumps(dict(INIT, id=21)), (21, -32600)),
    ("a 2026-07-28 request on a handshake connection", req(22, "tools/list", {"_meta": envelope()}), (22, -32600)),
    ("tasks/get of an unknown task", req(23, "tasks/get", {"taskId": "no-such-task"}), (23, -32602)),
    ("an answer to nothing", json.dumps({"jsonrpc": "2.0", "id": "nobody-asked", "result": {}}), "silence"),
    ("cancel of an unknown request", json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 999}}), "silence"),
    ("an unknown notification", json.dumps({"jsonrpc": "2.0", "method": "notifications/whatever"}), "silence"),
]

MODERN_CASES: list[tuple[str, str, object]] = [
    ("envelope without clientCapabilities", req(31, "tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": V_NEW}}), (31, -32602)),
    ("envelope with an unsupported version", req(32, "tools/list", {"_meta": envelope(**{"io.modelcontextprotocol/protocolVersion": "1999-01-01"})}), (32, -32022)),
    ("envelope version a number", req(33, "tools/list", {"_meta": envelope(**{"io.modelcontextprotocol/protocolVersion": 20260728})}), (33, -32602)),
    ("modern unknown method", req(34, "no/such/method", {"_meta": envelope()}), (34, -32601)),
    ("modern ping (removed)", req(35, "ping", {"_meta": envelope()}), (35, -32601)),
    # 2026-07-28 has no initialize: a method it does not know.
    ("modern initialize", req(36, "initialize", dict(INIT["params"], _meta=envelope())), (36, -32601)),
    ("modern tools/call unknown tool", req(37, "tools/call", {"name": "no_such_tool", "arguments": {}, "_meta": envelope()}), (37, -32602)),
    ("tampered requestState", req(38, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}, "requestState": "AAAA.tampered", "_meta": envelope()}), (38, -32602)),
    ("modern batch", "[" + req(39, "tools/list", {"_meta": envelope()}) + "]", (None, -32600)),
]


class Failure(Exception):
    pass


def check(name: str, answer: Optional[dict], expected) -> None:
    if expected == "silence":
        if answer is not None:
            raise Failure(f"{name}: expected no answer, got {answer}")
        return
    if answer is None:
        raise Failure(f"{name}: no answer within {TIMEOUT} s")
    want_id, want_code = expected
    got = (answer.get("id"), (answer.get("error") or {}).get("code"))
    if got != (want_id, want_code):
        raise Failure(f"{name}: expected (id, code) {(want_id, want_code)}, got {got}: {json.dumps(answer)[:300]}")


# ----- stdio -----


class Stdio:
    def __init__(self, argv: list[str]):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.buf = b""

    def send(self, line: str | bytes) -> None:
        data = line if isinstance(line, bytes) else line.encode()
        assert self.p.stdin is not None
        self.p.stdin.write(data + b"\n")
        self.p.stdin.flush()

    def recv(self, timeout: float = TIMEOUT) -> Optional[dict]:
        import select

        assert self.p.stdout is not None
        fd = self.p.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        try:
            return json.loads(line)
        except ValueError as e:
            raise Failure(f"stdout carried a non-JSON line ({e}): {line[:200]!r}")

    def answer(self, line: str | bytes, expect_silence: bool = False) -> Optional[dict]:
        """Send a line and read answers, skipping notifications; with expect_silence, a
        ping follows and its answer proves nothing came before it."""
        self.send(line)
        if expect_silence:
            self.send(req("after", "ping") if not self.modern else req("after", "server/discover", {"_meta": envelope()}))
        while True:
            m = self.recv()
            if m is None or "method" not in m:
                if expect_silence and m is not None and m.get("id") == "after":
                    return None
                return m

    modern = False

    def alive(self, label: str) -> None:
        probe = req("alive", "server/discover", {"_meta": envelope()}) if self.modern else req("alive", "ping")
        m = self.answer(probe)
        if not m or m.get("id") != "alive" or "result" not in m:
            raise Failure(f"{label}: the server did not answer the probe afterwards (got {m}); exit code {self.p.poll()}")

    def close(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()


def stdio_handshake(argv: list[str]) -> list[str]:
    failures = []
    s = Stdio(argv)
    try:
        s.send(json.dumps(INIT))
        init = s.recv()
        if not init or "result" not in init:
            return [f"initialize failed: {init}"]
        s.send(json.dumps(INITIALIZED))
        for name, line, expected in HANDSHAKE_CASES:
            try:
                check(name, s.answer(line, expect_silence=expected == "silence"), expected)
                s.alive(name)
            except Failure as e:
                failures.append(str(e))
                if s.p.poll() is not None:
                    failures.append(f"the process exited ({s.p.returncode}) after {name!r}")
                    return failures
        # A line over the 4 MiB default, and invalid UTF-8.
        for name, data, expected in [
            ("a 5 MiB line", b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + b"x" * (5 << 20) + b'"}}', (None, -32700)),
            ("invalid UTF-8", b'{"jsonrpc":"2.0","id":1,"method":"\xff\xfe"}', (None, -32700)),
        ]:
            try:
                check(name, s.answer(data), expected)
                s.alive(name)
            except Failure as e:
                failures.append(str(e))
    finally:
        s.close()
    # initialize without capabilities, on a fresh process.
    s = Stdio(argv)
    try:
        bad = dict(INIT, params={"protocolVersion": V_OLD, "clientInfo": {"name": "h", "version": "1"}})
        check("initialize without capabilities", s.answer(json.dumps(bad)), (0, -32602))
    except Failure as e:
        failures.append(str(e))
    finally:
        s.close()
    return failures


def stdio_modern(argv: list[str]) -> list[str]:
    failures = []
    s = Stdio(argv)
    s.modern = True
    try:
        first = s.answer(req(30, "server/discover", {"_meta": envelope()}))
        if not first or "result" not in first:
            return [f"server/discover failed: {first}"]
        for name, line, expected in MODERN_CASES:
            try:
                check(name, s.answer(line), expected)
                s.alive(name)
            except Failure as e:
                failures.append(str(e))
                if s.p.poll() is not None:
                    failures.append(f"the process exited ({s.p.returncode}) after {name!r}")
                    return failures
    finally:
        s.close()
    return failures


# ----- HTTP -----


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_raw(port: int, data: bytes, timeout: float = TIMEOUT) -> tuple[int, dict, bytes]:
    """Send raw bytes (the request must say `connection: close`); status, headers, body."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as c:
        try:
            c.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered early (413) and closed: read what it said
        out = b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                chunk = c.recv(1 << 16)
            except (socket.timeout, ConnectionResetError):
                break
            if not chunk:
                break
            out += chunk
    head, _, body = out.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    try:
        status = int(lines[0].split(" ")[1])
    except (IndexError, ValueError):
        return 0, {}, out
    headers = {}
    for l in lines[1:]:
        k, _, v = l.partition(":")
        headers[k.strip().lower()] = v.strip()
    if headers.get("transfer-encoding") == "chunked":
        body = dechunk(body)
    return status, headers, body


def refused_late_then_ping(port: int, sess: dict) -> tuple[int, dict, bytes]:
    """A POST refused from its head (text/plain: 415) whose body arrives 150 ms after the head,
    then a ping on the same keep-alive connection: the ping's status, headers and body (status
    0 when the first answer was not the 415, or the connection was closed under the ping)."""
    ping = req("late", "ping").encode()
    extra = "".join(f"{k}: {v}\r\n" for k, v in sess.items())
    head = f"POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-type: text/plain\r\naccept: application/json, text/event-stream\r\n{extra}content-length: {len(ping)}\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as c:
        c.sendall(head.encode())
        time.sleep(0.15)
        c.sendall(ping)
        buf = b""
        while b"\r\n\r\n" not in buf:
            chunk = c.recv(1 << 16)
            if not chunk:
                return 0, {}, b"closed before the first answer"
            buf += chunk
        first_head, _, rest = buf.partition(b"\r\n\r\n")
        if b" 415 " not in first_head.split(b"\r\n")[0]:
            return 0, {}, first_head
        length = next((int(l.split(b":")[1]) for l in first_head.split(b"\r\n") if l.lower().startswith(b"content-length:")), 0)
        while len(rest) < length:
            chunk = c.recv(1 << 16)
            if not chunk:
                return 0, {}, b"closed inside the first answer"
            rest += chunk
        second = f"POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n{extra}connection: close\r\ncontent-length: {len(ping)}\r\n\r\n"
        try:
            c.sendall(second.encode() + ping)
        except (BrokenPipeError, ConnectionResetError):
            return 0, {}, b"the connection was closed after the 415"
        out = rest[length:]
        while True:
            try:
                chunk = c.recv(1 << 16)
            except ConnectionResetError:
                break
            if not chunk:
                break
            out += chunk
    if not out:
        return 0, {}, b"the connection was closed after the 415"
    head2, _, body = out.partition(b"\r\n\r\n")
    lines = head2.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:])}
    if headers.get("transfer-encoding") == "chunked":
        body = dechunk(body)
    m = rpc_of(body)
    if not isinstance(m, dict) or "result" not in m:
        return 0, headers, body
    return int(lines[0].split(" ")[1]), headers, body


def dechunk(b: bytes) -> bytes:
    out = b""
    while b:
        size_line, _, rest = b.partition(b"\r\n")
        try:
            size = int(size_line.split(b";")[0], 16)
        except ValueError:
            break
        if size == 0:
            break
        out += rest[:size]
        b = rest[size + 2 :]
    return out


def post(port: int, body: bytes | str, headers: Optional[dict] = None, host: str = "localhost") -> tuple[int, dict, bytes]:
    if isinstance(body, str):
        body = body.encode()
    h = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    h.update(headers or {})
    lines = f"POST /mcp HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\ncontent-length: {len(body)}\r\n"
    lines += "".join(f"{k}: {v}\r\n" for k, v in h.items() if v is not None)
    return http_raw(port, lines.encode() + b"\r\n" + body)


def rpc_of(body: bytes) -> Optional[dict]:
    """The JSON-RPC message of a JSON or SSE body."""
    text = body.decode("utf-8", "replace").strip()
    if not text:
        return None
    if text.startswith("{") or text.startswith("["):
        try:
            return json.loads(text)
        except ValueError:
            return None
    for event in text.split("\n\n"):
        data = "".join(l[5:].strip() for l in event.split("\n") if l.startswith("data:"))
        if data:
            m = json.loads(data)
            if "method" not in m:
                return m
    return None


def http_cases(port: int) -> list[str]:
    failures = []
    st, h, body = post(port, json.dumps(INIT))
    if st != 200 or "mcp-session-id" not in h:
        return [f"initialize over HTTP failed: {st} {body[:200]!r}"]
    sid = h["mcp-session-id"]
    sess = {"mcp-session-id": sid, "mcp-protocol-version": V_OLD}
    post(port, json.dumps(INITIALIZED), sess)
    modern_h = {"mcp-protocol-version": V_NEW, "mcp-method": "tools/list"}
    big = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + b"x" * (5 << 20) + b'"}}'

    def raw_req(first_line_and_headers: str, body: bytes = b"") -> Callable[[], tuple[int, dict, bytes]]:
        return lambda: http_raw(port, first_line_and_headers.encode() + body)

    # (name, request, expected status, expected JSON-RPC code or None to not check the body)
    cases: list[tuple[str, Callable[[], tuple[int, dict, bytes]], int, Optional[int]]] = [
        ("truncated JSON", lambda: post(port, '{"jsonrpc":', sess), 400, -32700),
        ("body not UTF-8", lambda: post(port, b"\xff\xfe", sess), 400, -32700),
        ("nesting 100,000 deep", lambda: post(port, "[" * 100_000 + "]" * 100_000, sess), 400, -32700),
        ("empty batch", lambda: post(port, "[]", sess), 400, -32600),
        ("nested batch", lambda: post(port, "[[" + req(1, "ping") + "]]", sess), 400, -32600),
        ("batch of notifications on 2025-11-25", lambda: post(port, "[" + json.dumps(INITIALIZED) + "]", sess), 400, -32600),
        ("jsonrpc 1.0", lambda: post(port, json.dumps({"jsonrpc": "1.0", "id": 5, "method": "ping"}), sess), 400, -32600),
        ("params null", lambda: post(port, req(9, "tools/list", None), sess), 400, -32600),
        ("params an array", lambda: post(port, req(10, "tools/list", []), sess), 400, -32602),
        ("unknown method", lambda: post(port, req(8, "no/such/method"), sess), 200, -32601),
        ("unknown tool", lambda: post(port, req(13, "tools/call", {"name": "no_such_tool", "arguments": {}}), sess), 200, -32602),
        ("5 MiB body", lambda: post(port, big, sess), 413, None),
        ("text/plain", lambda: post(port, req(1, "ping"), dict(sess, **{"content-type": "text/plain"})), 415, None),
        ("text/plain with its body late, then a ping on the same connection", lambda: refused_late_then_ping(port, sess), 200, None),
        ("no Accept", lambda: post(port, req(1, "ping"), dict(sess, accept=None)), 406, None),
        ("unknown session", lambda: post(port, req(1, "ping"), {"mcp-session-id": "0" * 32, "mcp-protocol-version": V_OLD}), 404, None),
        ("missing session", lambda: post(port, req(1, "tools/list"), {"mcp-protocol-version": V_OLD}), 400, None),
        ("bogus protocol version header", lambda: post(port, req(1, "ping"), dict(sess, **{"mcp-protocol-version": "bogus"})), 400, None),
        ("foreign Host", lambda: post(port, req(1, "ping"), sess, host="evil.example"), 403, None),
        ("foreign Origin", lambda: post(port, req(1, "ping"), dict(sess, origin="http://evil.example")), 403, None),
        (
            "two Host headers",
            raw_req(f"POST /mcp HTTP/1.1\r\nhost: localhost\r\nhost: evil.example\r\nconnection: close\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {len(req(1, 'ping'))}\r\n\r\n", req(1, "ping").encode()),
            400,
            None,
        ),
        ("PUT", raw_req("PUT /mcp HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"), 405, None),
        ("GET without Accept", raw_req(f"GET /mcp HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\nmcp-session-id: {sid}\r\n\r\n"), 406, None),
        ("DELETE of an unknown session", raw_req(f"DELETE /mcp HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\nmcp-session-id: {'0' * 32}\r\nmcp-protocol-version: {V_OLD}\r\n\r\n"), 404, None),
        ("garbage request line", raw_req("GARBAGE\r\n\r\n"), 400, None),
        ("bad chunk size", raw_req("POST /mcp HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\ncontent-type: application/json\r\naccept: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"), 400, None),
        ("modern: header mismatch", lambda: post(port, req(40, "tools/list", {"_meta": envelope()}), dict(modern_h, **{"mcp-method": "prompts/list"})), 400, -32020),
        ("modern: unsupported version", lambda: post(port, req(41, "tools/list", {"_meta": envelope(**{"io.modelcontextprotocol/protocolVersion": "1999-01-01"})}), {"mcp-protocol-version": "1999-01-01", "mcp-method": "tools/list"}), 400, -32022),
        ("modern: no clientCapabilities", lambda: post(port, req(42, "tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": V_NEW}}), modern_h), 400, -32602),
        ("modern: unknown method", lambda: post(port, req(43, "no/such", {"_meta": envelope()}), {"mcp-protocol-version": V_NEW, "mcp-method": "no/such"}), 404, -32601),
        ("modern: batch", lambda: post(port, "[" + req(44, "tools/list", {"_meta": envelope()}) + "]", modern_h), 400, -32600),
    ]
    for name, send, want_status, want_code in cases:
        try:
            st, _, body = send()
        except OSError as e:
            failures.append(f"{name}: the connection failed ({e})")
            continue
        got_code = None
        if want_code is not None:
            m = rpc_of(body)
            if isinstance(m, list):
                m = m[0] if m else None
            got_code = (m or {}).get("error", {}).get("code") if isinstance(m, dict) else None
        if st != want_status or got_code != want_code:
            failures.append(f"{name}: expected {want_status}/{want_code}, got {st}/{got_code}: {body[:200]!r}")
        st2, _, body2 = post(port, req("alive", "ping"), sess)
        m = rpc_of(body2)
        if st2 != 200 or not m or "result" not in m:
            failures.append(f"{name}: the server did not answer a ping afterwards ({st2} {body2[:200]!r})")
            break
    return failures


def start_http(argv: list[str]) -> tuple[subprocess.Popen, int]:
    port = free_port()
    p = subprocess.Popen(argv + ["--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return p, port
        except OSError:
            if p.poll() is not None:
                raise Failure(f"the HTTP server exited ({p.returncode}) before listening")
            time.sleep(0.05)
    p.kill()
    raise Failure("the HTTP server did not listen within 30 s")


def main() -> int:
    spec = os.environ.get("FERRITE_HOSTILE_SERVERS", "")
    servers = [s.split("=", 1) for s in spec.split(";") if s.strip()]
    if not servers:
        print("FERRITE_HOSTILE_SERVERS is empty", file=sys.stderr)
        return 2
    total_failures = 0
    n_cases = len(HANDSHAKE_CASES) + 3 + len(MODERN_CASES)
    for name, cmd in servers:
        argv = shlex.split(cmd)
        results = []
        for label, run in [("stdio handshake", stdio_handshake), ("stdio 2026-07-28", stdio_modern)]:
            started = time.monotonic()
            failures = run(argv)
            results.append((label, failures, time.monotonic() - started))
        started = time.monotonic()
        try:
            p, port = start_http(argv)
            try:
                failures = http_cases(port)
                if p.poll() is not None:
                    failures.append(f"the HTTP server exited ({p.returncode})")
            finally:
                p.kill()
                p.wait()
        except Failure as e:
            failures = [str(e)]
        results.append(("HTTP, both eras", failures, time.monotonic() - started))
        for label, failures, took in results:
            status = "ok" if not failures else f"{len(failures)} FAILED"
            print(f"{name:8} {label:18} {status} ({took:.1f} s)")
            for f in failures:
                print(f"    {f}")
            total_failures += len(failures)
    print(f"hostile: {len(servers)} servers, {n_cases} stdio cases and the HTTP cases each; {total_failures} failures")
    return 1 if total_failures else 0


if __name__ == "__main__":
    sys.exit(main())
