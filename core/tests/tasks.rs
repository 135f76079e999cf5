//! Tasks, both generations, through dispatch: what is advertised, each gate and its error,
//! the 2025-11-25 lifecycle (create, get, result with input delivered through it, list,
//! cancel), the 2026-07-28 extension (server-directed creation, inlined results, input
//! through tasks/update, cancellation the handler observes), ownership, ttl expiry, a full
//! store, and a panicking handler ending its task as failed while the server keeps serving.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{stateful, Harness};
use ferrite_core::tasks::InMemoryTaskStore;
use ferrite_core::{
    CallToolResult, ElicitAction, HandlerError, Implementation, Reply, RequestContext, Server, TaskOptions,
    TaskSupport, Tool, TASKS_EXTENSION,
};
use serde_json::{json, Value};

const V2025: &str = "2025-11-25";

fn ext() -> Value {
    json!({"extensions": {TASKS_EXTENSION: {}}, "elicitation": {}})
}

fn tool(name: &str, support: TaskSupport) -> Tool {
    Tool::new(name, json!({"type": "object"})).with_description(name).with_task_support(support)
}

/// A server with task tools; `cancelled` is set when `slow` observes its cancellation.
fn task_server(options: TaskOptions, cancelled: Arc<AtomicBool>) -> Server {
    let s = Server::builder(Implementation::new("tasks", "1")).tasks(options).build();
    s.add_tool(tool("plain", TaskSupport::Forbidden), |_a: Value, _c: RequestContext| async {
        Ok(Reply::Complete(CallToolResult::text("plain")))
    })
    .unwrap();
    s.add_tool(tool("slow", TaskSupport::Optional), move |a: Value, c: RequestContext| {
        let cancelled = cancelled.clone();
        async move {
            let ms = a.get("ms").and_then(Value::as_u64).unwrap_or(300);
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(ms)) => Ok(Reply::Complete(CallToolResult::text(format!("slept {ms}")))),
                () = c.cancelled() => {
                    cancelled.store(true, Ordering::SeqCst);
                    Err(HandlerError::failed("cancelled"))
                }
            }
        }
    })
    .unwrap();
    s.add_tool(tool("only_task", TaskSupport::Required), |_a: Value, _c: RequestContext| async {
        tokio::time::sleep(Duration::from_millis(250)).await;
        Ok(Reply::Complete(CallToolResult::error("it went wrong")))
    })
    .unwrap();
    s.add_tool(tool("confirm", TaskSupport::Required), |_a: Value, c: RequestContext| async move {
        let form = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
        match c.elicit("Sure?", form).await {
            Ok(r) if r.action == ElicitAction::Accept => Ok(Reply::Complete(CallToolResult::text(format!(
                "confirmed {}",
                r.content.map(|c| Value::Object(c).to_string()).unwrap_or_default()
            )))),
            Ok(_) => Ok(Reply::Complete(CallToolResult::text("declined"))),
            Err(e) => Err(HandlerError::failed(e.to_string())),
        }
    })
    .unwrap();
    s.add_tool(tool("boom", TaskSupport::Required), |_a: Value, _c: RequestContext| async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        if true {
            panic!("the handler blew up");
        }
        Ok(Reply::Complete(CallToolResult::text("unreachable")))
    })
    .unwrap();
    s
}

fn server() -> Server {
    task_server(TaskOptions::default(), Arc::new(AtomicBool::new(false)))
}

/// Poll (a legacy or modern) `tasks/get` until `done` holds; the last result.
async fn wait_for(h: &Harness, modern: bool, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..100 {
        let r = if modern {
            h.modern_ok("tasks/get", json!({"taskId": id}), ext()).await
        } else {
            h.ok("tasks/get", json!({"taskId": id})).await
        };
        if done(&r) {
            return r;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("task {id} never reached the state waited for");
}

fn status_is(s: &'static str) -> impl Fn(&Value) -> bool {
    move |r| r["status"] == s
}

#[tokio::test]
async fn tasks_are_advertised_only_when_a_tool_may_run_as_one() {
    let h = Harness::new(server());
    let caps = h.initialize(V2025, json!({})).await["capabilities"].clone();
    assert_eq!(caps["tasks"], json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}));
    let old = Harness::new(server());
    assert!(old.initialize("2025-06-18", json!({})).await["capabilities"].get("tasks").is_none());
    let modern = Harness::new(server());
    let discover = modern.modern_ok("server/discover", json!({}), json!({})).await;
    assert_eq!(discover["capabilities"]["extensions"][TASKS_EXTENSION], json!({}));
    assert!(discover["capabilities"].get("tasks").is_none(), "the extension replaces the legacy capability");

    let none = Harness::new(stateful("no-tasks"));
    none.server.add_tool_fn(Tool::new("t", json!({"type": "object"})), |_| Ok(CallToolResult::text("t"))).unwrap();
    assert!(none.initialize(V2025, json!({})).await["capabilities"].get("tasks").is_none());
    assert_eq!(none.err_code("tasks/get", json!({"taskId": "x"})).await, -32601);
}

#[tokio::test]
async fn the_2025_gates_answer_method_not_found_and_bad_params() {
    let h = Harness::new(server());
    h.initialize(V2025, json!({})).await;
    let forbidden = h.call("tools/call", json!({"name": "plain", "arguments": {}, "task": {}})).await;
    assert_eq!(forbidden["error"]["code"], -32601, "{forbidden}");
    assert!(forbidden["error"]["message"].as_str().unwrap().contains("does not support task-augmented calls"));
    let required = h.call("tools/call", json!({"name": "only_task", "arguments": {}})).await;
    assert_eq!(required["error"]["code"], -32601, "{required}");
    assert!(required["error"]["message"].as_str().unwrap().contains("must be called as a task"));
    let bad_ttl = h.call("tools/call", json!({"name": "slow", "arguments": {}, "task": {"ttl": "soon"}})).await;
    assert_eq!(bad_ttl["error"]["code"], -32602);
    assert_eq!(h.err_code("tasks/update", json!({"taskId": "x", "inputResponses": {}})).await, -32601);
    assert_eq!(h.err_code("tasks/get", json!({"taskId": "nope"})).await, -32602);
    // An optional tool without `task` runs inline.
    assert_eq!(
        h.ok("tools/call", json!({"name": "slow", "arguments": {"ms": 1}})).await["content"][0]["text"],
        "slept 1"
    );

    // Before 2025-11-25 there are no tasks: a required tool runs inline.
    let old = Harness::new(server());
    old.initialize("2025-06-18", json!({})).await;
    let r = old.ok("tools/call", json!({"name": "only_task", "arguments": {}})).await;
    assert_eq!(r["isError"], true);
    assert_eq!(old.err_code("tasks/list", json!({})).await, -32601);
}

#[tokio::test]
async fn a_2025_task_is_created_polled_listed_and_its_result_tied_to_it() {
    let h = Harness::new(server());
    h.initialize(V2025, json!({})).await;
    let created = h.ok("tools/call", json!({"name": "slow", "arguments": {"ms": 200}, "task": {"ttl": 60000}})).await;
    let task = &created["task"];
    let id = task["taskId"].as_str().unwrap().to_owned();
    assert_eq!(id.len(), 32, "128 bits as hex");
    assert_eq!(task["status"], "working");
    assert_eq!(task["ttl"], 60000);
    assert!(task["pollInterval"].as_u64().unwrap() > 0);
    assert!(task.get("ttlMs").is_none() && created.get("resultType").is_none());
    assert_eq!(h.ok("tasks/get", json!({"taskId": id})).await["status"], "working");

    let result = h.ok("tasks/result", json!({"taskId": id})).await;
    assert_eq!(result["content"][0]["text"], "slept 200");
    assert_eq!(result["_meta"]["io.modelcontextprotocol/related-task"], json!({"taskId": id}));
    assert_eq!(h.ok("tasks/get", json!({"taskId": id})).await["status"], "completed");

    let list = h.ok("tasks/list", json!({})).await;
    assert_eq!(list["tasks"][0]["taskId"], id);
    assert_eq!(h.err_code("tasks/list", json!({"cursor": "not-a-task"})).await, -32602);
    let late = h.call("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(late["error"]["code"], -32602, "cancelling a finished task: {late}");
    assert!(late["error"]["message"].as_str().unwrap().contains("already completed"));
}

#[tokio::test]
async fn tasks_created_and_running_are_counted() {
    let h = Harness::new(server());
    h.initialize(V2025, json!({})).await;
    assert_eq!((h.server.stats().tasks_created, h.server.stats().tasks_running), (0, 0));
    let created = h.ok("tools/call", json!({"name": "slow", "arguments": {"ms": 300}, "task": {"ttl": 60000}})).await;
    let id = created["task"]["taskId"].as_str().unwrap().to_owned();
    assert_eq!((h.server.stats().tasks_created, h.server.stats().tasks_running), (1, 1), "one task, working");
    h.ok("tasks/result", json!({"taskId": id})).await;
    for _ in 0..100 {
        if h.server.stats().tasks_running == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!((h.server.stats().tasks_created, h.server.stats().tasks_running), (1, 0), "ended, still created once");
    h.ok("tools/call", json!({"name": "slow", "arguments": {"ms": 1}})).await;
    assert_eq!(h.server.stats().tasks_created, 1, "a call without `task` creates none");
}

#[tokio::test]
async fn a_2025_tool_error_fails_the_task_and_tasks_result_gives_the_tool_result() {
    let h = Harness::new(server());
    h.initialize(V2025, json!({})).await;
    let id = h.ok("tools/call", json!({"name": "only_task", "arguments": {}, "task": {}})).await["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let result = h.ok("tasks/result", json!({"taskId": id})).await;
    assert_eq!(result["isError"], true);
    assert_eq!(h.ok("tasks/get", json!({"taskId": id})).await["status"], "failed");
}

#[tokio::test]
async fn a_2025_task_asks_the_client_through_tasks_result_tied_to_the_task() {
    let h = Harness::new(server());
    h.initialize(V2025, json!({"elicitation": {}})).await;
    *h.recorder.reply.lock().unwrap() = Some(json!({"action": "accept", "content": {"ok": true}}));
    let id = h.ok("tools/call", json!({"name": "confirm", "arguments": {}, "task": {}})).await["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    wait_for(&h, false, &id, status_is("input_required")).await;
    let result = h.ok("tasks/result", json!({"taskId": id})).await;
    assert_eq!(result["content"][0]["text"], r#"confirmed {"ok":true}"#);
    let requests = h.recorder.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].0, "elicitation/create");
    let params = requests[0].1.clone().unwrap();
    assert_eq!(params["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], id);
    assert_eq!(params["message"], "Sure?");
}

#[tokio::test]
async fn another_session_cannot_read_cancel_or_list_a_task() {
    let s = server();
    let a = Harness::new(s.clone());
    let b = Harness::new(s);
    a.initialize(V2025, json!({})).await;
    b.initialize(V2025, json!({})).await;
    let id = a.ok("tools/call", json!({"name": "slow", "arguments": {"ms": 5000}, "task": {}})).await["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(b.err_code("tasks/get", json!({"taskId": id})).await, -32602);
    assert_eq!(b.err_code("tasks/cancel", json!({"taskId": id})).await, -32602);
    assert_eq!(b.err_code("tasks/result", json!({"taskId": id})).await, -32602);
    assert_eq!(b.ok("tasks/list", json!({})).await["tasks"], json!([]));
    let cancelled = a.ok("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(cancelled["status"], "cancelled");
    assert_eq!(cancelled["taskId"], id);
}

#[tokio::test]
async fn the_2026_gates_come_before_the_task_is_looked_up() {
    let h = Harness::new(server());
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let e = h.modern_err(method, json!({"taskId": "gate-test", "inputResponses": {}}), json!({})).await;
        assert_eq!(e["code"], -32021, "{method}: {e}");
        assert_eq!(e["data"]["requiredCapabilities"]["extensions"][TASKS_EXTENSION], json!({}));
    }
    for method in ["tasks/result", "tasks/list"] {
        assert_eq!(h.modern_err(method, json!({"taskId": "x"}), ext()).await["code"], -32601, "{method}");
    }
    let required = h.modern_err("tools/call", json!({"name": "only_task", "arguments": {}}), json!({})).await;
    assert_eq!(required["code"], -32021);
    assert_eq!(required["data"]["requiredCapabilities"]["extensions"][TASKS_EXTENSION], json!({}));
    assert_eq!(h.modern_err("tasks/get", json!({"taskId": "nope"}), ext()).await["code"], -32602);
    // Without the extension an optional tool runs inline; the legacy `task` is ignored.
    let inline = h
        .modern_ok("tools/call", json!({"name": "slow", "arguments": {"ms": 150}, "task": {"ttl": 1}}), json!({}))
        .await;
    assert_eq!(inline["resultType"], "complete");
    assert_eq!(inline["content"][0]["text"], "slept 150");
}

#[tokio::test]
async fn a_2026_task_inlines_its_result_and_a_cancel_reaches_the_handler() {
    let seen = Arc::new(AtomicBool::new(false));
    let h = Harness::new(task_server(TaskOptions::default(), seen.clone()));
    let created = h.modern_ok("tools/call", json!({"name": "slow", "arguments": {"ms": 300}}), ext()).await;
    assert_eq!(created["resultType"], "task");
    for absent in ["task", "result", "error", "inputRequests", "ttl", "pollInterval", "requestState"] {
        assert!(created.get(absent).is_none(), "{absent} on a create result: {created}");
    }
    assert!(created["ttlMs"].as_u64().unwrap() > 0);
    let id = created["taskId"].as_str().unwrap().to_owned();
    let done = wait_for(&h, true, &id, status_is("completed")).await;
    assert_eq!(done["resultType"], "complete");
    assert_eq!(done["result"]["content"][0]["text"], "slept 300");

    let id = h.modern_ok("tools/call", json!({"name": "slow", "arguments": {"ms": 60000}}), ext()).await["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let ack = h.modern_ok("tasks/cancel", json!({"taskId": id}), ext()).await;
    assert_eq!(ack["resultType"], "complete");
    assert!(ack.get("taskId").is_none() && ack.get("status").is_none());
    assert_eq!(wait_for(&h, true, &id, status_is("cancelled")).await["status"], "cancelled");
    for _ in 0..100 {
        if seen.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(seen.load(Ordering::SeqCst), "the handler observed the cancellation");
    // Cancelling again is acknowledged.
    assert_eq!(h.modern_ok("tasks/cancel", json!({"taskId": id}), ext()).await["resultType"], "complete");
}

#[tokio::test]
async fn a_2026_task_waits_for_input_and_tasks_update_answers_it() {
    let h = Harness::new(server());
    let id = h.modern_ok("tools/call", json!({"name": "confirm", "arguments": {}}), ext()).await["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let parked = wait_for(&h, true, &id, status_is("input_required")).await;
    let requests = parked["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1);
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["message"], "Sure?");
    let ignored =
        h.modern_ok("tasks/update", json!({"taskId": id, "inputResponses": {"unknown": {"x": 1}}}), ext()).await;
    assert_eq!(ignored["resultType"], "complete");
    assert_eq!(h.modern_ok("tasks/get", json!({"taskId": id}), ext()).await["status"], "input_required");
    let answer = json!({key.clone(): {"action": "accept", "content": {"ok": true}}});
    h.modern_ok("tasks/update", json!({"taskId": id, "inputResponses": answer}), ext()).await;
    let done = wait_for(&h, true, &id, status_is("completed")).await;
    assert_eq!(done["result"]["content"][0]["text"], r#"confirmed {"ok":true}"#);
    let bad = h.modern_err("tasks/update", json!({"taskId": id, "inputResponses": []}), ext()).await;
    assert_eq!(bad["code"], -32602);
}

#[tokio::test]
async fn a_panicking_task_ends_failed_and_the_server_keeps_serving() {
    let h = Harness::new(server());
    let id = h.modern_ok("tools/call", json!({"name": "boom", "arguments": {}}), ext()).await["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let failed = wait_for(&h, true, &id, status_is("failed")).await;
    assert_eq!(failed["error"]["code"], -32603);
    assert!(failed["error"]["message"].as_str().unwrap().contains("the handler blew up"), "{failed}");
    assert!(failed.get("result").is_none());
    let still = h.modern_ok("tools/call", json!({"name": "plain", "arguments": {}}), ext()).await;
    assert_eq!(still["content"][0]["text"], "plain");
}

#[tokio::test]
async fn an_ended_task_is_gone_a_ttl_later_and_a_running_one_fails_when_overdue() {
    let options = TaskOptions { default_ttl: Duration::from_millis(300), ..TaskOptions::default() };
    let h = Harness::new(task_server(options, Arc::new(AtomicBool::new(false))));
    let quick = h.modern_ok("tools/call", json!({"name": "slow", "arguments": {"ms": 120}}), ext()).await["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    wait_for(&h, true, &quick, status_is("completed")).await;
    let overdue = h.modern_ok("tools/call", json!({"name": "slow", "arguments": {"ms": 60000}}), ext()).await["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let failed = wait_for(&h, true, &overdue, status_is("failed")).await;
    assert!(failed["error"]["message"].as_str().unwrap().contains("ttl passed"), "{failed}");
    let mut gone = false;
    for _ in 0..100 {
        let r = h.modern("tasks/get", json!({"taskId": quick}), ext()).await;
        if r["error"]["code"] == -32602 {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(gone, "the ended task expired");
}

#[tokio::test]
async fn a_full_store_is_a_clear_error_not_a_crash() {
    let options = TaskOptions { store: Arc::new(InMemoryTaskStore::new(1)), ..TaskOptions::default() };
    let h = Harness::new(task_server(options, Arc::new(AtomicBool::new(false))));
    h.modern_ok("tools/call", json!({"name": "slow", "arguments": {"ms": 60000}}), ext()).await;
    let full = h.modern_err("tools/call", json!({"name": "slow", "arguments": {"ms": 60000}}), ext()).await;
    assert_eq!(full["code"], -32603);
    assert_eq!(full["message"], "the task store is full (1 tasks)");
    assert_eq!(
        h.modern_ok("tools/call", json!({"name": "plain", "arguments": {}}), ext()).await["content"][0]["text"],
        "plain"
    );
}

#[tokio::test]
async fn a_task_belongs_to_its_subject_across_connections() {
    use ferrite_core::server::RequestInfo;
    let s = server();
    let (a, b) = (Harness::new(s.clone()), Harness::new(s));
    let alice = RequestInfo::default().with_subject("alice");
    let bob = RequestInfo::default().with_subject("bob");
    let created = a.modern_with("tools/call", json!({"name": "slow", "arguments": {"ms": 5000}}), ext(), &alice).await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    // The same subject on another connection sees it; another subject and an anonymous caller do not.
    let seen = b.modern_with("tasks/get", json!({"taskId": id}), ext(), &alice).await;
    assert_eq!(seen["result"]["status"], "working", "{seen}");
    for (who, info) in [("bob", &bob), ("anonymous", &RequestInfo::default())] {
        let r = b.modern_with("tasks/cancel", json!({"taskId": id}), ext(), info).await;
        assert_eq!(r["error"]["code"], -32602, "{who}: {r}");
    }
    let ack = a.modern_with("tasks/cancel", json!({"taskId": id}), ext(), &alice).await;
    assert_eq!(ack["result"]["resultType"], "complete");
}

#[test]
fn a_task_support_that_is_not_one_of_the_three_words_is_refused_at_registration() {
    let s = stateful("bad");
    let bad =
        Tool { execution: Some(json!({"taskSupport": "sometimes"})), ..Tool::new("bad", json!({"type": "object"})) };
    let e = s.add_tool_fn(bad, |_| Ok(CallToolResult::text("x"))).unwrap_err();
    assert_eq!(
        e.to_string(),
        r#"tool "bad": execution.taskSupport must be one of "forbidden", "optional", "required", not "sometimes""#
    );
    let not_object = Tool { execution: Some(json!("optional")), ..Tool::new("worse", json!({"type": "object"})) };
    assert!(s
        .add_tool_fn(not_object, |_| Ok(CallToolResult::text("x")))
        .unwrap_err()
        .to_string()
        .contains(r#"not "optional""#));
    let fine = Tool {
        execution: Some(json!({"taskSupport": "optional", "other": 1})),
        ..Tool::new("fine", json!({"type": "object"}))
    };
    s.add_tool_fn(fine, |_| Ok(CallToolResult::text("x"))).unwrap();
}

/// Poll `frames` until one with `method` satisfies `pred`.
async fn frame_where(h: &Harness, method: &str, pred: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..200 {
        if let Some(f) = h.recorder.frames().into_iter().find(|f| f["method"] == method && pred(f)) {
            return f;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("no {method} frame arrived: {:?}", h.recorder.frames());
}

#[tokio::test]
async fn a_listen_stream_that_asked_for_a_task_gets_its_status_and_only_its_own() {
    use ferrite_core::Message;
    let s = server();
    let creator = Harness::new(s.clone());
    let id = creator.modern_ok("tools/call", json!({"name": "slow", "arguments": {"ms": 400}}), ext()).await["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    // Without the extension, asking for task ids is -32021.
    let refused = creator
        .modern_err("subscriptions/listen", json!({"notifications": {"taskIds": [id.clone()]}}), json!({}))
        .await;
    assert_eq!(refused["code"], -32021);

    let watcher = Harness::new(s.clone());
    let (server, conn, peer) = (watcher.server.clone(), watcher.conn.clone(), watcher.peer.clone());
    let params = common::enveloped(json!({"notifications": {"taskIds": [id.clone(), "someone-elses"]}}), ext());
    let listen = tokio::spawn(async move {
        server.handle(Message::request(9, "subscriptions/listen", Some(params)), &conn, &peer).await
    });
    let ack = frame_where(&watcher, "notifications/subscriptions/acknowledged", |_| true).await;
    assert_eq!(ack["params"]["notifications"], json!({"taskIds": [id.clone()]}), "only a task the caller may see");
    let done = frame_where(&watcher, "notifications/tasks", |f| f["params"]["status"] == "completed").await;
    assert_eq!(done["params"]["taskId"], id);
    assert_eq!(done["params"]["result"]["content"][0]["text"], "slept 400");
    assert_eq!(done["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 9);
    assert!(done["params"].get("resultType").is_none());
    listen.abort();
}

#[tokio::test]
async fn task_options_set_on_a_live_server_apply_until_the_first_task_fixes_them() {
    let s = task_server(TaskOptions::default(), Arc::new(AtomicBool::new(false)));
    let options = TaskOptions {
        poll_interval: Duration::from_millis(250),
        default_ttl: Duration::from_secs(7),
        ..TaskOptions::default()
    };
    s.set_task_options(options).expect("no task yet");
    assert_eq!(s.task_options().poll_interval, Duration::from_millis(250));
    let h = Harness::new(s.clone());
    h.initialize(V2025, json!({})).await;
    let created = h.ok("tools/call", json!({"name": "slow", "arguments": {"ms": 10}, "task": {}})).await;
    assert_eq!(created["task"]["pollInterval"], 250);
    assert_eq!(created["task"]["ttl"], 7000);
    let late = s.set_task_options(TaskOptions::default());
    assert!(matches!(late, Err(ferrite_core::ConfigError::TasksStarted)), "{late:?}");
    assert_eq!(s.task_options().poll_interval, Duration::from_millis(250), "unchanged");
}

#[tokio::test]
async fn a_2026_call_cancelled_before_it_becomes_a_task_makes_no_task_and_its_handler_sees_it() {
    let cancelled = Arc::new(AtomicBool::new(false));
    // A promotion window long enough to cancel in: the handler is still running inline.
    let options = TaskOptions { promote_after: Duration::from_secs(2), ..TaskOptions::default() };
    let s = task_server(options, cancelled.clone());
    let h = Arc::new(Harness::new(s.clone()));
    let h2 = h.clone();
    let call = tokio::spawn(async move {
        let params = common::enveloped(json!({"name": "slow", "arguments": {"ms": 10_000}}), ext());
        h2.server.handle(ferrite_core::Message::request(9, "tools/call", Some(params)), &h2.conn, &h2.peer).await
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    h.notify("notifications/cancelled", json!({"requestId": 9})).await;
    let answer = tokio::time::timeout(Duration::from_secs(1), call).await.expect("the call ended at once").unwrap();
    assert!(answer.is_none(), "a cancelled request gets no response: {answer:?}");
    for _ in 0..100 {
        if cancelled.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(cancelled.load(Ordering::SeqCst), "the handler saw its cancellation");
    assert_eq!(s.stats().tasks_created, 0, "no task was made of a cancelled call");
}
