//! Streamable HTTP, both eras at one endpoint (`/mcp` by default): POST (client messages),
//! GET (the standalone SSE stream) and DELETE (end a session). A POST carrying the 2026-07-28
//! envelope is served statelessly, its errors with the status the classifier's table gives;
//! the handshake revisions (2025-03-26 … 2025-11-25) keep sessions, resumable streams and
//! server-to-client requests.
//!
//! Built on axum (over hyper 1.x): [`router`] gives an axum `Router` to mount in an existing
//! app at any path, [`bind`]/[`serve_http`] run it on a socket with TCP_NODELAY and graceful
//! shutdown. A POST's answer is JSON, or an SSE stream when the handler emits notifications
//! or server-to-client requests before it completes ([`ResponseMode::Auto`]). In stateful
//! mode each session owns one `ConnectionState`; in stateless mode every POST gets a
//! transient one, and GET and DELETE answer 405.

// Request checks return the HTTP response to send on failure; it is built once per rejected
// request, so its size does not matter.
#![allow(clippy::result_large_err)]

mod auth;
mod body;
pub mod config;
mod get;
pub mod host;
mod legacy;
mod listener;
mod peer;
mod post;
mod responses;
pub mod security;
pub mod session;
pub mod sse;

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{ConnectInfo, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, Request, StatusCode};
use axum::response::Response;
use axum::routing::{post, MethodRouter};
use axum::Router;
use bytes::Bytes;
use tokio_util::sync::CancellationToken;

use self::body::{answer_unread, read_body};
pub use self::config::{HttpConfig, HttpConfigError};
pub use self::host::{BodyClosed, HostBodyWriter, HostHead, HostResponse, HostResponseBody};
use self::responses::{
    accepted, error_response, json_response, method_not_allowed, reject, sessions_full, sse_response, store_unavailable,
};
use self::security::HostPolicy;
use self::session::{Lookup, Session, SessionManager};
use self::sse::{EventStore, InMemoryEventStore, Resume};
use crate::auth::Identity;
use crate::protocol::{ErrorObject, ProtocolVersion};
use crate::server::{RemoteAddr, RequestInfo, Server};

/// The header carrying the session id.
pub const SESSION_HEADER: &str = "mcp-session-id";
/// The header carrying the negotiated protocol version.
pub const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";

/// How a POST that carries requests is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResponseMode {
    /// JSON, unless the handler sends a message to the client before completing; then SSE.
    #[default]
    Auto,
    /// Always JSON; notifications from handlers are dropped and server-to-client requests
    /// fail.
    Json,
    /// Always an SSE stream.
    Sse,
}

/// Options of the Streamable HTTP transport.
#[derive(Clone)]
pub struct HttpOptions {
    /// The endpoint path. Default `/mcp`.
    pub path: String,
    /// JSON or SSE answers.
    pub response_mode: ResponseMode,
    /// The largest accepted POST body, in bytes; larger ones get 413. Default 4 MiB.
    pub max_body_bytes: usize,
    /// Sessions idle for longer end (404 afterwards). Default 30 minutes; `None` never.
    pub session_idle_timeout: Option<Duration>,
    /// The most sessions held at once (live parts in this process). A new one evicts the
    /// longest idle session that is not busy; when every one is busy, `initialize` gets 503
    /// with `Retry-After`. Default 10,000; `None` unbounded.
    pub max_sessions: Option<usize>,
    /// A connection whose request head has not fully arrived this long after the connection
    /// opened or went idle is closed (slow or idle clients; keep-alive connections included).
    /// Only [`HttpServer`] applies it (a host's own HTTP server has its own). Default 30 s;
    /// `None` never.
    pub header_read_timeout: Option<Duration>,
    /// A request body that has not fully arrived this long after its head is answered 408.
    /// Default 30 s; `None` never.
    pub body_read_timeout: Option<Duration>,
    /// DNS-rebinding protection. Default: loopback hosts and origins only.
    pub host_policy: HostPolicy,
    /// Where SSE events are kept for `Last-Event-ID` resumption (stateful mode). Default
    /// in memory, bounded; `None` disables resumability. A server with shared stores
    /// ([`Server::set_shared_stores`]) keeps sessions and events there instead.
    pub event_store: Option<Arc<dyn EventStore>>,
    /// The reconnection delay advertised to clients (SSE `retry`). Default 1 s.
    pub sse_retry: Duration,
    /// Events buffered per SSE stream before a slow reader is cut off. Default 1024.
    pub stream_buffer: usize,
    /// An SSE comment is sent on a stream idle this long, so proxies and clients keep
    /// long-lived streams (listen streams, GET streams) open. Default 15 s; `None` never.
    pub sse_keep_alive: Option<Duration>,
    /// Cancel to shut down gracefully: stop accepting, end sessions and their streams, let
    /// in-flight requests finish.
    pub shutdown: CancellationToken,
    /// Also serve the deprecated 2024-11-05 HTTP+SSE transport (`GET legacy_sse_path`,
    /// `POST legacy_messages_path?sessionId=…`) for old clients. Default off.
    pub legacy_sse: bool,
    /// The HTTP+SSE stream path. Default `/sse`.
    pub legacy_sse_path: String,
    /// The HTTP+SSE message path. Default `/messages`.
    pub legacy_messages_path: String,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            path: "/mcp".to_owned(),
            response_mode: ResponseMode::Auto,
            max_body_bytes: 4 * 1024 * 1024,
            session_idle_timeout: Some(Duration::from_secs(30 * 60)),
            max_sessions: Some(10_000),
            header_read_timeout: Some(Duration::from_secs(30)),
            body_read_timeout: Some(Duration::from_secs(30)),
            host_policy: HostPolicy::default(),
            event_store: Some(Arc::new(InMemoryEventStore::default())),
            sse_retry: Duration::from_secs(1),
            stream_buffer: 1024,
            sse_keep_alive: Some(Duration::from_secs(15)),
            shutdown: CancellationToken::new(),
            legacy_sse: false,
            legacy_sse_path: "/sse".to_owned(),
            legacy_messages_path: "/messages".to_owned(),
        }
    }
}

impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpOptions")
            .field("path", &self.path)
            .field("response_mode", &self.response_mode)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("session_idle_timeout", &self.session_idle_timeout)
            .field("max_sessions", &self.max_sessions)
            .field("header_read_timeout", &self.header_read_timeout)
            .field("body_read_timeout", &self.body_read_timeout)
            .field("host_policy", &self.host_policy)
            .field("sse_keep_alive", &self.sse_keep_alive)
            .finish_non_exhaustive()
    }
}

pub(crate) struct HttpState {
    server: Server,
    opts: HttpOptions,
    sessions: Arc<SessionManager>,
    /// The fleet's event log, when sessions are shared.
    shared_events: Option<Arc<dyn crate::stores::EventLog>>,
    stream_prefix: String,
    next_stream: AtomicU64,
    next_transient: AtomicU64,
}

impl HttpState {
    fn new(server: &Server, opts: HttpOptions) -> Arc<Self> {
        let shared = server.shared_stores().filter(|_| !server.is_stateless());
        let sessions = SessionManager::with_max_sessions(
            shared.as_ref().map(|s| s.sessions.clone()),
            opts.session_idle_timeout,
            opts.max_sessions,
        );
        sessions.report_ends_to(server.downgrade());
        let prefix = session::new_session_id().map(|s| s[..8].to_owned()).unwrap_or_else(|_| "s".to_owned());
        Arc::new(HttpState {
            server: server.clone(),
            shared_events: shared.filter(|_| opts.event_store.is_some()).map(|s| s.events),
            opts,
            sessions,
            stream_prefix: prefix,
            next_stream: AtomicU64::new(0),
            next_transient: AtomicU64::new(0),
        })
    }

    /// A fresh stream id. A session's streams are named `<session>.<kind><n>` (kind `g` for
    /// the GET stream, `p` for a POST's), so a `Last-Event-ID` names its session and kind.
    fn new_stream_id(&self, session: Option<&Session>, kind: StreamKind) -> String {
        let n = self.next_stream.fetch_add(1, Ordering::Relaxed);
        match session {
            Some(s) => format!("{}.{}{}{n}", s.id(), kind.letter(), self.stream_prefix),
            None => format!("{}{n}", self.stream_prefix),
        }
    }

    /// Where the events of a session stream are kept (a new stream starts at event 0).
    fn resume_for(&self, next: u64) -> Resume {
        match (&self.shared_events, &self.opts.event_store) {
            (Some(log), _) => Resume::Shared { log: log.clone(), next },
            (None, Some(store)) => Resume::Local(store.clone()),
            (None, None) => Resume::Off,
        }
    }
}

/// What a session stream carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StreamKind {
    /// The standalone GET stream.
    Get,
    /// A POST's response stream.
    Post,
}

impl StreamKind {
    fn letter(self) -> char {
        match self {
            StreamKind::Get => 'g',
            StreamKind::Post => 'p',
        }
    }

    /// The session and kind of a session stream's id.
    fn of(stream: &str) -> Option<(&str, StreamKind)> {
        let (session, rest) = stream.split_once('.')?;
        let kind = match rest.chars().next()? {
            'g' => StreamKind::Get,
            'p' => StreamKind::Post,
            _ => return None,
        };
        Some((session, kind))
    }
}

/// The axum router serving the endpoint at `options.path`. Merge or nest it into an app;
/// what an outer middleware inserts into the request's extensions reaches handlers through
/// [`RequestInfo`]. Sessions idle past `options.session_idle_timeout` are swept by a task
/// on the current tokio runtime (when there is one) until `options.shutdown` is cancelled.
pub fn router(server: &Server, options: HttpOptions) -> Router {
    let path = options.path.clone();
    let state = HttpState::new(server, options);
    if tokio::runtime::Handle::try_current().is_ok() {
        spawn_sweeper(&state);
    }
    router_for(state, &path)
}

fn router_for(state: Arc<HttpState>, path: &str) -> Router {
    let mut r = Router::new().route(path, endpoint(&state));
    if let Some(rs) = state.server.auth() {
        for p in rs.metadata_paths().into_iter().chain([crate::auth::AS_WELL_KNOWN.to_owned()]) {
            if p != path {
                r = r.route(&p, axum::routing::any(serve_metadata));
            }
        }
    }
    if state.opts.legacy_sse {
        r = r
            .route(&state.opts.legacy_sse_path, axum::routing::get(legacy::handle_sse))
            .route(&state.opts.legacy_messages_path, post(legacy::handle_messages));
    }
    r.with_state(state)
}

async fn serve_metadata(State(st): State<Arc<HttpState>>, req: Request<Body>) -> Response {
    if let Some(r) = auth::metadata_response(&st, req.method(), req.uri().path()) {
        return r;
    }
    auth::fronted_metadata_response(&st, req.method(), req.uri().path())
        .await
        .unwrap_or_else(|| reject(StatusCode::NOT_FOUND, "Not Found"))
}

/// POST, GET and DELETE of the endpoint.
fn endpoint(_: &Arc<HttpState>) -> MethodRouter<Arc<HttpState>> {
    post(post::handle_post).get(get::handle_get).delete(handle_delete)
}

/// Sweep idle sessions every quarter of the idle timeout until shutdown or until the state
/// is dropped.
fn spawn_sweeper(state: &Arc<HttpState>) {
    let Some(timeout) = state.opts.session_idle_timeout else { return };
    let every = (timeout / 4).clamp(Duration::from_millis(100), Duration::from_secs(30));
    let shutdown = state.opts.shutdown.clone();
    let weak = Arc::downgrade(state);
    tokio::spawn(async move {
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = tokio::time::sleep(every) => match weak.upgrade() {
                    Some(state) => {
                        state.sessions.expire_idle();
                    }
                    None => return,
                },
            }
        }
    });
}

/// What handlers may read about an HTTP request: its head, with the peer address our own
/// listener knows turned into a [`RemoteAddr`].
fn request_info(mut parts: http::request::Parts) -> RequestInfo {
    if parts.extensions.get::<RemoteAddr>().is_none() {
        if let Some(ConnectInfo(addr)) = parts.extensions.get::<ConnectInfo<SocketAddr>>().cloned() {
            parts.extensions.insert(RemoteAddr(addr));
        }
    }
    let identity = parts.extensions.get::<Identity>().cloned();
    let info = RequestInfo::from_http(Arc::new(parts));
    match identity {
        Some(id) => info.with_identity(id),
        None => info,
    }
}

/// The Streamable HTTP endpoint as a service that any HTTP server can drive: a request head
/// and a streaming body in, a response head and a streaming body out. The host's router has
/// already chosen this endpoint, so any path is served (legacy HTTP+SSE, which needs two
/// paths, is only in [`router`]). Dropping the response body, as a host does when the client
/// goes away, cancels the requests it was carrying. Values the host wants handlers to see go
/// in the request's extensions ([`RemoteAddr`], [`HostValues`], or any type).
#[derive(Clone)]
pub struct HttpService {
    state: Arc<HttpState>,
    service: MethodRouter,
}

impl HttpService {
    /// The service for `server`. Must be called inside a tokio runtime: idle sessions are
    /// swept by a task on it until `options.shutdown` is cancelled or the service dropped.
    pub fn new(server: &Server, options: HttpOptions) -> Self {
        let state = HttpState::new(server, options);
        spawn_sweeper(&state);
        let service = endpoint(&state).with_state(state.clone());
        HttpService { state, service }
    }

    /// Serve one request.
    pub async fn handle<B>(&self, req: Request<B>) -> Response
    where
        B: axum::body::HttpBody<Data = Bytes> + Send + 'static,
        B::Error: Into<axum::BoxError>,
    {
        use tower::ServiceExt as _;
        if let Some(r) = auth::metadata_response(&self.state, req.method(), req.uri().path()) {
            return r;
        }
        if let Some(r) = auth::fronted_metadata_response(&self.state, req.method(), req.uri().path()).await {
            return r;
        }
        let req = req.map(Body::new);
        match self.service.clone().oneshot(req).await {
            Ok(r) => r,
            Err(never) => match never {},
        }
    }

    /// The Protected Resource Metadata of a protected server: where it must be served (the
    /// URL every challenge names) and the document. [`HttpService::handle`] answers a GET for
    /// its paths itself, so a host routes `/.well-known/oauth-protected-resource*` to the
    /// service too (or serves the document on its own).
    pub fn protected_resource_metadata(&self) -> Option<(&str, &serde_json::Value)> {
        self.state.server.auth().map(|rs| (rs.metadata_url(), rs.metadata()))
    }

    /// The endpoint path of the options (informational: [`HttpService::handle`] serves any).
    pub fn path(&self) -> &str {
        &self.state.opts.path
    }

    /// The ids of the live sessions.
    pub fn session_ids(&self) -> Vec<String> {
        self.state.sessions.session_ids()
    }

    /// End every session and its streams, as at shutdown (a host stopping its app).
    pub fn close(&self) {
        self.state.opts.shutdown.cancel();
        self.state.sessions.terminate_all();
    }
}

/// A bound, not yet running, HTTP server.
pub struct HttpServer {
    listener: tokio::net::TcpListener,
    state: Arc<HttpState>,
}

/// Bind `addr` (port 0 picks a free port).
pub async fn bind(server: &Server, addr: SocketAddr, options: HttpOptions) -> io::Result<HttpServer> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    Ok(HttpServer { listener, state: HttpState::new(server, options) })
}

/// Serve `server` over Streamable HTTP on `addr` until `options.shutdown` is cancelled.
pub async fn serve_http(server: &Server, addr: SocketAddr, options: HttpOptions) -> io::Result<()> {
    bind(server, addr, options).await?.run().await
}

impl HttpServer {
    /// The bound address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The sessions of this endpoint (their ids, expiry), usable after [`HttpServer::run`]
    /// took the server.
    pub fn sessions(&self) -> Arc<SessionManager> {
        self.state.sessions.clone()
    }

    /// The ids of the live sessions.
    pub fn session_ids(&self) -> Vec<String> {
        self.state.sessions.session_ids()
    }

    /// Run until the shutdown token is cancelled; in-flight requests finish first.
    pub async fn run(self) -> io::Result<()> {
        let state = self.state;
        let shutdown = state.opts.shutdown.clone();
        spawn_sweeper(&state);
        let path = state.opts.path.clone();
        let app = router_for(state.clone(), &path);
        let settings = listener::ConnectionSettings { header_read_timeout: state.opts.header_read_timeout };
        let sessions = state.sessions.clone();
        listener::serve(self.listener, app, settings, shutdown, move || sessions.terminate_all()).await
    }
}

/// Whether a GET or DELETE speaks 2026-07-28 (which has neither).
fn names_modern_revision(h: &HeaderMap) -> bool {
    header_str(h, PROTOCOL_VERSION_HEADER)
        .and_then(|v| v.parse::<ProtocolVersion>().ok())
        .is_some_and(|v| !v.is_handshake())
}

// ----- header checks -----

fn header_str(h: &HeaderMap, name: impl header::AsHeaderName) -> Option<&str> {
    h.get(name).and_then(|v| v.to_str().ok())
}

fn check_host(st: &HttpState, parts: &Parts) -> Result<(), Response> {
    let h = &parts.headers;
    let bad = |why: &str| reject(StatusCode::BAD_REQUEST, &format!("Bad Request: {why}"));
    // RFC 9112 §3.2: exactly one Host (an HTTP/2 request names its authority in the URI).
    let mut hosts = h.get_all(header::HOST).iter();
    let host = match (hosts.next(), hosts.next()) {
        (Some(_), Some(_)) => return Err(bad("more than one Host header")),
        (Some(v), None) => Some(v.to_str().map_err(|_| bad("the Host header is not visible ASCII"))?),
        (None, _) => parts.uri.authority().map(|a| a.as_str()),
    };
    if h.get_all(header::ORIGIN).iter().nth(1).is_some() {
        return Err(bad("more than one Origin header"));
    }
    if host.is_none() && st.opts.host_policy.checks_hosts() {
        return Err(bad("missing Host header"));
    }
    st.opts
        .host_policy
        .allows(host, header_str(h, header::ORIGIN))
        .map_err(|why| reject(StatusCode::FORBIDDEN, &format!("Forbidden: {why}")))
}

/// What the client's `Accept` allows: (JSON, SSE).
fn accepts(h: &HeaderMap) -> (bool, bool) {
    let Some(accept) = header_str(h, header::ACCEPT) else { return (false, false) };
    let mut json = false;
    let mut sse = false;
    for part in accept.split(',') {
        let mime = part.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        match mime.as_str() {
            "*/*" => {
                json = true;
                sse = true;
            }
            "application/json" | "application/*" => json = true,
            "text/event-stream" | "text/*" => sse = true,
            _ => {}
        }
    }
    (json, sse)
}

/// The `MCP-Protocol-Version` header: absent is fine; present must be a supported revision.
fn header_version(h: &HeaderMap) -> Result<Option<ProtocolVersion>, Response> {
    match h.get(PROTOCOL_VERSION_HEADER) {
        None => Ok(None),
        Some(v) => match v.to_str().ok().and_then(|s| s.parse::<ProtocolVersion>().ok()) {
            Some(v) if v.is_handshake() => Ok(Some(v)),
            _ => Err(reject(
                StatusCode::BAD_REQUEST,
                &format!(
                    "Bad Request: unsupported {PROTOCOL_VERSION_HEADER} {:?}; supported: {}",
                    String::from_utf8_lossy(v.as_bytes()),
                    ProtocolVersion::HANDSHAKE.map(|v| v.as_str()).join(", ")
                ),
            )),
        },
    }
}

/// The session a request names. A session belongs to the subject that created it: another
/// subject's request on it is answered as for an unknown session (404), so session ids cannot
/// be probed across users.
async fn find_session(st: &HttpState, parts: &http::request::Parts) -> Result<Arc<Session>, Response> {
    let subject = parts.extensions.get::<Identity>().map(Identity::subject);
    st.sessions.lookup(header_str(&parts.headers, SESSION_HEADER), subject).await.map_err(|e| match e {
        Lookup::Unavailable(why) => store_unavailable(&why),
        Lookup::Full(max) => sessions_full(&session::CreateError::Full(max)),
        Lookup::Missing => reject(StatusCode::BAD_REQUEST, "Bad Request: Mcp-Session-Id header is required"),
        Lookup::Unknown => error_response(
            StatusCode::NOT_FOUND,
            None,
            ErrorObject::invalid_request("Session not found: it expired or was terminated; initialize a new one"),
        ),
    })
}

// ----- DELETE -----

async fn handle_delete(State(st): State<Arc<HttpState>>, req: Request<Body>) -> Response {
    let (mut parts, _) = req.into_parts();
    if let Err(r) = check_host(&st, &parts) {
        return r;
    }
    if let Err(r) = auth::authenticate(&st, &mut parts).await {
        return r;
    }
    let h = &parts.headers;
    if st.server.is_stateless() {
        return method_not_allowed("this server is stateless");
    }
    if names_modern_revision(h) {
        return method_not_allowed("2026-07-28 has no sessions to delete");
    }
    if let Err(r) = header_version(h) {
        return r;
    }
    match find_session(&st, &parts).await {
        Ok(s) => match st.sessions.terminate(s.id()).await {
            Ok(_) => {
                let mut r = Response::new(Body::empty());
                *r.status_mut() = StatusCode::OK;
                r
            }
            Err(e) => store_unavailable(&e.to_string()),
        },
        Err(r) => r,
    }
}
