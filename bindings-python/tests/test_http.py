"""Streamable HTTP: ``run(transport="http")`` serves the core's HTTP transport; Ctrl-C stops
it cleanly; its keyword options reach the core (Host checks, body limit, legacy HTTP+SSE,
response mode) and bad values are refused with ``ConfigError``."""

from __future__ import annotations

import http.client
import json
import math
import signal
import subprocess
import sys
import textwrap
import urllib.request
from pathlib import Path
from contextlib import contextmanager
from typing import Any, Dict, Iterator, Optional, Tuple

import pytest

from ferrite_mcp import ConfigError, Server

from conftest import default_sigint

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
    proc = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=default_sigint
    )
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


INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}

OPTIONS_SERVER = """
import sys
from ferrite_mcp import Server
server = Server("http-options")
@server.tool()
def add(a: int, b: int) -> int:
    return a + b
server.run(transport="http", port=0, on_ready=lambda port: print(port, file=sys.stderr, flush=True), {options})
"""


@contextmanager
def serving(tmp_path: Path, options: str) -> Iterator[int]:
    """Run a server with ``run(transport="http", port=0, <options>)`` in a subprocess; yield its port."""
    script = tmp_path / "options_server.py"
    script.write_text(textwrap.dedent(OPTIONS_SERVER).format(options=options))
    proc = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=default_sigint
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert line.strip().isdigit(), f"server did not start: {line!r} {proc.stderr.read()!r}"
        yield int(line)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=15)


def raw_post(port: int, body: bytes, host: Optional[str] = None, path: str = "/mcp") -> Tuple[int, Dict[str, str], bytes]:
    """POST with http.client (urllib raises on 4xx and cannot forge Host)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if host is not None:
            headers["Host"] = host
        conn.request("POST", path, body=body, headers=headers)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def test_foreign_host_is_refused_by_default(tmp_path: Path) -> None:
    with serving(tmp_path, "") as port:
        status, _, _ = raw_post(port, json.dumps(INIT).encode(), host="evil.example")
        assert status == 403
        status, _, _ = raw_post(port, json.dumps(INIT).encode(), host=f"localhost:{port}")
        assert status == 200


def test_allowed_hosts_admits_a_named_host(tmp_path: Path) -> None:
    with serving(tmp_path, "allowed_hosts=['mcp.example']") as port:
        status, _, body = raw_post(port, json.dumps(INIT).encode(), host=f"mcp.example:{port}")
        assert status == 200, body
        assert b"http-options" in body
        status, _, _ = raw_post(port, json.dumps(INIT).encode(), host="evil.example")
        assert status == 403


def test_allow_any_host_turns_the_check_off(tmp_path: Path) -> None:
    with serving(tmp_path, "allow_any_host=True") as port:
        status, _, _ = raw_post(port, json.dumps(INIT).encode(), host="anything.example")
        assert status == 200


def test_body_over_max_body_bytes_gets_413(tmp_path: Path) -> None:
    with serving(tmp_path, "max_body_bytes=1000") as port:
        small = json.dumps(INIT).encode()
        assert len(small) < 1000
        status, _, _ = raw_post(port, small)
        assert status == 200
        padded = dict(INIT, params=dict(INIT["params"], padding="x" * 2000))  # type: ignore[arg-type]
        status, _, _ = raw_post(port, json.dumps(padded).encode())
        assert status == 413


def test_legacy_sse_serves_the_endpoint_event(tmp_path: Path) -> None:
    with serving(tmp_path, "legacy_sse=True") as port:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            conn.request("GET", "/sse", headers={"Accept": "text/event-stream"})
            resp = conn.getresponse()
            assert resp.status == 200
            assert resp.getheader("Content-Type", "").startswith("text/event-stream")
            event = []
            while True:
                line = resp.readline().decode().rstrip("\r\n")
                if not line:
                    if event:
                        break
                    continue
                if not line.startswith(":"):  # comments (keep-alives) are not fields
                    event.append(line)
            assert event[0] == "event: endpoint"
            data = [f[len("data:") :].strip() for f in event if f.startswith("data:")]
            assert data and data[0].startswith("/messages?sessionId=")
        finally:
            conn.close()


def test_legacy_sse_is_off_by_default(tmp_path: Path) -> None:
    with serving(tmp_path, "") as port:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            conn.request("GET", "/sse", headers={"Accept": "text/event-stream"})
            assert conn.getresponse().status == 404
        finally:
            conn.close()


@pytest.mark.parametrize("options", ["response_mode='sse'", ""])
def test_response_mode_sse_answers_tools_call_as_event_stream(tmp_path: Path, options: str) -> None:
    with serving(tmp_path, options) as port:
        url = f"http://127.0.0.1:{port}/mcp"
        status, headers, body = post(url, INIT)
        session = headers["mcp-session-id"]
        post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}
        status, headers, body = post(url, call, session)
        assert status == 200
        if not options:  # the default (auto) answers a handler that streams nothing with JSON
            assert headers["content-type"].startswith("application/json")
            return
        assert headers["content-type"].startswith("text/event-stream")
        data = [line[len("data:") :].strip() for line in body.splitlines() if line.startswith("data:")]
        messages = [json.loads(d) for d in data if d]
        assert any(m.get("id") == 2 and m["result"]["content"] == [{"type": "text", "text": "5"}] for m in messages)


# Each bad option and the core's own message for it (`HttpConfig`, the same text on every
# surface; snake_case keys here), raised before anything is bound.
BAD_OPTIONS = [
    ({"max_body_bytes": 0}, "invalid HTTP option max_body_bytes: must be at least 1 byte, not 0"),
    ({"max_request_body_size": 0}, "invalid HTTP option max_body_bytes: must be at least 1 byte, not 0"),
    ({"max_body_bytes": -5}, "invalid HTTP option max_body_bytes: invalid value: integer `-5`, expected u64"),
    ({"session_idle_timeout": -1.0}, "invalid HTTP option session_idle_timeout_ms: invalid value: integer `-1000`, expected u64"),
    ({"session_idle_timeout": math.nan}, "invalid HTTP option session_idle_timeout: nan is not a number of seconds"),
    ({"sse_retry_ms": -1}, "invalid HTTP option sse_retry_ms: invalid value: integer `-1`, expected u64"),
    ({"sse_keep_alive_ms": math.nan}, "invalid HTTP options: ValueError: NaN is not a JSON number"),
    ({"stream_buffer": 0}, "invalid HTTP option stream_buffer: must be at least 1 event, not 0"),
    ({"response_mode": "xml"}, "invalid HTTP option response_mode: unknown variant `xml`, expected one of `auto`, `json`, `sse`"),
    ({"response_mode": "sse", "json_response": True}, "invalid HTTP option response_mode: also given as json_response=True; pass one of them"),
    ({"allowed_hosts": []}, "invalid HTTP option allowed_hosts: is empty, which would refuse every request (allow_any_host accepts any)"),
    (
        {"allowed_hosts": ["example.com:8000"]},
        'invalid HTTP option allowed_hosts: entry "example.com:8000": no port (any port is accepted); '
        "write IPv6 addresses in brackets, like [::1]",
    ),
    (
        {"allowed_origins": ["example.com"]},
        'invalid HTTP option allowed_origins: entry "example.com": an origin is scheme://host, like http://localhost',
    ),
    (
        {"allow_any_host": True, "allowed_hosts": ["example.com"]},
        "invalid HTTP option allowed_hosts: contradicts allow_any_host, which turns the Host and Origin checks off",
    ),
    ({"path": "mcp"}, "invalid HTTP option path: \"mcp\" is not a literal path starting with '/'"),
    ({"path": "/sse", "legacy_sse": True}, 'invalid HTTP option legacy_sse_path: "/sse" is also the endpoint path'),
    ({"host": "not a host"}, 'invalid HTTP option host: "not a host" is not an IP address (bind to 127.0.0.1, 0.0.0.0 or ::)'),
]


@pytest.mark.parametrize("options,message", BAD_OPTIONS)
def test_bad_http_options_raise_the_cores_config_error(options: Dict[str, Any], message: str) -> None:
    server = Server("bad-options")
    with pytest.raises(ConfigError) as e:
        server.run(transport="http", port=0, on_ready=lambda port: pytest.fail("bound despite bad options"), **options)
    assert str(e.value) == message


def test_session_idle_timeout_zero_means_never_as_in_the_core() -> None:
    ready = []
    server = Server("never-idle")
    server.run(transport="http", port=0, session_idle_timeout=0, on_ready=lambda p: (ready.append(p), server.stop()))
    assert ready


def test_json_response_stays_an_alias_of_json_mode() -> None:
    ready = []
    server = Server("alias")
    # response_mode="json" with json_response=True agrees, so it is accepted and binds.
    server.run(transport="http", port=0, json_response=True, response_mode="json", on_ready=lambda p: (ready.append(p), server.stop()))
    assert ready
