//! POST: one client message (or a 2025-03-26 batch) in, its answer out.
//!
//! The steps, in order:
//! 1. [`check_request`]: `Host`/`Origin`, `Content-Type`, `Accept`;
//! 2. [`read_payload`]: the body, within the size limit, parsed as JSON-RPC;
//! 3. the era: a message carrying the 2026-07-28 envelope (or a POST whose
//!    `MCP-Protocol-Version` names that revision) goes to [`post_modern`], which never
//!    touches a session; the rest to [`post_handshake`], which finds or mints the session
//!    (or builds a transient state on a stateless server);
//! 4. [`answer`]: JSON, or SSE when the handler talks before it completes.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, Request, StatusCode};
use axum::response::Response;
use tokio::sync::{mpsc, Notify};

use super::peer::{self, SseBody, StreamPeer};
use super::session::{CreateError, Session};
use super::sse::{Resume, StreamHub};
use super::{
    accepted, accepts, check_host, error_response, find_session, header_str, header_version, json_response, reject,
    sse_response, HttpState, ResponseMode, StreamKind, SESSION_HEADER,
};
use crate::inline::poll_once;
use crate::protocol::classifier::http_status_of;
use crate::protocol::jsonrpc::{Invalid, Payload};
use crate::protocol::model::carries_envelope;
use crate::protocol::{ErrorObject, Message, OutboundResponse, ProtocolVersion, RequestId};
use crate::server::outbound::PendingRequests;
use crate::server::{ConnectionState, Era, Peer};

/// What the client's `Accept` allows.
#[derive(Debug, Clone, Copy)]
struct Accepts {
    json: bool,
    sse: bool,
}

pub(super) async fn handle_post(State(st): State<Arc<HttpState>>, req: Request<Body>) -> Response {
    let (mut parts, body) = req.into_parts();
    let accepts = match check_request(&st, &parts) {
        Ok(a) => a,
        Err(r) => return super::answer_unread(&st, body, &parts.headers, r).await,
    };
    if let Err(r) = super::auth::authenticate(&st, &mut parts).await {
        return super::answer_unread(&st, body, &parts.headers, r).await;
    }
    let payload = match read_payload(&st, body, &parts.headers).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    if let Err(r) = super::auth::check_scopes(&st, &parts, &payload) {
        return r;
    }
    match era_of(&payload, &parts.headers) {
        Era::Modern => post_modern(&st, parts, payload, accepts).await,
        Era::Handshake => post_handshake(&st, parts, payload, accepts).await,
    }
}

/// Step 1: who may call, what they send, what they take.
fn check_request(st: &HttpState, parts: &Parts) -> Result<Accepts, Response> {
    check_host(st, parts)?;
    let h = &parts.headers;
    let content_type = header_str(h, header::CONTENT_TYPE).unwrap_or("");
    if !content_type.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case("application/json") {
        return Err(reject(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: Content-Type must be application/json",
        ));
    }
    let (json, sse) = accepts(h);
    if !json && !sse {
        return Err(reject(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: Accept must include application/json and text/event-stream",
        ));
    }
    Ok(Accepts { json, sse })
}

/// Step 2: the body, parsed. An unreadable message is answered here (400).
async fn read_payload(st: &HttpState, body: Body, h: &HeaderMap) -> Result<Payload, Response> {
    let bytes = super::read_body(st, body, h).await?;
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Err(error_response(
            StatusCode::BAD_REQUEST,
            None,
            ErrorObject::parse_error("Parse error: body is not UTF-8"),
        ));
    };
    match st.server.parse_payload(text) {
        Payload::Single(Err(Invalid { id, error })) => Err(error_response(StatusCode::BAD_REQUEST, id, error)),
        p => Ok(p),
    }
}

/// Step 3: the era of a POST. Body first (the envelope), then the version header; an
/// `initialize` without an envelope is always the handshake.
fn era_of(payload: &Payload, h: &HeaderMap) -> Era {
    let header_modern = header_str(h, super::PROTOCOL_VERSION_HEADER)
        .and_then(|v| v.parse::<ProtocolVersion>().ok())
        .is_some_and(|v| !v.is_handshake());
    let modern = |m: &Result<Message, Invalid>| match m {
        Ok(Message::Request(r)) => r.carries_envelope() || (header_modern && r.method != "initialize"),
        Ok(Message::Notification(n)) => carries_envelope(n.params.as_ref()) || header_modern,
        Ok(Message::Response(_)) | Err(_) => header_modern,
    };
    let is_modern = match payload {
        Payload::Single(m) => modern(m),
        Payload::Batch(items) => items.iter().any(modern),
    };
    if is_modern {
        Era::Modern
    } else {
        Era::Handshake
    }
}

/// A 2026-07-28 POST: exactly one request, no session, the error's HTTP status from the
/// one code-to-status table.
async fn post_modern(st: &Arc<HttpState>, parts: Parts, payload: Payload, accepts: Accepts) -> Response {
    let req = match payload {
        Payload::Single(Ok(Message::Request(r))) => r,
        // Clients send no notifications over HTTP in this revision; they are acknowledged and
        // dropped (honouring a posted cancellation by id would let one caller cancel
        // another's work).
        Payload::Single(Ok(Message::Notification(_))) => return accepted(),
        Payload::Single(Ok(Message::Response(r))) => {
            return error_response(
                StatusCode::BAD_REQUEST,
                Some(r.id),
                ErrorObject::invalid_request(
                    "Invalid Request: the server sends no requests in 2026-07-28, so there is nothing to answer",
                ),
            )
        }
        Payload::Batch(_) => {
            return error_response(
                StatusCode::BAD_REQUEST,
                None,
                ErrorObject::invalid_request(
                    "Invalid Request: JSON-RPC batches are not part of the 2026-07-28 revision",
                ),
            )
        }
        Payload::Single(Err(Invalid { id, error })) => return error_response(StatusCode::BAD_REQUEST, id, error),
    };
    if req.method == "subscriptions/listen" && !accepts.sse {
        return error_response(
            StatusCode::NOT_ACCEPTABLE,
            Some(req.id),
            ErrorObject::invalid_request("Not Acceptable: subscriptions/listen answers with an event stream; Accept must include text/event-stream"),
        );
    }
    let id = format!("modern-{}", st.next_transient.fetch_add(1, Ordering::Relaxed));
    let conn = Arc::new(ConnectionState::new(id).with_closing(st.opts.shutdown.child_token()));
    let info = super::request_info(parts);
    let request_ids = vec![req.id.clone()];
    let mode = response_mode(st, accepts);
    let target = Target { conn, session: None, new_session: false };
    let server = st.server.clone();
    answer(st, target, mode, request_ids, true, move |conn, peer| async move {
        server.handle_with(Message::Request(req), &conn, &peer, &info).await.map(Answer::from)
    })
    .await
}

/// Where a handshake-era POST runs: its connection state, and its session when stateful.
struct Target {
    conn: Arc<ConnectionState>,
    session: Option<Arc<Session>>,
    /// The session was minted by this POST (an `initialize`).
    new_session: bool,
}

fn is_initialize(p: &Payload) -> bool {
    let is = |m: &Result<Message, Invalid>| matches!(m, Ok(Message::Request(r)) if r.method == "initialize");
    match p {
        Payload::Single(m) => is(m),
        Payload::Batch(items) => items.iter().any(is),
    }
}

fn payload_requests(p: &Payload) -> Vec<RequestId> {
    let of = |m: &Result<Message, Invalid>| match m {
        Ok(Message::Request(r)) => Some(r.id.clone()),
        Err(Invalid { id: Some(id), .. }) => Some(id.clone()),
        _ => None,
    };
    match p {
        Payload::Single(m) => of(m).into_iter().collect(),
        Payload::Batch(items) => items.iter().filter_map(of).collect(),
    }
}

/// The connection a handshake-era POST runs against: a transient one (stateless), a new
/// session (`initialize` without a session id), or the session it names.
async fn handshake_target(st: &HttpState, parts: &Parts, init: bool) -> Result<Target, Response> {
    let h = &parts.headers;
    if st.server.is_stateless() {
        let version = if init {
            ProtocolVersion::LATEST_HANDSHAKE
        } else {
            header_version(h)?.unwrap_or(ProtocolVersion::HTTP_DEFAULT)
        };
        let id = format!("stateless-{}", st.next_transient.fetch_add(1, Ordering::Relaxed));
        let conn = Arc::new(if init {
            ConnectionState::new(id)
        } else {
            ConnectionState::transient(id, version, Default::default())
        });
        return Ok(Target { conn, session: None, new_session: false });
    }
    if init && h.get(SESSION_HEADER).is_none() {
        let owner = parts.extensions.get::<crate::auth::Identity>().map(|i| i.subject());
        return match st.sessions.create(owner) {
            Ok(s) => Ok(Target { conn: s.conn.clone(), session: Some(s), new_session: true }),
            Err(e @ CreateError::Full(_)) => Err(super::sessions_full(&e)),
            Err(e @ CreateError::Random(_)) => {
                Err(error_response(StatusCode::INTERNAL_SERVER_ERROR, None, ErrorObject::internal(e.to_string())))
            }
        };
    }
    if !init {
        header_version(h)?;
    }
    let s = find_session(st, parts).await?;
    Ok(Target { conn: s.conn.clone(), session: Some(s), new_session: false })
}

async fn post_handshake(st: &Arc<HttpState>, parts: Parts, payload: Payload, accepts: Accepts) -> Response {
    let init = is_initialize(&payload);
    let target = match handshake_target(st, &parts, init).await {
        Ok(t) => t,
        Err(r) => return r,
    };
    let request_ids = payload_requests(&payload);
    let info = super::request_info(parts);
    if request_ids.is_empty() {
        // Only notifications and responses: process them, answer 202.
        let routed = match &target.session {
            Some(s) => route_elsewhere(st, s, &payload).await,
            None => Ok(()),
        };
        let hub = StreamHub::new(String::new(), Resume::Off);
        let peer: Arc<dyn Peer> = Arc::new(StreamPeer::new(hub, target.session.clone(), None, false));
        let refused = st.server.handle_payload_with(payload, &target.conn, &peer, &info).await;
        if let Some(s) = &target.session {
            if let Err(e) = st.sessions.save(s).await {
                return super::store_unavailable(&e.to_string());
            }
        }
        // Nothing to answer, but the POST as a whole can still be wrong (an empty batch, a
        // batch on a revision without batches, a batch of invalid elements): the same
        // JSON-RPC errors stdio writes, with 400.
        if let Some(body) = refused {
            tracing::info!(target: crate::diagnostics::target::HTTP, status = 400, "request refused: a batch of no valid request");
            let mut r = json_response(body, None);
            *r.status_mut() = StatusCode::BAD_REQUEST;
            return r;
        }
        return routed.err().unwrap_or_else(accepted);
    }
    let mode = response_mode(st, accepts);
    let server = st.server.clone();
    let sessions = st.sessions.clone();
    let session = target.session.clone();
    let first_id = request_ids.first().cloned();
    answer(st, target, mode, request_ids, false, move |conn, peer| async move {
        let out = server.handle_payload_with(payload, &conn, &peer, &info).await.map(Answer::Text);
        // What the request changed (the handshake, a subscription, the log level) is kept
        // before the answer leaves, so the client's next request finds it on any instance.
        match session {
            Some(s) => match sessions.save(&s).await {
                Ok(()) => out,
                Err(e) => Some(Answer::Unavailable(first_id, e.to_string())),
            },
            None => out,
        }
    })
    .await
}

/// In a fleet: hand the client's answers to server-to-client requests sent by another
/// instance to that instance, and its cancellations to every instance (the request may run on
/// any). An answer whose instance is gone is a 404 (nothing waits for it any more); a store
/// that is down, a 503.
async fn route_elsewhere(st: &HttpState, s: &Session, payload: &Payload) -> Result<(), Response> {
    if !st.sessions.is_shared() {
        return Ok(());
    }
    let messages: Vec<&Message> = match payload {
        Payload::Single(Ok(m)) => vec![m],
        Payload::Single(Err(_)) => vec![],
        Payload::Batch(items) => items.iter().filter_map(|m| m.as_ref().ok()).collect(),
    };
    for m in messages {
        match m {
            Message::Response(r) => match st.sessions.route_answer(s.id(), &r.id, r.outcome.clone()).await {
                Ok(true) => {}
                Ok(false) if PendingRequests::origin_of(&r.id).is_some_and(|o| Some(o) != st.sessions.instance()) => {
                    return Err(error_response(
                        StatusCode::NOT_FOUND,
                        Some(r.id.clone()),
                        ErrorObject::invalid_request(
                            "Not Found: no request awaits this answer any more (the instance that sent it is gone)",
                        ),
                    ))
                }
                Ok(false) => {}
                Err(e) => return Err(super::store_unavailable(&e.to_string())),
            },
            Message::Notification(n) if n.method == "notifications/cancelled" => {
                let request = n.params.as_ref().and_then(|p| p.get("requestId")).cloned();
                // A request running here is cancelled by the dispatch below; only one running
                // elsewhere needs the bus.
                if let Some(id) = request.and_then(|v| serde_json::from_value::<RequestId>(v).ok()) {
                    if !s.conn.cancel_request(&id) {
                        st.sessions.route_cancel(s.id(), &id).await;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn response_mode(st: &HttpState, a: Accepts) -> ResponseMode {
    match (a.json, a.sse) {
        (true, false) => ResponseMode::Json,
        (false, true) => ResponseMode::Sse,
        _ => st.opts.response_mode,
    }
}

/// What dispatch produced for a POST.
enum Answer {
    /// A handshake-era answer (a response or a batch), sent with 200.
    Text(String),
    /// A 2026-07-28 response; an error's status comes from its code.
    Modern(OutboundResponse),
    /// The request ran, but what it changed could not be kept in the shared store: 503.
    Unavailable(Option<RequestId>, String),
}

impl From<OutboundResponse> for Answer {
    fn from(r: OutboundResponse) -> Self {
        Answer::Modern(r)
    }
}

impl Answer {
    fn status(&self) -> StatusCode {
        match self {
            Answer::Modern(r) => r
                .error_object()
                .and_then(http_status_of)
                .and_then(|s| StatusCode::from_u16(s).ok())
                .unwrap_or(StatusCode::OK),
            Answer::Text(_) => StatusCode::OK,
            Answer::Unavailable(..) => StatusCode::SERVICE_UNAVAILABLE,
        }
    }
    fn into_text(self) -> String {
        match self {
            Answer::Text(t) => t,
            Answer::Modern(r) => r.to_json_string(),
            Answer::Unavailable(id, why) => {
                OutboundResponse::error(id, ErrorObject::store_unavailable(why)).to_json_string()
            }
        }
    }
}

/// Step 4: run the dispatch and answer. A handler that completes without sending anything
/// is answered as JSON (with no task when it completes without waiting); one that talks
/// first gets an SSE stream (always, in `ResponseMode::Sse`).
async fn answer<F, Fut>(
    st: &Arc<HttpState>,
    target: Target,
    mode: ResponseMode,
    request_ids: Vec<RequestId>,
    modern: bool,
    dispatch: F,
) -> Response
where
    F: FnOnce(Arc<ConnectionState>, Arc<dyn Peer>) -> Fut,
    Fut: std::future::Future<Output = Option<Answer>> + Send + 'static,
{
    let Target { conn, session, new_session } = target;
    let sse_possible = mode != ResponseMode::Json;
    let resume = if session.is_some() && sse_possible { st.resume_for(0) } else { Resume::Off };
    let hub = StreamHub::new(st.new_stream_id(session.as_deref(), StreamKind::Post), resume);
    if let Some(s) = &session {
        s.track_stream(&hub);
    }
    let first = Arc::new(Notify::new());
    let peer: Arc<dyn Peer> =
        Arc::new(StreamPeer::new(hub.clone(), session.clone(), Some(first.clone()), sse_possible));
    let work = Box::pin(dispatch(conn.clone(), peer));
    let session_id = session.as_ref().filter(|_| new_session).map(|s| s.id().to_owned());
    let priming = !modern && hub.resumable() && conn.effective_version() >= ProtocolVersion::V2025_11_25;
    // A handler that completes without waiting and sent nothing is answered as JSON right
    // here, with no task.
    let work = match poll_once(work) {
        Err(work) => work,
        Ok(out) => {
            if mode == ResponseMode::Json || (mode == ResponseMode::Auto && hub.message_count() == 0) {
                return finish_json(st, out, session.as_ref(), new_session);
            }
            // It talked before answering (or the client takes only SSE): everything goes out as
            // one finished SSE stream.
            hub.finish(out.map(Answer::into_text));
            let room = usize::try_from(hub.message_count()).unwrap_or(usize::MAX).saturating_add(2);
            let (tx, rx) = mpsc::channel(st.opts.stream_buffer.max(room));
            hub.start(tx, priming, Some(st.opts.sse_retry));
            return sse_response(st.sse_body(rx), session_id.as_deref());
        }
    };
    let mut work = tokio::spawn(work);
    // Until the answer is on its way, a dropped connection cancels the requests.
    let mut guard = peer::CancelOnDrop::new(conn.clone(), request_ids.clone());
    let go_sse = match mode {
        ResponseMode::Json => false,
        ResponseMode::Sse => true,
        ResponseMode::Auto => {
            tokio::select! {
                biased;
                out = &mut work => {
                    let out = out.ok().flatten();
                    if hub.message_count() == 0 {
                        guard.disarm();
                        return finish_json(st, out, session.as_ref(), new_session);
                    }
                    hub.finish(out.map(Answer::into_text));
                    true
                }
                _ = first.notified() => true,
            }
        }
    };
    if !go_sse {
        let out = (&mut work).await.ok().flatten();
        guard.disarm();
        return finish_json(st, out, session.as_ref(), new_session);
    }
    guard.disarm();
    let (tx, rx) = mpsc::channel(st.opts.stream_buffer.max(1));
    hub.start(tx, priming, Some(st.opts.sse_retry));
    {
        let hub = hub.clone();
        tokio::spawn(async move {
            let out = work.await.ok().flatten();
            hub.finish(out.map(Answer::into_text));
        });
    }
    let body = st.sse_body(rx).cancel_on_drop_unless_resumable(hub, conn, request_ids);
    sse_response(body, session_id.as_deref())
}

fn finish_json(st: &HttpState, out: Option<Answer>, session: Option<&Arc<Session>>, new_session: bool) -> Response {
    let Some(out) = out else { return accepted() };
    let status = out.status();
    // A 2026-07-28 error the revision answers with an HTTP status (the classifier's: a bad
    // header, an unsupported version): reported as `error_response`'s are.
    if let (Answer::Modern(r), true) = (&out, status.is_client_error()) {
        if let Some(e) = r.error_object() {
            tracing::info!(target: crate::diagnostics::target::HTTP, status = status.as_u16(), code = e.code, "request refused: {}", e.message);
        }
    }
    let kept = !matches!(out, Answer::Unavailable(..));
    let mut r = match session {
        // A session is established only by an initialize that succeeded (and, in a fleet,
        // whose record was kept).
        Some(s) if new_session && (!s.conn.initialize_processed() || !kept) => {
            st.sessions.discard(s.id(), super::session::End::Failed);
            json_response(out.into_text(), None)
        }
        Some(s) if new_session => json_response(out.into_text(), Some(s.id())),
        _ => json_response(out.into_text(), None),
    };
    *r.status_mut() = status;
    r
}

/// The SSE body of a stream, with keep-alive comments on idle streams, counted as open
/// (`Server::stats`) while the client holds it.
impl HttpState {
    pub(super) fn sse_body(&self, rx: mpsc::Receiver<bytes::Bytes>) -> SseBody {
        SseBody::new(rx)
            .keep_alive_every(self.opts.sse_keep_alive)
            .keep_alive(Box::new(self.server.sse_stream_opened()))
    }
}
