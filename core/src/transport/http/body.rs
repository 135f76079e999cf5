//! Request bodies: read within the size limit and the read timeout, and, for a request
//! refused from its head alone, drained so the connection outlives the refusal.

use std::time::Duration;

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use http_body_util::BodyExt as _;

use super::{header_str, reject, HttpState};

/// The body of a request, read whole: 413 past `max_body_bytes` (declared or read), 408 past
/// the body read timeout, 400 when it cannot be read.
pub(super) async fn read_body(st: &HttpState, body: Body, headers: &HeaderMap) -> Result<Bytes, Response> {
    let limit = st.opts.max_body_bytes;
    let too_large = || reject(StatusCode::PAYLOAD_TOO_LARGE, &format!("Payload Too Large: the limit is {limit} bytes"));
    if let Some(len) = header_str(headers, header::CONTENT_LENGTH).and_then(|l| l.parse::<usize>().ok()) {
        if len > limit {
            return Err(too_large());
        }
    }
    let read = http_body_util::Limited::new(body, limit).collect();
    let read = match st.opts.body_read_timeout {
        Some(t) => match tokio::time::timeout(t, read).await {
            Ok(r) => r,
            Err(_) => {
                return Err(reject(
                    StatusCode::REQUEST_TIMEOUT,
                    &format!("Request Timeout: the body did not arrive within {} ms", t.as_millis()),
                ))
            }
        },
        None => read.await,
    };
    match read {
        Ok(c) => Ok(c.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => Err(too_large()),
        Err(_) => Err(reject(StatusCode::BAD_REQUEST, "Bad Request: could not read the body")),
    }
}

/// The longest a refused request's body is waited for (see [`answer_unread`]).
const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);

/// A request answered before its body was read (a foreign host, a wrong media type, a
/// missing or bad token). The body is read and dropped first, within the body limit and
/// read timeout (at most [`DRAIN_TIMEOUT`]): otherwise hyper closes the connection after the
/// answer, which says nothing of it, and a client that sends its next request on the same
/// connection (an OAuth client fetching the metadata a 401 names) finds it gone. A body
/// that cannot be drained so gets `Connection: close` on the answer instead.
pub(super) async fn answer_unread(st: &HttpState, body: Body, headers: &HeaderMap, mut response: Response) -> Response {
    let limit = st.opts.max_body_bytes;
    let declared = header_str(headers, header::CONTENT_LENGTH).and_then(|l| l.parse::<usize>().ok());
    let drained = match declared {
        Some(0) => true,
        Some(len) if len > limit => false,
        _ => {
            let wait = st.opts.body_read_timeout.map_or(DRAIN_TIMEOUT, |t| t.min(DRAIN_TIMEOUT));
            let read = http_body_util::Limited::new(body, limit).collect();
            matches!(tokio::time::timeout(wait, read).await, Ok(Ok(_)))
        }
    };
    if !drained {
        response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}
