"""Composition and proxying (issue 16): a server mounted in another under a prefix, names and URIs
rewritten both ways, live, notifications carried to the parent's clients, in both eras; and a
server in front of the Python everything server as a stdio child."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

from ferrite_mcp import Client, ConfigError, FastMCP, McpError, Server, UpstreamError

from conftest import modern_ok


def weather(seen: List[str]) -> Server:
    s = Server("weather", "1.0.0")

    @s.tool()
    def forecast(city: str) -> str:
        return f"sunny in {city}"

    @s.tool()
    async def alerts(city: str) -> str:
        await asyncio.sleep(0)
        return f"no alerts in {city}"

    @s.resource("data://cities/{city}")
    def city(city: str) -> str:
        seen.append(city)
        return f"about {city}"

    @s.prompt()
    def brief(city: str) -> str:
        return f"brief for {city}"

    return s


def test_a_mounted_server_is_served_under_its_prefix_with_names_and_uris_rewritten() -> None:
    seen: List[str] = []
    parent = Server("app", "1.0.0")

    @parent.tool()
    def own() -> str:
        return "own"

    parent.mount(weather(seen), prefix="weather")

    async def go() -> None:
        async with Client(parent) as c:
            names = [t.name for t in (await c.list_tools()).tools]
            assert names == ["own", "weather_forecast", "weather_alerts"]
            assert (await c.call_tool("weather_forecast", {"city": "oslo"})).text == "sunny in oslo"
            assert (await c.call_tool("weather_alerts", {"city": "rome"})).text == "no alerts in rome"
            templates = (await c.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == ["data://weather/cities/{city}"]
            read = await c.read_resource("data://weather/cities/lima")
            assert read.contents[0].uri == "data://weather/cities/lima"
            assert read.contents[0].text == "about lima"  # type: ignore[union-attr]
            prompt = await c.get_prompt("weather_brief", {"city": "bern"})
            assert prompt.messages[0].content.text == "brief for bern"  # type: ignore[union-attr]
            with pytest.raises(McpError) as e:
                await c.call_tool("forecast", {"city": "x"})
            assert e.value.code == -32602

    asyncio.run(go())
    assert seen == ["lima"]
    r = modern_ok(parent, "tools/call", {"name": "weather_forecast", "arguments": {"city": "kyiv"}})
    assert r["content"][0]["text"] == "sunny in kyiv"


def test_the_mount_is_live_and_the_childs_notifications_reach_the_parents_clients() -> None:
    child = weather([])
    parent = FastMCP("app")
    parent.mount("w", child)  # FastMCP's older argument order
    got: List[Dict[str, Any]] = []

    async def go() -> None:
        async with Client(parent, message_handler=got.append) as c:

            @child.tool()
            def later() -> str:
                return "later"

            assert (await c.call_tool("w_later", {})).text == "later"
            assert child.notify_tools_list_changed() == 1
            for _ in range(100):
                if got:
                    break
                await asyncio.sleep(0.01)
            assert child.remove_tool("forecast")
            assert "w_forecast" not in [t.name for t in (await c.list_tools()).tools]

    asyncio.run(go())
    assert [m.get("method") for m in got] == ["notifications/tools/list_changed"]


def test_bad_prefixes_cycles_and_unmount() -> None:
    child = weather([])
    parent = Server("app", "1.0.0")
    with pytest.raises(ConfigError, match="mount prefix"):
        parent.mount(child, prefix="has space")
    parent.mount(child)
    with pytest.raises(ConfigError, match="cannot be mounted in itself"):
        child.mount(parent, prefix="loop")
    with pytest.raises(TypeError, match="ferrite_mcp server"):
        parent.mount(object())
    assert modern_ok(parent, "tools/call", {"name": "forecast", "arguments": {"city": "a"}})["content"][0]["text"] == "sunny in a"
    assert parent.unmount(child)
    assert not parent.unmount(child)
    assert parent.tools() == []


EVERYTHING = str(Path(__file__).resolve().parents[2] / "examples" / "python" / "everything.py")


def test_a_proxy_serves_a_stdio_upstream_in_both_eras() -> None:
    proxy = Server("proxy", "1.0.0")
    proxy.proxy([sys.executable, EVERYTHING])
    names = [t["name"] for t in proxy.tools()]
    assert "add" in names and "test_tool_with_progress" in names

    async def go() -> None:
        async with Client(proxy) as c:
            assert (await c.call_tool("add", {"a": 20, "b": 22})).text == "42"
            seen: List[float] = []

            async def progress(p: float, total: Any, message: Any) -> None:
                seen.append(p)

            await c.call_tool("test_tool_with_progress", {}, progress_callback=progress)
            assert seen == [0, 50, 100]

    asyncio.run(go())
    r = modern_ok(proxy, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
    assert r["content"][0]["text"] == "3"
    proxy.close()


def test_bad_upstreams_raise_clear_errors() -> None:
    proxy = Server("proxy", "1.0.0")
    with pytest.raises(UpstreamError, match="upstream server"):
        proxy.proxy(["/nonexistent/mcp-server"])
    with pytest.raises(ConfigError, match="command"):
        proxy.proxy()
    with pytest.raises(ConfigError, match="era"):
        proxy.proxy(url="http://127.0.0.1:9/mcp", era="sideways")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="timeout_ms must be a positive whole number"):
        proxy.proxy(url="http://127.0.0.1:9/mcp", timeout=0)


def test_a_proxied_call_past_the_timeout_fails_with_32001_and_is_cancelled_upstream() -> None:
    proxy = Server("proxy", "1.0.0")
    proxy.proxy([sys.executable, EVERYTHING], era="handshake", timeout=0.3)

    async def go() -> None:
        async with Client(proxy) as c:
            with pytest.raises(McpError) as e:
                await c.call_tool("test_slow", {"ms": 5000})
            assert e.value.code == -32001
            assert "within 300 ms" in e.value.message
            for _ in range(100):  # the upstream's handler saw the cancellation
                if (await c.call_tool("test_cancellation_count", {})).text == "1":
                    break
                await asyncio.sleep(0.02)
            assert (await c.call_tool("test_cancellation_count", {})).text == "1"

    asyncio.run(go())
    proxy.close()
