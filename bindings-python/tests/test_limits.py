"""The dispatch limits (issue 15) from Python: ``Server(limits=...)``, ``set_limits`` and the
``limits`` property, a bad value raising ``ConfigError`` with the core's message; a call past
``max_in_flight_per_connection`` answered -32603 naming the limit while the running one
finishes; a batch past ``max_batch_len`` refused whole with -32600; and the HTTP session cap
(``max_sessions=1`` through ``run`` and ``asgi_app``): a second ``initialize`` evicts the first
session, whose next request gets 404."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import pytest

from ferrite_mcp import ConfigError, Server

DEFAULTS = {"max_batch_len": 100, "max_in_flight_per_connection": 256, "max_in_flight": 10000, "max_json_depth": 127}


def raw(server: Server, message: Any) -> Any:
    return json.loads(server.handle_raw(json.dumps(message)))


def initialize(version: str) -> Dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }


def ping(i: int) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": i, "method": "ping"}


def test_limits_are_set_in_either_place_and_read_back() -> None:
    with Server("limits", limits={"max_batch_len": 7}) as server:
        assert server.limits == dict(DEFAULTS, max_batch_len=7)
        now = server.set_limits(max_in_flight=50)
        assert now == dict(DEFAULTS, max_batch_len=7, max_in_flight=50)
        assert server.limits == now
        assert server.in_flight == 0


@pytest.mark.parametrize(
    "limits, message",
    [
        ({"max_in_flight": 0}, "invalid limit max_in_flight: must be at least 1"),
        ({"max_sessions": 3}, "invalid limit max_sessions: unknown limit"),
        ({"max_batch_len": "many"}, "invalid limit max_batch_len: "),
        ({"max_batch_len": -1}, "invalid limit max_batch_len: "),
        ({"max_json_depth": 128}, "invalid limit max_json_depth: must be at most 127"),
    ],
)
def test_a_bad_limit_raises_config_error_with_the_cores_message_and_changes_nothing(
    limits: Dict[str, Any], message: str
) -> None:
    with Server("limits") as server:
        with pytest.raises(ConfigError) as raised:
            server.set_limits(max_in_flight_per_connection=5, **limits)
        assert str(raised.value).startswith(message)
        assert server.limits == DEFAULTS
    with pytest.raises(ConfigError, match="^invalid limit max_in_flight: must be at least 1$"):
        Server("limits", limits={"max_in_flight": 0})


def test_a_call_past_the_connection_limit_is_refused_naming_it_and_the_running_one_finishes() -> None:
    server = Server("limits", limits={"max_in_flight_per_connection": 1})
    started = threading.Event()
    release = threading.Event()
    entered: List[int] = []

    @server.tool()
    def hold() -> str:
        entered.append(1)
        started.set()
        release.wait(10)
        return "released"

    try:
        raw(server, initialize("2025-11-25"))
        first: List[Any] = []
        thread = threading.Thread(
            target=lambda: first.append(raw(server, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "hold"}}))
        )
        thread.start()
        assert started.wait(10), "the first call never ran"
        refused = raw(server, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "hold"}})
        assert refused["id"] == 3
        assert refused["error"]["code"] == -32603
        assert refused["error"]["data"] == {"limit": "max_in_flight_per_connection", "value": 1}
        assert entered == [1], "the refused call reached its handler"
        release.set()
        thread.join(10)
        assert first and first[0]["result"]["content"][0]["text"] == "released"
        assert raw(server, ping(4))["result"] == {}
    finally:
        release.set()
        server.close()


def test_a_batch_past_max_batch_len_is_refused_whole() -> None:
    with Server("limits") as server:
        server.set_limits(max_batch_len=2)
        raw(server, initialize("2025-03-26"))
        assert [r["id"] for r in raw(server, [ping(2), ping(3)])] == [2, 3]
        refused = raw(server, [ping(4), ping(5), ping(6)])
        assert refused["error"]["code"] == -32600
        assert refused["error"]["data"] == {"limit": "max_batch_len", "value": 2}


def nested_ping(i: int, arrays: int) -> Dict[str, Any]:
    """A ping nested ``arrays + 2`` deep (the envelope and ``params`` are two levels)."""
    value: Any = 1
    for _ in range(arrays):
        value = [value]
    return {"jsonrpc": "2.0", "id": i, "method": "ping", "params": {"a": value}}


DEPTH_REFUSED = {"limit": "max_json_depth", "value": 6}


def test_a_message_past_max_json_depth_is_a_parse_error_naming_it() -> None:
    with Server("limits", limits={"max_json_depth": 6}) as server:
        raw(server, initialize("2025-11-25"))
        refused = raw(server, nested_ping(2, 5))
        assert (refused["id"], refused["error"]["code"], refused["error"]["data"]) == (None, -32700, DEPTH_REFUSED)
        assert raw(server, nested_ping(3, 4))["result"] == {}


# ----- the HTTP session cap -----

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def post(port: int, body: Dict[str, Any], session: Optional[str] = None) -> Tuple[int, Dict[str, str], str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        headers = dict(HEADERS)
        if session is not None:
            headers.update({"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25"})
        conn.request("POST", "/mcp", body=json.dumps(body).encode(), headers=headers)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read().decode()
    finally:
        conn.close()


@contextlib.contextmanager
def run_serving(server: Server, **options: Any) -> Iterator[int]:
    """``server.run(transport="http", port=0, **options)`` in a thread; the port."""
    ports: List[int] = []
    ready = threading.Event()

    def on_ready(port: int) -> None:
        ports.append(port)
        ready.set()

    thread = threading.Thread(
        target=server.run, kwargs=dict(transport="http", port=0, on_ready=on_ready, **options), daemon=True
    )
    thread.start()
    try:
        assert ready.wait(10), "run did not start listening"
        yield ports[0]
    finally:
        server.close()
        thread.join(10)


@contextlib.contextmanager
def asgi_serving(server: Server, **options: Any) -> Iterator[int]:
    """``server.asgi_app(**options)`` under uvicorn in a thread; the port."""
    uvicorn = pytest.importorskip("uvicorn")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    web = uvicorn.Server(uvicorn.Config(server.asgi_app(**options), log_level="warning"))
    thread = threading.Thread(target=web.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not web.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield port
    finally:
        web.should_exit = True
        thread.join(10)
        sock.close()
        server.close()


@pytest.mark.parametrize(
    "serve, options",
    [
        (run_serving, {"header_read_timeout_ms": 5000, "body_read_timeout_ms": 5000, "max_event_streams": 8}),
        (asgi_serving, {"body_read_timeout_ms": 5000, "max_events_per_stream": 8}),
    ],
    ids=["run", "asgi_app"],
)
def test_max_sessions_1_a_second_initialize_evicts_the_first_session(
    serve: Callable[..., Any], options: Dict[str, Any]
) -> None:
    server = Server("sessions")
    with serve(server, max_sessions=1, **options) as port:
        status, headers, _ = post(port, initialize("2025-11-25"))
        assert status == 200
        first = headers["mcp-session-id"]
        status, headers, _ = post(port, initialize("2025-11-25"))
        assert status == 200
        second = headers["mcp-session-id"]
        assert second != first
        status, _, body = post(port, ping(2), first)
        assert status == 404, body
        status, _, body = post(port, ping(3), second)
        assert status == 200 and json.loads(body)["result"] == {}, body


def test_the_new_http_options_are_the_cores() -> None:
    with Server("opts") as server:
        with pytest.raises(ConfigError, match="^invalid HTTP option max_sessions: "):
            server.asgi_app(max_sessions=-1)
        with pytest.raises(ConfigError, match="^invalid HTTP option body_read_timeout_ms: "):
            server.asgi_app(body_read_timeout_ms="soon")
        with pytest.raises(ConfigError, match="^invalid HTTP option max_events_per_stream: must be at least 1, not 0$"):
            server.asgi_app(max_events_per_stream=0)
        with pytest.raises(ConfigError, match="^invalid HTTP option max_event_streams: must be at least 1, not 0$"):
            server.asgi_app(max_event_streams=0)
        with pytest.raises(ConfigError, match="header_read_timeout_ms: not an asgi_app option"):
            server.asgi_app(header_read_timeout_ms=1000)
        with pytest.raises(ConfigError, match="^invalid HTTP option header_read_timeout_ms: "):
            server.run(transport="http", port=0, header_read_timeout_ms=-5)


def test_mcpserver_takes_limits_too() -> None:
    from ferrite_mcp import MCPServer

    with MCPServer("compat", limits={"max_in_flight": 9}) as server:
        assert server.limits == dict(DEFAULTS, max_in_flight=9)


@pytest.mark.parametrize("serve", [run_serving, asgi_serving], ids=["run", "asgi_app"])
def test_a_body_past_max_json_depth_is_400_naming_it_over_http(serve: Callable[..., Any]) -> None:
    server = Server("deep", limits={"max_json_depth": 6})
    with serve(server) as port:
        status, headers, _ = post(port, initialize("2025-11-25"))
        assert status == 200
        session = headers["mcp-session-id"]
        status, _, body = post(port, nested_ping(2, 5), session)
        refused = json.loads(body)
        assert (status, refused["id"], refused["error"]["code"], refused["error"]["data"]) == (
            400,
            None,
            -32700,
            DEPTH_REFUSED,
        )
        status, _, body = post(port, nested_ping(3, 4), session)
        data = [line[5:] for line in body.splitlines() if line.startswith("data:")]  # JSON or SSE
        assert (status, json.loads(data[-1] if data else body)) == (200, {"jsonrpc": "2.0", "id": 3, "result": {}})
