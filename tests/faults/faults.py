#!/usr/bin/env python3
"""Fault injection against every surface's everything server, over stdio and HTTP.

The everything servers carry four fault tools (examples/SURFACE.md, "Fault tools"): a handler
that crashes the worst way its language allows, one that fails asynchronously, one that
returns a result that is not a valid tool result, and one that never returns unless
cancelled. Per server and transport this test shows that:

- each fault, called ROUNDS times (FERRITE_FAULT_ROUNDS, 300 by default) between `add` calls
  whose sums are checked, answers the same exact JSON-RPC error or `isError` result every
  time, and the server keeps serving;
- each fault is answered alike on every surface and transport (a crash is an `isError` result
  with the handler's own message, a result that is not valid is -32603), except where the
  language supplies the words (KNOWN_DIVERGENCES, which must be exactly as listed);
- `test_fault_hang` followed by `notifications/cancelled` gets no answer (drained with a
  ping) and its handler ends: `test_cancellation_count` rises by one per cancelled call;
- after all that, the process's open file descriptors are back to their count after the
  warm-up, and its resident memory grew less than RSS_BOUND_KB;
- a client that goes away mid-request (HTTP: a `test_fault_hang` POST whose socket is
  closed, 20 times, then each call cancelled on its session: disconnection is not
  cancellation), mid-SSE (a session's GET stream opened and closed, 100 sessions) or
  mid-elicitation (stdio: stdin closed while the server waits for the elicitation answer: the
  process exits 0 within 5 s; HTTP: the POST stream closed: the server keeps serving) leaves
  the server serving, and the server lets go of each connection (its socket's peer port is
  gone from /proc) within SSE_SETTLE seconds: a server notices a client gone from a response
  it streams only when it next writes to it, at the latest at the SSE keep-alive, 15 s
  (its descriptor until a second write fails);
- stdin closed with three `test_slow` calls in flight (stdio): all three answers arrive,
  then the process exits 0.

Each server and transport prints one line with its figures; any deviation fails the run. The
five HTTP checks run side by side (their settle waits overlap), the stdio checks in turn.
Standard library only.

    FERRITE_FAULT_SERVERS="rust=/path/everything;python=python everything.py" faults.py
"""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, Callable, Optional

from peers import (
    TIMEOUT,
    Failure,
    Http,
    Stdio,
    dechunk,
    fd_count,
    free_port,
    init_params,
    messages_in,
    outcome,
    peer_ports,
    request,
    rss_kb,
    settle_fds,
    stable_fds,
)

ROUNDS = int(os.environ.get("FERRITE_FAULT_ROUNDS", "300"))
WARMUP = 100
FAULTS = ("test_fault_crash", "test_fault_reject", "test_fault_bad_result")
SSE_CYCLES = 100
DISCONNECTS = 20
# Resident memory may grow this much over ROUNDS rounds after the warm-up (each round: the
# three failing tools, one cancelled test_fault_hang, four add calls; 300 rounds are 1,200
# faults). It is not tighter because the garbage-collected runtimes size their heaps as they
# go: Go lets its heap grow to twice the live heap before collecting (GOGC=100) and V8 grows
# its young generation, so Go and Node gain 1 to 2 MB over 100 rounds and 3 to 4 MB over 300
# with nothing leaked (the Rust, C and Python servers gain under 100 kB). So the bound is a
# fixed 4 MB for that heap sizing plus 14 kB per round (3.5 kB per fault): 8,296 kB at 300
# rounds, where a leak of 7 kB per fault (one request's context, arguments and error text, a
# Python traceback, a JS error object with its stack) exceeds it, and 5,496 kB at 100, where
# one of 14 kB per fault does. Smaller leaks are the soak test's to find (a million calls, flat
# within 5%).
RSS_BOUND_KB = int(os.environ.get("FERRITE_FAULT_RSS_BOUND_KB", str(4096 + 14 * ROUNDS)))
# How long a server may take to let go of a client that left a response it streams: the first
# write after the close (at the latest the SSE keep-alive, 15 s in every everything server)
# draws the client's reset, the second fails and the connection is dropped: about 30 s.
SSE_SETTLE = float(os.environ.get("FERRITE_FAULT_SSE_SETTLE", "45"))


# Where the language supplies the words: per fault tool, the surfaces whose answer carries
# text of their own language, each with its exact answer (result or error, as `outcome`
# renders it) and why. The shape (an `isError` result, or -32603 with the core's "the
# handler's result is not valid: " prefix) is the core's and the same everywhere; a listed
# surface must give exactly this answer over both transports; the surfaces not listed for a
# tool must all answer as the first of them run.
def _is_error(text: str) -> dict:
    return {"result": {"content": [{"type": "text", "text": text}], "isError": True}}


def _invalid(detail: str) -> dict:
    return {"error": {"code": -32603, "message": f"the handler's result is not valid: {detail}"}}


_NOT_JSON = "the result is not a valid CallToolResult: EOF while parsing a list at line 1 column 13"
_WORDS = "the reason is the language's own"
KNOWN_DIVERGENCES: dict[str, dict[str, tuple[dict, str]]] = {
    "test_fault_crash": {
        "c": (_is_error("the handler failed"), "a C status code carries no message: the code's own, FERRITE_RESULT_HANDLER_FAILED"),
    },
    "test_fault_bad_result": {
        "rust": (_invalid("structuredContent must be a JSON object"), f"the core's check; {_WORDS}"),
        "c": (_invalid(_NOT_JSON), f"the C ABI's parse of the completion; {_WORDS}"),
        "go": (_invalid(_NOT_JSON), f"the C ABI's parse of the completion; {_WORDS}"),
        "python": (_invalid("a value of type NotJson cannot be sent as JSON"), f"the package's JSON conversion; {_WORDS}"),
        "node": (_invalid("Do not know how to serialize a BigInt"), f"JSON.stringify's error; {_WORDS}"),
    },
}

# Each server and transport's answer to each fault tool (the same every time, or it failed).
SEEN: dict[tuple[str, str], dict[str, str]] = {}
SEEN_LOCK = threading.Lock()
PRINT_LOCK = threading.Lock()


# ------------------------------------------------------------------------------- checks


class Run:
    """The checks shared by both transports, on one server."""

    def __init__(self, peer: Any, pid: int) -> None:
        self.peer = peer
        self.pid = pid
        self.next_id = 100
        self.seen: dict[str, str] = {}
        self.resent = 0  # cancellations sent again (the first came before the call)

    def id(self) -> int:
        self.next_id += 1
        return self.next_id

    def tool(self, name: str, arguments: Optional[dict] = None) -> dict:
        return self.peer.call(self.id(), "tools/call", {"name": name, "arguments": arguments or {}})

    def add(self, a: int) -> None:
        got = self.tool("add", {"a": a, "b": 1})
        text = got.get("result", {}).get("content", [{}])[0].get("text")
        if text != str(a + 1):
            raise Failure(f"add({a}, 1) answered {got}")

    def fault(self, name: str) -> None:
        got = outcome(self.tool(name))
        first = self.seen.setdefault(name, got)
        if got != first:
            raise Failure(f"{name} answered {got}, earlier {first}")

    def cancel_count(self) -> int:
        got = self.tool("test_cancellation_count")
        return int(got["result"]["content"][0]["text"])

    def wait_count(self, want: int, timeout: float = 5) -> int:
        deadline = time.monotonic() + timeout
        n = self.cancel_count()
        while n < want and time.monotonic() < deadline:
            time.sleep(0.05)
            n = self.cancel_count()
        return n

    def rounds(self, n: int, hang: Callable[[], None]) -> None:
        for i in range(n):
            for name in FAULTS:
                self.fault(name)
                self.add(i)
            hang()
            self.add(-i)


def stdio_hang(run: Run, peer: Stdio) -> None:
    """test_fault_hang, cancelled: no answer for it, drained with a ping."""
    hid = run.id()
    peer.send(request(hid, "tools/call", {"name": "test_fault_hang", "arguments": {}}))
    # Cancel only once the handler runs: a ping sent after the call is answered after the
    # call was dispatched (one reader), so the cancellation finds it in flight.
    run.peer.call(run.id(), "ping")
    peer.notify("notifications/cancelled", {"requestId": hid, "reason": "fault test"})
    run.peer.call(run.id(), "ping")
    with peer.lock:
        if hid in peer.answers:
            raise Failure(f"test_fault_hang {hid} answered after cancellation: {peer.answers[hid]}")


def check_stdio(name: str, argv: list[str], errlog: Any) -> str:
    peer = Stdio(argv, errlog)
    try:
        peer.call(0, "initialize", init_params())
        peer.notify("notifications/initialized")
        run = Run(peer, peer.pid)
        count0 = run.cancel_count()
        run.rounds(WARMUP, lambda: stdio_hang(run, peer))
        fds0, rss0 = stable_fds(peer.pid), rss_kb(peer.pid)
        run.rounds(ROUNDS, lambda: stdio_hang(run, peer))
        cancelled = run.wait_count(count0 + WARMUP + ROUNDS) - count0
        fds1, rss1 = settle_fds(peer.pid, fds0), rss_kb(peer.pid)
        with peer.lock:
            late = [i for i in peer.answers]
        problems = []
        if cancelled != WARMUP + ROUNDS:
            problems.append(f"{cancelled} hang handlers observed cancellation, want {WARMUP + ROUNDS}")
        if late:
            problems.append(f"answers nobody waited for: {late[:5]}")
        if fds1 != fds0:
            problems.append(f"fds {fds0} -> {fds1}")
        if rss1 - rss0 >= RSS_BOUND_KB:
            problems.append(f"RSS grew {rss1 - rss0} kB (bound {RSS_BOUND_KB})")
    finally:
        peer.close()
    with SEEN_LOCK:
        SEEN[(name, "stdio")] = run.seen
    elicit = stdio_mid_elicitation(argv, errlog)
    inflight = stdio_close_in_flight(argv, errlog)
    line = (
        f"{name} stdio: {ROUNDS} rounds, fds {fds0} -> {fds1}, RSS {rss0} -> {rss1} kB ({rss1 - rss0:+d}), "
        f"hang cancelled {cancelled}; {elicit}; {inflight}"
    )
    if problems:
        raise Failure(line + ": " + "; ".join(problems))
    return line


def wait_exit(proc: subprocess.Popen, timeout: float, what: str) -> float:
    started = time.monotonic()
    try:
        rc = proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise Failure(f"{what}: still running after {timeout} s")
    if rc != 0:
        raise Failure(f"{what}: exit status {rc}, want 0")
    return time.monotonic() - started


def stdio_mid_elicitation(argv: list[str], errlog: Any) -> str:
    peer = Stdio(argv, errlog)
    try:
        peer.call(0, "initialize", init_params(elicitation=True))
        peer.notify("notifications/initialized")
        peer.send(request(1, "tools/call", {"name": "test_elicitation", "arguments": {"message": "left unanswered"}}))
        peer.wait_for(
            lambda: any(r.get("method") == "elicitation/create" for r in peer.requests), "elicitation/create"
        )
        assert peer.proc.stdin is not None
        peer.proc.stdin.close()
        took = wait_exit(peer.proc, 5, "stdin closed mid-elicitation")
        return f"mid-elicitation stdin closed: exit 0 after {took:.2f} s"
    finally:
        peer.close()


def stdio_close_in_flight(argv: list[str], errlog: Any) -> str:
    peer = Stdio(argv, errlog)
    try:
        peer.call(0, "initialize", init_params())
        peer.notify("notifications/initialized")
        for i in (1, 2, 3):
            peer.send(request(i, "tools/call", {"name": "test_slow", "arguments": {"ms": 100}}))
        assert peer.proc.stdin is not None
        peer.proc.stdin.close()
        for i in (1, 2, 3):
            got = peer.answer(i)
            if got.get("result", {}).get("content", [{}])[0].get("text") != "completed after 100 ms":
                raise Failure(f"stdin closed in flight: test_slow {i} answered {got}")
        took = wait_exit(peer.proc, 5, "stdin closed with three requests in flight")
        return f"stdin closed with 3 in flight: 3 answers, exit 0 after {took:.2f} s"
    finally:
        peer.close()


def http_hang(run: Run, peer: Http) -> None:
    """test_fault_hang on its own POST, cancelled: the POST ends without an answer for it.
    A cancellation that arrives before the server has the call is ignored (the spec's rule
    for an unknown id), so it is sent again while the POST stays open, up to 5 times."""
    hid = run.id()
    s = peer.open("POST", request(hid, "tools/call", {"name": "test_fault_hang", "arguments": {}}))
    data = b""
    for attempt in range(6):
        if attempt:
            run.resent += 1
        peer.notify("notifications/cancelled", {"requestId": hid, "reason": "fault test"})
        run.peer.call(run.id(), "ping")
        s.settimeout(0.1 * 2**attempt)
        try:
            while chunk := s.recv(65536):
                data += chunk
            break
        except socket.timeout:
            continue
    else:
        s.close()
        raise Failure(f"test_fault_hang {hid}: its POST still open after 6 cancellations")
    s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    headers = {}
    for line in head.decode("latin-1").split("\r\n")[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = dechunk(body)
    for m in messages_in(headers.get("content-type", ""), body):
        if m.get("id") == hid and "method" not in m:
            raise Failure(f"test_fault_hang {hid} answered after cancellation: {m}")


def http_disconnects(run: Run, peer: Http, fds0: int) -> tuple[str, list[str]]:
    """Clients that leave mid-SSE, mid-elicitation and mid-request, all at once; then, for
    up to SSE_SETTLE, which of their connections the server still holds (its sockets' peers
    are the clients' ports). The server notices that a client left a response it streams when
    it next writes to it: at the latest the second SSE keep-alive after the close (15 s apart
    in every everything server; the first write after the close still succeeds)."""
    left: dict[str, set[int]] = {"mid-SSE": set(), "mid-elicitation": set(), "mid-request": set()}
    # One session has one GET stream, so each cycle opens its own session, then its stream.
    for _ in range(SSE_CYCLES):
        client = Http(peer.port)
        client.call(0, "initialize", init_params())
        client.notify("notifications/initialized")
        s = client.open("GET", accept="text/event-stream")
        s.settimeout(TIMEOUT)
        head = s.recv(4096)
        if not head.startswith(b"HTTP/1.1 200"):
            raise Failure(f"GET stream: {head[:200]!r}")
        left["mid-SSE"].add(s.getsockname()[1])
        s.close()
    run.add(8)
    # A session whose client declared elicitation; the POST stream closed at the request.
    eli = Http(peer.port)
    eli.call(0, "initialize", init_params(elicitation=True))
    eli.notify("notifications/initialized")
    s = eli.open("POST", request(1, "tools/call", {"name": "test_elicitation", "arguments": {"message": "left"}}))
    s.settimeout(TIMEOUT)
    data = b""
    while b"elicitation/create" not in data:
        chunk = s.recv(65536)
        if not chunk:
            raise Failure(f"mid-elicitation: stream ended without elicitation/create: {data[:300]!r}")
        data += chunk
    left["mid-elicitation"].add(s.getsockname()[1])
    s.close()
    eli.call(2, "ping")
    run.add(9)
    # A call that never ends on its own, its connection closed: disconnection is not
    # cancellation (and the listener cannot tell a client that left from one that half-closed),
    # so the handler, and with it the connection, lives on until the client cancels the call on
    # its session; then the handler ends and the server lets the connection go.
    count0 = run.cancel_count()
    hung = []
    for _ in range(DISCONNECTS):
        hung.append(run.id())
        s = peer.open("POST", request(hung[-1], "tools/call", {"name": "test_fault_hang", "arguments": {}}))
        time.sleep(0.01)
        left["mid-request"].add(s.getsockname()[1])
        s.close()
    run.add(7)
    # A cancellation that comes before the server has read its call is ignored (unknown id),
    # so all are sent again until every handler has ended (again: ignored for ended calls).
    ended, sent = 0, 0
    while ended < DISCONNECTS and sent < 6:
        for hid in hung:
            peer.notify("notifications/cancelled", {"requestId": hid, "reason": "fault test: client left"})
        ended = run.wait_count(count0 + DISCONNECTS, 0.5 * 2**sent) - count0
        sent += 1
    # A connection leaves /proc/net/tcp once the client's reset arrives (after the first
    # write), but the server holds its descriptor until a write fails (the second): so the
    # wait is for both, the peers gone and the descriptor count back at the baseline.
    started = time.monotonic()
    cleared: dict[str, float] = {}
    fds_back: Optional[float] = None
    while True:
        held = peer_ports(run.pid)
        now = time.monotonic() - started
        for what, ports in left.items():
            if what not in cleared and not ports & held:
                cleared[what] = now
        if len(cleared) == len(left) and fds_back is None and fd_count(run.pid) == fds0:
            fds_back = now
        if fds_back is not None or now > SSE_SETTLE:
            break
        time.sleep(0.1)
    n = stable_fds(run.pid) if fds_back is not None else fd_count(run.pid)
    figures = [f"{ended} of {DISCONNECTS} mid-request handlers ended on cancellation (sent {sent} times)"]
    problems = []
    if ended != DISCONNECTS:
        problems.append(f"{ended} of {DISCONNECTS} abandoned test_fault_hang handlers ended after cancellation")
    for what, ports in left.items():
        if what in cleared:
            figures.append(f"{len(ports)} {what}: released after {cleared[what]:.1f} s")
        else:
            still = len(ports & held)
            figures.append(f"{len(ports)} {what}: {still} still held after {SSE_SETTLE:.0f} s")
            problems.append(f"{still} of {len(ports)} {what} connections still held after {SSE_SETTLE:.0f} s")
    if n != fds0:
        problems.append(f"fds {n} after the disconnects, want {fds0}")
    back = f" after {fds_back:.1f} s" if fds_back is not None else f", not back after {SSE_SETTLE:.0f} s"
    return ", ".join(figures) + f"; fds {n} (baseline {fds0}{back})", problems


def check_http(name: str, argv: list[str], errlog: Any) -> str:
    port = free_port()
    proc = subprocess.Popen(argv + ["--port", str(port)], stdin=subprocess.DEVNULL, stdout=errlog, stderr=errlog)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise Failure(f"{name} http: not listening on {port}")
                time.sleep(0.05)
        peer = Http(port)
        peer.call(0, "initialize", init_params())
        peer.notify("notifications/initialized")
        run = Run(peer, proc.pid)
        count0 = run.cancel_count()
        run.rounds(WARMUP, lambda: http_hang(run, peer))
        fds0, rss0 = stable_fds(proc.pid), rss_kb(proc.pid)
        run.rounds(ROUNDS, lambda: http_hang(run, peer))
        cancelled = run.wait_count(count0 + WARMUP + ROUNDS) - count0
        fds1, rss1 = settle_fds(proc.pid, fds0), rss_kb(proc.pid)
        problems = []
        if cancelled != WARMUP + ROUNDS:
            problems.append(f"{cancelled} hang handlers observed cancellation, want {WARMUP + ROUNDS}")
        if fds1 != fds0:
            problems.append(f"fds {fds0} -> {fds1}")
        if rss1 - rss0 >= RSS_BOUND_KB:
            problems.append(f"RSS grew {rss1 - rss0} kB (bound {RSS_BOUND_KB})")
        line = (
            f"{name} http: {ROUNDS} rounds, fds {fds0} -> {fds1}, RSS {rss0} -> {rss1} kB ({rss1 - rss0:+d}), "
            f"hang cancelled {cancelled} ({run.resent} cancellations sent again)"
        )
        with SEEN_LOCK:
            SEEN[(name, "http")] = run.seen
        figures, more = http_disconnects(run, peer, fds0)
        line += "; " + figures
        problems += more
        if proc.poll() is not None:
            problems.append(f"the server exited with status {proc.returncode} after the disconnects")
        else:
            run.add(10)  # still serving
        if problems:
            raise Failure(line + ": " + "; ".join(problems))
        return line
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def compare_surfaces(order: list[tuple[str, str]]) -> list[str]:
    """Each fault's answer on every surface and transport: a surface listed in
    KNOWN_DIVERGENCES for the tool must give exactly its listed answer; the others must answer
    as the first of them in `order` (servers as given, stdio before HTTP) does: the core
    decides the answer, whatever the language of the handler."""
    failures = []
    runs = [(key, SEEN[key]) for key in order if key in SEEN]
    for tool in FAULTS:
        known = KNOWN_DIVERGENCES.get(tool, {})
        ref: Optional[tuple[str, str, str]] = None
        for (name, transport), seen in runs:
            if tool not in seen:
                continue
            got = seen[tool]
            if name in known:
                want = outcome(known[name][0])
                if got != want:
                    failures.append(
                        f"{name} {transport} {tool} answers {got}, KNOWN_DIVERGENCES lists {want}: update the table"
                    )
            elif ref is None:
                ref = (name, transport, got)
            elif got != ref[2]:
                failures.append(f"{name} {transport} {tool} answers {got}, {ref[0]} {ref[1]} {ref[2]}")
    for f in failures:
        print(f"FAIL {f}", flush=True)
    return failures


def parse_servers(spec: str) -> dict[str, list[str]]:
    servers: dict[str, list[str]] = {}
    for entry in filter(None, (e.strip() for e in spec.split(";"))):
        name, sep, command = entry.partition("=")
        if not sep or not shlex.split(command):
            sys.exit(f"FERRITE_FAULT_SERVERS: entry {entry!r} is not name=command line")
        servers[name.strip()] = shlex.split(command)
    return servers


def run_check(name: str, transport: str, check: Callable[..., str], argv: list[str], failures: list[str]) -> None:
    """One server and transport's checks; its line printed when done."""
    started = time.monotonic()
    # The handlers' own complaints (a Rust panic's message, a Python traceback) go here.
    with tempfile.TemporaryFile() as errlog:
        try:
            line = check(name, argv, errlog)
            with PRINT_LOCK:
                print(f"ok   {line} ({time.monotonic() - started:.1f} s)", flush=True)
        except (Failure, OSError, ValueError, KeyError) as e:
            errlog.seek(0)
            tail = errlog.read()[-600:].decode(errors="replace")
            took = time.monotonic() - started
            with PRINT_LOCK:
                failures.append(f"{name} {transport}: {e}")
                print(f"FAIL {name} {transport} ({took:.1f} s): {e}\n     stderr: {tail!r}", flush=True)


def main() -> int:
    servers = parse_servers(os.environ.get("FERRITE_FAULT_SERVERS", ""))
    if not servers:
        sys.exit("FERRITE_FAULT_SERVERS is empty")
    only = set(filter(None, os.environ.get("FERRITE_FAULT_TRANSPORTS", "stdio,http").split(",")))
    failures: list[str] = []
    started = time.monotonic()
    # The HTTP checks run side by side, each server on its own port, so that their waits for
    # the servers to notice clients gone (up to SSE_SETTLE each) overlap; the stdio checks run
    # one after another meanwhile.
    threads = []
    if "http" in only:
        for name, argv in servers.items():
            t = threading.Thread(target=run_check, args=(name, "http", check_http, argv, failures), daemon=True)
            t.start()
            threads.append(t)
    if "stdio" in only:
        for name, argv in servers.items():
            run_check(name, "stdio", check_stdio, argv, failures)
    for t in threads:
        t.join()
    order = [(name, transport) for name in servers for transport in ("stdio", "http")]
    failures += compare_surfaces(order)
    took = time.monotonic() - started
    print(f"{len(failures)} failures in {took:.0f} s" if failures else f"no failures in {took:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
