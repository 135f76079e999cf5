"""The 2026-07-28 server settings: request-state keys and lifetime, extensions (and what a
handler sees of the client's: ``ctx.client_extension``; of HTTP: ``ctx.header``), cache hints
(visible in results), and the mapping of the core's configuration errors to
``ConfigError``."""

from __future__ import annotations

import base64
import json
from typing import Any, Union

import pytest

from conftest import envelope, modern_error, modern_ok, text_of
from ferrite_mcp import CacheHint, ConfigError, Context, InputRequired, Server

KEY_A = "11" * 32
KEY_B = base64.b64encode(bytes(range(32))).decode()


def stateful_tool(server: Server) -> None:
    @server.tool()
    def remember(ctx: Context) -> Union[str, InputRequired]:
        if ctx.request_state is None:
            return InputRequired(state="carried")
        return f"state={ctx.request_state}"


# ----- request state keys -----


def test_servers_sharing_a_key_open_each_others_states() -> None:
    with Server("a") as a, Server("b") as b, Server("c") as c:
        for s in (a, b, c):
            stateful_tool(s)
        a.set_request_state_keys(KEY_A)
        b.set_request_state_keys(KEY_A)
        sealed = modern_ok(a, "tools/call", {"name": "remember"})["requestState"]
        assert text_of(modern_ok(b, "tools/call", {"name": "remember", "requestState": sealed})) == "state=carried"
        # c has a key of its own: the state does not open there.
        assert modern_error(c, "tools/call", {"name": "remember", "requestState": sealed})["code"] == -32602
        assert a.request_state_key_id == b.request_state_key_id != c.request_state_key_id


def test_a_previous_key_still_opens_states_after_rotation() -> None:
    with Server("old") as old, Server("new") as new, Server("dropped") as dropped:
        for s in (old, new, dropped):
            stateful_tool(s)
        old.set_request_state_keys(KEY_A)
        new.set_request_state_keys(KEY_B, [KEY_A])
        dropped.set_request_state_keys(KEY_B)
        sealed = modern_ok(old, "tools/call", {"name": "remember"})["requestState"]
        assert text_of(modern_ok(new, "tools/call", {"name": "remember", "requestState": sealed})) == "state=carried"
        assert modern_error(dropped, "tools/call", {"name": "remember", "requestState": sealed})["code"] == -32602


@pytest.mark.parametrize("current, previous", [("too short", []), ("zz" * 32, []), (KEY_A, ["nope"]), (KEY_A, KEY_B)])
def test_a_malformed_key_is_a_config_error(server: Server, current: str, previous: Any) -> None:
    before = server.request_state_key_id
    with pytest.raises(ConfigError):
        server.set_request_state_keys(current, previous)
    assert server.request_state_key_id == before


def test_request_state_ttl_accepts_positive_seconds_only(server: Server) -> None:
    stateful_tool(server)
    server.set_request_state_ttl(120.5)
    sealed = modern_ok(server, "tools/call", {"name": "remember"})["requestState"]
    assert text_of(modern_ok(server, "tools/call", {"name": "remember", "requestState": sealed})) == "state=carried"
    for bad in (0, -1.0, float("inf"), float("nan")):
        with pytest.raises(ConfigError):
            server.set_request_state_ttl(bad)


# ----- extensions -----


def test_an_extension_is_advertised_in_discover_until_removed(server: Server) -> None:
    server.add_extension("com.example/widgets", {"size": 3})
    server.add_extension("com.example/bare")
    caps = modern_ok(server, "server/discover")["capabilities"]
    assert caps["extensions"] == {"com.example/widgets": {"size": 3}, "com.example/bare": {}}
    assert server.remove_extension("com.example/bare") is True
    assert server.remove_extension("com.example/bare") is False
    assert modern_ok(server, "server/discover")["capabilities"]["extensions"] == {"com.example/widgets": {"size": 3}}


@pytest.mark.parametrize("bad", ["widgets", "/widgets", "example/widgets", "com.example/", ".com/x"])
def test_an_extension_id_without_a_prefix_is_a_config_error(server: Server, bad: str) -> None:
    with pytest.raises(ConfigError, match="prefix"):
        server.add_extension(bad)


def test_client_extension_reads_what_the_request_declared(server: Server) -> None:
    @server.tool()
    def ext(ctx: Context) -> str:
        return json.dumps([ctx.client_extension("com.example/widgets"), ctx.client_extension("com.example/other")])

    declared = {"extensions": {"com.example/widgets": {"v": 1}}}
    assert json.loads(text_of(modern_ok(server, "tools/call", {"name": "ext"}, declared))) == [{"v": 1}, None]
    assert json.loads(text_of(modern_ok(server, "tools/call", {"name": "ext"}))) == [None, None]


def test_header_reads_http_request_headers(http_serve: Any) -> None:
    s = Server("headers")

    @s.tool()
    def hdr(ctx: Context) -> str:
        return json.dumps([ctx.header("x-trace-id"), ctx.header("X-TRACE-ID"), ctx.header("x-absent")])

    h = http_serve(s)
    status, body = h.modern("tools/call", {"name": "hdr"}, name="hdr", headers={"X-Trace-Id": "t-42"})
    assert status == 200
    assert json.loads(text_of(body["result"])) == ["t-42", "t-42", None]


def test_header_is_none_in_process(server: Server) -> None:
    @server.tool()
    def hdr(ctx: Context) -> str:
        return repr(ctx.header("content-type"))

    assert text_of(modern_ok(server, "tools/call", {"name": "hdr"})) == "None"


# ----- cache hints -----


def test_cache_hints_default_to_zero_private(server: Server) -> None:
    server.add_tool(lambda: "", name="t")
    assert server.cache_hints() == {
        n: CacheHint(0, "private")
        for n in ("discover", "tools_list", "prompts_list", "resources_list", "templates_list", "resource_read")
    }
    r = modern_ok(server, "tools/list")
    assert (r["ttlMs"], r["cacheScope"]) == (0, "private")


def test_set_cache_hints_shows_in_results_and_keeps_unnamed_hints(server: Server) -> None:
    @server.resource("test://r")
    def r() -> str:
        return "r"

    server.add_tool(lambda: "", name="t")
    server.add_prompt(lambda: "", name="p")
    server.set_cache_hints(tools_list=CacheHint(60_000, "public"), discover=5_000)
    server.set_cache_hints(resource_read=CacheHint(1_000))
    tools = modern_ok(server, "tools/list")
    assert (tools["ttlMs"], tools["cacheScope"]) == (60_000, "public")
    discover = modern_ok(server, "server/discover")
    assert (discover["ttlMs"], discover["cacheScope"]) == (5_000, "private")
    read = modern_ok(server, "resources/read", {"uri": "test://r"})
    assert (read["ttlMs"], read["cacheScope"]) == (1_000, "private")
    prompts = modern_ok(server, "prompts/list")
    assert (prompts["ttlMs"], prompts["cacheScope"]) == (0, "private")
    assert server.cache_hints()["tools_list"] == CacheHint(60_000, "public")


@pytest.mark.parametrize("kwargs", [{"tools_list": -1}, {"tools_list": 1.5}, {"tools_list": "60"}, {"discover": True}])
def test_a_bad_cache_hint_is_a_config_error(server: Server, kwargs: Any) -> None:
    with pytest.raises(ConfigError):
        server.set_cache_hints(**kwargs)


def test_cache_hint_validates_its_fields() -> None:
    with pytest.raises(ConfigError):
        CacheHint(-5)
    with pytest.raises(ConfigError):
        CacheHint(5, "shared")


def test_an_unknown_cache_hint_name_is_refused(server: Server) -> None:
    with pytest.raises(TypeError):
        server.set_cache_hints(tool_list=5)  # type: ignore[call-arg]


def test_a_resource_cache_hint_overrides_the_default(server: Server) -> None:
    @server.resource("test://static", mime_type="text/plain")
    def static() -> str:
        return "s"

    @server.resource("test://other")
    def other() -> str:
        return "o"

    @server.resource("test://t/{id}")
    def templ(id: str) -> str:  # noqa: A002
        return id

    server.set_resource_cache_hint("test://static", 60_000, "public")
    server.set_resource_cache_hint("test://t/{id}", 7)
    static_read = modern_ok(server, "resources/read", {"uri": "test://static"})
    assert (static_read["ttlMs"], static_read["cacheScope"]) == (60_000, "public")
    other_read = modern_ok(server, "resources/read", {"uri": "test://other"})
    assert (other_read["ttlMs"], other_read["cacheScope"]) == (0, "private")
    t = modern_ok(server, "resources/read", {"uri": "test://t/9"})
    assert (t["ttlMs"], t["cacheScope"]) == (7, "private")


def test_a_cache_hint_for_an_unknown_resource_is_a_config_error(server: Server) -> None:
    with pytest.raises(ConfigError, match="test://missing"):
        server.set_resource_cache_hint("test://missing", 1)
    with pytest.raises(ConfigError):
        server.set_resource_cache_hint("test://missing", 1, "everyone")


# ----- configuration errors of the new registrations -----


def test_a_number_typed_x_mcp_header_is_a_config_error(server: Server) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "number", "x-mcp-header": "N"}}}
    with pytest.raises(ConfigError, match="x-mcp-header"):
        server.add_tool(lambda n: str(n), name="bad_header", input_schema=schema)


def test_an_x_mcp_header_argument_is_mirrored_and_checked_over_http(http_serve: Any) -> None:
    s = Server("hdr")
    schema = {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}, "required": ["region"]}

    @s.tool(input_schema=schema)
    def where(region: str) -> str:
        return f"region: {region}"

    h = http_serve(s)
    args = {"name": "where", "arguments": {"region": "eu"}}
    status, body = h.modern("tools/call", args, name="where", headers={"Mcp-Param-Region": "eu"})
    assert status == 200 and text_of(body["result"]) == "region: eu"
    status, body = h.modern("tools/call", args, name="where", headers={"Mcp-Param-Region": "us"})
    assert status == 400 and body["error"]["code"] == -32020


def test_a_modern_request_gets_log_messages_only_when_it_carries_a_level(server: Server) -> None:
    @server.tool()
    def logs(ctx: Context) -> str:
        return repr([bool(ctx.info("hello")), bool(ctx.debug("details"))])

    assert text_of(modern_ok(server, "tools/call", {"name": "logs"})) == "[False, False]"
    params = {"name": "logs", "_meta": envelope(**{"io.modelcontextprotocol/logLevel": "info"})}
    resp = json.loads(server.handle_raw(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})))
    assert text_of(resp["result"]) == "[True, False]"
