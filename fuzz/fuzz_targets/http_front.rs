//! The Streamable HTTP front in process: an arbitrary request head and body through the
//! transport's own services, once stateful (`HttpService`, the service a host mounts) and once
//! stateless (`router()`, the axum router `bind` serves, called as a tower service), answers
//! drained with a bounded (paused-clock) timeout.
//!
//! Input: `METHOD TARGET`, header lines `Name: value`, an empty line, the body (lines may end
//! in `\n` or `\r\n`). `$SESSION` in the target or a header value becomes the id of a live
//! session made at start-up (made again if an input deleted it); sessions an input creates are
//! deleted after it. Invariants: no 5xx; a JSON answer is JSON (valid JSON-RPC when it is
//! JSON-RPC); every SSE `data:` line is JSON; the answer to a POST ends.
#![no_main]

use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use ferrite_core::transport::http::{router, HttpOptions, HttpService};
use ferrite_core::Server;
use ferrite_fuzz::{assert_jsonrpc_answer, runtime, servers};
use http::{HeaderName, HeaderValue, Method, Request};
use http_body_util::{BodyExt as _, Full};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tower::ServiceExt as _;

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{},"sampling":{}},"clientInfo":{"name":"fuzz","version":"1"}}}"#;

/// How long an answer may take, on the paused clock: it elapses at once when nothing else
/// can run, so an open SSE stream costs no real time.
const DRAIN: Duration = Duration::from_secs(5);

struct Front {
    stateful: HttpService,
    stateless: axum::Router,
    session: Mutex<String>,
    _servers: (Server, Server),
}

fn options() -> HttpOptions {
    // Sessions never idle out, so the start-up session stays put however far the paused
    // clock runs.
    HttpOptions { session_idle_timeout: None, legacy_sse: true, ..HttpOptions::default() }
}

fn front() -> &'static Front {
    static F: OnceLock<Front> = OnceLock::new();
    F.get_or_init(|| {
        let _rt = runtime().enter();
        let (a, b) = (servers::http_server(false), servers::http_server(true));
        let stateful = HttpService::new(&a, options());
        let session = runtime().block_on(open_session(&stateful));
        Front { stateful, stateless: router(&b, options()), session: Mutex::new(session), _servers: (a, b) }
    })
}

fn request(method: &str, target: &str, headers: &[(&str, &str)], body: &str) -> Request<Full<Bytes>> {
    let mut r = Request::builder().method(method).uri(target);
    for (n, v) in headers {
        r = r.header(*n, *v);
    }
    r.body(Full::new(Bytes::copy_from_slice(body.as_bytes()))).expect("a fixed request builds")
}

const BASE: &[(&str, &str)] =
    &[("host", "localhost"), ("accept", "application/json, text/event-stream"), ("content-type", "application/json")];

async fn open_session(svc: &HttpService) -> String {
    let r = svc.handle(request("POST", "/mcp", BASE, INIT)).await;
    let id = r.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).expect("initialize opens a session");
    let id = id.to_owned();
    let mut h = BASE.to_vec();
    h.push(("mcp-session-id", &id));
    h.push(("mcp-protocol-version", "2025-11-25"));
    svc.handle(request("POST", "/mcp", &h, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)).await;
    id
}

async fn delete_session(svc: &HttpService, id: &str) {
    let mut h = BASE.to_vec();
    h.push(("mcp-session-id", id));
    let _ = svc.handle(request("DELETE", "/mcp", &h, "")).await;
}

/// The request the input describes, or `None` when its head is not HTTP (the server's HTTP
/// parser refuses those before any service runs).
fn parse(text: &str, session: &str) -> Option<Request<Full<Bytes>>> {
    let (head, body) = match text.find("\r\n\r\n").map(|i| (i, 4)).or_else(|| text.find("\n\n").map(|i| (i, 2))) {
        Some((i, skip)) => (&text[..i], &text[i + skip..]),
        None => (text, ""),
    };
    let mut lines = head.lines();
    let (method, target) = lines.next()?.split_once(' ')?;
    let mut r = Request::builder()
        .method(Method::from_bytes(method.as_bytes()).ok()?)
        .uri(target.trim_end().replace("$SESSION", session));
    for line in lines {
        let (n, v) = line.split_once(':')?;
        let v = v.trim_start().replace("$SESSION", session);
        r = r.header(HeaderName::from_bytes(n.as_bytes()).ok()?, HeaderValue::from_str(&v).ok()?);
    }
    r.body(Full::new(Bytes::copy_from_slice(body.as_bytes()))).ok()
}

async fn check(input: &str, is_post: bool, response: axum::response::Response) {
    let status = response.status();
    assert!(!status.is_server_error(), "{status} for {input:?}");
    let kind = response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let body = match tokio::time::timeout(DRAIN, response.into_body().collect()).await {
        Ok(Ok(b)) => b.to_bytes(),
        Ok(Err(e)) => panic!("the answer's body failed ({e}) for {input:?}"),
        Err(_) => {
            assert!(!is_post || kind.starts_with("text/event-stream"), "the answer to a POST never ended: {input:?}");
            return;
        }
    };
    let text = String::from_utf8_lossy(&body);
    if kind.starts_with("application/json") {
        let v: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("a JSON answer is not JSON ({e}): {text:?}"));
        if v.get("jsonrpc").is_some() || v.as_array().is_some_and(|a| a.iter().any(|i| i.get("jsonrpc").is_some())) {
            assert_jsonrpc_answer(input, &text);
        }
    } else if kind.starts_with("text/event-stream") {
        for data in text.lines().filter_map(|l| l.strip_prefix("data:")) {
            let data = data.trim_start();
            if !data.is_empty() && !data.starts_with('/') {
                assert!(serde_json::from_str::<Value>(data).is_ok(), "an SSE data line is not JSON: {data:?}");
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let f = front();
    runtime().block_on(async {
        let mut session = f.session.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if !f.stateful.session_ids().contains(&session) {
            session = open_session(&f.stateful).await;
            *f.session.lock().unwrap_or_else(|p| p.into_inner()) = session.clone();
        }
        if let Some(req) = parse(text, &session) {
            let is_post = req.method() == Method::POST;
            check(text, is_post, f.stateful.handle(req).await).await;
        }
        if let Some(req) = parse(text, &session) {
            let is_post = req.method() == Method::POST;
            let response = match f.stateless.clone().oneshot(req).await {
                Ok(r) => r,
                Err(never) => match never {},
            };
            check(text, is_post, response).await;
        }
        for id in f.stateful.session_ids() {
            if id != session {
                delete_session(&f.stateful, &id).await;
            }
        }
    });
});
