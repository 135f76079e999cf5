"""The out-of-band end of a URL elicitation from Python: ``server.notify_elicitation_complete(
connection_id, elicitation_id)`` (the core's ``Server::notify_elicitation_complete``) sends
``notifications/elicitation/complete`` with ``{"elicitationId": ...}`` to a listening connection
that negotiated 2025-11-25, after the request that asked for it ended, and answers whether it
went out: false for an unknown connection id and for a connection on an older revision. Over a
real stdio connection, and over connections the test holds (``server.connect()``)."""

from __future__ import annotations

import json
import time
from typing import Any, Dict, List

from ferrite_mcp import Server

COMPLETE = "notifications/elicitation/complete"

SERVER = """
import json
from ferrite_mcp import Context, Server, UrlElicitationRequiredError

server = Server("url-elicitation", "1.0.0")
signed_in = set()

@server.tool()
def export(ctx: Context) -> str:
    if ctx.connection_id not in signed_in:
        raise UrlElicitationRequiredError([{"message": "Sign in first", "url": "https://example.com/login", "elicitation_id": "login-1"}])
    return "exported"

# What the login page's callback does once the user signed in: it learns of it after the
# request that was refused with -32042 has ended, and tells the waiting connection.
@server.tool()
def login_callback(ctx: Context) -> str:
    [connection] = server.connected_sessions()
    signed_in.add(connection)
    return json.dumps({
        "sent": server.notify_elicitation_complete(connection, "login-1"),
        "unknown": server.notify_elicitation_complete("no-such-connection", "login-1"),
    })

server.run()
"""


def test_the_server_level_notify_reaches_a_stdio_connection_and_is_false_for_an_unknown_id(stdio: Any) -> None:
    c = stdio(SERVER, capabilities={"elicitation": {"url": {}}})
    refused = c.request("tools/call", {"name": "export", "arguments": {}})
    assert refused["error"]["code"] == -32042
    assert refused["error"]["data"]["elicitations"][0]["elicitationId"] == "login-1"
    assert [n for n in c.notifications if n["method"] == COMPLETE] == []

    r = c.request("tools/call", {"name": "login_callback", "arguments": {}})
    assert json.loads(r["result"]["content"][0]["text"]) == {"sent": True, "unknown": False}
    deadline = time.monotonic() + 5
    while not any(n["method"] == COMPLETE for n in c.notifications) and time.monotonic() < deadline:
        c.request("ping")
    assert [n for n in c.notifications if n["method"] == COMPLETE] == [
        {"jsonrpc": "2.0", "method": COMPLETE, "params": {"elicitationId": "login-1"}}
    ]
    assert c.request("tools/call", {"name": "export", "arguments": {}})["result"]["content"][0]["text"] == "exported"


def _held(server: Server, version: str, frames: List[Dict[str, Any]]) -> Any:
    conn = server.connect(lambda frame: frames.append(json.loads(frame)))
    init = {"protocolVersion": version, "capabilities": {"elicitation": {"url": {}}}, "clientInfo": {"name": "t", "version": "1"}}
    out = conn.handle_raw(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}))
    assert json.loads(out)["result"]["protocolVersion"] == version
    conn.handle_raw(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    return conn


def test_the_server_level_notify_reaches_only_the_connection_named_and_only_from_2025_11_25(server: Server) -> None:
    current: List[Dict[str, Any]] = []
    other: List[Dict[str, Any]] = []
    older: List[Dict[str, Any]] = []
    a = _held(server, "2025-11-25", current)
    b = _held(server, "2025-11-25", other)
    old = _held(server, "2025-06-18", older)
    try:
        assert server.notify_elicitation_complete(a.id, "pay-7") is True
        assert server.notify_elicitation_complete(old.id, "pay-7") is False
        deadline = time.monotonic() + 5
        while not current and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.05)
        assert current == [{"jsonrpc": "2.0", "method": COMPLETE, "params": {"elicitationId": "pay-7"}}]
        assert other == []
        # 2025-06-18 has no URL elicitation: nothing is sent.
        assert older == []
        assert server.notify_elicitation_complete("no-such-connection", "pay-7") is False
        # A closed connection no longer listens.
        b.close()
        assert server.notify_elicitation_complete(b.id, "pay-7") is False
    finally:
        for c in (a, b, old):
            c.close()
