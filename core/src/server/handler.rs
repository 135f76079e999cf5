//! The handler traits a server calls, and the error a handler returns.
//!
//! Each kind of handler is a trait with a blanket implementation for async closures, so Rust
//! users register closures while the language bindings implement the trait on a struct that
//! wraps a host callback (a C function pointer, a Python callable, a JS function): the core
//! never knows which language it serves.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;

use serde_json::{Map, Value};

use super::context::RequestContext;
use crate::protocol::model::{
    CallToolResult, CompleteRequest, CompleteResult, GetPromptResult, IntoReply, ReadResourceResult, Reply,
};
use crate::protocol::ErrorObject;

/// A boxed, sendable future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Why a handler failed.
///
/// A tool's `Failed` becomes a result with `isError: true` (a tool execution error the model
/// can read); for other handlers it becomes `-32603`. `Rpc` is a protocol error, sent as the
/// JSON-RPC error it carries, for any handler.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum HandlerError {
    /// The handler failed; the message says why.
    #[error("{0}")]
    Failed(String),
    /// A protocol error to send as is.
    #[error(transparent)]
    Rpc(#[from] ErrorObject),
}

impl HandlerError {
    /// A failure with a message.
    pub fn failed(message: impl Into<String>) -> Self {
        HandlerError::Failed(message.into())
    }

    /// A handler that panicked (a Python exception, a JS throw and a Go panic come here
    /// too): a failure whose message is the panic's own, with nothing added, so a tool's
    /// `isError` text is what the handler said on every surface.
    pub fn panicked(payload: &(dyn std::any::Any + Send)) -> Self {
        let message = super::dispatch::panic_message(payload);
        tracing::error!(target: crate::diagnostics::target::HANDLER, "a handler panicked: {message}");
        HandlerError::Failed(message)
    }

    /// A handler that returned something that is not a valid result of its kind (a
    /// `structuredContent` that is not an object, a value the language cannot encode as
    /// JSON, a C completion that does not parse): a server bug rather than a tool execution
    /// error, so `-32603` with the message `the handler's result is not valid: {detail}`
    /// for every kind of handler and from every surface.
    pub fn invalid_result(detail: impl std::fmt::Display) -> Self {
        let message = format!("the handler's result is not valid: {detail}");
        tracing::error!(target: crate::diagnostics::target::HANDLER, "{message}");
        HandlerError::Rpc(ErrorObject::internal(message))
    }
}

impl From<String> for HandlerError {
    fn from(s: String) -> Self {
        HandlerError::Failed(s)
    }
}

impl From<&str> for HandlerError {
    fn from(s: &str) -> Self {
        HandlerError::Failed(s.to_owned())
    }
}

impl From<super::context::PeerError> for HandlerError {
    fn from(e: super::context::PeerError) -> Self {
        match e {
            super::context::PeerError::Rpc(obj) => {
                HandlerError::Failed(format!("client returned an error: {}", obj.message))
            }
            other => HandlerError::Failed(other.to_string()),
        }
    }
}

impl HandlerError {
    /// The JSON-RPC error this failure is for handlers other than tools (`-32603` for a
    /// plain failure).
    pub fn into_rpc(self) -> ErrorObject {
        match self {
            HandlerError::Failed(m) => {
                // As a tool's failure is (at debug: the text is the handler's own).
                tracing::debug!(target: crate::diagnostics::target::HANDLER, "a handler failed: {m}");
                ErrorObject::internal(m)
            }
            HandlerError::Rpc(e) => e,
        }
    }
}

/// Why a tool result whose `structuredContent` is not an object is invalid.
pub(crate) const NOT_AN_OBJECT: &str = "structuredContent must be a JSON object";

/// The result type of handlers.
pub type HandlerResult<T> = Result<T, HandlerError>;

/// Handles `tools/call` for one tool. `arguments` is always a JSON object.
///
/// A handler replies with the result, or with `InputRequired` when it needs the client to
/// answer something first (MRTR): on a 2026-07-28 request the client retries with the
/// answers; on a handshake-era connection the core asks the client itself and calls the
/// handler again. Either way the handler reads the answers from
/// [`RequestContext::input_responses`].
pub trait ToolHandler: Send + Sync + 'static {
    /// Run the tool.
    fn call(&self, arguments: Value, ctx: RequestContext) -> BoxFuture<'static, HandlerResult<Reply<CallToolResult>>>;
}

impl<F, Fut, R> ToolHandler for F
where
    F: Fn(Value, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = HandlerResult<R>> + Send + 'static,
    R: IntoReply<CallToolResult> + 'static,
{
    fn call(&self, arguments: Value, ctx: RequestContext) -> BoxFuture<'static, HandlerResult<Reply<CallToolResult>>> {
        let fut = self(arguments, ctx);
        Box::pin(async move { fut.await.map(IntoReply::into_reply) })
    }
}

/// Variables captured from a resource template (empty for a direct resource).
pub type TemplateVariables = BTreeMap<String, String>;

/// Reads a resource (direct, or a template match with its captured variables). May reply
/// `InputRequired`, as a [`ToolHandler`] may.
pub trait ResourceHandler: Send + Sync + 'static {
    /// Read `uri`.
    fn read(
        &self,
        uri: String,
        variables: TemplateVariables,
        ctx: RequestContext,
    ) -> BoxFuture<'static, HandlerResult<Reply<ReadResourceResult>>>;
}

impl<F, Fut, R> ResourceHandler for F
where
    F: Fn(String, TemplateVariables, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = HandlerResult<R>> + Send + 'static,
    R: IntoReply<ReadResourceResult> + 'static,
{
    fn read(
        &self,
        uri: String,
        variables: TemplateVariables,
        ctx: RequestContext,
    ) -> BoxFuture<'static, HandlerResult<Reply<ReadResourceResult>>> {
        let fut = self(uri, variables, ctx);
        Box::pin(async move { fut.await.map(IntoReply::into_reply) })
    }
}

/// Produces a prompt's messages. `arguments` maps argument names to string values. May
/// reply `InputRequired`, as a [`ToolHandler`] may.
pub trait PromptHandler: Send + Sync + 'static {
    /// Get the prompt.
    fn get(
        &self,
        arguments: Map<String, Value>,
        ctx: RequestContext,
    ) -> BoxFuture<'static, HandlerResult<Reply<GetPromptResult>>>;
}

impl<F, Fut, R> PromptHandler for F
where
    F: Fn(Map<String, Value>, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = HandlerResult<R>> + Send + 'static,
    R: IntoReply<GetPromptResult> + 'static,
{
    fn get(
        &self,
        arguments: Map<String, Value>,
        ctx: RequestContext,
    ) -> BoxFuture<'static, HandlerResult<Reply<GetPromptResult>>> {
        let fut = self(arguments, ctx);
        Box::pin(async move { fut.await.map(IntoReply::into_reply) })
    }
}

/// Handles a request method the core does not know (an extension's methods, custom
/// methods). `params` is the request's params object without `_meta`; the result must be a
/// JSON object. On 2026-07-28 requests the core adds `resultType` (unless the handler set
/// one) and the server info; cache hints are the handler's to add.
pub trait MethodHandler: Send + Sync + 'static {
    /// Handle the request.
    fn call(&self, params: Map<String, Value>, ctx: RequestContext) -> BoxFuture<'static, HandlerResult<Value>>;
}

impl<F, Fut> MethodHandler for F
where
    F: Fn(Map<String, Value>, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = HandlerResult<Value>> + Send + 'static,
{
    fn call(&self, params: Map<String, Value>, ctx: RequestContext) -> BoxFuture<'static, HandlerResult<Value>> {
        Box::pin(self(params, ctx))
    }
}

/// Answers `completion/complete` (globally, or for one reference and argument).
pub trait CompletionHandler: Send + Sync + 'static {
    /// Complete.
    fn complete(
        &self,
        request: CompleteRequest,
        ctx: RequestContext,
    ) -> BoxFuture<'static, HandlerResult<CompleteResult>>;
}

impl<F, Fut> CompletionHandler for F
where
    F: Fn(CompleteRequest, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = HandlerResult<CompleteResult>> + Send + 'static,
{
    fn complete(
        &self,
        request: CompleteRequest,
        ctx: RequestContext,
    ) -> BoxFuture<'static, HandlerResult<CompleteResult>> {
        Box::pin(self(request, ctx))
    }
}

/// Observes notifications from the client (`method`, `params`).
pub trait NotificationObserver: Send + Sync + 'static {
    /// Called for each client notification, after the server processed it.
    fn notify(&self, method: &str, params: Option<&Value>);
}

impl<F> NotificationObserver for F
where
    F: Fn(&str, Option<&Value>) + Send + Sync + 'static,
{
    fn notify(&self, method: &str, params: Option<&Value>) {
        self(method, params)
    }
}
