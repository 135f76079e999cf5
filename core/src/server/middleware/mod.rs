//! Middleware: an ordered chain around every request the server dispatches, in either era,
//! after the transport, the classifier and the limits, before routing, and around every
//! notification a client sends, before the core acts on it.
//!
//! Each middleware gets the request (method, params, context) and [`Next`], the rest of the
//! chain ending in the core's routing. It may read or change the request, answer without
//! calling `next` (a result or a JSON-RPC error), or call it and read or change the answer.
//! Answers are the serialized results the core sends ([`RawJson`]), so a middleware that does
//! not look inside them costs no JSON work; [`Answer::value`] parses one when it must.
//! Registered from Rust with [`Server::add_middleware`]; a server without middleware pays one
//! relaxed atomic load per request.
//!
//! The bindings (C, Python, Node) register one core middleware per foreign one: the core calls
//! it once per request with the request and a [`NextOnce`], and the language's own typed hooks
//! (`on_call_tool`, `onListTools`, ...) are picked inside that one call from [`MiddlewareRequest::hook`],
//! so a request pays one language crossing per middleware, not one per hook.

mod builtin;

pub use builtin::{BUILTINS, REQUEST_TARGET};

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use futures::FutureExt;
use serde_json::Value;

use super::handler::BoxFuture;
use super::{read, write, ConnectionState, RequestContext, RequestInfo, Server};
use crate::protocol::{ErrorObject, Notification, RawJson};

/// What a request's chain answers: the serialized result, or the JSON-RPC error.
pub type Answer = Result<RawJson, ErrorObject>;

/// One request as the chain sees it.
#[derive(Debug, Clone)]
pub struct MiddlewareRequest {
    /// The JSON-RPC method (`tools/call`, ...). A middleware that changes it routes the
    /// request elsewhere (the core checks the new method as it would any), but what was
    /// decided from the method before the chain stays: the HTTP response mode, a
    /// `requestState`'s binding, the telemetry span's name.
    pub method: String,
    /// Its params, as the client sent them (the 2026-07-28 envelope already read).
    pub params: Option<Value>,
    /// The request's context (identity, request info, the peer, cancellation).
    pub ctx: RequestContext,
}

impl MiddlewareRequest {
    /// `params.name` (the tool or prompt a `tools/call` or `prompts/get` names), if any.
    pub fn name(&self) -> Option<&str> {
        self.params.as_ref()?.get("name")?.as_str()
    }

    /// The typed hook of this request's method family (`call_tool` for `tools/call`, ...), the
    /// one table every binding names its hooks from; `None` for other methods.
    pub fn hook(&self) -> Option<&'static str> {
        hook_of(&self.method)
    }
}

/// The typed hook of a method: `tools/call` is `call_tool`, `tools/list` is `list_tools`, and
/// so on for resources, templates, prompts and completions.
pub fn hook_of(method: &str) -> Option<&'static str> {
    Some(match method {
        "tools/call" => "call_tool",
        "tools/list" => "list_tools",
        "resources/read" => "read_resource",
        "resources/list" => "list_resources",
        "resources/templates/list" => "list_resource_templates",
        "prompts/get" => "get_prompt",
        "prompts/list" => "list_prompts",
        "completion/complete" => "complete",
        _ => return None,
    })
}

/// What a foreign middleware (a C callback, a Python or JS function) answered, as the chain's
/// answer: its result serialized, or its failure as the JSON-RPC error (`-32603` with its
/// message for a plain failure: a middleware that throws is a server fault, not a tool's).
pub fn answer_from(outcome: Result<Value, super::HandlerError>) -> Answer {
    match outcome {
        Ok(value) => answer_with(&value),
        Err(e) => Err(e.into_rpc()),
    }
}

/// The rest of the chain for a foreign middleware, which may call it from any thread at any
/// time, at most once: later calls get `None`.
pub struct NextOnce {
    next: std::sync::Mutex<Option<(Next, MiddlewareRequest)>>,
    /// Set by [`NextOnce::close`]: the middleware answered, and a later call is refused.
    closed: std::sync::atomic::AtomicBool,
}

impl NextOnce {
    /// Hold `next` and the request it was given with.
    pub fn new(next: Next, request: MiddlewareRequest) -> Self {
        NextOnce { next: std::sync::Mutex::new(Some((next, request))), closed: Default::default() }
    }

    /// The middleware answered: a `next` it kept is refused from now on (and what it held,
    /// the server and the request's context, is let go).
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        crate::sync::lock(&self.next).take();
    }

    /// The error a call that [`NextOnce::run`] refused answers: a second call, or one after
    /// the middleware answered.
    pub fn refusal(&self) -> ErrorObject {
        if self.closed.load(Ordering::Acquire) {
            ErrorObject::internal("a middleware called next after it answered")
        } else {
            Self::already_called()
        }
    }

    /// Run the rest of the chain on the request, with `params` in place of its params when
    /// given (a foreign middleware changes what is asked, not which route answers).
    /// `None` when it already ran.
    pub fn run(&self, params: Option<Option<Value>>) -> Option<BoxFuture<'static, Answer>> {
        let (next, mut request) = crate::sync::lock(&self.next).take()?;
        if let Some(params) = params {
            request.params = params;
        }
        Some(next.run(request))
    }

    /// The error a second call answers.
    pub fn already_called() -> ErrorObject {
        ErrorObject::internal("a middleware called next twice")
    }
}

/// A result for a middleware to answer with, serialized once.
pub fn answer_with(value: &impl serde::Serialize) -> Answer {
    RawJson::serialize(value).map_err(|e| ErrorObject::internal(format!("unserializable middleware result: {e}")))
}

/// An answer's result parsed as JSON (`None` for an error).
pub fn answer_value(answer: &Answer) -> Option<Value> {
    answer.as_ref().ok().and_then(|raw| serde_json::from_str(raw.get()).ok())
}

/// One notification from a client as the chain sees it (`notifications/initialized`,
/// `notifications/cancelled`, `notifications/roots/list_changed`, ...). A notification has no
/// request context (no id, nothing to answer): what the transport knew arrives instead.
#[derive(Debug, Clone)]
pub struct MiddlewareNotification {
    /// The method.
    pub method: String,
    /// Its params, as the client sent them.
    pub params: Option<Value>,
    /// The connection it came on (its id is the session id on a stateful HTTP server).
    pub connection: Arc<ConnectionState>,
    /// What the transport knows of it (HTTP head, the caller's verified identity).
    pub info: RequestInfo,
}

/// The rest of the chain for a notification, ending in the core's handling of it: call it at
/// most once, or not at all to drop the notification.
pub struct NextNotification {
    server: Server,
    chain: Arc<[Arc<dyn Middleware>]>,
    at: usize,
}

impl NextNotification {
    /// Run the rest of the chain, then the core's handling, on `notification`.
    pub fn run(self, notification: MiddlewareNotification) -> BoxFuture<'static, ()> {
        match self.chain.get(self.at).cloned() {
            Some(m) => {
                let next = NextNotification { server: self.server, chain: self.chain, at: self.at + 1 };
                m.notify(notification, next)
            }
            None => {
                let MiddlewareNotification { method, params, connection, .. } = notification;
                self.server.handle_notification(Notification { method, params }, &connection);
                Box::pin(std::future::ready(()))
            }
        }
    }
}

/// [`NextNotification`] for a foreign middleware, which may call it from any thread, at most
/// once: later calls do nothing.
pub struct NextNotificationOnce {
    next: std::sync::Mutex<Option<(NextNotification, MiddlewareNotification)>>,
}

impl NextNotificationOnce {
    /// Hold `next` and the notification it was given with.
    pub fn new(next: NextNotification, notification: MiddlewareNotification) -> Self {
        NextNotificationOnce { next: std::sync::Mutex::new(Some((next, notification))) }
    }

    /// Run the rest of the chain, with `params` in place of the notification's when given;
    /// `None` when it already ran.
    pub fn run(&self, params: Option<Option<Value>>) -> Option<BoxFuture<'static, ()>> {
        let (next, mut notification) = crate::sync::lock(&self.next).take()?;
        if let Some(params) = params {
            notification.params = params;
        }
        Some(next.run(notification))
    }
}

/// Report a foreign middleware that failed on a notification (it has no answer to carry the
/// failure): an error event under `ferrite::handler`, as for a handler's panic.
pub fn notification_failed(method: &str, error: &dyn std::fmt::Display) {
    tracing::error!(
        target: crate::diagnostics::target::HANDLER,
        method = %method,
        "a middleware failed on a notification: {error}"
    );
}

/// The typed hook every binding names its notification hook after (FastMCP's
/// `on_notification`): what a foreign middleware is told instead of a request's hook.
pub const NOTIFICATION_HOOK: &str = "notification";

/// The rest of the chain: call it at most once.
pub struct Next {
    server: Server,
    chain: Arc<[Arc<dyn Middleware>]>,
    at: usize,
}

impl Next {
    /// Run the rest of the chain, then the core's routing, on `request`. A panic in a
    /// middleware or a handler (other than a tool's, which is its `isError` result) is caught
    /// around the whole chain, answered `-32603` and reported; the middlewares do not see it.
    /// (Catching it at every layer, or around the routing, cost 185 to 900 instructions of a
    /// 19,000-instruction stdio call with one middleware.)
    pub fn run(self, request: MiddlewareRequest) -> BoxFuture<'static, Answer> {
        match self.chain.get(self.at).cloned() {
            Some(m) => {
                let next = Next { server: self.server, chain: self.chain, at: self.at + 1 };
                m.call(request, next)
            }
            None => {
                let server = self.server;
                Box::pin(async move { server.route(&request.method, request.params, request.ctx).await })
            }
        }
    }
}

/// A middleware: `call(request, next)` answers the request, usually through `next`;
/// `notify(notification, next)` passes a client's notification on (the default), changes it,
/// or drops it by not calling `next`.
pub trait Middleware: Send + Sync + 'static {
    /// Answer `request`.
    fn call(&self, request: MiddlewareRequest, next: Next) -> BoxFuture<'static, Answer>;

    /// Pass `notification` on through `next` (what this default does), after reading or
    /// changing it, or drop it.
    fn notify(&self, notification: MiddlewareNotification, next: NextNotification) -> BoxFuture<'static, ()> {
        next.run(notification)
    }
}

impl<F, Fut> Middleware for F
where
    F: Fn(MiddlewareRequest, Next) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Answer> + Send + 'static,
{
    fn call(&self, request: MiddlewareRequest, next: Next) -> BoxFuture<'static, Answer> {
        Box::pin(self(request, next))
    }
}

/// A shared middleware as a middleware.
struct Shared(Arc<dyn Middleware>);

impl Middleware for Shared {
    fn call(&self, request: MiddlewareRequest, next: Next) -> BoxFuture<'static, Answer> {
        self.0.call(request, next)
    }

    fn notify(&self, notification: MiddlewareNotification, next: NextNotification) -> BoxFuture<'static, ()> {
        self.0.notify(notification, next)
    }
}

/// What a session ran over, for its telemetry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SessionTransport {
    /// A stdio connection.
    Stdio,
    /// A Streamable HTTP (or 2024-11-05 HTTP+SSE) session.
    Http,
}

impl Server {
    /// Add `middleware` at the end of the chain (the first added runs first, outermost).
    pub fn add_middleware(&self, middleware: impl Middleware) {
        let mut chain = write(&self.inner.middleware);
        let mut all: Vec<Arc<dyn Middleware>> = chain.iter().cloned().collect();
        all.push(Arc::new(middleware));
        *chain = all.into();
        self.inner.flags.has_middleware.store(true, Ordering::Release);
    }

    /// Add built-in middleware `name` (one of [`BUILTINS`]: `timing`, `logging`,
    /// `rate_limit`, `cache`, `error_masking`) configured by `config` (`null` for its
    /// defaults) at the end of the chain. See the `builtin` module for each one's keys.
    pub fn add_builtin_middleware(&self, name: &str, config: Value) -> Result<(), crate::server::ConfigError> {
        let middleware = builtin::make(name, config)?;
        self.add_middleware(Shared(middleware));
        Ok(())
    }

    /// Watch requests and notifications with the telemetry `make` builds (outermost, around
    /// the chain), once per server: later calls change nothing.
    pub(crate) fn set_telemetry_once(
        &self,
        make: impl FnOnce(super::WeakServer) -> crate::telemetry::RequestTelemetry,
    ) {
        self.inner.telemetry.get_or_init(|| make(self.downgrade()));
    }

    /// Answer a routed request, through the middleware chain when there is one.
    pub(crate) async fn route_through_chain(&self, method: &str, params: Option<Value>, ctx: RequestContext) -> Answer {
        let Some(telemetry) = self.inner.telemetry.get() else {
            return self.route_in_chain(method, params, ctx).await;
        };
        let watch = telemetry.start(method, params.as_ref(), &ctx);
        let answer = self.route_in_chain(method, params, ctx).await;
        telemetry.end(watch, &answer);
        answer
    }

    async fn route_in_chain(&self, method: &str, params: Option<Value>, ctx: RequestContext) -> Answer {
        if !self.inner.flags.has_middleware.load(Ordering::Acquire) {
            return self.route(method, params, ctx).await;
        }
        let chain = read(&self.inner.middleware).clone();
        let next = Next { server: self.clone(), chain, at: 0 };
        let modern = ctx.is_modern();
        let answer = next.run(MiddlewareRequest { method: method.to_owned(), params, ctx }).await;
        match answer {
            // A 2026-07-28 result a middleware made itself (the core's start with it) gets
            // what every result of the revision has: `resultType`, and the server info.
            Ok(raw) if modern && !raw.get().starts_with("{\"resultType\"") => {
                let value: Value = serde_json::from_str(raw.get())
                    .map_err(|e| ErrorObject::internal(format!("a middleware's result is not JSON: {e}")))?;
                self.decorate_value(value)
            }
            other => other,
        }
    }

    /// Act on a client's notification, through the middleware chain when there is one. A
    /// middleware that panics is reported and the notification goes no further.
    pub(crate) async fn notify_through_chain(&self, n: Notification, conn: &Arc<ConnectionState>, info: &RequestInfo) {
        let Some(telemetry) = self.inner.telemetry.get() else {
            return self.notify_in_chain(n, conn, info).await;
        };
        let watch = telemetry.notification(&n.method, n.params.as_ref(), conn, info);
        let method = n.method.clone();
        self.notify_in_chain(n, conn, info).await;
        telemetry.notified(&method, watch);
    }

    /// A session ended after `lasted`: a stdio connection whose input closed, or an HTTP session
    /// its client deleted or that expired (`error`: what ended it, when it failed). Telemetry,
    /// when on, records it in `mcp.server.session.duration`.
    pub(crate) fn session_ended(
        &self,
        conn: &ConnectionState,
        lasted: std::time::Duration,
        transport: SessionTransport,
        error: Option<&str>,
    ) {
        if let Some(telemetry) = self.inner.telemetry.get() {
            telemetry.session_ended(conn, lasted, transport, error);
        }
    }

    async fn notify_in_chain(&self, n: Notification, conn: &Arc<ConnectionState>, info: &RequestInfo) {
        if !self.inner.flags.has_middleware.load(Ordering::Acquire) {
            return self.handle_notification(n, conn);
        }
        let chain = read(&self.inner.middleware).clone();
        let next = NextNotification { server: self.clone(), chain, at: 0 };
        let notification =
            MiddlewareNotification { method: n.method, params: n.params, connection: conn.clone(), info: info.clone() };
        let method = notification.method.clone();
        // In an async block: a middleware may panic before it returns its future.
        if let Err(p) = AssertUnwindSafe(async move { next.run(notification).await }).catch_unwind().await {
            tracing::error!(
                target: crate::diagnostics::target::HANDLER,
                method = %method,
                "a middleware panicked on a notification: {}",
                super::dispatch::panic_message(&*p)
            );
        }
    }
}
