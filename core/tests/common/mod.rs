//! Test harness: a server, one connection, and a peer that records what the server sent.
#![allow(dead_code)]

pub mod http;
pub mod redis;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use ferrite_core::server::{BoxFuture, Peer, PeerError, RequestInfo};
use ferrite_core::{ConnectionState, Message, Server};
use serde_json::{json, Value};

/// The 2026-07-28 revision string.
pub const V2026: &str = "2026-07-28";

/// A 2026-07-28 envelope declaring `caps`.
pub fn envelope(caps: Value) -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": V2026, "io.modelcontextprotocol/clientCapabilities": caps})
}

/// `params` (an object) with a 2026-07-28 envelope declaring `caps` added to its `_meta`.
pub fn enveloped(params: Value, caps: Value) -> Value {
    let mut p = if params.is_null() { json!({}) } else { params };
    let Value::Object(envelope) = envelope(caps) else { unreachable!("an object") };
    match p.get_mut("_meta") {
        Some(Value::Object(meta)) => meta.extend(envelope),
        _ => p["_meta"] = Value::Object(envelope),
    }
    p
}

/// Records every frame the server sends outside responses, and answers server-to-client
/// requests with a canned reply.
#[derive(Default)]
pub struct RecordingPeer {
    pub frames: Mutex<Vec<Value>>,
    pub requests: Mutex<Vec<(String, Option<Value>)>>,
    pub reply: Mutex<Option<Value>>,
    /// Replies by method, tried before `reply`.
    pub replies: Mutex<HashMap<String, Value>>,
}

impl RecordingPeer {
    pub fn frames(&self) -> Vec<Value> {
        self.frames.lock().unwrap().clone()
    }
    pub fn methods(&self) -> Vec<String> {
        self.frames().iter().filter_map(|f| f["method"].as_str().map(str::to_owned)).collect()
    }
}

impl Peer for RecordingPeer {
    fn send(&self, frame: String) {
        self.frames.lock().unwrap().push(serde_json::from_str(&frame).expect("server sent invalid JSON"));
    }
    fn can_request(&self) -> bool {
        true
    }
    fn request(&self, method: &str, params: Option<Value>) -> BoxFuture<'static, Result<Value, PeerError>> {
        self.requests.lock().unwrap().push((method.to_owned(), params));
        let by_method = self.replies.lock().unwrap().get(method).cloned();
        let reply = by_method.or_else(|| self.reply.lock().unwrap().clone());
        Box::pin(async move { reply.ok_or(PeerError::Closed) })
    }
}

pub struct Harness {
    pub server: Server,
    pub conn: Arc<ConnectionState>,
    pub recorder: Arc<RecordingPeer>,
    pub peer: Arc<dyn Peer>,
    next_id: Mutex<i64>,
}

impl Harness {
    pub fn new(server: Server) -> Self {
        let conn = server.new_connection();
        Self::with_conn(server, conn)
    }

    /// A harness on a given connection (one that pins its era, for example).
    pub fn with_conn(server: Server, conn: Arc<ConnectionState>) -> Self {
        let recorder = Arc::new(RecordingPeer::default());
        let peer: Arc<dyn Peer> = recorder.clone();
        Harness { conn, server, recorder, peer, next_id: Mutex::new(100) }
    }

    /// Send raw text; the parsed response (or Null when there is none).
    pub async fn raw(&self, text: &str) -> Value {
        match self.server.handle_raw_on(text, &self.conn, &self.peer).await {
            Some(s) => serde_json::from_str(&s).expect("response is JSON"),
            None => Value::Null,
        }
    }

    /// Send a request; the whole response object.
    pub async fn call(&self, method: &str, params: Value) -> Value {
        let id = {
            let mut n = self.next_id.lock().unwrap();
            *n += 1;
            *n
        };
        let params = if params.is_null() { None } else { Some(params) };
        let msg = Message::request(id, method, params);
        let resp = self.server.handle(msg, &self.conn, &self.peer).await.expect("a request gets a response");
        let v = resp.to_value();
        assert_eq!(v["id"], json!(id), "response id matches");
        v
    }

    /// Send a request that must succeed; its result.
    pub async fn ok(&self, method: &str, params: Value) -> Value {
        let v = self.call(method, params).await;
        assert!(v.get("error").is_none(), "{method} failed: {v}");
        v["result"].clone()
    }

    /// Send a request that must fail; its error code.
    pub async fn err_code(&self, method: &str, params: Value) -> i64 {
        let v = self.call(method, params).await;
        v["error"]["code"].as_i64().unwrap_or_else(|| panic!("{method} did not fail: {v}"))
    }

    /// Send a 2026-07-28 request (params get an envelope declaring `caps`); the whole
    /// response object.
    pub async fn modern(&self, method: &str, params: Value, caps: Value) -> Value {
        self.modern_with(method, params, caps, &RequestInfo::default()).await
    }

    /// As [`Harness::modern`], with what the transport knows about the request.
    pub async fn modern_with(&self, method: &str, params: Value, caps: Value, info: &RequestInfo) -> Value {
        let id = {
            let mut n = self.next_id.lock().unwrap();
            *n += 1;
            *n
        };
        let msg = Message::request(id, method, Some(enveloped(params, caps)));
        let resp = self.server.handle_with(msg, &self.conn, &self.peer, info).await.expect("a response");
        let v = resp.to_value();
        assert_eq!(v["id"], json!(id), "response id matches");
        v
    }

    /// A 2026-07-28 request that must succeed; its result.
    pub async fn modern_ok(&self, method: &str, params: Value, caps: Value) -> Value {
        let v = self.modern(method, params, caps).await;
        assert!(v.get("error").is_none(), "{method} failed: {v}");
        v["result"].clone()
    }

    /// A 2026-07-28 request that must fail; its error object.
    pub async fn modern_err(&self, method: &str, params: Value, caps: Value) -> Value {
        let v = self.modern(method, params, caps).await;
        assert!(v.get("error").is_some(), "{method} did not fail: {v}");
        v["error"].clone()
    }

    pub async fn notify(&self, method: &str, params: Value) {
        let params = if params.is_null() { None } else { Some(params) };
        let r = self.server.handle(Message::notification(method, params), &self.conn, &self.peer).await;
        assert!(r.is_none(), "notifications get no response");
    }

    /// initialize + initialized at `version`, with client capabilities.
    pub async fn initialize(&self, version: &str, caps: Value) -> Value {
        let r = self
            .ok("initialize", json!({"protocolVersion": version, "capabilities": caps, "clientInfo": {"name": "test", "version": "1"}}))
            .await;
        self.notify("notifications/initialized", Value::Null).await;
        r
    }
}

pub fn stateful(name: &str) -> Server {
    Server::builder(ferrite_core::Implementation::new(name, "1.0")).stateful().build()
}

/// A stateless server named `name`.
#[allow(dead_code)]
pub fn stateless(name: &str) -> Server {
    Server::builder(ferrite_core::Implementation::new(name, "1.0")).stateless().build()
}
