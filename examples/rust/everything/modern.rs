//! The everything server's 2026-07-28 fixtures (see `examples/SURFACE.md`): multi
//! round-trip tools and prompt, a tool needing a client capability, a logging tool, list
//! change triggers, a tool with an `x-mcp-header` argument, and a skill. The MRTR handlers
//! are written once: on a handshake-era session the core asks the client itself and calls
//! them again.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use ferrite_core::skills::Skill;
use ferrite_core::{
    CallToolResult, ClientCapabilities, CreateMessageParams, CreateMessageResult, ElicitAction, ElicitResult,
    ErrorObject, GetPromptResult, HandlerError, InputRequest, InputRequired, ListRootsResult, Prompt, PromptMessage,
    Reply, RequestContext, Server, Tool,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

type ToolReply = Result<Reply<CallToolResult>, HandlerError>;

/// The skill the conformance suite reads (SEP-2640).
pub const SKILL_MD: &str = "---\nname: add-numbers\ndescription: Add two integers with the add tool and report the sum\n---\n\n# Add numbers\n\nCall the add tool with integer arguments a and b, then report the sum.\nWorked examples are in references/EXAMPLES.md.\n";
/// A file the skill refers to, in a subdirectory.
pub const SKILL_EXAMPLES: &str = "# Examples\n\n- add(a=2, b=3) returns 5\n- add(a=-4, b=10) returns 6\n";

fn tool(name: &str, description: &str, schema: Value) -> Tool {
    Tool::new(name, schema).with_description(description)
}

fn no_args() -> Value {
    Tool::no_arguments_schema()
}

/// A one-field form.
fn form(field: &str) -> Value {
    json!({"type": "object", "properties": {field: {"type": "string"}}, "required": [field]})
}

fn ask_name() -> InputRequest {
    InputRequest::elicit("What is your name?", form("name"))
}

fn ask_capital() -> InputRequest {
    InputRequest::sample(CreateMessageParams::user_text("What is the capital of France?", 100))
}

fn bad_input(e: String) -> HandlerError {
    HandlerError::Rpc(ErrorObject::invalid_params(e))
}

fn done(text: impl Into<String>) -> ToolReply {
    Ok(Reply::Complete(CallToolResult::text(text)))
}

fn ask(ir: InputRequired) -> ToolReply {
    Ok(Reply::InputRequired(ir))
}

/// The `field` of an accepted elicitation, or why there is none.
fn accepted(r: &ElicitResult, field: &str) -> Result<String, String> {
    match r.action {
        ElicitAction::Accept => r
            .content
            .as_ref()
            .and_then(|c| c.get(field))
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
            .ok_or_else(|| format!("the form has no {field}")),
        other => Err(format!("the user chose {}", serde_json::to_string(&other).unwrap_or_default())),
    }
}

fn sampled(r: &CreateMessageResult) -> String {
    r.text().unwrap_or_default().to_owned()
}

fn roots(r: &ListRootsResult) -> String {
    r.roots.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>().join(", ")
}

/// The state `test_input_required_result_multi_round` carries between rounds.
#[derive(Serialize, Deserialize)]
struct Round {
    step: u8,
    name: Option<String>,
}

fn register_mrtr_tools(server: &Server) -> Result<(), Box<dyn std::error::Error>> {
    server.add_tool(
        tool("test_input_required_result_elicitation", "Asks for the user's name, then greets them (MRTR)", no_args()),
        |_a: Value, ctx: RequestContext| async move {
            match ctx.input_response_as::<ElicitResult>("user_name") {
                Some(Ok(r)) => done(match accepted(&r, "name") {
                    Ok(name) => format!("Hello, {name}!"),
                    Err(why) => format!("No name: {why}"),
                }),
                Some(Err(e)) => Err(bad_input(e)),
                None => ask(InputRequired::new().ask("user_name", ask_name())),
            }
        },
    )?;
    server.add_tool(
        tool("test_input_required_result_sampling", "Asks the client's LLM a question (MRTR)", no_args()),
        |_a: Value, ctx: RequestContext| async move {
            match ctx.input_response_as::<CreateMessageResult>("capital_question") {
                Some(Ok(r)) => done(format!("The model answered: {}", sampled(&r))),
                Some(Err(e)) => Err(bad_input(e)),
                None => ask(InputRequired::new().ask("capital_question", ask_capital())),
            }
        },
    )?;
    server.add_tool(
        tool("test_input_required_result_list_roots", "Asks for the client's roots (MRTR)", no_args()),
        |_a: Value, ctx: RequestContext| async move {
            match ctx.input_response_as::<ListRootsResult>("client_roots") {
                Some(Ok(r)) => done(format!("Roots: {}", roots(&r))),
                Some(Err(e)) => Err(bad_input(e)),
                None => ask(InputRequired::new().ask("client_roots", InputRequest::list_roots())),
            }
        },
    )?;
    server.add_tool(
        tool("test_input_required_result_request_state", "Asks for a confirmation and carries state (MRTR)", no_args()),
        |_a: Value, ctx: RequestContext| async move {
            const STATE: &str = "awaiting-confirmation";
            match (ctx.request_state(), ctx.input_response_as::<ElicitResult>("confirm")) {
                (Some(STATE), Some(Ok(r))) => {
                    done(format!("state-ok: confirmed={}", accepted(&r, "ok").unwrap_or_else(|why| why)))
                }
                (Some(other), _) if other != STATE => Err(bad_input(format!("unexpected request state {other:?}"))),
                (_, Some(Err(e))) => Err(bad_input(e)),
                _ => ask(InputRequired::new()
                    .ask(
                        "confirm",
                        InputRequest::elicit(
                            "Please confirm",
                            json!({"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}),
                        ),
                    )
                    .with_state(STATE)),
            }
        },
    )?;
    server.add_tool(
        tool(
            "test_input_required_result_multiple_inputs",
            "Asks for a name, a greeting and the roots at once (MRTR)",
            no_args(),
        ),
        |_a: Value, ctx: RequestContext| async move {
            let name = ctx.input_response_as::<ElicitResult>("user_name");
            let greeting = ctx.input_response_as::<CreateMessageResult>("greeting");
            let client_roots = ctx.input_response_as::<ListRootsResult>("client_roots");
            match (name, greeting, client_roots) {
                (Some(Ok(n)), Some(Ok(g)), Some(Ok(r))) => done(format!(
                    "name={}; greeting={}; roots={}",
                    accepted(&n, "name").unwrap_or_else(|why| why),
                    sampled(&g),
                    roots(&r)
                )),
                (Some(Err(e)), _, _) | (_, Some(Err(e)), _) | (_, _, Some(Err(e))) => Err(bad_input(e)),
                _ => ask(InputRequired::new()
                    .ask("user_name", ask_name())
                    .ask("greeting", InputRequest::sample(CreateMessageParams::user_text("Generate a greeting", 50)))
                    .ask("client_roots", InputRequest::list_roots())
                    .with_state("multiple-inputs")),
            }
        },
    )?;
    server.add_tool(
        tool("test_input_required_result_multi_round", "Asks two questions in two rounds (MRTR)", no_args()),
        |_a: Value, ctx: RequestContext| async move {
            let step1 = || InputRequest::elicit("Step 1: What is your name?", form("name"));
            let step2 = || InputRequest::elicit("Step 2: What is your favorite color?", form("color"));
            let state = |r: &Round| serde_json::to_string(r).map_err(|e| HandlerError::failed(e.to_string()));
            let round = match ctx.request_state_as::<Round>() {
                None => Round { step: 1, name: None },
                Some(Ok(r)) => r,
                Some(Err(e)) => return Err(bad_input(e)),
            };
            match round.step {
                1 => match ctx.input_response_as::<ElicitResult>("step1") {
                    Some(Ok(r)) => {
                        let next = Round { step: 2, name: Some(accepted(&r, "name").unwrap_or_else(|why| why)) };
                        ask(InputRequired::new().ask("step2", step2()).with_state(state(&next)?))
                    }
                    Some(Err(e)) => Err(bad_input(e)),
                    None => ask(InputRequired::new().ask("step1", step1()).with_state(state(&round)?)),
                },
                _ => match ctx.input_response_as::<ElicitResult>("step2") {
                    Some(Ok(r)) => done(format!(
                        "{} likes {}",
                        round.name.unwrap_or_default(),
                        accepted(&r, "color").unwrap_or_else(|why| why)
                    )),
                    Some(Err(e)) => Err(bad_input(e)),
                    None => ask(InputRequired::new().ask("step2", step2()).with_state(state(&round)?)),
                },
            }
        },
    )?;
    server.add_tool(
        tool(
            "test_input_required_result_tampered_state",
            "Carries sealed state; an altered one is refused (MRTR)",
            no_args(),
        ),
        |_a: Value, ctx: RequestContext| async move {
            match (ctx.request_state(), ctx.input_response_as::<ElicitResult>("confirm")) {
                (Some("tamper-check"), Some(Ok(_))) => done("state verified"),
                (_, Some(Err(e))) => Err(bad_input(e)),
                _ => ask(InputRequired::new()
                    .ask(
                        "confirm",
                        InputRequest::elicit(
                            "Please confirm",
                            json!({"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}),
                        ),
                    )
                    .with_state("tamper-check")),
            }
        },
    )?;
    server.add_tool(
        tool(
            "test_input_required_result_capabilities",
            "Asks only with what the client declared: elicitation, sampling, roots (MRTR)",
            no_args(),
        ),
        |_a: Value, ctx: RequestContext| async move {
            if ctx.is_resubmission() {
                let keys: Vec<&String> = ctx.input_responses().keys().collect();
                return done(format!("answered: {keys:?}"));
            }
            let mut ir = InputRequired::new();
            if ctx.client_supports("elicitation") {
                ir = ir.ask("user_name", ask_name());
            }
            if ctx.client_supports("sampling") {
                ir = ir.ask("capital_question", ask_capital());
            }
            if ctx.client_supports("roots") {
                ir = ir.ask("client_roots", InputRequest::list_roots());
            }
            if ir.is_empty() {
                return done("the client declared no capability to ask with");
            }
            ask(ir)
        },
    )?;
    server.add_tool(
        tool("test_streaming_elicitation", "Needs elicitation; asks the MRTR way, never with a request", no_args()),
        |_a: Value, ctx: RequestContext| async move {
            match ctx.input_response_as::<ElicitResult>("user_name") {
                Some(Ok(r)) => done(format!("Hello, {}!", accepted(&r, "name").unwrap_or_else(|why| why))),
                Some(Err(e)) => Err(bad_input(e)),
                None => ask(InputRequired::new().ask("user_name", ask_name())),
            }
        },
    )?;
    let elicitation: ClientCapabilities = serde_json::from_value(json!({"elicitation": {}}))?;
    server.set_tool_required_client_capabilities("test_streaming_elicitation", elicitation)?;
    Ok(())
}

fn dynamic_tool(version: u64) -> Tool {
    tool("test_dynamic_tool", &format!("A tool test_trigger_tool_change replaces (version {version})"), no_args())
}

fn dynamic_prompt(version: u64) -> Prompt {
    Prompt::new("test_dynamic_prompt")
        .with_description(format!("A prompt test_trigger_prompt_change replaces (version {version})"))
}

fn add_dynamic_tool(server: &Server, version: u64) -> Result<(), ferrite_core::ConfigError> {
    server.add_tool_fn(dynamic_tool(version), move |_| {
        Ok(CallToolResult::text(format!("dynamic tool version {version}")))
    })
}

fn add_dynamic_prompt(server: &Server, version: u64) {
    server.add_prompt(dynamic_prompt(version), move |_a: Map<String, Value>, _ctx: RequestContext| async move {
        Ok(GetPromptResult {
            messages: vec![PromptMessage::user_text(format!("dynamic prompt version {version}"))],
            ..Default::default()
        })
    });
}

fn register_other_tools(server: &Server) -> Result<(), Box<dyn std::error::Error>> {
    server.add_tool_fn(tool("test_missing_capability", "Needs the client's sampling capability", no_args()), |_| {
        Ok(CallToolResult::text("the client declared sampling"))
    })?;
    let sampling: ClientCapabilities = serde_json::from_value(json!({"sampling": {}}))?;
    server.set_tool_required_client_capabilities("test_missing_capability", sampling)?;
    server.add_tool(
        tool("test_logging_tool", "Logs two messages (sent only when the request asked for a log level)", no_args()),
        |_a: Value, ctx: RequestContext| async move {
            ctx.info("Logging tool started");
            ctx.info("Logging tool finished");
            Ok(CallToolResult::text("Logging tool executed"))
        },
    )?;
    add_dynamic_tool(server, 0)?;
    add_dynamic_prompt(server, 0);
    let versions = Arc::new(AtomicU64::new(0));
    // The triggers change their own server: they hold it weakly, or it could never be dropped.
    let (s, v) = (server.downgrade(), versions.clone());
    server.add_tool_fn(
        tool("test_trigger_tool_change", "Replaces test_dynamic_tool and announces the tools list changed", no_args()),
        move |_| {
            let s = s.upgrade().ok_or_else(|| HandlerError::failed("the server is shutting down"))?;
            let version = v.fetch_add(1, Ordering::SeqCst) + 1;
            add_dynamic_tool(&s, version).map_err(|e| HandlerError::failed(e.to_string()))?;
            let reached = s.notify_tools_list_changed();
            Ok(CallToolResult::text(format!("tools list changed (version {version}, {reached} listeners)")))
        },
    )?;
    let (s, v) = (server.downgrade(), versions);
    server.add_tool_fn(
        tool(
            "test_trigger_prompt_change",
            "Replaces test_dynamic_prompt and announces the prompts list changed",
            no_args(),
        ),
        move |_| {
            let s = s.upgrade().ok_or_else(|| HandlerError::failed("the server is shutting down"))?;
            let version = v.fetch_add(1, Ordering::SeqCst) + 1;
            add_dynamic_prompt(&s, version);
            let reached = s.notify_prompts_list_changed();
            Ok(CallToolResult::text(format!("prompts list changed (version {version}, {reached} listeners)")))
        },
    )?;
    // Publishes a resource update: with a fleet (--redis) it reaches subscribers on every
    // instance; the text counts the listeners reached on this one.
    let s = server.downgrade();
    server.add_tool_fn(
        tool(
            "test_trigger_resource_update",
            "Announces that the resource uri was updated (to its subscribers on every instance)",
            json!({"type":"object","properties":{"uri":{"type":"string","description":"The resource that changed"}},"required":["uri"]}),
        ),
        move |args| {
            let s = s.upgrade().ok_or_else(|| HandlerError::failed("the server is shutting down"))?;
            let uri = args.get("uri").and_then(Value::as_str).unwrap_or_default();
            let reached = s.notify_resource_updated(uri);
            Ok(CallToolResult::text(format!("resource {uri} updated ({reached} listeners)")))
        },
    )?;
    server.add_tool(
        tool(
            "test_x_mcp_header",
            "Echoes a region that HTTP clients mirror into the Mcp-Param-Region header",
            json!({"type":"object","properties":{"region":{"type":"string","description":"A region name","x-mcp-header":"Region"}},"required":["region"]}),
        ),
        |args: Value, _ctx: RequestContext| async move {
            Ok(CallToolResult::text(format!("region: {}", args["region"].as_str().unwrap_or_default())))
        },
    )?;
    Ok(())
}

fn register_prompt(server: &Server) {
    server.add_prompt(
        Prompt::new("test_input_required_result_prompt").with_description("Asks for context before it is built (MRTR)"),
        |_a: Map<String, Value>, ctx: RequestContext| async move {
            match ctx.input_response_as::<ElicitResult>("user_context") {
                Some(Ok(r)) => Ok(Reply::Complete(GetPromptResult {
                    messages: vec![PromptMessage::user_text(format!(
                        "Context: {}",
                        accepted(&r, "context").unwrap_or_else(|why| why)
                    ))],
                    ..Default::default()
                })),
                Some(Err(e)) => Err(bad_input(e)),
                None => Ok(Reply::InputRequired(InputRequired::new().ask(
                    "user_context",
                    InputRequest::elicit("What context should the prompt use?", form("context")),
                ))),
            }
        },
    );
}

/// Register the 2026-07-28 fixtures.
pub fn register(server: &Server) -> Result<(), Box<dyn std::error::Error>> {
    register_mrtr_tools(server)?;
    register_other_tools(server)?;
    register_prompt(server);
    server.add_skill(Skill::new(
        "skill://add-numbers",
        [
            ("SKILL.md".to_owned(), SKILL_MD.as_bytes().to_vec()),
            ("references/EXAMPLES.md".to_owned(), SKILL_EXAMPLES.as_bytes().to_vec()),
        ],
    )?)?;
    server.enable_tools_list_changed();
    server.enable_prompts_list_changed();
    server.enable_resources_list_changed();
    Ok(())
}
