"""Return values mapped to results: tools, resources (direct and templates), prompts and
completions."""

from __future__ import annotations

import base64
import dataclasses
from typing import Any, Dict, List, TypedDict

from ferrite_mcp import (
    Completion,
    EmbeddedResource,
    Image,
    ImageContent,
    Message,
    ResourceLink,
    Server,
    TextContent,
    ToolResult,
    UserMessage,
    error,
)

from conftest import call_tool, rpc

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


@dataclasses.dataclass
class Sum:
    sum: int


class Pair(TypedDict):
    left: int
    right: int


def test_str_is_one_text_block(server: Server) -> None:
    server.tool()(lambda: "hi")
    assert call_tool(server, "<lambda>") == {"content": [{"type": "text", "text": "hi"}]}


def test_dict_is_structured_content_and_json_text(server: Server) -> None:
    @server.tool()
    def f() -> Dict[str, Any]:
        return {"a": 1}

    assert call_tool(server, "f") == {"content": [{"type": "text", "text": '{"a":1}'}], "structuredContent": {"a": 1}}


def test_dataclass_return_gives_output_schema_and_structured_content(server: Server) -> None:
    @server.tool()
    def add(a: int, b: int) -> Sum:
        return Sum(a + b)

    tool = server.tools()[0]
    assert tool["outputSchema"] == {
        "type": "object",
        "title": "Sum",
        "properties": {"sum": {"title": "Sum", "type": "integer"}},
        "required": ["sum"],
    }
    assert call_tool(server, "add", {"a": 2, "b": 3})["structuredContent"] == {"sum": 5}


def test_typeddict_return_gives_output_schema(server: Server) -> None:
    @server.tool()
    def pair() -> Pair:
        return {"left": 1, "right": 2}

    assert server.tools()[0]["outputSchema"]["required"] == ["left", "right"]
    assert call_tool(server, "pair")["structuredContent"] == {"left": 1, "right": 2}


def test_bytes_and_image_helpers(server: Server) -> None:
    @server.tool()
    def raw() -> bytes:
        return PNG

    @server.tool()
    def helper() -> ImageContent:
        return Image(PNG)

    expected = {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"}
    assert call_tool(server, "raw")["content"] == [expected]
    assert call_tool(server, "helper")["content"] == [expected]


def test_explicit_content_list(server: Server) -> None:
    @server.tool()
    def many() -> List[Any]:
        return [
            "one",
            TextContent("two"),
            EmbeddedResource("test://r", text="three", mime_type="text/plain"),
            ResourceLink("test://l", "link"),
        ]

    assert call_tool(server, "many")["content"] == [
        {"type": "text", "text": "one"},
        {"type": "text", "text": "two"},
        {"type": "resource", "resource": {"uri": "test://r", "text": "three", "mimeType": "text/plain"}},
        {"type": "resource_link", "uri": "test://l", "name": "link"},
    ]


def test_tool_result_and_error_helper(server: Server) -> None:
    @server.tool()
    def explicit() -> ToolResult:
        return ToolResult(["5"], structured_content={"sum": 5}, meta={"k": "v"})

    @server.tool()
    def failing() -> ToolResult:
        return error("nope")

    assert call_tool(server, "explicit") == {
        "content": [{"type": "text", "text": "5"}],
        "structuredContent": {"sum": 5},
        "_meta": {"k": "v"},
    }
    assert call_tool(server, "failing") == {"content": [{"type": "text", "text": "nope"}], "isError": True}


def test_none_is_an_empty_result_and_numbers_are_text(server: Server) -> None:
    server.add_tool(lambda: None, name="nothing")
    server.add_tool(lambda: 42, name="answer")
    assert call_tool(server, "nothing") == {"content": []}
    assert call_tool(server, "answer") == {"content": [{"type": "text", "text": "42"}]}


def test_direct_resources(server: Server) -> None:
    @server.resource("test://text", mime_type="text/plain")
    def text() -> str:
        return "hello"

    @server.resource("test://blob", mime_type="image/png")
    def blob() -> bytes:
        return PNG

    @server.resource("test://json")
    def data() -> Dict[str, Any]:
        return {"k": [1, 2]}

    listed = rpc(server, "resources/list")["result"]["resources"]
    assert [r["name"] for r in listed] == ["text", "blob", "data"]
    assert rpc(server, "resources/read", {"uri": "test://text"})["result"]["contents"] == [
        {"uri": "test://text", "mimeType": "text/plain", "text": "hello"}
    ]
    assert rpc(server, "resources/read", {"uri": "test://blob"})["result"]["contents"] == [
        {"uri": "test://blob", "mimeType": "image/png", "blob": base64.b64encode(PNG).decode()}
    ]
    assert rpc(server, "resources/read", {"uri": "test://json"})["result"]["contents"] == [
        {"uri": "test://json", "mimeType": "application/json", "text": '{"k":[1,2]}'}
    ]


def test_template_variables_become_parameters(server: Server) -> None:
    @server.resource("test://users/{user}/posts/{n}")
    async def post(user: str, n: int) -> str:
        return f"{user}:{n + 1}"

    templates = rpc(server, "resources/templates/list")["result"]["resourceTemplates"]
    assert templates == [{"uriTemplate": "test://users/{user}/posts/{n}", "name": "post"}]
    contents = rpc(server, "resources/read", {"uri": "test://users/ada/posts/41"})["result"]["contents"]
    assert contents == [{"uri": "test://users/ada/posts/41", "mimeType": "text/plain", "text": "ada:42"}]


def test_template_parameters_must_match_variables(server: Server) -> None:
    import pytest

    from ferrite_mcp import ConfigError

    with pytest.raises(ConfigError, match="variables"):

        @server.resource("test://{id}")
        def wrong(other: str) -> str:
            return ""


def test_unknown_resource_is_a_protocol_error(server: Server) -> None:
    server.resource("test://known")(lambda: "x")
    resp = rpc(server, "resources/read", {"uri": "test://unknown"})
    assert "error" in resp


def test_prompts(server: Server) -> None:
    @server.prompt()
    def simple() -> str:
        """A simple prompt."""
        return "Hello"

    @server.prompt(description="With arguments")
    def args(topic: str, count: int = 1) -> List[Any]:
        return [UserMessage(f"{topic} x{count + 1}"), Message("assistant", "ok"), {"role": "user", "content": "dict"}]

    listed = rpc(server, "prompts/list")["result"]["prompts"]
    assert listed == [
        {"name": "simple", "description": "A simple prompt."},
        {
            "name": "args",
            "description": "With arguments",
            "arguments": [{"name": "topic", "required": True}, {"name": "count", "required": False}],
        },
    ]
    got = rpc(server, "prompts/get", {"name": "simple"})["result"]
    assert got == {"messages": [{"role": "user", "content": {"type": "text", "text": "Hello"}}]}
    got = rpc(server, "prompts/get", {"name": "args", "arguments": {"topic": "t", "count": "2"}})["result"]
    assert [m["content"]["text"] for m in got["messages"]] == ["t x3", "ok", "dict"]
    assert [m["role"] for m in got["messages"]] == ["user", "assistant", "user"]
    missing = rpc(server, "prompts/get", {"name": "args", "arguments": {}})
    assert missing["error"]["code"] == -32602


def test_completions(server: Server) -> None:
    server.prompt()(lambda city, country="": f"{city} {country}")
    server.completion_values(["paris", "park", "zebra"], prompt="<lambda>", argument="city")

    @server.completion(prompt="<lambda>", argument="country")
    def countries(value: str, context: Dict[str, Any]) -> Completion:
        return Completion([c for c in ["france", "finland"] if c.startswith(value)], total=10)

    def complete(arg: str, value: str) -> Dict[str, Any]:
        return rpc(
            server,
            "completion/complete",
            {"ref": {"type": "ref/prompt", "name": "<lambda>"}, "argument": {"name": arg, "value": value}},
        )["result"]["completion"]

    assert complete("city", "pa")["values"] == ["paris", "park"]
    # A `Completion` is sent as given (the core caps its values); bare values get `total`
    # and `hasMore` from the core's `CompleteResult::from_values`.
    assert complete("country", "fi") == {"values": ["finland"], "total": 10}
    assert complete("city", "z") == {"values": ["zebra"], "total": 1, "hasMore": False}


def test_global_completion_handler(server: Server) -> None:
    server.prompt()(lambda a: a)

    @server.completion()
    async def everything(ref: Dict[str, Any], argument: str, value: str) -> List[str]:
        return [f"{ref['name']}/{argument}/{value}"]

    got = rpc(
        server,
        "completion/complete",
        {"ref": {"type": "ref/prompt", "name": "<lambda>"}, "argument": {"name": "a", "value": "v"}},
    )["result"]["completion"]
    assert got["values"] == ["<lambda>/a/v"]
    assert server.capabilities()["completions"] == {}
