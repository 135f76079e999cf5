"""Tasks from Python: ``task_support=`` (and the official SDK's ``execution=``) at registration
and its errors; the same ``async def`` and ``def`` handlers as task bodies in both generations
(2026-07-28 through ``handle_raw``, 2025-11-25 on a held connection, and over this package's
HTTP listener); ``ctx.is_task``; a cancelled task's handler observing ``tasks/cancel``; a
handler that raises ending its task failed with -32603 while the server keeps serving; and
``ctx.elicit`` inside a task answered through ``tasks/update`` (2026-07-28) or ``tasks/result``
(2025-11-25)."""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Union

import pytest
from pydantic import BaseModel, ConfigDict, Field

from conftest import modern_ok, text_of
from ferrite_mcp import ConfigError, Context, ElicitResult, InputRequest, InputRequired, MCPServer, Server

EXT = "io.modelcontextprotocol/tasks"
TASK_CAPS = {"extensions": {EXT: {}}, "elicitation": {}}
CONFIRM = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
NO_ARGS = {"type": "object"}
RELATED = "io.modelcontextprotocol/related-task"

_ids = itertools.count(1000)


def wait_for(server: Server, task_id: str, status: str, timeout: float = 10.0) -> Dict[str, Any]:
    """Poll a 2026-07-28 ``tasks/get`` until the task has ``status``; the last result."""
    deadline = time.monotonic() + timeout
    while True:
        got = modern_ok(server, "tasks/get", {"taskId": task_id}, TASK_CAPS)
        if got["status"] == status or time.monotonic() > deadline:
            assert got["status"] == status, got
            return got
        time.sleep(0.02)


def create(server: Server, name: str, arguments: Optional[Dict[str, Any]] = None) -> str:
    """A 2026-07-28 ``tools/call`` that must become a task; its id."""
    created = modern_ok(server, "tools/call", {"name": name, "arguments": arguments or {}}, TASK_CAPS)
    assert created["resultType"] == "task", created
    return str(created["taskId"])


def until(check: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


class Session:
    """A 2025-11-25 session on a held connection; ``answer(method, params)`` answers the
    server's requests (from a runtime thread)."""

    def __init__(self, server: Server, answer: Optional[Callable[[str, Any], Any]] = None, capabilities: Optional[Dict[str, Any]] = None) -> None:
        self.server = server
        self.requests: List[Any] = []

        def on_request(method: str, params: Any, reply: Any) -> None:
            self.requests.append((method, params))
            if answer is None:
                reply.reject(-32601, "no")
            else:
                reply.resolve(answer(method, params))

        self.conn = server.connect(on_request=on_request)
        init = self.call("initialize", {"protocolVersion": "2025-11-25", "capabilities": capabilities or {}, "clientInfo": {"name": "t", "version": "1"}})
        assert init["result"]["protocolVersion"] == "2025-11-25", init
        server.handle_raw_on(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), self.conn)

    def call(self, method: str, params: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        msg: Dict[str, Any] = {"jsonrpc": "2.0", "id": next(_ids), "method": method}
        if params is not None:
            msg["params"] = params
        return json.loads(self.server.handle_raw_on(json.dumps(msg), self.conn) or "")

    def ok(self, method: str, params: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        resp = self.call(method, params)
        assert "result" in resp, resp
        return resp["result"]

    def create(self, name: str, arguments: Optional[Dict[str, Any]] = None) -> str:
        created = self.ok("tools/call", {"name": name, "arguments": arguments or {}, "task": {}})
        assert created["task"]["status"] == "working", created
        return str(created["task"]["taskId"])

    def close(self) -> None:
        self.conn.close()


def build() -> Server:
    """A server whose task bodies are ordinary handlers, one per handler style."""
    s = Server("tasks", "1.0.0")

    @s.tool(input_schema=NO_ARGS)
    def plain() -> str:
        return "plain"

    @s.tool(input_schema=NO_ARGS, task_support="required")
    async def async_body(ctx: Context) -> str:
        await asyncio.sleep(0.3)
        return f"async done, is_task={ctx.is_task}"

    @s.tool(input_schema=NO_ARGS, task_support="required")
    def sync_body(ctx: Context) -> str:
        time.sleep(0.3)
        return f"def done, is_task={ctx.is_task}"

    @s.tool(input_schema=NO_ARGS, task_support="optional")
    def maybe(ctx: Context) -> str:
        return f"is_task={ctx.is_task}"

    @s.tool(input_schema=NO_ARGS, task_support="required")
    async def async_raises() -> str:
        await asyncio.sleep(0.2)
        raise RuntimeError("the async body blew up")

    @s.tool(input_schema=NO_ARGS, task_support="required")
    def sync_raises() -> str:
        time.sleep(0.2)
        raise ValueError("the def body blew up")

    @s.tool(input_schema=NO_ARGS, task_support="required")
    async def confirm(ctx: Context) -> str:
        answer = await ctx.elicit("Sure?", CONFIRM)
        return f"{answer.action} {json.dumps(answer.content)} is_task={ctx.is_task}"

    @s.tool(input_schema=NO_ARGS, task_support="required")
    async def mrtr(ctx: Context) -> Union[str, InputRequired]:
        r = ctx.input_response_as("name", ElicitResult)
        if r is None:
            return InputRequired().ask("name", InputRequest.elicit("Name?", {"type": "object", "properties": {"name": {"type": "string"}}}))
        await asyncio.sleep(0.2)
        return f"Hello, {(r.content or {}).get('name')} (is_task={ctx.is_task})"

    return s


@pytest.fixture
def srv() -> Any:
    s = build()
    yield s
    s.close()


# ----- registration -----


def descriptor(server: Server, name: str) -> Dict[str, Any]:
    return [t for t in server.tools() if t["name"] == name][0]


def test_task_support_keyword_sets_execution_task_support(server: Server) -> None:
    @server.tool(task_support="optional")
    def a() -> str:
        return "a"

    def b() -> str:
        return "b"

    server.add_tool(b, task_support="required")

    @server.tool()
    def c() -> str:
        return "c"

    assert descriptor(server, "a")["execution"] == {"taskSupport": "optional"}
    assert descriptor(server, "b")["execution"] == {"taskSupport": "required"}
    assert "execution" not in descriptor(server, "c")
    s = Session(server)
    try:
        listed = {t["name"]: t.get("execution") for t in s.ok("tools/list")["tools"]}
        assert listed == {"a": {"taskSupport": "optional"}, "b": {"taskSupport": "required"}, "c": None}
        assert s.ok("tools/call", {"name": "b", "arguments": {}, "task": {}})["task"]["status"] in ("working", "completed")
    finally:
        s.close()


class ToolExecution(BaseModel):
    """The official SDK's ``ToolExecution`` shape: ``task_support`` dumped by its alias."""

    model_config = ConfigDict(populate_by_name=True)
    task_support: Optional[str] = Field(default=None, alias="taskSupport")


def test_execution_alias_takes_a_dict_or_the_official_sdk_model(server: Server) -> None:
    @server.tool(execution={"taskSupport": "required"})
    def as_dict() -> str:
        return "d"

    @server.tool(execution=ToolExecution(task_support="optional"))
    def as_model() -> str:
        return "m"

    @server.tool(execution={"taskSupport": "optional"}, task_support="optional")
    def both_agree() -> str:
        return "b"

    assert descriptor(server, "as_dict")["execution"] == {"taskSupport": "required"}
    assert descriptor(server, "as_model")["execution"] == {"taskSupport": "optional"}
    assert descriptor(server, "both_agree")["execution"] == {"taskSupport": "optional"}


def test_mcpserver_tool_takes_task_support() -> None:
    mcp = MCPServer("ported")
    try:

        @mcp.tool(task_support="optional")
        async def work(ctx: Context) -> str:
            await asyncio.sleep(0.3)
            return f"worked, is_task={ctx.is_task}"

        assert descriptor(mcp, "work")["execution"] == {"taskSupport": "optional"}
        task_id = create(mcp, "work")
        assert text_of(wait_for(mcp, task_id, "completed")["result"]) == "worked, is_task=True"
    finally:
        mcp.close()


def test_an_invalid_task_support_is_a_config_error_at_registration(server: Server) -> None:
    def t() -> str:
        return "t"

    # The word is the core's to judge (ConfigError::InvalidTaskSupport), in either spelling.
    core_says = 'tool "t": execution.taskSupport must be one of "forbidden", "optional", "required", not '
    with pytest.raises(ConfigError) as e:
        server.add_tool(t, task_support="sometimes")  # type: ignore[arg-type]
    assert str(e.value) == core_says + '"sometimes"'
    with pytest.raises(ConfigError) as e:
        server.add_tool(t, execution={"taskSupport": "maybe"})
    assert str(e.value) == core_says + '"maybe"'
    with pytest.raises(ConfigError, match=r'tool t: task_support="required" disagrees with execution.taskSupport "optional"'):
        server.add_tool(t, task_support="required", execution={"taskSupport": "optional"})
    with pytest.raises(ConfigError) as e:
        server.add_tool(t, execution="optional")
    assert str(e.value) == core_says + '"optional"'

    with pytest.raises(ConfigError, match="task_support must be a str, not bool"):
        server.add_tool(t, task_support=True)  # type: ignore[arg-type]
    assert server.tools() == []


def test_task_options_reach_the_tasks_and_bad_ones_are_config_errors() -> None:
    s = Server("opts", task_ttl=2.5, task_poll_interval=0.25)
    try:

        @s.tool(input_schema=NO_ARGS, task_support="required")
        async def wait() -> str:
            await asyncio.sleep(0.3)
            return "w"

        created = modern_ok(s, "tools/call", {"name": "wait", "arguments": {}}, TASK_CAPS)
        assert (created["ttlMs"], created["pollIntervalMs"]) == (2500, 250)
    finally:
        s.close()
    for bad in ({"task_ttl": 0}, {"task_max_ttl": -1.0}, {"task_poll_interval": float("nan")}):
        name = next(iter(bad))
        with pytest.raises(ConfigError, match=f"{name} must be a positive, finite number of seconds"):
            Server("bad", **bad)  # type: ignore[arg-type]


# ----- handler styles as task bodies -----


@pytest.mark.parametrize("name, text", [("async_body", "async done, is_task=True"), ("sync_body", "def done, is_task=True")])
def test_a_handler_completes_as_a_2026_task(srv: Server, name: str, text: str) -> None:
    task_id = create(srv, name)
    assert modern_ok(srv, "tasks/get", {"taskId": task_id}, TASK_CAPS)["status"] == "working"
    assert text_of(wait_for(srv, task_id, "completed")["result"]) == text


@pytest.mark.parametrize("name, text", [("async_body", "async done, is_task=True"), ("sync_body", "def done, is_task=True")])
def test_a_handler_completes_as_a_2025_task_and_tasks_result_gives_its_result(srv: Server, name: str, text: str) -> None:
    s = Session(srv)
    try:
        task_id = s.create(name)
        result = s.ok("tasks/result", {"taskId": task_id})
        assert text_of(result) == text
        assert result["_meta"][RELATED] == {"taskId": task_id}
        assert s.ok("tasks/get", {"taskId": task_id})["status"] == "completed"
        assert [t["taskId"] for t in s.ok("tasks/list")["tasks"]] == [task_id]
    finally:
        s.close()


def test_is_task_is_false_when_the_same_handler_runs_inline(srv: Server) -> None:
    assert text_of(modern_ok(srv, "tools/call", {"name": "maybe", "arguments": {}}, {})) == "is_task=False"
    # With the extension declared, a quick optional tool still answers inline (the core's
    # 100 ms window), but its handler ran as the task body would.
    inline = modern_ok(srv, "tools/call", {"name": "maybe", "arguments": {}}, TASK_CAPS)
    assert inline["resultType"] == "complete" and text_of(inline) == "is_task=True"


def test_a_task_over_the_http_listener_is_created_and_polled(srv: Server, http_serve: Any) -> None:
    h = http_serve(srv)
    status, created = h.modern("tools/call", {"name": "async_body", "arguments": {}}, TASK_CAPS, name="async_body")
    assert status == 200 and created["result"]["resultType"] == "task", created
    task_id = created["result"]["taskId"]
    deadline = time.monotonic() + 10
    while True:
        status, got = h.modern("tasks/get", {"taskId": task_id}, TASK_CAPS, name=task_id)
        assert status == 200, got
        if got["result"]["status"] == "completed" or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert text_of(got["result"]["result"]) == "async done, is_task=True"


# ----- cancellation -----


def cancel_server(seen: Dict[str, threading.Event]) -> Server:
    s = Server("cancel", "1.0.0")

    @s.tool(input_schema=NO_ARGS, task_support="required")
    async def awaits_cancel(ctx: Context) -> str:
        try:
            await asyncio.wait_for(ctx.cancelled(), timeout=30)
        except asyncio.TimeoutError:
            return "never cancelled"
        seen["async"].set()
        return "cancelled"

    @s.tool(input_schema=NO_ARGS, task_support="required")
    def polls_cancel(ctx: Context) -> str:
        if until(ctx.is_cancelled, timeout=30):
            seen["def"].set()
        return "stopped"

    return s


@pytest.mark.parametrize("style, tool", [("async", "awaits_cancel"), ("def", "polls_cancel")])
def test_a_cancelled_2026_task_handler_observes_the_cancellation(style: str, tool: str) -> None:
    seen = {"async": threading.Event(), "def": threading.Event()}
    s = cancel_server(seen)
    try:
        task_id = create(s, tool)
        ack = modern_ok(s, "tasks/cancel", {"taskId": task_id}, TASK_CAPS)
        assert ack["resultType"] == "complete"
        assert seen[style].wait(10), f"the {style} handler did not observe tasks/cancel"
        assert wait_for(s, task_id, "cancelled")["status"] == "cancelled"
    finally:
        s.close()


@pytest.mark.parametrize("style, tool", [("async", "awaits_cancel"), ("def", "polls_cancel")])
def test_a_cancelled_2025_task_handler_observes_the_cancellation(style: str, tool: str) -> None:
    seen = {"async": threading.Event(), "def": threading.Event()}
    s = cancel_server(seen)
    session = Session(s)
    try:
        task_id = session.create(tool)
        assert session.ok("tasks/cancel", {"taskId": task_id})["status"] == "cancelled"
        assert seen[style].wait(10), f"the {style} handler did not observe tasks/cancel"
    finally:
        session.close()
        s.close()


# ----- a handler that raises -----


@pytest.mark.parametrize("tool, message", [("async_raises", "the async body blew up"), ("sync_raises", "the def body blew up")])
def test_a_raising_handler_fails_its_2026_task_with_minus_32603_and_the_server_keeps_serving(srv: Server, tool: str, message: str) -> None:
    task_id = create(srv, tool)
    failed = wait_for(srv, task_id, "failed")
    assert failed["error"]["code"] == -32603
    assert message in failed["error"]["message"]
    assert "result" not in failed
    assert text_of(modern_ok(srv, "tools/call", {"name": "plain", "arguments": {}}, TASK_CAPS)) == "plain"
    assert text_of(wait_for(srv, create(srv, "async_body"), "completed")["result"]) == "async done, is_task=True"


@pytest.mark.parametrize("tool, message", [("async_raises", "the async body blew up"), ("sync_raises", "the def body blew up")])
def test_a_raising_handler_fails_its_2025_task_and_tasks_result_gives_minus_32603(srv: Server, tool: str, message: str) -> None:
    s = Session(srv)
    try:
        task_id = s.create(tool)
        err = s.call("tasks/result", {"taskId": task_id})["error"]
        assert err["code"] == -32603 and message in err["message"]
        assert s.ok("tasks/get", {"taskId": task_id})["status"] == "failed"
        assert text_of(s.ok("tools/call", {"name": "plain", "arguments": {}})) == "plain"
    finally:
        s.close()


# ----- input inside a task -----


def test_ctx_elicit_in_a_2026_task_is_an_input_request_answered_by_tasks_update(srv: Server) -> None:
    task_id = create(srv, "confirm")
    parked = wait_for(srv, task_id, "input_required")
    [(key, request)] = parked["inputRequests"].items()
    assert request["method"] == "elicitation/create"
    assert request["params"]["message"] == "Sure?"
    assert request["params"]["requestedSchema"] == CONFIRM
    answer = {key: {"action": "accept", "content": {"ok": True}}}
    assert modern_ok(srv, "tasks/update", {"taskId": task_id, "inputResponses": answer}, TASK_CAPS)["resultType"] == "complete"
    done = wait_for(srv, task_id, "completed")
    assert text_of(done["result"]) == 'accept {"ok": true} is_task=True'


def test_ctx_elicit_in_a_2025_task_reaches_the_client_through_tasks_result(srv: Server) -> None:
    s = Session(srv, answer=lambda method, params: {"action": "accept", "content": {"ok": False}}, capabilities={"elicitation": {}})
    try:
        task_id = s.create("confirm")
        assert until(lambda: s.ok("tasks/get", {"taskId": task_id})["status"] == "input_required")
        assert s.requests == [], "asked only while the client waits in tasks/result"
        result = s.ok("tasks/result", {"taskId": task_id})
        assert text_of(result) == 'accept {"ok": false} is_task=True'
        assert result["_meta"][RELATED] == {"taskId": task_id}
        [(method, params)] = s.requests
        assert method == "elicitation/create"
        assert (params["message"], params["requested_schema"]) == ("Sure?", CONFIRM)
        assert s.ok("tasks/get", {"taskId": task_id})["status"] == "completed"
    finally:
        s.close()


def test_an_input_required_reply_before_the_task_is_an_mrtr_round_then_a_task(srv: Server) -> None:
    first = modern_ok(srv, "tools/call", {"name": "mrtr", "arguments": {}}, TASK_CAPS)
    assert first["resultType"] == "input_required"
    assert list(first["inputRequests"]) == ["name"]
    answers = {"name": {"action": "accept", "content": {"name": "Ada"}}}
    created = modern_ok(srv, "tools/call", {"name": "mrtr", "arguments": {}, "inputResponses": answers}, TASK_CAPS)
    assert created["resultType"] == "task", created
    assert text_of(wait_for(srv, created["taskId"], "completed")["result"]) == "Hello, Ada (is_task=True)"


# ----- the everything server's fixtures -----


def test_the_everything_server_declares_the_surface_task_support() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "python"))
    try:
        import everything
    finally:
        sys.path.pop(0)
    s = everything.build(False)
    try:
        support = {t["name"]: t["execution"]["taskSupport"] for t in s.tools() if "execution" in t}
        assert support == {
            "greet": "forbidden",
            "slow_compute": "optional",
            "failing_job": "required",
            "protocol_error_job": "required",
            "confirm_delete": "required",
            "multi_input": "required",
            "test_tool_with_task": "required",
        }
        assert text_of(modern_ok(s, "tools/call", {"name": "slow_compute", "arguments": {"seconds": 0.15, "label": "x"}}, {})) == "x: computed for 0.15 s"
        assert text_of(modern_ok(s, "tools/call", {"name": "slow_compute", "arguments": {"seconds": 0}}, {})) == "slow_compute: computed for 0 s"
        task_id = create(s, "multi_input")

        def asked() -> List[str]:
            got = modern_ok(s, "tasks/get", {"taskId": task_id}, TASK_CAPS)
            return sorted(r["params"]["message"] for r in (got.get("inputRequests") or {}).values())

        assert until(lambda: len(asked()) == 2)
        assert asked() == ["First question", "Second question"]
    finally:
        s.close()


def test_stats_count_the_tasks_created_and_running(srv: Server) -> None:
    """Server.stats() (the core's counters, the figures telemetry exports)."""
    assert srv.stats() == {"sse_streams": 0, "tasks_running": 0, "tasks_created": 0, "store_round_trips": 0}
    task_id = create(srv, "async_body")
    first = srv.stats()
    assert (first["tasks_created"], first["tasks_running"]) == (1, 1), first
    wait_for(srv, task_id, "completed")
    deadline = time.monotonic() + 5
    while srv.stats()["tasks_running"] != 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert srv.stats() == {"sse_streams": 0, "tasks_running": 0, "tasks_created": 1, "store_round_trips": 0}
