//! `ferrite_request`: one in-flight request as a host handler sees it.
//!
//! The core calls a handler and awaits a future. A host callback cannot produce a Rust
//! future, so the host settles the request with `ferrite_request_complete`/`_fail` instead:
//! before its callback returns (synchronous: the result is handed back directly, and the
//! core's future is ready at once), or later from any thread after returning
//! `FERRITE_RESULT_PENDING` (then a oneshot channel carries it, and the core's future awaits
//! the receiver). A host with its own event loop therefore never blocks a core worker thread.
//!
//! Lifetime: the handle is an `Arc`. The library holds one reference while the callback
//! runs; the host holds another (`host_ref`) from the callback's start until the request is
//! settled: when the callback returns anything but PENDING, or, after PENDING, when the host
//! completes it. The handle also carries the request's [`RequestContext`], so logging,
//! progress and server-to-client requests work from any thread while it is alive. A middleware
//! gets the same handle (`crate::middleware`), which then also holds the rest of its chain
//! (`ferrite_middleware_next`), so that lives exactly as long as the request.
//!
//! This module holds the handle and its completion; the other concepts live beside it:
//! `context` (reading the request: id, arguments, revision, client, progress token, `_meta`,
//! headers, ...), `info` (what the transport knows: identity, HTTP method, path, remote address,
//! host values), `cancel` (cancellation as a callback), `notify` (logging, progress and
//! notifications tied to the request), `peer` (server-to-client requests), `url_elicitation`
//! (sending the user to a URL, its completion, the -32042 failure) and `mrtr` (multi round-trip
//! requests: replying "input required", reading the answers and the request state).

mod cancel;
mod context;
mod info;
mod mrtr;
mod notify;
mod peer;
mod url_elicitation;

use std::collections::HashMap;
use std::ffi::c_char;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use ferrite_core::sync::lock;
use tokio_util::sync::CancellationToken;

use ferrite_core::{
    CallToolResult, CompleteResult, Content, ErrorObject, GetPromptResult, HandlerError, ReadResourceResult, Reply,
    RequestContext,
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tokio::runtime::Handle;
use tokio::sync::oneshot;

pub use cancel::ferrite_cancel_callback;
pub use notify::ferrite_log_level;
pub(crate) use notify::log_level;
pub use peer::ferrite_reply_callback;

use crate::buffer::{ferrite_str, opt_json_arg, str_arg};
use crate::error::{ferrite_result, ffi_boundary, Error};
use crate::middleware::ferrite_middleware_next;

/// What a request's handler must produce, so a completion is checked when it is made.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ResultKind {
    Tool,
    Resource,
    Prompt,
    Completion,
    /// A custom request method (`ferrite_server_add_method`): any JSON object.
    Method,
    /// A middleware's answer (`ferrite_server_add_middleware`): the result of whatever method
    /// it answers, any JSON object.
    Middleware,
}

/// A checked result, one variant per kind. Tools, resources and prompts may reply
/// "input required" (a multi round-trip request).
pub(crate) enum Completed {
    Tool(Reply<CallToolResult>),
    Resource(Reply<ReadResourceResult>),
    Prompt(Reply<GetPromptResult>),
    Completion(CompleteResult),
    Method(Value),
}

impl ResultKind {
    fn name(self) -> &'static str {
        match self {
            ResultKind::Tool => "CallToolResult",
            ResultKind::Resource => "ReadResourceResult",
            ResultKind::Prompt => "GetPromptResult",
            ResultKind::Completion => "CompleteResult",
            ResultKind::Method => "JSON object",
            ResultKind::Middleware => "middleware result (a JSON object)",
        }
    }

    /// Wrap an input-required reply in this kind's result; `None` for kinds without MRTR.
    fn input_required(self, ir: ferrite_core::InputRequired) -> Option<Completed> {
        Some(match self {
            ResultKind::Tool => Completed::Tool(Reply::InputRequired(ir)),
            ResultKind::Resource => Completed::Resource(Reply::InputRequired(ir)),
            ResultKind::Prompt => Completed::Prompt(Reply::InputRequired(ir)),
            ResultKind::Completion | ResultKind::Method | ResultKind::Middleware => return None,
        })
    }

    fn parse(self, text: &str) -> Result<Completed, Error> {
        fn p<T: DeserializeOwned>(text: &str, kind: ResultKind) -> Result<T, Error> {
            // Parse first: the error context is only built on failure (this is the hot path).
            serde_json::from_str(text)
                .or_else(|_| crate::buffer::parse_json(text, &format!("the result is not a valid {}", kind.name())))
        }
        /// The result, or an input-required reply (recognised by its `resultType`, which
        /// the core reads; a cheap scan keeps the usual result on the direct parse).
        fn reply<T: DeserializeOwned>(text: &str, kind: ResultKind) -> Result<Reply<T>, Error> {
            if !text.contains("input_required") {
                return p(text, kind).map(Reply::Complete);
            }
            let v: Value = p(text, kind)?;
            Reply::from_value(v).map_err(|e| Error::invalid(format!("the result is not a valid {}: {e}", kind.name())))
        }
        Ok(match self {
            ResultKind::Tool => Completed::Tool(reply(text, self)?),
            ResultKind::Resource => Completed::Resource(reply(text, self)?),
            ResultKind::Prompt => Completed::Prompt(reply(text, self)?),
            ResultKind::Completion => Completed::Completion(p(text, self)?),
            ResultKind::Method | ResultKind::Middleware => {
                Completed::Method(Value::Object(p::<Map<String, Value>>(text, self)?))
            }
        })
    }
}

type Outcome = Result<Completed, HandlerError>;

struct State {
    /// Whether the request was completed or failed (at most once).
    settled: bool,
    /// True while the host callback runs.
    in_callback: bool,
    /// A completion made during the callback, picked up when it returns: a synchronous
    /// handler never needs a channel.
    early: Option<Outcome>,
    /// Where a later completion goes; created only when the callback returns PENDING.
    sender: Option<oneshot::Sender<Outcome>>,
    /// The host's reference; dropped when the request is settled.
    host_ref: Option<Arc<ferrite_request>>,
    /// Signalled when the request is settled or dropped, so cancellation watchers
    /// (`ferrite_request_on_cancel`) stop; made only when one is registered.
    done: Option<Arc<Settled>>,
}

/// The end of a request as its cancellation watchers see it: whether it had been cancelled
/// by then. A cancellation that one watcher turns into a settlement (a Go `Context` whose
/// goroutine completes the request) must still reach the other watchers.
#[derive(Default)]
struct Settled {
    token: CancellationToken,
    cancelled_first: AtomicBool,
}

impl Settled {
    fn signal(&self, cancelled: bool) {
        self.cancelled_first.store(cancelled, Ordering::Release);
        self.token.cancel();
    }
}

impl State {
    /// Mark the request settled (`cancelled`: it had been cancelled by then) and release its
    /// cancellation watchers.
    fn mark_settled(&mut self, cancelled: bool) {
        self.settled = true;
        if let Some(done) = &self.done {
            done.signal(cancelled);
        }
    }
}

/// An in-flight request handed to a handler callback. Opaque.
///
/// Valid from the start of the callback until the request is settled: when the callback
/// returns anything but `FERRITE_RESULT_PENDING`, or, after PENDING, when
/// `ferrite_request_complete` / `ferrite_request_fail` returns. Any thread may use it in that
/// window, concurrently.
#[allow(non_camel_case_types)]
pub struct ferrite_request {
    ctx: RequestContext,
    kind: ResultKind,
    runtime: Handle,
    /// The arguments of a tool call or prompt, or the params of a custom method or of a
    /// middleware's request.
    arguments: Option<Value>,
    /// Their JSON text, made on first request.
    arguments_json: OnceLock<String>,
    id_json: OnceLock<String>,
    /// The input responses as one JSON object, made on first request.
    input_responses_json: OnceLock<String>,
    /// JSON text made for borrowed outputs (one input response, a client extension's
    /// settings), by a key naming what it is; `None` records an absence. Entries are never
    /// replaced or removed, so a borrowed text stays valid while the request is.
    texts: Mutex<HashMap<String, Option<Box<str>>>>,
    /// A middleware's rest of the chain, lent to its callback as `next` (so the handle lives
    /// exactly as long as the request it belongs to).
    next: Option<ferrite_middleware_next>,
    state: Mutex<State>,
}

impl ferrite_request {
    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// The rest of the chain, on a middleware's request.
    pub(crate) fn middleware_next(&self) -> Option<&ferrite_middleware_next> {
        self.next.as_ref()
    }

    /// The arguments (tool, prompt) or params (custom method, middleware) as JSON text, made
    /// once.
    pub(crate) fn arguments_text(&self) -> Option<&str> {
        let args = self.arguments.as_ref()?;
        Some(self.arguments_json.get_or_init(|| args.to_string()))
    }

    /// A text made by `make` for `key` (once per request), borrowed from the request:
    /// `ptr` NULL when `make` gives `None`.
    fn cached_text(&self, key: String, make: impl FnOnce() -> Option<String>) -> ferrite_str {
        let mut texts = lock(&self.texts);
        let entry = texts.entry(key).or_insert_with(|| make().map(String::into_boxed_str));
        // The boxed text is never freed or moved before the request is dropped (entries are
        // only added), so the view stays valid while the request is.
        entry.as_deref().map_or(ferrite_str::ABSENT, ferrite_str::borrow)
    }

    /// Settle with `outcome` if still open; gives the host reference to drop (outside any
    /// borrow of `self`) when the callback has already returned.
    fn settle(&self, outcome: Outcome) -> Result<Option<Arc<ferrite_request>>, Error> {
        let cancelled = self.cancelled_now();
        let mut st = self.state();
        if st.settled {
            return Err(Error::new(ferrite_result::AlreadyCompleted, "the request was already completed or failed"));
        }
        st.mark_settled(cancelled);
        if st.in_callback {
            st.early = Some(outcome);
            return Ok(None);
        }
        if let Some(tx) = st.sender.take() {
            // The receiver is gone when the server closed or dropped the call: nothing to tell.
            let _ = tx.send(outcome);
        }
        Ok(st.host_ref.take())
    }

    /// Whether the request is cancelled at this moment: its own token, or (outside a task,
    /// which outlives its connection) the end of its connection.
    fn cancelled_now(&self) -> bool {
        self.ctx.cancellation_token().is_cancelled()
            || (!self.ctx.is_task() && self.ctx.connection().closing_token().is_cancelled())
    }
}

impl Drop for ferrite_request {
    fn drop(&mut self) {
        // Dropped unsettled (the server closed, or the core gave up on the call): watchers stop.
        let cancelled = self.cancelled_now();
        if let Some(done) = &self.state.get_mut().unwrap_or_else(|p| p.into_inner()).done {
            done.signal(cancelled);
        }
    }
}

/// What the core's future waits for.
enum Answer {
    Now(Outcome),
    Later(oneshot::Receiver<Outcome>),
}

/// Call a host handler for one request and give the future the core awaits.
///
/// `call` receives the request pointer and returns the callback's raw status.
pub(crate) fn invoke<T, F>(
    ctx: RequestContext,
    kind: ResultKind,
    arguments: Option<Value>,
    runtime: Handle,
    extract: fn(Completed) -> Option<T>,
    call: F,
) -> ferrite_core::BoxFuture<'static, Result<T, HandlerError>>
where
    T: Send + 'static,
    F: FnOnce(*mut ferrite_request) -> u32,
{
    invoke_with_next(ctx, kind, arguments, None, runtime, extract, call)
}

/// [`invoke`] for a middleware: the request also holds `next`, the rest of the chain.
pub(crate) fn invoke_with_next<T, F>(
    ctx: RequestContext,
    kind: ResultKind,
    arguments: Option<Value>,
    next: Option<ferrite_middleware_next>,
    runtime: Handle,
    extract: fn(Completed) -> Option<T>,
    call: F,
) -> ferrite_core::BoxFuture<'static, Result<T, HandlerError>>
where
    T: Send + 'static,
    F: FnOnce(*mut ferrite_request) -> u32,
{
    let request = Arc::new(ferrite_request {
        ctx,
        kind,
        runtime,
        arguments,
        arguments_json: OnceLock::new(),
        id_json: OnceLock::new(),
        input_responses_json: OnceLock::new(),
        texts: Mutex::new(HashMap::new()),
        next,
        state: Mutex::new(State {
            settled: false,
            in_callback: true,
            early: None,
            sender: None,
            host_ref: None,
            done: None,
        }),
    });
    request.state().host_ref = Some(request.clone());
    let status = call(Arc::as_ptr(&request).cast_mut());
    let (answer, release) = {
        let mut st = request.state();
        st.in_callback = false;
        let code = ferrite_result::from_u32(status);
        if code == Some(ferrite_result::Pending) && !st.settled {
            // The host completes it later, from any thread; it keeps its reference until then.
            let (tx, rx) = oneshot::channel();
            st.sender = Some(tx);
            (Answer::Later(rx), None)
        } else {
            let outcome = match (st.early.take(), code) {
                (Some(outcome), _) => outcome,
                (None, Some(ferrite_result::Ok)) => {
                    Err(internal("the handler returned FERRITE_RESULT_OK without completing the request".to_owned()))
                }
                // A failure code carries no message of its own: the code's, once.
                (None, Some(code @ ferrite_result::HandlerFailed)) => {
                    Err(HandlerError::failed(code.message().to_string_lossy()))
                }
                (None, other) => {
                    let what = match other {
                        Some(code) => code.message().to_string_lossy().into_owned(),
                        None => format!("unknown status {status}"),
                    };
                    Err(HandlerError::failed(format!("the handler failed: {what}")))
                }
            };
            st.mark_settled(request.cancelled_now());
            (Answer::Now(outcome), st.host_ref.take())
        }
    };
    drop(release);
    drop(request);
    Box::pin(async move {
        let outcome = match answer {
            Answer::Now(outcome) => outcome,
            Answer::Later(rx) => {
                rx.await.unwrap_or_else(|_| Err(internal("the request was dropped without a result".to_owned())))
            }
        };
        outcome
            .and_then(|done| extract(done).ok_or_else(|| internal("the handler completed with the wrong kind".into())))
    })
}

fn internal(message: String) -> HandlerError {
    HandlerError::Rpc(ErrorObject::internal(message))
}

/// # Safety
/// `request` must be NULL or a live request handle.
unsafe fn request_ref<'a>(request: *const ferrite_request) -> Result<&'a ferrite_request, Error> {
    // SAFETY: NULL or live, per the caller's contract.
    unsafe { request.as_ref() }.ok_or_else(|| Error::null("request"))
}

/// Settle a request and drop the host's reference outside the borrow.
///
/// # Safety
/// `request` must be NULL or a live request handle.
unsafe fn finish(
    request: *mut ferrite_request,
    outcome: impl FnOnce(&ferrite_request) -> Result<Outcome, Error>,
) -> Result<(), Error> {
    // SAFETY: forwarded from the caller's contract.
    let req = unsafe { request_ref(request) }?;
    // A bad result still settles the request (as an internal error), so the handle never leaks.
    let (outcome, err) = match outcome(req) {
        Ok(o) => (o, None),
        Err(e) => (Err(HandlerError::invalid_result(&e.detail)), Some(e)),
    };
    let release = req.settle(outcome)?;
    drop(release); // may free `req`: not used after this line
    err.map_or(Ok(()), Err)
}

/// Complete `request` with its result as JSON: a `CallToolResult` for tools, a
/// `ReadResourceResult` for resources and templates, a `GetPromptResult` for prompts, a
/// `CompleteResult` for completers (the MCP wire shapes), any JSON object for a custom
/// method (`ferrite_server_add_method`) or a middleware (`ferrite_server_add_middleware`: the
/// result of the method it answers, passed on as it is). A tool, resource or prompt may instead reply "input
/// required" with `{"resultType": "input_required", "inputRequests": {...}, "requestState":
/// "..."}` (as `ferrite_request_input_required` does).
///
/// Settles the request whatever happens: if the JSON is invalid or has the wrong shape the
/// request fails with an internal error and the code says why. After PENDING, the handle is
/// freed by this call; completing a request twice is undefined behaviour, except inside the
/// callback, where the second call returns `FERRITE_RESULT_ALREADY_COMPLETED`.
///
/// # Safety
/// `request` is a live request handle; `json` points to `json_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_complete(
    request: *mut ferrite_request,
    json: *const c_char,
    json_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            finish(request, |req| {
                let text = str_arg(json, json_len, "json")?;
                Ok(Ok(req.kind.parse(text)?))
            })
        }
    })
}

/// Fail `request` with a message. For a tool this is a tool execution error (a result with
/// `isError: true` and the message as text, which the model sees); for other handlers a
/// JSON-RPC internal error (-32603). Settles the request like `ferrite_request_complete`.
///
/// # Safety
/// `request` is a live request handle; `message` points to `message_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_fail(
    request: *mut ferrite_request,
    message: *const c_char,
    message_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            finish(request, |_| {
                let m = str_arg(message, message_len, "message")?;
                Ok(Err(HandlerError::failed(m)))
            })
        }
    })
}

/// Complete a tool call with one text content block, `text`, and optionally
/// `structured_json` (NULL for none) as its `structuredContent`: the most common tool result,
/// without building or escaping JSON. Only for tool handlers; on any other request it fails
/// the request and returns `FERRITE_RESULT_INVALID_ARGUMENT`. Settles the request like
/// `ferrite_request_complete`.
///
/// # Safety
/// `request` is a live request handle; the strings point to their lengths in readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_complete_text(
    request: *mut ferrite_request,
    text: *const c_char,
    text_len: usize,
    structured_json: *const c_char,
    structured_json_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            finish(request, |req| {
                if !matches!(req.kind, ResultKind::Tool) {
                    return Err(Error::invalid("ferrite_request_complete_text completes tool calls only"));
                }
                let text = str_arg(text, text_len, "text")?;
                let structured_content: Option<Value> =
                    opt_json_arg(structured_json, structured_json_len, "structured_json")?;
                Ok(Ok(Completed::Tool(Reply::Complete(CallToolResult {
                    content: vec![Content::text(text)],
                    structured_content,
                    ..CallToolResult::default()
                }))))
            })
        }
    })
}

/// Complete a completer's request with candidate values: `values_json` is a JSON array of
/// strings, all the candidates that match; the core's `CompleteResult::from_values` keeps the
/// first 100 (`CompleteResult::MAX_VALUES`) and fills in `total` and `hasMore`. Only for
/// completers; on any other request it fails the request and returns
/// `FERRITE_RESULT_INVALID_ARGUMENT`. Settles the request like `ferrite_request_complete`.
///
/// # Safety
/// `request` is a live request handle; `values_json` points to `values_json_len` readable
/// bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_complete_values(
    request: *mut ferrite_request,
    values_json: *const c_char,
    values_json_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            finish(request, |req| {
                if !matches!(req.kind, ResultKind::Completion) {
                    return Err(Error::invalid("ferrite_request_complete_values completes completion requests only"));
                }
                let values: Vec<String> = crate::buffer::json_arg(values_json, values_json_len, "values_json")?;
                Ok(Ok(Completed::Completion(CompleteResult::from_values(values))))
            })
        }
    })
}

/// Fail `request` with a JSON-RPC error (`code`, `message`, optional `data_json`, NULL for
/// none), sent to the client as is, for any kind of handler (e.g. -32602 for bad
/// arguments). Settles the request like `ferrite_request_complete`.
///
/// # Safety
/// `request` is a live request handle; the strings point to their lengths in readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_fail_rpc(
    request: *mut ferrite_request,
    code: i32,
    message: *const c_char,
    message_len: usize,
    data_json: *const c_char,
    data_json_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            finish(request, |_| {
                let m = str_arg(message, message_len, "message")?;
                let data: Option<Value> = opt_json_arg(data_json, data_json_len, "data_json")?;
                let mut e = ErrorObject::new(code, m);
                if let Some(d) = data {
                    e = e.with_data(d);
                }
                Ok(Err(HandlerError::Rpc(e)))
            })
        }
    })
}
