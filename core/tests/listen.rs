//! `subscriptions/listen` (2026-07-28): the acknowledgement comes first and names the honoured
//! part of the filter; every notification carries the subscription id; only what the filter
//! names is delivered; cancelling ends the stream without a result; closing the connection
//! ends it with the graceful result.

mod common;

use std::time::Duration;

use common::{enveloped, Harness};
use ferrite_core::protocol::OutboundResponse;
use ferrite_core::{CallToolResult, Message, Resource, Server, Tool};
use serde_json::{json, Value};

const SUB: &str = "io.modelcontextprotocol/subscriptionId";

fn server() -> Server {
    let s = common::stateless("listen");
    s.add_tool_fn(Tool::new("t", json!({"type":"object"})).with_description("d"), |_| Ok(CallToolResult::text("")))
        .unwrap();
    s.add_text_resource(Resource::new("test://a", "a"), "A");
    s.enable_tools_list_changed();
    s.enable_resource_subscriptions().unwrap();
    s
}

/// Start a listen request with `filter` as id `id`; the task that will hold its response.
fn listen(h: &Harness, id: i64, filter: Value) -> tokio::task::JoinHandle<Option<OutboundResponse>> {
    let (server, conn, peer) = (h.server.clone(), h.conn.clone(), h.peer.clone());
    let msg =
        Message::request(id, "subscriptions/listen", Some(enveloped(json!({ "notifications": filter }), json!({}))));
    tokio::spawn(async move { server.handle(msg, &conn, &peer).await })
}

async fn until_listening(h: &Harness, n: usize) {
    for _ in 0..200 {
        if h.server.listen_stream_count() == n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("{n} listen streams never opened");
}

#[tokio::test]
async fn the_acknowledgement_comes_first_and_every_notification_is_tagged() {
    let h = Harness::new(server());
    let task = listen(&h, 41, json!({"toolsListChanged": true, "promptsListChanged": true}));
    until_listening(&h, 1).await;
    assert_eq!(h.server.notify_tools_list_changed(), 1);
    let frames = h.recorder.frames();
    assert_eq!(frames.len(), 2, "{frames:?}");
    // No prompts on this server: that part of the filter is not honoured.
    assert_eq!(
        frames[0],
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
               "params": {"notifications": {"toolsListChanged": true}, "_meta": {SUB: 41}}})
    );
    assert_eq!(
        frames[1],
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": {SUB: 41}}})
    );
    task.abort();
}

#[tokio::test]
async fn only_what_the_filter_names_is_delivered() {
    let h = Harness::new(server());
    let task = listen(&h, 7, json!({"resourceSubscriptions": ["test://a"]}));
    until_listening(&h, 1).await;
    assert_eq!(h.server.notify_tools_list_changed(), 0, "not asked for");
    assert_eq!(h.server.notify_resource_updated("test://b"), 0, "another uri");
    assert_eq!(h.server.notify_resource_updated("test://a"), 1);
    let frames = h.recorder.frames();
    assert_eq!(frames[0]["params"]["notifications"], json!({"resourceSubscriptions": ["test://a"]}));
    assert_eq!(
        frames[1],
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "test://a", "_meta": {SUB: 7}}})
    );
    assert_eq!(frames.len(), 2);
    task.abort();
}

#[tokio::test]
async fn cancelling_ends_the_stream_without_a_result() {
    let h = Harness::new(server());
    let task = listen(&h, 3, json!({"toolsListChanged": true}));
    until_listening(&h, 1).await;
    h.notify("notifications/cancelled", json!({"requestId": 3})).await;
    let answer = tokio::time::timeout(Duration::from_secs(5), task).await.expect("ends").unwrap();
    assert!(answer.is_none(), "a cancelled request gets no response");
    assert_eq!(h.server.listen_stream_count(), 0);
    assert_eq!(h.server.notify_tools_list_changed(), 0);
}

#[tokio::test]
async fn closing_the_connection_ends_the_stream_with_the_graceful_result() {
    let h = Harness::new(server());
    let task = listen(&h, 11, json!({"toolsListChanged": true}));
    until_listening(&h, 1).await;
    h.conn.close();
    let answer = tokio::time::timeout(Duration::from_secs(5), task).await.expect("ends").unwrap().unwrap();
    let v = answer.to_value();
    assert_eq!(v["result"]["resultType"], "complete");
    assert_eq!(v["result"]["_meta"][SUB], 11);
    assert_eq!(v["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "listen");
    assert_eq!(h.server.listen_stream_count(), 0);
}

#[tokio::test]
async fn two_streams_get_their_own_ids() {
    let s = server();
    let a = Harness::new(s.clone());
    let b = Harness::new(s.clone());
    let ta = listen(&a, 1, json!({"toolsListChanged": true}));
    let tb = listen(&b, 2, json!({"toolsListChanged": true}));
    until_listening(&a, 2).await;
    assert_eq!(s.notify_tools_list_changed(), 2);
    assert_eq!(a.recorder.frames()[1]["params"]["_meta"][SUB], 1);
    assert_eq!(b.recorder.frames()[1]["params"]["_meta"][SUB], 2);
    ta.abort();
    tb.abort();
}

#[tokio::test]
async fn a_listen_without_a_filter_is_invalid_params() {
    let h = Harness::new(server());
    let e = h.modern_err("subscriptions/listen", json!({}), json!({})).await;
    assert_eq!(e["code"], -32602);
    let e = h.modern_err("subscriptions/listen", json!({"notifications": true}), json!({})).await;
    assert_eq!(e["code"], -32602);
}

#[tokio::test]
async fn handshake_era_listeners_still_get_list_changes() {
    let s = server();
    let h = Harness::new(s.clone());
    let _guard = s.attach_listener(&h.conn, &h.peer);
    let modern = Harness::new(s.clone());
    let task = listen(&modern, 5, json!({"toolsListChanged": true}));
    until_listening(&modern, 1).await;
    assert_eq!(s.notify_tools_list_changed(), 2);
    assert_eq!(h.recorder.frames(), vec![json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})]);
    // A plain notify reaches handshake-era listeners only.
    assert_eq!(s.notify("notifications/message", Some(json!({"level": "info", "data": "x"}))), 1);
    task.abort();
}
