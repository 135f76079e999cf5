"""The Python everything server's 2026-07-28 fixtures (see ``examples/SURFACE.md``): multi
round-trip tools and prompt, a tool needing a client capability, a logging tool, list change
triggers, a tool with an ``x-mcp-header`` argument, a skill, and a cache hint.

The MRTR handlers are written once: on a 2026-07-28 request the client gets the input
requests and retries; on a handshake-era session the core asks the client itself and calls
them again. Each reads its answers with ``ctx.input_response_as``, which raises
``InvalidParamsError`` (``-32602``) for an answer of the wrong shape.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import threading
from typing import Any, Dict, List, Optional, Union

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

NO_ARGS: Dict[str, Any] = {"type": "object", "additionalProperties": False}

SKILL_MD = (
    "---\nname: add-numbers\ndescription: Add two integers with the add tool and report the sum\n---\n\n"
    "# Add numbers\n\nCall the add tool with integer arguments a and b, then report the sum.\n"
    "Worked examples are in references/EXAMPLES.md.\n"
)
SKILL_EXAMPLES = "# Examples\n\n- add(a=2, b=3) returns 5\n- add(a=-4, b=10) returns 6\n"

CONFIRM_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}

Reply = Union[str, InputRequired]


def form(field: str) -> Dict[str, Any]:
    """A one-field form."""
    return {"type": "object", "properties": {field: {"type": "string"}}, "required": [field]}


def ask_name() -> InputRequest:
    return InputRequest.elicit("What is your name?", form("name"))


def ask_capital() -> InputRequest:
    return InputRequest.sample("What is the capital of France?", max_tokens=100)


def ask_confirm() -> InputRequest:
    return InputRequest.elicit("Please confirm", CONFIRM_SCHEMA)


def accepted(r: ElicitResult[Dict[str, Any]], field: str) -> str:
    """The ``field`` of an accepted elicitation, or why there is none."""
    if r.action != "accept":
        return f'the user chose "{r.action}"'
    content = r.content or {}
    if field not in content:
        return f"the form has no {field}"
    value = content[field]
    return value if isinstance(value, str) else json.dumps(value)


def roots(r: RootsResult) -> str:
    return ", ".join(r.uris)


@dataclasses.dataclass
class Round:
    """The state ``test_input_required_result_multi_round`` carries between rounds."""

    step: int
    name: Optional[str]


def register_mrtr_tools(server: Server) -> None:
    @server.tool(structured_output=False, input_schema=NO_ARGS)
    def test_input_required_result_elicitation(ctx: Context) -> Reply:
        """Asks for the user's name, then greets them (MRTR)"""
        r = ctx.input_response_as("user_name", ElicitResult)
        if r is None:
            return InputRequired().ask("user_name", ask_name())
        return f"Hello, {accepted(r, 'name')}!"

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    async def test_input_required_result_sampling(ctx: Context) -> Reply:
        """Asks the client's LLM a question (MRTR)"""
        r = ctx.input_response_as("capital_question", SamplingResult)
        if r is None:
            return InputRequired().ask("capital_question", ask_capital())
        return f"The model answered: {r.text or ''}"

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    def test_input_required_result_list_roots(ctx: Context) -> Reply:
        """Asks for the client's roots (MRTR)"""
        r = ctx.input_response_as("client_roots", RootsResult)
        if r is None:
            return InputRequired().ask("client_roots", InputRequest.list_roots())
        return f"Roots: {roots(r)}"

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    def test_input_required_result_request_state(ctx: Context) -> Reply:
        """Asks for a confirmation and carries state (MRTR)"""
        expected = "awaiting-confirmation"
        if ctx.request_state is not None and ctx.request_state != expected:
            raise InvalidParamsError(f"unexpected request state {ctx.request_state!r}")
        r = ctx.input_response_as("confirm", ElicitResult)
        if ctx.request_state == expected and r is not None:
            return f"state-ok: confirmed={accepted(r, 'ok')}"
        return InputRequired({"confirm": ask_confirm()}, state=expected)

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    def test_input_required_result_multiple_inputs(ctx: Context) -> Reply:
        """Asks for a name, a greeting and the roots at once (MRTR)"""
        name = ctx.input_response_as("user_name", ElicitResult)
        greeting = ctx.input_response_as("greeting", SamplingResult)
        client_roots = ctx.input_response_as("client_roots", RootsResult)
        if name is not None and greeting is not None and client_roots is not None:
            return f"name={accepted(name, 'name')}; greeting={greeting.text or ''}; roots={roots(client_roots)}"
        return (
            InputRequired()
            .ask("user_name", ask_name())
            .ask("greeting", InputRequest.sample("Generate a greeting", max_tokens=50))
            .ask("client_roots", InputRequest.list_roots())
            .with_state("multiple-inputs")
        )

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    def test_input_required_result_multi_round(ctx: Context) -> Reply:
        """Asks two questions in two rounds (MRTR)"""
        step1 = InputRequest.elicit("Step 1: What is your name?", form("name"))
        step2 = InputRequest.elicit("Step 2: What is your favorite color?", form("color"))
        state = ctx.request_state_as(Round) or Round(step=1, name=None)
        if state.step == 1:
            r = ctx.input_response_as("step1", ElicitResult)
            if r is None:
                return InputRequired().ask("step1", step1).with_state(state)
            return InputRequired().ask("step2", step2).with_state(Round(step=2, name=accepted(r, "name")))
        r = ctx.input_response_as("step2", ElicitResult)
        if r is None:
            return InputRequired().ask("step2", step2).with_state(state)
        return f"{state.name or ''} likes {accepted(r, 'color')}"

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    def test_input_required_result_tampered_state(ctx: Context) -> Reply:
        """Carries sealed state; an altered one is refused (MRTR)"""
        r = ctx.input_response_as("confirm", ElicitResult)
        if ctx.request_state == "tamper-check" and r is not None:
            return "state verified"
        return InputRequired().ask("confirm", ask_confirm()).with_state("tamper-check")

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    def test_input_required_result_capabilities(ctx: Context) -> Reply:
        """Asks only with what the client declared: elicitation, sampling, roots (MRTR)"""
        if ctx.is_resubmission:
            return "answered: [" + ", ".join(json.dumps(k) for k in ctx.input_responses) + "]"
        ir = InputRequired()
        if ctx.client_supports("elicitation"):
            ir.ask("user_name", ask_name())
        if ctx.client_supports("sampling"):
            ir.ask("capital_question", ask_capital())
        if ctx.client_supports("roots"):
            ir.ask("client_roots", InputRequest.list_roots())
        if not ir.requests:
            return "the client declared no capability to ask with"
        return ir

    @server.tool(structured_output=False, input_schema=NO_ARGS, required_capabilities={"elicitation": {}})
    async def test_streaming_elicitation(ctx: Context) -> Reply:
        """Needs elicitation; asks the MRTR way, never with a request"""
        r = ctx.input_response_as("user_name", ElicitResult)
        if r is None:
            return InputRequired().ask("user_name", ask_name())
        return f"Hello, {accepted(r, 'name')}!"


def register_other_tools(server: Server) -> None:
    @server.tool(structured_output=False, input_schema=NO_ARGS, required_capabilities={"sampling": {}})
    def test_missing_capability() -> str:
        """Needs the client's sampling capability"""
        return "the client declared sampling"

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    def test_logging_tool(ctx: Context) -> str:
        """Logs two messages (sent only when the request asked for a log level)"""
        ctx.info("Logging tool started")
        ctx.info("Logging tool finished")
        return "Logging tool executed"

    def add_dynamic_tool(version: int) -> None:
        server.add_tool(
            lambda: f"dynamic tool version {version}",
            name="test_dynamic_tool",
            description=f"A tool test_trigger_tool_change replaces (version {version})",
            input_schema=NO_ARGS,
        )

    def add_dynamic_prompt(version: int) -> None:
        server.add_prompt(
            lambda: f"dynamic prompt version {version}",
            name="test_dynamic_prompt",
            description=f"A prompt test_trigger_prompt_change replaces (version {version})",
        )

    add_dynamic_tool(0)
    add_dynamic_prompt(0)
    versions = itertools.count(1)
    lock = threading.Lock()

    def next_version() -> int:
        with lock:
            return next(versions)

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    def test_trigger_tool_change() -> str:
        """Replaces test_dynamic_tool and announces the tools list changed"""
        version = next_version()
        add_dynamic_tool(version)
        reached = server.notify_tools_list_changed()
        return f"tools list changed (version {version}, {reached} listeners)"

    @server.tool(structured_output=False, input_schema=NO_ARGS)
    def test_trigger_prompt_change() -> str:
        """Replaces test_dynamic_prompt and announces the prompts list changed"""
        version = next_version()
        add_dynamic_prompt(version)
        reached = server.notify_prompts_list_changed()
        return f"prompts list changed (version {version}, {reached} listeners)"

    # With a fleet the update reaches the uri's subscribers on every instance; the text counts the
    # listeners reached on this one.
    @server.tool(
        structured_output=False,
        input_schema={
            "type": "object",
            "properties": {"uri": {"type": "string", "description": "The resource that changed"}},
            "required": ["uri"],
        }
    )
    def test_trigger_resource_update(uri: str) -> str:
        """Announces that the resource uri was updated (to its subscribers on every instance)"""
        reached = server.notify_resource_updated(uri)
        return f"resource {uri} updated ({reached} listeners)"

    @server.tool(
        structured_output=False,
        input_schema={
            "type": "object",
            "properties": {"region": {"type": "string", "description": "A region name", "x-mcp-header": "Region"}},
            "required": ["region"],
        }
    )
    def test_x_mcp_header(region: str) -> str:
        """Echoes a region that HTTP clients mirror into the Mcp-Param-Region header"""
        return f"region: {region}"


def register_prompt(server: Server) -> None:
    @server.prompt()
    def test_input_required_result_prompt(ctx: Context) -> Union[str, InputRequired]:
        """Asks for context before it is built (MRTR)"""
        r = ctx.input_response_as("user_context", ElicitResult)
        if r is None:
            return InputRequired().ask(
                "user_context", InputRequest.elicit("What context should the prompt use?", form("context"))
            )
        return f"Context: {accepted(r, 'context')}"


def register(server: Server) -> None:
    """Register the 2026-07-28 fixtures."""
    register_mrtr_tools(server)
    register_other_tools(server)
    register_prompt(server)
    server.add_skill("skill://add-numbers", {"SKILL.md": SKILL_MD, "references/EXAMPLES.md": SKILL_EXAMPLES})
    server.enable_list_changed(tools=True, prompts=True, resources=True)


def register_cache_hints(server: Server) -> None:
    """A static resource may be cached by anyone for a minute (after it is registered)."""
    server.set_resource_cache_hint("test://static-text", 60_000, "public")


__all__: List[str] = ["register", "register_cache_hints", "SKILL_MD", "SKILL_EXAMPLES"]
