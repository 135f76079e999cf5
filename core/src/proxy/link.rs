//! The JSON-RPC client side of a proxy: requests to the upstream server and their answers,
//! and what the upstream sends while a forwarded request runs (progress, log messages,
//! server-to-client requests), carried back to the client of the request that caused it.
//!
//! A wire (`stdio`, `http`) moves frames; this matches them. A message the wire can relate to
//! one request (an HTTP POST's SSE stream) goes to that request; otherwise (stdio) progress
//! goes by its token and anything else to the one forwarded request in flight, or to the
//! server's clients when none or several are.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio::sync::{oneshot, Notify};

use crate::protocol::model::{
    InputRequest, InputRequired, InputResponses, LoggingLevel, CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, LOG_LEVEL_KEY,
    PROTOCOL_VERSION_KEY, RELATED_TASK_KEY,
};
use crate::protocol::ErrorObject;
use crate::server::{BoxFuture, PeerError, RequestContext};
use crate::sync::lock;

/// Moves frames to the upstream server. Incoming frames go to [`Link::incoming`].
pub(crate) trait Wire: Send + Sync + 'static {
    /// Send one JSON-RPC message. For a request, `id` is its id: a wire that reads the
    /// answer on its own channel (an HTTP POST) relates what it reads to it.
    /// `headers`: what the request carries beside the frame (the `Mcp-Param-*` headers an
    /// HTTP wire sends; a stdio wire has none).
    fn send(
        &self,
        link: &Arc<Link>,
        frame: Value,
        id: Option<i64>,
        headers: &[(String, String)],
    ) -> BoxFuture<'static, Result<(), String>>;
    /// Stop (kill the child, close streams).
    fn close(&self);
    /// The request `id` ended (answered, failed or cancelled): let go of what the wire holds
    /// for it. An HTTP wire closes the request's SSE stream, which on 2026-07-28 is how a
    /// client cancels.
    fn done(&self, _id: i64) {}
    /// The wire itself (for what only one kind of wire keeps).
    fn as_any(&self) -> &dyn std::any::Any;
}

/// Where the upstream's unsolicited notifications go (the proxy's mirror of it).
pub(crate) trait Events: Send + Sync + 'static {
    fn notification(self: Arc<Self>, method: &str, params: Option<Value>);
    /// The link started a new upstream session (the upstream forgot the last one): what the
    /// old one held (resource subscriptions) must be asked for again, and the lists may differ.
    fn new_session(self: Arc<Self>) {}
}

/// How an HTTP wire fails a request whose session the upstream no longer knows (HTTP 404):
/// the link starts a new session and sends the request again once.
pub(crate) const SESSION_GONE: &str = "the upstream no longer knows the proxy's session (HTTP 404)";

/// The revision the proxy speaks upstream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UpstreamEra {
    /// Both, when the upstream serves both: `initialize` once, and each client's request
    /// forwarded in the client's own era (2026-07-28 ones with the envelope, when the
    /// upstream answers `server/discover`; otherwise on the session). The default.
    #[default]
    Auto,
    /// `initialize` once, then every request on the session (2025-11-25 and older peers).
    Handshake,
    /// Every request carries the 2026-07-28 envelope; no session.
    Modern,
}

/// A local request being forwarded: the context its progress, logs and input go to.
pub(crate) struct Forward {
    pub(crate) ctx: RequestContext,
    /// The progress token sent upstream, when the client asked for progress.
    token: Mutex<Option<String>>,
    /// Server-to-client requests the upstream made so far (their keys when the client is on
    /// 2026-07-28 and answers by retrying).
    asked: AtomicUsize,
    /// Answers the 2026-07-28 client gave (this retry's and the earlier ones').
    answers: InputResponses,
    /// What the upstream asked that the 2026-07-28 client has yet to answer.
    needs: Mutex<Option<InputRequired>>,
    needs_input: Notify,
    /// Headers the forwarded request carries (a tool's `Mcp-Param-*`).
    pub(crate) headers: Vec<(String, String)>,
    /// The client capabilities a 2026-07-28 request declares upstream, when not the client's
    /// own (a call the proxy makes as a task adds the tasks extension).
    capabilities: Option<Value>,
    /// The upstream task whose `tasks/result` this forward waits on: the upstream's requests
    /// tied to that task are asked of this forward's client.
    pub(crate) upstream_task: Mutex<Option<String>>,
    /// Whether cancelling the client's request abandons the upstream request at once (else
    /// its answer is awaited: see `Mirror::call_creating_task`).
    abandons: bool,
    /// Signs of life of the upstream request (its progress notifications, answers to its
    /// questions), so far.
    progressed: AtomicU64,
    /// The upstream's questions open with the client: the wait is the client's, not the
    /// upstream's, and does not count against the timeout.
    asking: AtomicUsize,
}

impl Forward {
    pub(crate) fn new(ctx: RequestContext) -> Arc<Forward> {
        Self::with_headers(ctx, Vec::new())
    }

    pub(crate) fn with_headers(ctx: RequestContext, headers: Vec<(String, String)>) -> Arc<Forward> {
        Self::declaring(ctx, headers, None, true)
    }

    /// As [`Forward::with_headers`], declaring `capabilities` upstream instead of the client's,
    /// and abandoning the upstream request when the client cancels, or not (`abandons`).
    pub(crate) fn declaring(
        ctx: RequestContext,
        headers: Vec<(String, String)>,
        capabilities: Option<Value>,
        abandons: bool,
    ) -> Arc<Forward> {
        // A retry carries the answers of earlier rounds in its request state (see `ask_client`).
        let mut answers: InputResponses = match ctx.request_state_as::<InputResponses>() {
            Some(Ok(earlier)) => earlier,
            _ => Map::new(),
        };
        answers.extend(ctx.input_responses().iter().map(|(k, v)| (k.clone(), v.clone())));
        Arc::new(Forward {
            ctx,
            token: Mutex::new(None),
            asked: AtomicUsize::new(0),
            answers,
            needs: Mutex::new(None),
            needs_input: Notify::new(),
            headers,
            capabilities,
            upstream_task: Mutex::new(None),
            abandons,
            progressed: AtomicU64::new(0),
            asking: AtomicUsize::new(0),
        })
    }
}

/// Why a forwarded request did not get a result.
pub(crate) enum Failure {
    /// The upstream answered with an error, or the link failed (as `-32603`).
    Rpc(ErrorObject),
    /// The upstream asked something the 2026-07-28 client answers by retrying.
    NeedsInput(InputRequired),
}

impl From<ErrorObject> for Failure {
    fn from(e: ErrorObject) -> Self {
        Failure::Rpc(e)
    }
}

type Pending = oneshot::Sender<Result<Value, ErrorObject>>;

/// One connection to the upstream server.
pub(crate) struct Link {
    wire: OnceLock<Box<dyn Wire>>,
    pub(crate) era: UpstreamEra,
    /// Whether 2026-07-28 requests may go upstream (always for `Modern`; for `Auto`, once
    /// the upstream answered `server/discover`).
    pub(crate) modern_ok: AtomicBool,
    next_id: AtomicI64,
    /// Set once the link is closed or the upstream went away: a request made later fails at
    /// once instead of waiting for an answer nobody will send.
    closed: AtomicBool,
    pending: Mutex<HashMap<i64, Pending>>,
    forwards: Mutex<Vec<(i64, Arc<Forward>)>>,
    events: Mutex<Option<Weak<dyn Events>>>,
    /// What the proxy declares upstream when no client's capabilities apply.
    pub(crate) capabilities: Value,
    client_info: Value,
    /// Whether the upstream logs (the proxy asks it for every message at each `initialize`).
    pub(crate) upstream_logs: AtomicBool,
    /// The upstream's requests being asked of clients, by their id's JSON text: the upstream
    /// may cancel them.
    asking: Mutex<HashMap<String, tokio::task::AbortHandle>>,
    /// How long a request may go without an answer or a sign of life (see
    /// [`super::UpstreamOptions::timeout`]).
    timeout: Duration,
    /// Held while a new upstream session is being made, so requests that all found the old
    /// one gone make one between them.
    renewing: tokio::sync::Mutex<()>,
}

/// The link's error for a failure of the wire or the upstream process.
pub(crate) fn upstream_error(detail: impl std::fmt::Display) -> ErrorObject {
    ErrorObject::internal(format!("upstream server: {detail}"))
}

impl Link {
    pub(crate) fn new(era: UpstreamEra, client_info: Value, timeout: Duration) -> Arc<Link> {
        Arc::new(Link {
            timeout,
            wire: OnceLock::new(),
            era,
            modern_ok: AtomicBool::new(era == UpstreamEra::Modern),
            next_id: AtomicI64::new(1),
            closed: AtomicBool::new(false),
            pending: Mutex::new(HashMap::new()),
            forwards: Mutex::new(Vec::new()),
            events: Mutex::new(None),
            capabilities: json!({"sampling": {}, "elicitation": {"form": {}, "url": {}}, "roots": {}}),
            client_info,
            upstream_logs: AtomicBool::new(false),
            renewing: tokio::sync::Mutex::new(()),
            asking: Mutex::new(HashMap::new()),
        })
    }

    /// `initialize` the upstream (handshake era): its answer. Over HTTP the session it
    /// makes goes on every later request and its GET stream opens; an upstream that logs is
    /// asked for every message (the local server filters by each client's level).
    pub(crate) async fn initialize(self: &Arc<Self>) -> Result<Value, ErrorObject> {
        let params =
            json!({"protocolVersion": "2025-11-25", "capabilities": self.capabilities, "clientInfo": self.client_info});
        let init = match self.request_once("initialize", Some(params), None, None, false).await {
            Ok(v) => v,
            Err(Failure::Rpc(e)) => return Err(e),
            Err(Failure::NeedsInput(_)) => return Err(upstream_error("initialize asked for input")),
        };
        let version = init.get("protocolVersion").and_then(Value::as_str).unwrap_or("2025-11-25").to_owned();
        self.notify("notifications/initialized", None).await?;
        super::http::initialized(self, &version);
        if init.pointer("/capabilities/logging").is_some() {
            self.upstream_logs.store(true, Ordering::Relaxed);
            let level = Some(json!({"level": "debug"}));
            let _ = self.request_once("logging/setLevel", level, None, None, false).await;
        }
        Ok(init)
    }

    /// The upstream forgot the proxy's HTTP session: make a new one (once, for all the
    /// requests that found it gone) and tell the mirror.
    async fn renew_session(self: &Arc<Self>) -> Result<(), ErrorObject> {
        let _renewing = self.renewing.lock().await;
        if !self.lost_http_session() {
            return Ok(()); // another request renewed it meanwhile
        }
        tracing::info!(target: crate::diagnostics::target::SESSION, "the upstream forgot the proxy's session: initializing again");
        self.initialize().await?;
        let events = lock(&self.events).as_ref().and_then(Weak::upgrade);
        if let Some(e) = events {
            e.new_session();
        }
        Ok(())
    }

    /// Whether the link is closed (or the upstream went away).
    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    pub(crate) fn set_wire(&self, wire: Box<dyn Wire>) {
        let _ = self.wire.set(wire);
    }

    pub(crate) fn wire(&self) -> Option<&dyn Wire> {
        self.wire.get().map(|w| &**w)
    }

    /// Fail one request waiting for an answer.
    pub(crate) fn fail_one(&self, id: i64, why: &str) {
        if let Some(p) = lock(&self.pending).remove(&id) {
            let _ = p.send(Err(upstream_error(why)));
        }
    }

    pub(crate) fn set_events(&self, events: Weak<dyn Events>) {
        *lock(&self.events) = Some(events);
    }

    pub(crate) fn close(&self) {
        if let Some(w) = self.wire.get() {
            w.close();
        }
        self.fail_all("the upstream connection closed");
    }

    /// Fail every request waiting for an answer, and every later one (the upstream went away).
    pub(crate) fn fail_all(&self, why: &str) {
        // Before the drain: a request registered after it sees the flag (request_in).
        self.closed.store(true, Ordering::SeqCst);
        let pending: Vec<Pending> = lock(&self.pending).drain().map(|(_, p)| p).collect();
        for p in pending {
            let _ = p.send(Err(upstream_error(why)));
        }
    }

    async fn send(self: &Arc<Self>, frame: Value, id: Option<i64>) -> Result<(), ErrorObject> {
        self.send_with(frame, id, &[]).await
    }

    async fn send_with(
        self: &Arc<Self>,
        frame: Value,
        id: Option<i64>,
        headers: &[(String, String)],
    ) -> Result<(), ErrorObject> {
        let wire = self.wire.get().ok_or_else(|| upstream_error("not connected"))?;
        wire.send(self, frame, id, headers).await.map_err(upstream_error)
    }

    /// Send a notification upstream.
    pub(crate) async fn notify(self: &Arc<Self>, method: &str, params: Option<Value>) -> Result<(), ErrorObject> {
        let mut frame = json!({"jsonrpc": "2.0", "method": method});
        if let Some(p) = params {
            frame["params"] = p;
        }
        self.send(frame, None).await
    }

    /// `params` with the 2026-07-28 envelope in `_meta` (the client's capabilities when a
    /// request is forwarded, the proxy's own otherwise).
    fn enveloped(&self, params: &mut Map<String, Value>, forward: Option<&Forward>) {
        let caps = match forward {
            Some(Forward { capabilities: Some(c), .. }) => c.clone(),
            Some(f) => serde_json::to_value(f.ctx.client_capabilities()).unwrap_or_else(|_| json!({})),
            None => self.capabilities.clone(),
        };
        let meta = params.entry("_meta").or_insert_with(|| json!({}));
        if let Value::Object(m) = meta {
            m.insert(PROTOCOL_VERSION_KEY.to_owned(), json!("2026-07-28"));
            m.insert(CLIENT_CAPABILITIES_KEY.to_owned(), caps);
            m.insert(CLIENT_INFO_KEY.to_owned(), self.client_info.clone());
            // Every message comes; the local server filters by each client's level.
            m.insert(LOG_LEVEL_KEY.to_owned(), json!("debug"));
        }
    }

    /// Whether a request (forwarded for `forward`'s client, if any) goes upstream in the
    /// 2026-07-28 era.
    pub(crate) fn goes_modern(&self, forward: Option<&Forward>) -> bool {
        match self.era {
            UpstreamEra::Modern => true,
            UpstreamEra::Handshake => false,
            UpstreamEra::Auto => forward.is_some_and(|f| self.goes_modern_for(&f.ctx)),
        }
    }

    /// Whether a request forwarded for `ctx`'s client goes upstream in the 2026-07-28 era.
    pub(crate) fn goes_modern_for(&self, ctx: &RequestContext) -> bool {
        match self.era {
            UpstreamEra::Modern => true,
            UpstreamEra::Handshake => false,
            UpstreamEra::Auto => ctx.is_modern() && self.modern_ok.load(Ordering::Relaxed),
        }
    }

    /// Send a request and wait for its answer. With `forward`, what the upstream sends for
    /// it reaches that request's client, and cancelling that request cancels this one.
    pub(crate) async fn request(
        self: &Arc<Self>,
        method: &str,
        params: Option<Value>,
        forward: Option<&Arc<Forward>>,
    ) -> Result<Value, Failure> {
        let modern = self.goes_modern(forward.map(|f| &**f));
        self.request_in(method, params, forward, modern).await
    }

    /// As [`Link::request`], in the era given.
    pub(crate) async fn request_in(
        self: &Arc<Self>,
        method: &str,
        params: Option<Value>,
        forward: Option<&Arc<Forward>>,
        modern: bool,
    ) -> Result<Value, Failure> {
        self.request_declaring(method, params, forward, forward.map(|f| &**f), modern).await
    }

    /// A request on `forward`'s client's behalf in its era, declaring what it declares, but
    /// tied to nothing: the upstream's messages for it and the client's cancellation do not
    /// concern it (a `tasks/cancel` the proxy sends once the client's request was cancelled).
    pub(crate) async fn request_beside(
        self: &Arc<Self>,
        method: &str,
        params: Option<Value>,
        forward: &Forward,
    ) -> Result<Value, Failure> {
        let modern = self.goes_modern(Some(forward));
        self.request_declaring(method, params, None, Some(forward), modern).await
    }

    /// The request: `forward` is the client request it runs for (its messages and
    /// cancellation), `declares` whose capabilities a 2026-07-28 request declares. A
    /// handshake-era request over HTTP whose session the upstream forgot is sent again once,
    /// on a new session (the Streamable HTTP transport's rule for a 404).
    async fn request_declaring(
        self: &Arc<Self>,
        method: &str,
        params: Option<Value>,
        forward: Option<&Arc<Forward>>,
        declares: Option<&Forward>,
        modern: bool,
    ) -> Result<Value, Failure> {
        // Only a handshake-era request over HTTP can be sent again: no copy of the params for
        // any other.
        if modern || !self.over_http() {
            return self.request_once(method, params, forward, declares, modern).await;
        }
        let first = self.request_once(method, params.clone(), forward, declares, modern).await;
        match first {
            Err(Failure::Rpc(e)) if !modern && e.message.ends_with(SESSION_GONE) => {
                self.renew_session().await?;
                self.request_once(method, params, forward, declares, modern).await
            }
            other => other,
        }
    }

    async fn request_once(
        self: &Arc<Self>,
        method: &str,
        params: Option<Value>,
        forward: Option<&Arc<Forward>>,
        declares: Option<&Forward>,
        modern: bool,
    ) -> Result<Value, Failure> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut params = match params {
            Some(Value::Object(m)) => m,
            None | Some(Value::Null) => Map::new(),
            Some(other) => {
                return Err(
                    ErrorObject::invalid_params(format!("{method}: params must be an object, not {other}")).into()
                )
            }
        };
        // A token whether or not the client asked for progress: the upstream's progress keeps the
        // request alive (see `within_timeout`), and reaches the client only if it asked.
        if let Some(f) = forward {
            let token = format!("ferrite-proxy-{id}");
            let meta = params.entry("_meta").or_insert_with(|| json!({}));
            if let Value::Object(m) = meta {
                m.insert("progressToken".to_owned(), json!(token));
            }
            *lock(&f.token) = Some(token);
        }
        if modern {
            self.enveloped(&mut params, declares);
        }
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, tx);
        let _cleanup = Cleanup { link: self, id, modern };
        if self.closed.load(Ordering::SeqCst) {
            return Err(upstream_error("the upstream connection closed").into());
        }
        if let Some(f) = forward {
            lock(&self.forwards).push((id, f.clone()));
        }
        let frame = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let headers = forward.map(|f| f.headers.as_slice()).unwrap_or_default();
        // Sending is part of the wait: an HTTP wire's POST answered with JSON returns only
        // with the answer, and the client may cancel before that.
        let answer = async {
            if let Err(e) = self.send_with(frame, Some(id), headers).await {
                // Never delivered: nothing to withdraw.
                lock(&self.pending).remove(&id);
                return Err(e);
            }
            rx.await.unwrap_or_else(|_| Err(upstream_error("the connection closed")))
        };
        let answer = self.within_timeout(method, id, modern, answer, forward.map(|f| &**f));
        match forward {
            None => Ok(answer.await?),
            Some(f) => tokio::select! {
                a = answer => Ok(a?),
                _ = f.ctx.cancelled(), if f.abandons => {
                    self.withdraw(id, "cancelled downstream", modern);
                    Err(ErrorObject::new(-32800, "Request cancelled").into())
                }
                _ = f.needs_input.notified() => {
                    self.withdraw(id, "input required downstream", modern);
                    let needs = lock(&f.needs).take().unwrap_or_default();
                    Err(Failure::NeedsInput(needs))
                }
            },
        }
    }

    /// `answer`, unless request `id` goes [`Link::timeout`] without it, a progress notification
    /// for it, or a question open with the client (checked each period, so a sign of life
    /// gives it at least another whole period): then it is cancelled upstream and fails with
    /// `-32001`. `tasks/result` and `subscriptions/listen` are not timed.
    async fn within_timeout(
        self: &Arc<Self>,
        method: &str,
        id: i64,
        modern: bool,
        answer: impl std::future::Future<Output = Result<Value, ErrorObject>>,
        forward: Option<&Forward>,
    ) -> Result<Value, ErrorObject> {
        if matches!(method, "tasks/result" | "subscriptions/listen") {
            // They wait, by design, for the upstream's task to end, or for good.
            return answer.await;
        }
        tokio::pin!(answer);
        loop {
            let progressed = forward.map(|f| f.progressed.load(Ordering::Relaxed));
            if let Ok(answer) = tokio::time::timeout(self.timeout, &mut answer).await {
                return answer;
            }
            if !lock(&self.pending).contains_key(&id) {
                return answer.await; // answered (or failed) just now: it is ready
            }
            let alive = forward.is_some_and(|f| {
                f.asking.load(Ordering::Relaxed) > 0 || Some(f.progressed.load(Ordering::Relaxed)) != progressed
            });
            if !alive {
                let ms = self.timeout.as_millis();
                self.withdraw(id, &format!("no answer within {ms} ms"), modern);
                return Err(ErrorObject::new(
                    crate::code::REQUEST_TIMEOUT,
                    format!("upstream server: no answer to {method} within {ms} ms"),
                ));
            }
        }
    }

    /// Stop waiting for request `id`; when it was still unanswered (and the upstream is still
    /// there), tell the upstream with `notifications/cancelled`, so it stops working on it.
    /// Sent from a task of its own: this runs in drops too.
    /// A 2026-07-28 request over HTTP (`modern`) is cancelled by closing its stream, which the
    /// wire does when the request's bookkeeping goes (see [`Wire::done`]): no notification.
    fn withdraw(self: &Arc<Self>, id: i64, reason: &str, modern: bool) {
        if lock(&self.pending).remove(&id).is_none() || self.closed.load(Ordering::SeqCst) {
            return;
        }
        if modern && self.over_http() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let frame = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": reason}});
        let link = self.clone();
        runtime.spawn(async move {
            let _ = link.send(frame, None).await;
        });
    }

    /// A message from the upstream; `related` is the request the wire read it for, if any.
    pub(crate) fn incoming(self: &Arc<Self>, msg: Value, related: Option<i64>) {
        let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
        let id = msg.get("id").cloned().filter(|v| !v.is_null());
        match (method, id) {
            (None, Some(id)) => {
                let Some(id) = id.as_i64() else { return };
                let Some(tx) = lock(&self.pending).remove(&id) else { return };
                let answer = match (msg.get("result"), msg.get("error")) {
                    (Some(r), _) => Ok(r.clone()),
                    (None, Some(e)) => Err(serde_json::from_value::<ErrorObject>(e.clone())
                        .unwrap_or_else(|_| upstream_error(format!("a malformed error: {e}")))),
                    (None, None) => Err(upstream_error("an answer with neither result nor error")),
                };
                let _ = tx.send(answer);
            }
            (Some(method), Some(id)) => {
                let link = self.clone();
                let params = msg.get("params").cloned();
                let key = id.to_string();
                // Held while the task is spawned and recorded, so a task that ends at once
                // takes its entry out only after it was put in.
                let mut asking = lock(&self.asking);
                let task = tokio::spawn(async move {
                    let _done = Asked { link: &link, key: id.to_string() };
                    let answer = link.server_request(&method, params, related).await;
                    let mut frame = json!({"jsonrpc": "2.0", "id": id});
                    match answer {
                        Ok(result) => frame["result"] = result,
                        Err(e) => {
                            frame["error"] =
                                serde_json::to_value(e).unwrap_or_else(|_| json!({"code": -32603, "message": "error"}))
                        }
                    }
                    let _ = link.send(frame, None).await;
                });
                asking.insert(key, task.abort_handle());
            }
            (Some(method), None) => self.notification(&method, msg.get("params").cloned(), related),
            (None, None) => {}
        }
    }

    /// The forwarded request a message belongs to: the one the wire read it for, else the
    /// only one in flight.
    fn forward_for(&self, related: Option<i64>) -> Option<Arc<Forward>> {
        let forwards = lock(&self.forwards);
        match related {
            Some(id) => forwards.iter().find(|(i, _)| *i == id).map(|(_, f)| f.clone()),
            None if forwards.len() == 1 => forwards.first().map(|(_, f)| f.clone()),
            None => None,
        }
    }

    fn notification(&self, method: &str, params: Option<Value>, related: Option<i64>) {
        match method {
            "notifications/progress" => {
                let p = params.unwrap_or_default();
                let token =
                    p.get("progressToken").map(|t| t.as_str().map(str::to_owned).unwrap_or_else(|| t.to_string()));
                let forward = {
                    let forwards = lock(&self.forwards);
                    forwards.iter().find(|(_, f)| lock(&f.token).as_deref() == token.as_deref()).map(|(_, f)| f.clone())
                };
                if let (Some(f), Some(progress)) = (forward, p.get("progress").and_then(Value::as_f64)) {
                    f.progressed.fetch_add(1, Ordering::Relaxed);
                    f.ctx.report_progress(
                        progress,
                        p.get("total").and_then(Value::as_f64),
                        p.get("message").and_then(Value::as_str),
                    );
                }
            }
            "notifications/message" => {
                if let Some(f) = self.forward_for(related) {
                    let p = params.unwrap_or_default();
                    let level = p.get("level").cloned().and_then(|l| serde_json::from_value::<LoggingLevel>(l).ok());
                    let logger = p.get("logger").and_then(Value::as_str);
                    f.ctx.log(
                        level.unwrap_or(LoggingLevel::Info),
                        p.get("data").cloned().unwrap_or(Value::Null),
                        logger,
                    );
                } else {
                    self.event(method, params);
                }
            }
            // The upstream gave up a request it made of a client: stop asking (the client is
            // told with its own `notifications/cancelled`) and send no answer.
            "notifications/cancelled" => {
                let id = params.as_ref().and_then(|p| p.get("requestId")).map(Value::to_string);
                if let Some(task) = id.and_then(|id| lock(&self.asking).remove(&id)) {
                    task.abort();
                }
            }
            _ => self.event(method, params),
        }
    }

    fn event(&self, method: &str, params: Option<Value>) {
        let events = lock(&self.events).as_ref().and_then(Weak::upgrade);
        if let Some(e) = events {
            e.notification(method, params);
        }
    }

    /// A request the upstream sent: answered by the client of the forwarded request it
    /// belongs to (a 2026-07-28 client by retrying: see [`Forward`]).
    async fn server_request(
        &self,
        method: &str,
        params: Option<Value>,
        related: Option<i64>,
    ) -> Result<Value, ErrorObject> {
        if method == "ping" {
            return Ok(json!({}));
        }
        // A request tied to an upstream task goes to the forward waiting on that task; others
        // to the forward the wire read them for.
        let task = params.as_ref().and_then(|p| p.pointer(&format!("/_meta/{}", RELATED_TASK_KEY.replace('/', "~1"))));
        let task = task.and_then(|t| t.get("taskId")).and_then(Value::as_str);
        let by_task = task.and_then(|t| {
            let forwards = lock(&self.forwards);
            forwards.iter().find(|(_, f)| lock(&f.upstream_task).as_deref() == Some(t)).map(|(_, f)| f.clone())
        });
        let Some(f) = by_task.or_else(|| self.forward_for(related)) else {
            return Err(ErrorObject::new(
                crate::code::METHOD_NOT_FOUND,
                format!("{method}: the proxy has no client request to ask this for"),
            ));
        };
        // The upstream's own task id means nothing to the client (a task of the proxy's, if
        // any, is tied on by the proxy's engine).
        let params = params.map(|mut p| {
            if let Some(Value::Object(meta)) = p.get_mut("_meta") {
                meta.remove(RELATED_TASK_KEY);
            }
            if method == "elicitation/create" {
                f.ctx.respell_elicitation(&mut p);
            }
            p
        });
        // The upstream was told the proxy can ask for all of these (it speaks for every
        // client); this client may not have said it can answer this one.
        let request = serde_json::from_value::<InputRequest>(
            json!({"method": method, "params": params.clone().unwrap_or_default()}),
        );
        if let Ok(request) = &request {
            let (required, path) = request.required_capability();
            if !f.ctx.client_supports(path) {
                return Err(crate::server::missing_capability(f.ctx.is_modern(), method, required));
            }
        }
        // A handshake-era client, or a task of the proxy's (whose input waits in the task), is
        // asked now; a 2026-07-28 client's plain request answers by retrying.
        if !f.ctx.is_modern() || f.ctx.is_task() {
            f.asking.fetch_add(1, Ordering::Relaxed);
            let _answered = Answered(&f);
            return f.ctx.send_request(method, params).await.map_err(|e| match e {
                PeerError::Rpc(e) => e,
                other => ErrorObject::internal(other.to_string()),
            });
        }
        let key = format!("upstream-{}", f.asked.fetch_add(1, Ordering::SeqCst));
        if let Some(answer) = f.answers.get(&key) {
            return Ok(answer.clone());
        }
        let request =
            request.map_err(|e| ErrorObject::internal(format!("{method}: cannot ask the client for this: {e}")))?;
        let state = serde_json::to_string(&f.answers).unwrap_or_default();
        *lock(&f.needs) = Some(InputRequired::new().ask(key, request).with_state(state));
        f.needs_input.notify_one();
        Err(ErrorObject::internal("the proxy's client answers this by retrying"))
    }
}

/// Counts a question of the upstream's off the forward's open ones when its wait ends, which
/// counts as a sign of life for the timeout (the upstream has its answer to work on).
struct Answered<'a>(&'a Forward);

impl Drop for Answered<'_> {
    fn drop(&mut self) {
        self.0.progressed.fetch_add(1, Ordering::Relaxed);
        self.0.asking.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Takes an upstream request out of [`Link::asking`] when its answering ends, however it ends.
struct Asked<'a> {
    link: &'a Link,
    key: String,
}

impl Drop for Asked<'_> {
    fn drop(&mut self) {
        lock(&self.link.asking).remove(&self.key);
    }
}

/// Takes a request's bookkeeping out when it ends, however it ends: a request dropped before
/// its answer (the handler forwarding it went away, a listen stream replaced) is withdrawn
/// upstream.
struct Cleanup<'a> {
    link: &'a Arc<Link>,
    id: i64,
    /// Whether the request went in the 2026-07-28 era.
    modern: bool,
}

impl Drop for Cleanup<'_> {
    fn drop(&mut self) {
        self.link.withdraw(self.id, "the proxy no longer needs the answer", self.modern);
        lock(&self.link.forwards).retain(|(i, _)| *i != self.id);
        if let Some(wire) = self.link.wire() {
            wire.done(self.id);
        }
    }
}
