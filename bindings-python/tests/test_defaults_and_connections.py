"""The one set of defaults (the core's, on every surface: stateful, the ``logging`` capability
on, input validation on), ``ping_client``, and handling raw text on a connection the caller
holds (``connect`` + ``handle_raw_on``, the Rust ``handle_raw_on``)."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, List

import pytest

from ferrite_mcp import Client, Context, NoChannelError, RequestTimeoutError, Server

from conftest import call_tool, rpc, text_of

INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


# ----- defaults -----


def test_a_fresh_server_advertises_logging_and_is_stateful() -> None:
    s = Server("fresh")
    s.tool()(lambda a: a)
    assert s.stateless is False
    init = rpc(s, "initialize", INIT)["result"]
    assert init["capabilities"]["logging"] == {}
    assert s.capabilities()["logging"] == {}
    s.close()


def test_a_fresh_server_validates_arguments_against_the_input_schema() -> None:
    s = Server("fresh")
    s.disable_input_validation()
    s.enable_input_validation()

    @s.tool()
    def add(a: int, b: int) -> int:
        return a + b

    bad = call_tool(s, "add", {"a": "one", "b": 2})
    assert bad["isError"] is True
    assert text_of(bad) == 'Invalid arguments for tool add: /a: "one" is not of type "integer"'
    s.close()


def test_a_fresh_server_accepts_logging_set_level() -> None:
    s = Server("fresh")
    rpc(s, "initialize", INIT)
    response = rpc(s, "logging/setLevel", {"level": "debug"})
    assert response["result"] == {}
    s.close()


def test_logging_false_or_disable_logging_turns_the_capability_off() -> None:
    s = Server("quiet", logging=False)
    assert "logging" not in s.capabilities()
    assert rpc(s, "logging/setLevel", {"level": "debug"})["error"]["code"] == -32601
    s.enable_logging()
    assert s.capabilities()["logging"] == {}
    s.disable_logging()
    assert "logging" not in s.capabilities()
    s.close()


STDIO_SERVER = """
from ferrite_mcp import Server, Context

server = Server("stdio-defaults")

@server.tool()
async def ask(ctx: Context) -> str:
    answer = await ctx.elicit("Name?", {"type": "object", "properties": {"name": {"type": "string"}}})
    return answer.content["name"]

@server.tool()
async def impatient(ctx: Context) -> str:
    import asyncio
    try:
        await asyncio.wait_for(ctx.elicit("Name?", {"type": "object", "properties": {"name": {"type": "string"}}}), 0.3)
    except asyncio.TimeoutError:
        return "gave up"
    return "answered"

@server.tool()
def ping_me(ctx: Context) -> str:
    server.ping_client(ctx.connection_id, timeout=5)
    return "pong"

server.run()
"""


def test_a_fresh_stdio_server_makes_server_to_client_requests(stdio: Any) -> None:
    c = stdio(STDIO_SERVER, capabilities={"elicitation": {}})
    init_caps = c.request("initialize", INIT)  # a second initialize is refused: the session is stateful
    assert "error" in init_caps
    c.responders["elicitation/create"] = lambda p: {"action": "accept", "content": {"name": "Ada"}}
    pings: List[Dict[str, Any]] = []
    c.responders["ping"] = lambda p: pings.append(p) or {}
    assert text_of(c.request("tools/call", {"name": "ask"})["result"]) == "Ada"
    assert text_of(c.request("tools/call", {"name": "ping_me"})["result"]) == "pong"
    assert len(pings) == 1


def test_a_fresh_http_server_makes_server_to_client_requests(http_serve: Any) -> None:
    s = Server("http-defaults")

    @s.tool()
    def who(ctx: Context) -> str:
        return ctx.connection_id

    h = http_serve(s)
    status, headers, body = h.post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
    assert status == 200
    assert body["result"]["capabilities"]["logging"] == {}
    session = headers["mcp-session-id"]  # stateful: the server made a session ...
    version = {"MCP-Protocol-Version": "2025-11-25"}
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "who", "arguments": {}}}
    assert h.post(call, version)[0] == 400  # ... and a request outside it is refused
    status, _, body = h.post(call, {**version, "Mcp-Session-Id": session})
    assert status == 200 and text_of(body["result"]) == session  # the session is the connection


# ----- ping_client -----


def test_ping_client_reaches_a_connection_and_fails_clearly_otherwise(server: Server) -> None:
    pings: List[str] = []

    def on_request(method: str, params: Any, reply: Any) -> None:
        pings.append(method)
        reply.resolve({})

    conn = server.connect(on_request=on_request)
    try:
        server.ping_client(conn.id, timeout=5)
        assert pings == ["ping"]
        with pytest.raises(NoChannelError):
            server.ping_client("no-such-connection", timeout=1)
        with pytest.raises(ValueError, match="timeout must be a positive number of seconds, not 0"):
            server.ping_client(conn.id, timeout=0)
    finally:
        conn.close()


def test_ping_client_times_out_when_the_client_does_not_answer(server: Server) -> None:
    unanswered: List[Any] = []
    conn = server.connect(on_request=lambda method, params, reply: unanswered.append(reply))
    try:
        with pytest.raises(RequestTimeoutError):
            server.ping_client(conn.id, timeout=0.05)
    finally:
        conn.close()


def test_ping_client_async(server: Server) -> None:
    conn = server.connect(on_request=lambda method, params, reply: reply.resolve({}))

    async def go() -> None:
        await server.ping_client_async(conn.id, timeout=5)
        with pytest.raises(NoChannelError):
            await server.ping_client_async("no-such-connection", timeout=1)

    try:
        asyncio.run(go())
    finally:
        conn.close()


def test_ping_client_from_a_client_connection(server: Server) -> None:
    async def go() -> None:
        async with Client(server) as c:
            await server.ping_client_async(c.connection_id, timeout=5)

    asyncio.run(go())


# ----- handle_raw_on -----


def test_handle_raw_on_a_held_connection_keeps_its_session(server: Server) -> None:
    @server.tool()
    def whoami(ctx: Context) -> str:
        ctx.set_state("seen", int(ctx.get_state("seen", 0)) + 1)
        info = ctx.client_info()
        return f"{ctx.connection_id} {ctx.get_state('seen')} {info['name'] if info else None}"

    frames: List[str] = []
    conn = server.connect(on_message=frames.append)
    other = server.connect()
    try:
        init = json.loads(server.handle_raw_on(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT}), conn) or "")
        assert init["result"]["serverInfo"]["name"] == "test-server"
        assert server.handle_raw_on(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), conn) is None
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}}
        first = json.loads(server.handle_raw_on(json.dumps(call), conn) or "")
        second = json.loads(server.handle_raw_on(json.dumps(call), conn) or "")
        assert text_of(first["result"]) == f"{conn.id} 1 t"
        assert text_of(second["result"]) == f"{conn.id} 2 t"
        assert conn.id in server.connected_sessions()
        # The connection receives what the server sends to every client.
        assert server.notify_tools_list_changed() >= 1
        assert {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"} in [json.loads(f) for f in frames]
        # Another connection is another session: its own id and state, no client info yet.
        elsewhere = json.loads(server.handle_raw_on(json.dumps(call), other) or "")
        assert text_of(elsewhere["result"]) == f"{other.id} 1 None"
    finally:
        conn.close()
        other.close()
    assert conn.closed and conn.id not in server.connected_sessions()


def test_handle_raw_on_async(server: Server) -> None:
    conn = server.connect()

    async def go() -> Any:
        return json.loads(await server.handle_raw_on_async(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}), conn) or "")

    try:
        assert asyncio.run(go()) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    finally:
        conn.close()


def test_a_server_request_on_a_connection_without_on_request_has_no_channel(server: Server) -> None:
    conn = server.connect()
    try:
        with pytest.raises(NoChannelError):
            server.ping_client(conn.id, timeout=1)
    finally:
        conn.close()


def test_send_log_message_reaches_the_level_and_the_session_named(server: Server) -> None:
    # The server-wide log message (the official SDKs' sendLoggingMessage): to the connections
    # whose logging/setLevel minimum the level reaches, or to the session named.
    frames: List[str] = []
    conn = server.connect(on_message=frames.append)
    try:
        rpc_on = lambda msg: json.loads(server.handle_raw_on(json.dumps(msg), conn) or "null")  # noqa: E731
        rpc_on({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
        set_level = {"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "warning"}}
        assert rpc_on(set_level)["result"] == {}
        assert server.send_log_message("info", "quiet") == 0
        assert server.send_log_message("error", "elsewhere", session_id="no-such-session") == 0
        assert server.send_log_message("warning", {"disk": "low"}, logger="ops", session_id=conn.id) == 1
        logs = [json.loads(f) for f in frames if '"notifications/message"' in f]
        assert logs == [
            {
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "warning", "data": {"disk": "low"}, "logger": "ops"},
            }
        ]
        with pytest.raises(ValueError, match='unknown log level "loud"'):
            server.send_log_message("loud", "x")
    finally:
        conn.close()


def test_a_question_whose_call_is_cancelled_is_withdrawn_from_the_client(stdio: Any) -> None:
    c = stdio(STDIO_SERVER, capabilities={"elicitation": {}})
    rid = c.start("tools/call", {"name": "ask", "arguments": {}})
    asked = c.messages.get(timeout=10)
    while asked.get("method") != "elicitation/create":
        asked = c.messages.get(timeout=10)
    c.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid}})
    withdrawn = c.messages.get(timeout=10)
    assert withdrawn["method"] == "notifications/cancelled", withdrawn
    assert withdrawn["params"]["requestId"] == asked["id"]
    # No answer to the cancelled call; the server keeps serving.
    assert c.request("ping") == {"jsonrpc": "2.0", "id": c.responses[-1]["id"], "result": {}}
    assert all(r.get("id") != rid for r in c.responses)


def test_a_question_the_handler_gives_up_is_withdrawn_from_the_client(stdio: Any) -> None:
    c = stdio(STDIO_SERVER, capabilities={"elicitation": {}})
    rid = c.start("tools/call", {"name": "impatient", "arguments": {}})
    seen: List[Dict[str, Any]] = []

    def done() -> bool:  # the withdrawal may come after the handler's answer: it is sent as the wait stops
        answered = any(m.get("id") == rid and "result" in m for m in seen)
        return answered and any(m.get("method") == "notifications/cancelled" for m in seen)

    while not done():
        seen.append(c.messages.get(timeout=10))
    asked = [m for m in seen if m.get("method") == "elicitation/create"]
    assert len(asked) == 1, seen
    withdrawn = [m for m in seen if m.get("method") == "notifications/cancelled"]
    assert [w["params"]["requestId"] for w in withdrawn] == [asked[0]["id"]], seen
    answer = next(m for m in seen if m.get("id") == rid)
    assert answer["result"]["content"][0]["text"] == "gave up"
