//! Streamable HTTP end to end over real sockets: every bad input with its exact status (and
//! the server still serving after it), sessions, SSE, server-to-client requests, resumption,
//! the standalone GET stream, and stateless mode.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ferrite_core::transport::http::{self, HttpOptions};
use ferrite_core::{CallToolResult, CreateMessageParams, Implementation, RequestContext, Resource, Server, Tool};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

mod common;
use common::http::*;

struct TestServer {
    addr: SocketAddr,
    server: Server,
    shutdown: CancellationToken,
    cancelled: Arc<AtomicUsize>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

fn build(stateful: bool) -> (Server, Arc<AtomicUsize>) {
    let b = Server::builder(Implementation::new("http-test", "1"));
    let s = if stateful { b.stateful() } else { b.stateless() }.build();
    s.enable_logging();
    s.add_text_resource(Resource::new("test://watched", "watched"), "w");
    if stateful {
        s.enable_resource_subscriptions().unwrap();
    }
    s.add_tool_fn(Tool::new("echo", json!({"type":"object"})).with_description("echo"), |a| {
        Ok(CallToolResult::text(a.to_string()))
    })
    .unwrap();
    s.add_tool(
        Tool::new("chatty", json!({"type":"object"})).with_description("logs"),
        |_a: Value, ctx: RequestContext| async move {
            ctx.info("working");
            Ok(CallToolResult::text("done"))
        },
    )
    .unwrap();
    s.add_tool(
        Tool::new("ask", json!({"type":"object"})).with_description("samples"),
        |_a: Value, ctx: RequestContext| async move {
            let r = ctx.sample(CreateMessageParams::user_text("hi", 5)).await?;
            Ok(CallToolResult::text(format!("client said {}", r.text().unwrap_or(""))))
        },
    )
    .unwrap();
    s.add_tool(
        Tool::new("drop_stream", json!({"type":"object"})).with_description("reconnect"),
        |_a: Value, ctx: RequestContext| async move {
            ctx.info("before");
            let closed = ctx.close_sse_stream(Some(Duration::from_millis(10)));
            tokio::time::sleep(Duration::from_millis(100)).await;
            ctx.info("after");
            Ok(CallToolResult::text(format!("closed={closed}")))
        },
    )
    .unwrap();
    let cancelled = Arc::new(AtomicUsize::new(0));
    let c = cancelled.clone();
    s.add_tool(
        Tool::new("wait", json!({"type":"object"})).with_description("waits"),
        move |_a: Value, ctx: RequestContext| {
            let c = c.clone();
            async move {
                tokio::select! {
                    _ = ctx.cancelled() => { c.fetch_add(1, Ordering::SeqCst); Ok(CallToolResult::text("cancelled")) }
                    _ = tokio::time::sleep(Duration::from_secs(20)) => Ok(CallToolResult::text("timeout")),
                }
            }
        },
    )
    .unwrap();
    (s, cancelled)
}

async fn start(stateful: bool, tweak: impl FnOnce(&mut HttpOptions)) -> TestServer {
    let (server, cancelled) = build(stateful);
    let mut opts = HttpOptions::default();
    tweak(&mut opts);
    let shutdown = opts.shutdown.clone();
    let bound = http::bind(&server, "127.0.0.1:0".parse().unwrap(), opts).await.unwrap();
    let addr = bound.local_addr().unwrap();
    tokio::spawn(bound.run());
    TestServer { addr, server, shutdown, cancelled }
}

fn init_body(version: &str, caps: Value) -> String {
    json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":version,"capabilities":caps,"clientInfo":{"name":"t","version":"1"}}}).to_string()
}

/// initialize + initialized; the session id.
async fn session(addr: SocketAddr, caps: Value) -> String {
    let r = request(addr, "POST", &[JSON, ACCEPT], &init_body("2025-11-25", caps)).await;
    assert_eq!(r.status, 200);
    let sid = r.header("mcp-session-id").expect("a session id at initialize").to_owned();
    let v = r.json().await;
    assert_eq!(v["result"]["protocolVersion"], "2025-11-25");
    let n = request(
        addr,
        "POST",
        &[JSON, ACCEPT, ("mcp-session-id", &sid)],
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
    .await;
    assert_eq!(n.status, 202);
    sid
}

async fn call(addr: SocketAddr, sid: &str, id: i64, method: &str, params: Value) -> Reply {
    let body = json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}).to_string();
    request(addr, "POST", &[JSON, ACCEPT, ("mcp-session-id", sid), ("mcp-protocol-version", "2025-11-25")], &body).await
}

async fn still_serving(addr: SocketAddr, sid: &str) {
    let r = call(addr, sid, 99, "ping", json!({})).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json().await["result"], json!({}));
}

#[tokio::test]
async fn initialize_mints_a_128_bit_session_id() {
    let t = start(true, |_| {}).await;
    let sid = session(t.addr, json!({})).await;
    assert_eq!(sid.len(), 32);
    assert!(sid.chars().all(|c| c.is_ascii_hexdigit()));
    let other = session(t.addr, json!({})).await;
    assert_ne!(sid, other);
}

#[tokio::test]
async fn wrong_content_type_is_415() {
    let t = start(true, |_| {}).await;
    let sid = session(t.addr, json!({})).await;
    let r = request(t.addr, "POST", &[("content-type", "text/plain"), ACCEPT, ("mcp-session-id", &sid)], "{}").await;
    assert_eq!(r.status, 415);
    let r = request(t.addr, "POST", &[ACCEPT, ("mcp-session-id", &sid)], "{}").await;
    assert_eq!(r.status, 415, "missing Content-Type");
    still_serving(t.addr, &sid).await;
}

#[tokio::test]
async fn missing_or_unusable_accept_is_406() {
    let t = start(true, |_| {}).await;
    let sid = session(t.addr, json!({})).await;
    let ping = r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#;
    assert_eq!(request(t.addr, "POST", &[JSON, ("mcp-session-id", &sid)], ping).await.status, 406);
    assert_eq!(
        request(t.addr, "POST", &[JSON, ("accept", "text/html"), ("mcp-session-id", &sid)], ping).await.status,
        406
    );
    // Lenient where it does not matter: JSON alone, or a wildcard, is fine.
    assert_eq!(
        request(t.addr, "POST", &[JSON, ("accept", "application/json"), ("mcp-session-id", &sid)], ping).await.status,
        200
    );
    assert_eq!(request(t.addr, "POST", &[JSON, ("accept", "*/*"), ("mcp-session-id", &sid)], ping).await.status, 200);
    still_serving(t.addr, &sid).await;
}

#[tokio::test]
async fn oversized_body_is_413() {
    let t = start(true, |o| o.max_body_bytes = 1024).await;
    let sid = session(t.addr, json!({})).await;
    let big = json!({"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"x".repeat(5000)}}).to_string();
    let r = request(t.addr, "POST", &[JSON, ACCEPT, ("mcp-session-id", &sid)], &big).await;
    assert_eq!(r.status, 413);
    still_serving(t.addr, &sid).await;
}

#[tokio::test]
async fn missing_unknown_and_deleted_sessions() {
    let t = start(true, |_| {}).await;
    let sid = session(t.addr, json!({})).await;
    let ping = r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#;
    assert_eq!(request(t.addr, "POST", &[JSON, ACCEPT], ping).await.status, 400, "missing session id");
    assert_eq!(
        request(t.addr, "POST", &[JSON, ACCEPT, ("mcp-session-id", "0123456789abcdef")], ping).await.status,
        404
    );
    still_serving(t.addr, &sid).await;
    let d = request(t.addr, "DELETE", &[("mcp-session-id", &sid)], "").await;
    assert_eq!(d.status, 200);
    assert_eq!(call(t.addr, &sid, 3, "ping", json!({})).await.status, 404, "deleted");
    assert_eq!(request(t.addr, "DELETE", &[("mcp-session-id", &sid)], "").await.status, 404);
    assert!(!t.server.connected_sessions().contains(&sid));
}

#[tokio::test]
async fn idle_sessions_expire_to_404() {
    let t = start(true, |o| o.session_idle_timeout = Some(Duration::from_millis(100))).await;
    let sid = session(t.addr, json!({})).await;
    still_serving(t.addr, &sid).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(call(t.addr, &sid, 3, "ping", json!({})).await.status, 404);
}

#[tokio::test]
async fn bad_or_unsupported_protocol_version_header_is_400() {
    let t = start(true, |_| {}).await;
    let sid = session(t.addr, json!({})).await;
    let ping = r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#;
    for v in ["garbage", "2099-01-01", "2026-07-28"] {
        let r =
            request(t.addr, "POST", &[JSON, ACCEPT, ("mcp-session-id", &sid), ("mcp-protocol-version", v)], ping).await;
        assert_eq!(r.status, 400, "{v}");
    }
    // Any supported revision is accepted, also one other than negotiated; absent is fine.
    for v in ["2025-03-26", "2025-11-25"] {
        let r =
            request(t.addr, "POST", &[JSON, ACCEPT, ("mcp-session-id", &sid), ("mcp-protocol-version", v)], ping).await;
        assert_eq!(r.status, 200, "{v}");
    }
    // Not checked on initialize.
    let r = request(
        t.addr,
        "POST",
        &[JSON, ACCEPT, ("mcp-protocol-version", "2099-01-01")],
        &init_body("2025-06-18", json!({})),
    )
    .await;
    assert_eq!(r.status, 200);
    still_serving(t.addr, &sid).await;
}

#[tokio::test]
async fn foreign_host_and_origin_are_403() {
    let t = start(true, |_| {}).await;
    let sid = session(t.addr, json!({})).await;
    let ping = r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#;
    let r =
        request(t.addr, "POST", &[JSON, ACCEPT, ("mcp-session-id", &sid), ("host", "evil.example.com")], ping).await;
    assert_eq!(r.status, 403);
    let r =
        request(t.addr, "POST", &[JSON, ACCEPT, ("mcp-session-id", &sid), ("origin", "http://evil.example.com")], ping)
            .await;
    assert_eq!(r.status, 403);
    let r = request(t.addr, "POST", &[JSON, ACCEPT, ("host", "evil.example.com")], &init_body("2025-11-25", json!({})))
        .await;
    assert_eq!(r.status, 403, "initialize too");
    let r =
        request(t.addr, "POST", &[JSON, ACCEPT, ("mcp-session-id", &sid), ("origin", "http://localhost:5173")], ping)
            .await;
    assert_eq!(r.status, 200);
    still_serving(t.addr, &sid).await;
}

#[tokio::test]
async fn malformed_json_is_400_with_parse_error() {
    let t = start(true, |_| {}).await;
    let sid = session(t.addr, json!({})).await;
    let r = request(t.addr, "POST", &[JSON, ACCEPT, ("mcp-session-id", &sid)], "{not json").await;
    assert_eq!(r.status, 400);
    let v = r.json().await;
    assert_eq!(v["error"]["code"], -32700);
    assert_eq!(v["id"], Value::Null);
    let r =
        request(t.addr, "POST", &[JSON, ACCEPT, ("mcp-session-id", &sid)], r#"{"jsonrpc":"1.0","id":1,"method":"x"}"#)
            .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json().await["error"]["code"], -32600);
    still_serving(t.addr, &sid).await;
}

#[tokio::test]
async fn notifications_and_responses_are_202() {
    let t = start(true, |_| {}).await;
    let sid = session(t.addr, json!({})).await;
    let r = request(
        t.addr,
        "POST",
        &[JSON, ACCEPT, ("mcp-session-id", &sid)],
        r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#,
    )
    .await;
    assert_eq!(r.status, 202);
    assert_eq!(r.text().await, "");
    let r = request(
        t.addr,
        "POST",
        &[JSON, ACCEPT, ("mcp-session-id", &sid)],
        r#"{"jsonrpc":"2.0","id":"nobody","result":{}}"#,
    )
    .await;
    assert_eq!(r.status, 202);
}

#[tokio::test]
async fn json_when_the_handler_is_silent_sse_when_it_talks() {
    let t = start(true, |_| {}).await;
    let sid = session(t.addr, json!({})).await;
    let r = call(t.addr, &sid, 2, "tools/call", json!({"name":"echo","arguments":{"x":1}})).await;
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.json().await["result"]["content"][0]["text"], r#"{"x":1}"#);
    let r = call(t.addr, &sid, 3, "tools/call", json!({"name":"chatty"})).await;
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    let msgs = r.sse_messages().await;
    assert_eq!(msgs.len(), 2);
    assert_eq!(msgs[0]["method"], "notifications/message", "the log comes before the result");
    assert_eq!(msgs[1]["id"], 3);
}

#[tokio::test]
async fn sampling_rides_the_post_stream_and_the_reply_comes_on_a_new_post() {
    let t = start(true, |_| {}).await;
    let sid = session(t.addr, json!({"sampling": {}})).await;
    let mut r = call(t.addr, &sid, 4, "tools/call", json!({"name":"ask"})).await;
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    // Read until the sampling request arrives.
    let req = next_message(&mut r.body, "sampling/createMessage").await;
    let answer = json!({"jsonrpc":"2.0","id":req["id"],"result":{"role":"assistant","content":{"type":"text","text":"pong"},"model":"m"}});
    let a = request(t.addr, "POST", &[JSON, ACCEPT, ("mcp-session-id", &sid)], &answer.to_string()).await;
    assert_eq!(a.status, 202);
    let rest = r.text().await;
    let result = sse_data(&rest).into_iter().find(|m| m["id"] == 4).expect("the result follows on the same stream");
    assert_eq!(result["result"]["content"][0]["text"], "client said pong");
}

#[tokio::test]
async fn a_sampling_request_given_up_by_its_cancelled_call_is_cancelled_on_the_same_stream() {
    let t = start(true, |_| {}).await;
    let sid = session(t.addr, json!({"sampling": {}})).await;
    let mut r = call(t.addr, &sid, 4, "tools/call", json!({"name":"ask"})).await;
    let req = next_message(&mut r.body, "sampling/createMessage").await;
    let cancel = json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}).to_string();
    assert_eq!(request(t.addr, "POST", &[JSON, ACCEPT, ("mcp-session-id", &sid)], &cancel).await.status, 202);
    let rest = tokio::time::timeout(Duration::from_secs(5), r.text()).await.expect("the POST's stream ends");
    let msgs = sse_data(&rest);
    let withdrawn: Vec<&Value> = msgs.iter().filter(|m| m["method"] == "notifications/cancelled").collect();
    assert_eq!(withdrawn.len(), 1, "{msgs:?}");
    assert_eq!(withdrawn[0]["params"]["requestId"], req["id"]);
    assert!(msgs.iter().all(|m| m["id"] != 4), "no response to the cancelled call: {msgs:?}");
    // The late answer is accepted (202) and resolves nothing; the session keeps serving.
    let late = json!({"jsonrpc":"2.0","id":req["id"],"result":{"role":"assistant","content":{"type":"text","text":"late"},"model":"m"}});
    let a = request(t.addr, "POST", &[JSON, ACCEPT, ("mcp-session-id", &sid)], &late.to_string()).await;
    assert_eq!(a.status, 202);
    still_serving(t.addr, &sid).await;
}

#[tokio::test]
async fn a_reply_from_another_session_does_not_resolve_the_request() {
    let t = start(true, |_| {}).await;
    let a = session(t.addr, json!({"sampling": {}})).await;
    let b = session(t.addr, json!({"sampling": {}})).await;
    let mut r = call(t.addr, &a, 4, "tools/call", json!({"name":"ask"})).await;
    let req = next_message(&mut r.body, "sampling/createMessage").await;
    let answer = |text: &str| {
        json!({"jsonrpc":"2.0","id":req["id"],"result":{"role":"assistant","content":{"type":"text","text":text},"model":"m"}}).to_string()
    };
    request(t.addr, "POST", &[JSON, ACCEPT, ("mcp-session-id", &b)], &answer("from b")).await;
    request(t.addr, "POST", &[JSON, ACCEPT, ("mcp-session-id", &a)], &answer("from a")).await;
    let result = sse_data(&r.text().await).into_iter().find(|m| m["id"] == 4).unwrap();
    assert_eq!(result["result"]["content"][0]["text"], "client said from a");
}

#[tokio::test]
async fn a_closed_stream_resumes_with_last_event_id() {
    let t = start(true, |_| {}).await;
    let sid = session(t.addr, json!({})).await;
    let r = call(t.addr, &sid, 6, "tools/call", json!({"name":"drop_stream"})).await;
    let first = r.text().await;
    assert!(first.contains("retry: 10"), "the server tells the client when to come back: {first}");
    let msgs = sse_data(&first);
    assert!(msgs.iter().all(|m| m["id"] != 6), "no result on the dropped stream");
    let last = sse_ids(&first).pop().expect("events carry ids");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let g = request(
        t.addr,
        "GET",
        &[("accept", "text/event-stream"), ("mcp-session-id", &sid), ("last-event-id", &last)],
        "",
    )
    .await;
    assert_eq!(g.status, 200);
    let rest = g.sse_messages().await;
    assert_eq!(rest.first().map(|m| m["params"]["data"].clone()), Some(json!("after")));
    let result = rest.iter().find(|m| m["id"] == 6).expect("the result is replayed");
    assert_eq!(result["result"]["content"][0]["text"], "closed=true");
}

#[tokio::test]
async fn the_get_stream_delivers_updates_for_subscribed_uris_only() {
    let t = start(true, |_| {}).await;
    let sid = session(t.addr, json!({})).await;
    let first = request(t.addr, "GET", &[("accept", "text/event-stream"), ("mcp-session-id", &sid)], "").await;
    assert_eq!(first.status, 200);
    // One standalone stream per session: a second GET replaces the first, which ends (a client
    // reconnecting is not locked out while its old connection does not look gone yet).
    let mut g = request(t.addr, "GET", &[("accept", "text/event-stream"), ("mcp-session-id", &sid)], "").await;
    assert_eq!(g.status, 200);
    // The first stream ends (or the 10 s guard in `text` fails the test).
    let _ = first.text().await;
    // Wait until the listener is registered.
    for _ in 0..50 {
        if t.server.connected_sessions().contains(&sid) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(t.server.notify_resource_updated("test://watched"), 0, "not subscribed yet");
    assert_eq!(call(t.addr, &sid, 7, "resources/subscribe", json!({"uri":"test://watched"})).await.status, 200);
    assert_eq!(t.server.notify_resource_updated("test://watched"), 1);
    let update = next_message(&mut g.body, "notifications/resources/updated").await;
    assert_eq!(
        update,
        json!({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://watched"}})
    );
}

#[tokio::test]
async fn ping_client_reaches_the_session_through_its_get_stream() {
    let t = start(true, |_| {}).await;
    let sid = session(t.addr, json!({})).await;
    let mut g = request(t.addr, "GET", &[("accept", "text/event-stream"), ("mcp-session-id", &sid)], "").await;
    for _ in 0..50 {
        if t.server.connected_sessions().contains(&sid) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let server = t.server.clone();
    let s2 = sid.clone();
    let ping = tokio::spawn(async move { server.ping_client(&s2, Duration::from_secs(5)).await });
    let req = next_message(&mut g.body, "ping").await;
    let pong = json!({"jsonrpc":"2.0","id":req["id"],"result":{}}).to_string();
    assert_eq!(request(t.addr, "POST", &[JSON, ACCEPT, ("mcp-session-id", &sid)], &pong).await.status, 202);
    ping.await.unwrap().expect("the client answered the ping");
    assert!(t.server.ping_client("no-such-session", Duration::from_millis(50)).await.is_err());
}

#[tokio::test]
async fn notifications_cancelled_stops_a_json_request_and_nothing_answers_it() {
    let t = start(true, |o| o.response_mode = http::ResponseMode::Json).await;
    let sid = session(t.addr, json!({})).await;
    let addr = t.addr;
    let s2 = sid.clone();
    let pending = tokio::spawn(async move {
        let r = call(addr, &s2, 8, "tools/call", json!({"name":"wait"})).await;
        (r.status, r.text().await)
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let cancel = json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":8}}).to_string();
    assert_eq!(request(t.addr, "POST", &[JSON, ACCEPT, ("mcp-session-id", &sid)], &cancel).await.status, 202);
    let (status, body) = tokio::time::timeout(Duration::from_secs(5), pending).await.expect("the POST ends").unwrap();
    assert_eq!(t.cancelled.load(Ordering::SeqCst), 1, "the handler saw the cancellation");
    assert!(!body.contains("\"id\":8"), "no response for the cancelled request: {status} {body}");
    still_serving(t.addr, &sid).await;
}

#[tokio::test]
async fn batches_only_on_2025_03_26() {
    let t = start(true, |_| {}).await;
    let r = request(t.addr, "POST", &[JSON, ACCEPT], &init_body("2025-03-26", json!({}))).await;
    let old = r.header("mcp-session-id").unwrap().to_owned();
    let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}]"#;
    let v = request(t.addr, "POST", &[JSON, ACCEPT, ("mcp-session-id", &old)], batch).await.json().await;
    assert_eq!(v.as_array().map(Vec::len), Some(2), "{v}");
    let new = session(t.addr, json!({})).await;
    let v = request(t.addr, "POST", &[JSON, ACCEPT, ("mcp-session-id", &new)], batch).await.json().await;
    assert_eq!(v["error"]["code"], -32600);
}

#[tokio::test]
async fn stateless_mode_answers_without_sessions_and_refuses_get_and_delete() {
    let t = start(false, |_| {}).await;
    let r = request(t.addr, "POST", &[JSON, ACCEPT], &init_body("2025-11-25", json!({}))).await;
    assert_eq!(r.status, 200);
    assert!(r.header("mcp-session-id").is_none(), "no session in stateless mode");
    let call = |v: &'static str| async move {
        let body = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"k":v}}})
            .to_string();
        request(t.addr, "POST", &[JSON, ACCEPT, ("mcp-protocol-version", "2025-06-18")], &body).await
    };
    let r = call("v").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json().await["result"]["content"][0]["text"], r#"{"k":"v"}"#);
    let g = request(t.addr, "GET", &[("accept", "text/event-stream")], "").await;
    assert_eq!(g.status, 405);
    assert_eq!(g.header("allow"), Some("POST"));
    let d = request(t.addr, "DELETE", &[], "").await;
    assert_eq!(d.status, 405);
    let sub = json!({"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"debug"}}).to_string();
    let v = request(t.addr, "POST", &[JSON, ACCEPT], &sub).await.json().await;
    assert_eq!(v["error"]["code"], -32601, "setLevel needs a session");
    assert_eq!(call("again").await.status, 200, "still serving");
}

#[tokio::test]
async fn graceful_shutdown_ends_get_streams() {
    let t = start(true, |_| {}).await;
    let sid = session(t.addr, json!({})).await;
    let mut g = request(t.addr, "GET", &[("accept", "text/event-stream"), ("mcp-session-id", &sid)], "").await;
    assert_eq!(g.status, 200);
    assert_eq!(g.header("content-type"), Some("text/event-stream"));
    // The stream is the session's listener before its headers go out; prove it is live: a
    // notification sent before shutdown arrives on it.
    assert_eq!(t.server.connected_sessions(), vec![sid.clone()]);
    assert_eq!(t.server.notify_tools_list_changed(), 1, "the GET stream is the one listener");
    let changed = next_message(&mut g.body, "notifications/tools/list_changed").await;
    assert_eq!(changed, json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed"}));
    t.shutdown.cancel();
    // The body ends instead of hanging forever: `text` fails the test if it has not ended
    // within its timeout.
    let _ = g.text().await;
}

#[tokio::test]
async fn open_sse_streams_are_counted_until_the_client_leaves() {
    let t = start(true, |_| {}).await;
    let sid = session(t.addr, json!({})).await;
    assert_eq!(t.server.stats().sse_streams, 0);
    let g = request(t.addr, "GET", &[("accept", "text/event-stream"), ("mcp-session-id", &sid)], "").await;
    assert_eq!(g.status, 200);
    assert_eq!(t.server.stats().sse_streams, 1, "the GET stream is open");
    drop(g);
    // A client that left is noticed at the next write to its stream (HARDENING.md).
    for _ in 0..200 {
        if t.server.stats().sse_streams == 0 {
            break;
        }
        t.server.notify_tools_list_changed();
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(t.server.stats().sse_streams, 0, "the client left: the stream is no longer counted");
    still_serving(t.addr, &sid).await;
}

#[tokio::test]
async fn legacy_http_sse_is_off_by_default() {
    let t = start(true, |_| {}).await;
    assert_eq!(request_at(t.addr, "/sse", "GET", &[("accept", "text/event-stream")], "").await.status, 404);
}

#[tokio::test]
async fn legacy_http_sse_serves_2024_11_05_clients() {
    let t = start(true, |o| o.legacy_sse = true).await;
    let mut g = request_at(t.addr, "/sse", "GET", &[("accept", "text/event-stream")], "").await;
    assert_eq!(g.status, 200);
    let mut buf = String::new();
    read_until(&mut g.body, &mut buf, |b| b.contains("\n\n")).await;
    let endpoint = buf.lines().find_map(|l| l.strip_prefix("data: ")).expect("the endpoint event").to_owned();
    assert!(buf.starts_with("event: endpoint\n"), "{buf}");
    assert!(endpoint.starts_with("/messages?sessionId="), "{endpoint}");
    let post = |body: String| {
        let endpoint = endpoint.clone();
        async move { request_at(t.addr, &endpoint, "POST", &[JSON], &body).await.status }
    };
    assert_eq!(post(init_body("2024-11-05", json!({}))).await, 202);
    buf.clear();
    read_until(&mut g.body, &mut buf, |b| b.contains("protocolVersion")).await;
    let init = sse_data(&buf).pop().unwrap();
    assert_eq!(init["result"]["protocolVersion"], "2024-11-05");
    let call =
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}).to_string();
    assert_eq!(post(call).await, 202);
    buf.clear();
    read_until(&mut g.body, &mut buf, |b| b.contains("\"id\":2")).await;
    assert_eq!(sse_data(&buf).pop().unwrap()["result"]["content"][0]["text"], r#"{"a":1}"#);
    let bad = request_at(t.addr, "/messages?sessionId=nope", "POST", &[JSON], "{}").await;
    assert_eq!(bad.status, 404);
}

#[tokio::test]
async fn the_router_mounts_into_an_existing_app_at_any_path() {
    let (server, _) = build(true);
    let mcp = http::router(&server, HttpOptions { path: "/v1/mcp".into(), ..Default::default() });
    let app = axum::Router::new().route("/health", axum::routing::get(|| async { "ok" })).merge(mcp);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    assert_eq!(request_at(addr, "/health", "GET", &[], "").await.text().await, "ok");
    let r = request_at(addr, "/v1/mcp", "POST", &[JSON, ACCEPT], &init_body("2025-11-25", json!({}))).await;
    assert_eq!(r.status, 200);
    assert!(r.header("mcp-session-id").is_some());
    assert_eq!(
        request_at(addr, "/mcp", "POST", &[JSON, ACCEPT], &init_body("2025-11-25", json!({}))).await.status,
        404
    );
}

#[tokio::test]
async fn a_failed_initialize_establishes_no_session() {
    let t = start(true, |_| {}).await;
    let bad = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}).to_string();
    let r = request(t.addr, "POST", &[JSON, ACCEPT], &bad).await;
    assert_eq!(r.status, 200);
    assert!(r.header("mcp-session-id").is_none());
    assert_eq!(r.json().await["error"]["code"], -32602);
}

#[tokio::test]
async fn a_client_that_accepts_only_sse_gets_sse_even_for_an_immediate_answer() {
    let t = start(true, |_| {}).await;
    let sid = session(t.addr, json!({})).await;
    let body =
        json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{}}}).to_string();
    let r = request(t.addr, "POST", &[JSON, ("accept", "text/event-stream"), ("mcp-session-id", &sid)], &body).await;
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    let msgs = r.sse_messages().await;
    assert_eq!(msgs.last().unwrap()["id"], 9);
}
