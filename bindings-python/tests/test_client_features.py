"""What a server asks of its client beyond plain requests (issue 12), from Python: typed
elicitation forms (a pydantic model or dataclass with an enum, an optional field and field
descriptions) spelled the restricted way and decoded back into the type, forms the spec does
not allow refused with the core's message, URL elicitation (``notify_elicitation_complete``,
``UrlElicitationRequiredError`` as -32042), sampling's ``include_context`` gated on the client's
``sampling.context``, and the roots list-changed observer. Each test drives the server over a
connection it holds (``server.connect()``) with the client capabilities it needs and records
what the server sent."""

from __future__ import annotations

import dataclasses
import enum
import json
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest
from pydantic import BaseModel, Field

from ferrite_mcp import (
    Context,
    InputRequest,
    InputRequired,
    InvalidElicitationError,
    MalformedResponseError,
    MissingCapabilityError,
    Server,
    UrlElicitationRequiredError,
)

NO_ARGS = {"type": "object"}


class Plan(str, enum.Enum):
    basic = "basic"
    pro = "pro"


class Signup(BaseModel):
    name: str = Field(description="Your name")
    plan: Plan
    age: Optional[int] = Field(default=None, description="Your age, if you like")


@dataclasses.dataclass
class SignupData:
    name: str
    plan: Plan
    nick: Optional[str] = None


class Address(BaseModel):
    city: str


class Nested(BaseModel):
    address: Address


# What the core sends for Signup: no $schema or root title, the enum inlined from $defs, the
# optional field as its own type with no null default, descriptions and field titles kept.
SIGNUP_FORM = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "description": "Your name"},
        "plan": {"type": "string", "enum": ["basic", "pro"]},
        "age": {"type": "integer", "title": "Age", "description": "Your age, if you like"},
    },
    "required": ["name", "plan"],
}


class Held:
    """A connection of the test's own to ``server`` (``server.connect()``), initialized with
    ``capabilities``; it records the server's requests and notifications and answers each
    request with the next of ``replies``."""

    def __init__(self, server: Server, capabilities: Dict[str, Any], version: str = "2025-11-25") -> None:
        self.server = server
        self.requests: List[Tuple[str, Any]] = []
        self.notifications: List[Dict[str, Any]] = []
        self.replies: List[Any] = []
        self._ids = 0
        self.conn = server.connect(self._on_message, self._on_request)
        init = self.call("initialize", {"protocolVersion": version, "capabilities": capabilities, "clientInfo": {"name": "t", "version": "1"}})
        assert "result" in init, init
        self.server.handle_raw_on(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), self.conn)

    def _on_message(self, frame: str) -> None:
        self.notifications.append(json.loads(frame))

    def _on_request(self, method: str, params: Any, reply: Any) -> None:
        self.requests.append((method, params))
        reply.resolve(self.replies.pop(0))

    def call(self, method: str, params: Dict[str, Any]) -> Dict[str, Any]:
        self._ids += 1
        out = self.server.handle_raw_on(json.dumps({"jsonrpc": "2.0", "id": self._ids, "method": method, "params": params}), self.conn)
        assert out is not None
        return json.loads(out)  # type: ignore[no-any-return]

    def notify(self, method: str) -> None:
        self.server.handle_raw_on(json.dumps({"jsonrpc": "2.0", "method": method}), self.conn)

    def tool_text(self, name: str) -> str:
        r = self.call("tools/call", {"name": name, "arguments": {}})
        assert "result" in r, r
        return "".join(c["text"] for c in r["result"]["content"] if c["type"] == "text")

    def close(self) -> None:
        self.conn.close()


@pytest.fixture
def held(server: Server) -> Any:
    made: List[Held] = []

    def make(capabilities: Dict[str, Any]) -> Held:
        h = Held(server, capabilities)
        made.append(h)
        return h

    yield make
    for h in made:
        h.close()


# ----- typed elicitation -----


def test_a_pydantic_model_with_an_enum_and_an_optional_field_is_a_form_the_core_accepts(server: Server, held: Any) -> None:
    @server.tool(input_schema=NO_ARGS)
    async def signup(ctx: Context) -> str:
        answer = await ctx.elicit("Sign up", schema=Signup)
        if answer.action != "accept":
            return answer.action
        assert isinstance(answer.data, Signup)
        return f"{answer.data.name} {answer.data.plan!r} {answer.data.age}"

    h = held({"elicitation": {}})
    h.replies = [
        {"action": "accept", "content": {"name": "Ada", "plan": "pro"}},
        {"action": "accept", "content": {"name": "Ada", "plan": "basic", "age": 36}},
        {"action": "decline"},
    ]
    assert h.tool_text("signup") == "Ada <Plan.pro: 'pro'> None"
    assert h.tool_text("signup") == "Ada <Plan.basic: 'basic'> 36"
    assert h.tool_text("signup") == "decline"
    method, params = h.requests[0]
    assert method == "elicitation/create"
    assert params == {"mode": "form", "message": "Sign up", "requested_schema": SIGNUP_FORM}


def test_a_dataclass_form_decodes_into_the_dataclass(server: Server, held: Any) -> None:
    @server.tool(input_schema=NO_ARGS)
    async def signup(ctx: Context) -> str:
        answer = await ctx.elicit("Sign up", SignupData)
        assert isinstance(answer.data, SignupData)
        return f"{answer.data.name} {answer.data.plan.value} {answer.data.nick}"

    h = held({"elicitation": {}})
    h.replies = [{"action": "accept", "content": {"name": "Grace", "plan": "basic", "nick": "gh"}}]
    assert h.tool_text("signup") == "Grace basic gh"
    assert h.requests[0][1]["requested_schema"] == {
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name"},
            "plan": {"type": "string", "enum": ["basic", "pro"]},
            "nick": {"type": "string", "title": "Nick"},
        },
        "required": ["name", "plan"],
    }


def test_an_accepted_answer_that_does_not_fit_the_form_is_a_malformed_response_error_with_the_cores_message(server: Server, held: Any) -> None:
    # The core checks every accepted answer against the form it sent, before pydantic sees it:
    # a required field missing, a value outside the enum, a field the form did not ask for.
    @server.tool(input_schema=NO_ARGS)
    async def signup(ctx: Context) -> str:
        try:
            answer = await ctx.elicit("Sign up", Signup)
        except MalformedResponseError as e:
            return f"malformed: {e}"
        assert isinstance(answer.data, Signup)
        return f"decoded: {answer.data!r}"

    h = held({"elicitation": {}})
    h.replies = [
        {"action": "accept", "content": {"name": "Ada"}},
        {"action": "accept", "content": {"name": "Ada", "plan": "gold"}},
        {"action": "accept", "content": {"name": "Ada", "plan": "pro", "age": "old"}},
        {"action": "accept", "content": {"name": "Ada", "plan": "pro", "admin": True}},
        {"action": "accept", "content": {"name": "Ada", "plan": "pro", "age": 36}},
    ]
    assert h.tool_text("signup") == 'malformed: the accepted answer does not fit the requested form: the required field "plan" is missing'
    assert h.tool_text("signup") == 'malformed: the accepted answer does not fit the requested form: field "plan": "gold" is not one of the options'
    assert h.tool_text("signup") == 'malformed: the accepted answer does not fit the requested form: field "age": must be an integer'
    assert h.tool_text("signup") == 'malformed: the accepted answer does not fit the requested form: "admin" is not a field of the form'
    assert h.tool_text("signup") == "decoded: Signup(name='Ada', plan=<Plan.pro: 'pro'>, age=36)"
    assert len(h.requests) == 5


def test_an_unfitting_answer_to_a_plain_json_schema_form_is_refused_too_and_uncaught_fails_the_tool(server: Server, held: Any) -> None:
    @server.tool(input_schema=NO_ARGS)
    async def pick(ctx: Context) -> str:
        form = {"type": "object", "properties": {"colour": {"type": "string", "enum": ["red", "green"]}}, "required": ["colour"]}
        answer = await ctx.elicit("Pick", form)
        return f"{answer.action} {answer.data}"

    h = held({"elicitation": {}})
    h.replies = [{"action": "accept", "content": {"colour": "blue"}}, {"action": "accept", "content": {"colour": "red"}}]
    r = h.call("tools/call", {"name": "pick", "arguments": {}})["result"]
    assert r["isError"] is True
    assert r["content"][0]["text"] == 'the accepted answer does not fit the requested form: field "colour": "blue" is not one of the options'
    assert h.tool_text("pick") == "accept {'colour': 'red'}"


def test_a_nested_model_is_refused_with_the_cores_message_and_nothing_is_sent(server: Server, held: Any) -> None:
    @server.tool(input_schema=NO_ARGS)
    async def where(ctx: Context) -> str:
        try:
            await ctx.elicit("Where?", Nested)
        except InvalidElicitationError as e:
            return f"refused: {e}"
        return "sent"

    @server.tool(input_schema=NO_ARGS)
    async def raw(ctx: Context) -> str:
        schema = {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "integer"}}}}
        try:
            await ctx.elicit("Tags?", schema)
        except InvalidElicitationError as e:
            return f"refused: {e}"
        return "sent"

    h = held({"elicitation": {}})
    said = h.tool_text("where")
    assert said.startswith('refused: invalid elicitation schema: property "address": "properties" is not allowed'), said
    assert h.tool_text("raw").startswith('refused: invalid elicitation schema: property "tags": an array field is a multi-select')
    assert h.requests == []
    assert issubclass(InvalidElicitationError, ValueError)


def test_a_typed_mrtr_form_is_spelled_the_restricted_way_and_a_bad_one_is_32603() -> None:
    s = Server("mrtr-forms")
    try:

        @s.tool(input_schema=NO_ARGS)
        def ask(ctx: Context) -> Any:
            return InputRequired().ask("who", InputRequest.elicit("Who?", Signup))

        @s.tool(input_schema=NO_ARGS)
        def nested(ctx: Context) -> Any:
            return InputRequired().ask("where", InputRequest.elicit("Where?", Nested))

        def modern(name: str) -> Dict[str, Any]:
            msg = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {
                    "name": name,
                    "arguments": {},
                    "_meta": {
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
                        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                    },
                },
            }
            return json.loads(s.handle_raw(json.dumps(msg)))  # type: ignore[no-any-return]

        first = modern("ask")["result"]
        assert first["resultType"] == "input_required"
        assert first["inputRequests"]["who"]["params"]["requestedSchema"] == SIGNUP_FORM
        e = modern("nested")["error"]
        assert e["code"] == -32603
        assert 'asked input "where" with an invalid elicitation schema: property "address"' in e["message"]
    finally:
        s.close()


# ----- URL elicitation -----


def test_url_elicitation_completes_with_a_notification_and_requires_with_32042(server: Server, held: Any) -> None:
    @server.tool(input_schema=NO_ARGS)
    async def login(ctx: Context) -> str:
        answer = await ctx.elicit_url("Sign in", "https://example.com/login", "login-1")
        await ctx.notify_elicitation_complete("login-1")
        return answer.action

    @server.tool(input_schema=NO_ARGS)
    def needs_login(ctx: Context) -> str:
        raise UrlElicitationRequiredError([{"message": "Sign in first", "url": "https://example.com/login", "elicitation_id": "login-2"}])

    h = held({"elicitation": {"url": {}}})
    h.replies = [{"action": "accept"}]
    assert h.tool_text("login") == "accept"
    assert h.requests == [("elicitation/create", {"mode": "url", "message": "Sign in", "url": "https://example.com/login", "elicitation_id": "login-1"})]
    done = [n for n in h.notifications if n.get("method") == "notifications/elicitation/complete"]
    assert done == [{"jsonrpc": "2.0", "method": "notifications/elicitation/complete", "params": {"elicitationId": "login-1"}}]

    r = h.call("tools/call", {"name": "needs_login", "arguments": {}})
    assert r["error"] == {
        "code": -32042,
        "message": "URL elicitation required",
        "data": {"elicitations": [{"mode": "url", "message": "Sign in first", "url": "https://example.com/login", "elicitationId": "login-2"}]},
    }


def test_url_elicitation_required_error_takes_the_official_sdks_objects_and_a_message() -> None:
    @dataclasses.dataclass
    class ElicitRequestURLParams:  # the official SDK's model, as far as the error reads it
        message: str
        url: str
        elicitation_id: str

    e = UrlElicitationRequiredError([ElicitRequestURLParams("Pay", "https://example.com/pay", "pay-1")], message="Payment needed")
    assert (e.code, e.message) == (-32042, "Payment needed")
    assert e.data == {"elicitations": [{"mode": "url", "message": "Pay", "url": "https://example.com/pay", "elicitationId": "pay-1"}]}
    assert e.elicitations[0].elicitation_id == "pay-1"
    with pytest.raises(TypeError, match="needs a message and a url"):
        UrlElicitationRequiredError([{"url": "https://example.com"}])


# ----- sampling -----


def test_include_context_needs_the_clients_sampling_context(server: Server, held: Any) -> None:
    @server.tool(input_schema=NO_ARGS)
    async def summarize(ctx: Context) -> str:
        try:
            r = await ctx.sample("Summarize", include_context="thisServer")
        except MissingCapabilityError as e:
            return f"error: {e}"
        return f"sampled: {r.text}"

    without = held({"sampling": {}})
    assert without.tool_text("summarize") == "error: the client did not declare the sampling.context capability"
    assert without.requests == []

    with_context = held({"sampling": {"context": {}}})
    with_context.replies = [{"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m"}]
    assert with_context.tool_text("summarize") == "sampled: ok"
    method, params = with_context.requests[0]
    assert method == "sampling/createMessage"
    assert params["includeContext"] == "thisServer"


# ----- roots -----


def test_the_roots_list_changed_observer_runs_on_the_notification(server: Server, held: Any) -> None:
    seen: List[str] = []

    @server.on_roots_list_changed()
    def changed() -> None:
        seen.append("def")

    @server.on_roots_list_changed()
    async def changed_async() -> None:
        seen.append("async")

    h = held({"roots": {"listChanged": True}})
    h.notify("notifications/tools/list_changed")  # not this one
    h.notify("notifications/roots/list_changed")
    deadline = time.monotonic() + 5
    while len(seen) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sorted(seen) == ["async", "def"]


# ----- the example (examples/python/client_features.py) -----

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "python" / "client_features.py"


def test_the_client_features_example_over_stdio(stdio: Any) -> None:
    caps = {"elicitation": {"form": {}, "url": {}}, "sampling": {"context": {}}, "roots": {"listChanged": True}}
    c = stdio(EXAMPLE.read_text(), capabilities=caps)
    asked: List[Dict[str, Any]] = []
    def elicit(p: Dict[str, Any]) -> Dict[str, Any]:
        asked.append(p)
        if p.get("mode") == "form":
            return {"action": "accept", "content": {"name": "Ada", "plan": "pro", "age": 36}}
        return {"action": "accept"}

    def sample(p: Dict[str, Any]) -> Dict[str, Any]:
        asked.append(p)
        return {"role": "assistant", "content": {"type": "text", "text": "a summary"}, "model": "m"}

    c.responders["elicitation/create"] = elicit
    c.responders["sampling/createMessage"] = sample

    def text(name: str) -> str:
        r = c.request("tools/call", {"name": name, "arguments": {}})
        assert "result" in r, r
        return "".join(b["text"] for b in r["result"]["content"] if b["type"] == "text")

    assert text("signup") == "welcome Ada on pro, aged 36"
    assert asked[0]["requestedSchema"]["properties"]["plan"] == {"type": "string", "enum": ["basic", "pro"], "description": "Which plan"}
    refused = c.request("tools/call", {"name": "export", "arguments": {}})
    assert refused["error"]["code"] == -32042
    assert refused["error"]["data"]["elicitations"][0]["url"] == "https://example.com/login"
    assert text("login") == "signed in"
    assert [n["params"] for n in c.notifications if n["method"] == "notifications/elicitation/complete"] == [
        {"elicitationId": refused["error"]["data"]["elicitations"][0]["elicitationId"]}
    ]
    assert text("export") == "exported"
    assert text("summarize") == "a summary"
    assert asked[-1]["includeContext"] == "thisServer"
    c.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
    deadline = time.monotonic() + 5
    while text("roots_changes") != "1" and time.monotonic() < deadline:
        time.sleep(0.02)
    assert text("roots_changes") == "1"
