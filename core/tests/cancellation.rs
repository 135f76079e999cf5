//! notifications/cancelled flips the connection's token for that request; the late response
//! is suppressed; other connections are untouched.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{stateful, Harness};
use ferrite_core::{CallToolResult, Message, RequestContext, Server, Tool};
use serde_json::{json, Value};
use tokio::sync::Notify;

fn server(started: Arc<Notify>) -> Server {
    let s = stateful("cancel");
    s.add_tool(
        Tool::new("wait", json!({"type":"object"})).with_description("waits"),
        move |_a: Value, ctx: RequestContext| {
            let started = started.clone();
            async move {
                started.notify_one();
                tokio::select! {
                    _ = ctx.cancelled() => Ok(CallToolResult::text(format!("cancelled={}", ctx.is_cancelled()))),
                    _ = tokio::time::sleep(Duration::from_secs(10)) => Ok(CallToolResult::text("timeout")),
                }
            }
        },
    )
    .unwrap();
    s
}

#[tokio::test]
async fn cancelled_request_gets_no_response() {
    let started = Arc::new(Notify::new());
    let h = Arc::new(Harness::new(server(started.clone())));
    let h2 = h.clone();
    let call = tokio::spawn(async move {
        h2.server.handle(Message::request(1, "tools/call", Some(json!({"name":"wait"}))), &h2.conn, &h2.peer).await
    });
    started.notified().await;
    assert_eq!(h.conn.in_flight_count(), 1);
    h.notify("notifications/cancelled", json!({"requestId": 1, "reason": "user"})).await;
    let resp = tokio::time::timeout(Duration::from_secs(2), call).await.expect("handler stopped").unwrap();
    assert!(resp.is_none(), "the late response is suppressed");
    assert_eq!(h.conn.in_flight_count(), 0);
}

#[tokio::test]
async fn cancelling_on_one_connection_does_not_touch_another() {
    let started = Arc::new(Notify::new());
    let s = server(started.clone());
    let a = Arc::new(Harness::new(s.clone()));
    let b = Arc::new(Harness::new(s));
    let b2 = b.clone();
    let call_b = tokio::spawn(async move {
        b2.server.handle(Message::request(1, "tools/call", Some(json!({"name":"wait"}))), &b2.conn, &b2.peer).await
    });
    started.notified().await;
    a.notify("notifications/cancelled", json!({"requestId": 1})).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(!call_b.is_finished(), "b's request with the same id keeps running");
    b.notify("notifications/cancelled", json!({"requestId": 1})).await;
    assert!(tokio::time::timeout(Duration::from_secs(2), call_b).await.unwrap().unwrap().is_none());
}

#[tokio::test]
async fn cancelling_unknown_or_malformed_ids_is_harmless() {
    let h = Harness::new(server(Arc::new(Notify::new())));
    h.notify("notifications/cancelled", json!({"requestId": 99})).await;
    h.notify("notifications/cancelled", json!({"requestId": null})).await;
    h.notify("notifications/cancelled", Value::Null).await;
    assert_eq!(h.ok("ping", Value::Null).await, json!({}));
}

#[tokio::test]
async fn a_cancelled_request_sends_no_progress_logs_or_requests() {
    let s = stateful("cancel");
    s.enable_logging();
    let started = Arc::new(Notify::new());
    let outcome = Arc::new(std::sync::Mutex::new(None));
    let (st, out) = (started.clone(), outcome.clone());
    s.add_tool(
        Tool::new("chatty", json!({"type":"object"})).with_description("talks after it is cancelled"),
        move |_a: Value, ctx: RequestContext| {
            let (started, out) = (st.clone(), out.clone());
            async move {
                assert!(ctx.report_progress(1.0, Some(3.0), None), "progress flows before the cancellation");
                assert!(ctx.info("before the cancellation"), "logs flow before the cancellation");
                started.notify_one();
                ctx.cancelled().await;
                let sent = (
                    ctx.report_progress(2.0, Some(3.0), None),
                    ctx.info("after the cancellation"),
                    ctx.send_request("roots/list", None).await.map_err(|e| e.to_string()),
                );
                *out.lock().unwrap() = Some(sent);
                Ok(CallToolResult::text("late"))
            }
        },
    )
    .unwrap();
    let h = Arc::new(Harness::new(s));
    h.initialize("2025-11-25", json!({"roots": {}})).await;
    let h2 = h.clone();
    let call = tokio::spawn(async move {
        let params = json!({"name":"chatty","_meta":{"progressToken":"p"}});
        h2.server.handle(Message::request(1, "tools/call", Some(params)), &h2.conn, &h2.peer).await
    });
    started.notified().await;
    let before = h.recorder.frames().len();
    h.notify("notifications/cancelled", json!({"requestId": 1})).await;
    assert!(tokio::time::timeout(Duration::from_secs(2), call).await.expect("handler stopped").unwrap().is_none());
    let sent = outcome.lock().unwrap().clone().expect("the handler ran on after the cancellation");
    assert_eq!(sent, (false, false, Err("the request was cancelled by the client".to_owned())));
    assert_eq!(h.recorder.frames().len(), before, "nothing reached the client after the cancellation");
    assert!(h.recorder.requests.lock().unwrap().is_empty(), "no server-to-client request was sent");
}
