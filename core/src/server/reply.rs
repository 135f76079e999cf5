//! The multi round-trip loop: what happens when a handler replies `InputRequired`.
//!
//! - On a 2026-07-28 request the reply goes to the client as an `input_required` result,
//!   its request state sealed; the client retries the request with the answers.
//! - On a handshake-era connection the core asks the client itself (real
//!   `elicitation/create`, `sampling/createMessage`, `roots/list` requests, one after the
//!   other) and calls the handler again with the answers, so a handler written in the
//!   input-required style serves both eras.
//!
//! Either way an input request the client did not declare the capability for is refused
//! before anything is sent (`-32021` on 2026-07-28, `-32602` before).

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt as _;
use serde_json::{Map, Value};

use super::context::{ContextInner, MrtrInput};
use super::dispatch::{missing_capability, panic_message};
use super::handler::{BoxFuture, HandlerError, HandlerResult};
use super::{RequestContext, Server};
use crate::protocol::model::{InputRequest, InputRequired, Reply, ResultType};
use crate::protocol::{ErrorObject, RawJson};
use crate::request_state::Binding;

/// How many times one request may ask for input on a handshake-era connection before the
/// core gives up (a handler that never completes).
pub const MAX_INPUT_ROUNDS: usize = 16;

/// A handler's final word.
pub(crate) enum Finished<T> {
    /// The result.
    Complete(T),
    /// The `input_required` result to send (2026-07-28).
    InputRequired(RawJson),
}

/// Merge `b` into `a` (objects merge key by key; anything else is replaced).
fn merge(a: &mut Value, b: Value) {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                merge(a.entry(k).or_insert(Value::Object(Map::new())), v);
            }
        }
        (a, b) => *a = b,
    }
}

impl Server {
    /// Run a handler until it completes, asking for input as it requests.
    pub(crate) async fn reply_loop<T, F>(
        &self,
        ctx: &RequestContext,
        method: &str,
        target: &str,
        what: &str,
        call: F,
    ) -> Result<Finished<T>, HandlerError>
    where
        F: Fn(RequestContext) -> BoxFuture<'static, HandlerResult<Reply<T>>>,
    {
        let mut ctx = ctx.clone();
        for _ in 0..MAX_INPUT_ROUNDS {
            let reply = match AssertUnwindSafe(call(ctx.clone())).catch_unwind().await {
                Ok(r) => r?,
                Err(p) => return Err(HandlerError::Failed(format!("{what} failed: {}", panic_message(&*p)))),
            };
            let ir = match reply {
                Reply::Complete(t) => return Ok(Finished::Complete(t)),
                Reply::InputRequired(ir) => ir,
            };
            if ir.is_empty() {
                return Err(HandlerError::Rpc(ErrorObject::internal(format!(
                    "{what} replied input-required with neither input requests nor request state"
                ))));
            }
            let caps = ctx.client_capabilities();
            let mut required = Value::Object(Map::new());
            for r in ir.input_requests.values().filter(|r| !r.is_supported_by(&caps)) {
                merge(&mut required, r.required_capability().0);
            }
            if required.as_object().is_some_and(|m| !m.is_empty()) {
                return Err(HandlerError::Rpc(missing_capability(ctx.is_modern(), what, required)));
            }
            if ctx.is_modern() {
                return Ok(Finished::InputRequired(self.input_required_result(&ctx, method, target, &ir)?));
            }
            let mut answers = Map::new();
            for (key, request) in &ir.input_requests {
                let params = match request {
                    InputRequest::Elicit(p) => Some(ctx.elicit_params(p)),
                    InputRequest::Sample(p) => Some(serde_json::to_value(p).map_err(|e| {
                        HandlerError::Rpc(ErrorObject::internal(format!("unserializable sampling request: {e}")))
                    })?),
                    InputRequest::ListRoots => None,
                };
                let answer = ctx.send_request(request.method(), params).await?;
                answers.insert(key.clone(), answer);
            }
            let next = MrtrInput { input_responses: answers, request_state: ir.request_state };
            ctx = RequestContext { inner: Arc::new(ContextInner::with_mrtr(&ctx.inner, next)) };
        }
        Err(HandlerError::Rpc(ErrorObject::internal(format!(
            "{what} asked for input more than {MAX_INPUT_ROUNDS} times"
        ))))
    }

    /// The `input_required` result of a 2026-07-28 request, with its state sealed.
    fn input_required_result(
        &self,
        ctx: &RequestContext,
        method: &str,
        target: &str,
        ir: &InputRequired,
    ) -> Result<RawJson, HandlerError> {
        let mut m = Map::new();
        if !ir.input_requests.is_empty() {
            let requests = serde_json::to_value(&ir.input_requests)
                .map_err(|e| HandlerError::Rpc(ErrorObject::internal(format!("unserializable input requests: {e}"))))?;
            m.insert("inputRequests".into(), requests);
        }
        if let Some(state) = &ir.request_state {
            let binding = Binding { subject: ctx.subject().unwrap_or(""), method, target };
            m.insert("requestState".into(), Value::String(self.sealer().seal(state, binding)));
        }
        self.modern_result(&m, ResultType::InputRequired, None, None).map_err(HandlerError::Rpc)
    }
}
