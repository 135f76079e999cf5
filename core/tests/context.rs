//! The per-request context: ids, version, connection identity, client capabilities.

mod common;

use common::{stateful, Harness};
use ferrite_core::{CallToolResult, RequestContext, Tool};
use serde_json::{json, Value};

fn harness() -> Harness {
    let s = stateful("ctx");
    s.add_tool(
        Tool::new("who", json!({"type":"object"})).with_description("d"),
        |_a: Value, ctx: RequestContext| async move {
            Ok(CallToolResult::structured(json!({
                "id": ctx.request_id().to_string(),
                "version": ctx.protocol_version().as_str(),
                "connection": ctx.connection_id(),
                "sampling": ctx.client_supports("sampling"),
                "elicitUrl": ctx.client_supports("elicitation.url"),
                "token": ctx.progress_token(),
                "cancelled": ctx.is_cancelled(),
            })))
        },
    )
    .unwrap();
    Harness::new(s)
}

#[tokio::test]
async fn context_reports_the_request() {
    let h = harness();
    h.initialize("2025-11-25", json!({"sampling": {}, "elicitation": {"form": {}}})).await;
    let v = h.call("tools/call", json!({"name":"who","_meta":{"progressToken":"p1"}})).await;
    let sc = &v["result"]["structuredContent"];
    assert_eq!(sc["id"], v["id"].to_string());
    assert_eq!(sc["version"], "2025-11-25");
    assert_eq!(sc["connection"], h.conn.id());
    assert_eq!(sc["sampling"], true);
    assert_eq!(sc["elicitUrl"], false);
    assert_eq!(sc["token"], "p1");
    assert_eq!(sc["cancelled"], false);
}

#[tokio::test]
async fn connections_have_distinct_stable_ids() {
    let s = stateful("ids");
    let a = s.new_connection();
    let b = s.new_connection();
    assert_ne!(a.id(), b.id());
    assert!(!a.id().is_empty());
    let h = harness();
    let first = h.ok("tools/call", json!({"name":"who"})).await["structuredContent"]["connection"].clone();
    let second = h.ok("tools/call", json!({"name":"who"})).await["structuredContent"]["connection"].clone();
    assert_eq!(first, second);
}

#[tokio::test]
async fn in_process_handle_raw_uses_one_connection() {
    let s = stateful("raw");
    s.add_tool_fn(Tool::new("t", json!({"type":"object"})).with_description("d"), |_| Ok(CallToolResult::text("x")))
        .unwrap();
    let init = s
        .handle_raw(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}}"#)
        .await;
    assert!(init.contains("2025-03-26"));
    assert_eq!(s.in_process_connection().negotiated_version().unwrap().as_str(), "2025-03-26");
    let out = s.handle_raw(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}"#).await;
    assert_eq!(out, r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"x"}]}}"#);
}
