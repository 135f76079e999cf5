//! initialize, version negotiation, the initialized gate.

mod common;

use common::{stateful, Harness};
use serde_json::{json, Value};

#[tokio::test]
async fn initialize_echoes_each_supported_handshake_revision() {
    for v in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let h = Harness::new(stateful("s"));
        let r = h.initialize(v, json!({})).await;
        assert_eq!(r["protocolVersion"], v);
        assert_eq!(h.conn.negotiated_version().unwrap().as_str(), v);
    }
}

#[tokio::test]
async fn initialize_counter_offers_the_latest_for_unknown_versions() {
    for v in ["2099-01-01", "1.0", "2026-07-28", ""] {
        let h = Harness::new(stateful("s"));
        let r = h.initialize(v, json!({})).await;
        assert_eq!(r["protocolVersion"], "2025-11-25", "requested {v:?}");
    }
}

#[tokio::test]
async fn initialize_records_client_capabilities_and_info() {
    let h = Harness::new(stateful("s"));
    h.initialize("2025-06-18", json!({"sampling": {}, "roots": {"listChanged": true}})).await;
    assert!(h.conn.client_supports("sampling"));
    assert!(h.conn.client_supports("roots.listChanged"));
    assert!(!h.conn.client_supports("elicitation"));
    assert_eq!(h.conn.client_info().unwrap().name, "test");
}

#[tokio::test]
async fn a_second_initialize_is_refused() {
    let h = Harness::new(stateful("s"));
    h.initialize("2025-06-18", json!({})).await;
    let r = h.call("initialize", json!({"protocolVersion": "2024-11-05", "capabilities": {}})).await;
    assert_eq!(r["error"]["code"], -32600);
    assert_eq!(h.conn.negotiated_version().unwrap().as_str(), "2025-06-18", "not renegotiated");
}

#[tokio::test]
async fn initialize_without_protocol_version_is_invalid_params() {
    let h = Harness::new(stateful("s"));
    assert_eq!(h.err_code("initialize", json!({"capabilities": {}})).await, -32602);
    assert_eq!(h.err_code("initialize", json!({"protocolVersion": 20250618})).await, -32602);
    assert_eq!(h.err_code("initialize", json!({"protocolVersion": "2025-06-18", "capabilities": 3})).await, -32602);
    assert!(!h.conn.initialize_processed(), "a failed initialize does not count");
}

#[tokio::test]
async fn require_initialized_gates_requests_until_initialized() {
    let s = stateful("s");
    s.require_initialized();
    s.add_prompt(ferrite_core::Prompt::new("p").with_description("d"), |_a, _c| async {
        Ok(ferrite_core::GetPromptResult::default())
    });
    let h = Harness::new(s);
    h.ok("initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}})).await;
    assert_eq!(h.err_code("prompts/list", Value::Null).await, -32002);
    assert_eq!(h.ok("ping", Value::Null).await, json!({}), "ping is always allowed");
    h.notify("notifications/initialized", Value::Null).await;
    assert!(h.conn.is_initialized());
    h.ok("prompts/list", Value::Null).await;
}

#[tokio::test]
async fn without_the_gate_requests_before_initialized_are_served() {
    let s = stateful("s");
    s.add_prompt(ferrite_core::Prompt::new("p").with_description("d"), |_a, _c| async {
        Ok(ferrite_core::GetPromptResult::default())
    });
    let h = Harness::new(s);
    h.ok("prompts/list", Value::Null).await;
}

#[tokio::test]
async fn ping_answers_an_empty_object() {
    let h = Harness::new(stateful("s"));
    assert_eq!(h.ok("ping", Value::Null).await, json!({}));
}

#[tokio::test]
async fn the_defaults_are_stateful_with_logging_and_input_validation() {
    let s = ferrite_core::Server::new("s", "1");
    assert_eq!(s.mode(), ferrite_core::ServerMode::Stateful);
    s.add_tool_fn(ferrite_core::Tool::new("t", json!({"type":"object","properties":{"n":{"type":"integer"}}})), |_| {
        Ok(ferrite_core::CallToolResult::text("ran"))
    })
    .unwrap();
    let h = Harness::new(s);
    let r = h.initialize("2025-11-25", json!({})).await;
    assert_eq!(r["capabilities"], json!({"logging": {}, "tools": {}}));
    assert_eq!(h.ok("logging/setLevel", json!({"level": "debug"})).await, json!({}));
    let v = h.ok("tools/call", json!({"name": "t", "arguments": {"n": "x"}})).await;
    assert_eq!(v["isError"], true, "arguments are checked against the input schema: {v}");
}

#[tokio::test]
async fn capabilities_follow_registrations() {
    let s = stateful("s");
    s.disable_logging();
    let h = Harness::new(s);
    let r = h.initialize("2025-11-25", json!({})).await;
    assert_eq!(r["capabilities"], json!({}), "nothing registered, nothing declared");
    assert_eq!(h.err_code("tools/list", Value::Null).await, -32601);
    assert_eq!(h.err_code("prompts/list", Value::Null).await, -32601);
    assert_eq!(h.err_code("resources/list", Value::Null).await, -32601);
    assert_eq!(h.err_code("logging/setLevel", json!({"level":"info"})).await, -32601);
    assert_eq!(
        h.err_code(
            "completion/complete",
            json!({"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"a","value":""}})
        )
        .await,
        -32601
    );
}
