//! The everything server's task fixtures (the conformance suite's `tasks-*` scenarios, and
//! 2025-11-25 tasks): ordinary handlers whose tools declare a task support; the core decides
//! per call whether they run inline or as tasks.
//!
//! | tool | task support | does |
//! |---|---|---|
//! | `greet` | forbidden | answers "Hello, {name}!" at once |
//! | `slow_compute` | optional | sleeps `seconds`, then answers; ends early when cancelled |
//! | `failing_job` | required | a tool error (`isError`) after a second |
//! | `protocol_error_job` | required | a JSON-RPC error (-32603) after 300 ms |
//! | `confirm_delete` | required | asks to confirm (`elicit`, in the task), then answers |
//! | `multi_input` | required | asks two questions at once (in the task), then answers |
//! | `test_tool_with_task` | required | asks for a name before the task exists (MRTR), then greets |

use std::time::Duration;

use ferrite_core::{
    CallToolResult, ElicitAction, ElicitResult, ErrorObject, HandlerError, InputRequest, InputRequired, Reply,
    RequestContext, Server, TaskSupport, Tool,
};
use serde_json::{json, Value};

type ToolReply = Result<Reply<CallToolResult>, HandlerError>;

fn tool(name: &str, description: &str, schema: Value, support: TaskSupport) -> Tool {
    Tool::new(name, schema).with_description(description).with_task_support(support)
}

fn no_args() -> Value {
    Tool::no_arguments_schema()
}

fn done(text: impl Into<String>) -> ToolReply {
    Ok(Reply::Complete(CallToolResult::text(text)))
}

/// Sleep, unless the call (or its task) is cancelled first: whether it slept through.
async fn pause(ctx: &RequestContext, d: Duration) -> bool {
    tokio::select! {
        () = tokio::time::sleep(d) => true,
        () = ctx.cancelled() => false,
    }
}

fn cancelled() -> ToolReply {
    Err(HandlerError::Failed("cancelled".into()))
}

fn confirm_form() -> Value {
    json!({"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]})
}

pub fn register(server: &Server) -> Result<(), Box<dyn std::error::Error>> {
    server.add_tool(
        tool(
            "greet",
            "Greets someone at once (never a task)",
            json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
            TaskSupport::Forbidden,
        ),
        |a: Value, _ctx: RequestContext| async move {
            done(format!("Hello, {}!", a.get("name").and_then(Value::as_str).unwrap_or("world")))
        },
    )?;
    server.add_tool(
        tool(
            "slow_compute",
            "Works for `seconds` seconds, then answers (a task when the client can take one)",
            json!({"type": "object", "properties": {"seconds": {"type": "number", "minimum": 0}, "label": {"type": "string"}}}),
            TaskSupport::Optional,
        ),
        |a: Value, ctx: RequestContext| async move {
            let seconds = a.get("seconds").and_then(Value::as_f64).unwrap_or(1.0).clamp(0.0, 3600.0);
            let label = a.get("label").and_then(Value::as_str).unwrap_or("slow_compute").to_owned();
            if !pause(&ctx, Duration::from_secs_f64(seconds)).await {
                return cancelled();
            }
            done(format!("{label}: computed for {seconds} s"))
        },
    )?;
    server.add_tool(
        tool(
            "failing_job",
            "Fails as a tool (isError) after a second; only as a task",
            no_args(),
            TaskSupport::Required,
        ),
        |_a: Value, ctx: RequestContext| async move {
            if !pause(&ctx, Duration::from_secs(1)).await {
                return cancelled();
            }
            Ok(Reply::Complete(CallToolResult::error("failing_job failed, as it always does")))
        },
    )?;
    server.add_tool(
        tool(
            "protocol_error_job",
            "Fails with a JSON-RPC error after 300 ms; only as a task",
            no_args(),
            TaskSupport::Required,
        ),
        |_a: Value, ctx: RequestContext| async move {
            if !pause(&ctx, Duration::from_millis(300)).await {
                return cancelled();
            }
            Err(HandlerError::Rpc(ErrorObject::internal("protocol_error_job failed with a protocol error")))
        },
    )?;
    server.add_tool(
        tool(
            "confirm_delete",
            "Asks the user to confirm deleting a file; only as a task",
            json!({"type": "object", "properties": {"filename": {"type": "string"}}, "required": ["filename"]}),
            TaskSupport::Required,
        ),
        |a: Value, ctx: RequestContext| async move {
            // Asked in the task (not as an MRTR reply): the call becomes a task at once and
            // waits in input_required until the client answers.
            let file = a.get("filename").and_then(Value::as_str).unwrap_or("the file").to_owned();
            match ctx.elicit(&format!("Delete {file}?"), confirm_form()).await {
                Ok(r) if r.action == ElicitAction::Accept => done(format!("Deleted {file}")),
                Ok(_) => done(format!("Kept {file}")),
                Err(e) => Err(HandlerError::Failed(format!("no confirmation: {e}"))),
            }
        },
    )?;
    server.add_tool(
        tool("multi_input", "Asks two questions at once; only as a task", no_args(), TaskSupport::Required),
        |_a: Value, ctx: RequestContext| async move {
            let form =
                json!({"type": "object", "properties": {"name": {"type": "string"}, "confirm": {"type": "boolean"}}});
            let (a, b) = tokio::join!(ctx.elicit("First question", form.clone()), ctx.elicit("Second question", form));
            match (a, b) {
                (Ok(a), Ok(b)) => done(format!(
                    "first accepted: {}, second accepted: {}",
                    a.action == ElicitAction::Accept,
                    b.action == ElicitAction::Accept
                )),
                (Err(e), _) | (_, Err(e)) => Err(HandlerError::Failed(format!("no answer: {e}"))),
            }
        },
    )?;
    server.add_tool(
        tool(
            "test_tool_with_task",
            "Asks for a name (before the task exists), then greets as a task",
            no_args(),
            TaskSupport::Required,
        ),
        |_a: Value, ctx: RequestContext| async move {
            match ctx.input_response_as::<ElicitResult>("user_name") {
                None => Ok(Reply::InputRequired(InputRequired::new().ask(
                    "user_name",
                    InputRequest::elicit(
                        "What is your name?",
                        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
                    ),
                ))),
                Some(Err(e)) => Err(HandlerError::Rpc(ErrorObject::invalid_params(e))),
                Some(Ok(r)) => {
                    let name =
                        r.content.as_ref().and_then(|c| c.get("name")).and_then(Value::as_str).unwrap_or("stranger");
                    let name = name.to_owned();
                    if !pause(&ctx, Duration::from_millis(200)).await {
                        return cancelled();
                    }
                    done(format!("Hello, {name}!"))
                }
            }
        },
    )?;
    Ok(())
}
