//! Tasks in Redis (issue 14), against a real `redis-server`: the store's own contract
//! (ownership, paging in creation order, expiry a ttl after the end, compare-and-set changes),
//! two server instances sharing one Redis (a task created on A is read, answered and cancelled
//! on B, and A's handler sees the answer and the cancellation), and a Redis that goes away
//! (a clear JSON-RPC error, the server keeps serving, and recovers when Redis is back).

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::redis::RedisServer;
use common::Harness;
use ferrite_core::stores::redis::{RedisStore, RedisTaskStore};
use ferrite_core::tasks::{now_ms, Generation, TaskChange, TaskRecord, TaskStore};
use ferrite_core::{
    CallToolResult, ElicitAction, HandlerError, Implementation, Reply, RequestContext, Server, TaskOptions, TaskStatus,
    TaskSupport, Tool, TASKS_EXTENSION,
};
use serde_json::{json, Value};

fn ext() -> Value {
    json!({"extensions": {TASKS_EXTENSION: {}}, "elicitation": {}})
}

fn record(id: &str, owner: &str, created: u64, ttl_ms: u64) -> TaskRecord {
    TaskRecord {
        id: id.to_owned(),
        owner: owner.to_owned(),
        generation: Generation::Extension,
        tool: "t".to_owned(),
        state: TaskStatus::Working,
        status_message: None,
        created_at_ms: created,
        updated_at_ms: created,
        ttl_ms: Some(ttl_ms),
        poll_interval_ms: Some(100),
        outcome: None,
        input_requests: Default::default(),
        input_responses: Default::default(),
        inputs_issued: 0,
    }
}

fn store(redis: &RedisServer, prefix: &str) -> (RedisStore, Arc<RedisTaskStore>) {
    let r = RedisStore::open(&redis.url(), prefix).expect("a redis URL");
    (r.clone(), Arc::new(RedisTaskStore::new(r)))
}

#[tokio::test]
async fn the_store_keeps_owners_apart_pages_in_creation_order_and_expires_ended_tasks() {
    let redis = RedisServer::start();
    let (_, s) = store(&redis, "t1:");
    let now = now_ms();
    for i in 0..5 {
        s.create(record(&format!("a{i}"), "alice", now + i, 60_000)).await.unwrap();
    }
    s.create(record("b0", "bob", now, 60_000)).await.unwrap();
    assert_eq!(s.get("alice", "a1").await.unwrap().map(|r| r.id), Some("a1".to_owned()));
    assert_eq!(s.get("bob", "a1").await.unwrap(), None, "another owner does not see it");
    assert_eq!(s.apply("bob", "a1", TaskChange::Cancel, now).await.unwrap(), None, "nor change it");

    let (page, next) = s.list("alice", None, 2).await.unwrap().unwrap();
    assert_eq!(page.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["a0", "a1"]);
    assert_eq!(next.as_deref(), Some("a1"));
    let (page, next) = s.list("alice", Some("a1"), 10).await.unwrap().unwrap();
    assert_eq!(page.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["a2", "a3", "a4"]);
    assert_eq!(next, None);
    assert!(s.list("alice", Some("b0"), 10).await.unwrap().is_none(), "a cursor that is not alice's");

    // Changes apply the engine's rules; a cancelled task is gone a ttl after it ended.
    s.create(record("short", "alice", now, 300)).await.unwrap();
    let after = s.apply("alice", "short", TaskChange::Cancel, now_ms()).await.unwrap().unwrap();
    assert_eq!(after.state, TaskStatus::Cancelled);
    let again = s.apply("alice", "short", TaskChange::AskInput { request: json!({}) }, now_ms()).await.unwrap();
    assert_eq!(again.unwrap().inputs_issued, 0, "a terminal task does not change");
    tokio::time::sleep(Duration::from_millis(450)).await;
    assert_eq!(s.get("alice", "short").await.unwrap(), None, "expired");
    let (page, _) = s.list("alice", None, 100).await.unwrap().unwrap();
    assert_eq!(page.len(), 5, "the expired task left the listing");
}

#[tokio::test]
async fn concurrent_changes_from_many_instances_are_all_kept() {
    let redis = RedisServer::start();
    let stores: Vec<_> = (0..4).map(|_| store(&redis, "t2:").1).collect();
    stores[0].create(record("busy", "o", now_ms(), 60_000)).await.unwrap();
    let mut joins = Vec::new();
    for (i, s) in stores.iter().enumerate() {
        for _ in 0..5 {
            let s = s.clone();
            joins.push(tokio::spawn(async move {
                s.apply("o", "busy", TaskChange::AskInput { request: json!({"from": i}) }, now_ms()).await
            }));
        }
    }
    for j in joins {
        j.await.unwrap().expect("no store error");
    }
    let r = stores[1].get("o", "busy").await.unwrap().unwrap();
    assert_eq!(r.inputs_issued, 20, "every one of 20 concurrent changes was applied once");
    assert_eq!(r.input_requests.len(), 20);
}

/// An instance with two task tools; `cancelled` is set when `slow` observes its cancellation.
fn instance(tasks: Arc<RedisTaskStore>, cancelled: Arc<AtomicBool>) -> Server {
    let options = TaskOptions { store: tasks, poll_interval: Duration::from_millis(100), ..TaskOptions::default() };
    let s = Server::builder(Implementation::new("fleet", "1")).tasks(options).build();
    let tool = |name: &str, support| Tool::new(name, json!({"type": "object"})).with_task_support(support);
    s.add_tool(tool("slow", TaskSupport::Optional), move |_a: Value, c: RequestContext| {
        let cancelled = cancelled.clone();
        async move {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_secs(60)) => Ok(Reply::Complete(CallToolResult::text("slept"))),
                () = c.cancelled() => {
                    cancelled.store(true, Ordering::SeqCst);
                    Err(HandlerError::failed("cancelled"))
                }
            }
        }
    })
    .unwrap();
    s.add_tool(tool("confirm", TaskSupport::Required), |_a: Value, c: RequestContext| async move {
        let form = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
        match c.elicit("Sure?", form).await {
            Ok(r) if r.action == ElicitAction::Accept => Ok(Reply::Complete(CallToolResult::text("confirmed"))),
            Ok(_) => Ok(Reply::Complete(CallToolResult::text("declined"))),
            Err(e) => Err(HandlerError::failed(e.to_string())),
        }
    })
    .unwrap();
    s
}

async fn wait_status(h: &Harness, id: &str, want: &str) -> Value {
    for _ in 0..100 {
        let r = h.modern_ok("tasks/get", json!({"taskId": id}), ext()).await;
        if r["status"] == want {
            return r;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("task {id} never became {want}");
}

#[tokio::test]
async fn a_task_created_on_one_instance_is_answered_and_cancelled_on_another() {
    let redis = RedisServer::start();
    let seen_a = Arc::new(AtomicBool::new(false));
    let a = Harness::new(instance(store(&redis, "t3:").1, seen_a.clone()));
    let b = Harness::new(instance(store(&redis, "t3:").1, Arc::new(AtomicBool::new(false))));

    // Input asked on A, answered on B, and A's handler finishes with it.
    let id = a.modern_ok("tools/call", json!({"name": "confirm", "arguments": {}}), ext()).await["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let parked = wait_status(&b, &id, "input_required").await;
    let key = parked["inputRequests"].as_object().unwrap().keys().next().unwrap().clone();
    let answer = json!({key: {"action": "accept", "content": {"ok": true}}});
    b.modern_ok("tasks/update", json!({"taskId": id, "inputResponses": answer}), ext()).await;
    let done = wait_status(&b, &id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "confirmed");

    // Cancelled on B: A's handler observes it within its poll interval.
    let id = a.modern_ok("tools/call", json!({"name": "slow", "arguments": {}}), ext()).await["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(b.modern_ok("tasks/get", json!({"taskId": id}), ext()).await["status"], "working");
    b.modern_ok("tasks/cancel", json!({"taskId": id}), ext()).await;
    assert_eq!(wait_status(&a, &id, "cancelled").await["status"], "cancelled");
    for _ in 0..100 {
        if seen_a.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(seen_a.load(Ordering::SeqCst), "A's handler observed the cancellation made on B");
}

#[tokio::test]
async fn a_redis_that_went_away_is_a_clear_error_and_the_server_recovers_when_it_returns() {
    let mut redis = RedisServer::start();
    let (conn, tasks) = store(&redis, "t4:");
    let h = Harness::new(instance(tasks, Arc::new(AtomicBool::new(false))));
    let id = h.modern_ok("tools/call", json!({"name": "confirm", "arguments": {}}), ext()).await["taskId"]
        .as_str()
        .unwrap()
        .to_owned();

    redis.stop();
    let err = h.modern_err("tasks/get", json!({"taskId": id}), ext()).await;
    assert_eq!(err["code"], -32603, "{err}");
    let message = err["message"].as_str().unwrap();
    assert!(message.starts_with("the task store failed: redis:"), "{message}");
    let created = h.modern("tools/call", json!({"name": "confirm", "arguments": {}}), ext()).await;
    assert_eq!(created["error"]["code"], -32603, "creating a task needs the store: {created}");
    // Requests that need no store still answer.
    assert!(h.modern_ok("tools/list", json!({}), ext()).await["tools"].is_array());

    redis.restart();
    let mut back = None;
    for _ in 0..50 {
        if conn.ping().await.is_ok() {
            back = Some(());
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(back.is_some(), "the client reconnected");
    // A fresh Redis (no persistence) lost the task: not found, and new tasks work again.
    let gone = h.modern_err("tasks/get", json!({"taskId": id}), ext()).await;
    assert_eq!(gone["code"], -32602, "{gone}");
    let again = h.modern_ok("tools/call", json!({"name": "confirm", "arguments": {}}), ext()).await;
    assert_eq!(again["resultType"], "task");
}

#[tokio::test]
async fn requests_that_touch_no_task_make_no_redis_round_trip() {
    let redis = RedisServer::start();
    let (conn, tasks) = store(&redis, "t5:");
    let h = Harness::new(instance(tasks, Arc::new(AtomicBool::new(false))));
    let before = conn.round_trips();
    h.modern_ok("tools/list", json!({}), ext()).await;
    h.modern_ok("server/discover", json!({}), ext()).await;
    assert_eq!(conn.round_trips(), before);
    h.modern_ok("tools/call", json!({"name": "confirm", "arguments": {}}), ext()).await;
    assert!(conn.round_trips() > before, "creating a task does");
}

#[tokio::test]
async fn over_http_a_redis_that_went_away_is_503_with_the_json_rpc_error() {
    use common::http::request;
    let mut redis = RedisServer::start();
    let s = instance(store(&redis, "t6:").1, Arc::new(AtomicBool::new(false)));
    let bound =
        ferrite_core::transport::http::bind(&s, "127.0.0.1:0".parse().unwrap(), Default::default()).await.unwrap();
    let addr = bound.local_addr().unwrap();
    tokio::spawn(bound.run());
    let get = |id: &str| {
        let mut params = json!({"taskId": id});
        params["_meta"] = common::envelope(ext());
        json!({"jsonrpc": "2.0", "id": 5, "method": "tasks/get", "params": params}).to_string()
    };
    let headers = |id: &'static str| {
        vec![
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tasks/get"),
            ("mcp-name", id),
        ]
    };
    let unknown = request(addr, "POST", &headers("nope"), &get("nope")).await;
    assert_eq!(unknown.status, 400, "an unknown task with Redis up is -32602's 400");
    redis.stop();
    let down = request(addr, "POST", &headers("nope"), &get("nope")).await;
    assert_eq!(down.status, 503);
    let body = down.json().await;
    assert_eq!(body["error"]["code"], -32603, "{body}");
    assert_eq!(body["error"]["data"]["storeUnavailable"], true);
    assert!(body["error"]["message"].as_str().unwrap().starts_with("the task store failed: redis:"), "{body}");
    assert_eq!(body["id"], 5);
}
