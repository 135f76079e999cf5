//! One benchmark client: a keep-alive HTTP/1.1 connection (hyper's low-level client, TCP_NODELAY)
//! that sends one request at a time, and the checks applied to every answer.

use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper::header::{HeaderValue, ACCEPT, CONTENT_TYPE, HOST};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use tokio::net::TcpStream;

use crate::args::{Args, Mode, Protocol};
use crate::Error;

/// The protocol version sent in `initialize` and in every `MCP-Protocol-Version` header of
/// 2025-11-25 runs.
pub const PROTOCOL_VERSION: &str = "2025-11-25";
/// The per-request revision of 2026-07-28 runs.
pub const MODERN_PROTOCOL_VERSION: &str = "2026-07-28";

/// The `params._meta` value of every 2026-07-28 request: the protocol version, no client
/// capabilities, and the client's identity (optional in the spec, but real clients send it).
/// One constant string, so that an enveloped call costs the load generator nothing but copying
/// these bytes into the request it already formats.
pub const ENVELOPE: &str = concat!(
    r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
    r#""io.modelcontextprotocol/clientCapabilities":{},"#,
    r#""io.modelcontextprotocol/clientInfo":{"name":"ferrite-bench-http-loadgen","version":""#,
    env!("CARGO_PKG_VERSION"),
    r#""}}"#,
);

/// The routing headers a 2026-07-28 request mirrors from its body (SEP-2243), besides
/// `MCP-Protocol-Version`: `Mcp-Method` and, where the method has one, `Mcp-Name`.
#[derive(Debug, Clone, Copy)]
struct Routing {
    method: &'static str,
    name: Option<&'static str>,
}

const CALL_ADD: Routing = Routing { method: "tools/call", name: Some("add") };
const DISCOVER: Routing = Routing { method: "server/discover", name: None };

/// What the server said about itself in `initialize`.
#[derive(Debug, Default, Clone)]
pub struct Identity {
    pub server_name: Option<String>,
    pub server_version: Option<String>,
    pub protocol_version: Option<String>,
    /// `supportedVersions` of a `DiscoverResult`; empty after `initialize`.
    pub supported_versions: Vec<String>,
}

/// Calls and latencies of one client in one phase.
#[derive(Debug, Default)]
pub struct Tally {
    pub calls: u64,
    pub errors: u64,
    /// Answers that came as an SSE stream rather than as `application/json`.
    pub sse_answers: u64,
    pub latencies: Vec<Duration>,
    pub error_samples: Vec<String>,
    /// Request bodies sent and answer bodies received, in bytes (HTTP headers not counted).
    pub request_bytes: u64,
    pub response_bytes: u64,
}

/// How many wrong answers are kept as examples for the log.
const MAX_ERROR_SAMPLES: usize = 3;

pub struct Client {
    protocol: Protocol,
    sender: SendRequest<Full<Bytes>>,
    host: HeaderValue,
    authorization: Option<HeaderValue>,
    path: String,
    session: Option<HeaderValue>,
    fixed_reply: bool,
    timeout: Duration,
    /// Ids are `base + n`, so that every client's ids, and so every call's addends, differ.
    base: u64,
    next: u64,
}

impl Client {
    /// Opens the connection; in stateful mode also the session.
    pub async fn connect(args: &Args, index: u64) -> Result<(Self, Identity), Error> {
        let stream = TcpStream::connect(("127.0.0.1", args.port)).await?;
        stream.set_nodelay(true)?;
        let (sender, connection) = http1::handshake(TokioIo::new(stream)).await.map_err(http_error)?;
        tokio::spawn(async move {
            // Ends when the client is dropped or the server closes the connection; a request in
            // flight then fails and reports it.
            let _ = connection.await;
        });
        let host = HeaderValue::from_str(&format!("127.0.0.1:{}", args.port)).expect("a valid Host header");
        let mut client = Self {
            protocol: args.protocol,
            sender,
            host,
            authorization: match &args.bearer {
                Some(t) => Some(
                    HeaderValue::from_str(&format!("Bearer {t}"))
                        .map_err(|_| Error::new("--bearer: not a header value"))?,
                ),
                None => None,
            },
            path: args.path.clone(),
            session: None,
            fixed_reply: args.fixed_reply,
            timeout: args.request_timeout,
            base: (index + 1) * 1_000_000_000,
            next: 0,
        };
        let identity = match args.mode {
            // 2026-07-28 has no handshake: the first client asks once who the server is, and
            // whether it serves the revision at all.
            Mode::StatelessJson if args.protocol == Protocol::V2026_07_28 => {
                if index == 0 {
                    client.discover().await?
                } else {
                    Identity::default()
                }
            }
            Mode::StatefulSse => client.open_session().await?,
            // Stateless servers need no handshake; the first client asks once who the server is.
            Mode::StatelessJson if index == 0 && !args.fixed_reply => client.initialize().await?.0,
            Mode::StatelessJson => Identity::default(),
        };
        Ok((client, identity))
    }

    /// `initialize`, which must mint an `Mcp-Session-Id`, then `notifications/initialized`.
    async fn open_session(&mut self) -> Result<Identity, Error> {
        let (identity, session) = self.initialize().await?;
        let session = session
            .ok_or_else(|| Error::new("initialize: the answer has no Mcp-Session-Id (is the server stateless?)"))?;
        self.session = Some(session);
        let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let (status, _, body) = self.post(initialized.to_owned(), None).await?;
        if !status.is_success() {
            return Err(Error::new(format!(
                "notifications/initialized: HTTP {status}: {}",
                String::from_utf8_lossy(&body)
            )));
        }
        Ok(identity)
    }

    /// Sends `initialize`; returns what the server says about itself and the session id, if any.
    async fn initialize(&mut self) -> Result<(Identity, Option<HeaderValue>), Error> {
        let initialize = serde_json::json!({
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "ferrite-bench-http-loadgen", "version": env!("CARGO_PKG_VERSION")},
            },
        });
        let (status, headers, body) = self.post(initialize.to_string(), None).await?;
        if status != StatusCode::OK {
            return Err(Error::new(format!("initialize: HTTP {status}: {}", String::from_utf8_lossy(&body))));
        }
        let session = headers.get("mcp-session-id").cloned();
        let identity = if self.fixed_reply {
            Identity::default()
        } else {
            let message = find_answer(content_type(&headers), &body, 0)
                .map_err(|e| Error::new(format!("initialize: {e}")))?
                .ok_or_else(|| Error::new("initialize: no answer with id 0"))?;
            let result: InitializeResult = serde_json::from_str(message.result.as_ref().map_or("null", |r| r.get()))
                .map_err(|e| Error::new(format!("initialize: not an InitializeResult: {e}")))?;
            Identity {
                server_name: result.server_info.as_ref().map(|info| info.name.clone()),
                server_version: result.server_info.map(|info| info.version),
                protocol_version: Some(result.protocol_version),
                supported_versions: Vec::new(),
            }
        };
        Ok((identity, session))
    }

    /// Sends one enveloped `server/discover` (2026-07-28) and returns the identity in its
    /// result's `_meta["io.modelcontextprotocol/serverInfo"]`. Fails when the server answers
    /// with an error, or with a result that is not a complete `DiscoverResult` listing
    /// 2026-07-28: such a server does not serve the revision.
    async fn discover(&mut self) -> Result<Identity, Error> {
        let (status, headers, body) = self.post(discover_body(), Some(DISCOVER)).await?;
        if status != StatusCode::OK {
            return Err(Error::new(format!("server/discover: HTTP {status}: {}", String::from_utf8_lossy(&body))));
        }
        let message = find_answer(content_type(&headers), &body, 0)
            .map_err(|e| Error::new(format!("server/discover: {e}")))?
            .ok_or_else(|| {
                Error::new(format!("server/discover: no result with id 0 in: {}", String::from_utf8_lossy(&body)))
            })?;
        let result = message
            .result
            .as_ref()
            .ok_or_else(|| Error::new(format!("server/discover: no result in: {}", String::from_utf8_lossy(&body))))?;
        parse_discover_result(result.get()).map_err(Error::new)
    }

    /// Sends calls one after the other until `until`, the last one included.
    pub async fn run(&mut self, until: Instant) -> Result<Tally, Error> {
        let mut tally = Tally { latencies: Vec::with_capacity(4096), ..Tally::default() };
        loop {
            self.next += 1;
            let id = self.base + self.next;
            // Different addends for every id; both stay far from overflow.
            let (a, b) = ((id % 1_000_003) as i64, (id.wrapping_mul(7) % 999_983) as i64 - 500_000);
            let (request, routing) = call_body(self.protocol, id, a, b);
            tally.request_bytes += request.len() as u64;
            let sent = Instant::now();
            let (status, headers, body) = self.post(request, routing).await?;
            let answered = Instant::now();
            tally.calls += 1;
            tally.response_bytes += body.len() as u64;
            tally.latencies.push(answered - sent);
            let content_type = content_type(&headers);
            if media_type(content_type).eq_ignore_ascii_case("text/event-stream") {
                tally.sse_answers += 1;
            }
            if let Err(e) = check_answer(self.protocol, self.fixed_reply, status, &headers, &body, id, a + b) {
                tally.errors += 1;
                if tally.error_samples.len() < MAX_ERROR_SAMPLES {
                    tally.error_samples.push(format!("id {id}: {e}"));
                }
            }
            if answered >= until {
                return Ok(tally);
            }
        }
    }

    /// One POST; the whole answer body is read, so the connection can carry the next request.
    /// On 2026-07-28, `routing` gives the `Mcp-Method` and `Mcp-Name` headers to send.
    async fn post(
        &mut self,
        body: String,
        routing: Option<Routing>,
    ) -> Result<(StatusCode, hyper::HeaderMap, Bytes), Error> {
        let version = match self.protocol {
            Protocol::V2025_11_25 => PROTOCOL_VERSION,
            Protocol::V2026_07_28 => MODERN_PROTOCOL_VERSION,
        };
        let mut request = Request::builder()
            .method(Method::POST)
            .uri(self.path.as_str())
            .header(HOST, self.host.clone())
            .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
            .header(ACCEPT, HeaderValue::from_static("application/json, text/event-stream"))
            .header("mcp-protocol-version", HeaderValue::from_static(version))
            .body(Full::new(Bytes::from(body)))
            .expect("a valid request");
        if let Some(a) = &self.authorization {
            request.headers_mut().insert(hyper::header::AUTHORIZATION, a.clone());
        }
        if let Some(routing) = routing {
            let headers = request.headers_mut();
            headers.insert("mcp-method", HeaderValue::from_static(routing.method));
            if let Some(name) = routing.name {
                headers.insert("mcp-name", HeaderValue::from_static(name));
            }
        }
        if let Some(session) = &self.session {
            request.headers_mut().insert("mcp-session-id", session.clone());
        }
        let exchange = async {
            self.sender.ready().await.map_err(http_error)?;
            let response = self.sender.send_request(request).await.map_err(http_error)?;
            let (parts, body) = response.into_parts();
            let body = body.collect().await.map_err(http_error)?.to_bytes();
            Ok::<_, Error>((parts.status, parts.headers, body))
        };
        tokio::time::timeout(self.timeout, exchange)
            .await
            .map_err(|_| Error::new(format!("no complete answer within {:?}", self.timeout)))?
    }
}

/// Whether the answer to call `id` is right: HTTP 200, a JSON-RPC response with that id and a
/// `result` whose text block is the sum and whose `structuredContent.sum` (when present) is
/// the sum. On 2026-07-28 the result must also say `"resultType":"complete"` and the answer
/// must not open a session (`Mcp-Session-Id`). With `--fixed-reply` any JSON-RPC result
/// passes.
fn check_answer(
    protocol: Protocol,
    fixed_reply: bool,
    status: StatusCode,
    headers: &hyper::HeaderMap,
    body: &[u8],
    id: u64,
    sum: i64,
) -> Result<(), String> {
    if status != StatusCode::OK {
        return Err(format!("HTTP {status}: {}", String::from_utf8_lossy(body)));
    }
    let modern = protocol == Protocol::V2026_07_28;
    if modern && headers.contains_key("mcp-session-id") {
        return Err("a 2026-07-28 answer carries an Mcp-Session-Id".into());
    }
    let content_type = content_type(headers);
    let wanted = if fixed_reply { None } else { Some(id) };
    let message = find_answer(content_type, body, wanted.unwrap_or(u64::MAX))?;
    let message = match (message, fixed_reply) {
        (Some(message), _) => message,
        (None, true) => first_message(content_type, body)?.ok_or("no JSON-RPC message in the answer")?,
        (None, false) => return Err(format!("no answer with id {id} in: {}", String::from_utf8_lossy(body))),
    };
    let result = message.result.ok_or_else(|| format!("no result: {}", String::from_utf8_lossy(body)))?;
    if fixed_reply {
        return Ok(());
    }
    let result: CallToolResult = serde_json::from_str(result.get()).map_err(|e| format!("bad result: {e}"))?;
    if modern && result.result_type.as_deref() != Some("complete") {
        return Err(format!("resultType {:?}, expected \"complete\"", result.result_type));
    }
    let expected = sum.to_string();
    if !result.content.iter().any(|block| block.kind == "text" && block.text.as_deref() == Some(expected.as_str())) {
        return Err(format!("no text block {expected:?} in {:?}", String::from_utf8_lossy(body)));
    }
    match result.structured_content.and_then(|s| s.sum) {
        Some(got) if got != sum => Err(format!("structuredContent.sum is {got}, expected {sum}")),
        _ => Ok(()),
    }
}

fn http_error(e: hyper::Error) -> Error {
    Error::new(format!("HTTP: {e}"))
}

/// The media type of a Content-Type value, without parameters.
fn media_type(content_type: &str) -> &str {
    content_type.split(';').next().unwrap_or("").trim()
}

fn content_type(headers: &hyper::HeaderMap) -> &str {
    headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("")
}

/// A JSON-RPC message, as far as the checks need it. Notifications have no id.
#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    id: Option<u64>,
    #[serde(default)]
    result: Option<Box<serde_json::value::RawValue>>,
}

#[derive(Deserialize)]
struct CallToolResult {
    #[serde(rename = "resultType", default)]
    result_type: Option<String>,
    #[serde(default)]
    content: Vec<ContentBlock>,
    #[serde(rename = "structuredContent", default)]
    structured_content: Option<StructuredSum>,
}

#[derive(Deserialize)]
struct ContentBlock {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    text: Option<String>,
}

#[derive(Deserialize)]
struct StructuredSum {
    #[serde(default)]
    sum: Option<i64>,
}

#[derive(Deserialize)]
struct InitializeResult {
    #[serde(rename = "protocolVersion")]
    protocol_version: String,
    #[serde(rename = "serverInfo", default)]
    server_info: Option<ServerInfo>,
}

#[derive(Deserialize)]
struct ServerInfo {
    name: String,
    version: String,
}

/// The parts of a `DiscoverResult` the load generator checks.
#[derive(Deserialize)]
struct DiscoverResult {
    #[serde(rename = "resultType", default)]
    result_type: Option<String>,
    #[serde(rename = "supportedVersions", default)]
    supported_versions: Option<Vec<String>>,
    #[serde(rename = "_meta", default)]
    meta: Option<DiscoverMeta>,
}

#[derive(Deserialize)]
struct DiscoverMeta {
    #[serde(rename = "io.modelcontextprotocol/serverInfo", default)]
    server_info: Option<ServerInfo>,
}

/// The body of call `id` and, on 2026-07-28, its routing headers: a preformatted template with
/// the id and the operands filled in; for 2026-07-28 the constant [`ENVELOPE`] follows the
/// arguments as `params._meta`.
fn call_body(protocol: Protocol, id: u64, a: i64, b: i64) -> (String, Option<Routing>) {
    match protocol {
        Protocol::V2025_11_25 => (
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{a},"b":{b}}}}}}}"#
            ),
            None,
        ),
        Protocol::V2026_07_28 => (
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{a},"b":{b}}},"_meta":{ENVELOPE}}}}}"#
            ),
            Some(CALL_ADD),
        ),
    }
}

/// The `server/discover` body (id 0) of 2026-07-28 runs.
fn discover_body() -> String {
    format!(r#"{{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{{"_meta":{ENVELOPE}}}}}"#)
}

/// Checks a `DiscoverResult` and returns the identity it gives: `serverInfo` from its `_meta`
/// and the protocol version of the run.
fn parse_discover_result(result: &str) -> Result<Identity, String> {
    let discover: DiscoverResult =
        serde_json::from_str(result).map_err(|e| format!("server/discover: not a DiscoverResult ({e}): {result}"))?;
    if discover.result_type.as_deref() != Some("complete") {
        return Err(format!(
            "server/discover: resultType is {:?}, expected \"complete\": {result}",
            discover.result_type
        ));
    }
    let supported =
        discover.supported_versions.ok_or_else(|| format!("server/discover: no supportedVersions: {result}"))?;
    if !supported.iter().any(|v| v == MODERN_PROTOCOL_VERSION) {
        return Err(format!(
            "server/discover: the server does not serve {MODERN_PROTOCOL_VERSION} (supportedVersions {supported:?})"
        ));
    }
    let server_info = discover.meta.and_then(|meta| meta.server_info);
    if server_info.is_none() {
        eprintln!("http-loadgen: the server/discover result has no _meta[\"io.modelcontextprotocol/serverInfo\"]");
    }
    Ok(Identity {
        server_name: server_info.as_ref().map(|info| info.name.clone()),
        server_version: server_info.map(|info| info.version),
        protocol_version: Some(MODERN_PROTOCOL_VERSION.to_owned()),
        supported_versions: supported,
    })
}

/// The response with `id` in an answer body: a JSON message, or one of the events of an SSE
/// stream (where priming events without data and notifications are skipped).
fn find_answer(content_type: &str, body: &[u8], id: u64) -> Result<Option<Message>, String> {
    let mut found = None;
    for_each_message(content_type, body, |message| {
        if message.id == Some(id) {
            found = Some(message);
            false
        } else {
            true
        }
    })?;
    Ok(found)
}

/// The first message with an id, for `--fixed-reply`.
fn first_message(content_type: &str, body: &[u8]) -> Result<Option<Message>, String> {
    let mut found = None;
    for_each_message(content_type, body, |message| {
        let more = message.id.is_none();
        if !more {
            found = Some(message);
        }
        more
    })?;
    Ok(found)
}

/// Calls `visit` with every JSON-RPC message of the body until it returns false.
fn for_each_message(content_type: &str, body: &[u8], mut visit: impl FnMut(Message) -> bool) -> Result<(), String> {
    let media_type = media_type(content_type);
    if media_type.eq_ignore_ascii_case("application/json") {
        let message = serde_json::from_slice(body).map_err(|e| format!("bad JSON ({e}): {:?}", lossy(body)))?;
        visit(message);
        return Ok(());
    }
    if !media_type.eq_ignore_ascii_case("text/event-stream") {
        return Err(format!("unexpected Content-Type {content_type:?}: {:?}", lossy(body)));
    }
    let text = std::str::from_utf8(body).map_err(|_| "the SSE stream is not UTF-8".to_owned())?;
    for data in sse_data(text) {
        if data.trim().is_empty() {
            continue;
        }
        let message = serde_json::from_str(&data).map_err(|e| format!("bad JSON in SSE data ({e}): {data:?}"))?;
        if !visit(message) {
            break;
        }
    }
    Ok(())
}

fn lossy(body: &[u8]) -> String {
    String::from_utf8_lossy(body).into_owned()
}

/// The `data` of every event of an SSE stream: the `data:` lines of each event joined with
/// `\n`, a single leading space removed (the SSE rules for the fields that matter here).
fn sse_data(text: &str) -> Vec<String> {
    let mut events = Vec::new();
    let mut data: Option<String> = None;
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            events.extend(data.take());
            continue;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        if field == "data" {
            let value = value.strip_prefix(' ').unwrap_or(value);
            match &mut data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => data = Some(value.to_owned()),
            }
        }
    }
    events.extend(data);
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_events_are_split_and_joined() {
        let stream = "id: 0\nretry: 3000\ndata:\n\nevent: message\r\ndata: {\"a\":1}\r\n\r\ndata: x\ndata: y\n";
        assert_eq!(sse_data(stream), vec!["", "{\"a\":1}", "x\ny"]);
    }

    #[test]
    fn call_bodies_carry_the_envelope_on_2026() {
        let (legacy, routing) = call_body(Protocol::V2025_11_25, 42, 5, -7);
        assert!(routing.is_none());
        let value: serde_json::Value = serde_json::from_str(&legacy).expect("valid JSON");
        assert_eq!(value["params"]["arguments"], serde_json::json!({"a": 5, "b": -7}));
        assert!(value["params"].get("_meta").is_none());

        let (modern, routing) = call_body(Protocol::V2026_07_28, 42, 5, -7);
        let routing = routing.expect("routing headers on 2026-07-28");
        assert_eq!((routing.method, routing.name), ("tools/call", Some("add")));
        let value: serde_json::Value = serde_json::from_str(&modern).expect("valid JSON");
        assert_eq!(value["id"], 42);
        assert_eq!(value["method"], routing.method);
        assert_eq!(value["params"]["name"], routing.name.unwrap());
        assert_eq!(value["params"]["arguments"], serde_json::json!({"a": 5, "b": -7}));
        let meta = &value["params"]["_meta"];
        assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], MODERN_PROTOCOL_VERSION);
        assert_eq!(meta["io.modelcontextprotocol/clientCapabilities"], serde_json::json!({}));
        assert_eq!(meta["io.modelcontextprotocol/clientInfo"]["name"], "ferrite-bench-http-loadgen");
        assert_eq!(meta.as_object().map(|m| m.len()), Some(3));
        assert_eq!(modern.len() - legacy.len(), ",\"_meta\":".len() + ENVELOPE.len());

        let discover: serde_json::Value = serde_json::from_str(&discover_body()).expect("valid JSON");
        assert_eq!(discover["method"], DISCOVER.method);
        assert_eq!(discover["params"]["_meta"], *meta);
    }

    fn json_headers(session: bool) -> hyper::HeaderMap {
        let mut headers = hyper::HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if session {
            headers.insert("mcp-session-id", HeaderValue::from_static("s1"));
        }
        headers
    }

    #[test]
    fn modern_answers_must_be_complete_and_sessionless() {
        let check = |protocol, session, body: &str| {
            check_answer(protocol, false, StatusCode::OK, &json_headers(session), body.as_bytes(), 7, 10)
        };
        let complete = r#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"type":"text","text":"10"}],"structuredContent":{"sum":10}}}"#;
        assert_eq!(check(Protocol::V2026_07_28, false, complete), Ok(()));
        assert!(check(Protocol::V2026_07_28, true, complete).is_err(), "no session on 2026-07-28");
        assert_eq!(check(Protocol::V2025_11_25, true, complete), Ok(()));
        let untyped = r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"10"}]}}"#;
        assert!(check(Protocol::V2026_07_28, false, untyped).is_err());
        assert_eq!(check(Protocol::V2025_11_25, false, untyped), Ok(()));
        let wrong =
            r#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"type":"text","text":"11"}]}}"#;
        assert!(check(Protocol::V2026_07_28, false, wrong).is_err());
        let other_id =
            r#"{"jsonrpc":"2.0","id":8,"result":{"resultType":"complete","content":[{"type":"text","text":"10"}]}}"#;
        assert!(check(Protocol::V2026_07_28, false, other_id).is_err());
        let bad_status =
            check_answer(Protocol::V2026_07_28, false, StatusCode::BAD_REQUEST, &json_headers(false), b"{}", 7, 10);
        assert!(bad_status.is_err());
    }

    #[test]
    fn discover_results_are_checked() {
        let good = r#"{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},
            "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.2"}}}"#;
        let identity = parse_discover_result(good).expect("valid");
        assert_eq!(identity.server_name.as_deref(), Some("srv"));
        assert_eq!(identity.protocol_version.as_deref(), Some("2026-07-28"));
        assert!(parse_discover_result(r#"{"resultType":"complete","supportedVersions":["2025-11-25"]}"#).is_err());
        assert!(parse_discover_result(r#"{"supportedVersions":["2026-07-28"]}"#).is_err());
        assert!(parse_discover_result(r#"{"resultType":"complete"}"#).is_err());
    }

    #[test]
    fn the_answer_is_found_after_priming_and_notifications() {
        let stream = concat!(
            "id: 1\ndata:\n\n",
            "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n",
            "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[]}}\n\n",
        );
        let message = find_answer("text/event-stream", stream.as_bytes(), 7).unwrap().unwrap();
        assert_eq!(message.result.unwrap().get(), "{\"content\":[]}");
        assert!(find_answer("text/event-stream", stream.as_bytes(), 8).unwrap().is_none());
    }
}
