//! The Streamable HTTP endpoint driven by an HTTP server that is not Rust: uvicorn through
//! ASGI, node:http, express or a fetch handler, Go's net/http, a C host. Such a host speaks
//! plain values, not `http` types: it hands over the request head as strings, pushes the body
//! in chunks as they arrive, and pulls the response body chunk by chunk as its client can take
//! it (back-pressure: nothing more is produced than the host asked for). Dropping the
//! response body, as a host does when its client goes away, cancels the requests it carried,
//! exactly as when hyper drops it in [`super::router`].
//!
//! Every protocol decision stays with [`HttpService`]: these types only translate.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;

use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, Method, Request, StatusCode};
use bytes::Bytes;
use futures::channel::mpsc;
use futures::SinkExt as _;
use http_body_util::{BodyExt as _, StreamBody};
use serde_json::{Map, Value};

use super::HttpService;
use crate::server::{HostValues, RemoteAddr};

/// How many body chunks may wait between the host and the service before a write waits.
const BODY_CHUNKS_IN_FLIGHT: usize = 4;

/// The head of a request a host server received, as plain values.
#[derive(Debug, Clone, Default)]
pub struct HostHead {
    /// The HTTP method (`POST`, `GET`, `DELETE`, ...).
    pub method: String,
    /// The request target: the path, and the query when there is one (`/mcp?x=1`).
    pub target: String,
    /// The headers in the order received; a name may repeat.
    pub headers: Vec<(String, Vec<u8>)>,
    /// The client's address, when the host knows it.
    pub remote_addr: Option<SocketAddr>,
    /// Values the host attaches for handlers to read (`RequestInfo::host_value`).
    pub host_values: Map<String, Value>,
}

/// The service stopped reading the request body: it has answered already (too large, refused
/// by a check before the body mattered) or the exchange was dropped. The host stops sending.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the MCP endpoint is no longer reading this request body")]
pub struct BodyClosed;

/// The sending half of a request body. Dropping it ends the body.
pub struct HostBodyWriter {
    tx: mpsc::Sender<Result<http_body::Frame<Bytes>, Infallible>>,
}

impl HostBodyWriter {
    /// Push one chunk; waits while the service has not taken the earlier ones.
    pub async fn write(&mut self, chunk: impl Into<Bytes>) -> Result<(), BodyClosed> {
        self.tx.send(Ok(http_body::Frame::data(chunk.into()))).await.map_err(|_| BodyClosed)
    }

    /// Push one chunk from a thread outside any async runtime (a C or Go host's request
    /// thread), blocking while the service has not taken the earlier ones.
    pub fn blocking_write(&mut self, chunk: impl Into<Bytes>) -> Result<(), BodyClosed> {
        futures::executor::block_on(self.write(chunk))
    }

    /// End the body (the same as dropping the writer).
    pub fn finish(self) {}
}

/// A response for the host to send: the status and headers at once, the body as it comes.
pub struct HostResponse {
    /// The HTTP status code.
    pub status: u16,
    /// The headers; a name may repeat.
    pub headers: Vec<(String, Vec<u8>)>,
    /// The body, pulled chunk by chunk.
    pub body: HostResponseBody,
}

impl std::fmt::Debug for HostResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostResponse").field("status", &self.status).field("headers", &self.headers).finish()
    }
}

impl HostResponse {
    /// Whether the body is an event stream that may stay open (the host should flush each
    /// chunk as it comes rather than buffer).
    pub fn is_event_stream(&self) -> bool {
        self.headers.iter().any(|(n, v)| n.eq_ignore_ascii_case("content-type") && v.starts_with(b"text/event-stream"))
    }
}

/// A response body, pulled by the host. Dropping it before the end cancels what it carried.
pub struct HostResponseBody {
    body: Body,
}

impl HostResponseBody {
    /// The next chunk of the body, or `None` at its end. An SSE body ends when its stream
    /// closes; waiting here is how a host holds the stream open.
    pub async fn next_chunk(&mut self) -> Option<Bytes> {
        loop {
            match self.body.frame().await? {
                Ok(frame) => match frame.into_data() {
                    Ok(data) if data.is_empty() => continue,
                    Ok(data) => return Some(data),
                    Err(_trailers) => continue,
                },
                // The endpoint's bodies do not fail; a failure ends the body.
                Err(_) => return None,
            }
        }
    }

    /// The rest of the body, gathered (for a JSON answer; an open SSE stream never ends).
    pub async fn collect(mut self) -> Vec<u8> {
        let mut out = Vec::new();
        while let Some(chunk) = self.next_chunk().await {
            out.extend_from_slice(&chunk);
        }
        out
    }
}

impl HttpService {
    /// Start serving a request a host received: the writer takes its body, the future gives
    /// the response once the head is decided (for a POST, after the body has been read). A
    /// head that is not valid HTTP (a method or header name with forbidden bytes) is answered
    /// 400 without reaching the endpoint.
    ///
    /// The future is `Send + 'static`: a host drives it on any tokio runtime.
    pub fn host_request(
        &self,
        head: HostHead,
    ) -> (HostBodyWriter, impl Future<Output = HostResponse> + Send + 'static) {
        let (tx, rx) = mpsc::channel(BODY_CHUNKS_IN_FLIGHT);
        let writer = HostBodyWriter { tx };
        let service = self.clone();
        let request = build_request(head, rx);
        let response = async move {
            match request {
                Ok(req) => into_host_response(service.handle(req).await),
                Err(why) => bad_head(why),
            }
        };
        (writer, response)
    }
}

type BodyRx = mpsc::Receiver<Result<http_body::Frame<Bytes>, Infallible>>;

fn build_request(head: HostHead, rx: BodyRx) -> Result<Request<StreamBody<BodyRx>>, String> {
    let method = Method::from_bytes(head.method.as_bytes()).map_err(|_| format!("bad method {:?}", head.method))?;
    let target = if head.target.is_empty() { "/".to_owned() } else { head.target };
    let mut builder = Request::builder().method(method).uri(target.as_str());
    for (name, value) in &head.headers {
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| format!("bad header name {name:?}"))?;
        let value = HeaderValue::from_bytes(value).map_err(|_| format!("bad value for header {name}"))?;
        builder = builder.header(name, value);
    }
    if let Some(addr) = head.remote_addr {
        builder = builder.extension(RemoteAddr(addr));
    }
    if !head.host_values.is_empty() {
        builder = builder.extension(HostValues(head.host_values));
    }
    builder.body(StreamBody::new(rx)).map_err(|e| format!("bad request target {target:?}: {e}"))
}

fn into_host_response(response: axum::response::Response) -> HostResponse {
    let (parts, body) = response.into_parts();
    let headers = parts.headers.iter().map(|(n, v)| (n.as_str().to_owned(), v.as_bytes().to_vec())).collect();
    HostResponse { status: parts.status.as_u16(), headers, body: HostResponseBody { body } }
}

fn bad_head(why: String) -> HostResponse {
    // Not `why`: it quotes the request target, whose query may carry a secret.
    tracing::info!(target: crate::diagnostics::target::HTTP, status = 400, "request refused: a head that is not valid HTTP");
    let body = Body::from(format!("Bad Request: {why}"));
    HostResponse {
        status: StatusCode::BAD_REQUEST.as_u16(),
        headers: vec![("content-type".to_owned(), b"text/plain; charset=utf-8".to_vec())],
        body: HostResponseBody { body },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::model::Implementation;
    use crate::server::Server;
    use crate::transport::http::HttpOptions;

    fn post(body: &str) -> HostHead {
        HostHead {
            method: "POST".into(),
            target: "/mcp".into(),
            headers: vec![
                ("host".into(), b"127.0.0.1".to_vec()),
                ("content-type".into(), b"application/json".to_vec()),
                ("accept".into(), b"application/json, text/event-stream".to_vec()),
                ("content-length".into(), body.len().to_string().into_bytes()),
            ],
            ..HostHead::default()
        }
    }

    #[tokio::test]
    async fn a_body_pushed_in_chunks_is_answered() {
        let service = HttpService::new(&Server::builder(Implementation::new("t", "1")).build(), HttpOptions::default());
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
        let (mut writer, response) = service.host_request(post(body));
        let task = tokio::spawn(response);
        let (a, b) = body.split_at(20);
        writer.write(a.to_owned()).await.unwrap();
        writer.write(b.to_owned()).await.unwrap();
        writer.finish();
        let response = task.await.unwrap();
        assert_eq!(response.status, 200);
        assert!(response.headers.iter().any(|(n, _)| n == "mcp-session-id"));
        let text = String::from_utf8(response.body.collect().await).unwrap();
        assert!(text.contains(r#""protocolVersion":"2025-06-18""#), "{text}");
    }

    #[tokio::test]
    async fn a_bad_header_name_is_a_400_not_a_panic() {
        let service = HttpService::new(&Server::builder(Implementation::new("t", "1")).build(), HttpOptions::default());
        let mut head = post("{}");
        head.headers.push(("bad name".into(), b"x".to_vec()));
        let (_writer, response) = service.host_request(head);
        let response = response.await;
        assert_eq!(response.status, 400);
        assert!(String::from_utf8(response.body.collect().await).unwrap().contains("bad header name"));
    }

    #[tokio::test]
    async fn an_oversized_body_is_413_and_the_writer_learns_it() {
        let options = HttpOptions { max_body_bytes: 16, ..HttpOptions::default() };
        let service = HttpService::new(&Server::builder(Implementation::new("t", "1")).build(), options);
        let mut head = post("");
        head.headers.retain(|(n, _)| n != "content-length");
        let (mut writer, response) = service.host_request(head);
        let task = tokio::spawn(response);
        let mut refused = false;
        for _ in 0..64 {
            if writer.write(vec![b' '; 8]).await.is_err() {
                refused = true;
                break;
            }
        }
        assert_eq!(task.await.unwrap().status, 413);
        assert!(refused, "the writer must learn that the body is no longer read");
    }
}
