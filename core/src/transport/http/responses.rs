//! The HTTP responses the endpoint answers with: JSON-RPC errors with their status, JSON and
//! SSE answers carrying the session header, 202, 405, and the 503s of a store that is down or a
//! session table that is full.

use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;

use super::peer::SseBody;
use super::{session, SESSION_HEADER};
use crate::diagnostics::target;
use crate::protocol::{ErrorObject, OutboundResponse, RequestId};

pub(super) fn error_response(status: StatusCode, id: Option<RequestId>, error: ErrorObject) -> Response {
    if status.is_server_error() {
        // A store or capacity outage refuses every request: a warning a second, with a count.
        static REPORTED: crate::diagnostics::Throttle = crate::diagnostics::Throttle::new();
        if let Some(held) = REPORTED.pass() {
            let held = crate::diagnostics::held_back(held);
            tracing::warn!(target: target::HTTP, status = status.as_u16(), code = error.code, "request refused: {}{held}", error.message);
        }
    } else if status.is_client_error() {
        tracing::info!(target: target::HTTP, status = status.as_u16(), code = error.code, "request refused: {}", error.message);
    }
    let body = OutboundResponse::error(id, error).to_json_string();
    let mut r = Response::new(Body::from(body));
    *r.status_mut() = status;
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

/// The shared store is down: 503, with the JSON-RPC error every surface gives for it.
pub(super) fn store_unavailable(why: &str) -> Response {
    error_response(StatusCode::SERVICE_UNAVAILABLE, None, ErrorObject::store_unavailable(why))
}

/// No slot for a session (every one of `max_sessions` is busy): 503, retry in a second.
pub(super) fn sessions_full(e: &session::CreateError) -> Response {
    let mut r = error_response(
        StatusCode::SERVICE_UNAVAILABLE,
        None,
        ErrorObject::internal(format!("Service Unavailable: {e}")),
    );
    r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    r
}

pub(super) fn reject(status: StatusCode, message: &str) -> Response {
    error_response(status, None, ErrorObject::invalid_request(message))
}

pub(super) fn json_response(body: String, session: Option<&str>) -> Response {
    let mut r = Response::new(Body::from(body));
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    add_session_header(&mut r, session);
    r
}

pub(super) fn sse_response(body: SseBody, session: Option<&str>) -> Response {
    let mut r = Response::new(Body::from_stream(body));
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Reverse proxies (nginx) must not buffer an event stream.
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    add_session_header(&mut r, session);
    r
}

pub(super) fn add_session_header(r: &mut Response, session: Option<&str>) {
    if let Some(id) = session.and_then(|s| HeaderValue::from_str(s).ok()) {
        r.headers_mut().insert(SESSION_HEADER, id);
    }
}

pub(super) fn accepted() -> Response {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = StatusCode::ACCEPTED;
    r
}

pub(super) fn method_not_allowed(why: &str) -> Response {
    let mut r = reject(StatusCode::METHOD_NOT_ALLOWED, &format!("Method Not Allowed: {why}; use POST"));
    r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST"));
    r
}
