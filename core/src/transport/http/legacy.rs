//! The deprecated 2024-11-05 HTTP+SSE transport, for old clients (off by default).
//!
//! The client opens `GET /sse`; the first event (`event: endpoint`) names the URL to POST
//! messages to (`/messages?sessionId=…`). POSTs are answered 202 at once, and every
//! response, notification and server-to-client request travels on the SSE stream.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Query, State};
use axum::http::{header, HeaderValue, Request, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use serde::Deserialize;
use tokio::sync::mpsc;

use super::peer::StreamPeer;
use super::sse::{Resume, StreamHub};
use super::{accepted, check_host, read_body, reject, sse_response, HttpState};
use crate::protocol::jsonrpc::Payload;
use crate::protocol::{Message, OutboundResponse};
use crate::server::Peer;
use crate::sync::lock;

pub(super) async fn handle_sse(State(st): State<Arc<HttpState>>, req: Request<Body>) -> Response {
    let (mut parts, _) = req.into_parts();
    if let Err(r) = check_host(&st, &parts) {
        return r;
    }
    if let Err(r) = super::auth::authenticate(&st, &mut parts).await {
        return r;
    }
    let owner = parts.extensions.get::<crate::auth::Identity>().map(|i| i.subject().to_owned());
    let session = match st.sessions.create(owner.as_deref()) {
        Ok(s) => s,
        Err(e @ super::session::CreateError::Full(_)) => return super::sessions_full(&e),
        Err(e) => return reject(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    };
    let (tx, rx) = mpsc::channel(st.opts.stream_buffer.max(1));
    let endpoint = format!("{}?sessionId={}", st.opts.legacy_messages_path, session.id());
    let _ = tx.try_send(Bytes::from(format!("event: endpoint\ndata: {endpoint}\n\n")));
    let hub = StreamHub::new(st.new_stream_id(None, super::StreamKind::Get), Resume::Off);
    hub.start(tx, false, None);
    *lock(&session.get_stream) = Some(Arc::downgrade(&hub));
    let peer: Arc<dyn Peer> = Arc::new(StreamPeer::new(hub.clone(), Some(session.clone()), None, true));
    let listener = st.server.attach_listener(&session.conn, &peer);
    let state = st.clone();
    let id = session.id().to_owned();
    // The session lives as long as its stream.
    let body = st.sse_body(rx).keep_alive(Box::new((listener, peer, hub.clone()))).on_drop(move || {
        hub.close();
        state.sessions.discard(&id, super::session::End::Closed);
    });
    sse_response(body, None)
}

#[derive(Deserialize)]
pub(super) struct MessagesQuery {
    #[serde(rename = "sessionId")]
    session_id: Option<String>,
}

pub(super) async fn handle_messages(
    State(st): State<Arc<HttpState>>,
    Query(q): Query<MessagesQuery>,
    req: Request<Body>,
) -> Response {
    let (mut parts, body) = req.into_parts();
    if let Err(r) = check_host(&st, &parts) {
        return super::answer_unread(&st, body, &parts.headers, r).await;
    }
    if let Err(r) = super::auth::authenticate(&st, &mut parts).await {
        return super::answer_unread(&st, body, &parts.headers, r).await;
    }
    let content_type = parts.headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    if !content_type.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case("application/json") {
        let r =
            reject(StatusCode::UNSUPPORTED_MEDIA_TYPE, "Unsupported Media Type: Content-Type must be application/json");
        return super::answer_unread(&st, body, &parts.headers, r).await;
    }
    let subject = parts.extensions.get::<crate::auth::Identity>().map(|i| i.subject());
    // The deprecated transport's sessions live with their stream, on this instance only.
    let session = match st.sessions.lookup_here(q.session_id.as_deref(), subject) {
        Ok(s) => s,
        Err(_) => {
            let r = reject(StatusCode::NOT_FOUND, "Session not found: open GET /sse first");
            return super::answer_unread(&st, body, &parts.headers, r).await;
        }
    };
    let Some(hub) = lock(&session.get_stream).as_ref().and_then(|w| w.upgrade()) else {
        let r = reject(StatusCode::NOT_FOUND, "Session not found: its SSE stream is closed");
        return super::answer_unread(&st, body, &parts.headers, r).await;
    };
    let bytes = match read_body(&st, body, &parts.headers).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let payload = match std::str::from_utf8(&bytes) {
        Ok(t) => st.server.parse_payload(t),
        Err(_) => {
            let e = crate::protocol::ErrorObject::parse_error("Parse error: body is not UTF-8");
            Payload::Single(Err(crate::protocol::jsonrpc::Invalid { id: None, error: e }))
        }
    };
    let peer: Arc<dyn Peer> = Arc::new(StreamPeer::new(hub.clone(), Some(session.clone()), None, true));
    let server = st.server.clone();
    tokio::spawn(async move {
        let out = match payload {
            // Requests run concurrently; their answers go to the stream.
            Payload::Single(Ok(Message::Request(r))) => {
                server.handle(Message::Request(r), &session.conn, &peer).await.map(|r| r.to_json_string())
            }
            Payload::Single(Err(inv)) => Some(OutboundResponse::error(inv.id, inv.error).to_json_string()),
            other => server.handle_payload(other, &session.conn, &peer).await,
        };
        if let Some(out) = out {
            hub.push(out);
        }
    });
    let mut r = accepted();
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    r
}
