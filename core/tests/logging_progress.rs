//! ctx.log with per-connection levels, logging/setLevel, and ctx.report_progress.

mod common;

use common::{stateful, Harness};
use ferrite_core::{CallToolResult, LoggingLevel, RequestContext, Server, Tool};
use serde_json::{json, Value};

fn server(logging: bool) -> Server {
    let s = stateful("log");
    if !logging {
        s.disable_logging();
    }
    s.add_tool(
        Tool::new("talk", json!({"type":"object"})).with_description("logs"),
        |_a: Value, ctx: RequestContext| async move {
            let sent = [
                ctx.log(LoggingLevel::Debug, json!("d"), None),
                ctx.info("i"),
                ctx.log(LoggingLevel::Error, json!({"k": 1}), Some("db")),
            ];
            Ok(CallToolResult::text(format!("{sent:?}")))
        },
    )
    .unwrap();
    s.add_tool(
        Tool::new("progress", json!({"type":"object"})).with_description("p"),
        |_a: Value, ctx: RequestContext| async move {
            let a = ctx.report_progress(0.5, Some(1.0), Some("half"));
            let b = ctx.report_progress_steps(2, 4);
            Ok(CallToolResult::text(format!("{a} {b}")))
        },
    )
    .unwrap();
    s
}

#[tokio::test]
async fn default_level_is_info() {
    let h = Harness::new(server(true));
    h.initialize("2025-06-18", json!({})).await;
    let r = h.ok("tools/call", json!({"name":"talk"})).await;
    assert_eq!(r["content"][0]["text"], "[false, true, true]");
    assert_eq!(
        h.recorder.frames(),
        vec![
            json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"i"}}),
            json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":{"k":1},"logger":"db"}}),
        ]
    );
}

#[tokio::test]
async fn set_level_applies_rfc5424_order_per_connection() {
    let s = server(true);
    let a = Harness::new(s.clone());
    let b = Harness::new(s);
    a.initialize("2025-06-18", json!({})).await;
    b.initialize("2025-06-18", json!({})).await;
    assert_eq!(a.ok("logging/setLevel", json!({"level":"error"})).await, json!({}));
    assert_eq!(b.ok("logging/setLevel", json!({"level":"debug"})).await, json!({}));
    a.ok("tools/call", json!({"name":"talk"})).await;
    b.ok("tools/call", json!({"name":"talk"})).await;
    assert_eq!(a.recorder.frames().len(), 1, "only error and above");
    assert_eq!(b.recorder.frames().len(), 3, "everything");
}

#[tokio::test]
async fn set_level_rejects_unknown_levels() {
    let h = Harness::new(server(true));
    assert_eq!(h.err_code("logging/setLevel", json!({"level":"loud"})).await, -32602);
    assert_eq!(h.err_code("logging/setLevel", json!({})).await, -32602);
}

#[tokio::test]
async fn without_the_logging_capability_nothing_is_logged() {
    let h = Harness::new(server(false));
    assert_eq!(h.err_code("logging/setLevel", json!({"level":"debug"})).await, -32601);
    let r = h.ok("tools/call", json!({"name":"talk"})).await;
    assert_eq!(r["content"][0]["text"], "[false, false, false]");
    assert!(h.recorder.frames().is_empty());
}

#[tokio::test]
async fn progress_is_a_no_op_without_a_token() {
    let h = Harness::new(server(true));
    let r = h.ok("tools/call", json!({"name":"progress"})).await;
    assert_eq!(r["content"][0]["text"], "false false");
    assert!(h.recorder.frames().is_empty());
}

#[tokio::test]
async fn progress_carries_the_token_and_message_from_2025_03_26() {
    let h = Harness::new(server(true));
    h.initialize("2025-03-26", json!({})).await;
    let r = h.ok("tools/call", json!({"name":"progress","_meta":{"progressToken":"tok"}})).await;
    assert_eq!(r["content"][0]["text"], "true true");
    assert_eq!(
        h.recorder.frames(),
        vec![
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":0.5,"total":1.0,"message":"half"}}),
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":2,"total":4}}),
        ]
    );
}

#[tokio::test]
async fn progress_message_is_omitted_on_2024_11_05() {
    let h = Harness::new(server(true));
    h.initialize("2024-11-05", json!({})).await;
    h.ok("tools/call", json!({"name":"progress","_meta":{"progressToken":7}})).await;
    let first = &h.recorder.frames()[0];
    assert_eq!(first["params"], json!({"progressToken":7,"progress":0.5,"total":1.0}));
}
