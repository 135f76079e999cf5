"""Bad 2026-07-28 input is refused the documented way, in-process (``handle_raw``) and over
this package's HTTP listener (``run(transport="http")``), and the server keeps serving; an
MRTR tool completes in two rounds over both."""

from __future__ import annotations

import json
from typing import Any, Dict, Union

import pytest

from conftest import V2026, envelope, modern, modern_ok, text_of
from ferrite_mcp import Context, ElicitResult, InputRequest, InputRequired, Server

NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def build(stateless: bool = False) -> Server:
    s = Server("modern-input", "1.0.0", stateless=stateless)

    @s.tool()
    def echo(text: str) -> str:
        return text

    @s.tool()
    def greet(ctx: Context) -> Union[str, InputRequired]:
        r = ctx.input_response_as("user_name", ElicitResult)
        if r is None:
            return InputRequired().ask("user_name", InputRequest.elicit("Name?", NAME_FORM)).with_state("greeting")
        return f"Hello, {(r.content or {})['name']} ({ctx.request_state})"

    return s


@pytest.fixture
def srv() -> Any:
    s = build()
    yield s
    s.close()


def raw(server: Server, message: Any) -> Any:
    return json.loads(server.handle_raw(json.dumps(message)))


def still_serves(server: Server) -> None:
    assert text_of(modern_ok(server, "tools/call", {"name": "echo", "arguments": {"text": "ok"}})) == "ok"


# ----- in-process -----


def test_an_envelope_without_client_capabilities_is_minus_32602(srv: Server) -> None:
    meta = {"io.modelcontextprotocol/protocolVersion": V2026}
    resp = raw(srv, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}})
    assert resp["id"] == 1
    assert resp["error"]["code"] == -32602
    assert "clientCapabilities" in resp["error"]["message"]
    still_serves(srv)


def test_an_unsupported_version_is_minus_32022_naming_both(srv: Server) -> None:
    meta = dict(envelope(), **{"io.modelcontextprotocol/protocolVersion": "1999-01-01"})
    resp = raw(srv, {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta}})
    assert resp["error"]["code"] == -32022
    assert resp["error"]["data"]["requested"] == "1999-01-01"
    assert V2026 in resp["error"]["data"]["supported"]
    still_serves(srv)


@pytest.mark.parametrize("method", ["ping", "initialize", "logging/setLevel"])
def test_a_removed_method_with_an_envelope_is_minus_32601(srv: Server, method: str) -> None:
    assert modern(srv, method, {})["error"]["code"] == -32601
    still_serves(srv)


def test_a_batch_containing_an_enveloped_request_is_minus_32600(srv: Server) -> None:
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": envelope()}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": envelope()}},
    ]
    resp = raw(srv, batch)
    assert resp["id"] is None
    assert resp["error"]["code"] == -32600
    still_serves(srv)


@pytest.mark.parametrize("stateless", [False, True])
def test_an_mrtr_tool_completes_in_two_rounds_in_process(stateless: bool) -> None:
    with build(stateless) as s:
        first = modern_ok(s, "tools/call", {"name": "greet"}, {"elicitation": {}})
        assert first["resultType"] == "input_required"
        assert list(first["inputRequests"]) == ["user_name"]
        assert first["inputRequests"]["user_name"]["method"] == "elicitation/create"
        final = modern_ok(
            s,
            "tools/call",
            {
                "name": "greet",
                "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Ada"}}},
                "requestState": first["requestState"],
            },
            {"elicitation": {}},
        )
        assert final["resultType"] == "complete"
        assert text_of(final) == "Hello, Ada (greeting)"


def test_a_tampered_request_state_is_minus_32602_in_process(srv: Server) -> None:
    sealed = modern_ok(srv, "tools/call", {"name": "greet"}, {"elicitation": {}})["requestState"]
    flipped = sealed[:10] + ("A" if sealed[10] != "A" else "B") + sealed[11:]
    resp = modern(
        srv,
        "tools/call",
        {"name": "greet", "inputResponses": {"user_name": {"action": "accept", "content": {"name": "x"}}}, "requestState": flipped},
        {"elicitation": {}},
    )
    assert resp["error"]["code"] == -32602
    still_serves(srv)


# ----- over this package's HTTP listener -----


def test_http_header_mismatch_is_400_with_minus_32020(http_serve: Any) -> None:
    h = http_serve(build())
    status, body = h.modern("tools/list", headers={"MCP-Protocol-Version": "2025-11-25"})
    assert status == 400
    assert body["error"]["code"] == -32020
    status, body = h.modern("tools/call", {"name": "echo", "arguments": {"text": "ok"}}, name="echo")
    assert status == 200 and text_of(body["result"]) == "ok"


def test_http_unknown_method_is_404_with_minus_32601(http_serve: Any) -> None:
    h = http_serve(build())
    status, body = h.modern("no/such/method")
    assert status == 404
    assert body["error"]["code"] == -32601
    status, body = h.modern("tools/list")
    assert status == 200 and body["result"]["resultType"] == "complete"


def test_http_missing_envelope_with_the_2026_version_header_is_400_with_minus_32602(http_serve: Any) -> None:
    h = http_serve(build())
    status, _, body = h.post(
        {"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {}},
        {"MCP-Protocol-Version": V2026, "Mcp-Method": "tools/list"},
    )
    assert status == 400
    assert body["id"] == 9 and body["error"]["code"] == -32602
    status, body = h.modern("tools/list")
    assert status == 200 and [t["name"] for t in body["result"]["tools"]] == ["echo", "greet"]


@pytest.mark.parametrize("stateless", [False, True])
def test_http_mrtr_tool_completes_in_two_rounds(http_serve: Any, stateless: bool) -> None:
    h = http_serve(build(stateless))
    caps: Dict[str, Any] = {"elicitation": {}}
    status, first = h.modern("tools/call", {"name": "greet"}, caps, name="greet")
    assert status == 200 and first["result"]["resultType"] == "input_required"
    retry = {
        "name": "greet",
        "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Grace"}}},
        "requestState": first["result"]["requestState"],
    }
    status, final = h.modern("tools/call", retry, caps, name="greet")
    assert status == 200
    assert text_of(final["result"]) == "Hello, Grace (greeting)"
