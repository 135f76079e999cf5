"""``@server.method(name)``: custom request methods (params dict in, dict out; ``def`` or
``async def``; optionally a ``Context``), served in both eras; the core's own methods cannot
be replaced."""

from __future__ import annotations

import dataclasses
from typing import Any, Dict

import pytest

from conftest import modern, modern_ok, rpc
from ferrite_mcp import ConfigError, Context, InvalidParamsError, Server


def test_a_sync_method_gets_the_params_and_returns_the_result(server: Server) -> None:
    @server.method("com.example/echo")
    def echo(params: Dict[str, Any]) -> Dict[str, Any]:
        return {"echo": params}

    r = modern_ok(server, "com.example/echo", {"who": "you", "n": [1, 2]})
    assert r["echo"] == {"who": "you", "n": [1, 2]}  # without _meta
    assert r["resultType"] == "complete"
    assert r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "test-server"


def test_an_async_method_with_a_context(server: Server) -> None:
    @server.method("com.example/whoami")
    async def whoami(ctx: Context, params: Dict[str, Any]) -> Dict[str, Any]:
        return {"modern": ctx.is_modern, "got": sorted(params)}

    assert modern_ok(server, "com.example/whoami", {"b": 1, "a": 2})["modern"] is True
    assert modern_ok(server, "com.example/whoami", {"b": 1, "a": 2})["got"] == ["a", "b"]


def test_a_method_serves_handshake_era_clients_too(server: Server) -> None:
    @server.method("com.example/ping2")
    def ping2(ctx: Context) -> Dict[str, Any]:
        return {"modern": ctx.is_modern}

    rpc(server, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})
    resp = rpc(server, "com.example/ping2", {})
    assert resp["result"] == {"modern": False}


@dataclasses.dataclass
class Sum:
    total: int


def test_a_dataclass_result_is_its_json_object(server: Server) -> None:
    @server.method("com.example/sum")
    def add(params: Dict[str, Any]) -> Sum:
        return Sum(sum(params["values"]))

    assert modern_ok(server, "com.example/sum", {"values": [1, 2, 3]})["total"] == 6


def test_errors_of_a_method(server: Server) -> None:
    @server.method("com.example/strict")
    def strict(params: Dict[str, Any]) -> Dict[str, Any]:
        if "x" not in params:
            raise InvalidParamsError("x is required")
        raise RuntimeError("boom")

    @server.method("com.example/list")
    def not_an_object(params: Dict[str, Any]) -> Any:
        return [1, 2]

    err = modern(server, "com.example/strict", {})["error"]
    assert (err["code"], err["message"]) == (-32602, "x is required")
    err = modern(server, "com.example/strict", {"x": 1})["error"]
    assert err["code"] == -32603 and "boom" in err["message"]
    assert modern(server, "com.example/list", {})["error"]["code"] == -32603


def test_remove_method(server: Server) -> None:
    server.add_method(lambda params: {"ok": True}, "com.example/once")
    assert modern_ok(server, "com.example/once")["ok"] is True
    assert server.remove_method("com.example/once") is True
    assert server.remove_method("com.example/once") is False
    assert modern(server, "com.example/once")["error"]["code"] == -32601


@pytest.mark.parametrize("name", ["tools/call", "initialize", "server/discover", "ping"])
def test_a_core_method_cannot_be_replaced(server: Server, name: str) -> None:
    with pytest.raises(ConfigError, match="served by the core"):
        server.add_method(lambda params: {}, name)


def test_a_method_handler_takes_at_most_the_params_and_a_context(server: Server) -> None:
    with pytest.raises(ConfigError, match="params dict"):
        server.add_method(lambda a, b: {}, "com.example/two")
