"""``server.asgi_app()`` under a real uvicorn on a real port, alone and mounted in a Starlette
app beside its own routes; ``ctx.request`` on every transport; ``run_async(transport="http")``.

Each test serves from a uvicorn thread in this process and speaks HTTP with ``http.client``
or a raw socket (for a client that goes away mid-stream)."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import socket
import threading
import time
from typing import Any, AsyncIterator, Dict, Iterator, List, Optional, Tuple

import pytest

uvicorn = pytest.importorskip("uvicorn")
starlette_apps = pytest.importorskip("starlette.applications")

from starlette.applications import Starlette  # noqa: E402
from starlette.middleware import Middleware  # noqa: E402
from starlette.middleware.base import BaseHTTPMiddleware  # noqa: E402
from starlette.responses import PlainTextResponse  # noqa: E402
from starlette.routing import Mount, Route  # noqa: E402

from ferrite_mcp import ConfigError, Context, MCPServer, RequestInfo, Server  # noqa: E402

from conftest import StdioClient  # noqa: E402

HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


@contextlib.contextmanager
def serving(app: Any, lifespan: str = "auto") -> Iterator[int]:
    """``app`` under uvicorn on a free port of 127.0.0.1, in a thread; the port."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan=lifespan)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        assert thread.is_alive(), "uvicorn stopped"
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def request(port: int, method: str, path: str, body: Optional[Any] = None, headers: Optional[Dict[str, str]] = None) -> Tuple[int, Dict[str, str], str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        conn.request(method, path, body=data, headers={**HEADERS, **(headers or {})})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read().decode()
    finally:
        conn.close()


def call(name: str, arguments: Optional[Dict[str, Any]] = None, meta: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    params: Dict[str, Any] = {"name": name, "arguments": arguments or {}}
    if meta:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}


def tool_text(body: str) -> str:
    if body.startswith("event:") or body.startswith("id:") or body.startswith("data:"):
        datas = [line[5:].strip() for line in body.splitlines() if line.startswith("data:") and line[5:].strip()]
        response = [json.loads(d) for d in datas if '"result"' in d or '"error"' in d][-1]
    else:
        response = json.loads(body)
    assert "result" in response, response
    return "".join(c["text"] for c in response["result"]["content"] if c["type"] == "text")


class SetUser:
    """The host's middleware (plain ASGI): ``x-user`` becomes ``request.state.user``."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            for name, value in scope.get("headers", []):
                if name == b"x-user":
                    state = scope.setdefault("state", {})
                    state["user"] = value.decode()
                    state["pool"] = object()  # not JSON: stays out of the host values
        await self.app(scope, receive, send)


async def set_tenant(request: Any, call_next: Any) -> Any:
    """A FastAPI-style ``@app.middleware("http")`` one: ``request.state.tenant``."""
    request.state.tenant = request.headers.get("x-tenant", "none")
    return await call_next(request)


def request_server() -> Server:
    server = Server("mounted", "1", stateless=True)

    @server.tool()
    async def whoami(ctx: Context) -> str:
        r = ctx.request
        assert r is not None
        return json.dumps(
            {
                "tenant": r.headers.get("X-Tenant"),
                "user": r.state.user,
                "state_tenant": r.host_values.get("tenant"),
                "host_values": sorted(r.host_values),
                "method": r.method,
                "path": r.path,
                "loopback": r.client is not None and r.client.host == "127.0.0.1",
                "same": ctx.request_context.request is not None and ctx.headers is r.headers,
            }
        )

    @server.tool()
    def shown(ctx: Context) -> str:
        r = ctx.request
        assert r is not None
        return json.dumps({"repr": repr(r), "headers_repr": repr(r.headers), "authorization": r.headers["authorization"]})

    return server


def host_app(server: Server, prefix: str = "/", forward_lifespan: bool = True) -> Starlette:
    mcp = server.asgi_app()

    async def health(_request: Any) -> PlainTextResponse:
        return PlainTextResponse("ok")

    return Starlette(
        routes=[Route("/health", health), Mount(prefix, app=mcp)],
        middleware=[Middleware(SetUser), Middleware(BaseHTTPMiddleware, dispatch=set_tenant)],
        lifespan=mcp.lifespan if forward_lifespan else None,
    )


def test_a_handler_reads_a_header_and_a_host_value_through_the_mounted_app() -> None:
    server = request_server()
    try:
        with serving(host_app(server)) as port:
            status, _, body = request(port, "POST", "/mcp", call("whoami"), {"x-tenant": "acme", "x-user": "ada"})
            assert status == 200, body
            seen = json.loads(tool_text(body))
    finally:
        server.close()
    assert seen == {
        "tenant": "acme",
        "user": "ada",
        "state_tenant": "acme",
        "host_values": ["tenant", "user"],
        "method": "POST",
        "path": "/mcp",
        "loopback": True,
        "same": True,
    }


def test_the_host_apps_other_route_answers_beside_the_endpoint() -> None:
    server = request_server()
    try:
        with serving(host_app(server)) as port:
            assert request(port, "GET", "/health")[::2] == (200, "ok")
            assert request(port, "POST", "/mcp", call("whoami"), {"x-user": "ada"})[0] == 200
            assert request(port, "GET", "/elsewhere")[0] == 404
    finally:
        server.close()


def test_mounted_under_a_prefix_the_endpoint_is_served_below_it() -> None:
    server = request_server()
    try:
        # No lifespan forwarded: the app starts on its first request.
        with serving(host_app(server, "/api", forward_lifespan=False)) as port:
            status, _, body = request(port, "POST", "/api/mcp", call("whoami"), {"x-user": "bob"})
            assert status == 200, body
            assert json.loads(tool_text(body))["path"] == "/api/mcp"
            assert request(port, "POST", "/mcp", call("whoami"))[0] == 404
    finally:
        server.close()


def test_request_info_repr_redacts_sensitive_headers() -> None:
    server = request_server()
    secrets = {"authorization": "Bearer s3cret-token", "cookie": "sid=s3cret-cookie", "x-api-key": "s3cret-key", "x-tenant": "acme"}
    try:
        with serving(host_app(server)) as port:
            status, _, body = request(port, "POST", "/mcp", call("shown"), secrets)
            assert status == 200, body
            seen = json.loads(tool_text(body))
    finally:
        server.close()
    assert "s3cret" not in seen["repr"] and "s3cret" not in seen["headers_repr"], seen
    assert "<redacted>" in seen["headers_repr"] and "acme" in seen["headers_repr"]
    # The handler itself reads them.
    assert seen["authorization"] == "Bearer s3cret-token"


def test_request_info_repr_hides_every_sensitive_header_the_core_names() -> None:
    from ferrite_mcp import _ferrite

    headers = {name.title(): f"secret-{i}" for i, name in enumerate(_ferrite.SENSITIVE_HEADERS)}
    info = RequestInfo({"method": "POST", "path": "/mcp", "headers": {**headers, "Accept": "a"}, "remoteAddr": "[::1]:80", "hostValues": {"k": "hidden-value"}})
    assert set(_ferrite.SENSITIVE_HEADERS) >= {"authorization", "cookie", "proxy-authorization", "set-cookie", "x-api-key"}
    assert "secret-" not in repr(info) and "secret-" not in str(info.headers) and "hidden-value" not in repr(info)
    assert info.headers["AUTHORIZATION"] == headers["Authorization"] and info.header("accept") == "a"
    assert info.client is not None and (info.client.host, info.client.port) == ("::1", 80)
    with pytest.raises(TypeError):
        info.headers["accept"] = "b"  # type: ignore[index]


def test_a_client_that_goes_away_mid_sse_cancels_the_handler() -> None:
    server = Server("mounted", "1", stateless=True)
    cancelled = threading.Event()

    @server.tool()
    async def slow(ctx: Context) -> str:
        await ctx.report_progress(1, 2, "started")
        await ctx.cancelled()
        cancelled.set()
        return "cancelled"

    try:
        with serving(host_app(server)) as port:
            body = json.dumps(call("slow", meta={"progressToken": "p"})).encode()
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            head = (
                f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n"
            )
            sock.sendall(head.encode() + body)
            seen = b""
            while b"notifications/progress" not in seen:
                chunk = sock.recv(4096)
                assert chunk, f"the stream ended before the progress: {seen!r}"
                seen += chunk
            assert b"text/event-stream" in seen
            sock.close()  # the client goes away mid-stream
            assert cancelled.wait(10), "the handler did not observe the cancellation"
    finally:
        server.close()


def test_standalone_lifespan_startup_and_shutdown() -> None:
    events: List[str] = []

    @contextlib.asynccontextmanager
    async def lifespan(_server: Any) -> AsyncIterator[Dict[str, str]]:
        events.append("enter")
        yield {"db": "open"}
        events.append("exit")

    server = MCPServer("standalone", lifespan=lifespan)

    @server.tool()
    async def db(ctx: Context) -> str:
        return str(ctx.request_context.lifespan_context["db"])

    app = server.streamable_http_app()
    try:
        with serving(app, lifespan="on") as port:
            assert events == ["enter"]
            init = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
            }
            status, headers, _ = request(port, "POST", "/mcp", init)
            assert status == 200
            assert app.session_ids() == [headers["mcp-session-id"]]
            session = {"mcp-session-id": headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
            assert request(port, "POST", "/mcp", {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)[0] == 202
            status, _, body = request(port, "POST", "/mcp", call("db"), session)
            assert (status, tool_text(body)) == (200, "open")
            assert request(port, "GET", "/other")[0] == 404
        # uvicorn sent lifespan.shutdown: the sessions ended, the lifespan exited.
        assert events == ["enter", "exit"]
        assert app.session_ids() == []
    finally:
        server.close()


def test_an_oversized_body_is_413_through_asgi() -> None:
    server = Server("small", "1")
    try:
        with serving(server.asgi_app(max_body_bytes=64)) as port:
            status, _, _ = request(port, "POST", "/mcp", b"[" + b" " * 4096 + b"]")
            assert status == 413
    finally:
        server.close()


def test_a_mounted_endpoint_checks_host_and_origin_as_the_listener_does() -> None:
    server = Server("guarded", "1")
    try:
        with serving(server.asgi_app()) as port:
            body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
            assert request(port, "POST", "/mcp", body, {"host": "evil.example"})[0] == 403
            assert request(port, "POST", "/mcp", body, {"origin": "http://evil.example"})[0] == 403
            assert request(port, "POST", "/mcp", body, {"origin": "http://localhost:5173"})[0] == 200
    finally:
        server.close()


def test_asgi_app_options_are_the_cores() -> None:
    server = Server("opts", "1")
    try:
        with pytest.raises(ConfigError, match="max_body_bytes"):
            server.asgi_app(max_body_bytes=0)
        with pytest.raises(ConfigError, match="port: not an asgi_app option"):
            server.asgi_app(port=8000)
        with pytest.raises(TypeError):
            server.asgi_app(no_such_option=1)
    finally:
        server.close()


def test_request_info_on_ferrites_own_listener_through_run_async() -> None:
    server = Server("own", "1", stateless=True)

    @server.tool()
    def info(ctx: Context) -> str:
        r = ctx.request
        assert r is not None
        return json.dumps({"tenant": r.headers.get("x-tenant"), "path": r.path, "loopback": r.client is not None and r.client.host == "127.0.0.1"})

    ready: "asyncio.Future[int]"
    ports: List[int] = []
    started = threading.Event()
    loop = asyncio.new_event_loop()

    def on_ready(port: int) -> None:
        ports.append(port)
        started.set()

    task_box: List[Any] = []

    async def main() -> None:
        task = asyncio.ensure_future(server.run_async(transport="http", port=0, on_ready=on_ready))
        task_box.append(task)
        await task

    thread = threading.Thread(target=lambda: loop.run_until_complete(main()), daemon=True)
    thread.start()
    try:
        assert started.wait(10), "run_async did not start listening"
        status, _, body = request(ports[0], "POST", "/mcp", call("info"), {"x-tenant": "t9"})
        assert status == 200, body
        assert json.loads(tool_text(body)) == {"tenant": "t9", "path": "/mcp", "loopback": True}
    finally:
        server.stop()
        thread.join(timeout=10)
        assert not thread.is_alive(), "run_async did not return after stop()"
        loop.close()
        server.close()


STDIO_SERVER = """
from ferrite_mcp import Server, Context
server = Server("stdio")
@server.tool()
def info(ctx: Context) -> str:
    return repr((ctx.request, ctx.headers, ctx.request_context.request))
server.run()
"""


def test_request_info_is_none_on_stdio(tmp_path: Any) -> None:
    client = StdioClient(STDIO_SERVER, tmp_path)
    try:
        result = client.request("tools/call", {"name": "info", "arguments": {}})
        assert result["result"]["content"][0]["text"] == "(None, None, None)"
    finally:
        client.close()


def test_request_info_is_none_in_process(server: Server) -> None:
    from conftest import call_tool, text_of

    @server.tool()
    def info(ctx: Context) -> str:
        return repr(ctx.request)

    assert text_of(call_tool(server, "info")) == "None"
