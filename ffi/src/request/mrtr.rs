//! Multi round-trip requests (MRTR, 2026-07-28): a tool, prompt or resource handler that
//! needs the client's input replies "input required" with the requests to answer (elicit,
//! sample, list roots) and optional state, instead of calling the client and waiting. A
//! 2026-07-28 client retries the original request with the answers and the state (sealed by
//! Ferrite on the way out, opened on the way back); on a handshake-era session the core asks
//! the client itself and calls the handler again. Either way the handler reads the answers
//! and its state here, so one handler serves both eras.

use std::ffi::c_char;

use ferrite_core::InputRequired;
use serde_json::{json, Value};

use super::{ferrite_request, finish, request_ref};
use crate::buffer::{ferrite_str, opt_json_arg, opt_str_arg, str_arg, write_out};
use crate::error::{ferrite_result, ffi_boundary, Error};

/// Reply "input required" to a tool call, prompt or resource read: `input_requests_json` is
/// a JSON object of key -> request in the wire shape, each `{"method": "elicitation/create",
/// "params": {"message": ..., "requestedSchema": {...}}}`, `{"method":
/// "sampling/createMessage", "params": {...}}` or `{"method": "roots/list"}`;
/// `request_state` is text the handler wants back on the retry (`ferrite_request_request_state`
/// reads it; Ferrite seals it, so the client can neither read nor alter it). Either may be
/// NULL, not both.
///
/// The requests are checked here, into the core's `InputRequired`: malformed JSON is
/// `FERRITE_RESULT_INVALID_JSON`; an unknown method, bad params, both arguments NULL, or a
/// request that cannot reply input required (a completer, a custom method, a middleware) is
/// `FERRITE_RESULT_INVALID_ARGUMENT`, with the reason in `ferrite_last_error`. Settles the
/// request like `ferrite_request_complete` (a rejected reply fails it with an internal
/// error). Completing with `{"resultType": "input_required", ...}` through
/// `ferrite_request_complete` is equivalent.
///
/// Any thread, while the request is live: from the callback, or later after PENDING.
///
/// # Safety
/// `request` is a live request handle; each string is NULL or points to its length in
/// readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_input_required(
    request: *mut ferrite_request,
    input_requests_json: *const c_char,
    input_requests_json_len: usize,
    request_state: *const c_char,
    request_state_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            finish(request, |req| {
                let requests: Option<Value> =
                    opt_json_arg(input_requests_json, input_requests_json_len, "input_requests_json")?;
                let state = opt_str_arg(request_state, request_state_len, "request_state")?;
                if requests.is_none() && state.is_none() {
                    return Err(Error::invalid(
                        "ferrite_request_input_required needs input_requests_json or request_state (both are NULL)",
                    ));
                }
                if requests.as_ref().is_some_and(|r| !r.is_object()) {
                    return Err(Error::invalid("input_requests_json must be a JSON object of key -> request"));
                }
                let reply = json!({ "inputRequests": requests, "requestState": state });
                let ir = InputRequired::from_value(&reply)
                    .map_err(|e| Error::invalid(format!("input_requests_json: {e}")))?;
                let kind = req.kind;
                let done = kind
                    .input_required(ir)
                    .ok_or_else(|| Error::invalid(format!("a {} request cannot reply input required", kind.name())))?;
                Ok(Ok(done))
            })
        }
    })
}

/// Whether this call is a retry carrying the client's answers or the handler's state (false
/// on a first call).
///
/// Any thread, while the request is live (from its callback until it is settled).
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_is_resubmission(
    request: *const ferrite_request,
    out: *mut bool,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, req.ctx.is_resubmission(), "out") }
    })
}

/// Every answer the client attached to this retry, as one JSON object of key -> the bare
/// result of that input request (`{"action": "accept", "content": {...}}`, a
/// `CreateMessageResult`, `{"roots": [...]}`); `{}` on a first call. Borrowed: valid while
/// the request is.
///
/// Any thread, while the request is live (from its callback until it is settled).
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_input_responses(
    request: *const ferrite_request,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        let text =
            req.input_responses_json.get_or_init(|| Value::Object(req.ctx.input_responses().clone()).to_string());
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, ferrite_str::borrow(text), "out") }
    })
}

/// The client's answer to input request `key` as JSON text (the bare result, as in
/// `ferrite_request_input_responses`), borrowed: valid while the request is. When the client
/// did not answer `key` (a first call, or another round) the call succeeds with `out->ptr`
/// NULL: reply input required (again) then. Decoding the answer, and refusing one of the
/// wrong shape (`ferrite_request_fail_rpc` with -32602), is the handler's part.
///
/// Any thread, while the request is live (from its callback until it is settled).
///
/// # Safety
/// `request` is a live request handle; `key` points to `key_len` readable bytes; `out` is
/// valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_input_response(
    request: *const ferrite_request,
    key: *const c_char,
    key_len: usize,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        // SAFETY: forwarded from this function's contract.
        let key = unsafe { str_arg(key, key_len, "key") }?;
        if out.is_null() {
            return Err(Error::null("out"));
        }
        let text = req.cached_text(format!("input:{key}"), || req.ctx.input_responses().get(key).map(Value::to_string));
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, text, "out") }
    })
}

/// The request state this handler returned with its last "input required" reply, as it wrote
/// it (Ferrite verified the sealed copy the client echoed: an altered or expired one never
/// reaches the handler, the client gets -32602). Borrowed: valid while the request is.
/// `out->ptr` is NULL (and the call succeeds) when there is none (a first call).
///
/// Any thread, while the request is live (from its callback until it is settled).
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_request_state(
    request: *const ferrite_request,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        let state = req.ctx.request_state().map_or(ferrite_str::ABSENT, ferrite_str::borrow);
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, state, "out") }
    })
}
