"""What a handler reads on a retry: ``ctx.is_modern``, ``input_responses``,
``input_response``, ``has_input_response``, ``input_response_as`` (the package's result
types through the core's types, pydantic models, dataclasses, TypedDicts; a wrong shape is
``InvalidParamsError`` / ``-32602``), ``is_resubmission``, ``request_state`` and
``request_state_as``; and the blocking server-to-client calls refused on 2026-07-28."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Dict, List, Optional, TypedDict, Union

import pytest

from conftest import call_tool, modern, modern_error, modern_ok, text_of
from ferrite_mcp import (
    Context,
    ElicitResult,
    InputRequest,
    InputRequired,
    InvalidParamsError,
    RootsResult,
    SamplingResult,
    Server,
)

ALL = {"elicitation": {}, "sampling": {}, "roots": {}}


def report(server: Server, fn: Any, name: str = "probe") -> None:
    """Register ``fn(ctx) -> value`` as a tool whose text is ``json.dumps(value)``."""

    def tool(ctx: Context) -> str:
        return json.dumps(fn(ctx))

    server.add_tool(tool, name=name)


def retry(server: Server, responses: Dict[str, Any], name: str = "probe") -> Dict[str, Any]:
    return modern(server, "tools/call", {"name": name, "inputResponses": responses}, ALL)


def test_is_modern_tells_the_eras_apart(server: Server) -> None:
    report(server, lambda ctx: ctx.is_modern)
    assert text_of(modern_ok(server, "tools/call", {"name": "probe"})) == "true"
    assert text_of(call_tool(server, "probe")) == "false"


def test_a_first_call_has_no_responses_and_is_no_resubmission(server: Server) -> None:
    report(
        server,
        lambda ctx: [ctx.input_responses, ctx.input_response("k"), ctx.has_input_response("k"), ctx.is_resubmission,
                     ctx.request_state, ctx.input_response_as("k", ElicitResult), ctx.request_state_as(dict)],
    )
    assert json.loads(text_of(modern_ok(server, "tools/call", {"name": "probe"}))) == [{}, None, False, False, None, None, None]


def test_input_responses_are_the_bare_results_by_key(server: Server) -> None:
    report(server, lambda ctx: [ctx.input_responses, ctx.input_response("a"), ctx.has_input_response("a"),
                                ctx.has_input_response("zzz"), ctx.is_resubmission])
    answers = {"a": {"action": "decline"}, "b": {"roots": []}}
    out = json.loads(text_of(retry(server, answers)["result"]))
    assert out == [answers, {"action": "decline"}, True, False, True]


def test_the_package_result_types_decode_through_the_core(server: Server) -> None:
    def probe(ctx: Context) -> Any:
        e = ctx.input_response_as("e", ElicitResult)
        s = ctx.input_response_as("s", SamplingResult)
        r = ctx.input_response_as("r", RootsResult)
        assert isinstance(e, ElicitResult) and isinstance(s, SamplingResult) and isinstance(r, RootsResult)
        return [e.action, e.accepted, e.content, s.role, s.text, s.model, s.stop_reason, r.uris, r.roots[0].name]

    report(server, probe)
    out = retry(
        server,
        {
            "e": {"action": "accept", "content": {"name": "Ada"}},
            "s": {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m", "stopReason": "endTurn"},
            "r": {"roots": [{"uri": "file:///a", "name": "A"}, {"uri": "file:///b"}]},
        },
    )
    assert json.loads(text_of(out["result"])) == [
        "accept", True, {"name": "Ada"}, "assistant", "Paris", "m", "endTurn", ["file:///a", "file:///b"], "A"
    ]


@pytest.mark.parametrize(
    "kind, answer",
    [
        (ElicitResult, {"action": "maybe"}),
        (ElicitResult, {"content": {}}),
        (SamplingResult, {"role": "assistant", "content": {"type": "text", "text": "x"}}),  # no model
        (RootsResult, {"roots": [{"name": "no uri"}]}),
    ],
)
def test_an_answer_of_the_wrong_shape_is_minus_32602(server: Server, kind: Any, answer: Dict[str, Any]) -> None:
    report(server, lambda ctx: repr(ctx.input_response_as("k", kind)))
    resp = retry(server, {"k": answer})
    assert resp["error"]["code"] == -32602
    assert "'k'" in resp["error"]["message"] or '"k"' in resp["error"]["message"]


def test_the_wrong_shape_can_be_caught_as_invalid_params_error(server: Server) -> None:
    def probe(ctx: Context) -> Any:
        try:
            ctx.input_response_as("k", RootsResult)
        except InvalidParamsError as e:
            return ["caught", e.code]
        return "no error"

    report(server, probe)
    assert json.loads(text_of(retry(server, {"k": {"roots": 5}})["result"])) == ["caught", -32602]


def test_typed_round_trip_with_a_pydantic_model(server: Server) -> None:
    """The form's schema comes from a pydantic model; the answer decodes back into it."""
    pydantic = pytest.importorskip("pydantic")

    class Booking(pydantic.BaseModel):  # type: ignore[name-defined,misc]
        city: str
        nights: int

    @server.tool()
    def book(ctx: Context) -> Union[str, InputRequired]:
        answer = ctx.input_response_as("booking", ElicitResult[Booking])
        if answer is None:
            return InputRequired().ask("booking", InputRequest.elicit("Where and how long?", Booking))
        assert isinstance(answer.content, Booking)
        return f"{answer.content.nights} nights in {answer.content.city}"

    first = modern_ok(server, "tools/call", {"name": "book"}, ALL)
    schema = first["inputRequests"]["booking"]["params"]["requestedSchema"]
    assert schema["properties"]["city"]["type"] == "string" and schema["properties"]["nights"]["type"] == "integer"
    assert sorted(schema["required"]) == ["city", "nights"]
    done = retry(server, {"booking": {"action": "accept", "content": {"city": "Oslo", "nights": 3}}}, name="book")
    assert text_of(done["result"]) == "3 nights in Oslo"
    bad = retry(server, {"booking": {"action": "accept", "content": {"city": "Oslo", "nights": "many"}}}, name="book")
    assert bad["error"]["code"] == -32602


@dataclasses.dataclass
class Answer:
    action: str
    content: Optional[Dict[str, Any]] = None


class AnswerDict(TypedDict):
    action: str


def test_a_dataclass_or_typeddict_of_the_answer_shape(server: Server) -> None:
    report(server, lambda ctx: [repr(ctx.input_response_as("k", Answer)), ctx.input_response_as("k", AnswerDict)])
    out = json.loads(text_of(retry(server, {"k": {"action": "accept", "content": {"x": 1}}})["result"]))
    # Decoded by pydantic: a TypedDict keeps its own keys only.
    assert out == ["Answer(action='accept', content={'x': 1})", {"action": "accept"}]
    assert retry(server, {"k": {"content": {}}})["error"]["code"] == -32602  # action missing
    assert retry(server, {"k": {"action": 3}})["error"]["code"] == -32602  # wrong type


def test_elicit_result_of_a_dataclass_types_the_content(server: Server) -> None:
    @dataclasses.dataclass
    class Name:
        name: str

    report(server, lambda ctx: repr(ctx.input_response_as("k", ElicitResult[Name])))
    out = text_of(retry(server, {"k": {"action": "accept", "content": {"name": "Ada"}}})["result"])
    assert json.loads(out) == "ElicitResult(action='accept', content=test_elicit_result_of_a_dataclass_types_the_content.<locals>.Name(name='Ada'))"
    declined = text_of(retry(server, {"k": {"action": "decline"}})["result"])
    assert json.loads(declined) == "ElicitResult(action='decline', content=None)"
    assert retry(server, {"k": {"action": "accept", "content": {"nom": "Ada"}}})["error"]["code"] == -32602


@dataclasses.dataclass
class Round:
    step: int
    names: List[str]


def test_request_state_round_trips_as_text_and_as_a_dataclass(server: Server) -> None:
    @server.tool()
    def steps(ctx: Context) -> Union[str, InputRequired]:
        state = ctx.request_state_as(Round)
        if state is None:
            return InputRequired(state=Round(1, ["a"]))
        if state.step == 1:
            assert ctx.request_state == '{"names":["a"],"step":1}'
            return InputRequired(state=Round(2, state.names + ["b"]))
        return f"{ctx.is_resubmission} {state.step} {state.names}"

    r1 = modern_ok(server, "tools/call", {"name": "steps"})
    assert r1["resultType"] == "input_required" and "inputRequests" not in r1
    r2 = modern_ok(server, "tools/call", {"name": "steps", "requestState": r1["requestState"]})
    assert r2["resultType"] == "input_required"
    r3 = modern_ok(server, "tools/call", {"name": "steps", "requestState": r2["requestState"]})
    assert text_of(r3) == "True 2 ['a', 'b']"


def test_request_state_of_the_wrong_shape_is_minus_32602(server: Server) -> None:
    @server.tool()
    def steps(ctx: Context) -> Union[str, InputRequired]:
        if ctx.request_state is None:
            return InputRequired(state="not json")
        return repr(ctx.request_state_as(Round))

    @server.tool()
    def shaped(ctx: Context) -> Union[str, InputRequired]:
        if ctx.request_state is None:
            return InputRequired(state={"step": "one", "names": []})
        return repr(ctx.request_state_as(Round))

    for name in ("steps", "shaped"):
        sealed = modern_ok(server, "tools/call", {"name": name})["requestState"]
        err = modern_error(server, "tools/call", {"name": name, "requestState": sealed})
        assert err["code"] == -32602
        assert "request state" in err["message"]


@pytest.mark.parametrize("call", ["elicit", "sample", "list_roots", "send_request"])
def test_blocking_client_requests_on_a_modern_request_raise_use_input_required(server: Server, call: str) -> None:
    @server.tool()
    async def blocking(ctx: Context) -> str:
        try:
            if call == "elicit":
                await ctx.elicit("x", {"type": "object", "properties": {}})
            elif call == "sample":
                await ctx.sample("x")
            elif call == "list_roots":
                await ctx.list_roots()
            else:
                await ctx.send_request("roots/list")
        except Exception as e:  # noqa: BLE001 (the test inspects the class)
            return f"{type(e).__name__}: {e}"
        return "no error"

    text = text_of(modern_ok(server, "tools/call", {"name": "blocking"}, ALL))
    assert text.startswith("UseInputRequiredError: ")
    assert "InputRequired" in text
