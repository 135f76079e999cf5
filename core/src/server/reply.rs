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
use std::sync::{Arc, Mutex};

use futures::FutureExt as _;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

use super::context::{ContextInner, MrtrInput};
use super::dispatch::missing_capability;
use super::handler::{BoxFuture, HandlerError, HandlerResult};
use super::{RequestContext, Server};
use crate::protocol::model::{InputRequest, InputRequired, Reply, ResultType};
use crate::protocol::{ErrorObject, RawJson};
use crate::request_state::Binding;
use crate::sync::lock;

/// How many times one request may ask for input on a handshake-era connection before the
/// core gives up (a handler that never completes).
pub const MAX_INPUT_ROUNDS: usize = 16;

/// A handler's input. The first round gets it as is; later rounds (a handshake-era connection
/// answering input requests in place) get a copy rebuilt from a snapshot, taken only when such
/// rounds can happen, so a request that cannot be asked about again pays for no copy.
pub(crate) struct RoundInput<T> {
    first: Mutex<Option<T>>,
    snapshot: Option<String>,
}

impl<T: Serialize + DeserializeOwned> RoundInput<T> {
    pub(crate) fn new(value: T, ctx: &RequestContext) -> Self {
        // A serialized copy: one allocation, where cloning a JSON object is one per key and
        // node. Rebuilding it is the rare path.
        let snapshot = ctx.may_ask_in_place().then(|| serde_json::to_string(&value).ok()).flatten();
        RoundInput { first: Mutex::new(Some(value)), snapshot }
    }

    /// The input for the next round.
    pub(crate) fn take(&self) -> HandlerResult<T> {
        if let Some(v) = lock(&self.first).take() {
            return Ok(v);
        }
        self.snapshot.as_deref().and_then(|s| serde_json::from_str(s).ok()).ok_or_else(|| {
            HandlerError::Rpc(ErrorObject::internal("the handler's input could not be handed to it again"))
        })
    }
}

impl RequestContext {
    /// Whether input requests can be asked in place, on this connection (the handshake era
    /// with a channel back to the client), so the handler may be called again.
    fn may_ask_in_place(&self) -> bool {
        (self.is_task() || !self.is_modern()) && self.inner.peer.can_request()
    }
}

/// A handler's final word.
pub(crate) enum Finished<T> {
    /// The result.
    Complete(T),
    /// The `input_required` result to send (2026-07-28).
    InputRequired(RawJson),
}

/// Spell every form of `ir` the restricted way (a schema generated from a type carries
/// `$schema`, `$defs` for its enums, `[T, "null"]` for optional fields).
fn normalize_forms(ir: &mut InputRequired) {
    for request in ir.input_requests.values_mut() {
        if let InputRequest::Elicit(crate::protocol::model::ElicitRequestParams::Form { requested_schema, .. }) =
            request
        {
            *requested_schema = crate::protocol::model::elicit_schema::normalize(std::mem::take(requested_schema));
        }
    }
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

/// Ask the client the input requests of `ir` as server-to-client requests on `ctx`'s connection
/// (or inside its task), spelled at the client's revision, and gather the answers by key.
pub(crate) async fn ask_in_place(ctx: &RequestContext, ir: &InputRequired) -> Result<Map<String, Value>, HandlerError> {
    let asks = ir.input_requests.iter().map(|(key, request)| async move {
        let params = match request {
            InputRequest::Elicit(p) => Some(ctx.elicit_params(p)),
            InputRequest::Sample(p) => Some(serde_json::to_value(p).map_err(|e| {
                HandlerError::Rpc(ErrorObject::internal(format!("unserializable sampling request: {e}")))
            })?),
            InputRequest::ListRoots => None,
        };
        let answer = ctx.send_request(request.method(), params).await?;
        Ok::<_, HandlerError>((key.clone(), answer))
    });
    // A task holds every request pending at once (the client answers them in any order); a
    // connection asks one after the other.
    if ctx.is_task() {
        return Ok(futures::future::try_join_all(asks).await?.into_iter().collect());
    }
    let mut answers = Map::new();
    for ask in asks {
        let (key, answer) = ask.await?;
        answers.insert(key, answer);
    }
    Ok(answers)
}

impl Server {
    /// Run a handler until it completes, asking for input as it requests.
    pub(crate) async fn reply_loop<T, F>(
        &self,
        ctx: &RequestContext,
        method: &str,
        kind: &str,
        target: &str,
        call: F,
    ) -> Result<Finished<T>, HandlerError>
    where
        F: Fn(RequestContext) -> BoxFuture<'static, HandlerResult<Reply<T>>>,
    {
        // What the handler serves, for messages (made only when one is needed).
        let what = || format!("{kind} {target}");
        let mut ctx = ctx.clone();
        for _ in 0..MAX_INPUT_ROUNDS {
            let reply = match AssertUnwindSafe(call(ctx.clone())).catch_unwind().await {
                Ok(r) => r?,
                Err(p) => return Err(HandlerError::panicked(&*p)),
            };
            let mut ir = match reply {
                Reply::Complete(t) => return Ok(Finished::Complete(t)),
                Reply::InputRequired(ir) => ir,
            };
            normalize_forms(&mut ir);
            if ir.is_empty() {
                return Err(HandlerError::Rpc(ErrorObject::internal(format!(
                    "{} replied input-required with neither input requests nor request state",
                    what()
                ))));
            }
            self.check_input_capabilities(&ctx, &what(), &ir)?;
            if ctx.is_modern() && !ctx.is_task() {
                return Ok(Finished::InputRequired(self.input_required_result(&ctx, method, target, &ir)?));
            }
            // Boxed: asking in place is rare, and its state would size every call's future.
            let answers = Box::pin(ask_in_place(&ctx, &ir)).await?;
            let next = MrtrInput { input_responses: answers, request_state: ir.request_state };
            ctx = RequestContext { inner: Arc::new(ContextInner::with_mrtr(&ctx.inner, next)) };
        }
        Err(HandlerError::Rpc(ErrorObject::internal(format!(
            "{} asked for input more than {MAX_INPUT_ROUNDS} times",
            what()
        ))))
    }

    /// Refuse input requests the client did not declare the capability for, before anything
    /// is sent (`-32021` on 2026-07-28, `-32602` before).
    pub(crate) fn check_input_capabilities(
        &self,
        ctx: &RequestContext,
        what: &str,
        ir: &InputRequired,
    ) -> Result<(), HandlerError> {
        for (key, request) in &ir.input_requests {
            if let InputRequest::Elicit(crate::protocol::model::ElicitRequestParams::Form {
                requested_schema, ..
            }) = request
            {
                crate::protocol::model::check_requested_schema(requested_schema).map_err(|e| {
                    HandlerError::Rpc(ErrorObject::internal(format!("{what} asked input {key:?} with an {e}")))
                })?;
            }
        }
        let caps = ctx.client_capabilities();
        let mut required = Value::Object(Map::new());
        for r in ir.input_requests.values().filter(|r| !r.is_supported_by(&caps)) {
            merge(&mut required, r.required_capability().0);
        }
        if required.as_object().is_some_and(|m| !m.is_empty()) {
            return Err(HandlerError::Rpc(missing_capability(ctx.is_modern(), what, required)));
        }
        Ok(())
    }

    /// The `input_required` result of a 2026-07-28 request, with its state sealed.
    pub(crate) fn input_required_result(
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
