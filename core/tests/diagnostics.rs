//! The core's diagnostics through its own sink (issue 16): the events a binding's callback
//! gets (sessions, refused requests, handler panics, invalid results), the level threshold,
//! and what never appears in them (session ids, bearer tokens). The sink is process-global, so
//! everything runs in one test, in order.

use std::sync::{Arc, Mutex};

use ferrite_core::diagnostics::{self, Level};
use ferrite_core::transport::http::{self, HttpOptions};
use ferrite_core::{CallToolResult, HandlerError, Implementation, Server, Tool};
use serde_json::json;

mod common;
use common::http::*;

type Seen = Arc<Mutex<Vec<(Level, String, String)>>>;

fn sink(level: Level) -> Seen {
    let seen: Seen = Arc::default();
    let s = seen.clone();
    diagnostics::install(
        level,
        Arc::new(move |r: &diagnostics::Record<'_>| {
            s.lock().unwrap().push((r.level, r.target.to_owned(), r.message.to_owned()));
        }),
    )
    .unwrap();
    seen
}

fn take(seen: &Seen) -> Vec<(Level, String, String)> {
    std::mem::take(&mut *seen.lock().unwrap())
}

fn init_body() -> String {
    json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}).to_string()
}

fn call_body(name: &str) -> String {
    json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":name,"arguments":{}}}).to_string()
}

#[tokio::test]
async fn the_sink_gets_the_cores_events_at_its_level_and_never_a_session_id() {
    let s = Server::builder(Implementation::new("diag", "1")).stateful().build();
    s.add_tool_fn(Tool::new("boom", json!({"type":"object"})).with_description("panics"), |_| panic!("boom")).unwrap();
    s.add_tool_fn(Tool::new("scalar", json!({"type":"object"})).with_description("invalid result"), |_| {
        Ok(CallToolResult::structured(json!(3)))
    })
    .unwrap();
    s.add_tool_fn(Tool::new("fails", json!({"type":"object"})).with_description("fails"), |_| {
        Err(HandlerError::failed("it broke"))
    })
    .unwrap();
    s.add_tool_fn(Tool::new("forges", json!({"type":"object"})).with_description("fails on two lines"), |_| {
        Err(HandlerError::failed("it broke\nERROR ferrite::auth forged record"))
    })
    .unwrap();
    let opts = HttpOptions::default();
    let shutdown = opts.shutdown.clone();
    let bound = http::bind(&s, "127.0.0.1:0".parse().unwrap(), opts).await.unwrap();
    let addr = bound.local_addr().unwrap();
    tokio::spawn(bound.run());

    // Nothing before a sink is installed, and nothing is lost by emitting without one.
    assert_eq!(diagnostics::level(), None);

    // At info: the session's creation, a refused request with its status and reason.
    let seen = sink(Level::Info);
    let r = request(addr, "POST", &[JSON, ACCEPT], &init_body()).await;
    assert_eq!(r.status, 200);
    let id = r.header("mcp-session-id").unwrap().to_owned();
    let refused = request(addr, "POST", &[JSON, ("accept", "text/plain")], &init_body()).await;
    assert_eq!(refused.status, 406);
    let got = take(&seen);
    assert!(
        got.iter().any(|(l, t, m)| *l == Level::Info && t == "ferrite::session" && m == "session created live=1"),
        "{got:?}"
    );
    assert!(
        got.iter().any(|(l, t, m)| *l == Level::Info
            && t == "ferrite::http"
            && m.starts_with("request refused: Not Acceptable")
            && m.ends_with(" status=406 code=-32600")),
        "{got:?}"
    );

    // A 2026-07-28 request the classifier refuses with an HTTP status: its status and reason.
    let modern = json!({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{
        "io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}});
    let mismatched = [JSON, ACCEPT, ("mcp-protocol-version", "2025-11-25")];
    let status = request(addr, "POST", &mismatched, &modern.to_string()).await.status;
    assert_eq!(status, 400);
    let got = take(&seen);
    assert!(
        got.iter().any(|(l, t, m)| *l == Level::Info
            && t == "ferrite::http"
            && m.starts_with("request refused: ")
            && m.contains("status=400 code=")),
        "{got:?}"
    );

    // A panicking handler (error) and an invalid result (error); a failing tool is debug, so
    // not seen at info.
    let headers = [JSON, ACCEPT, ("mcp-session-id", id.as_str()), ("mcp-protocol-version", "2025-06-18")];
    for tool in ["boom", "scalar", "fails"] {
        assert_eq!(request(addr, "POST", &headers, &call_body(tool)).await.status, 200, "{tool}");
    }
    let got = take(&seen);
    let handler: Vec<_> = got.iter().filter(|(_, t, _)| t == "ferrite::handler").collect();
    assert_eq!(
        handler,
        [
            &(Level::Error, "ferrite::handler".to_owned(), "a handler panicked: boom".to_owned()),
            &(
                Level::Error,
                "ferrite::handler".to_owned(),
                "the handler's result is not valid: structuredContent must be a JSON object".to_owned()
            ),
        ]
    );

    // At debug the failure shows, with the tool's name.
    diagnostics::set_level(Level::Debug);
    request(addr, "POST", &headers, &call_body("fails")).await;
    let got = take(&seen);
    assert!(
        got.iter().any(|(l, t, m)| *l == Level::Debug
            && t == "ferrite::handler"
            && m == "the tool failed: it broke tool=fails"),
        "{got:?}"
    );
    // A line break in what a handler said cannot forge a record of its own.
    request(addr, "POST", &headers, &call_body("forges")).await;
    let got = take(&seen);
    assert!(
        got.iter().any(|(_, _, m)| m == "the tool failed: it broke\\nERROR ferrite::auth forged record tool=forges"),
        "{got:?}"
    );
    assert!(got.iter().all(|(_, _, m)| !m.contains('\n')), "{got:?}");

    // At warn, neither a session's creation nor a refused 4xx; the session's DELETE neither.
    diagnostics::set_level(Level::Warn);
    request(addr, "POST", &[JSON, ACCEPT], &init_body()).await;
    request(addr, "POST", &[JSON, ("accept", "text/plain")], &init_body()).await;
    request(addr, "DELETE", &[("mcp-session-id", id.as_str())], "").await;
    let got = take(&seen);
    assert!(got.is_empty(), "{got:?}");

    // Nothing ever carried the session id (everything recorded at trace, from the start).
    diagnostics::set_level(Level::Trace);
    let r = request(addr, "POST", &[JSON, ACCEPT], &init_body()).await;
    let id2 = r.header("mcp-session-id").unwrap().to_owned();
    request(addr, "DELETE", &[("mcp-session-id", id2.as_str())], "").await;
    let got = take(&seen);
    assert!(got.iter().any(|(_, _, m)| m == "session ended by its client (DELETE)"), "{got:?}");
    assert!(got.iter().all(|(_, _, m)| !m.contains(&id2) && !m.contains(&id)), "{got:?}");

    // Uninstalled: nothing more.
    diagnostics::uninstall();
    assert_eq!(diagnostics::level(), None);
    request(addr, "POST", &[JSON, ACCEPT], &init_body()).await;
    assert!(take(&seen).is_empty());
    shutdown.cancel();
}
