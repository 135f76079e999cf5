//! The dispatch limits (issue 15): a batch longer than `max_batch_len`, and one request more
//! than `max_in_flight_per_connection` or `max_in_flight`, each get their JSON-RPC error
//! naming the limit, while the requests already admitted finish and the server keeps
//! serving.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{stateful, Harness};
use ferrite_core::{CallToolResult, ConnectionState, Limits, Message, RequestContext, Server, Tool};
use serde_json::{json, Value};
use tokio::sync::Semaphore;

/// A server whose `hold` tool waits until the test releases it.
fn server(release: Arc<Semaphore>) -> Server {
    let s = stateful("limits");
    s.add_tool(
        Tool::new("hold", json!({"type":"object"})).with_description("waits for the test"),
        move |_a: Value, _ctx: RequestContext| {
            let release = release.clone();
            async move {
                release.acquire().await.expect("open").forget();
                Ok(CallToolResult::text("released"))
            }
        },
    )
    .unwrap();
    s
}

async fn wait_for(what: impl Fn() -> bool) {
    for _ in 0..200 {
        if what() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("condition not reached in 1 s");
}

#[tokio::test]
async fn a_batch_over_max_batch_len_is_refused_whole() {
    let s = stateful("limits");
    s.set_limits_json(json!({"maxBatchLen": 2})).unwrap();
    let h = Harness::new(s);
    h.initialize("2025-03-26", json!({})).await;
    let ping = |id: i64| json!({"jsonrpc":"2.0","id":id,"method":"ping"});
    let ok = h.raw(&json!([ping(1), ping(2)]).to_string()).await;
    assert_eq!(ok.as_array().map(Vec::len), Some(2), "{ok}");
    let r = h.raw(&json!([ping(3), ping(4), ping(5)]).to_string()).await;
    assert_eq!(
        (r["error"]["code"].clone(), r["error"]["data"].clone()),
        (json!(-32600), json!({"limit":"max_batch_len","value":2}))
    );
}

#[tokio::test]
async fn one_request_over_the_connection_limit_is_refused_and_the_others_finish() {
    let release = Arc::new(Semaphore::new(0));
    let s = server(release.clone());
    s.set_limits(Limits { max_in_flight_per_connection: 2, ..Limits::default() });
    let h = Arc::new(Harness::new(s.clone()));
    h.initialize("2025-11-25", json!({})).await;
    let call = |id: i64| {
        let h = h.clone();
        tokio::spawn(async move {
            let m = Message::request(id, "tools/call", Some(json!({"name":"hold"})));
            h.server
                .handle(m, &h.conn, &h.peer)
                .await
                .map(|r| serde_json::from_str::<Value>(&r.to_json_string()).unwrap())
        })
    };
    let (a, b) = (call(1), call(2));
    wait_for(|| h.conn.in_flight_count() == 2).await;
    let refused = call(3).await.unwrap().unwrap();
    assert_eq!(refused["error"]["code"], -32603);
    assert_eq!(refused["error"]["data"], json!({"limit":"max_in_flight_per_connection","value":2}));
    // Another connection is not affected by this one's limit.
    let other = Harness::with_conn(s.clone(), Arc::new(ConnectionState::new("other")));
    other.initialize("2025-11-25", json!({})).await;
    let c = {
        let m = Message::request(4, "tools/call", Some(json!({"name":"hold"})));
        let other = Arc::new(other);
        let o = other.clone();
        (tokio::spawn(async move { o.server.handle(m, &o.conn, &o.peer).await }), other)
    };
    wait_for(|| s.in_flight() == 3).await;
    release.add_permits(3);
    for j in [a, b] {
        assert_eq!(j.await.unwrap().unwrap()["result"]["content"][0]["text"], "released");
    }
    assert!(c.0.await.unwrap().is_some());
    assert_eq!(s.in_flight(), 0, "every admitted request was uncounted");
}

#[tokio::test]
async fn one_request_over_the_server_limit_is_refused_on_any_connection() {
    let release = Arc::new(Semaphore::new(0));
    let s = server(release.clone());
    s.set_limits_json(json!({"max_in_flight": 1})).unwrap();
    let a = Arc::new(Harness::new(s.clone()));
    a.initialize("2025-11-25", json!({})).await;
    let b = Harness::with_conn(s.clone(), Arc::new(ConnectionState::new("b")));
    b.initialize("2025-11-25", json!({})).await;
    let a2 = a.clone();
    let held = tokio::spawn(async move {
        let m = Message::request(1, "tools/call", Some(json!({"name":"hold"})));
        a2.server.handle(m, &a2.conn, &a2.peer).await
    });
    wait_for(|| s.in_flight() == 1).await;
    let r = b.call("tools/call", json!({"name":"hold"})).await;
    assert_eq!(
        (r["error"]["code"].clone(), r["error"]["data"]["limit"].clone()),
        (json!(-32603), json!("max_in_flight"))
    );
    release.add_permits(1);
    assert!(held.await.unwrap().is_some());
    // Below the limit again: b is served.
    release.add_permits(1);
    assert_eq!(b.call("tools/call", json!({"name":"hold"})).await["result"]["content"][0]["text"], "released");
}

#[tokio::test]
async fn bad_limits_are_refused_and_change_nothing() {
    let s = stateful("limits");
    let before = s.limits();
    let e = s.set_limits_json(json!({"max_batch_len": 5, "max_in_flight": 0})).unwrap_err();
    assert_eq!(e.to_string(), "invalid limit max_in_flight: must be at least 1");
    assert_eq!(s.limits(), before);
}

#[tokio::test]
async fn a_message_nested_past_max_json_depth_is_a_parse_error_naming_the_limit() {
    let s = stateful("limits");
    s.set_limits_json(json!({"max_json_depth": 4})).unwrap();
    let h = Harness::new(s);
    h.initialize("2025-03-26", json!({})).await;
    // The envelope and params are two levels; `a` adds one per bracket.
    let ping = |id: i64, n: usize| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{{"a":{}{}}}}}"#, "[".repeat(n), "]".repeat(n))
    };
    let r = h.raw(&ping(1, 3)).await;
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone(), r["error"]["data"].clone()),
        (Value::Null, json!(-32700), json!({"limit": "max_json_depth", "value": 4}))
    );
    // A batch is one level more: a batch of pings nested 4 deep is refused whole.
    let r = h.raw(&format!("[{}]", ping(2, 2))).await;
    assert_eq!(r["error"]["data"]["limit"], "max_json_depth", "{r}");
    assert_eq!(h.raw(&ping(3, 2)).await["result"], json!({}));
    // Back to the default: serde_json's 127, named the same way.
    h.server.set_limits_json(json!({"max_json_depth": 127})).unwrap();
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"ping","params":{{"a":{}{}}}}}"#,
        "[".repeat(126),
        "]".repeat(126)
    );
    let r = h.raw(&deep).await;
    assert_eq!(r["error"]["data"], json!({"limit": "max_json_depth", "value": 127}), "{r}");
}
