"""The Context parameter: request facts, logging, progress, client capabilities and the
server-to-client requests (sampling, elicitation, roots), over a real stdio connection."""

from __future__ import annotations

import json
from typing import Any

from ferrite_mcp import Context, Server

from conftest import call_tool, modern, modern_ok, text_of

SERVER = """
import json
from dataclasses import dataclass
from ferrite_mcp import Server, Context, MissingCapabilityError

server = Server("ctx-server", "1.0.0")

@server.tool()
def facts(ctx: Context) -> dict:
    return {
        "request_id": ctx.request_id,
        "protocol_version": ctx.protocol_version,
        "connection_id": ctx.connection_id,
        "cancelled": ctx.is_cancelled(),
        "sampling": ctx.client_supports("sampling"),
        "roots": ctx.client_supports("roots"),
        "progress_token": ctx.progress_token,
        "client": ctx.client_info()["name"],
    }

@server.tool()
def chatty(ctx: Context) -> str:
    sent = [bool(s) for s in (ctx.debug("d"), ctx.info("i"), ctx.warning("w"), ctx.error("e"), ctx.log("notice", {"k": 1}, "lg"))]
    ctx.report_progress(1, 2, "half")
    return json.dumps(sent)

@server.tool()
async def ask(ctx: Context) -> str:
    reply = await ctx.sample("What is the capital of France?", max_tokens=50)
    form = await ctx.elicit("Who are you?", {"type": "object", "properties": {"name": {"type": "string"}}})
    roots = await ctx.list_roots()
    return json.dumps([reply.text, reply.model, form.action, form.content, [r.uri for r in roots]])

@dataclass
class Person:
    name: str

@server.tool()
async def ask_typed(ctx: Context) -> str:
    form = await ctx.elicit("Who are you?", Person)
    return form.data.name

@server.tool()
async def url_without_capability(ctx: Context) -> str:
    try:
        await ctx.elicit_url("go", "https://example.com", "e1")
    except MissingCapabilityError as e:
        return f"missing: {e}"
    return "sent"

server.run()
"""

CAPS = {"sampling": {}, "elicitation": {}, "roots": {"listChanged": True}}


def test_request_facts(stdio: Any) -> None:
    c = stdio(SERVER, capabilities=CAPS)
    rid = c.start("tools/call", {"name": "facts", "_meta": {"progressToken": "tok"}})
    facts = c.wait(rid)["result"]["structuredContent"]
    assert facts["request_id"] == rid
    assert facts["protocol_version"] == "2025-11-25"
    assert isinstance(facts["connection_id"], str) and facts["connection_id"]
    assert facts["cancelled"] is False
    assert facts["sampling"] is True and facts["roots"] is True
    assert facts["progress_token"] == "tok"
    assert facts["client"] == "pytest"


def test_logging_respects_the_level_and_progress_needs_a_token(stdio: Any) -> None:
    c = stdio(SERVER, capabilities=CAPS)
    assert "result" in c.request("logging/setLevel", {"level": "info"})
    rid = c.start("tools/call", {"name": "chatty", "_meta": {"progressToken": 7}})
    sent = json.loads(c.wait(rid)["result"]["content"][0]["text"])
    assert sent == [False, True, True, True, True]  # debug is below the client's level
    logs = [n["params"] for n in c.notifications if n["method"] == "notifications/message"]
    assert [m["level"] for m in logs] == ["info", "warning", "error", "notice"]
    assert logs[-1] == {"level": "notice", "data": {"k": 1}, "logger": "lg"}
    progress = [n["params"] for n in c.notifications if n["method"] == "notifications/progress"]
    assert progress == [{"progressToken": 7, "progress": 1.0, "total": 2.0, "message": "half"}]


def test_sampling_elicitation_and_roots_round_trip(stdio: Any) -> None:
    c = stdio(SERVER, capabilities=CAPS)
    seen = {}

    def sample(params: Any) -> Any:
        seen["sample"] = params
        return {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m1"}

    def elicit(params: Any) -> Any:
        seen["elicit"] = params
        return {"action": "accept", "content": {"name": "Ada"}}

    c.responders["sampling/createMessage"] = sample
    c.responders["elicitation/create"] = elicit
    c.responders["roots/list"] = lambda p: {"roots": [{"uri": "file:///tmp", "name": "tmp"}]}
    out = json.loads(c.request("tools/call", {"name": "ask"})["result"]["content"][0]["text"])
    assert out == ["Paris", "m1", "accept", {"name": "Ada"}, ["file:///tmp"]]
    assert seen["sample"]["maxTokens"] == 50
    assert seen["sample"]["messages"][0]["content"]["text"] == "What is the capital of France?"
    assert seen["elicit"]["message"] == "Who are you?"
    assert c.request("tools/call", {"name": "ask_typed"})["result"]["content"][0]["text"] == "Ada"
    assert seen["elicit"]["requestedSchema"]["properties"] == {"name": {"title": "Name", "type": "string"}}


def test_client_error_and_missing_capability(stdio: Any) -> None:
    c = stdio(SERVER, capabilities={"sampling": {}})  # no elicitation.url, no roots
    # The client answers sampling with an error: the tool fails with isError, carrying it.
    result = c.request("tools/call", {"name": "ask"})["result"]
    assert result["isError"] is True
    assert "client error -32601" in result["content"][0]["text"]
    text = c.request("tools/call", {"name": "url_without_capability"})["result"]["content"][0]["text"]
    assert text.startswith("missing: ")


def test_context_in_process(server: Server) -> None:
    @server.tool()
    def who(ctx: Context) -> str:
        return f"{ctx.connection_id}:{ctx.is_stateless}:{ctx.meta}"

    assert text_of(call_tool(server, "who")) == "in-process:False:None"


OBSERVING = """
from ferrite_mcp import Server, Context
server = Server("observer")
seen = []

@server.on_notification("notifications/roots/list_changed")
def roots_changed(method, params):
    seen.append(method)

@server.on_notification()
async def everything(method, params):
    seen.append("async:" + method)

@server.tool(required_capabilities={"sampling": {}})
def needs_sampling() -> str:
    return "allowed"

@server.tool()
def observed(ctx: Context) -> str:
    return ",".join(sorted(seen)) + "|" + str(server.connected_sessions() == [ctx.connection_id])

server.run()
"""


def test_notification_observers_and_connected_sessions(stdio: Any) -> None:
    import time

    c = stdio(OBSERVING, capabilities={"roots": {"listChanged": True}})
    c.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
    expected = "async:notifications/initialized,async:notifications/roots/list_changed,notifications/roots/list_changed|True"
    text = ""
    for _ in range(50):
        text = c.request("tools/call", {"name": "observed"})["result"]["content"][0]["text"]
        if text == expected:
            break
        time.sleep(0.05)
    assert text == expected


def test_required_client_capabilities_are_enforced(stdio: Any) -> None:
    # A handshake-era session (2025-11-25) that did not declare the capability: a protocol
    # error, -32602 (not -32021, which would tell the client it speaks to a 2026-07-28
    # server), naming the capability as a ClientCapabilities object; the tool never runs.
    without = stdio(OBSERVING, capabilities={})
    refused = without.request("tools/call", {"name": "needs_sampling"})
    assert "result" not in refused, refused
    assert refused["error"]["code"] == -32602
    assert refused["error"]["data"] == {"requiredCapabilities": {"sampling": {}}}
    assert "needs_sampling" in refused["error"]["message"]
    with_caps = stdio(OBSERVING, capabilities={"sampling": {}})
    assert with_caps.request("tools/call", {"name": "needs_sampling"})["result"]["content"][0]["text"] == "allowed"


def test_required_client_capabilities_answer_32021_on_2026_07_28(server: Server) -> None:
    ran = []

    @server.tool(required_capabilities={"sampling": {}})
    def needs_sampling() -> str:
        ran.append(True)
        return "allowed"

    refused = modern(server, "tools/call", {"name": "needs_sampling"}, caps={})
    assert "result" not in refused, refused
    assert refused["error"]["code"] == -32021
    assert refused["error"]["data"] == {"requiredCapabilities": {"sampling": {}}}
    assert ran == []
    allowed = modern_ok(server, "tools/call", {"name": "needs_sampling"}, caps={"sampling": {}})
    assert text_of(allowed) == "allowed"
    assert ran == [True]
