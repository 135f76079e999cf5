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
//! progress and server-to-client requests work from any thread while it is alive.

use std::ffi::{c_char, c_void};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use ferrite_core::{
    Reply,
    CallToolResult, CompleteResult, Content, CreateMessageParams, ErrorObject, GetPromptResult, HandlerError,
    LoggingLevel, PeerError, ReadResourceResult, RequestContext,
};
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::runtime::Handle;
use tokio::sync::oneshot;

use crate::buffer::{ferrite_str, json_arg, opt_json_arg, opt_str_arg, str_arg, write_opt, write_out};
use crate::error::{ferrite_result, ffi_boundary, Error};
use crate::handler::{ferrite_finalizer, UserData};

/// What a request's handler must produce, so a completion is checked when it is made.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ResultKind {
    Tool,
    Resource,
    Prompt,
    Completion,
}

/// A checked result, one variant per kind. Tools, resources and prompts may reply
/// "input required" (a multi round-trip request).
pub(crate) enum Completed {
    Tool(Reply<CallToolResult>),
    Resource(Reply<ReadResourceResult>),
    Prompt(Reply<GetPromptResult>),
    Completion(CompleteResult),
}

impl ResultKind {
    fn name(self) -> &'static str {
        match self {
            ResultKind::Tool => "CallToolResult",
            ResultKind::Resource => "ReadResourceResult",
            ResultKind::Prompt => "GetPromptResult",
            ResultKind::Completion => "CompleteResult",
        }
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
    /// The arguments of a tool call or prompt.
    arguments: Option<Value>,
    /// Their JSON text, made on first request.
    arguments_json: OnceLock<String>,
    id_json: OnceLock<String>,
    state: Mutex<State>,
}

impl ferrite_request {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Settle with `outcome` if still open; gives the host reference to drop (outside any
    /// borrow of `self`) when the callback has already returned.
    fn settle(&self, outcome: Outcome) -> Result<Option<Arc<ferrite_request>>, Error> {
        let mut st = self.state();
        if st.settled {
            return Err(Error::new(ferrite_result::AlreadyCompleted, "the request was already completed or failed"));
        }
        st.settled = true;
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
    let request = Arc::new(ferrite_request {
        ctx,
        kind,
        runtime,
        arguments,
        arguments_json: OnceLock::new(),
        id_json: OnceLock::new(),
        state: Mutex::new(State { settled: false, in_callback: true, early: None, sender: None, host_ref: None }),
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
                (None, other) => {
                    let what = match other {
                        Some(code) => code.message().to_string_lossy().into_owned(),
                        None => format!("unknown status {status}"),
                    };
                    Err(HandlerError::failed(format!("the handler failed: {what}")))
                }
            };
            st.settled = true;
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
        Err(e) => (Err(internal(format!("the handler's completion was rejected: {}", e.detail))), Some(e)),
    };
    let release = req.settle(outcome)?;
    drop(release); // may free `req`: not used after this line
    err.map_or(Ok(()), Err)
}

/// Complete `request` with its result as JSON: a `CallToolResult` for tools, a
/// `ReadResourceResult` for resources and templates, a `GetPromptResult` for prompts, a
/// `CompleteResult` for completers (the MCP wire shapes).
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

/// The request's JSON-RPC id as JSON text (`7` or `"abc"`), borrowed: valid while the
/// request is.
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_id(request: *const ferrite_request, out: *mut ferrite_str) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        let id = req.id_json.get_or_init(|| req.ctx.request_id().to_value().to_string());
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, ferrite_str::borrow(id), "out") }
    })
}

/// The arguments of a tool call or prompt as JSON text (an object), borrowed: valid while the
/// request is. `FERRITE_RESULT_NOT_FOUND` for other requests.
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_arguments(
    request: *const ferrite_request,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        let args = req.arguments.as_ref().ok_or_else(|| no_arguments(req))?;
        let text = req.arguments_json.get_or_init(|| args.to_string());
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, ferrite_str::borrow(text), "out") }
    })
}

fn no_arguments(req: &ferrite_request) -> Error {
    Error::new(ferrite_result::NotFound, format!("a {} request has no arguments", req.kind.name()))
}

/// The argument at JSON Pointer `pointer` (`"/a"`, `"/address/city"`), read from the parsed
/// arguments: no JSON text is made or parsed.
///
/// # Safety
/// `request` NULL or live; `pointer` NULL or `pointer_len` readable bytes.
unsafe fn argument<'a>(
    request: *const ferrite_request,
    pointer: *const c_char,
    pointer_len: usize,
) -> Result<&'a Value, Error> {
    // SAFETY: forwarded from the caller's contract.
    let req: &'a ferrite_request = unsafe { request_ref(request) }?;
    // SAFETY: forwarded from the caller's contract.
    let pointer = unsafe { str_arg(pointer, pointer_len, "pointer") }?;
    let args = req.arguments.as_ref().ok_or_else(|| no_arguments(req))?;
    args.pointer(pointer)
        .ok_or_else(|| Error::new(ferrite_result::NotFound, format!("no argument at JSON Pointer {pointer:?}")))
}

/// The integer argument at JSON Pointer `pointer` (`"/a"`) of a tool call or prompt, stored
/// at `*out`. `FERRITE_RESULT_NOT_FOUND` if absent, `FERRITE_RESULT_INVALID_ARGUMENT` if it
/// is not an integer that fits in `int64_t`.
///
/// # Safety
/// `request` is a live request handle; `pointer` points to `pointer_len` readable bytes;
/// `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_argument_i64(
    request: *const ferrite_request,
    pointer: *const c_char,
    pointer_len: usize,
    out: *mut i64,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let v = unsafe { argument(request, pointer, pointer_len) }?;
        let n = v.as_i64().ok_or_else(|| Error::invalid(format!("the argument is not a 64-bit integer: {v}")))?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, n, "out") }
    })
}

/// The string argument at JSON Pointer `pointer` (`"/text"`) of a tool call or prompt, as
/// unescaped UTF-8 borrowed from the request (valid while the request is; not
/// NUL-terminated; may contain NUL bytes). `FERRITE_RESULT_NOT_FOUND` if absent,
/// `FERRITE_RESULT_INVALID_ARGUMENT` if it is not a string.
///
/// # Safety
/// `request` is a live request handle; `pointer` points to `pointer_len` readable bytes;
/// `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_argument_string(
    request: *const ferrite_request,
    pointer: *const c_char,
    pointer_len: usize,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let v = unsafe { argument(request, pointer, pointer_len) }?;
        let s = v.as_str().ok_or_else(|| Error::invalid(format!("the argument is not a string: {v}")))?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, ferrite_str::borrow(s), "out") }
    })
}

/// The protocol revision in effect for this request (`"2025-06-18"`), borrowed from static
/// storage.
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_protocol_version(
    request: *const ferrite_request,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, ferrite_str::borrow(req.ctx.protocol_version().as_str()), "out") }
    })
}

/// A stable, non-empty id of the request's connection (stdio process, session), borrowed:
/// valid while the request is.
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_connection_id(
    request: *const ferrite_request,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, ferrite_str::borrow(req.ctx.connection_id()), "out") }
    })
}

/// Whether the client cancelled this request (`notifications/cancelled`). Long handlers
/// should poll it and stop; a late result is discarded either way.
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_is_cancelled(
    request: *const ferrite_request,
    out: *mut bool,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, req.ctx.is_cancelled(), "out") }
    })
}

/// Whether the client declared a capability, by dotted path (`"sampling"`,
/// `"elicitation.url"`, `"roots.listChanged"`).
///
/// # Safety
/// `request` is a live request handle; `capability` points to `capability_len` readable
/// bytes; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_client_supports(
    request: *const ferrite_request,
    capability: *const c_char,
    capability_len: usize,
    out: *mut bool,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        // SAFETY: forwarded from this function's contract.
        let cap = unsafe { str_arg(capability, capability_len, "capability") }?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, req.ctx.client_supports(cap), "out") }
    })
}

/// RFC 5424 log levels for `ferrite_request_log`, least severe first.
#[repr(u32)]
#[derive(Debug, Clone, Copy)]
#[allow(non_camel_case_types)]
pub enum ferrite_log_level {
    /// debug
    Debug = 0,
    /// info
    Info = 1,
    /// notice
    Notice = 2,
    /// warning
    Warning = 3,
    /// error
    Error = 4,
    /// critical
    Critical = 5,
    /// alert
    Alert = 6,
    /// emergency
    Emergency = 7,
}

fn log_level(v: u32) -> Result<LoggingLevel, Error> {
    Ok(match v {
        0 => LoggingLevel::Debug,
        1 => LoggingLevel::Info,
        2 => LoggingLevel::Notice,
        3 => LoggingLevel::Warning,
        4 => LoggingLevel::Error,
        5 => LoggingLevel::Critical,
        6 => LoggingLevel::Alert,
        7 => LoggingLevel::Emergency,
        _ => return Err(Error::invalid(format!("{v} is not a ferrite_log_level"))),
    })
}

/// Send `notifications/message` at `level` (a `ferrite_log_level`) with `data_json` (any JSON
/// value; a string for a plain message) and an optional `logger` name (NULL for none).
/// Nothing is sent when logging is not enabled on the server or the level is below the
/// client's `logging/setLevel`; `*sent` (if not NULL) says whether it was sent.
///
/// # Safety
/// `request` is a live request handle; strings point to their lengths in readable bytes;
/// `sent` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_log(
    request: *const ferrite_request,
    level: u32,
    data_json: *const c_char,
    data_json_len: usize,
    logger: *const c_char,
    logger_len: usize,
    sent: *mut bool,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        let level = log_level(level)?;
        // SAFETY: forwarded from this function's contract.
        let data: Value = unsafe { json_arg(data_json, data_json_len, "data_json") }?;
        // SAFETY: forwarded from this function's contract.
        let logger = unsafe { opt_str_arg(logger, logger_len, "logger") }?;
        let was_sent = req.ctx.log(level, data, logger);
        // SAFETY: forwarded from this function's contract.
        unsafe { write_opt(sent, was_sent) };
        Ok(())
    })
}

/// Send `notifications/progress` with `progress`, an optional `total` (NULL for none) and an
/// optional `message` (NULL for none; sent only from revision 2025-03-26 on). A no-op when
/// the request carried no progress token; `*sent` (if not NULL) says whether it was sent.
///
/// # Safety
/// `request` is a live request handle; `total` is NULL or readable; `message` points to
/// `message_len` readable bytes or is NULL; `sent` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_report_progress(
    request: *const ferrite_request,
    progress: f64,
    total: *const f64,
    message: *const c_char,
    message_len: usize,
    sent: *mut bool,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        // SAFETY: NULL or readable, per this function's contract.
        let total = unsafe { total.as_ref() }.copied();
        // SAFETY: forwarded from this function's contract.
        let message = unsafe { opt_str_arg(message, message_len, "message") }?;
        let was_sent = req.ctx.report_progress(progress, total, message);
        // SAFETY: forwarded from this function's contract.
        unsafe { write_opt(sent, was_sent) };
        Ok(())
    })
}

/// Send a notification related to this request (written before its response), with
/// `params_json` (NULL for none).
///
/// # Safety
/// `request` is a live request handle; strings point to their lengths in readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_notify(
    request: *const ferrite_request,
    method: *const c_char,
    method_len: usize,
    params_json: *const c_char,
    params_json_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        // SAFETY: forwarded from this function's contract.
        let method = unsafe { str_arg(method, method_len, "method") }?;
        // SAFETY: forwarded from this function's contract.
        let params: Option<Value> = unsafe { opt_json_arg(params_json, params_json_len, "params_json") }?;
        req.ctx.notify(method, params);
        Ok(())
    })
}

/// Close the transport stream this request's messages ride on while the request keeps
/// running (Streamable HTTP: the POST's SSE stream; SEP-1699 polling). Later messages,
/// including the result, are kept for the client, which reconnects with `Last-Event-ID`
/// after `*retry_ms` milliseconds (NULL: the transport's `retry` hint). `*closed` (if not
/// NULL) is false on transports that cannot do this (stdio, in-process, a POST answered as
/// JSON only, a server without resumability); the call still succeeds then. In the default
/// response mode a POST that has not answered yet switches to SSE to allow it.
///
/// # Safety
/// `request` is a live request handle; `retry_ms` is NULL or readable; `closed` is NULL or
/// valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_close_sse_stream(
    request: *const ferrite_request,
    retry_ms: *const u64,
    closed: *mut bool,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        // SAFETY: NULL or readable, per this function's contract.
        let retry = unsafe { retry_ms.as_ref() }.map(|ms| std::time::Duration::from_millis(*ms));
        let was_closed = req.ctx.close_sse_stream(retry);
        // SAFETY: forwarded from this function's contract.
        unsafe { write_opt(closed, was_closed) };
        Ok(())
    })
}

/// The answer to a server-to-client request. `result` is `FERRITE_RESULT_OK` with the
/// client's result in `result_json`, or a failure code (usually `FERRITE_RESULT_PEER_ERROR`)
/// with `result_json` empty and the reason in `error_message`. Both strings are borrowed for
/// the call only. Runs on a server worker thread, at most once; `user_data`'s finalizer runs
/// exactly once afterwards (also when the server closes before the answer arrives, in which
/// case the callback is not called).
#[allow(non_camel_case_types)]
pub type ferrite_reply_callback = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        result: ferrite_result,
        result_json: ferrite_str,
        error_message: ferrite_str,
    ),
>;

type PeerFuture = ferrite_core::BoxFuture<'static, Result<String, PeerError>>;

/// Spawn a server-to-client request and deliver its answer to the host.
///
/// # Safety
/// `request` NULL or live; `user_data` as the callback contract says.
unsafe fn ask(
    request: *const ferrite_request,
    callback: ferrite_reply_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
    make: impl FnOnce(RequestContext) -> Result<PeerFuture, Error>,
) -> Result<(), Error> {
    // Own user_data first, so its finalizer runs exactly once whatever happens below.
    let data = UserData::new(user_data, finalizer);
    // SAFETY: forwarded from the caller's contract.
    let req = unsafe { request_ref(request) }?;
    let callback = callback.ok_or_else(|| Error::null("callback"))?;
    let fut = make(req.ctx.clone())?;
    req.runtime.spawn(async move {
        let answer = fut.await;
        let data = data;
        let (code, json, message) = match &answer {
            Ok(json) => (ferrite_result::Ok, json.as_str(), String::new()),
            Err(e) => (ferrite_result::PeerError, "", e.to_string()),
        };
        // SAFETY: the host registered this callback for this user_data; the strings live
        // until it returns.
        unsafe { callback(data.ptr(), code, ferrite_str::borrow(json), ferrite_str::borrow(&message)) };
    });
    Ok(())
}

fn to_json<T: serde::Serialize>(v: &T) -> Result<String, PeerError> {
    serde_json::to_string(v).map_err(|e| PeerError::Malformed(e.to_string()))
}

/// Ask the client's LLM (`sampling/createMessage`) without blocking: `params_json` is the
/// request's params (`{"messages": [...], "maxTokens": 100, ...}`); the client's
/// `CreateMessageResult` arrives at `callback`. Needs a stateful server, a transport with a
/// channel back (stdio) and the client's `sampling` capability, otherwise the callback gets
/// `FERRITE_RESULT_PEER_ERROR`. Returns an error code (and runs the finalizer without calling
/// the callback) only when the arguments are unusable.
///
/// # Safety
/// `request` is a live request handle; `params_json` points to `params_json_len` readable
/// bytes; `user_data` must tolerate the callback and finalizer on a worker thread.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_sample(
    request: *const ferrite_request,
    params_json: *const c_char,
    params_json_len: usize,
    callback: ferrite_reply_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            ask(request, callback, user_data, finalizer, |ctx| {
                let params: CreateMessageParams = json_arg(params_json, params_json_len, "params_json")?;
                Ok(Box::pin(async move { to_json(&ctx.sample(params).await?) }))
            })
        }
    })
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct ElicitParams {
    #[serde(default)]
    mode: Option<String>,
    message: String,
    #[serde(default)]
    requested_schema: Option<Value>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    elicitation_id: Option<String>,
}

/// Ask the user (`elicitation/create`) without blocking. `params_json` is the request's
/// params: form mode `{"message": ..., "requestedSchema": {...}}` (needs the client's
/// `elicitation`) or URL mode `{"mode": "url", "message": ..., "url": ...,
/// "elicitationId": ...}` (needs `elicitation.url`). The client's `ElicitResult`
/// (`{"action": "accept", "content": {...}}`) arrives at `callback`, as for
/// `ferrite_request_sample`.
///
/// # Safety
/// As `ferrite_request_sample`.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_elicit(
    request: *const ferrite_request,
    params_json: *const c_char,
    params_json_len: usize,
    callback: ferrite_reply_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            ask(request, callback, user_data, finalizer, |ctx| {
                let p: ElicitParams = json_arg(params_json, params_json_len, "params_json")?;
                if p.mode.as_deref() == Some("url") {
                    let (Some(url), Some(id)) = (p.url, p.elicitation_id) else {
                        return Err(Error::invalid("URL-mode elicitation needs url and elicitationId"));
                    };
                    Ok(Box::pin(async move { to_json(&ctx.elicit_url(&p.message, &url, &id).await?) }))
                } else {
                    let schema = p.requested_schema.ok_or_else(|| Error::invalid("requestedSchema is missing"))?;
                    Ok(Box::pin(async move { to_json(&ctx.elicit(&p.message, schema).await?) }))
                }
            })
        }
    })
}

/// Ask the client for its roots (`roots/list`) without blocking; the `ListRootsResult`
/// arrives at `callback`, as for `ferrite_request_sample`. Needs the client's `roots`.
///
/// # Safety
/// As `ferrite_request_sample`.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_list_roots(
    request: *const ferrite_request,
    callback: ferrite_reply_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            ask(request, callback, user_data, finalizer, |ctx| {
                Ok(Box::pin(async move { to_json(&ctx.list_roots().await?) }))
            })
        }
    })
}

/// Send any request to the client (`method`, `params_json` or NULL) without blocking; its
/// raw result arrives at `callback`, as for `ferrite_request_sample`.
///
/// # Safety
/// As `ferrite_request_sample`; `method` points to `method_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_send(
    request: *const ferrite_request,
    method: *const c_char,
    method_len: usize,
    params_json: *const c_char,
    params_json_len: usize,
    callback: ferrite_reply_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            ask(request, callback, user_data, finalizer, |ctx| {
                let method = str_arg(method, method_len, "method")?.to_owned();
                let params: Option<Value> = opt_json_arg(params_json, params_json_len, "params_json")?;
                Ok(Box::pin(async move { to_json(&ctx.send_request(&method, params).await?) }))
            })
        }
    })
}
