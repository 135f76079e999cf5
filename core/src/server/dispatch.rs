//! JSON-RPC dispatch: from a parsed message to the response.
//!
//! Every request first gets its era. One carrying the 2026-07-28 envelope (or a modern
//! `MCP-Protocol-Version` header) is served on the modern path ([`super::modern`]); the
//! rest take the handshake path. A connection that pins its era (stdio) keeps the era of
//! its first request. Both paths then share one router ([`super::methods`]).
//!
//! Protocol errors (unknown method, bad params, unknown tool) are JSON-RPC errors; tool
//! failures (including arguments that violate the input schema) are results with
//! `isError: true`. A panicking handler never takes the server down: it becomes an
//! `isError` result (tools) or `-32603` (everything else).

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use futures::FutureExt as _;
use serde::Serialize;
use serde_json::{json, Map, Value};

use super::connection::Era;
use super::context::{ContextInner, MetaField, MrtrInput, NullPeer, RequestConnection};
use super::request_info::RequestInfo;
use super::{read, ConnectionState, Peer, RequestContext, Server};
use crate::protocol::classifier::unsupported_version;
use crate::protocol::headers;
use crate::protocol::jsonrpc::{parse_payload_within, Invalid, Payload};
use crate::protocol::model::{carries_envelope, RequestMeta, PROTOCOL_VERSION_KEY};
use crate::protocol::{
    code, ErrorObject, Message, Notification, OutboundResponse, ProtocolVersion, RawJson, Request, RequestId,
};

/// A serialized result, or the error to answer.
pub(crate) type Outcome = Result<RawJson, ErrorObject>;

pub(crate) fn to_raw<T: Serialize + ?Sized>(value: &T) -> Outcome {
    RawJson::serialize(value).map_err(|e| ErrorObject::internal(format!("failed to serialize the result: {e}")))
}

pub(crate) fn empty_result() -> Outcome {
    Ok(RawJson::trusted("{}".to_owned()))
}

pub(crate) fn panic_message(p: &(dyn Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_owned()
    }
}

/// `params` as an owned object map (absent params read as empty).
pub(crate) fn params_map(params: Option<Value>, method: &str) -> Result<Map<String, Value>, ErrorObject> {
    match params {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m),
        Some(_) => Err(ErrorObject::invalid_params(format!("{method}: params must be an object"))),
    }
}

pub(crate) fn required_str(m: &mut Map<String, Value>, key: &str, method: &str) -> Result<String, ErrorObject> {
    match m.remove(key) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(ErrorObject::invalid_params(format!("{method}: {key} must be a string"))),
        None => Err(ErrorObject::invalid_params(format!("{method}: missing required parameter {key}"))),
    }
}

/// How one request is served, decided before its handler runs.
pub(crate) struct Setup {
    /// The state the handler sees (the connection's, or a transient one).
    pub(crate) state: RequestConnection,
    /// The revision in effect.
    pub(crate) version: ProtocolVersion,
    /// Served on the 2026-07-28 path.
    pub(crate) modern: bool,
    /// What the client sent back for a multi round-trip request.
    pub(crate) mrtr: MrtrInput,
}

impl Server {
    /// Handle raw wire text in-process (single message or batch) on the server's in-process
    /// connection, with no channel back to a client. Returns the response text, or an empty
    /// string when there is nothing to answer (notifications).
    pub async fn handle_raw(&self, text: &str) -> String {
        let conn = self.inner.in_process.clone();
        let peer: Arc<dyn Peer> = Arc::new(NullPeer);
        self.handle_raw_on(text, &conn, &peer).await.unwrap_or_default()
    }

    /// Parse inbound wire text within this server's `max_json_depth` limit.
    pub(crate) fn parse_payload(&self, text: &str) -> Payload {
        parse_payload_within(text, self.inner.limits.max_json_depth())
    }

    /// Handle raw wire text against a given connection and peer.
    pub async fn handle_raw_on(&self, text: &str, conn: &Arc<ConnectionState>, peer: &Arc<dyn Peer>) -> Option<String> {
        self.handle_payload_with(self.parse_payload(text), conn, peer, &RequestInfo::default()).await
    }

    /// Handle raw wire text with what the transport knows about the request (HTTP head,
    /// subject).
    pub async fn handle_raw_with(
        &self,
        text: &str,
        conn: &Arc<ConnectionState>,
        peer: &Arc<dyn Peer>,
        info: &RequestInfo,
    ) -> Option<String> {
        self.handle_payload_with(self.parse_payload(text), conn, peer, info).await
    }

    /// Handle a parsed payload; returns the response text, if any.
    pub async fn handle_payload(
        &self,
        payload: Payload,
        conn: &Arc<ConnectionState>,
        peer: &Arc<dyn Peer>,
    ) -> Option<String> {
        self.handle_payload_with(payload, conn, peer, &RequestInfo::default()).await
    }

    /// Handle a parsed payload with what the transport knows about the request.
    pub async fn handle_payload_with(
        &self,
        payload: Payload,
        conn: &Arc<ConnectionState>,
        peer: &Arc<dyn Peer>,
        info: &RequestInfo,
    ) -> Option<String> {
        match payload {
            Payload::Single(Ok(msg)) => self.handle_with(msg, conn, peer, info).await.map(|r| r.to_json_string()),
            Payload::Single(Err(Invalid { id, error })) => Some(OutboundResponse::error(id, error).to_json_string()),
            Payload::Batch(items) => self.handle_batch(items, conn, peer, info).await,
        }
    }

    async fn handle_batch(
        &self,
        items: Vec<Result<Message, Invalid>>,
        conn: &Arc<ConnectionState>,
        peer: &Arc<dyn Peer>,
        info: &RequestInfo,
    ) -> Option<String> {
        let refuse = |message: String| {
            Some(OutboundResponse::error(None, ErrorObject::invalid_request(message)).to_json_string())
        };
        if items.is_empty() {
            return refuse("Invalid Request: empty batch".to_owned());
        }
        let max = self.inner.limits.max_batch_len();
        if items.len() > max {
            return Some(
                OutboundResponse::error(
                    None,
                    ErrorObject::invalid_request(format!(
                        "Invalid Request: a batch of {} messages; the max_batch_len limit is {max}",
                        items.len()
                    ))
                    .with_data(serde_json::json!({"limit": "max_batch_len", "value": max})),
                )
                .to_json_string(),
            );
        }
        let modern_element = items.iter().any(|m| match m {
            Ok(Message::Request(r)) => r.carries_envelope(),
            Ok(Message::Notification(n)) => carries_envelope(n.params.as_ref()),
            _ => false,
        });
        if modern_element || header_era(info) == Some(Era::Modern) || conn.pinned_era() == Some(Era::Modern) {
            return refuse("Invalid Request: JSON-RPC batches are not part of the 2026-07-28 revision".to_owned());
        }
        match conn.negotiated_version() {
            Some(v) if v.allows_batches() => {}
            v => {
                let rev = v.map(|v| v.as_str()).unwrap_or("(none negotiated)");
                return refuse(format!(
                    "Invalid Request: JSON-RPC batches are only allowed in revision 2025-03-26, this connection uses {rev}"
                ));
            }
        }
        let futures = items.into_iter().map(|item| async move {
            match item {
                Ok(Message::Request(r)) if r.method == "initialize" => Some(OutboundResponse::error(
                    Some(r.id),
                    ErrorObject::invalid_request("Invalid Request: initialize must not be part of a batch"),
                )),
                Ok(m) => self.handle_with(m, conn, peer, info).await,
                Err(Invalid { id, error }) => Some(OutboundResponse::error(id, error)),
            }
        });
        let responses: Vec<String> =
            futures::future::join_all(futures).await.into_iter().flatten().map(|r| r.to_json_string()).collect();
        if responses.is_empty() {
            None
        } else {
            Some(format!("[{}]", responses.join(",")))
        }
    }

    /// Dispatch one message. Requests get a response (unless cancelled meanwhile);
    /// notifications get none; responses are handed to the peer that is waiting for them.
    pub async fn handle(
        &self,
        message: Message,
        conn: &Arc<ConnectionState>,
        peer: &Arc<dyn Peer>,
    ) -> Option<OutboundResponse> {
        self.handle_with(message, conn, peer, &RequestInfo::default()).await
    }

    /// Dispatch one message with what the transport knows about it (HTTP head, subject).
    pub async fn handle_with(
        &self,
        message: Message,
        conn: &Arc<ConnectionState>,
        peer: &Arc<dyn Peer>,
        info: &RequestInfo,
    ) -> Option<OutboundResponse> {
        match message {
            Message::Request(r) => self.handle_request(r, conn, peer, info).await,
            Message::Notification(n) => {
                self.notify_through_chain(n, conn, info).await;
                None
            }
            Message::Response(r) => {
                peer.on_response(r);
                None
            }
        }
    }

    /// The era of a request on this connection, or the error for a request of the other
    /// era on a connection that pinned one.
    fn era_of(&self, req: &Request, conn: &ConnectionState, info: &RequestInfo) -> Result<Era, ErrorObject> {
        let enveloped = req.carries_envelope();
        let candidate = if enveloped || (req.method != "initialize" && header_era(info) == Some(Era::Modern)) {
            Era::Modern
        } else {
            Era::Handshake
        };
        match conn.pin_era(candidate) {
            None => Ok(candidate),
            Some(pinned) if pinned == candidate => Ok(candidate),
            Some(Era::Handshake) => Err(ErrorObject::invalid_request(format!(
                "Invalid Request: this connection uses the handshake revisions (it began with initialize); a request with the {PROTOCOL_VERSION_KEY} envelope needs a new connection"
            ))),
            Some(Era::Modern) if req.method == "initialize" => {
                let requested = req.params.as_ref().and_then(|p| p.get("protocolVersion")).and_then(Value::as_str);
                Err(unsupported_version(requested.unwrap_or(""), &[ProtocolVersion::V2026_07_28]))
            }
            // A request without an envelope on a modern connection: the ladder says what is
            // missing.
            Some(Era::Modern) => Ok(Era::Modern),
        }
    }

    async fn handle_request(
        &self,
        req: Request,
        conn: &Arc<ConnectionState>,
        peer: &Arc<dyn Peer>,
        info: &RequestInfo,
    ) -> Option<OutboundResponse> {
        match self.era_of(&req, conn, info) {
            Ok(Era::Modern) => self.handle_modern(req, conn, peer, info).await,
            Ok(Era::Handshake) => self.handle_handshake(req, conn, peer, info).await,
            Err(e) => Some(OutboundResponse::error(Some(req.id), e)),
        }
    }

    async fn handle_handshake(
        &self,
        req: Request,
        conn: &Arc<ConnectionState>,
        peer: &Arc<dyn Peer>,
        info: &RequestInfo,
    ) -> Option<OutboundResponse> {
        let Request { id, method, params, meta } = req;
        match method.as_str() {
            "ping" => return Some(OutboundResponse { id: Some(id), outcome: empty_result() }),
            "initialize" => {
                let outcome = self.initialize(params, conn);
                return Some(OutboundResponse { id: Some(id), outcome });
            }
            _ => {}
        }
        if self.inner.flags.require_initialized.load(Ordering::Relaxed)
            && !self.is_stateless()
            && !conn.is_initialized()
        {
            let e = ErrorObject::new(
                code::RESOURCE_NOT_FOUND,
                "Server not initialized: send notifications/initialized before other requests",
            );
            return Some(OutboundResponse::error(Some(id), e));
        }
        let setup = Setup {
            state: RequestConnection::Shared(conn.clone()),
            version: conn.effective_version(),
            modern: false,
            mrtr: MrtrInput::default(),
        };
        self.run(id, &method, params, meta, conn, peer, info, setup).await
    }

    /// Run one request's handler with its context: cancellation registered on the
    /// transport's connection, panics caught, the answer suppressed when cancelled.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn run(
        &self,
        id: RequestId,
        method: &str,
        params: Option<Value>,
        meta: Option<Box<RequestMeta>>,
        conn: &Arc<ConnectionState>,
        peer: &Arc<dyn Peer>,
        info: &RequestInfo,
        setup: Setup,
    ) -> Option<OutboundResponse> {
        let limits = &self.inner.limits;
        let _admitted = match limits.admit() {
            Ok(guard) => guard,
            Err(e) => return Some(OutboundResponse::error(Some(id), e)),
        };
        let Some(cancel) = conn.begin_request_within(&id, limits.max_in_flight_per_connection()) else {
            return Some(OutboundResponse::error(Some(id), limits.connection_full()));
        };
        let progress_token =
            meta.as_ref().and_then(|m| m.progress_token.clone()).filter(|t| t.is_string() || t.is_number());
        let ctx = RequestContext {
            inner: Arc::new(ContextInner {
                request_id: id.clone(),
                version: setup.version,
                connection: setup.state,
                progress_token,
                meta: MetaField::new(meta),
                cancel: cancel.clone(),
                peer: peer.clone(),
                logging_enabled: self.inner.flags.logging.load(Ordering::Relaxed),
                stateless: self.is_stateless(),
                modern: setup.modern,
                mrtr: setup.mrtr.shared(),
                info: info.clone(),
                transport: conn.clone(),
                in_task: false,
            }),
        };
        let outcome = match AssertUnwindSafe(self.route_through_chain(method, params, ctx)).catch_unwind().await {
            Ok(o) => o,
            Err(p) => {
                let message = panic_message(&*p);
                tracing::error!(target: crate::diagnostics::target::HANDLER, method = ?method, "a handler panicked: {message}");
                Err(ErrorObject::internal(format!("handler for {method} panicked: {message}")))
            }
        };
        conn.end_request(&id);
        if cancel.is_cancelled() {
            // The client cancelled: the spec says not to answer.
            return None;
        }
        Some(OutboundResponse { id: Some(id), outcome })
    }

    pub(crate) fn handle_notification(&self, n: Notification, conn: &Arc<ConnectionState>) {
        match n.method.as_str() {
            "notifications/initialized" => conn.mark_initialized(),
            "notifications/cancelled" => {
                let id = n.params.as_ref().and_then(|p| p.get("requestId")).and_then(|v| match v {
                    Value::String(s) => Some(RequestId::String(s.clone())),
                    Value::Number(x) => x.as_i64().map(RequestId::Number),
                    _ => None,
                });
                if let Some(id) = id {
                    conn.cancel_request(&id);
                }
            }
            "notifications/roots/list_changed" => {
                let obs = read(&self.inner.roots_observer).clone();
                if let Some(o) = obs {
                    o();
                }
            }
            _ => {}
        }
        let obs = read(&self.inner.observer).clone();
        if let Some(o) = obs {
            o.notify(&n.method, n.params.as_ref());
        }
    }
}

/// The era an HTTP request's `MCP-Protocol-Version` header names, if it names a known one.
fn header_era(info: &RequestInfo) -> Option<Era> {
    let v = info.headers()?.get(headers::PROTOCOL_VERSION)?.to_str().ok()?;
    let v = v.parse::<ProtocolVersion>().ok()?;
    Some(if v.is_handshake() { Era::Handshake } else { Era::Modern })
}

/// The `-32021` (2026-07-28) or `-32602` (handshake revisions, where `-3202x` would make a
/// client think it speaks to a modern server) for a client capability the request needs.
pub(crate) fn missing_capability(modern: bool, what: &str, required: Value) -> ErrorObject {
    let (c, message) = if modern {
        (
            code::MISSING_REQUIRED_CLIENT_CAPABILITY,
            format!("{what} needs client capabilities this request did not declare"),
        )
    } else {
        (code::INVALID_PARAMS, format!("{what} needs client capabilities the client did not declare"))
    };
    ErrorObject::new(c, format!("{message}: {required}")).with_data(json!({ "requiredCapabilities": required }))
}
