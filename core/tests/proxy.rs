//! Proxying (issue 16): a server in front of the Rust everything server (a stdio child) and of
//! an in-process HTTP server, in both eras: calls, progress, logging, server-to-client
//! requests, cancellation, list changes, input-required pass-through, and an upstream that
//! goes away.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use ferrite_core::proxy::{ProxyError, Upstream, UpstreamEra, UpstreamTarget};
use ferrite_core::transport::http;
use ferrite_core::{CallToolResult, InputRequest, InputRequired, Message, Reply, RequestContext, Server, Tool};
use serde_json::{json, Value};

mod common;
use common::{stateful, Harness};

/// The everything example `cargo test` builds beside the test executables.
fn everything() -> UpstreamTarget {
    let exe = std::env::current_exe().expect("test executable");
    let profile: PathBuf = exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>").to_path_buf();
    let program = profile.join("examples/everything");
    assert!(program.exists(), "{} is missing: cargo test builds the examples first", program.display());
    UpstreamTarget::Stdio { program: program.display().to_string(), args: Vec::new(), env: Vec::new() }
}

async fn proxied(era: UpstreamEra) -> (Server, ferrite_core::proxy::Proxy) {
    Upstream::connect(&everything(), era).await.expect("connect").into_server().await.expect("mirror")
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn the_everything_server_through_a_stdio_proxy_in_both_eras() {
    let (server, proxy) = proxied(UpstreamEra::Auto).await;
    assert_eq!(server.info().name, "ferrite-everything", "the proxy takes the upstream's identity");
    let h = Harness::new(server.clone());
    let caps = h.initialize("2025-11-25", json!({"sampling": {}})).await["capabilities"].clone();
    assert_eq!(caps["tools"]["listChanged"], true, "{caps}");
    assert_eq!(caps["resources"]["subscribe"], true, "{caps}");
    let tools = h.ok("tools/list", json!({})).await;
    assert!(tools["tools"].as_array().unwrap().iter().any(|t| t["name"] == "add"), "{tools}");
    let r = h.ok("tools/call", json!({"name": "add", "arguments": {"a": 20, "b": 22}})).await;
    assert_eq!(text(&r), "42");
    assert_eq!(r["structuredContent"], json!({"sum": 42}));
    let modern = Harness::new(server.clone());
    let r = modern.modern_ok("tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2}}), json!({})).await;
    assert_eq!(text(&r), "3");
    let r = h.ok("resources/read", json!({"uri": "test://static-text"})).await;
    assert_eq!(r["contents"][0]["uri"], "test://static-text");
    let p = h.ok("prompts/get", json!({"name": "test_simple_prompt"})).await;
    assert!(p["messages"].as_array().is_some_and(|m| !m.is_empty()), "{p}");
    // An upstream tool error stays a tool error; an unknown tool is the local -32602.
    let e = h.ok("tools/call", json!({"name": "test_error_handling", "arguments": {}})).await;
    assert_eq!(e["isError"], true);
    assert_eq!(h.err_code("tools/call", json!({"name": "nope", "arguments": {}})).await, -32602);
    proxy.close();
}

#[tokio::test]
async fn progress_logs_and_sampling_reach_the_client_of_the_forwarded_call() {
    let (server, proxy) = proxied(UpstreamEra::Auto).await;
    let h = Harness::new(server);
    h.initialize("2025-11-25", json!({"sampling": {}})).await;
    h.ok("logging/setLevel", json!({"level": "debug"})).await;
    h.ok("tools/call", json!({"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "mine"}}))
        .await;
    let progress: Vec<Value> =
        h.recorder.frames().into_iter().filter(|f| f["method"] == "notifications/progress").collect();
    assert_eq!(progress.len(), 3, "{progress:?}");
    assert!(progress.iter().all(|f| f["params"]["progressToken"] == "mine"), "the client's own token: {progress:?}");
    assert_eq!(progress[2]["params"]["progress"], 100.0);
    h.ok("tools/call", json!({"name": "test_tool_with_logging", "arguments": {}})).await;
    let logs: Vec<Value> = h.recorder.frames().into_iter().filter(|f| f["method"] == "notifications/message").collect();
    assert_eq!(logs.len(), 3, "{logs:?}");
    assert_eq!(logs[0]["params"]["data"], "Tool execution started");
    *h.recorder.reply.lock().unwrap() =
        Some(json!({"role": "assistant", "content": {"type": "text", "text": "from the client"}, "model": "m"}));
    let r = h.ok("tools/call", json!({"name": "test_sampling", "arguments": {"prompt": "hi"}})).await;
    assert!(text(&r).contains("from the client"), "{r}");
    let asked = h.recorder.requests.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].0, "sampling/createMessage", "the upstream's request reached this client");
    proxy.close();
}

#[tokio::test]
async fn cancelling_the_client_request_cancels_the_upstream_one() {
    let (server, proxy) = proxied(UpstreamEra::Handshake).await;
    let h = Arc::new(Harness::new(server));
    h.initialize("2025-11-25", json!({})).await;
    let h2 = h.clone();
    let call = tokio::spawn(async move {
        let msg = Message::request(7, "tools/call", Some(json!({"name": "test_slow", "arguments": {"ms": 5000}})));
        h2.server.handle(msg, &h2.conn, &h2.peer).await
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    h.notify("notifications/cancelled", json!({"requestId": 7})).await;
    let answer = tokio::time::timeout(Duration::from_secs(3), call).await.expect("the call ended").unwrap();
    assert!(answer.is_none(), "a cancelled request gets no response");
    // The upstream saw the cancellation: its handler counted it.
    let mut counted = String::new();
    for _ in 0..50 {
        counted =
            text(&h.ok("tools/call", json!({"name": "test_cancellation_count", "arguments": {}})).await).to_owned();
        if counted == "1" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(counted, "1");
    proxy.close();
}

#[tokio::test]
async fn a_stdio_upstreams_input_request_with_two_clients_calls_in_flight_is_refused_and_asks_nobody() {
    let (server, proxy) = proxied(UpstreamEra::Handshake).await;
    let (a, b) = (Arc::new(Harness::new(server.clone())), Harness::new(server));
    a.initialize("2025-11-25", json!({"sampling": {}})).await;
    b.initialize("2025-11-25", json!({"sampling": {}})).await;
    // A's call is in flight upstream while B's asks for sampling: stdio cannot say whose it is.
    let a2 = a.clone();
    let slow =
        tokio::spawn(async move { a2.ok("tools/call", json!({"name": "test_slow", "arguments": {"ms": 1500}})).await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let r = b.call("tools/call", json!({"name": "test_sampling", "arguments": {"prompt": "hi"}})).await;
    assert!(r.to_string().contains("the proxy has no client request to ask this for"), "{r}");
    assert!(a.recorder.requests.lock().unwrap().is_empty(), "A was not asked");
    assert!(b.recorder.requests.lock().unwrap().is_empty(), "B was not asked");
    slow.await.unwrap();
    // With one call in flight, the same request reaches its client.
    *b.recorder.reply.lock().unwrap() =
        Some(json!({"role": "assistant", "content": {"type": "text", "text": "from B"}, "model": "m"}));
    let r = b.ok("tools/call", json!({"name": "test_sampling", "arguments": {"prompt": "hi"}})).await;
    assert!(text(&r).contains("from B"), "{r}");
    proxy.close();
}

#[tokio::test]
async fn the_upstreams_list_changes_are_followed_and_announced() {
    let (server, proxy) = proxied(UpstreamEra::Handshake).await;
    let h = Harness::new(server.clone());
    h.initialize("2025-11-25", json!({})).await;
    let _guard = server.attach_listener(&h.conn, &h.peer);
    let before = h.ok("tools/list", json!({})).await;
    let version = |list: &Value| {
        list["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "test_dynamic_tool")
            .map(|t| t["description"].clone())
    };
    let first = version(&before);
    h.ok("tools/call", json!({"name": "test_trigger_tool_change", "arguments": {}})).await;
    let mut announced = false;
    for _ in 0..100 {
        if h.recorder.methods().iter().any(|m| m == "notifications/tools/list_changed") {
            announced = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(announced, "the proxy's listener heard the change: {:?}", h.recorder.methods());
    let after = h.ok("tools/list", json!({})).await;
    assert_ne!(version(&after), first, "the mirror re-listed the upstream's tools");
    proxy.close();
}

#[tokio::test]
async fn an_upstream_that_goes_away_gives_clear_errors_and_the_proxy_keeps_serving() {
    let missing = UpstreamTarget::Stdio { program: "/nonexistent/mcp-server".into(), args: vec![], env: vec![] };
    assert!(matches!(Upstream::connect(&missing, UpstreamEra::Auto).await, Err(ProxyError::Connect(_))));
    assert!(matches!(UpstreamTarget::from_value(&json!({"command": 3})), Err(ProxyError::Target(_))));
    let (server, proxy) = proxied(UpstreamEra::Handshake).await;
    server.add_tool_fn(Tool::new("local", json!({"type": "object"})), |_| Ok(CallToolResult::text("here"))).unwrap();
    let h = Harness::new(server);
    h.initialize("2025-11-25", json!({})).await;
    proxy.close();
    let r = h.call("tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 1}})).await;
    assert_eq!(r["error"]["code"], -32603, "{r}");
    assert!(r["error"]["message"].as_str().unwrap().starts_with("upstream server:"), "{r}");
    assert_eq!(text(&h.ok("tools/call", json!({"name": "local", "arguments": {}})).await), "here");
}

/// An in-process HTTP upstream whose tool asks for input the 2026-07-28 way.
async fn http_upstream() -> (String, tokio::task::JoinHandle<()>) {
    let up = stateful("http-upstream");
    up.add_tool(Tool::new("confirm", json!({"type": "object"})), |_args: Value, ctx: RequestContext| async move {
        let reply = match ctx.input_responses().get("ok") {
            Some(answer) => Reply::Complete(CallToolResult::text(format!(
                "answered {} with state {}",
                answer["action"],
                ctx.request_state().unwrap_or("none")
            ))),
            None => Reply::InputRequired(
                InputRequired::new()
                    .ask("ok", InputRequest::elicit("Sure?", json!({"type": "object", "properties": {}})))
                    .with_state("upstream-state"),
            ),
        };
        Ok(reply)
    })
    .unwrap();
    let bound = http::bind(&up, ([127, 0, 0, 1], 0).into(), http::HttpOptions::default()).await.unwrap();
    let url = format!("http://{}/mcp", bound.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let _ = bound.run().await;
    });
    (url, task)
}

#[tokio::test]
async fn a_2026_client_answers_an_http_upstreams_input_request_by_retrying() {
    let (url, task) = http_upstream().await;
    let target = UpstreamTarget::Http { url, headers: vec![] };
    let (server, proxy) = Upstream::connect(&target, UpstreamEra::Auto).await.unwrap().into_server().await.unwrap();
    let h = Harness::new(server);
    let caps = json!({"elicitation": {}});
    let first = h.modern_ok("tools/call", json!({"name": "confirm", "arguments": {}}), caps.clone()).await;
    assert_eq!(first["resultType"], "input_required", "{first}");
    assert_eq!(first["inputRequests"]["ok"]["method"], "elicitation/create");
    let state = first["requestState"].as_str().expect("a request state").to_owned();
    assert_ne!(state, "upstream-state", "the proxy seals the upstream's state in its own");
    let retry = json!({"name": "confirm", "arguments": {}, "inputResponses": {"ok": {"action": "accept", "content": {}}}, "requestState": state});
    let done = h.modern_ok("tools/call", retry, caps).await;
    assert_eq!(text(&done), "answered \"accept\" with state upstream-state", "{done}");
    // A handshake-era client is asked here, and the upstream retried with the answer.
    let old = Harness::new(h.server.clone());
    old.initialize("2025-11-25", json!({"elicitation": {}})).await;
    *old.recorder.reply.lock().unwrap() = Some(json!({"action": "decline"}));
    let r = old.ok("tools/call", json!({"name": "confirm", "arguments": {}})).await;
    assert_eq!(text(&r), "answered \"decline\" with state upstream-state", "{r}");
    proxy.close();
    task.abort();
}

#[tokio::test]
async fn a_handshake_era_client_is_asked_at_its_own_revision_in_either_upstream_era() {
    let (url, task) = http_upstream().await;
    let target = UpstreamTarget::Http { url, headers: vec![] };
    for era in [UpstreamEra::Modern, UpstreamEra::Handshake] {
        let (server, proxy) = Upstream::connect(&target, era).await.unwrap().into_server().await.unwrap();
        // `mode` exists from 2025-11-25 on.
        for (version, mode) in [("2025-11-25", Some("form")), ("2025-06-18", None)] {
            let h = Harness::new(server.clone());
            h.initialize(version, json!({"elicitation": {}})).await;
            *h.recorder.reply.lock().unwrap() = Some(json!({"action": "accept", "content": {}}));
            let r = h.ok("tools/call", json!({"name": "confirm", "arguments": {}})).await;
            assert_eq!(text(&r), "answered \"accept\" with state upstream-state", "{era:?} {version}: {r}");
            let asked = h.recorder.requests.lock().unwrap().clone();
            assert_eq!(asked.len(), 1, "{era:?} {version}: {asked:?}");
            assert_eq!(asked[0].0, "elicitation/create");
            let params = asked[0].1.as_ref().unwrap();
            assert_eq!(params["message"], "Sure?", "{era:?} {version}: {params}");
            assert_eq!(params.get("mode").and_then(Value::as_str), mode, "{era:?} {version}: {params}");
        }
        proxy.close();
    }
    task.abort();
}

/// An in-process HTTP upstream `up`, served until the returned task is aborted; its URL.
async fn serve_upstream(up: &Server) -> (UpstreamTarget, tokio::task::JoinHandle<()>) {
    let bound = http::bind(up, ([127, 0, 0, 1], 0).into(), http::HttpOptions::default()).await.unwrap();
    let url = format!("http://{}/mcp", bound.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let _ = bound.run().await;
    });
    (UpstreamTarget::Http { url, headers: vec![] }, task)
}

/// Wait up to 5 s for `done`.
async fn eventually(mut done: impl FnMut() -> bool) -> bool {
    for _ in 0..250 {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    done()
}

/// The `data` of each `notifications/message` a harness received.
fn logged(h: &Harness) -> Vec<Value> {
    h.recorder
        .frames()
        .into_iter()
        .filter(|f| f["method"] == "notifications/message")
        .map(|f| f["params"]["data"].clone())
        .collect()
}

#[tokio::test]
async fn an_upstream_log_tied_to_no_call_reaches_each_client_at_its_own_level() {
    let up = stateful("logging-upstream");
    up.enable_logging();
    let (target, task) = serve_upstream(&up).await;
    let (server, proxy) =
        Upstream::connect(&target, UpstreamEra::Handshake).await.unwrap().into_server().await.unwrap();
    let (quiet, chatty) = (Harness::new(server.clone()), Harness::new(server.clone()));
    for (h, level) in [(&quiet, "error"), (&chatty, "info")] {
        h.initialize("2025-11-25", json!({})).await;
        h.ok("logging/setLevel", json!({"level": level})).await;
    }
    let _listening =
        [server.attach_listener(&quiet.conn, &quiet.peer), server.attach_listener(&chatty.conn, &chatty.peer)];
    assert!(eventually(|| !up.connected_sessions().is_empty()).await, "the proxy's GET stream upstream");
    up.send_log_message(ferrite_core::LoggingLevel::Warning, json!("warned"), None, None);
    up.send_log_message(ferrite_core::LoggingLevel::Error, json!("failed"), None, None);
    assert!(eventually(|| logged(&chatty).len() == 2).await, "{:?}", logged(&chatty));
    assert_eq!(logged(&chatty), [json!("warned"), json!("failed")]);
    assert_eq!(logged(&quiet), [json!("failed")], "a client at `error` gets no warning");
    proxy.close();
    task.abort();
}

/// An upstream serving `test://r` with subscriptions, and the methods it was asked, in order.
fn subscribable_upstream(name: &str) -> (Server, Arc<std::sync::Mutex<Vec<String>>>) {
    let up = stateful(name);
    up.add_text_resource(ferrite_core::Resource::new("test://r", "r"), "x");
    up.enable_resource_subscriptions().unwrap();
    let seen = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let record = seen.clone();
    up.add_middleware(
        move |req: ferrite_core::server::middleware::MiddlewareRequest,
              next: ferrite_core::server::middleware::Next| {
            record.lock().unwrap().push(req.method.clone());
            next.run(req)
        },
    );
    (up, seen)
}

#[tokio::test]
async fn one_clients_unsubscribe_leaves_the_others_subscribed_upstream() {
    let (up, seen) = subscribable_upstream("subscriptions-upstream");
    let unsubscribes = || seen.lock().unwrap().iter().filter(|m| *m == "resources/unsubscribe").count();
    let (target, task) = serve_upstream(&up).await;
    let (server, proxy) =
        Upstream::connect(&target, UpstreamEra::Handshake).await.unwrap().into_server().await.unwrap();
    let (a, b) = (Harness::new(server.clone()), Harness::new(server.clone()));
    for h in [&a, &b] {
        h.initialize("2025-11-25", json!({})).await;
        h.ok("resources/subscribe", json!({"uri": "test://r"})).await;
    }
    let _listening = server.attach_listener(&b.conn, &b.peer);
    assert!(eventually(|| !up.connected_sessions().is_empty()).await, "the proxy's GET stream upstream");
    a.ok("resources/unsubscribe", json!({"uri": "test://r"})).await;
    assert_eq!(unsubscribes(), 0, "b is still subscribed: the upstream is not told");
    up.notify_resource_updated("test://r");
    let updated = || b.recorder.methods().iter().any(|m| m == "notifications/resources/updated");
    assert!(eventually(updated).await, "b still hears of updates: {:?}", b.recorder.methods());
    b.ok("resources/unsubscribe", json!({"uri": "test://r"})).await;
    assert_eq!(unsubscribes(), 1, "the last subscriber gone, the upstream is told");
    proxy.close();
    task.abort();
}

#[tokio::test]
async fn the_upstreams_request_is_refused_to_a_client_that_did_not_declare_the_capability() {
    let (server, proxy) = proxied(UpstreamEra::Auto).await;
    let h = Harness::new(server);
    h.initialize("2025-11-25", json!({})).await;
    let r = h.call("tools/call", json!({"name": "test_sampling", "arguments": {"prompt": "hi"}})).await;
    assert!(h.recorder.requests.lock().unwrap().is_empty(), "nothing asked of a client without sampling");
    // The upstream's tool reports the refusal it got, as a tool error or a JSON-RPC error.
    let refused = r["result"]["isError"] == true || r.get("error").is_some();
    assert!(refused, "{r}");
    assert!(r.to_string().contains("sampling"), "the refusal names the capability: {r}");
    proxy.close();
}

#[tokio::test]
async fn the_clients_trace_context_and_own_meta_reach_the_upstream_in_either_era() {
    let up = stateful("meta-upstream");
    up.add_tool(Tool::new("meta", json!({"type": "object"})), |_args: Value, ctx: RequestContext| async move {
        let meta = ctx.meta().cloned().unwrap_or_default();
        let keys =
            ["traceparent", "tracestate", "com.example/tag"].map(|k| meta.get(k).cloned().unwrap_or(Value::Null));
        Ok(CallToolResult::text(Value::from(keys.to_vec()).to_string()))
    })
    .unwrap();
    let (target, task) = serve_upstream(&up).await;
    let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let meta = json!({"traceparent": traceparent, "tracestate": "v=1", "com.example/tag": 7});
    let want = json!([traceparent, "v=1", 7]).to_string();
    for era in [UpstreamEra::Handshake, UpstreamEra::Modern] {
        let (server, proxy) = Upstream::connect(&target, era).await.unwrap().into_server().await.unwrap();
        let h = Harness::new(server.clone());
        h.initialize("2025-11-25", json!({})).await;
        let r = h.ok("tools/call", json!({"name": "meta", "arguments": {}, "_meta": meta})).await;
        assert_eq!(text(&r), want, "{era:?}: {r}");
        let modern = Harness::new(server);
        let params = json!({"name": "meta", "arguments": {}, "_meta": meta});
        let r = modern.modern_ok("tools/call", params, json!({})).await;
        assert_eq!(text(&r), want, "{era:?}, a 2026-07-28 client: {r}");
        proxy.close();
    }
    task.abort();
}

#[tokio::test]
async fn an_http_upstream_that_forgot_the_proxys_session_gets_a_new_one_and_the_call_goes_through() {
    let (up, seen) = subscribable_upstream("forgetful-upstream");
    up.add_tool_fn(Tool::new("echo", json!({"type": "object"})), |a| Ok(CallToolResult::text(a.to_string()))).unwrap();
    let count = |method: &str| seen.lock().unwrap().iter().filter(|m| *m == method).count();
    let (target, task) = serve_upstream(&up).await;
    let UpstreamTarget::Http { url, .. } = &target else { unreachable!() };
    let addr: std::net::SocketAddr = url.trim_start_matches("http://").trim_end_matches("/mcp").parse().unwrap();
    let (server, proxy) =
        Upstream::connect(&target, UpstreamEra::Handshake).await.unwrap().into_server().await.unwrap();
    let h = Harness::new(server.clone());
    h.initialize("2025-11-25", json!({})).await;
    h.ok("resources/subscribe", json!({"uri": "test://r"})).await;
    let _listening = server.attach_listener(&h.conn, &h.peer);
    assert_eq!(text(&h.ok("tools/call", json!({"name": "echo", "arguments": {"n": 1}})).await), r#"{"n":1}"#);
    // The upstream forgets the session (as a restarted or expiring server does).
    assert!(eventually(|| up.connected_sessions().len() == 1).await, "the proxy's GET stream upstream");
    let session = up.connected_sessions()[0].clone();
    let gone = common::http::request(addr, "DELETE", &[("mcp-session-id", &session)], "").await;
    assert_eq!(gone.status, 200);
    // (Before, the 404's answer matched no request: the call waited forever.)
    let call = h.call("tools/call", json!({"name": "echo", "arguments": {"n": 2}}));
    let r = tokio::time::timeout(Duration::from_secs(10), call).await.expect("an answer within 10 s");
    assert_eq!(text(&r["result"]), r#"{"n":2}"#, "the call went through on a new session: {r}");
    let renewed = || up.connected_sessions().first().is_some_and(|s| *s != session);
    assert!(eventually(renewed).await, "a new session, its GET stream open: {:?}", up.connected_sessions());
    // The new session holds the client's subscription, and its GET stream carries the update.
    assert!(eventually(|| count("resources/subscribe") == 2).await, "{:?}", seen.lock().unwrap());
    up.notify_resource_updated("test://r");
    let updated = || h.recorder.methods().iter().any(|m| m == "notifications/resources/updated");
    assert!(eventually(updated).await, "{:?}", h.recorder.methods());
    proxy.close();
    task.abort();
}

#[tokio::test]
async fn an_http_upstreams_error_about_the_whole_request_answers_the_call_instead_of_hanging_it() {
    let up = stateful("small-upstream");
    up.add_tool_fn(Tool::new("echo", json!({"type": "object"})), |a| Ok(CallToolResult::text(a.to_string()))).unwrap();
    let opts = http::HttpOptions { max_body_bytes: 2048, ..http::HttpOptions::default() };
    let bound = http::bind(&up, ([127, 0, 0, 1], 0).into(), opts).await.unwrap();
    let target = UpstreamTarget::Http { url: format!("http://{}/mcp", bound.local_addr().unwrap()), headers: vec![] };
    let task = tokio::spawn(async move {
        let _ = bound.run().await;
    });
    let (server, proxy) =
        Upstream::connect(&target, UpstreamEra::Handshake).await.unwrap().into_server().await.unwrap();
    let h = Harness::new(server);
    h.initialize("2025-11-25", json!({})).await;
    // Too large for the upstream, which answers 413 with an error naming no request id.
    let call = h.call("tools/call", json!({"name": "echo", "arguments": {"text": "x".repeat(4096)}}));
    let r = tokio::time::timeout(Duration::from_secs(10), call).await.expect("an answer within 10 s");
    assert!(r.get("error").is_some() || r["result"]["isError"] == true, "{r}");
    assert_eq!(text(&h.ok("tools/call", json!({"name": "echo", "arguments": {"n": 1}})).await), r#"{"n":1}"#);
    proxy.close();
    task.abort();
}

/// A client that asks its user and never hears back: it records what the server sends, and
/// holds each server-to-client request open in the core's own table.
struct SilentClient {
    pending: Arc<ferrite_core::server::outbound::PendingRequests>,
    frames: Arc<std::sync::Mutex<Vec<Value>>>,
}

impl ferrite_core::Peer for SilentClient {
    fn send(&self, frame: String) {
        self.frames.lock().unwrap().push(serde_json::from_str(&frame).unwrap());
    }
    fn can_request(&self) -> bool {
        true
    }
    fn request(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> ferrite_core::BoxFuture<'static, Result<Value, ferrite_core::PeerError>> {
        let frames = self.frames.clone();
        self.pending
            .ask(method, params.as_ref(), move |f| frames.lock().unwrap().push(serde_json::from_str(&f).unwrap()))
    }
}

#[tokio::test]
async fn an_upstream_that_gives_up_its_question_has_the_proxy_withdraw_it_from_the_client() {
    let up = stateful("impatient-upstream");
    up.add_tool(Tool::new("impatient", json!({"type": "object"})), |_a: Value, ctx: RequestContext| async move {
        let asked = ctx.elicit("Your name?", json!({"type": "object", "properties": {"name": {"type": "string"}}}));
        match tokio::time::timeout(Duration::from_millis(300), asked).await {
            Ok(answer) => Ok(CallToolResult::text(format!("answered: {}", answer.is_ok()))),
            Err(_) => Ok(CallToolResult::text("gave up")),
        }
    })
    .unwrap();
    let (target, task) = serve_upstream(&up).await;
    let (server, proxy) = Upstream::connect(&target, UpstreamEra::Auto).await.unwrap().into_server().await.unwrap();
    let mut h = Harness::new(server);
    let frames = Arc::new(std::sync::Mutex::new(Vec::new()));
    let pending = Arc::new(ferrite_core::server::outbound::PendingRequests::new());
    h.peer = Arc::new(SilentClient { pending: pending.clone(), frames: frames.clone() });
    h.initialize("2025-11-25", json!({"elicitation": {}})).await;
    let r = tokio::time::timeout(Duration::from_secs(10), h.ok("tools/call", json!({"name": "impatient"})))
        .await
        .expect("the upstream's tool answers once it gives up");
    assert_eq!(text(&r), "gave up");
    let sent = frames.lock().unwrap().clone();
    let asked: Vec<&Value> = sent.iter().filter(|f| f["method"] == "elicitation/create").collect();
    assert_eq!(asked.len(), 1, "{sent:?}");
    let withdrawn = || {
        frames
            .lock()
            .unwrap()
            .iter()
            .any(|f| f["method"] == "notifications/cancelled" && f["params"]["requestId"] == asked[0]["id"])
    };
    assert!(eventually(withdrawn).await, "the proxy withdrew the question it asked for the upstream: {sent:?}");
    assert!(pending.is_empty(), "nothing left awaiting the client's answer");
    proxy.close();
    task.abort();
}

/// A client that answers each server-to-client request after `delay`.
struct SlowClient {
    delay: Duration,
    reply: Value,
}

impl ferrite_core::Peer for SlowClient {
    fn send(&self, _frame: String) {}
    fn can_request(&self) -> bool {
        true
    }
    fn request(
        &self,
        _m: &str,
        _p: Option<Value>,
    ) -> ferrite_core::BoxFuture<'static, Result<Value, ferrite_core::PeerError>> {
        let (delay, reply) = (self.delay, self.reply.clone());
        Box::pin(async move {
            tokio::time::sleep(delay).await;
            Ok(reply)
        })
    }
}

#[tokio::test]
async fn an_upstream_silent_past_the_timeout_is_cancelled_and_the_client_gets_32001_but_progress_and_questions_keep_it_alive(
) {
    let up = stateful("slow-upstream");
    let cancelled = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = cancelled.clone();
    up.add_tool(Tool::new("stall", json!({"type": "object"})), move |_a: Value, ctx: RequestContext| {
        let seen = seen.clone();
        async move {
            tokio::select! {
                _ = ctx.cancelled() => { seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst); }
                _ = tokio::time::sleep(Duration::from_secs(20)) => {}
            }
            Ok(CallToolResult::text("late"))
        }
    })
    .unwrap();
    up.add_tool(Tool::new("busy", json!({"type": "object"})), |_a: Value, ctx: RequestContext| async move {
        for i in 0..8 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            ctx.report_progress(f64::from(i), Some(8.0), None);
        }
        Ok(CallToolResult::text("done"))
    })
    .unwrap();
    up.add_tool(Tool::new("ask", json!({"type": "object"})), |_a: Value, ctx: RequestContext| async move {
        let r = ctx.elicit("Name?", json!({"type": "object", "properties": {"name": {"type": "string"}}})).await?;
        Ok(CallToolResult::text(format!("{:?}", r.action)))
    })
    .unwrap();
    // Answered 250 ms in (just before the 300 ms check), then 200 ms of work: the answer is a
    // sign of life.
    up.add_tool(Tool::new("ask_then_work", json!({"type": "object"})), |_a: Value, ctx: RequestContext| async move {
        let r = ctx.elicit("Name?", json!({"type": "object", "properties": {"name": {"type": "string"}}})).await?;
        tokio::time::sleep(Duration::from_millis(200)).await;
        Ok(CallToolResult::text(format!("{:?} then worked", r.action)))
    })
    .unwrap();
    let (target, task) = serve_upstream(&up).await;
    let spec = match &target {
        UpstreamTarget::Http { url, .. } => json!({"url": url, "era": "handshake", "timeout_ms": 300}),
        _ => unreachable!(),
    };
    let server = stateful("proxy");
    let proxy = server.proxy_upstream(&spec).await.unwrap();
    let mut h = Harness::new(server);
    h.peer = Arc::new(SlowClient { delay: Duration::from_millis(800), reply: json!({"action": "decline"}) });
    h.initialize("2025-11-25", json!({"elicitation": {}})).await;
    let started = std::time::Instant::now();
    let r = h.call("tools/call", json!({"name": "stall"})).await;
    assert_eq!(r["error"]["code"], -32001, "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("within 300 ms"), "{r}");
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    let told = || cancelled.load(std::sync::atomic::Ordering::SeqCst) == 1;
    assert!(eventually(told).await, "the upstream's handler saw the cancellation");
    // 800 ms of progress every 100 ms, and an 800 ms wait on the client, both past 300 ms.
    let r = h.ok("tools/call", json!({"name": "busy", "_meta": {"progressToken": "p"}})).await;
    assert_eq!(text(&r), "done");
    // The client asked for no progress: the proxy asks the upstream anyway, and passes none on.
    let shown = h.recorder.frames().len();
    let r = h.ok("tools/call", json!({"name": "busy"})).await;
    assert_eq!(text(&r), "done");
    assert!(h.recorder.frames()[shown..].iter().all(|f| f["method"] != "notifications/progress"));
    let r = h.ok("tools/call", json!({"name": "ask"})).await;
    assert_eq!(text(&r), "Decline");
    h.peer = Arc::new(SlowClient { delay: Duration::from_millis(250), reply: json!({"action": "decline"}) });
    let r = h.ok("tools/call", json!({"name": "ask_then_work"})).await;
    assert_eq!(text(&r), "Decline then worked");
    proxy.close();
    task.abort();
}

#[tokio::test]
async fn a_timeout_that_is_not_a_positive_whole_number_of_milliseconds_is_refused() {
    for bad in [json!(0), json!(-5), json!(1.5), json!("60")] {
        let e = ferrite_core::proxy::parse_upstream(&json!({"url": "http://127.0.0.1:1/mcp", "timeout_ms": bad}))
            .unwrap_err();
        assert!(e.to_string().contains("timeout_ms must be a positive whole number"), "{bad}: {e}");
    }
    let (_, options) = ferrite_core::proxy::parse_upstream(&json!({"command": "x"})).unwrap();
    assert_eq!(options.timeout, ferrite_core::proxy::DEFAULT_UPSTREAM_TIMEOUT);
}

#[tokio::test]
async fn a_2026_upstreams_list_changes_and_resource_updates_reach_the_proxys_clients_through_its_listen_stream() {
    let (up, seen) = subscribable_upstream("modern-upstream");
    up.enable_tools_list_changed();
    let count = |method: &str| seen.lock().unwrap().iter().filter(|m| *m == method).count();
    let (target, task) = serve_upstream(&up).await;
    let (server, proxy) = Upstream::connect(&target, UpstreamEra::Modern).await.unwrap().into_server().await.unwrap();
    let h = Harness::new(server.clone());
    h.initialize("2025-11-25", json!({})).await;
    let _listening = server.attach_listener(&h.conn, &h.peer);
    // From the start the proxy listens upstream for what the upstream announces.
    assert!(eventually(|| count("subscriptions/listen") == 1).await, "{:?}", seen.lock().unwrap());
    up.add_tool_fn(Tool::new("later", json!({"type": "object"})), |_a| Ok(CallToolResult::text("later"))).unwrap();
    up.notify_tools_list_changed();
    let announced = || h.recorder.methods().iter().any(|m| m == "notifications/tools/list_changed");
    assert!(eventually(announced).await, "the list change reached the proxy's client: {:?}", h.recorder.methods());
    let tools = h.ok("tools/list", json!({})).await;
    assert!(tools["tools"].as_array().unwrap().iter().any(|t| t["name"] == "later"), "re-listed: {tools}");
    // A client's subscription: a listen stream naming the URI replaces the first.
    h.ok("resources/subscribe", json!({"uri": "test://r"})).await;
    assert!(eventually(|| count("subscriptions/listen") == 2).await, "{:?}", seen.lock().unwrap());
    assert!(eventually(|| up.notify_resource_updated("test://r") > 0).await, "the new stream watches test://r");
    let updated = || {
        h.recorder
            .frames()
            .iter()
            .any(|f| f["method"] == "notifications/resources/updated" && f["params"]["uri"] == "test://r")
    };
    assert!(eventually(updated).await, "{:?}", h.recorder.methods());
    // The stream it replaced was closed: a list change reaches the client once.
    let before = h.recorder.methods().iter().filter(|m| *m == "notifications/tools/list_changed").count();
    tokio::time::sleep(Duration::from_millis(300)).await;
    up.notify_tools_list_changed();
    let once =
        || h.recorder.methods().iter().filter(|m| *m == "notifications/tools/list_changed").count() == before + 1;
    assert!(eventually(once).await);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after = h.recorder.methods().iter().filter(|m| *m == "notifications/tools/list_changed").count();
    assert_eq!(after, before + 1, "one stream left upstream");
    // The last subscriber leaves: the stream goes back to list changes alone.
    h.ok("resources/unsubscribe", json!({"uri": "test://r"})).await;
    assert!(eventually(|| count("subscriptions/listen") == 3).await, "{:?}", seen.lock().unwrap());
    assert!(
        h.recorder.methods().iter().all(|m| m != "notifications/subscriptions/acknowledged"),
        "the upstream's acknowledgements stay in the proxy"
    );
    proxy.close();
    task.abort();
}

#[tokio::test]
async fn replacing_the_upstream_listen_stream_leaves_one_open_and_a_refused_replacement_keeps_the_old() {
    let (up, seen) = subscribable_upstream("modern-upstream");
    up.enable_tools_list_changed();
    // The upstream refuses a listen stream naming test://bad.
    up.add_middleware(
        |req: ferrite_core::server::middleware::MiddlewareRequest, next: ferrite_core::server::middleware::Next| {
            let bad = req.method == "subscriptions/listen"
                && req.params.as_ref().is_some_and(|p| p.to_string().contains("test://bad"));
            Box::pin(async move {
                if bad {
                    return Err(ferrite_core::ErrorObject::invalid_params("no such resource: test://bad"));
                }
                next.run(req).await
            }) as ferrite_core::BoxFuture<'static, ferrite_core::server::middleware::Answer>
        },
    );
    let listens = || seen.lock().unwrap().iter().filter(|m| *m == "subscriptions/listen").count();
    // A stream its client closed is noticed at the next write: a keep-alive every 50 ms.
    let opts = http::HttpOptions { sse_keep_alive: Some(Duration::from_millis(50)), ..http::HttpOptions::default() };
    let bound = http::bind(&up, ([127, 0, 0, 1], 0).into(), opts).await.unwrap();
    let target = UpstreamTarget::Http { url: format!("http://{}/mcp", bound.local_addr().unwrap()), headers: vec![] };
    let task = tokio::spawn(async move {
        let _ = bound.run().await;
    });
    let (server, proxy) = Upstream::connect(&target, UpstreamEra::Modern).await.unwrap().into_server().await.unwrap();
    let h = Harness::new(server.clone());
    h.initialize("2025-11-25", json!({})).await;
    assert!(eventually(|| listens() == 1).await);
    // Three changes of the filter in a row: in the end one stream is open upstream.
    h.ok("resources/subscribe", json!({"uri": "test://r"})).await;
    h.ok("resources/subscribe", json!({"uri": "test://s"})).await;
    h.ok("resources/unsubscribe", json!({"uri": "test://s"})).await;
    assert!(eventually(|| listens() >= 3).await, "{:?}", seen.lock().unwrap());
    tokio::time::sleep(Duration::from_millis(2500)).await; // past any replacement's wait
    assert_eq!(up.notify_tools_list_changed(), 1, "one listen stream left upstream");
    assert_eq!(up.notify_resource_updated("test://r"), 1, "and it watches test://r");
    // A replacement the upstream refuses leaves the stream it would have replaced.
    let before = listens();
    h.ok("resources/subscribe", json!({"uri": "test://bad"})).await;
    assert!(eventually(|| listens() == before + 1).await);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(up.notify_tools_list_changed(), 1, "the old stream is still open");
    assert_eq!(up.notify_resource_updated("test://r"), 1);
    proxy.close();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(up.notify_tools_list_changed(), 0, "closing the proxy closes its stream upstream");
    task.abort();
}

#[tokio::test]
async fn an_unreachable_upstreams_error_does_not_carry_its_url() {
    let target = UpstreamTarget::Http { url: "http://127.0.0.1:9/mcp?api_key=sekrit".to_owned(), headers: vec![] };
    let e = Upstream::connect(&target, UpstreamEra::Handshake).await.unwrap_err();
    let text = e.to_string();
    assert!(text.contains("upstream"), "{text}");
    assert!(!text.contains("sekrit"), "the URL (and the key in it) stays out of errors and logs: {text}");
}
