//! JavaScript callbacks as implementations of the core's handler traits.
//!
//! Every kind of handler has the same JS shape, `(slot, payloadJson) => string | Promise<string>`
//! (the JS layer adapts the user's function to it), so one struct, [`JsCallback`], serves
//! tools, resources, prompts, completions and custom methods: each trait impl only builds the payload and
//! names the result type. The callback is a weak `ThreadsafeFunction` called with
//! `call_async_catch` from a tokio task, so the handler runs on the JS thread, its promise is
//! awaited without blocking the event loop, and a throw that escapes the JS layer is an
//! error result rather than a crash. A handler running as a task's body is awaited in a tokio
//! task of its own, because the task engine may drop the body (cancelled, expired) while the
//! JS handler cannot be stopped: it still hears the cancellation and keeps its context.

use std::sync::Arc;

use ferrite_core::server::middleware::NextOnce;
use ferrite_core::server::{
    CompletionHandler, HandlerResult, MethodHandler, PromptHandler, ResourceHandler, TemplateVariables, ToolHandler,
};
use ferrite_core::{
    BoxFuture, CallToolResult, CompleteRequest, CompleteResult, GetPromptResult, HandlerError, ReadResourceResult,
    Reply, RequestContext,
};
use napi::bindgen_prelude::{Either, FnArgs, FunctionRef, Promise};
use napi::threadsafe_function::ThreadsafeFunction;
use napi::Status;
use serde_json::{json, Map, Value};

use crate::calls::Calls;
use crate::envelope;

/// What a JS handler returns: the envelope text, a promise of it, or nothing when the JS layer
/// hands the envelope over later through `settleCall(slot, envelope)` (what it does for an
/// async handler: cheaper than awaiting a JS promise from Rust).
pub(crate) type JsReturn = Option<Either<String, Promise<String>>>;

/// The arguments of a JS handler: its request's slot and the payload JSON.
pub(crate) type JsArgs = FnArgs<(i64, String)>;

/// The weak thread-safe function a JS handler is wrapped in.
pub(crate) type JsFunction = ThreadsafeFunction<JsArgs, JsReturn, JsArgs, Status, false, true>;

/// A reference to a JS handler, to call it directly when on the JS thread.
pub(crate) type JsFunctionRef = FunctionRef<JsArgs, JsReturn>;

/// A JS handler called: what it returned, or the call queued to the JS thread.
enum Called<Q> {
    Now(napi::Result<JsReturn>),
    Queued(Q),
}

/// A JS handler of any kind, bound to the running-request table of its server.
#[derive(Clone)]
pub(crate) struct JsCallback {
    function: Arc<JsFunction>,
    /// The same function, called directly while the stdio loop is polled on the JS thread
    /// (`stdio_loop.rs`), where queueing the call to that very thread would cost a turn of its
    /// event loop and the answer a hand-off back.
    direct: Arc<JsFunctionRef>,
    calls: Arc<Calls>,
    /// "tool", "resource", ...: names the handler in error messages.
    what: &'static str,
}

impl JsCallback {
    pub(crate) fn new(function: JsFunction, direct: JsFunctionRef, calls: Arc<Calls>, what: &'static str) -> Self {
        JsCallback { function: Arc::new(function), direct: Arc::new(direct), calls, what }
    }

    /// Run the JS handler for one request and decode its answer with `decode`.
    fn invoke<T: Send + 'static>(
        &self,
        payload: String,
        ctx: RequestContext,
        decode: fn(&str, &str) -> HandlerResult<T>,
    ) -> BoxFuture<'static, HandlerResult<T>> {
        self.invoke_with(payload, ctx, None, decode)
    }

    /// [`JsCallback::invoke`] for a middleware: `next`, the rest of the chain, stays
    /// reachable from JS by the call's slot.
    pub(crate) fn invoke_with<T: Send + 'static>(
        &self,
        payload: String,
        ctx: RequestContext,
        next: Option<Arc<NextOnce>>,
        decode: fn(&str, &str) -> HandlerResult<T>,
    ) -> BoxFuture<'static, HandlerResult<T>> {
        let this = self.clone();
        Box::pin(async move {
            let what = this.what;
            let text = if ctx.is_task() {
                // The task engine drops a task's body when the task is cancelled or outlives
                // its ttl, but a JS handler cannot be dropped: it runs on. So it is awaited
                // in a task of its own, which still tells JS (its AbortSignal) about the
                // cancellation and keeps its context valid until it settles.
                tokio::spawn(this.settle(payload, ctx, next))
                    .await
                    .map_err(|e| HandlerError::failed(format!("the {what} handler did not finish: {e}")))??
            } else {
                this.settle(payload, ctx, next).await?
            };
            decode(&text, what)
        })
    }

    /// Call the JS handler and wait until it (and any promise it returned) settles.
    async fn settle(self, payload: String, ctx: RequestContext, next: Option<Arc<NextOnce>>) -> HandlerResult<String> {
        let (slot, later) = self.calls.enter(ctx.clone(), next);
        // On the JS thread (the stdio loop polled there) the handler is called now, directly;
        // elsewhere it is queued to that thread.
        let args: JsArgs = (slot.id, payload).into();
        let called = match crate::stdio_loop::js_env() {
            Some(env) => Called::Now(self.direct.borrow_back(&env).and_then(|f| f.call(args))),
            None => Called::Queued(self.function.call_async_catch(args)),
        };
        // The whole handler, including the promise it may return: cancellation can come
        // at any point until it settles.
        let settled = async {
            let returned = match called {
                Called::Now(returned) => returned,
                Called::Queued(queued) => queued.await,
            };
            match returned {
                Ok(Some(Either::A(text))) => Ok(text),
                Ok(Some(Either::B(promise))) => promise.await.map_err(|e| self.failure(e)),
                Ok(None) => later
                    .await
                    .map_err(|_| HandlerError::failed(format!("the {} handler ended without settling", self.what))),
                Err(e) => Err(self.failure(e)),
            }
        };
        tokio::pin!(settled);
        let text = tokio::select! {
            biased;
            r = &mut settled => r,
            _ = ctx.cancelled() => {
                // Tell JS (its AbortSignal), then let the handler finish: its context
                // stays valid until it settles; the core drops the late response.
                self.calls.cancelled(slot.id);
                settled.await
            }
        };
        drop(slot);
        text
    }

    fn failure(&self, e: napi::Error) -> HandlerError {
        HandlerError::failed(format!("the {} handler failed: {}", self.what, e.reason))
    }
}

impl ToolHandler for JsCallback {
    fn call(&self, arguments: Value, ctx: RequestContext) -> BoxFuture<'static, HandlerResult<Reply<CallToolResult>>> {
        self.invoke(arguments.to_string(), ctx, envelope::decode_reply)
    }
}

impl ResourceHandler for JsCallback {
    fn read(
        &self,
        uri: String,
        variables: TemplateVariables,
        ctx: RequestContext,
    ) -> BoxFuture<'static, HandlerResult<Reply<ReadResourceResult>>> {
        self.invoke(json!({ "uri": uri, "variables": variables }).to_string(), ctx, envelope::decode_reply)
    }
}

impl PromptHandler for JsCallback {
    fn get(
        &self,
        arguments: Map<String, Value>,
        ctx: RequestContext,
    ) -> BoxFuture<'static, HandlerResult<Reply<GetPromptResult>>> {
        self.invoke(Value::Object(arguments).to_string(), ctx, envelope::decode_reply)
    }
}

impl CompletionHandler for JsCallback {
    fn complete(
        &self,
        request: CompleteRequest,
        ctx: RequestContext,
    ) -> BoxFuture<'static, HandlerResult<CompleteResult>> {
        // The core's wire shape of the request (`ref`, `argument`, `context` when there are
        // resolved arguments).
        let payload = serde_json::to_string(&request).unwrap_or_default();
        self.invoke(payload, ctx, envelope::decode_completion)
    }
}

impl MethodHandler for JsCallback {
    fn call(&self, params: Map<String, Value>, ctx: RequestContext) -> BoxFuture<'static, HandlerResult<Value>> {
        self.invoke(Value::Object(params).to_string(), ctx, envelope::decode)
    }
}
