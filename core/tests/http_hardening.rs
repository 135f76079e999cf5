//! Streamable HTTP against hostile or odd peers (issue 15): raw bytes on a socket where the
//! HTTP client library would not send them (two `Host` headers, none, a half-closed request,
//! a silent client), batch shapes that answer nothing, `params` that are not an object, the
//! session cap and the read timeouts. Each test names the status and the JSON-RPC code, and
//! checks that the server still serves afterwards.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ferrite_core::transport::http::{self, HttpOptions};
use ferrite_core::{CallToolResult, Implementation, RequestContext, Server, Tool};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

mod common;
use common::http::*;

struct TestServer {
    addr: SocketAddr,
    shutdown: CancellationToken,
    finished: Arc<AtomicUsize>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

async fn start(stateful: bool, tweak: impl FnOnce(&mut HttpOptions)) -> TestServer {
    let b = Server::builder(Implementation::new("hard", "1"));
    let s = if stateful { b.stateful() } else { b.stateless() }.build();
    let finished = Arc::new(AtomicUsize::new(0));
    let f = finished.clone();
    s.add_tool(
        Tool::new("slow", json!({"type":"object"})).with_description("answers after 300 ms"),
        move |_a: Value, _ctx: RequestContext| {
            let f = f.clone();
            async move {
                tokio::time::sleep(Duration::from_millis(300)).await;
                f.fetch_add(1, Ordering::SeqCst);
                Ok(CallToolResult::text("slow done"))
            }
        },
    )
    .unwrap();
    s.add_tool_fn(Tool::new("say", json!({"type":"object"})).with_description("answers with its text"), |a| {
        Ok(CallToolResult::text(a["text"].as_str().unwrap_or_default()))
    })
    .unwrap();
    let mut opts = HttpOptions::default();
    tweak(&mut opts);
    let shutdown = opts.shutdown.clone();
    let bound = http::bind(&s, "127.0.0.1:0".parse().unwrap(), opts).await.unwrap();
    let addr = bound.local_addr().unwrap();
    tokio::spawn(bound.run());
    TestServer { addr, shutdown, finished }
}

fn init_body(version: &str) -> String {
    json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":version,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}).to_string()
}

async fn session(addr: SocketAddr, version: &str) -> String {
    let r = request(addr, "POST", &[JSON, ACCEPT], &init_body(version)).await;
    assert_eq!(r.status, 200);
    let sid = r.header("mcp-session-id").expect("a session id").to_owned();
    let initialized = json!({"jsonrpc":"2.0","method":"notifications/initialized"}).to_string();
    let r = request(
        addr,
        "POST",
        &[JSON, ACCEPT, ("mcp-session-id", &sid), ("mcp-protocol-version", version)],
        &initialized,
    )
    .await;
    assert_eq!(r.status, 202);
    sid
}

async fn post_in(addr: SocketAddr, sid: &str, version: &str, body: &str) -> (u16, String) {
    let r =
        request(addr, "POST", &[JSON, ACCEPT, ("mcp-session-id", sid), ("mcp-protocol-version", version)], body).await;
    (r.status, r.text().await)
}

async fn still_serving(addr: SocketAddr, sid: &str, version: &str) {
    let (status, body) = post_in(addr, sid, version, r#"{"jsonrpc":"2.0","id":99,"method":"ping"}"#).await;
    assert_eq!((status, serde_json::from_str::<Value>(&body).unwrap()["result"].clone()), (200, json!({})));
}

/// Send raw bytes, optionally half-close, and read the whole reply (the server closes).
async fn raw(addr: SocketAddr, bytes: &[u8], half_close: bool) -> String {
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(bytes).await.unwrap();
    if half_close {
        tcp.shutdown().await.unwrap();
    }
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), tcp.read_to_end(&mut out))
        .await
        .expect("the server answers and closes within 10 s")
        .unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

fn raw_post(host_lines: &str, body: &str) -> Vec<u8> {
    format!(
        "POST /mcp HTTP/1.1\r\n{host_lines}content-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn status_of(reply: &str) -> u16 {
    reply.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("no status line in {reply:?}"))
}

fn json_body_of(reply: &str) -> Value {
    let body = reply.split("\r\n\r\n").nth(1).unwrap_or("");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not a JSON body ({e}): {reply:?}"))
}

#[tokio::test]
async fn two_host_headers_or_none_are_400_and_one_foreign_host_is_403() {
    let t = start(true, |_| {}).await;
    let body = init_body("2025-11-25");
    let two = raw(t.addr, &raw_post("host: localhost\r\nhost: evil.example\r\n", &body), false).await;
    assert_eq!(status_of(&two), 400, "{two}");
    assert_eq!(json_body_of(&two)["error"]["code"], -32600);
    assert!(json_body_of(&two)["error"]["message"].as_str().unwrap().contains("more than one Host"));
    let none = raw(t.addr, &raw_post("", &body), false).await;
    // hyper answers a missing Host itself only for HTTP/1.1 absolute-form; ours is origin-form.
    assert_eq!(status_of(&none), 400, "{none}");
    assert!(json_body_of(&none)["error"]["message"].as_str().unwrap().contains("missing Host"));
    let foreign = raw(t.addr, &raw_post("host: evil.example\r\n", &body), false).await;
    assert_eq!(status_of(&foreign), 403, "{foreign}");
    let good = raw(t.addr, &raw_post("host: localhost\r\n", &body), false).await;
    assert_eq!(status_of(&good), 200, "{good}");
}

#[tokio::test]
async fn a_half_closed_request_still_gets_its_answer() {
    let t = start(false, |_| {}).await;
    let body =
        json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{}}}).to_string();
    let req = format!(
        "POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\naccept: application/json\r\nmcp-protocol-version: 2025-11-25\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    // Twenty times (the report that found it lost about 7 in 10): each one answered.
    for i in 0..20 {
        let reply = raw(t.addr, req.as_bytes(), true).await;
        assert_eq!(status_of(&reply), 200, "try {i}: {reply}");
        let v = json_body_of(&reply);
        assert_eq!((v["id"].clone(), v["result"]["content"][0]["text"].clone()), (json!(7), json!("slow done")));
    }
}

#[tokio::test]
async fn a_json_request_whose_client_left_runs_to_its_end_and_the_server_keeps_serving() {
    // Disconnection is not cancellation (the spec): the handler finishes, its answer has
    // nowhere to go, and nothing else is disturbed.
    let t = start(true, |o| o.response_mode = http::ResponseMode::Json).await;
    let sid = session(t.addr, "2025-11-25").await;
    let body =
        json!({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"slow","arguments":{}}}).to_string();
    let req = format!(
        "POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\naccept: application/json\r\nmcp-session-id: {sid}\r\nmcp-protocol-version: 2025-11-25\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut tcp = TcpStream::connect(t.addr).await.unwrap();
    tcp.write_all(req.as_bytes()).await.unwrap();
    drop(tcp);
    for _ in 0..100 {
        if t.finished.load(Ordering::SeqCst) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(t.finished.load(Ordering::SeqCst), 1, "the handler ran to its end");
    still_serving(t.addr, &sid, "2025-11-25").await;
}

#[tokio::test]
async fn batches_that_answer_nothing_are_refused_like_stdio() {
    let t = start(true, |_| {}).await;
    let note = r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#;
    let ping = r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#;
    // (revision, body, whether the answer is one error object or an array of them)
    let cases = [
        ("2025-06-18", "[]".to_owned(), false),
        ("2025-06-18", format!("[[{ping}]]"), false),
        ("2025-06-18", format!("[{note},{note}]"), false),
        ("2025-03-26", "[]".to_owned(), false),
        // 2025-03-26 has batches: the inner array is an invalid element, answered in an array.
        ("2025-03-26", format!("[[{ping}]]"), true),
    ];
    for (version, body, array) in cases {
        let sid = session(t.addr, version).await;
        let (status, text) = post_in(t.addr, &sid, version, &body).await;
        let v: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{version} {body}: not JSON ({e}): {text:?}"));
        let error = if array { &v[0]["error"] } else { &v["error"] };
        assert_eq!((status, error["code"].clone()), (400, json!(-32600)), "{version} {body}: {v}");
        still_serving(t.addr, &sid, version).await;
    }
}

#[tokio::test]
async fn a_2025_03_26_batch_of_notifications_is_accepted() {
    let t = start(true, |_| {}).await;
    let sid = session(t.addr, "2025-03-26").await;
    let note = r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#;
    let r = request(
        t.addr,
        "POST",
        &[JSON, ACCEPT, ("mcp-session-id", &sid), ("mcp-protocol-version", "2025-03-26")],
        &format!("[{note},{note}]"),
    )
    .await;
    assert_eq!(r.status, 202);
}

#[tokio::test]
async fn params_null_is_32600_and_an_array_is_32602() {
    let t = start(true, |_| {}).await;
    let sid = session(t.addr, "2025-11-25").await;
    let (status, text) =
        post_in(t.addr, &sid, "2025-11-25", r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":null}"#).await;
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!((status, v["id"].clone(), v["error"]["code"].clone()), (400, json!(4), json!(-32600)));
    let (status, text) =
        post_in(t.addr, &sid, "2025-11-25", r#"{"jsonrpc":"2.0","id":5,"method":"ping","params":[]}"#).await;
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!((status, v["id"].clone(), v["error"]["code"].clone()), (400, json!(5), json!(-32602)));
    still_serving(t.addr, &sid, "2025-11-25").await;
}

#[tokio::test]
async fn initialize_without_capabilities_is_32602() {
    let t = start(true, |_| {}).await;
    let body = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":{"name":"t","version":"1"}}}).to_string();
    let r = request(t.addr, "POST", &[JSON, ACCEPT], &body).await;
    let status = r.status;
    let v = r.json().await;
    assert_eq!((status, v["error"]["code"].clone()), (200, json!(-32602)), "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("capabilities"));
}

#[tokio::test]
async fn the_session_cap_evicts_the_longest_idle_session_and_503s_when_all_are_busy() {
    let t = start(true, |o| o.max_sessions = Some(2)).await;
    let a = session(t.addr, "2025-11-25").await;
    let b = session(t.addr, "2025-11-25").await;
    still_serving(t.addr, &b, "2025-11-25").await; // b is now the more recently used
    let c = session(t.addr, "2025-11-25").await;
    // a was the longest idle: evicted (404, initialize again); b and c live.
    let (status, _) = post_in(t.addr, &a, "2025-11-25", r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#).await;
    assert_eq!(status, 404);
    still_serving(t.addr, &b, "2025-11-25").await;
    still_serving(t.addr, &c, "2025-11-25").await;
    // Both busy (a slow call in each): a third initialize gets 503 with Retry-After.
    let calls: Vec<_> = [b.clone(), c.clone()]
        .into_iter()
        .map(|sid| {
            let addr = t.addr;
            tokio::spawn(async move {
                let body =
                    json!({"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"slow","arguments":{}}})
                        .to_string();
                post_in(addr, &sid, "2025-11-25", &body).await
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let r = request(t.addr, "POST", &[JSON, ACCEPT], &init_body("2025-11-25")).await;
    assert_eq!((r.status, r.header("retry-after").map(str::to_owned)), (503, Some("1".to_owned())));
    assert_eq!(r.json().await["error"]["code"], -32603);
    for c in calls {
        assert_eq!(c.await.unwrap().0, 200);
    }
    // Idle again: initialize works (evicting one of them).
    assert_eq!(request(t.addr, "POST", &[JSON, ACCEPT], &init_body("2025-11-25")).await.status, 200);
}

#[tokio::test]
async fn a_silent_connection_is_closed_after_the_header_timeout() {
    let t = start(true, |o| o.header_read_timeout = Some(Duration::from_millis(300))).await;
    let mut tcp = TcpStream::connect(t.addr).await.unwrap();
    tcp.write_all(b"POST /mcp HTTP/1.1\r\nhost: localhost\r\n").await.unwrap();
    let mut out = Vec::new();
    // The server closes (hyper answers 408 or just closes); well before the 10 s guard.
    tokio::time::timeout(Duration::from_secs(10), tcp.read_to_end(&mut out)).await.expect("closed").unwrap();
    let text = String::from_utf8_lossy(&out);
    assert!(text.is_empty() || text.starts_with("HTTP/1.1 408"), "{text}");
}

#[tokio::test]
async fn a_body_that_stops_arriving_is_408() {
    let t = start(true, |o| o.body_read_timeout = Some(Duration::from_millis(300))).await;
    let mut tcp = TcpStream::connect(t.addr).await.unwrap();
    tcp.write_all(
        b"POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: 100\r\n\r\n{\"jsonrpc\"",
    )
    .await
    .unwrap();
    let mut buf = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(10), tcp.read(&mut buf)).await.expect("an answer").unwrap();
    let text = String::from_utf8_lossy(&buf[..n]);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
}

/// A POST refused from its head (415 here) is answered after its body has been read and
/// dropped, so the client's next request on the connection is served; a body that stops
/// arriving is waited for only up to the body timeout, and its answer then says
/// `Connection: close`.
#[tokio::test]
async fn a_refusal_given_before_the_body_arrived_keeps_the_connection_or_says_it_closes() {
    let t = start(true, |o| o.body_read_timeout = Some(Duration::from_millis(300))).await;
    let head = |len: usize| {
        format!("POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-type: text/plain\r\naccept: application/json, text/event-stream\r\ncontent-length: {len}\r\n\r\n")
    };
    let body = init_body("2025-11-25");
    let mut tcp = TcpStream::connect(t.addr).await.unwrap();
    send_body_late(&mut tcp, &head(body.len()), &body, Duration::from_millis(150)).await;
    let (status, headers, _) = read_response(&mut tcp).await.expect("the 415");
    assert_eq!(status, 415);
    assert_eq!(headers.get("connection"), None);
    let good = String::from_utf8(raw_post("host: localhost\r\n", &body)).unwrap();
    send_body_late(&mut tcp, &good, "", Duration::ZERO).await;
    let (status, headers, _) = read_response(&mut tcp).await.expect("the initialize on the same connection");
    assert_eq!(status, 200);
    assert!(headers.contains_key("mcp-session-id"), "{headers:?}");

    let mut tcp = TcpStream::connect(t.addr).await.unwrap();
    send_body_late(&mut tcp, &head(100), "{\"jsonrpc\"", Duration::ZERO).await;
    let (status, headers, _) = read_response(&mut tcp).await.expect("the 415 after the body timeout");
    assert_eq!(status, 415);
    assert_eq!(headers.get("connection").map(String::as_str), Some("close"));
    assert!(read_response(&mut tcp).await.is_none());
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_after_the_header_timeout() {
    let t = start(false, |o| o.header_read_timeout = Some(Duration::from_millis(300))).await;
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let req = format!(
        "POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\naccept: application/json\r\nmcp-protocol-version: 2025-11-25\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut tcp = TcpStream::connect(t.addr).await.unwrap();
    tcp.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    // The answer, then (keep-alive, nothing more sent) the close.
    tokio::time::timeout(Duration::from_secs(10), tcp.read_to_end(&mut out)).await.expect("closed while idle").unwrap();
    let text = String::from_utf8_lossy(&out);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
}

#[tokio::test]
async fn text_that_looks_like_sse_fields_cannot_inject_events() {
    let t = start(true, |o| o.response_mode = http::ResponseMode::Sse).await;
    let sid = session(t.addr, "2025-11-25").await;
    let evil = "a\r\n\r\nevent: evil\r\nid: 999\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}\n\nretry: 1";
    let body = json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"say","arguments":{"text":evil}}})
        .to_string();
    let (status, text) = post_in(t.addr, &sid, "2025-11-25", &body).await;
    assert_eq!(status, 200);
    // Every line of the stream is a field we wrote: one `data:` line per event, JSON inside.
    for line in text.lines() {
        let known = line.is_empty()
            || line.starts_with(':')
            || ["id: ", "data: ", "retry: ", "event: message"].iter().any(|p| line.starts_with(p));
        assert!(known, "a foreign SSE line {line:?} in {text:?}");
        assert!(!line.starts_with("event: evil") && line != "id: 999", "{text:?}");
    }
    let messages = sse_data(&text);
    assert_eq!(messages.len(), 1, "{text:?}");
    assert_eq!(messages[0]["result"]["content"][0]["text"], evil);
}

#[tokio::test]
async fn a_body_nested_past_max_json_depth_is_400_naming_the_limit_in_both_eras() {
    let s = Server::builder(Implementation::new("deep", "1")).stateless().build();
    s.add_tool_fn(Tool::new("say", json!({"type":"object"})).with_description("answers with its text"), |a| {
        Ok(CallToolResult::text(a["text"].as_str().unwrap_or_default()))
    })
    .unwrap();
    s.set_limits_json(json!({"maxJsonDepth": 8})).unwrap();
    let opts = HttpOptions::default();
    let shutdown = opts.shutdown.clone();
    let bound = http::bind(&s, "127.0.0.1:0".parse().unwrap(), opts).await.unwrap();
    let addr = bound.local_addr().unwrap();
    tokio::spawn(bound.run());
    // The envelope, params and arguments are three levels: 5 arrays more is 8, 6 is 9.
    let call = |n: usize| {
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"say","arguments":{{"text":"ok","x":{}1{}}}}}}}"#,
            "[".repeat(n),
            "]".repeat(n)
        )
    };
    for version in ["2025-11-25", "2026-07-28"] {
        let r = request(addr, "POST", &[JSON, ACCEPT, ("mcp-protocol-version", version)], &call(6)).await;
        assert_eq!(r.status, 400, "{version}");
        let v: Value = serde_json::from_str(&r.text().await).unwrap();
        assert_eq!(
            (v["id"].clone(), v["error"]["code"].clone(), v["error"]["data"].clone()),
            (Value::Null, json!(-32700), json!({"limit": "max_json_depth", "value": 8})),
            "{version}"
        );
    }
    let r = request(addr, "POST", &[JSON, ACCEPT, ("mcp-protocol-version", "2025-11-25")], &call(5)).await;
    assert_eq!(r.status, 200);
    let v: Value = serde_json::from_str(&r.text().await).unwrap();
    assert_eq!(v["result"]["content"][0]["text"], "ok", "{v}");
    shutdown.cancel();
}
