//! Handshake-era sessions shared by a fleet over a real `redis-server` (issue 14): instances
//! of one server, each on its own port, sharing one Redis. A session made on A serves on B,
//! what B changes (a subscription) reaches A's GET stream, an answer or a cancellation posted
//! to B reaches the handler on A, a GET stream resumes on B after A went away with every event
//! once, DELETE on B ends the session everywhere, records expire, and a Redis that goes away is
//! a 503 until it is back.

mod common;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::http::*;
use common::redis::RedisServer;
use ferrite_core::transport::http::{self, HttpOptions};
use ferrite_core::{CallToolResult, CreateMessageParams, Implementation, RequestContext, Resource, Server, Tool};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

struct Instance {
    addr: SocketAddr,
    server: Server,
    shutdown: CancellationToken,
    cancelled: Arc<AtomicUsize>,
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

async fn instance(redis: &RedisServer, prefix: &str, idle: Option<Duration>) -> Instance {
    let s = Server::builder(Implementation::new("fleet", "1")).stateful().build();
    s.enable_logging();
    s.add_text_resource(Resource::new("test://watched", "watched"), "w");
    s.enable_resource_subscriptions().unwrap();
    s.add_tool_fn(Tool::new("echo", json!({"type":"object"})).with_description("echo"), |a| {
        Ok(CallToolResult::text(a.to_string()))
    })
    .unwrap();
    s.add_tool(
        Tool::new("ask", json!({"type":"object"})).with_description("samples"),
        |_a: Value, ctx: RequestContext| async move {
            let r = ctx.sample(CreateMessageParams::user_text("hi", 5)).await?;
            Ok(CallToolResult::text(format!("client said {}", r.text().unwrap_or(""))))
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
    s.use_redis(&redis.url(), prefix).expect("a redis URL");
    let opts = HttpOptions { session_idle_timeout: idle, ..HttpOptions::default() };
    let shutdown = opts.shutdown.clone();
    let bound = http::bind(&s, "127.0.0.1:0".parse().unwrap(), opts).await.unwrap();
    let addr = bound.local_addr().unwrap();
    tokio::spawn(bound.run());
    Instance { addr, server: s, shutdown, cancelled }
}

/// Wait until `n` instances listen on the fleet's broadcast channel (PUBSUB NUMSUB).
async fn subscribed(redis: &RedisServer, channel: &str, n: i64) {
    let client = redis::Client::open(redis.url()).unwrap();
    let mut c = client.get_multiplexed_async_connection().await.unwrap();
    for _ in 0..300 {
        let counts: Vec<(String, i64)> =
            redis::cmd("PUBSUB").arg("NUMSUB").arg(channel).query_async(&mut c).await.unwrap();
        if counts.first().is_some_and(|(_, k)| *k >= n) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the instances never subscribed to {channel}");
}

async fn fleet(redis: &RedisServer, prefix: &str, n: usize, idle: Option<Duration>) -> Vec<Instance> {
    let mut v = Vec::new();
    for _ in 0..n {
        v.push(instance(redis, prefix, idle).await);
    }
    subscribed(redis, &format!("{prefix}sessions"), i64::try_from(n).unwrap()).await;
    v
}

fn headers(sid: &str) -> Vec<(&str, &str)> {
    vec![JSON, ACCEPT, ("mcp-session-id", sid), ("mcp-protocol-version", "2025-11-25")]
}

/// initialize on `at`, `notifications/initialized` on `then`; the session id.
async fn session(at: SocketAddr, then: SocketAddr, caps: Value) -> String {
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":caps,"clientInfo":{"name":"t","version":"1"}}});
    let r = request(at, "POST", &[JSON, ACCEPT], &init.to_string()).await;
    assert_eq!(r.status, 200);
    let sid = r.header("mcp-session-id").expect("a session id").to_owned();
    let n = request(then, "POST", &headers(&sid), r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    assert_eq!(n.status, 202, "the session made on one instance is known on another");
    sid
}

async fn call(addr: SocketAddr, sid: &str, id: i64, method: &str, params: Value) -> Reply {
    let body = json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}).to_string();
    request(addr, "POST", &headers(sid), &body).await
}

async fn get_stream(addr: SocketAddr, sid: &str, last: Option<&str>) -> Reply {
    let mut h = vec![("accept", "text/event-stream"), ("mcp-session-id", sid), ("mcp-protocol-version", "2025-11-25")];
    if let Some(l) = last {
        h.push(("last-event-id", l));
    }
    request(addr, "GET", &h, "").await
}

async fn listening(server: &Server, sid: &str) {
    for _ in 0..200 {
        if server.connected_sessions().iter().any(|s| s == sid) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no GET stream listener for {sid}");
}

#[tokio::test]
async fn a_session_made_on_one_instance_serves_on_the_others_and_ends_everywhere() {
    let redis = RedisServer::start();
    let f = fleet(&redis, "s1:", 3, None).await;
    let (a, b, c) = (&f[0], &f[1], &f[2]);
    let sid = session(a.addr, b.addr, json!({})).await;
    let before = c.server.stats().store_round_trips;
    let r = call(c.addr, &sid, 2, "tools/call", json!({"name":"echo","arguments":{"x":1}})).await;
    assert_eq!(r.status, 200);
    assert!(c.server.stats().store_round_trips > before, "C read the session A made from Redis, and counted it");
    assert_eq!(r.json().await["result"]["content"][0]["text"], r#"{"x":1}"#);

    // A holds the GET stream; B takes the subscription; C publishes the update.
    let mut g = get_stream(a.addr, &sid, None).await;
    assert_eq!(g.status, 200);
    listening(&a.server, &sid).await;
    assert_eq!(call(b.addr, &sid, 3, "resources/subscribe", json!({"uri":"test://watched"})).await.status, 200);
    // The subscription reaches A's copy of the session through the bus.
    for _ in 0..200 {
        if a.server.notify_resource_updated("test://watched") == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let update = next_message(&mut g.body, "notifications/resources/updated").await;
    assert_eq!(update["params"]["uri"], "test://watched");
    c.server.notify_resource_updated("test://watched");
    let update = next_message(&mut g.body, "notifications/resources/updated").await;
    assert_eq!(update["params"]["uri"], "test://watched", "published through C, delivered on A");

    // DELETE on B ends it on every instance: A's stream closes and A answers 404.
    let d = request(b.addr, "DELETE", &[("mcp-session-id", &sid), ("mcp-protocol-version", "2025-11-25")], "").await;
    assert_eq!(d.status, 200);
    let rest = tokio::time::timeout(Duration::from_secs(5), g.text()).await;
    assert!(rest.is_ok(), "A's GET stream ended with the session");
    assert_eq!(call(a.addr, &sid, 4, "ping", json!({})).await.status, 404);
    assert_eq!(call(c.addr, &sid, 5, "ping", json!({})).await.status, 404);
}

#[tokio::test]
async fn an_answer_posted_to_another_instance_reaches_the_waiting_handler() {
    let redis = RedisServer::start();
    let f = fleet(&redis, "s2:", 2, None).await;
    let (a, b) = (&f[0], &f[1]);
    let sid = session(a.addr, b.addr, json!({"sampling": {}})).await;
    let mut r = call(a.addr, &sid, 4, "tools/call", json!({"name":"ask"})).await;
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    let req = next_message(&mut r.body, "sampling/createMessage").await;
    let answer = |id: &Value| {
        json!({"jsonrpc":"2.0","id":id,"result":{"role":"assistant","content":{"type":"text","text":"pong"},"model":"m"}})
            .to_string()
    };
    let posted = request(b.addr, "POST", &headers(&sid), &answer(&req["id"])).await;
    assert_eq!(posted.status, 202, "B routed the answer to A");
    let result = sse_data(&r.text().await).into_iter().find(|m| m["id"] == 4).expect("the result on A's stream");
    assert_eq!(result["result"]["content"][0]["text"], "client said pong");

    // An answer for an instance that is gone: 404, with the JSON-RPC error naming why.
    let gone = request(b.addr, "POST", &headers(&sid), &answer(&json!("ferrite-0123456789abcdef-0"))).await;
    assert_eq!(gone.status, 404);
    let e = gone.json().await;
    assert_eq!(e["error"]["code"], -32600);
    assert!(e["error"]["message"].as_str().unwrap().contains("gone"), "{e}");
}

#[tokio::test]
async fn a_cancellation_posted_to_another_instance_stops_the_request() {
    let redis = RedisServer::start();
    let f = fleet(&redis, "s3:", 2, None).await;
    let (a, b) = (&f[0], &f[1]);
    let sid = session(a.addr, b.addr, json!({})).await;
    let addr = a.addr;
    let s2 = sid.clone();
    let running = tokio::spawn(async move { call(addr, &s2, 7, "tools/call", json!({"name":"wait"})).await });
    // Give the request time to start on A (nothing outside the server shows it).
    tokio::time::sleep(Duration::from_millis(300)).await;
    let cancel = json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}});
    assert_eq!(request(b.addr, "POST", &headers(&sid), &cancel.to_string()).await.status, 202);
    for _ in 0..300 {
        if a.cancelled.load(Ordering::SeqCst) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(a.cancelled.load(Ordering::SeqCst), 1, "the handler on A saw the cancellation posted to B");
    assert_eq!(b.cancelled.load(Ordering::SeqCst), 0);
    running.abort();
}

#[tokio::test]
async fn a_get_stream_resumes_on_another_instance_with_every_event_once() {
    let redis = RedisServer::start();
    let mut f = fleet(&redis, "s4:", 2, None).await;
    let sid = session(f[0].addr, f[1].addr, json!({})).await;
    assert_eq!(call(f[0].addr, &sid, 2, "resources/subscribe", json!({"uri":"test://watched"})).await.status, 200);
    let mut g = get_stream(f[0].addr, &sid, None).await;
    listening(&f[0].server, &sid).await;
    for _ in 0..3 {
        f[0].server.notify_resource_updated("test://watched");
    }
    let mut buf = String::new();
    read_until(&mut g.body, &mut buf, |b| sse_data(b).len() == 3).await;
    let ids = sse_ids(&buf);
    assert_eq!(ids.len(), 4, "a priming event and three updates: {buf}");
    assert!(ids.iter().all(|i| i.starts_with(&format!("{sid}.g"))), "stream ids name the session: {ids:?}");
    // The client lost the third update in transit, then A went away.
    let last_seen = ids[2].clone();
    let a = f.remove(0);
    drop(a);
    drop(g);
    let b = &f[0];
    let mut resumed = get_stream(b.addr, &sid, Some(&last_seen)).await;
    assert_eq!(resumed.status, 200);
    listening(&b.server, &sid).await;
    b.server.notify_resource_updated("test://watched");
    let mut buf = String::new();
    read_until(&mut resumed.body, &mut buf, |b| sse_data(b).len() >= 2).await;
    let ids = sse_ids(&buf);
    let stream = last_seen.rsplit_once(':').unwrap().0;
    assert_eq!(ids, vec![format!("{stream}:3"), format!("{stream}:4")], "the lost event once, then the new one: {buf}");
}

#[tokio::test]
async fn records_expire_and_busy_sessions_stay() {
    let redis = RedisServer::start();
    let f = fleet(&redis, "s5:", 2, Some(Duration::from_millis(400))).await;
    let idle = session(f[0].addr, f[1].addr, json!({})).await;
    let busy = session(f[0].addr, f[1].addr, json!({})).await;
    let _g = get_stream(f[0].addr, &busy, None).await;
    listening(&f[0].server, &busy).await;
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(call(f[1].addr, &idle, 2, "ping", json!({})).await.status, 404, "the store expired the idle session");
    assert_eq!(call(f[1].addr, &busy, 3, "ping", json!({})).await.status, 200, "an open stream keeps it alive");
}

#[tokio::test]
async fn redis_down_is_503_and_the_fleet_recovers() {
    let mut redis = RedisServer::start();
    let f = fleet(&redis, "s6:", 2, None).await;
    let sid = session(f[0].addr, f[1].addr, json!({})).await;
    redis.stop();
    let r = call(f[1].addr, &sid, 2, "ping", json!({})).await;
    assert_eq!(r.status, 503);
    let e = r.json().await;
    assert_eq!(e["error"]["code"], -32603);
    assert_eq!(e["error"]["data"]["storeUnavailable"], true);
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}});
    let r = request(f[0].addr, "POST", &[JSON, ACCEPT], &init.to_string()).await;
    assert_eq!(r.status, 503, "a session that cannot be kept is not handed out");
    assert!(r.header("mcp-session-id").is_none());
    redis.restart();
    subscribed(&redis, "s6:sessions", 2).await;
    // The restarted Redis kept nothing (no persistence): the old session is gone, new ones work.
    let mut ok = false;
    for _ in 0..50 {
        let r = request(f[0].addr, "POST", &[JSON, ACCEPT], &init.to_string()).await;
        if r.status == 200 {
            ok = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(ok, "initialize works again once Redis is back");
    assert_eq!(call(f[1].addr, &sid, 3, "ping", json!({})).await.status, 404);
    let again = session(f[0].addr, f[1].addr, json!({})).await;
    assert_eq!(call(f[1].addr, &again, 4, "ping", json!({})).await.status, 200);
}
