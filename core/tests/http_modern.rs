//! The 2026-07-28 revision over Streamable HTTP, on real sockets: each ladder and handler
//! error with its HTTP status (and the request id), no session on a stateful server, GET and
//! DELETE refused, batches and posted responses refused, a listen stream over SSE with its
//! acknowledgement, tagged notifications and keep-alive comments, `Mcp-Param-*` checks, and
//! the graceful close of listen streams at shutdown.

use std::net::SocketAddr;
use std::time::Duration;

use ferrite_core::transport::http::{self, HttpOptions};
use ferrite_core::{CallToolResult, ClientCapabilities, Implementation, RequestContext, Server, Tool};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

mod common;
use common::http::*;
use common::{envelope, V2026};

struct Running {
    addr: SocketAddr,
    server: Server,
    shutdown: CancellationToken,
    sessions: Box<dyn Fn() -> usize + Send + Sync>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

fn build(stateful: bool) -> Server {
    let b = Server::builder(Implementation::new("http-modern", "1"));
    let s = if stateful { b.stateful() } else { b.stateless() }.build();
    s.enable_logging();
    s.enable_tools_list_changed();
    s.add_tool_fn(Tool::new("echo", json!({"type":"object"})).with_description("echo"), |a| {
        Ok(CallToolResult::text(a.to_string()))
    })
    .unwrap();
    s.add_tool(
        Tool::new("progress", json!({"type":"object"})).with_description("reports progress"),
        |_a: Value, ctx: RequestContext| async move {
            ctx.report_progress(1.0, Some(2.0), None);
            tokio::time::sleep(Duration::from_millis(20)).await;
            ctx.report_progress(2.0, Some(2.0), None);
            Ok(CallToolResult::text("done"))
        },
    )
    .unwrap();
    s.add_tool_fn(
        Tool::new(
            "geo",
            json!({"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}),
        )
        .with_description("mirrored header"),
        |a| Ok(CallToolResult::text(a["region"].as_str().unwrap_or("").to_owned())),
    )
    .unwrap();
    s.add_tool_fn(Tool::new("needs_sampling", json!({"type":"object"})).with_description("d"), |_| {
        Ok(CallToolResult::text(""))
    })
    .unwrap();
    let sampling: ClientCapabilities = serde_json::from_value(json!({"sampling": {}})).unwrap();
    s.set_tool_required_client_capabilities("needs_sampling", sampling).unwrap();
    s
}

async fn start(stateful: bool, tweak: impl FnOnce(&mut HttpOptions)) -> Running {
    let server = build(stateful);
    let mut opts = HttpOptions::default();
    tweak(&mut opts);
    let shutdown = opts.shutdown.clone();
    let bound = http::bind(&server, "127.0.0.1:0".parse().unwrap(), opts).await.unwrap();
    let addr = bound.local_addr().unwrap();
    let sessions = bound.sessions();
    tokio::spawn(bound.run());
    Running { addr, server, shutdown, sessions: Box::new(move || sessions.session_ids().len()) }
}

/// The standard 2026-07-28 headers for `method` (and `Mcp-Name` when given).
fn headers<'a>(method: &'a str, name: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut h = vec![JSON, ACCEPT, ("mcp-protocol-version", V2026), ("mcp-method", method)];
    if let Some(n) = name {
        h.push(("mcp-name", n));
    }
    h
}

fn body(id: i64, method: &str, mut params: Value, caps: Value) -> String {
    params["_meta"] = envelope(caps);
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// POST a 2026-07-28 request with correct headers; (status, parsed JSON body).
async fn modern(addr: SocketAddr, id: i64, method: &str, params: Value, name: Option<&str>) -> (u16, Value) {
    let r = request(addr, "POST", &headers(method, name), &body(id, method, params, json!({}))).await;
    assert_eq!(r.header("content-type"), Some("application/json"), "errors and silent results are JSON");
    let status = r.status;
    (status, r.json().await)
}

#[tokio::test]
async fn each_error_has_its_status_and_the_request_id() {
    let t = start(false, |_| {}).await;
    let a = t.addr;
    // Missing envelope keys: 400 / -32602.
    let b = json!({"jsonrpc":"2.0","id":101,"method":"server/discover","params":{}}).to_string();
    let r = request(a, "POST", &headers("server/discover", None), &b).await;
    assert_eq!(r.status, 400);
    let v = r.json().await;
    assert_eq!((v["id"].clone(), v["error"]["code"].clone()), (json!(101), json!(-32602)));
    // The version header disagrees with the envelope: 400 / -32020, before the version rung.
    let b = json!({"jsonrpc":"2.0","id":302,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}}).to_string();
    let r = request(a, "POST", &headers("server/discover", None), &b).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json().await["error"]["code"], -32020);
    // Unsupported version, header and envelope agreeing: 400 / -32022.
    let r = request(
        a,
        "POST",
        &[JSON, ACCEPT, ("mcp-protocol-version", "v999.0.0"), ("mcp-method", "server/discover")],
        &b,
    )
    .await;
    assert_eq!(r.status, 400);
    let v = r.json().await;
    assert_eq!(v["error"]["code"], -32022);
    assert_eq!(v["error"]["data"]["requested"], "v999.0.0");
    // Unknown and removed methods: 404 / -32601.
    for m in ["unknown/method", "ping", "initialize"] {
        let (status, v) = modern(a, 601, m, json!({}), None).await;
        assert_eq!((status, v["error"]["code"].clone(), v["id"].clone()), (404, json!(-32601), json!(601)), "{m}");
    }
    // A client capability the request did not declare: 400 / -32021.
    let (status, v) = modern(a, 401, "tools/call", json!({"name": "needs_sampling"}), Some("needs_sampling")).await;
    assert_eq!(status, 400);
    assert_eq!(v["error"]["data"], json!({"requiredCapabilities": {"sampling": {}}}));
    // An unknown tool (a handler-side -32602) is 400 too.
    let (status, v) = modern(a, 7, "tools/call", json!({"name": "nope"}), Some("nope")).await;
    assert_eq!((status, v["error"]["code"].clone()), (400, json!(-32602)));
    // And the server still serves.
    let (status, v) = modern(a, 8, "tools/call", json!({"name": "echo", "arguments": {"x": 1}}), Some("echo")).await;
    assert_eq!(status, 200);
    assert_eq!(v["result"]["resultType"], "complete");
}

#[tokio::test]
async fn mirrored_headers_must_match_the_body() {
    let t = start(false, |_| {}).await;
    let call = body(1, "tools/call", json!({"name": "geo", "arguments": {"region": "eu"}}), json!({}));
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut h = vec![JSON, ACCEPT, ("mcp-protocol-version", V2026)];
        h.extend_from_slice(extra);
        h
    };
    for (hs, status) in [
        (with(&[("mcp-method", "tools/call"), ("mcp-name", "geo"), ("mcp-param-region", "eu")]), 200),
        (with(&[("mcp-method", "tools/call"), ("mcp-name", "  geo  "), ("mcp-param-region", "=?base64?ZXU=?=")]), 200),
        (with(&[("mcp-method", "tools/list"), ("mcp-name", "geo"), ("mcp-param-region", "eu")]), 400),
        (with(&[("mcp-method", "tools/call"), ("mcp-param-region", "eu")]), 400),
        (with(&[("mcp-method", "tools/call"), ("mcp-name", "geo")]), 400),
        (with(&[("mcp-method", "tools/call"), ("mcp-name", "geo"), ("mcp-param-region", "us")]), 400),
        (with(&[("mcp-method", "TOOLS/CALL"), ("mcp-name", "geo"), ("mcp-param-region", "eu")]), 400),
        (with(&[("mcp-method", "tools/call"), ("mcp-name", "geo"), ("mcp-param-region", "=?base64?ZXU?=")]), 400),
    ] {
        let r = request(t.addr, "POST", &hs, &call).await;
        assert_eq!(r.status, status, "{hs:?}");
        let v = r.json().await;
        if status == 400 {
            assert_eq!(v["error"]["code"], -32020, "{hs:?}: {v}");
        } else {
            assert_eq!(v["result"]["content"][0]["text"], "eu");
        }
    }
}

#[tokio::test]
async fn a_stateful_server_mints_no_session_for_the_modern_path() {
    let t = start(true, |_| {}).await;
    let r = request(t.addr, "POST", &headers("tools/list", None), &body(1, "tools/list", json!({}), json!({}))).await;
    assert_eq!(r.status, 200);
    assert!(r.header("mcp-session-id").is_none());
    assert_eq!(r.json().await["result"]["resultType"], "complete");
    // A session id the client sends along is ignored, known or not.
    let mut h = headers("tools/list", None);
    h.push(("mcp-session-id", "deadbeef"));
    let r = request(t.addr, "POST", &h, &body(2, "tools/list", json!({}), json!({}))).await;
    assert_eq!(r.status, 200);
    assert_eq!((t.sessions)(), 0);
}

#[tokio::test]
async fn get_and_delete_naming_the_modern_revision_are_405() {
    let t = start(true, |_| {}).await;
    for m in ["GET", "DELETE"] {
        let r = request(t.addr, m, &[("accept", "text/event-stream"), ("mcp-protocol-version", V2026)], "").await;
        assert_eq!(r.status, 405, "{m}");
        assert_eq!(r.header("allow"), Some("POST"));
    }
}

#[tokio::test]
async fn batches_notifications_and_responses_on_the_modern_path() {
    let t = start(false, |_| {}).await;
    let item = json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta": envelope(json!({}))}});
    let r = request(t.addr, "POST", &headers("tools/list", None), &json!([item]).to_string()).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json().await["error"]["code"], -32600);
    let n = json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"_meta": envelope(json!({}))}});
    let r = request(t.addr, "POST", &headers("notifications/cancelled", None), &n.to_string()).await;
    assert_eq!(r.status, 202);
    let resp = json!({"jsonrpc":"2.0","id":"ferrite-1","result":{}});
    let r = request(t.addr, "POST", &[JSON, ACCEPT, ("mcp-protocol-version", V2026)], &resp.to_string()).await;
    assert_eq!(r.status, 400);
    let v = r.json().await;
    assert_eq!((v["error"]["code"].clone(), v["id"].clone()), (json!(-32600), json!("ferrite-1")));
}

#[tokio::test]
async fn progress_rides_the_request_stream_before_the_result() {
    let t = start(false, |_| {}).await;
    let mut params = json!({"name": "progress"});
    params["_meta"] = envelope(json!({}));
    params["_meta"]["progressToken"] = json!("p1");
    let b = json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":params}).to_string();
    let r = request(t.addr, "POST", &headers("tools/call", Some("progress")), &b).await;
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    assert_eq!(r.header("x-accel-buffering"), Some("no"));
    let msgs = r.sse_messages().await;
    let kinds: Vec<Value> = msgs.iter().map(|m| m.get("method").cloned().unwrap_or(json!("result"))).collect();
    assert_eq!(kinds, vec![json!("notifications/progress"), json!("notifications/progress"), json!("result")]);
    assert_eq!(msgs[2]["result"]["resultType"], "complete");
}

#[tokio::test]
async fn a_listen_stream_over_sse() {
    let t = start(false, |o| o.sse_keep_alive = Some(Duration::from_millis(50))).await;
    let b = body(77, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}), json!({}));
    let mut r = request(t.addr, "POST", &headers("subscriptions/listen", None), &b).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    let ack = next_message(&mut r.body, "notifications/subscriptions/acknowledged").await;
    assert_eq!(ack["params"]["notifications"], json!({"toolsListChanged": true}));
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 77);
    // Idle: a keep-alive comment arrives.
    let mut buf = String::new();
    read_until(&mut r.body, &mut buf, |b| b.contains(": keep-alive")).await;
    assert_eq!(t.server.notify_tools_list_changed(), 1);
    let n = next_message(&mut r.body, "notifications/tools/list_changed").await;
    assert_eq!(n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 77);
    // The client goes away: the stream ends on the server.
    drop(r);
    for _ in 0..200 {
        if t.server.listen_stream_count() == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("the listen stream outlived its client");
}

#[tokio::test]
async fn a_listen_needs_an_event_stream() {
    let t = start(false, |_| {}).await;
    let b = body(1, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}), json!({}));
    let r = request(
        t.addr,
        "POST",
        &[
            JSON,
            ("accept", "application/json"),
            ("mcp-protocol-version", V2026),
            ("mcp-method", "subscriptions/listen"),
        ],
        &b,
    )
    .await;
    assert_eq!(r.status, 406);
    assert_eq!(r.json().await["id"], 1);
}

#[tokio::test]
async fn shutdown_ends_listen_streams_with_the_graceful_result() {
    let t = start(true, |_| {}).await;
    let b = body(9, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}), json!({}));
    let mut r = request(t.addr, "POST", &headers("subscriptions/listen", None), &b).await;
    next_message(&mut r.body, "notifications/subscriptions/acknowledged").await;
    t.shutdown.cancel();
    let mut buf = String::new();
    read_until(&mut r.body, &mut buf, |b| sse_data(b).iter().any(|m| m.get("result").is_some())).await;
    let result = sse_data(&buf).into_iter().find(|m| m.get("result").is_some()).unwrap();
    assert_eq!(result["id"], 9);
    assert_eq!(result["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 9);
}
