//! The middleware chain (issue 16): order, changing the request, answering without the
//! handler, reading and changing the answer, in both eras.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ferrite_core::server::middleware::{
    answer_value, answer_with, Answer, MiddlewareNotification, MiddlewareRequest, Next, NextNotification,
};
use ferrite_core::{CallToolResult, ErrorObject, Server, Tool};
use serde_json::{json, Value};

mod common;
use common::{stateful, Harness};

/// A server whose `add` counts its calls.
fn server(calls: &Arc<AtomicUsize>) -> Server {
    let s = stateful("mw");
    let calls = calls.clone();
    s.add_tool_fn(Tool::new("add", json!({"type":"object"})).with_description("adds"), move |a| {
        calls.fetch_add(1, Ordering::SeqCst);
        Ok(CallToolResult::text((a["a"].as_i64().unwrap_or(0) + a["b"].as_i64().unwrap_or(0)).to_string()))
    })
    .unwrap();
    s
}

fn add(a: i64, b: i64) -> Value {
    json!({"name": "add", "arguments": {"a": a, "b": b}})
}

#[tokio::test]
async fn middleware_runs_in_the_order_added_around_the_handler_in_both_eras() {
    let calls = Arc::new(AtomicUsize::new(0));
    let s = server(&calls);
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    for name in ["a", "b"] {
        let log = log.clone();
        s.add_middleware(move |req: MiddlewareRequest, next: Next| {
            let log = log.clone();
            async move {
                log.lock().unwrap().push(format!("{name}> {}", req.method));
                let answer = next.run(req).await;
                log.lock().unwrap().push(format!("<{name}"));
                answer
            }
        });
    }
    let h = Harness::new(s);
    assert_eq!(h.ok("tools/call", add(1, 2)).await["content"][0]["text"], "3");
    assert_eq!(*log.lock().unwrap(), ["a> tools/call", "b> tools/call", "<b", "<a"]);
    log.lock().unwrap().clear();
    let modern = h.modern("tools/call", add(2, 2), json!({})).await;
    assert_eq!(modern["result"]["content"][0]["text"], "4", "{modern}");
    assert_eq!(*log.lock().unwrap(), ["a> tools/call", "b> tools/call", "<b", "<a"]);
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn middleware_can_change_the_request() {
    let calls = Arc::new(AtomicUsize::new(0));
    let s = server(&calls);
    s.add_middleware(|mut req: MiddlewareRequest, next: Next| async move {
        if req.name() == Some("add") {
            if let Some(p) = req.params.as_mut() {
                p["arguments"]["a"] = json!(40);
            }
        }
        next.run(req).await
    });
    let h = Harness::new(s);
    assert_eq!(h.ok("tools/call", add(1, 2)).await["content"][0]["text"], "42");
}

#[tokio::test]
async fn middleware_can_answer_without_the_handler_with_an_error_or_a_result() {
    let calls = Arc::new(AtomicUsize::new(0));
    let s = server(&calls);
    s.add_middleware(|req: MiddlewareRequest, next: Next| async move {
        match (req.method.as_str(), req.name()) {
            ("tools/call", Some("add")) if req.params.as_ref().is_some_and(|p| p["arguments"]["a"] == json!(13)) => {
                Err(ErrorObject::new(-32001, "thirteen is refused here"))
            }
            ("tools/list", _) => answer_with(&json!({"tools": []})),
            _ => next.run(req).await,
        }
    });
    let h = Harness::new(s);
    let refused = h.call("tools/call", add(13, 1)).await;
    assert_eq!(refused["error"], json!({"code": -32001, "message": "thirteen is refused here"}));
    assert_eq!(h.ok("tools/list", json!({})).await, json!({"tools": []}));
    // On 2026-07-28 the middleware's own result gets what every result there has.
    let modern = Harness::new(h.server.clone()).modern_ok("tools/list", json!({}), json!({})).await;
    assert_eq!(modern["resultType"], "complete", "{modern}");
    assert_eq!(modern["tools"], json!([]));
    assert!(modern["_meta"]["io.modelcontextprotocol/serverInfo"]["name"].is_string(), "{modern}");
    assert_eq!(calls.load(Ordering::SeqCst), 0, "the handler never ran");
    assert_eq!(h.ok("tools/call", add(1, 1)).await["content"][0]["text"], "2");
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn middleware_can_read_and_change_the_answer() {
    let calls = Arc::new(AtomicUsize::new(0));
    let s = server(&calls);
    let seen = Arc::new(Mutex::new(Vec::<Value>::new()));
    let keep = seen.clone();
    s.add_middleware(move |req: MiddlewareRequest, next: Next| {
        let keep = keep.clone();
        async move {
            let answer = next.run(req).await;
            let Some(mut v) = answer_value(&answer) else { return answer };
            keep.lock().unwrap().push(v.clone());
            v["content"][0]["text"] = json!(format!("sum: {}", v["content"][0]["text"].as_str().unwrap_or("")));
            answer_with(&v)
        }
    });
    let h = Harness::new(s);
    assert_eq!(h.ok("tools/call", add(2, 3)).await["content"][0]["text"], "sum: 5");
    assert_eq!(*seen.lock().unwrap(), [json!({"content": [{"type": "text", "text": "5"}]})]);
    // An error answer passes through untouched (an unknown tool).
    assert_eq!(h.call("tools/call", json!({"name": "nope"})).await["error"]["code"], -32602);
}

#[test]
fn each_method_family_names_its_typed_hook_and_other_methods_none() {
    use ferrite_core::server::middleware::hook_of;
    let table = [
        ("tools/call", "call_tool"),
        ("tools/list", "list_tools"),
        ("resources/read", "read_resource"),
        ("resources/list", "list_resources"),
        ("resources/templates/list", "list_resource_templates"),
        ("prompts/get", "get_prompt"),
        ("prompts/list", "list_prompts"),
        ("completion/complete", "complete"),
    ];
    for (method, hook) in table {
        assert_eq!(hook_of(method), Some(hook), "{method}");
    }
    for method in ["initialize", "ping", "logging/setLevel", "com.example/custom", "tasks/get"] {
        assert_eq!(hook_of(method), None, "{method}");
    }
}

/// A middleware that logs the notifications it sees under `name`, drops the methods in
/// `drop`, and stamps `{"stamped": name}` into the params of the rest.
struct Notifications {
    name: &'static str,
    log: Arc<Mutex<Vec<String>>>,
    drop: &'static [&'static str],
}

impl ferrite_core::server::middleware::Middleware for Notifications {
    fn call(&self, request: MiddlewareRequest, next: Next) -> ferrite_core::BoxFuture<'static, Answer> {
        next.run(request)
    }

    fn notify(&self, mut n: MiddlewareNotification, next: NextNotification) -> ferrite_core::BoxFuture<'static, ()> {
        let (name, log) = (self.name, self.log.clone());
        log.lock().unwrap().push(format!("{name}> {} on {}", n.method, n.connection.id()));
        if self.drop.contains(&n.method.as_str()) {
            return Box::pin(async {});
        }
        if let Some(Value::Object(p)) = n.params.as_mut() {
            p.insert("stamped".into(), json!(name));
        }
        Box::pin(async move {
            next.run(n).await;
            log.lock().unwrap().push(format!("<{name}"));
        })
    }
}

#[tokio::test]
async fn notifications_pass_through_the_chain_in_order_and_can_be_changed_or_dropped() {
    let calls = Arc::new(AtomicUsize::new(0));
    let s = server(&calls);
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    s.add_middleware(Notifications { name: "a", log: log.clone(), drop: &[] });
    s.add_middleware(Notifications { name: "b", log: log.clone(), drop: &["notifications/roots/list_changed"] });
    let seen = Arc::new(Mutex::new(Vec::<(String, Option<Value>)>::new()));
    let observed = seen.clone();
    s.set_notification_observer(move |method: &str, params: Option<&Value>| {
        observed.lock().unwrap().push((method.to_owned(), params.cloned()));
    });
    let roots = Arc::new(AtomicUsize::new(0));
    let r = roots.clone();
    s.set_roots_list_changed_observer(move || {
        r.fetch_add(1, Ordering::SeqCst);
    });
    // A closure middleware (requests only) passes notifications on untouched.
    s.add_middleware(|req: MiddlewareRequest, next: Next| next.run(req));
    let h = Harness::new(s);
    let conn = h.conn.id().to_owned();

    h.notify("notifications/progress", json!({"progressToken": "t", "progress": 1})).await;
    assert_eq!(
        *log.lock().unwrap(),
        [
            format!("a> notifications/progress on {conn}"),
            format!("b> notifications/progress on {conn}"),
            "<b".into(),
            "<a".into()
        ]
    );
    // What the core acted on is what the innermost middleware left: stamped by a, then b.
    assert_eq!(
        seen.lock().unwrap().as_slice(),
        [("notifications/progress".to_owned(), Some(json!({"progressToken": "t", "progress": 1, "stamped": "b"})))]
    );

    // b drops roots/list_changed: a saw it, the core did not (no observer call, no roots callback).
    log.lock().unwrap().clear();
    h.notify("notifications/roots/list_changed", json!({})).await;
    assert_eq!(
        *log.lock().unwrap(),
        [
            format!("a> notifications/roots/list_changed on {conn}"),
            format!("b> notifications/roots/list_changed on {conn}"),
            "<a".into()
        ]
    );
    assert_eq!(roots.load(Ordering::SeqCst), 0);
    assert_eq!(seen.lock().unwrap().len(), 1, "the dropped notification reached the core");

    // Requests still pass through the same chain, untouched by the notification hook.
    assert_eq!(h.ok("tools/call", add(2, 3)).await["content"][0]["text"], "5");
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

/// A middleware that panics on a notification.
struct PanicsOnNotification;

impl ferrite_core::server::middleware::Middleware for PanicsOnNotification {
    fn call(&self, request: MiddlewareRequest, next: Next) -> ferrite_core::BoxFuture<'static, Answer> {
        next.run(request)
    }

    fn notify(&self, _: MiddlewareNotification, _: NextNotification) -> ferrite_core::BoxFuture<'static, ()> {
        panic!("boom")
    }
}

#[tokio::test]
async fn a_middleware_that_panics_on_a_notification_stops_it_and_the_server_keeps_serving() {
    let calls = Arc::new(AtomicUsize::new(0));
    let s = server(&calls);
    let roots = Arc::new(AtomicUsize::new(0));
    let r = roots.clone();
    s.set_roots_list_changed_observer(move || {
        r.fetch_add(1, Ordering::SeqCst);
    });
    s.add_middleware(PanicsOnNotification);
    let h = Harness::new(s);
    h.notify("notifications/roots/list_changed", json!({})).await;
    assert_eq!(roots.load(Ordering::SeqCst), 0);
    assert_eq!(h.ok("tools/call", add(1, 1)).await["content"][0]["text"], "2");
}
