//! The upstream as a Streamable HTTP endpoint: each message is a POST; a request's answer
//! comes back as JSON or on an SSE stream (with what the server sends for the request before
//! it), read on a task of its own and related to the request. In the handshake era the
//! session id from `initialize` goes on every later POST, and a GET stream carries the
//! server's unsolicited notifications.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::link::{upstream_error, Link, Wire, SESSION_GONE};
use crate::auth::without_url;
use crate::server::BoxFuture;
use crate::sync::lock;

struct HttpWire {
    client: reqwest::Client,
    url: String,
    headers: Vec<(String, String)>,
    /// The handshake session, from `initialize`, and the negotiated revision.
    session: Mutex<Option<String>>,
    version: Mutex<Option<String>>,
    /// Ends the GET stream and the SSE readers when the proxy closes.
    closed: tokio_util::sync::CancellationToken,
    /// The SSE reader of each request still waiting, by request id (ended by `done`).
    streams: Mutex<HashMap<i64, tokio_util::sync::CancellationToken>>,
}

/// The 2026-07-28 headers that mirror the body: `Mcp-Method`, and `Mcp-Name` for the
/// methods that name something (the classifier's table; a value that is not plain ASCII
/// goes in the header's base64 form).
fn mirrored(frame: &Value) -> Vec<(&'static str, String)> {
    use crate::protocol::{classifier::name_parameter, headers::encode_value};
    let mut out = Vec::new();
    if let Some(method) = frame.get("method").and_then(Value::as_str) {
        out.push(("mcp-method", encode_value(method)));
        let name = name_parameter(method).and_then(|key| frame.get("params")?.get(key)?.as_str());
        if let Some(n) = name {
            out.push(("mcp-name", encode_value(n)));
        }
    }
    out
}

/// Whether a frame carries the 2026-07-28 envelope.
fn is_modern(frame: &Value) -> bool {
    frame.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion").is_some()
}

impl HttpWire {
    fn post(&self, frame: &Value) -> reqwest::RequestBuilder {
        let mut req = self
            .client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(frame.to_string());
        for (k, v) in &self.headers {
            req = req.header(k, v);
        }
        let session = lock(&self.session).clone();
        if is_modern(frame) || (session.is_none() && frame.get("method").is_none()) {
            req = req.header("mcp-protocol-version", "2026-07-28");
            for (k, v) in mirrored(frame) {
                req = req.header(k, v);
            }
        } else {
            if let Some(s) = session {
                req = req.header("mcp-session-id", s);
            }
            if let Some(v) = lock(&self.version).clone() {
                req = req.header("mcp-protocol-version", v);
            }
        }
        req
    }
}

impl Wire for HttpWire {
    fn send(
        &self,
        link: &Arc<Link>,
        frame: Value,
        id: Option<i64>,
        headers: &[(String, String)],
    ) -> BoxFuture<'static, Result<(), String>> {
        let mut request = self.post(&frame);
        // The session this frame goes on (a 404 for it means the upstream forgot it).
        let on_session = if is_modern(&frame) { None } else { lock(&self.session).clone() };
        if is_modern(&frame) {
            for (k, v) in headers {
                request = request.header(k, v);
            }
        }
        let is_initialize = frame.get("method").and_then(Value::as_str) == Some("initialize");
        let link = link.clone();
        // A request's reader ends when the proxy closes or the request ends.
        let closed = self.closed.child_token();
        if let Some(id) = id {
            lock(&self.streams).insert(id, closed.clone());
        }
        Box::pin(async move {
            // Never the URL in an error (it may carry a key): these reach logs and clients.
            let response = request.send().await.map_err(|e| without_url(&e))?;
            let status = response.status();
            if status == reqwest::StatusCode::NOT_FOUND && !is_initialize {
                if let Some(gone) = on_session {
                    // Forget it (unless a new one came meanwhile): the link starts another.
                    if let Some(wire) = link.http_wire() {
                        let mut session = lock(&wire.session);
                        if session.as_deref() == Some(gone.as_str()) {
                            *session = None;
                        }
                    }
                    return Err(SESSION_GONE.to_owned());
                }
            }
            if is_initialize {
                if let Some(s) = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()) {
                    if let Some(wire) = link.http_wire() {
                        *lock(&wire.session) = Some(s.to_owned());
                    }
                }
            }
            let is_sse = response
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|t| t.starts_with("text/event-stream"));
            if status == reqwest::StatusCode::ACCEPTED || id.is_none() {
                return Ok(());
            }
            if is_sse {
                tokio::spawn(read_sse(link, response, id, closed));
                return Ok(());
            }
            let body = response.bytes().await.map_err(|e| without_url(&e))?;
            match serde_json::from_slice::<Value>(&body) {
                Ok(mut msg) if msg.get("jsonrpc").is_some() => {
                    // A POST's JSON answer is its request's, whatever id it names: an error
                    // about the request as a whole (too large, a bad header) names none.
                    if let (None, Some(id)) = (msg.get("method"), id) {
                        if msg.get("id").is_none_or(Value::is_null) {
                            msg["id"] = Value::from(id);
                        }
                    }
                    link.incoming(msg, id)
                }
                _ => return Err(format!("HTTP {status} without a JSON-RPC answer")),
            }
            Ok(())
        })
    }

    fn close(&self) {
        self.closed.cancel();
    }

    fn done(&self, id: i64) {
        if let Some(reader) = lock(&self.streams).remove(&id) {
            reader.cancel();
        }
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl Link {
    /// This link's HTTP wire, when it has one (for the session id).
    fn http_wire(&self) -> Option<&HttpWire> {
        self.wire()?.as_any().downcast_ref::<HttpWire>()
    }

    /// Whether this link's wire is HTTP.
    pub(crate) fn over_http(&self) -> bool {
        self.http_wire().is_some()
    }

    /// Whether this link is an HTTP one without a handshake session (the upstream forgot it).
    pub(crate) fn lost_http_session(&self) -> bool {
        self.http_wire().is_some_and(|w| lock(&w.session).is_none())
    }
}

/// Read an SSE response: each event's data is one JSON-RPC message.
async fn read_sse(
    link: Arc<Link>,
    mut response: reqwest::Response,
    related: Option<i64>,
    closed: tokio_util::sync::CancellationToken,
) {
    let mut buf = String::new();
    loop {
        let chunk = tokio::select! {
            c = response.chunk() => c,
            _ = closed.cancelled() => return,
        };
        let Ok(Some(chunk)) = chunk else { break };
        buf.push_str(&String::from_utf8_lossy(&chunk));
        if buf.contains('\r') {
            buf = buf.replace("\r\n", "\n");
        }
        while let Some(end) = buf.find("\n\n") {
            let event: String = buf.drain(..end + 2).collect();
            let data: Vec<&str> = event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            if data.is_empty() {
                continue;
            }
            if let Ok(msg) = serde_json::from_str::<Value>(&data.join("\n")) {
                link.incoming(msg, related);
            }
        }
    }
    if let Some(id) = related {
        // The stream ended without the answer (the upstream closed it): fail the request.
        link.fail_one(id, "the upstream closed the stream before answering");
    }
}

/// Connect `link` to the endpoint at `url`, with `headers` on every request.
pub(crate) fn connect(link: &Arc<Link>, url: &str, headers: &[(String, String)]) -> Result<(), String> {
    let client = reqwest::Client::builder().build().map_err(|e| e.to_string())?;
    link.set_wire(Box::new(HttpWire {
        client,
        url: url.to_owned(),
        headers: headers.to_vec(),
        session: Mutex::new(None),
        version: Mutex::new(None),
        closed: tokio_util::sync::CancellationToken::new(),
        streams: Mutex::new(HashMap::new()),
    }));
    Ok(())
}

/// After `initialize` (handshake era): remember the revision, and open the GET stream for the
/// server's unsolicited notifications (a server without one answers 405: nothing to read).
pub(crate) fn initialized(link: &Arc<Link>, version: &str) {
    let Some(wire) = link.http_wire() else { return };
    *lock(&wire.version) = Some(version.to_owned());
    let mut req = wire.client.get(&wire.url).header("accept", "text/event-stream");
    for (k, v) in &wire.headers {
        req = req.header(k, v);
    }
    if let Some(s) = lock(&wire.session).clone() {
        req = req.header("mcp-session-id", s);
    }
    req = req.header("mcp-protocol-version", version);
    let (link, closed) = (link.clone(), wire.closed.clone());
    tokio::spawn(async move {
        let response = tokio::select! {
            r = req.send() => r,
            _ = closed.cancelled() => return,
        };
        match response {
            Ok(r) if r.status().is_success() => read_sse(link, r, None, closed).await,
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(target: crate::diagnostics::target::HANDLER, "upstream GET stream: {}", upstream_error(without_url(&e)))
            }
        }
    });
}
