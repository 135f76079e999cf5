//! The resource-server side of the HTTP transport: the bearer token of every request to a
//! protected server is verified before anything else is read from it (401, 400 or 503 on
//! failure, with RFC 6750's `WWW-Authenticate`), the verified [`Identity`] travels in the
//! request's extensions to handlers, a request for a target the token lacks a scope for gets
//! 403 with the step-up challenge before dispatch, and the RFC 9728 metadata is served.

use axum::body::Body;
use axum::http::request::Parts;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;

use super::{error_response, HttpState};
use crate::auth::{bearer_token, AuthError, Credentials, Identity, ResourceServer, Target};
use crate::protocol::jsonrpc::{Invalid, Payload};
use crate::protocol::{ErrorObject, Message};

/// The JSON-RPC code in the body of a 401, 403 or 503 from the resource-server checks (the
/// HTTP status and `WWW-Authenticate` are what clients act on).
const UNAUTHORIZED_CODE: i32 = -32001;

/// Verify the request's bearer token when the server is protected, and put the identity in
/// the request's extensions (where [`super::request_info`] finds it). Unprotected servers
/// keep whatever identity a host middleware inserted.
pub(super) async fn authenticate(st: &HttpState, parts: &mut Parts) -> Result<(), Response> {
    let Some(rs) = st.server.auth() else { return Ok(()) };
    // A host must not be able to smuggle an identity past the verifier.
    parts.extensions.remove::<Identity>();
    if parts.uri.query().is_some_and(|q| q.split('&').any(|kv| kv.split('=').next() == Some("access_token"))) {
        let why = "access tokens are accepted only in the Authorization header";
        return Err(challenge(StatusCode::BAD_REQUEST, rs.challenge_malformed(why), why));
    }
    let values: Vec<&[u8]> = parts.headers.get_all(header::AUTHORIZATION).iter().map(HeaderValue::as_bytes).collect();
    let token = match bearer_token(&values) {
        Credentials::Bearer(t) => t,
        Credentials::Missing => {
            return Err(challenge(
                StatusCode::UNAUTHORIZED,
                rs.challenge_missing(),
                "Unauthorized: a bearer token is required",
            ))
        }
        Credentials::Malformed(why) => {
            return Err(challenge(StatusCode::BAD_REQUEST, rs.challenge_malformed(why), why))
        }
    };
    let identity = match rs.verify(token).await {
        Ok(id) => id,
        Err(AuthError::InvalidToken(why)) => {
            return Err(challenge(
                StatusCode::UNAUTHORIZED,
                rs.challenge_invalid(&why),
                &format!("Unauthorized: {why}"),
            ))
        }
        Err(e @ AuthError::Unavailable(_)) => {
            let mut r = error_response(
                StatusCode::SERVICE_UNAVAILABLE,
                None,
                ErrorObject::new(UNAUTHORIZED_CODE, e.to_string()),
            );
            r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
            return Err(r);
        }
    };
    let required = &rs.config().required_scopes;
    if required.iter().any(|s| !identity.has_scope(s)) {
        return Err(insufficient(rs, required));
    }
    parts.extensions.insert(identity);
    Ok(())
}

/// 403 for a payload asking for a tool, prompt or resource the identity lacks a scope for:
/// every scope those requests need, in one challenge.
pub(super) fn check_scopes(st: &HttpState, parts: &Parts, payload: &Payload) -> Result<(), Response> {
    let (Some(rs), Some(id)) = (st.server.auth(), parts.extensions.get::<Identity>()) else { return Ok(()) };
    let mut needed: Vec<String> = Vec::new();
    let mut check = |m: &Result<Message, Invalid>| {
        let Ok(Message::Request(r)) = m else { return };
        let (target, key) = match r.method.as_str() {
            "tools/call" => (Target::Tool, "name"),
            "prompts/get" => (Target::Prompt, "name"),
            "resources/read" => (Target::Resource, "uri"),
            _ => return,
        };
        let Some(name) = r.params.as_ref().and_then(|p| p.get(key)).and_then(|v| v.as_str()) else { return };
        if !rs.missing_scopes(id, target, name).is_empty() {
            for s in rs.required_scopes(target, name) {
                if !needed.contains(&s) {
                    needed.push(s);
                }
            }
        }
    };
    match payload {
        Payload::Single(m) => check(m),
        Payload::Batch(items) => items.iter().for_each(&mut check),
    }
    if needed.is_empty() {
        Ok(())
    } else {
        Err(insufficient(rs, &needed))
    }
}

fn insufficient(rs: &ResourceServer, needed: &[String]) -> Response {
    challenge(
        StatusCode::FORBIDDEN,
        rs.challenge_insufficient(needed),
        &format!("Forbidden: insufficient scope; the request needs: {}", needed.join(" ")),
    )
}

fn challenge(status: StatusCode, www_authenticate: String, message: &str) -> Response {
    let mut r = error_response(status, None, ErrorObject::new(UNAUTHORIZED_CODE, message));
    if let Ok(v) = HeaderValue::from_str(&www_authenticate) {
        r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    r
}

/// The authorization server's metadata for 2025-03-26 clients, when `path` is where they read
/// it: 200 with the document, 503 with `Retry-After` while it cannot be fetched.
pub(super) async fn fronted_metadata_response(st: &HttpState, method: &http::Method, path: &str) -> Option<Response> {
    let rs = st.server.auth()?;
    if path != crate::auth::AS_WELL_KNOWN {
        return None;
    }
    if let Some(refused) = get_only(method) {
        return Some(refused);
    }
    Some(match rs.authorization_server_metadata().await {
        Ok(doc) => public_json(doc.to_string()),
        Err(e) => {
            let mut r = error_response(StatusCode::SERVICE_UNAVAILABLE, None, ErrorObject::internal(e));
            let retry = crate::auth::FRONTED_RETRY_AFTER.as_secs().to_string();
            if let Ok(v) = HeaderValue::from_str(&retry) {
                r.headers_mut().insert(header::RETRY_AFTER, v);
            }
            r
        }
    })
}

/// The Protected Resource Metadata document, when `path` is one of its paths.
pub(super) fn metadata_response(st: &HttpState, method: &http::Method, path: &str) -> Option<Response> {
    let rs = st.server.auth()?;
    if !rs.metadata_paths().iter().any(|p| p == path) {
        return None;
    }
    Some(get_only(method).unwrap_or_else(|| public_json(rs.metadata().to_string())))
}

/// 405 for a metadata path asked with anything but GET or HEAD.
fn get_only(method: &http::Method) -> Option<Response> {
    if method == http::Method::GET || method == http::Method::HEAD {
        return None;
    }
    let mut r = error_response(StatusCode::METHOD_NOT_ALLOWED, None, ErrorObject::invalid_request("use GET"));
    r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET"));
    Some(r)
}

/// A public metadata document: JSON, readable across origins (browser-based clients), cached
/// five minutes.
fn public_json(body: String) -> Response {
    let mut r = Response::new(Body::from(body));
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("max-age=300"));
    r
}
