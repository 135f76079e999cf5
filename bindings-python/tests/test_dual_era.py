"""One MRTR handler serves both eras: on a handshake-era (initialize) session the core sends
the input requests as real server-to-client requests (``elicitation/create``,
``sampling/createMessage``, ``roots/list``) and calls the handler again with the answers.
Driven over stdio and over Streamable HTTP with a client that answers those requests;
in-process (``handle_raw``) there is no channel back, which the tool reports."""

from __future__ import annotations

import http.client
import json
from typing import Any, Dict, Iterator, List, Optional

import pytest

from conftest import call_tool, default_sigint, rpc, text_of
from ferrite_mcp import Context, InputRequest, InputRequired, Server

SCRIPT = """
import sys
from dataclasses import dataclass
from typing import Optional, Union
from ferrite_mcp import (Context, ElicitResult, InputRequest, InputRequired, RootsResult, SamplingResult, Server)

server = Server("dual-era")
FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}

@server.tool()
def greet_sync(ctx: Context) -> Union[str, InputRequired]:
    r = ctx.input_response_as("user_name", ElicitResult)
    if r is None:
        return InputRequired().ask("user_name", InputRequest.elicit("What is your name?", FORM))
    return f"sync: Hello, {(r.content or {}).get('name')}! modern={ctx.is_modern}"

@server.tool()
async def greet_async(ctx: Context) -> Union[str, InputRequired]:
    r = ctx.input_response_as("user_name", ElicitResult)
    if r is None:
        return InputRequired().ask("user_name", InputRequest.elicit("What is your name?", FORM))
    return f"async: Hello, {(r.content or {}).get('name')}! modern={ctx.is_modern}"

@dataclass
class Step:
    n: int
    name: Optional[str] = None

@server.tool()
def everything(ctx: Context) -> Union[str, InputRequired]:
    step = ctx.request_state_as(Step) or Step(1)
    if step.n == 1:
        r = ctx.input_response_as("who", ElicitResult)
        if r is None:
            return InputRequired({"who": InputRequest.elicit("Who?", FORM)}, state=step)
        return (InputRequired(state=Step(2, (r.content or {})["name"]))
                .ask("llm", InputRequest.sample("Say hi", max_tokens=5))
                .ask("roots", InputRequest.list_roots()))
    s = ctx.input_response_as("llm", SamplingResult)
    roots = ctx.input_response_as("roots", RootsResult)
    assert s is not None and roots is not None
    return f"{step.name}: {s.text} {roots.uris}"

if "--http" in sys.argv:
    server.run(transport="http", port=0, response_mode="sse", on_ready=lambda p: print(p, file=sys.stderr, flush=True))
else:
    server.run()
"""

CAPS = {"elicitation": {}, "sampling": {}, "roots": {}}


def answer_elicitation(params: Dict[str, Any]) -> Dict[str, Any]:
    return {"action": "accept", "content": {"name": "Ada"}}


def answer_sampling(params: Dict[str, Any]) -> Dict[str, Any]:
    return {"role": "assistant", "content": {"type": "text", "text": "hi!"}, "model": "test-model"}


def answer_roots(params: Dict[str, Any]) -> Dict[str, Any]:
    return {"roots": [{"uri": "file:///work"}]}


@pytest.mark.parametrize("tool, prefix", [("greet_sync", "sync"), ("greet_async", "async")])
def test_stdio_handshake_session_gets_a_real_elicitation_request(stdio: Any, tool: str, prefix: str) -> None:
    client = stdio(SCRIPT, capabilities=CAPS)
    seen: List[Dict[str, Any]] = []

    def elicit(params: Dict[str, Any]) -> Dict[str, Any]:
        seen.append(params)
        return answer_elicitation(params)

    client.responders["elicitation/create"] = elicit
    resp = client.request("tools/call", {"name": tool, "arguments": {}})
    assert text_of(resp["result"]) == f"{prefix}: Hello, Ada! modern=False"
    assert seen == [
        {
            "mode": "form",
            "message": "What is your name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
        }
    ]


def test_stdio_handshake_session_runs_several_rounds_with_state(stdio: Any) -> None:
    client = stdio(SCRIPT, capabilities=CAPS)
    methods: List[str] = []

    def record(method: str, answer: Any) -> Any:
        def respond(params: Dict[str, Any]) -> Dict[str, Any]:
            methods.append(method)
            return answer(params)  # type: ignore[no-any-return]

        return respond

    client.responders["elicitation/create"] = record("elicitation/create", answer_elicitation)
    client.responders["sampling/createMessage"] = record("sampling/createMessage", answer_sampling)
    client.responders["roots/list"] = record("roots/list", answer_roots)
    resp = client.request("tools/call", {"name": "everything", "arguments": {}})
    assert text_of(resp["result"]) == "Ada: hi! ['file:///work']"
    assert methods == ["elicitation/create", "sampling/createMessage", "roots/list"]


def test_stdio_handshake_session_without_the_capability_is_refused(stdio: Any) -> None:
    client = stdio(SCRIPT, capabilities={})
    resp = client.request("tools/call", {"name": "greet_sync", "arguments": {}})
    assert resp["error"]["code"] == -32602
    assert resp["error"]["data"] == {"requiredCapabilities": {"elicitation": {}}}


def test_handle_raw_after_initialize_has_no_channel_back(server: Server) -> None:
    @server.tool()
    def greet(ctx: Context) -> InputRequired:
        return InputRequired().ask("n", InputRequest.elicit("Name?", {"type": "object", "properties": {}}))

    rpc(server, "initialize", {"protocolVersion": "2025-11-25", "capabilities": CAPS, "clientInfo": {"name": "t", "version": "1"}})
    result = call_tool(server, "greet")
    assert result["isError"] is True
    assert "no server-to-client request channel" in text_of(result)


# ----- Streamable HTTP (a session; the input requests ride the POST's SSE stream) -----


def sse_messages(resp: http.client.HTTPResponse) -> Iterator[Dict[str, Any]]:
    data: List[str] = []
    while True:
        line = resp.readline()
        if not line:
            return
        text = line.decode().rstrip("\r\n")
        if text.startswith("data:"):
            data.append(text[5:].strip())
        elif not text and data:
            payload = "\n".join(data)
            data = []
            if payload:
                yield json.loads(payload)


def post(port: int, body: Dict[str, Any], session: Optional[str]) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if session:
        headers.update({"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"})
    conn.request("POST", "/mcp", body=json.dumps(body), headers=headers)
    return conn.getresponse()


def test_http_handshake_session_gets_a_real_elicitation_request(tmp_path: Any) -> None:
    import signal
    import subprocess
    import sys

    script = tmp_path / "dual_http.py"
    script.write_text(SCRIPT)
    proc = subprocess.Popen(
        [sys.executable, str(script), "--http"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=default_sigint,
    )
    try:
        assert proc.stderr is not None
        port = int(proc.stderr.readline())
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": CAPS, "clientInfo": {"name": "t", "version": "1"}},
        }
        r = post(port, init, None)
        session = r.getheader("Mcp-Session-Id")
        r.read()
        assert session
        post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session).read()
        call = post(port, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "greet_async"}}, session)
        assert call.status == 200
        result = None
        for msg in sse_messages(call):
            if msg.get("method") == "elicitation/create":
                assert msg["params"]["message"] == "What is your name?"
                answer = {"jsonrpc": "2.0", "id": msg["id"], "result": answer_elicitation(msg["params"])}
                ack = post(port, answer, session)
                assert ack.status == 202
                ack.read()
            elif msg.get("id") == 2:
                result = msg
                break
        assert result is not None
        assert text_of(result["result"]) == "async: Hello, Ada! modern=False"
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=15)
