"""The Python everything server (``examples/python/everything.py``) against the parts of
``examples/SURFACE.md`` the shared harnesses do not pin down: its command line, the tool
order, the 2026-07-28 fixtures' exact texts and bytes, and the capabilities of both modes."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, Iterator

import pytest

from conftest import modern, modern_ok, rpc, text_of
from ferrite_mcp import Server

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"
ALL = {"elicitation": {}, "sampling": {}, "roots": {}}


@pytest.fixture(scope="module")
def everything() -> Any:
    sys.path.insert(0, str(EXAMPLES))
    try:
        yield importlib.import_module("everything")
    finally:
        sys.path.remove(str(EXAMPLES))


@pytest.fixture(params=[False, True], ids=["stateful", "stateless"])
def server(everything: Any, request: Any) -> Iterator[Server]:
    s = everything.build(request.param)
    yield s
    s.close()


@pytest.mark.parametrize("argv", [["--bogus"], ["--port"], ["--port", "x"], ["stdio"]])
def test_unknown_arguments_print_usage_and_exit_2(argv: Any) -> None:
    r = subprocess.run([sys.executable, str(EXAMPLES / "everything.py"), *argv], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert "usage: everything.py [--port N [--mount]] [--stateless]" in r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize(
    "argv, env, message",
    [
        (["--auth"], {}, "everything: --auth needs --port (tokens travel in HTTP headers)\nusage:"),
        (["--port", "0", "--auth"], {"FERRITE_AUTH_ISSUER": ""}, "everything: --auth needs FERRITE_AUTH_ISSUER in the environment\n"),
    ],
)
def test_auth_needs_a_port_and_its_environment(argv: Any, env: Any, message: str) -> None:
    import os

    environ = {k: v for k, v in os.environ.items() if not k.startswith("FERRITE_AUTH_")}
    environ.update(env)
    r = subprocess.run(
        [sys.executable, str(EXAMPLES / "everything.py"), *argv], capture_output=True, text=True, timeout=30, env=environ
    )
    assert r.returncode == 2
    assert r.stderr.startswith(message), r.stderr


def test_whoami_exists_only_with_auth(everything: Any) -> None:
    auth = {
        "resource": "http://127.0.0.1:1/mcp",
        "authorization_servers": ["https://as.example"],
        "tool_scopes": {"whoami": ["mcp:whoami"]},
        "jwt": {"issuer": "https://as.example", "jwks_url": "https://as.example/jwks"},
    }
    for config, listed in ((None, False), (auth, True)):
        s = everything.build(False, config)
        try:
            names = [t["name"] for t in s.tools()]
            assert ("whoami" in names) is listed
            assert names[0] == "test_simple_text"
        finally:
            s.close()


def test_test_simple_text_is_listed_first(server: Server) -> None:
    tools = modern_ok(server, "tools/list")["tools"]
    assert tools[0]["name"] == "test_simple_text"
    names = [t["name"] for t in tools]
    for name in ("test_input_required_result_elicitation", "test_missing_capability", "test_x_mcp_header", "test_dynamic_tool"):
        assert name in names


def test_both_modes_advertise_list_changes_subscriptions_the_skill_and_tasks(server: Server) -> None:
    caps = modern_ok(server, "server/discover")["capabilities"]
    assert caps["tools"] == {"listChanged": True}
    assert caps["prompts"] == {"listChanged": True}
    assert caps["resources"] == {"subscribe": True, "listChanged": True}
    assert caps["extensions"] == {"io.modelcontextprotocol/skills": {"directoryRead": True}, "io.modelcontextprotocol/tasks": {}}


def test_the_skill_files_have_the_exact_bytes(server: Server) -> None:
    skill = modern_ok(server, "skills/list")["skills"][0]
    sizes = {r["uri"]: r["size"] for r in skill["resources"]}
    assert sizes == {"skill://add-numbers/SKILL.md": 227, "skill://add-numbers/references/EXAMPLES.md": 66}


def test_static_text_is_cacheable_publicly_for_a_minute(server: Server) -> None:
    r = modern_ok(server, "resources/read", {"uri": "test://static-text"})
    assert (r["ttlMs"], r["cacheScope"]) == (60_000, "public")
    w = modern_ok(server, "resources/read", {"uri": "test://watched-resource"})
    assert (w["ttlMs"], w["cacheScope"]) == (0, "private")


def rounds(server: Server, name: str, answers: Dict[str, Any], method: str = "tools/call") -> Dict[str, Any]:
    """Call, answer every input request from ``answers`` (by key), retry until complete."""
    params: Dict[str, Any] = {"name": name}
    for _ in range(4):
        r = modern_ok(server, method, params, ALL)
        if r["resultType"] == "complete":
            return r
        params = {"name": name, "inputResponses": {k: answers[k] for k in r.get("inputRequests", {})}}
        if "requestState" in r:
            params["requestState"] = r["requestState"]
    raise AssertionError("no complete result after 4 rounds")


NAME = {"action": "accept", "content": {"name": "Ada"}}
SAMPLE = {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"}
ROOTS = {"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}


@pytest.mark.parametrize(
    "tool, answers, text",
    [
        ("test_input_required_result_elicitation", {"user_name": NAME}, "Hello, Ada!"),
        ("test_input_required_result_elicitation", {"user_name": {"action": "decline"}}, 'Hello, the user chose "decline"!'),
        ("test_input_required_result_sampling", {"capital_question": SAMPLE}, "The model answered: Paris"),
        ("test_input_required_result_list_roots", {"client_roots": ROOTS}, "Roots: file:///a, file:///b"),
        ("test_input_required_result_request_state", {"confirm": {"action": "accept", "content": {"ok": True}}}, "state-ok: confirmed=true"),
        (
            "test_input_required_result_multiple_inputs",
            {"user_name": NAME, "greeting": SAMPLE, "client_roots": ROOTS},
            "name=Ada; greeting=Paris; roots=file:///a, file:///b",
        ),
        (
            "test_input_required_result_multi_round",
            {"step1": NAME, "step2": {"action": "accept", "content": {"color": "green"}}},
            "Ada likes green",
        ),
        ("test_input_required_result_tampered_state", {"confirm": {"action": "accept", "content": {"ok": False}}}, "state verified"),
        (
            "test_input_required_result_capabilities",
            {"user_name": NAME, "capital_question": SAMPLE, "client_roots": ROOTS},
            'answered: ["capital_question", "client_roots", "user_name"]',
        ),
        ("test_streaming_elicitation", {"user_name": NAME}, "Hello, Ada!"),
    ],
)
def test_mrtr_fixtures_reach_their_final_text(server: Server, tool: str, answers: Dict[str, Any], text: str) -> None:
    assert text_of(rounds(server, tool, answers)) == text


def test_mrtr_prompt(server: Server) -> None:
    r = rounds(server, "test_input_required_result_prompt", {"user_context": {"action": "accept", "content": {"context": "tests"}}}, "prompts/get")
    assert r["messages"] == [{"role": "user", "content": {"type": "text", "text": "Context: tests"}}]


def test_an_undecodable_answer_is_minus_32602(server: Server) -> None:
    params = {"name": "test_input_required_result_sampling", "inputResponses": {"capital_question": {"role": "assistant"}}}
    assert modern(server, "tools/call", params, ALL)["error"]["code"] == -32602


def test_capabilities_tool_without_capabilities(server: Server) -> None:
    r = modern_ok(server, "tools/call", {"name": "test_input_required_result_capabilities"}, {})
    assert text_of(r) == "the client declared no capability to ask with"


def test_missing_capability_and_logging_tools(server: Server) -> None:
    err = modern(server, "tools/call", {"name": "test_missing_capability"}, {})["error"]
    assert (err["code"], err["data"]) == (-32021, {"requiredCapabilities": {"sampling": {}}})
    ok = modern_ok(server, "tools/call", {"name": "test_missing_capability"}, {"sampling": {}})
    assert text_of(ok) == "the client declared sampling"
    assert text_of(modern_ok(server, "tools/call", {"name": "test_logging_tool"})) == "Logging tool executed"


def test_triggers_replace_the_dynamic_tool_and_prompt(server: Server) -> None:
    assert text_of(modern_ok(server, "tools/call", {"name": "test_dynamic_tool"})) == "dynamic tool version 0"
    assert text_of(modern_ok(server, "tools/call", {"name": "test_trigger_tool_change"})) == "tools list changed (version 1, 0 listeners)"
    assert text_of(modern_ok(server, "tools/call", {"name": "test_dynamic_tool"})) == "dynamic tool version 1"
    tool = [t for t in modern_ok(server, "tools/list")["tools"] if t["name"] == "test_dynamic_tool"][0]
    assert tool["description"] == "A tool test_trigger_tool_change replaces (version 1)"
    assert text_of(modern_ok(server, "tools/call", {"name": "test_trigger_prompt_change"})) == "prompts list changed (version 2, 0 listeners)"
    p = modern_ok(server, "prompts/get", {"name": "test_dynamic_prompt"})
    assert p["messages"][0]["content"]["text"] == "dynamic prompt version 2"


def test_x_mcp_header_tool(server: Server) -> None:
    tool = [t for t in modern_ok(server, "tools/list")["tools"] if t["name"] == "test_x_mcp_header"][0]
    assert tool["inputSchema"]["properties"]["region"]["x-mcp-header"] == "Region"
    r = modern_ok(server, "tools/call", {"name": "test_x_mcp_header", "arguments": {"region": "eu-west"}})
    assert text_of(r) == "region: eu-west"


def test_handshake_era_capabilities_of_a_stateless_server(everything: Any) -> None:
    with everything.build(True) as s:
        init = rpc(s, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})
        caps = init["result"]["capabilities"]
        assert "logging" not in caps and "subscribe" not in caps["resources"] and "listChanged" not in caps["tools"]
