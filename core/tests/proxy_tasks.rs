//! Tasks through a proxy (issue 16): the proxy's engine serves its clients' tasks of both
//! generations; a tool its upstream runs only as a task runs as one upstream, in either
//! upstream era, and is waited out there (`tasks/result`, or `tasks/get` and `tasks/update`);
//! the upstream task's input requests reach the proxy's client tied to the proxy's task, never
//! naming the upstream's; cancelling the proxy's task cancels the upstream's.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ferrite_core::proxy::{Upstream, UpstreamEra, UpstreamTarget};
use ferrite_core::transport::http;
use ferrite_core::{CallToolResult, Reply, RequestContext, TaskSupport, Tool};
use serde_json::{json, Value};

mod common;
use common::{stateful, Harness};

const TASKS: &str = "io.modelcontextprotocol/tasks";
const RELATED: &str = "io.modelcontextprotocol/related-task";

/// What the upstream's handlers saw.
#[derive(Default)]
struct Seen {
    /// `wait` calls that started.
    started: AtomicUsize,
    /// `wait` calls whose cancellation reached the handler.
    cancelled: AtomicUsize,
}

/// An in-process upstream over Streamable HTTP with two tools it runs only as tasks: `ask`
/// (asks the client to confirm, in the task) and `wait` (runs until cancelled).
async fn upstream() -> (String, Arc<Seen>, tokio::task::JoinHandle<()>) {
    let up = stateful("task-upstream");
    let seen = Arc::new(Seen::default());
    let confirm = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
    let ask = Tool::new("ask", json!({"type": "object"})).with_task_support(TaskSupport::Required);
    up.add_tool(ask, move |_a: Value, ctx: RequestContext| {
        let confirm = confirm.clone();
        async move {
            let answer =
                ctx.elicit("Go on?", confirm).await.map_err(|e| ferrite_core::HandlerError::failed(e.to_string()))?;
            Ok(Reply::Complete(CallToolResult::text(format!("got {:?}", answer.action))))
        }
    })
    .unwrap();
    // `twice`: two questions asked together, the second a moment after the first (a poll of
    // the upstream can fall between them).
    let twice = Tool::new("twice", json!({"type": "object"})).with_task_support(TaskSupport::Required);
    up.add_tool(twice, move |_a: Value, ctx: RequestContext| async move {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
        let later = async {
            tokio::time::sleep(Duration::from_millis(400)).await;
            ctx.elicit("Second?", schema.clone()).await
        };
        let (first, second) = tokio::join!(ctx.elicit("First?", schema.clone()), later);
        let n = |r: Result<ferrite_core::ElicitResult, _>| {
            r.ok().and_then(|a| a.content).and_then(|c| c.get("n").and_then(Value::as_i64)).unwrap_or(-1)
        };
        Ok(Reply::Complete(CallToolResult::text(format!("{} {}", n(first), n(second)))))
    })
    .unwrap();
    let s = seen.clone();
    let wait = Tool::new("wait", json!({"type": "object"})).with_task_support(TaskSupport::Required);
    up.add_tool(wait, move |_a: Value, ctx: RequestContext| {
        let s = s.clone();
        async move {
            s.started.fetch_add(1, Ordering::SeqCst);
            ctx.cancelled().await;
            s.cancelled.fetch_add(1, Ordering::SeqCst);
            Ok(Reply::Complete(CallToolResult::text("stopped")))
        }
    })
    .unwrap();
    let bound = http::bind(&up, ([127, 0, 0, 1], 0).into(), http::HttpOptions::default()).await.unwrap();
    let url = format!("http://{}/mcp", bound.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let _ = bound.run().await;
    });
    (url, seen, task)
}

async fn proxy(url: &str, era: UpstreamEra) -> (Harness, ferrite_core::proxy::Proxy) {
    let target = UpstreamTarget::Http { url: url.to_owned(), headers: vec![] };
    let (server, proxy) = Upstream::connect(&target, era).await.expect("connect").into_server().await.expect("mirror");
    (Harness::new(server), proxy)
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// Poll a 2026-07-28 `tasks/get` until `done` holds.
async fn wait_for(h: &Harness, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let caps = json!({"elicitation": {}, "extensions": {TASKS: {}}});
    for _ in 0..200 {
        let got = h.modern_ok("tasks/get", json!({"taskId": id}), caps.clone()).await;
        if done(&got) {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("task {id} never got there");
}

/// Poll a 2026-07-28 `tasks/get` until the task neither works nor waits for input.
async fn finished(h: &Harness, id: &str) -> Value {
    wait_for(h, id, |t| t["status"] != "input_required" && t["status"] != "working").await
}

async fn eventually(what: &str, check: impl Fn() -> bool) {
    for _ in 0..250 {
        if check() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{what} never happened");
}

#[tokio::test]
async fn a_2025_11_25_client_takes_a_task_through_the_proxy_and_answers_its_input_in_either_upstream_era() {
    let (url, _seen, server) = upstream().await;
    for era in [UpstreamEra::Handshake, UpstreamEra::Modern] {
        let (h, proxy) = proxy(&url, era).await;
        h.initialize("2025-11-25", json!({"elicitation": {}})).await;
        let tools = h.ok("tools/list", json!({})).await;
        let ask = tools["tools"].as_array().unwrap().iter().find(|t| t["name"] == "ask").cloned().unwrap();
        if era == UpstreamEra::Handshake {
            // The upstream's own task support, mirrored (a 2026-07-28 upstream lists none).
            assert_eq!(ask["execution"]["taskSupport"], "required", "{era:?}: {ask}");
            // Required upstream, required here: a plain call is the spec's -32601.
            assert_eq!(h.err_code("tools/call", json!({"name": "ask", "arguments": {}})).await, -32601);
        }
        let created = h.ok("tools/call", json!({"name": "ask", "arguments": {}, "task": {}})).await;
        let id = created["task"]["taskId"].as_str().unwrap_or_else(|| panic!("{era:?}: {created}")).to_owned();
        *h.recorder.reply.lock().unwrap() = Some(json!({"action": "accept", "content": {"ok": true}}));
        let result = h.ok("tasks/result", json!({"taskId": id})).await;
        assert_eq!(text(&result), "got Accept", "{era:?}: {result}");
        assert_eq!(result["_meta"][RELATED]["taskId"], json!(id), "{era:?}: tied to the proxy's task: {result}");
        let asked = h.recorder.requests.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "{era:?}: {asked:?}");
        assert_eq!(asked[0].0, "elicitation/create");
        let meta = &asked[0].1.as_ref().unwrap()["_meta"];
        assert_eq!(meta[RELATED]["taskId"], json!(id), "{era:?}: the proxy's task, not the upstream's: {meta}");
        let got = h.ok("tasks/get", json!({"taskId": id})).await;
        assert_eq!(got["status"], "completed", "{era:?}: {got}");
        proxy.close();
    }
    server.abort();
}

#[tokio::test]
async fn a_2026_client_takes_a_task_through_the_proxy_and_answers_with_tasks_update_in_either_upstream_era() {
    let (url, _seen, server) = upstream().await;
    for era in [UpstreamEra::Auto, UpstreamEra::Modern, UpstreamEra::Handshake] {
        let (h, proxy) = proxy(&url, era).await;
        let caps = json!({"elicitation": {}, "extensions": {TASKS: {}}});
        // Without the extension the tool cannot run here, as upstream (Handshake and Auto
        // mirrored `required`; a Modern mirror learns it from the upstream's -32021).
        if era != UpstreamEra::Modern {
            let refused = h.modern_err("tools/call", json!({"name": "ask", "arguments": {}}), json!({})).await;
            assert_eq!(refused["code"], -32021, "{era:?}: {refused}");
        }
        let created = h.modern_ok("tools/call", json!({"name": "ask", "arguments": {}}), caps.clone()).await;
        assert_eq!(created["resultType"], "task", "{era:?}: {created}");
        let id = created["taskId"].as_str().unwrap().to_owned();
        let waiting = wait_for(&h, &id, |t| t["status"] == "input_required").await;
        let requests = waiting["inputRequests"].as_object().cloned().unwrap_or_default();
        assert_eq!(requests.len(), 1, "{era:?}: {waiting}");
        let (key, request) = requests.into_iter().next().unwrap();
        assert_eq!(request["method"], "elicitation/create", "{era:?}: {request}");
        assert!(request["params"]["_meta"].get(RELATED).is_none(), "{era:?}: no upstream task id: {request}");
        let answer = json!({"taskId": id, "inputResponses": {key: {"action": "decline"}}});
        h.modern_ok("tasks/update", answer, caps.clone()).await;
        let done = finished(&h, &id).await;
        assert_eq!(done["status"], "completed", "{era:?}: {done}");
        assert_eq!(text(&done["result"]), "got Decline", "{era:?}: {done}");
        proxy.close();
    }
    server.abort();
}

#[tokio::test]
async fn an_upstream_tasks_input_requests_shown_one_poll_apart_all_reach_the_client_before_any_answer() {
    let (url, _seen, server) = upstream().await;
    for era in [UpstreamEra::Modern, UpstreamEra::Handshake] {
        let (h, proxy) = proxy(&url, era).await;
        let caps = json!({"elicitation": {}, "extensions": {TASKS: {}}});
        let created = h.modern_ok("tools/call", json!({"name": "twice", "arguments": {}}), caps.clone()).await;
        let id = created["taskId"].as_str().unwrap_or_else(|| panic!("{era:?}: {created}")).to_owned();
        // The client answers nothing until it sees both questions.
        let both = wait_for(&h, &id, |t| t["inputRequests"].as_object().is_some_and(|r| r.len() == 2)).await;
        assert_eq!(both["status"], "input_required", "{era:?}: {both}");
        let keys: Vec<String> = both["inputRequests"].as_object().unwrap().keys().cloned().collect();
        let message = |k: &str| both["inputRequests"][k]["params"]["message"].as_str().unwrap_or_default().to_owned();
        let (first, second) = if message(&keys[0]) == "First?" { (&keys[0], &keys[1]) } else { (&keys[1], &keys[0]) };
        assert_eq!(message(second), "Second?", "{era:?}: {both}");
        // Answering one leaves the other asked.
        let answer =
            |k: &str, n: i64| json!({"taskId": id, "inputResponses": {k: {"action": "accept", "content": {"n": n}}}});
        h.modern_ok("tasks/update", answer(first, 1), caps.clone()).await;
        let left = h.modern_ok("tasks/get", json!({"taskId": id}), caps.clone()).await;
        assert_eq!(left["status"], "input_required", "{era:?}: {left}");
        let left_keys: Vec<&String> = left["inputRequests"].as_object().unwrap().keys().collect();
        assert_eq!(left_keys, [second], "{era:?}: {left}");
        h.modern_ok("tasks/update", answer(second, 2), caps.clone()).await;
        let done = finished(&h, &id).await;
        assert_eq!(done["status"], "completed", "{era:?}: {done}");
        assert_eq!(text(&done["result"]), "1 2", "{era:?}: {done}");
        proxy.close();
    }
    server.abort();
}

#[tokio::test]
async fn cancelling_the_proxys_task_cancels_the_upstreams_in_either_upstream_era() {
    let (url, seen, server) = upstream().await;
    let mut expected = 0;
    for era in [UpstreamEra::Handshake, UpstreamEra::Modern] {
        let (h, proxy) = proxy(&url, era).await;
        h.initialize("2025-11-25", json!({})).await;
        let created = h.ok("tools/call", json!({"name": "wait", "arguments": {}, "task": {}})).await;
        let id = created["task"]["taskId"].as_str().unwrap().to_owned();
        expected += 1;
        eventually("the upstream task started", || seen.started.load(Ordering::SeqCst) == expected).await;
        assert_eq!(seen.cancelled.load(Ordering::SeqCst), expected - 1);
        let cancelled = h.ok("tasks/cancel", json!({"taskId": id})).await;
        assert_eq!(cancelled["status"], "cancelled", "{era:?}: {cancelled}");
        eventually("the upstream task was cancelled", || seen.cancelled.load(Ordering::SeqCst) == expected).await;
        proxy.close();
    }
    server.abort();
}
