//! Stateless mode: no subscriptions, no setLevel, no server-to-client requests.

mod common;

use common::Harness;
use ferrite_core::{CallToolResult, Implementation, RequestContext, Server, ServerMode, Tool};
use serde_json::{json, Value};

fn server() -> Server {
    let s = Server::builder(Implementation::new("sl", "1")).stateless().build();
    assert_eq!(s.mode(), ServerMode::Stateless, "stateless is the default");
    s.enable_logging();
    s.add_tool(
        Tool::new("ask", json!({"type":"object"})).with_description("asks"),
        |_a: Value, ctx: RequestContext| async move {
            assert!(ctx.is_stateless());
            match ctx.send_request("roots/list", None).await {
                Ok(_) => Ok(CallToolResult::text("unexpected")),
                Err(e) => Err(e.into()),
            }
        },
    )
    .unwrap();
    s
}

#[tokio::test]
async fn initialize_is_answered_without_what_needs_a_session() {
    let h = Harness::new(server());
    let r = h.initialize("2025-06-18", json!({})).await;
    assert_eq!(r["protocolVersion"], "2025-06-18");
    // Logging is enabled, but a handshake-era client of a stateless server has no session to
    // hold its level: the capability is not advertised, and setLevel is refused (below).
    assert!(r["capabilities"].get("logging").is_none(), "{r}");
    assert_eq!(r["capabilities"]["tools"], json!({}));
}

#[tokio::test]
async fn set_level_is_method_not_found() {
    let h = Harness::new(server());
    assert_eq!(h.err_code("logging/setLevel", json!({"level":"debug"})).await, -32601);
}

#[tokio::test]
async fn server_to_client_requests_fail_clearly() {
    let h = Harness::new(server());
    let r = h.ok("tools/call", json!({"name":"ask"})).await;
    assert_eq!(r["isError"], true);
    assert!(r["content"][0]["text"].as_str().unwrap().contains("stateful"), "{r}");
    assert!(h.recorder.requests.lock().unwrap().is_empty(), "nothing was sent to the client");
}
