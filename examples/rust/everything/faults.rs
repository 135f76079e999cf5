//! The fault tools (`examples/SURFACE.md`, "Fault tools"; `tests/faults`): handlers that fail
//! the ways a Rust handler can, so a test can show the server keeps serving, answers each
//! failure the same way every time, and leaks nothing.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ferrite_core::{CallToolResult, Content, HandlerError, RequestContext, Server, Tool};
use serde_json::{json, Value};

pub const CRASH_DESCRIPTION: &str = "Fails the worst way the language allows inside the handler";
pub const REJECT_DESCRIPTION: &str = "Fails asynchronously, after the handler has returned";
pub const BAD_RESULT_DESCRIPTION: &str = "Returns a result that is not a valid tool result";
pub const HANG_DESCRIPTION: &str = "Never returns unless the request is cancelled";

/// The panic message of `test_fault_crash` (every surface fails with this text where its
/// language lets the handler choose one).
pub const CRASH_MESSAGE: &str = "test_fault_crash: the handler crashed";
/// The error of `test_fault_reject`.
pub const REJECT_MESSAGE: &str = "test_fault_reject: the handler failed after it returned";

/// Registers the four fault tools; `cancelled` is `test_cancellation_count`'s counter, which
/// `test_fault_hang` adds to when it observes its cancellation.
pub fn register(server: &Server, cancelled: Arc<AtomicU64>) -> Result<(), Box<dyn std::error::Error>> {
    let no_args = Tool::no_arguments_schema;
    server.add_tool(
        Tool::new("test_fault_crash", no_args()).with_description(CRASH_DESCRIPTION),
        |_args: Value, _ctx: RequestContext| async move {
            if std::hint::black_box(true) {
                panic!("{CRASH_MESSAGE}");
            }
            Ok(CallToolResult::text("unreachable"))
        },
    )?;
    server.add_tool(
        Tool::new("test_fault_reject", no_args()).with_description(REJECT_DESCRIPTION),
        |_args: Value, _ctx: RequestContext| async move {
            tokio::task::yield_now().await;
            Err::<CallToolResult, _>(HandlerError::failed(REJECT_MESSAGE))
        },
    )?;
    server.add_tool(
        Tool::new("test_fault_bad_result", no_args()).with_description(BAD_RESULT_DESCRIPTION),
        // The closest a typed result comes to an invalid one: structuredContent must be a
        // JSON object, and this one is a string.
        |_args: Value, _ctx: RequestContext| async move {
            Ok(CallToolResult {
                content: vec![Content::text("not a valid tool result")],
                structured_content: Some(json!("not an object")),
                ..Default::default()
            })
        },
    )?;
    server.add_tool(
        Tool::new("test_fault_hang", no_args()).with_description(HANG_DESCRIPTION),
        move |_args: Value, ctx: RequestContext| {
            let cancelled = cancelled.clone();
            async move {
                while !ctx.is_cancelled() {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                cancelled.fetch_add(1, Ordering::SeqCst);
                Ok(CallToolResult::text("cancelled"))
            }
        },
    )?;
    Ok(())
}
