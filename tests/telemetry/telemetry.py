"""OpenTelemetry from every everything server (issue 16): each server runs over stdio with
OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP receiver on loopback (this script, decoding
the protobuf with the official `opentelemetry-proto` messages), answers a traced `tools/call add`
and a call of an unknown tool, and exits when stdin closes; the spans and metrics it exported are
read back with their attributes.

    FERRITE_TELEMETRY_SERVERS="name=command line;..." python telemetry.py

Checks per server: a SERVER span `tools/call add` in the trace of the request's
`_meta.traceparent`, child of its span id, with mcp.method.name, gen_ai.tool.name,
gen_ai.operation.name, jsonrpc.request.id, mcp.protocol.version, mcp.session.id and
network.transport; a span `tools/call nope` (an unknown tool: the caller's error, which the MCP
conventions do not count as the server failing) with rpc.response.status_code -32602, no
error.type and no error status; a span `tools/call test_error_handling` with error.type
tool_error and an error status; a span named `resources/read` alone (no URI in the name) with
mcp.resource.uri; the resource's service.name; the `mcp.server.operation.duration` histogram
with a point for tools/call add (count >= 1, gen_ai.operation.name execute_tool), one with
rpc.response.status_code -32602 and no error.type, one with error.type tool_error, one for
resources/read without mcp.resource.uri (opt-in there), and one for the client's
notifications/initialized; `mcp.server.session.duration` with one session over the pipe, of
the seconds it lasted; `ferrite.server.active_requests`.
With OTEL_TRACES_SAMPLER=parentbased_always_off: the span of the request whose traceparent is
sampled, in full, and no span for the others, while the duration metric counts both.
Then the same server with `--port` over Streamable HTTP and `--redis` (a throwaway
redis-server): its `tools/call add` span carries network.transport `tcp`,
network.protocol.name `http` and version `1.1`, client.address and client.port, and the HTTP
session's id as mcp.session.id, as its duration point carries the network attributes, and with a GET stream open and a task running the gauges
`ferrite.server.sse_streams` and `ferrite.server.tasks.running` and the counters
`ferrite.server.tasks.created` and `ferrite.store.round_trips` are exported (>= 1), and the
task gauge is back at 0 once the task ended; the client's DELETE ends the session, which
`mcp.server.session.duration` records with network.protocol.name `http`.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Tuple

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_SPAN_ID = "00f067aa0ba902b7"
SPAN_KIND_SERVER = 2
STATUS_ERROR = 2


def value_of(v: Any) -> Any:
    kind = v.WhichOneof("value")
    return getattr(v, kind) if kind else None


def attrs(kvs: Any) -> Dict[str, Any]:
    return {kv.key: value_of(kv.value) for kv in kvs}


class Received:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.spans: List[Dict[str, Any]] = []
        self.points: List[Dict[str, Any]] = []
        self.resources: List[Dict[str, Any]] = []
        self.content_types: List[str] = []


class Receiver(BaseHTTPRequestHandler):
    received: Received

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        got = self.server.received  # type: ignore[attr-defined]
        with got.lock:
            got.content_types.append(self.headers.get("Content-Type", ""))
        if self.path == "/v1/traces":
            req = ExportTraceServiceRequest.FromString(body)
            with got.lock:
                for rs in req.resource_spans:
                    got.resources.append(attrs(rs.resource.attributes))
                    for ss in rs.scope_spans:
                        for s in ss.spans:
                            got.spans.append(
                                {
                                    "name": s.name,
                                    "kind": s.kind,
                                    "trace_id": s.trace_id.hex(),
                                    "parent_span_id": s.parent_span_id.hex(),
                                    "attributes": attrs(s.attributes),
                                    "status": s.status.code,
                                    "scope": ss.scope.name,
                                }
                            )
            reply = ExportTraceServiceResponse().SerializeToString()
        elif self.path == "/v1/metrics":
            req = ExportMetricsServiceRequest.FromString(body)
            with got.lock:
                for rm in req.resource_metrics:
                    got.resources.append(attrs(rm.resource.attributes))
                    for sm in rm.scope_metrics:
                        for m in sm.metrics:
                            data = m.WhichOneof("data")
                            for p in getattr(m, data).data_points:
                                point = {"metric": m.name, "kind": data, "attributes": attrs(p.attributes)}
                                if data == "histogram":
                                    point["count"] = p.count
                                    point["sum"] = p.sum
                                elif p.WhichOneof("value"):
                                    point["value"] = getattr(p, p.WhichOneof("value"))
                                got.points.append(point)
            reply = ExportMetricsServiceResponse().SerializeToString()
        else:
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)


def serve() -> Tuple[ThreadingHTTPServer, Received]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    httpd.received = Received()  # type: ignore[attr-defined]
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, httpd.received  # type: ignore[attr-defined]


def run_server(name: str, cmd: List[str], endpoint: str, switched_on: bool = True, extra_env: Optional[Dict[str, str]] = None) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    if switched_on:
        env["OTEL_EXPORTER_OTLP_ENDPOINT"] = endpoint
    else:
        # The per-signal endpoints alone do not switch an everything server's telemetry on.
        env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] = endpoint + "/v1/traces"
        env["OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"] = endpoint + "/v1/metrics"
    env.update(
        {
            "OTEL_SERVICE_NAME": f"everything-{name}",
            "OTEL_BSP_SCHEDULE_DELAY": "200",
            "OTEL_METRIC_EXPORT_INTERVAL": "500",
            **(extra_env or {}),
        }
    )
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdin and proc.stdout
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "telemetry-test", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 2, "b": 3}, "_meta": {"traceparent": f"00-{TRACE_ID}-{PARENT_SPAN_ID}-01", "tracestate": "vendor=1"}},
        },
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "nope", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "test_error_handling", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 5, "method": "resources/read", "params": {"uri": "test://static-text"}},
    ]
    answers = []
    for msg in lines:
        proc.stdin.write((json.dumps(msg) + "\n").encode())
        proc.stdin.flush()
        if "id" in msg:
            answers.append(json.loads(proc.stdout.readline()))
    # Let one metric export happen while serving, then end the server: it flushes at exit.
    time.sleep(1.0)
    try:  # closes stdin: the server ends
        _, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        raise AssertionError(f"{name}: the server did not exit within 20 s of stdin closing; stderr: {err.decode()[-2000:]}")
    assert answers[1]["result"]["content"][0]["text"] == "5", answers[1]
    assert answers[2]["error"]["code"] == -32602, answers[2]
    assert answers[3]["result"].get("isError") is True, answers[3]
    assert answers[4]["result"]["contents"][0]["uri"] == "test://static-text", answers[4]
    return err.decode()


def wait_for(check: Any, what: str, timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {timeout} s")
        time.sleep(0.1)


def check_server(name: str, cmd: List[str]) -> None:
    httpd, got = serve()
    try:
        endpoint = f"http://127.0.0.1:{httpd.server_address[1]}"
        stderr = run_server(name, cmd, endpoint)

        def span(span_name: str) -> Optional[Dict[str, Any]]:
            with got.lock:
                return next((s for s in got.spans if s["name"] == span_name), None)

        try:
            add = wait_for(lambda: span("tools/call add"), "span `tools/call add`")
            nope = wait_for(lambda: span("tools/call nope"), "span `tools/call nope`")
        except AssertionError as e:
            raise AssertionError(f"{e}; spans: {[s['name'] for s in got.spans]}; stderr: {stderr[-2000:]}") from None
        assert add["kind"] == SPAN_KIND_SERVER, add
        assert add["trace_id"] == TRACE_ID and add["parent_span_id"] == PARENT_SPAN_ID, add
        a = add["attributes"]
        expected = {
            "mcp.method.name": "tools/call",
            "gen_ai.tool.name": "add",
            "gen_ai.operation.name": "execute_tool",
            "jsonrpc.request.id": "2",
            "mcp.protocol.version": "2025-06-18",
            "network.transport": "pipe",
        }
        for k, v in expected.items():
            assert a.get(k) == v, f"{name}: {k} = {a.get(k)!r}, expected {v!r}: {a}"
        assert isinstance(a.get("mcp.session.id"), str) and a["mcp.session.id"], a
        assert "error.type" not in a, a
        # The client's notifications/initialized has a span of its own, on the same session.
        init = wait_for(lambda: span("notifications/initialized"), "span `notifications/initialized`")
        i = init["attributes"]
        assert init["kind"] == SPAN_KIND_SERVER, init
        assert i.get("mcp.method.name") == "notifications/initialized" and i.get("network.transport") == "pipe", i
        assert i.get("mcp.session.id") == a["mcp.session.id"], (i, a)
        assert "jsonrpc.request.id" not in i, i
        n = nope["attributes"]
        assert n.get("rpc.response.status_code") == "-32602" and "error.type" not in n, f"{name}: {n}"
        assert nope["status"] != STATUS_ERROR, f"{name}: an unknown tool is the caller's error: {nope}"
        failed = wait_for(lambda: span("tools/call test_error_handling"), "span `tools/call test_error_handling`")
        f = failed["attributes"]
        assert f.get("error.type") == "tool_error" and "rpc.response.status_code" not in f, f"{name}: {f}"
        assert failed["status"] == STATUS_ERROR, failed
        read = wait_for(lambda: span("resources/read"), f"span `resources/read` (spans: {[s['name'] for s in got.spans]})")
        assert read["attributes"].get("mcp.resource.uri") == "test://static-text", read
        assert nope["trace_id"] != TRACE_ID, "a request without traceparent starts its own trace"

        def point(metric: str, **want: Any) -> Optional[Dict[str, Any]]:
            with got.lock:
                for p in got.points:
                    if p["metric"] == metric and all(p["attributes"].get(k) == v for k, v in want.items()):
                        return p
            return None

        ok = wait_for(lambda: point("mcp.server.operation.duration", **{"mcp.method.name": "tools/call", "gen_ai.tool.name": "add"}), "duration point for tools/call add")
        assert ok["kind"] == "histogram" and ok["count"] >= 1, ok
        # Seconds, from a clock that runs: more than nothing, far less than the test took.
        assert 0 < ok["sum"] < 5 * ok["count"], ok
        assert "error.type" not in ok["attributes"], ok
        assert ok["attributes"].get("gen_ai.operation.name") == "execute_tool", ok
        err = wait_for(lambda: point("mcp.server.operation.duration", **{"rpc.response.status_code": "-32602"}), "duration point with rpc.response.status_code")
        assert err["attributes"].get("gen_ai.tool.name") == "nope" and "error.type" not in err["attributes"], err
        tool_error = wait_for(lambda: point("mcp.server.operation.duration", **{"error.type": "tool_error"}), "duration point with error.type tool_error")
        assert tool_error["attributes"].get("gen_ai.tool.name") == "test_error_handling", tool_error
        read_point = wait_for(lambda: point("mcp.server.operation.duration", **{"mcp.method.name": "resources/read"}), "duration point for resources/read")
        assert "mcp.resource.uri" not in read_point["attributes"], read_point
        note = wait_for(lambda: point("mcp.server.operation.duration", **{"mcp.method.name": "notifications/initialized"}), "duration point for notifications/initialized")
        assert note["attributes"].get("network.transport") == "pipe" and note["count"] == 1, note
        # The session (the stdio connection) ended when stdin closed, over a second after it began.
        session = wait_for(lambda: point("mcp.server.session.duration", **{"network.transport": "pipe"}), "session duration point")
        assert session["count"] == 1 and 1.0 <= session["sum"] < 30, session
        assert session["attributes"].get("mcp.protocol.version") == "2025-06-18" and "error.type" not in session["attributes"], session
        wait_for(lambda: point("ferrite.server.active_requests"), "active_requests point")
        with got.lock:
            names = {r.get("service.name") for r in got.resources}
            types = set(got.content_types)
        assert names == {f"everything-{name}"}, names
        assert types == {"application/x-protobuf"}, types
        print(f"telemetry {name}: ok ({len(got.spans)} spans, {len(got.points)} metric points; span `tools/call add` in the caller's trace)")
    finally:
        httpd.shutdown()
    # The standard sampler variable is honoured, with the request's trace context as the parent:
    # under parentbased_always_off the request whose traceparent says "sampled" gets its span
    # (named and attributed in full), the one without a traceparent gets none, and the metrics
    # still count both.
    httpd, got = serve()
    try:
        stderr = run_server(name, cmd, f"http://127.0.0.1:{httpd.server_address[1]}", extra_env={"OTEL_TRACES_SAMPLER": "parentbased_always_off"})

        def duration_point(**want: Any) -> Optional[Dict[str, Any]]:
            with got.lock:
                return next((p for p in got.points if p["metric"] == "mcp.server.operation.duration" and all(p["attributes"].get(k) == v for k, v in want.items())), None)

        wait_for(lambda: duration_point(**{"rpc.response.status_code": "-32602", "gen_ai.tool.name": "nope"}), f"duration point for the unsampled call (stderr: {stderr[-1000:]})")
        wait_for(lambda: duration_point(**{"gen_ai.tool.name": "add"}), "duration point for the sampled call")
        with got.lock:
            spans = {s["name"]: s for s in got.spans}
        assert "tools/call nope" not in spans and "notifications/initialized" not in spans, f"{name}: unsampled spans exported: {sorted(spans)}"
        add = spans.get("tools/call add")
        assert add is not None, f"{name}: the sampled parent's child span is missing: {sorted(spans)}"
        assert add["trace_id"] == TRACE_ID and add["attributes"].get("gen_ai.tool.name") == "add", add
        assert add["attributes"].get("jsonrpc.request.id") == "2" and add["attributes"].get("mcp.session.id"), add
        print(f"telemetry {name}: OTEL_TRACES_SAMPLER=parentbased_always_off: only the sampled parent's span, metrics for both")
    finally:
        httpd.shutdown()
    # Without OTEL_EXPORTER_OTLP_ENDPOINT the server exports nothing.
    httpd, got = serve()
    try:
        run_server(name, cmd, f"http://127.0.0.1:{httpd.server_address[1]}", switched_on=False)
        time.sleep(0.5)
        with got.lock:
            assert not got.content_types, f"{name}: exported without OTEL_EXPORTER_OTLP_ENDPOINT: {len(got.spans)} spans"
        print(f"telemetry {name}: nothing exported without OTEL_EXPORTER_OTLP_ENDPOINT")
    finally:
        httpd.shutdown()


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


VERSION = "2025-11-25"


def post(url: str, body: Dict[str, Any], session: Optional[str]) -> Tuple[Optional[str], Optional[Dict[str, Any]]]:
    """POST one message; the session id the answer carries and the JSON-RPC answer (JSON or SSE)."""
    import urllib.request

    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream", "mcp-protocol-version": VERSION}
    if session:
        headers["mcp-session-id"] = session
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(req, timeout=10) as resp:
        text = resp.read().decode()
        sid = resp.headers.get("mcp-session-id")
    if not text.strip():
        return sid, None
    if text.lstrip().startswith("{"):
        return sid, json.loads(text)
    for line in text.splitlines():
        if line.startswith("data:") and line[5:].strip():
            msg = json.loads(line[5:])
            if "id" in msg:
                return sid, msg
    return sid, None


def start_redis() -> Tuple[subprocess.Popen, int]:
    """A throwaway redis-server (scripts/redis.sh installs it) on a free port."""
    port = free_port()
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    import socket

    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                raise AssertionError("redis-server did not start") from None
            time.sleep(0.05)


def open_get_stream(port: int, session: str) -> Any:
    """The session's standalone GET stream, left open (the caller closes it)."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/mcp", headers={"accept": "text/event-stream", "mcp-session-id": session, "mcp-protocol-version": VERSION})
    resp = conn.getresponse()
    assert resp.status == 200 and resp.getheader("content-type", "").startswith("text/event-stream"), resp.status
    return conn


def check_http(name: str, cmd: List[str]) -> None:
    """The same server over Streamable HTTP, one instance of a fleet over a real Redis: its
    span says network.transport tcp and carries the HTTP session's id; the SSE stream, task and
    store instruments count an open GET stream, a task and the Redis commands."""
    httpd, got = serve()
    port = free_port()
    redis, redis_port = start_redis()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env.update(
        {
            "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{httpd.server_address[1]}",
            "OTEL_BSP_SCHEDULE_DELAY": "200",
            "OTEL_METRIC_EXPORT_INTERVAL": "300",
            "FERRITE_REDIS_PREFIX": f"telemetry-{name}:",
        }
    )
    argv = cmd + ["--port", str(port), "--redis", f"redis://127.0.0.1:{redis_port}"]
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    stream = None
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "telemetry-test", "version": "1"}}}
        deadline = time.monotonic() + 20
        while True:
            try:
                session, _ = post(url, init, None)
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise AssertionError(f"{name}: the HTTP server did not start") from None
                time.sleep(0.1)
        assert session, f"{name}: no Mcp-Session-Id"
        post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        _, answer = post(url, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 4, "b": 5}}}, session)
        assert answer and answer["result"]["content"][0]["text"] == "9", answer

        def span() -> Optional[Dict[str, Any]]:
            with got.lock:
                return next((s for s in got.spans if s["name"] == "tools/call add"), None)

        add = wait_for(span, "span `tools/call add` over HTTP")
        a = add["attributes"]
        assert a.get("network.transport") == "tcp", f"{name}: network.transport = {a.get('network.transport')!r} over HTTP: {a}"
        assert a.get("mcp.session.id") == session, f"{name}: mcp.session.id = {a.get('mcp.session.id')!r}, the session is {session!r}"
        assert a.get("network.protocol.name") == "http" and a.get("network.protocol.version") == "1.1", f"{name}: {a}"
        assert a.get("client.address") == "127.0.0.1" and isinstance(a.get("client.port"), int) and a["client.port"] > 0, f"{name}: {a}"

        def http_point() -> Optional[Dict[str, Any]]:
            with got.lock:
                return next((p for p in got.points if p["metric"] == "mcp.server.operation.duration" and p["attributes"].get("gen_ai.tool.name") == "add"), None)

        hp = wait_for(http_point, "duration point for tools/call add over HTTP")["attributes"]
        assert (hp.get("network.transport"), hp.get("network.protocol.name"), hp.get("network.protocol.version")) == ("tcp", "http", "1.1"), hp
        assert "client.address" not in hp, f"{name}: the peer is not a metric attribute: {hp}"
        print(f"telemetry {name}: over Streamable HTTP the span says network.transport tcp, HTTP 1.1, the client's address and the session id")

        # What the server has open beside requests: read at each export, so each point is a
        # value at that moment; wait for one that shows the open stream and the running task.
        stream = open_get_stream(port, session)
        params = {"name": "slow_compute", "arguments": {"seconds": 3, "label": "telemetry"}, "task": {"ttl": 60000}}
        _, created = post(url, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params}, session)
        assert created and created["result"]["task"]["status"] == "working", f"{name}: {created}"

        def value_at_least(metric: str, least: int) -> Optional[Dict[str, Any]]:
            with got.lock:
                return next((p for p in got.points if p["metric"] == metric and p.get("value", 0) >= least), None)

        for metric in ("ferrite.server.sse_streams", "ferrite.server.tasks.running", "ferrite.server.tasks.created", "ferrite.store.round_trips"):
            wait_for(lambda: value_at_least(metric, 1), f"point of {metric} >= 1")
        with got.lock:
            kinds = {p["metric"]: p["kind"] for p in got.points if p["metric"].startswith(("ferrite.server.sse", "ferrite.server.tasks", "ferrite.store"))}
        assert kinds == {
            "ferrite.server.sse_streams": "gauge",
            "ferrite.server.tasks.running": "gauge",
            "ferrite.server.tasks.created": "sum",
            "ferrite.store.round_trips": "sum",
        }, kinds
        # The task ended: its gauge goes back to 0. (A closed GET stream is only noticed at the
        # server's next write to it, so the stream gauge's way down is tested in core/tests/http.rs.)
        with got.lock:
            seen = len(got.points)

        def back_to_zero(metric: str) -> Optional[Dict[str, Any]]:
            with got.lock:
                return next((p for p in got.points[seen:] if p["metric"] == metric and p.get("value") == 0), None)

        wait_for(lambda: back_to_zero("ferrite.server.tasks.running"), "ferrite.server.tasks.running back to 0", timeout=15)
        print(f"telemetry {name}: SSE streams, running and created tasks and Redis round trips exported; the task gauge back to 0")

        # The client ends its session: its duration is recorded, over HTTP.
        import urllib.request

        delete = urllib.request.Request(url, headers={"mcp-session-id": session, "mcp-protocol-version": VERSION}, method="DELETE")
        with urllib.request.urlopen(delete, timeout=10) as resp:
            assert resp.status in (200, 202, 204), resp.status

        def session_point() -> Optional[Dict[str, Any]]:
            with got.lock:
                return next((p for p in got.points if p["metric"] == "mcp.server.session.duration"), None)

        ended = wait_for(session_point, "mcp.server.session.duration over HTTP")
        ea = ended["attributes"]
        assert (ea.get("network.transport"), ea.get("network.protocol.name"), ea.get("mcp.protocol.version")) == ("tcp", "http", VERSION), ea
        assert ended["count"] == 1 and ended["sum"] > 0, ended
        print(f"telemetry {name}: the client's DELETE ends the session, and its duration is exported")
    finally:
        if stream is not None:
            stream.close()
        proc.kill()
        proc.wait()
        redis.kill()
        redis.wait()
        httpd.shutdown()


def main() -> int:
    servers = [s.split("=", 1) for s in os.environ["FERRITE_TELEMETRY_SERVERS"].split(";") if s]
    failed = 0
    for name, cmd in servers:
        try:
            check_server(name, shlex.split(cmd))
            check_http(name, shlex.split(cmd))
        except Exception as e:  # report every server, then fail
            failed += 1
            print(f"telemetry {name}: FAILED: {e}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
