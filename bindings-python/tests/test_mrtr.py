"""Multi round-trip requests: ``InputRequest`` / ``InputRequired`` (built by the core's types)
and handlers (tools, prompts, resources; ``def`` and ``async def``) that return them, driven
in-process over the 2026-07-28 path: the first reply is ``input_required``, the retry with
``inputResponses`` and the returned ``requestState`` completes."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Dict, Optional, TypedDict, Union

import pytest

from conftest import modern, modern_error, modern_ok, text_of
from ferrite_mcp import (
    Context,
    ElicitResult,
    InputRequest,
    InputRequired,
    Message,
    Server,
)

ELICIT = {"elicitation": {}}
NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


# ----- InputRequest: the core's wire shapes -----


def test_elicit_with_a_schema_dict_is_a_form_elicitation() -> None:
    r = InputRequest.elicit("Your name?", NAME_FORM)
    assert r.method == "elicitation/create"
    assert r.to_json() == {
        "method": "elicitation/create",
        "params": {"mode": "form", "message": "Your name?", "requestedSchema": NAME_FORM},
    }
    assert r.required_capability == {"elicitation": {}}


@dataclasses.dataclass
class Person:
    name: str
    age: int = 0


class PersonDict(TypedDict):
    name: str


def test_elicit_derives_the_schema_from_a_dataclass_or_typeddict() -> None:
    schema = InputRequest.elicit("Who?", Person).to_json()["params"]["requestedSchema"]
    assert schema == {
        "type": "object",
        "title": "Person",
        "properties": {"name": {"title": "Name", "type": "string"}, "age": {"title": "Age", "type": "integer", "default": 0}},
        "required": ["name"],
    }
    schema = InputRequest.elicit("Who?", PersonDict).to_json()["params"]["requestedSchema"]
    assert schema["properties"] == {"name": {"title": "Name", "type": "string"}} and schema["required"] == ["name"]


def test_elicit_derives_the_schema_from_a_pydantic_model() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Model(pydantic.BaseModel):  # type: ignore[name-defined,misc]
        city: str

    schema = InputRequest.elicit("Where?", Model).to_json()["params"]["requestedSchema"]
    assert schema["properties"]["city"]["type"] == "string"
    assert schema["required"] == ["city"]


def test_elicit_refuses_a_schema_that_is_neither_a_dict_nor_a_type() -> None:
    with pytest.raises(TypeError, match="JSON Schema dict"):
        InputRequest.elicit("x", ["not", "a", "schema"])


def test_elicit_url_is_a_url_elicitation() -> None:
    r = InputRequest.elicit_url("Sign in", "https://example.com/login")
    assert r.to_json() == {
        "method": "elicitation/create",
        "params": {"mode": "url", "message": "Sign in", "url": "https://example.com/login"},
    }
    assert r.required_capability == {"elicitation": {"url": {}}}


def test_sample_defaults_to_the_cores_1000_max_tokens_and_one_user_message() -> None:
    r = InputRequest.sample("Capital of France?")
    assert r.to_json() == {
        "method": "sampling/createMessage",
        "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "Capital of France?"}}], "maxTokens": 1000},
    }


def test_sample_options_in_snake_or_camel_case() -> None:
    r = InputRequest.sample(
        [Message("user", "hi"), {"role": "assistant", "content": {"type": "text", "text": "hello"}}],
        max_tokens=7,
        system_prompt="be brief",
        temperature=0.5,
        stop_sequences=["\n"],
        includeContext="none",
    )
    params = r.to_json()["params"]
    assert params["maxTokens"] == 7
    assert params["systemPrompt"] == "be brief"
    assert params["temperature"] == 0.5
    assert params["stopSequences"] == ["\n"]
    assert params["includeContext"] == "none"
    assert [m["role"] for m in params["messages"]] == ["user", "assistant"]
    assert params["messages"][0]["content"] == {"type": "text", "text": "hi"}


def test_sample_with_invalid_parameters_raises_value_error() -> None:
    with pytest.raises(ValueError, match="sampling"):
        InputRequest.sample("x", max_tokens=-1)


def test_list_roots() -> None:
    r = InputRequest.list_roots()
    assert r.to_json() == {"method": "roots/list"}
    assert r.required_capability == {"roots": {}}


def test_input_request_is_only_built_by_its_constructors() -> None:
    with pytest.raises(TypeError):
        InputRequest({"method": "roots/list"})  # type: ignore[arg-type]


def test_input_requests_compare_by_value() -> None:
    assert InputRequest.list_roots() == InputRequest.list_roots()
    assert InputRequest.elicit("a", NAME_FORM) != InputRequest.elicit("b", NAME_FORM)


# ----- InputRequired -----


def test_input_required_collects_requests_in_order_and_state() -> None:
    ir = InputRequired({"a": InputRequest.list_roots()}, state="s1")
    assert ir.ask("b", InputRequest.elicit("?", NAME_FORM)) is ir
    assert list(ir.requests) == ["a", "b"]
    assert ir.state == "s1"
    assert ir.with_state("s2") is ir and ir.state == "s2"


@dataclasses.dataclass
class Progress:
    step: int
    name: Optional[str]


def test_state_of_any_json_value_is_stored_as_json_text() -> None:
    # Compact JSON as the core's with_state_json writes it (object keys sorted).
    assert InputRequired(state={"step": 1, "name": None}).state == '{"name":null,"step":1}'
    assert InputRequired().with_state(Progress(2, "Ada")).state == '{"name":"Ada","step":2}'
    assert InputRequired(state=[1, "two"]).state == '[1,"two"]'
    assert json.loads(InputRequired(state=[1, "two"]).state or "") == [1, "two"]
    assert InputRequired(state="plain text").state == "plain text"


def test_input_required_refuses_what_is_not_an_input_request() -> None:
    with pytest.raises(TypeError):
        InputRequired().ask("k", {"method": "roots/list"})  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        InputRequired().ask("", InputRequest.list_roots())
    with pytest.raises(TypeError):
        InputRequired(state=object())


# ----- handlers returning InputRequired, two rounds over the 2026-07-28 path -----


def greet_reply(ctx: Context) -> Union[str, InputRequired]:
    r = ctx.input_response_as("user_name", ElicitResult)
    if r is None:
        return InputRequired().ask("user_name", InputRequest.elicit("What is your name?", NAME_FORM)).with_state("s")
    assert ctx.request_state == "s"
    return f"Hello, {(r.content or {}).get('name')}!"


def two_rounds(server: Server, method: str, params: Dict[str, Any]) -> Dict[str, Any]:
    first = modern_ok(server, method, params, ELICIT)
    assert first["resultType"] == "input_required"
    assert first["inputRequests"] == {
        "user_name": {
            "method": "elicitation/create",
            "params": {"mode": "form", "message": "What is your name?", "requestedSchema": NAME_FORM},
        }
    }
    assert isinstance(first["requestState"], str) and first["requestState"] != "s"  # sealed
    retry = dict(
        params,
        inputResponses={"user_name": {"action": "accept", "content": {"name": "Ada"}}},
        requestState=first["requestState"],
    )
    final = modern_ok(server, method, retry, ELICIT)
    assert final["resultType"] == "complete"
    return final


def test_a_sync_def_tool_returns_input_required(server: Server) -> None:
    @server.tool()
    def greet(ctx: Context) -> Union[str, InputRequired]:
        return greet_reply(ctx)

    assert text_of(two_rounds(server, "tools/call", {"name": "greet"})) == "Hello, Ada!"


def test_an_async_def_tool_returns_input_required(server: Server) -> None:
    @server.tool()
    async def greet(ctx: Context) -> Union[str, InputRequired]:
        return greet_reply(ctx)

    assert text_of(two_rounds(server, "tools/call", {"name": "greet"})) == "Hello, Ada!"


@pytest.mark.parametrize("is_async", [False, True])
def test_a_prompt_returns_input_required(server: Server, is_async: bool) -> None:
    if is_async:

        async def ask(ctx: Context) -> Union[str, InputRequired]:
            return greet_reply(ctx)

        server.add_prompt(ask, name="ask")
    else:
        server.add_prompt(greet_reply, name="ask")
    final = two_rounds(server, "prompts/get", {"name": "ask"})
    assert final["messages"] == [{"role": "user", "content": {"type": "text", "text": "Hello, Ada!"}}]


@pytest.mark.parametrize("is_async", [False, True])
def test_a_resource_returns_input_required(server: Server, is_async: bool) -> None:
    if is_async:

        async def read(ctx: Context) -> Union[str, InputRequired]:
            return greet_reply(ctx)

        server.add_resource(read, "test://greeting", mime_type="text/plain")
    else:
        server.add_resource(greet_reply, "test://greeting", mime_type="text/plain")
    final = two_rounds(server, "resources/read", {"uri": "test://greeting"})
    assert final["contents"] == [{"uri": "test://greeting", "mimeType": "text/plain", "text": "Hello, Ada!"}]


def test_a_resource_template_returns_input_required(server: Server) -> None:
    @server.resource("test://greeting/{lang}")
    def read(lang: str, ctx: Context) -> Union[str, InputRequired]:
        out = greet_reply(ctx)
        return out if isinstance(out, InputRequired) else f"{lang}: {out}"

    final = two_rounds(server, "resources/read", {"uri": "test://greeting/en"})
    assert final["contents"][0]["text"] == "en: Hello, Ada!"


def test_a_tampered_request_state_is_refused(server: Server) -> None:
    server.add_tool(greet_reply, name="greet")
    first = modern_ok(server, "tools/call", {"name": "greet"}, ELICIT)
    sealed = first["requestState"]
    tampered = sealed[:-4] + ("AAAA" if not sealed.endswith("AAAA") else "BBBB")
    err = modern_error(
        server,
        "tools/call",
        {"name": "greet", "inputResponses": {"user_name": {"action": "accept", "content": {"name": "x"}}}, "requestState": tampered},
        ELICIT,
    )
    assert err["code"] == -32602


def test_a_state_sealed_for_one_tool_is_refused_by_another(server: Server) -> None:
    server.add_tool(greet_reply, name="greet")
    server.add_tool(greet_reply, name="other")
    sealed = modern_ok(server, "tools/call", {"name": "greet"}, ELICIT)["requestState"]
    err = modern_error(server, "tools/call", {"name": "other", "requestState": sealed}, ELICIT)
    assert err["code"] == -32602


def test_an_input_request_the_client_cannot_answer_is_refused_with_minus_32021(server: Server) -> None:
    server.add_tool(greet_reply, name="greet")
    err = modern_error(server, "tools/call", {"name": "greet"}, {})
    assert err["code"] == -32021
    assert err["data"] == {"requiredCapabilities": {"elicitation": {}}}


def test_an_empty_input_required_is_an_internal_error(server: Server) -> None:
    server.add_tool(lambda: InputRequired(), name="empty")
    assert modern_error(server, "tools/call", {"name": "empty"})["code"] == -32603


def test_a_completer_cannot_return_input_required(server: Server) -> None:
    @server.prompt()
    def p(x: str) -> str:
        return x

    @server.completion(prompt="p", argument="x")
    def complete(value: str) -> Any:
        return InputRequired().ask("k", InputRequest.list_roots())

    resp = modern(server, "completion/complete", {"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "x", "value": ""}})
    assert resp["error"]["code"] == -32603
    assert "InputRequired" in resp["error"]["message"]
