//! The endpoint mounted in a host's app: an axum app with its own route and an auth-like
//! middleware whose value a tool reads, and the transport-neutral `HttpService` driven by
//! hand (any path, a streamed body, a client that goes away mid-stream, back-pressure both
//! ways: a body pushed faster than it is read waits, a response body not pulled holds at most
//! `stream_buffer` events).

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use axum::body::Body;
use axum::middleware::{self, Next};
use axum::routing::get;
use axum::Router;
use bytes::Bytes;
use common::http::*;
use ferrite_core::server::{HostValues, RemoteAddr};
use ferrite_core::transport::http::{router, HostHead, HttpOptions, HttpService};
use ferrite_core::{CallToolResult, Implementation, RequestContext, Server, Tool};
use http_body_util::BodyExt as _;
use serde_json::{json, Map, Value};
use tokio::sync::mpsc;

/// What the host's auth middleware decided, as a request extension.
#[derive(Clone)]
struct Principal(&'static str);

fn server(cancelled: mpsc::UnboundedSender<()>) -> Server {
    let s = Server::builder(Implementation::new("mounted", "1")).stateless().build();
    s.add_tool(
        Tool::new("whoami", json!({"type":"object"})).with_description("d"),
        |_a: Value, ctx: RequestContext| async move {
            let info = ctx.request_info();
            Ok(CallToolResult::text(
                json!({
                    "tenant": ctx.header("x-tenant"),
                    "user": ctx.host_value("user"),
                    "principal": ctx.extension::<Principal>().map(|p| p.0),
                    "loopback": info.remote_addr().map(|a| a.ip().is_loopback()),
                    "method": info.method(),
                    "path": info.path(),
                })
                .to_string(),
            ))
        },
    )
    .unwrap();
    s.add_tool(
        Tool::new("slow", json!({"type":"object"})).with_description("d"),
        move |_a: Value, ctx: RequestContext| {
            let cancelled = cancelled.clone();
            async move {
                ctx.report_progress(1.0, None, Some("started"));
                ctx.cancelled().await;
                let _ = cancelled.send(());
                Ok(CallToolResult::text("cancelled"))
            }
        },
    )
    .unwrap();
    s
}

async fn auth(mut req: axum::extract::Request, next: Next) -> axum::response::Response {
    if req.headers().get("authorization").and_then(|v| v.to_str().ok()) == Some("Bearer ok") {
        req.extensions_mut().insert(Principal("alice"));
        req.extensions_mut().insert(HostValues(Map::from_iter([("user".to_owned(), json!("ada"))])));
    }
    next.run(req).await
}

fn call(name: &str) -> String {
    json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":name,"arguments":{}}}).to_string()
}

fn tool_text(v: &Value) -> Value {
    serde_json::from_str(v["result"]["content"][0]["text"].as_str().expect("a text result")).unwrap()
}

#[tokio::test]
async fn mounted_in_an_axum_app_beside_its_routes_with_its_middleware() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let app = Router::new()
        .route("/health", get(|| async { "ok" }))
        .nest("/api", router(&server(tx), HttpOptions::default()))
        .layer(middleware::from_fn(auth));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>()).await.unwrap();
    });

    let health = request_at(addr, "/health", "GET", &[], "").await;
    assert_eq!((health.status, health.text().await.as_str()), (200, "ok"));

    let headers = [JSON, ACCEPT, ("authorization", "Bearer ok"), ("x-tenant", "acme")];
    let r = request_at(addr, "/api/mcp", "POST", &headers, &call("whoami")).await;
    assert_eq!(r.status, 200);
    let seen = tool_text(&r.json().await);
    // The app serves with axum's ConnectInfo, which the endpoint reads as the remote address;
    // the path is what the endpoint sees (axum's `nest` strips its prefix).
    assert_eq!(
        seen,
        json!({"tenant":"acme","user":"ada","principal":"alice","loopback":true,"method":"POST","path":"/mcp"})
    );

    let r = request_at(addr, "/api/mcp", "POST", &[JSON, ACCEPT], &call("whoami")).await;
    let seen = tool_text(&r.json().await);
    assert_eq!(
        (seen["principal"].clone(), seen["user"].clone(), seen["tenant"].clone()),
        (Value::Null, Value::Null, Value::Null)
    );
}

#[tokio::test]
async fn a_mounted_endpoint_checks_host_and_origin_as_the_listener_does() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let app = Router::new().nest("/api", router(&server(tx), HttpOptions::default()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>()).await.unwrap();
    });
    let foreign_host =
        request_at(addr, "/api/mcp", "POST", &[JSON, ACCEPT, ("host", "evil.example")], &call("whoami")).await;
    assert_eq!(foreign_host.status, 403);
    let foreign_origin =
        request_at(addr, "/api/mcp", "POST", &[JSON, ACCEPT, ("origin", "http://evil.example")], &call("whoami")).await;
    assert_eq!(foreign_origin.status, 403);
    let local_origin =
        request_at(addr, "/api/mcp", "POST", &[JSON, ACCEPT, ("origin", "http://localhost:3000")], &call("whoami"))
            .await;
    assert_eq!(local_origin.status, 200);
}

#[tokio::test]
async fn ferrites_own_listener_gives_the_remote_address() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let bound =
        ferrite_core::transport::http::bind(&server(tx), "127.0.0.1:0".parse().unwrap(), HttpOptions::default())
            .await
            .unwrap();
    let addr = bound.local_addr().unwrap();
    tokio::spawn(bound.run());
    let r = request(addr, "POST", &[JSON, ACCEPT], &call("whoami")).await;
    assert_eq!(tool_text(&r.json().await)["loopback"], true);
}

fn post(path: &str, body: Body) -> http::Request<Body> {
    http::Request::builder()
        .method("POST")
        .uri(path)
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("x-tenant", "t1")
        .body(body)
        .unwrap()
}

#[tokio::test]
async fn the_service_serves_any_path_with_a_streamed_body_and_host_values() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let service = HttpService::new(&server(tx), HttpOptions::default());
    let text = call("whoami");
    let (a, b) = text.split_at(10);
    let chunks = vec![Ok::<_, std::io::Error>(Bytes::from(a.to_owned())), Ok(Bytes::from(b.to_owned()))];
    let mut req = post("/somewhere/else", Body::from_stream(futures::stream::iter(chunks)));
    req.extensions_mut().insert(RemoteAddr("192.0.2.7:4000".parse().unwrap()));
    req.extensions_mut().insert(HostValues(Map::from_iter([("user".to_owned(), json!("bob"))])));
    let resp = service.handle(req).await;
    assert_eq!(resp.status(), 200);
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    let seen = tool_text(&serde_json::from_slice(&body).unwrap());
    assert_eq!(seen["tenant"], "t1");
    assert_eq!(seen["user"], "bob");
    assert_eq!(seen["loopback"], false);
    assert_eq!(seen["path"], "/somewhere/else");
}

#[tokio::test]
async fn a_client_that_goes_away_mid_stream_cancels_the_handler() {
    let (tx, mut cancelled) = mpsc::unbounded_channel();
    let service = HttpService::new(&server(tx), HttpOptions::default());
    let slow = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"progressToken":"p"}}});
    let resp = service.handle(post("/mcp", Body::from(slow.to_string()))).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "text/event-stream", "the progress made it a stream");
    let mut body = resp.into_body();
    // Read the progress, then go away.
    let first = tokio::time::timeout(Duration::from_secs(10), body.frame()).await.unwrap().unwrap().unwrap();
    assert!(String::from_utf8_lossy(first.data_ref().unwrap()).contains("notifications/progress"));
    drop(body);
    let seen = tokio::time::timeout(Duration::from_secs(10), cancelled.recv()).await;
    assert_eq!(seen.expect("the handler saw the cancellation"), Some(()));
}

#[tokio::test]
async fn closing_the_service_ends_its_sessions() {
    let s = Server::builder(Implementation::new("mounted", "1")).build();
    let service = HttpService::new(&s, HttpOptions::default());
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}});
    let resp = service.handle(post("/mcp", Body::from(init.to_string()))).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(service.session_ids().len(), 1);
    service.close();
    assert!(service.session_ids().is_empty());
}

fn host_post(body_len: usize) -> HostHead {
    HostHead {
        method: "POST".into(),
        target: "/mcp".into(),
        headers: vec![
            ("host".into(), b"localhost".to_vec()),
            ("content-type".into(), b"application/json".to_vec()),
            ("accept".into(), b"application/json, text/event-stream".to_vec()),
            ("content-length".into(), body_len.to_string().into_bytes()),
        ],
        ..HostHead::default()
    }
}

#[tokio::test]
async fn a_host_pushing_a_body_faster_than_the_service_reads_it_waits() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let service = HttpService::new(&server(tx), HttpOptions::default());
    let text = call("whoami");
    let parts: Vec<String> = text.as_bytes().chunks(8).map(|c| String::from_utf8_lossy(c).into_owned()).collect();
    assert!(parts.len() > 5);
    let (mut writer, response) = service.host_request(host_post(text.len()));
    // Nobody reads yet: four chunks wait between host and service, the fifth write waits.
    for part in &parts[..4] {
        tokio::time::timeout(Duration::from_millis(500), writer.write(part.clone())).await.unwrap().unwrap();
    }
    let mut fifth = Box::pin(writer.write(parts[4].clone()));
    let blocked = tokio::time::timeout(Duration::from_millis(200), &mut fifth).await;
    assert!(blocked.is_err(), "the fifth write waits while the service has not read the first four");
    // The service starts reading: the fifth write completes, the rest goes through, and the
    // answer is whole.
    let answer = tokio::spawn(response);
    tokio::time::timeout(Duration::from_secs(5), fifth).await.expect("the fifth write completes").unwrap();
    for part in &parts[5..] {
        tokio::time::timeout(Duration::from_secs(5), writer.write(part.clone())).await.unwrap().unwrap();
    }
    writer.finish();
    let resp = tokio::time::timeout(Duration::from_secs(5), answer).await.unwrap().unwrap();
    let status = resp.status;
    let raw = resp.body.collect().await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&raw));
    let body: Value = serde_json::from_slice(&raw).unwrap();
    assert_eq!(tool_text(&body)["path"], "/mcp");
}

#[tokio::test]
async fn a_host_that_does_not_pull_an_event_stream_holds_at_most_stream_buffer_events() {
    let s = Server::builder(Implementation::new("mounted", "1")).stateless().build();
    let (done_tx, mut done) = mpsc::unbounded_channel();
    s.add_tool(
        Tool::new("burst", json!({"type":"object"})).with_description("d"),
        move |_a: Value, ctx: RequestContext| {
            let done_tx = done_tx.clone();
            async move {
                tokio::time::sleep(Duration::from_millis(20)).await;
                for i in 0..200 {
                    ctx.report_progress(f64::from(i), Some(200.0), None);
                }
                let _ = done_tx.send(());
                Ok(CallToolResult::text("done"))
            }
        },
    )
    .unwrap();
    let service = HttpService::new(&s, HttpOptions { stream_buffer: 8, ..HttpOptions::default() });
    let burst = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"burst","arguments":{},"_meta":{"progressToken":"p"}}});
    let text = burst.to_string();
    let (mut writer, response) = service.host_request(host_post(text.len()));
    writer.write(text).await.unwrap();
    writer.finish();
    let resp = tokio::time::timeout(Duration::from_secs(5), response).await.unwrap();
    assert!(resp.is_event_stream(), "the handler talks before answering: an event stream");
    // The handler ends although the host pulls nothing: it never waits on a slow client.
    tokio::time::timeout(Duration::from_secs(5), done.recv()).await.expect("the handler finished").unwrap();
    // What was kept for the host: at most `stream_buffer` events; the client that fell behind
    // was cut off (a stateless stream has nothing to resume), and the body ends.
    let body = tokio::time::timeout(Duration::from_secs(5), resp.body.collect()).await.expect("the body ends");
    let events = sse_data(&String::from_utf8_lossy(&body));
    assert!(!events.is_empty() && events.len() <= 8, "{} events held for a host that pulled nothing", events.len());
    assert!(events.iter().all(|e| e["method"] == "notifications/progress"), "{events:?}");
    // The endpoint keeps serving.
    let again = json!({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}).to_string();
    let (mut writer, response) = service.host_request(host_post(again.len()));
    writer.write(again).await.unwrap();
    writer.finish();
    assert_eq!(tokio::time::timeout(Duration::from_secs(5), response).await.unwrap().status, 200);
}
