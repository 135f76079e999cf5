//! Malformed input gets the JSON-RPC error the spec names, and the server keeps serving.

mod common;

use common::{stateful, Harness};
use ferrite_core::{CallToolResult, Tool};
use serde_json::{json, Value};

fn server() -> Harness {
    let s = stateful("errors");
    s.add_tool_fn(Tool::new("t", json!({"type":"object"})).with_description("t"), |_| Ok(CallToolResult::text("ok")))
        .unwrap();
    Harness::new(s)
}

async fn still_serving(h: &Harness) {
    assert_eq!(h.ok("ping", Value::Null).await, json!({}));
}

#[tokio::test]
async fn invalid_json_is_parse_error_with_null_id() {
    let h = server();
    for text in ["{", "not json", r#"{"jsonrpc":"2.0","id":1,"method":"ping""#, "[1,"] {
        let r = h.raw(text).await;
        assert_eq!(r["error"]["code"], -32700, "{text}");
        assert_eq!(r["id"], Value::Null, "{text}");
        still_serving(&h).await;
    }
}

#[tokio::test]
async fn malformed_envelopes_are_invalid_request() {
    let h = server();
    let cases = [
        (r#"{"id":1,"method":"ping"}"#, json!(1)),
        (r#"{"jsonrpc":"1.0","id":2,"method":"ping"}"#, json!(2)),
        (r#"{"jsonrpc":"2.0","id":3,"method":5}"#, json!(3)),
        (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, Value::Null),
        (r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#, Value::Null),
        (r#"{"jsonrpc":"2.0","id":4,"method":"ping","params":"x"}"#, json!(4)),
        (r#""just a string""#, Value::Null),
        (r#"{"jsonrpc":"2.0"}"#, Value::Null),
    ];
    for (text, id) in cases {
        let r = h.raw(text).await;
        assert_eq!(r["error"]["code"], -32600, "{text}: {r}");
        assert_eq!(r["id"], id, "{text}");
        still_serving(&h).await;
    }
}

#[tokio::test]
async fn unknown_method_is_method_not_found() {
    let h = server();
    let r = h.call("no/such/method", json!({})).await;
    assert_eq!(r["error"]["code"], -32601);
    assert!(r["error"]["message"].as_str().unwrap().contains("no/such/method"));
    still_serving(&h).await;
}

#[tokio::test]
async fn wrong_param_types_are_invalid_params() {
    let h = server();
    assert_eq!(h.err_code("tools/call", json!({"name": 7})).await, -32602);
    assert_eq!(h.err_code("tools/call", json!({})).await, -32602);
    assert_eq!(h.err_code("tools/call", json!({"name":"t","arguments":[1,2]})).await, -32602);
    assert_eq!(h.err_code("tools/list", json!({"cursor": 3})).await, -32602);
    assert_eq!(h.err_code("tools/call", json!([1, 2])).await, -32602);
    still_serving(&h).await;
}

#[tokio::test]
async fn batches_are_refused_outside_2025_03_26() {
    let h = server();
    h.initialize("2025-06-18", json!({})).await;
    let r = h.raw(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).await;
    assert_eq!(r["error"]["code"], -32600);
    assert_eq!(r["id"], Value::Null);
    still_serving(&h).await;
}

#[tokio::test]
async fn batches_work_on_2025_03_26() {
    let h = server();
    h.initialize("2025-03-26", json!({})).await;
    let r = h
        .raw(
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},
               {"jsonrpc":"2.0","method":"notifications/whatever"},
               {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}},
               {"jsonrpc":"2.0","id":3,"method":"nope"},
               {"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-03-26"}},
               7]"#,
        )
        .await;
    let arr = r.as_array().expect("a batch gets an array");
    assert_eq!(arr.len(), 5, "one response per request, none for the notification: {r}");
    let by_id = |id: Value| arr.iter().find(|x| x["id"] == id).cloned().unwrap();
    assert_eq!(by_id(json!(1))["result"], json!({}));
    assert_eq!(by_id(json!(2))["result"]["content"][0]["text"], "ok");
    assert_eq!(by_id(json!(3))["error"]["code"], -32601);
    assert_eq!(by_id(json!(4))["error"]["code"], -32600, "initialize must not be batched");
    assert_eq!(by_id(Value::Null)["error"]["code"], -32600, "a non-object element is an invalid request");
}

#[tokio::test]
async fn empty_and_notification_only_batches() {
    let h = server();
    h.initialize("2025-03-26", json!({})).await;
    assert_eq!(h.raw("[]").await["error"]["code"], -32600);
    assert_eq!(h.raw(r#"[{"jsonrpc":"2.0","method":"notifications/x"}]"#).await, Value::Null);
}

#[tokio::test]
async fn notifications_get_no_response() {
    let h = server();
    assert_eq!(h.raw(r#"{"jsonrpc":"2.0","method":"notifications/unknown"}"#).await, Value::Null);
    assert_eq!(h.server.handle_raw(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await, "");
}

#[tokio::test]
async fn client_responses_without_a_waiting_request_are_ignored() {
    let h = server();
    assert_eq!(h.raw(r#"{"jsonrpc":"2.0","id":"x","result":{}}"#).await, Value::Null);
    assert_eq!(h.raw(r#"{"jsonrpc":"2.0","id":"y","error":{"code":1,"message":"m"}}"#).await, Value::Null);
    still_serving(&h).await;
}
