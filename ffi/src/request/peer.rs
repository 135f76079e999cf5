//! Server-to-client requests made from a handler (sampling, elicitation, roots, any method),
//! without blocking: the answer arrives at a reply callback on a worker thread.
//!
//! These need a channel back to the client (a stateful session or stdio). On a 2026-07-28
//! request there is none: the handler replies "input required" instead
//! (`ferrite_request_input_required`), and these calls report the core's
//! `PeerError::UseInputRequired` to the callback. Inside a task (`ferrite_request_is_task`)
//! they work in both eras: the request waits in the task until the client answers it
//! (`tasks/update` on 2026-07-28, through `tasks/result` on 2025-11-25).

use std::ffi::{c_char, c_void};

use ferrite_core::{CreateMessageParams, ElicitRequestParams, PeerError, RequestContext};
use serde_json::Value;

use super::{ferrite_request, request_ref};
use crate::buffer::{ferrite_str, json_arg, opt_json_arg, str_arg};
use crate::error::{ferrite_result, ffi_boundary, Error};
use crate::handler::{ferrite_finalizer, UserData};

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

pub(super) type PeerFuture = ferrite_core::BoxFuture<'static, Result<String, PeerError>>;

/// Spawn a server-to-client request and deliver its answer to the host.
///
/// # Safety
/// `request` NULL or live; `user_data` as the callback contract says.
pub(super) unsafe fn ask(
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

pub(super) fn to_json<T: serde::Serialize>(v: &T) -> Result<String, PeerError> {
    serde_json::to_string(v).map_err(|e| PeerError::Malformed(e.to_string()))
}

/// Ask the client's LLM (`sampling/createMessage`) without blocking: `params_json` is the
/// request's params (`{"messages": [...], "maxTokens": 100, ...}`; without `maxTokens`, the
/// core's default, 1000, the same on every Ferrite surface); the client's
/// `CreateMessageResult` arrives at `callback`. Needs a stateful server, a transport with a
/// channel back (stdio) and the client's `sampling` capability, otherwise the callback gets
/// `FERRITE_RESULT_PEER_ERROR` (always on a 2026-07-28 request outside a task: reply input
/// required there with `ferrite_request_input_required`). Inside a task the request waits in
/// the task until the client answers, in both eras. Returns an error code (and runs the finalizer without calling
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
                let mut params: Value = json_arg(params_json, params_json_len, "params_json")?;
                if let Some(p) = params.as_object_mut() {
                    p.entry("maxTokens").or_insert(CreateMessageParams::DEFAULT_MAX_TOKENS.into());
                }
                let params: CreateMessageParams =
                    serde_json::from_value(params).map_err(|e| Error::invalid(format!("params_json: {e}")))?;
                Ok(Box::pin(async move { to_json(&ctx.sample(params).await?) }))
            })
        }
    })
}

/// Ask the user (`elicitation/create`) without blocking. `params_json` is the request's
/// params, read as the core's `ElicitRequestParams`: form mode `{"message": ...,
/// "requestedSchema": {...}}` (needs the client's `elicitation`) or URL mode `{"mode": "url",
/// "message": ..., "url": ..., "elicitationId": ...}` (needs `elicitation.url`). Params of
/// another shape are `FERRITE_RESULT_INVALID_ARGUMENT` with serde's reason
/// (`missing field \`requestedSchema\``). The client's `ElicitResult`
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
                match json_arg(params_json, params_json_len, "params_json")? {
                    ElicitRequestParams::Form { message, requested_schema } => {
                        Ok(Box::pin(async move { to_json(&ctx.elicit(&message, requested_schema).await?) }))
                    }
                    ElicitRequestParams::Url { message, url, elicitation_id: Some(id) } => {
                        Ok(Box::pin(async move { to_json(&ctx.elicit_url(&message, &url, &id).await?) }))
                    }
                    // The core's URL elicitation correlates by id (`RequestContext::elicit_url`).
                    ElicitRequestParams::Url { elicitation_id: None, .. } => {
                        Err(Error::invalid("params_json: a URL-mode elicitation needs an elicitationId"))
                    }
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
