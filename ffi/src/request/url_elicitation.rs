//! URL elicitation (2025-11-25 on): sending the user to a URL (a sign-in, a payment) and
//! hearing back, telling the client that such an elicitation has completed, and failing a
//! request that cannot go on until the user has visited some URLs (-32042). The wire shapes
//! are the core's (`RequestContext::elicit_url`, `ErrorObject::url_elicitation_required`).

use std::ffi::{c_char, c_void};

use ferrite_core::{ElicitRequestParams, ErrorObject, HandlerError};
use serde::Deserialize;

use super::peer::{ask, ferrite_reply_callback, to_json};
use super::{ferrite_request, finish, request_ref};
use crate::buffer::{json_arg, str_arg};
use crate::error::{ferrite_result, ffi_boundary, Error};
use crate::handler::ferrite_finalizer;

/// Ask the user to visit `url` (`elicitation/create` in URL mode, with `message` saying why
/// and `elicitation_id` naming it) without blocking; the client's `ElicitResult`
/// (`{"action": "accept"}` once the user agreed to go, `decline` or `cancel`) arrives at
/// `callback`, as for `ferrite_request_sample`. The user finishes at the URL out of band: tell
/// the client when that is done with `ferrite_request_notify_elicitation_complete` (while the
/// request runs) or `ferrite_server_notify_elicitation_complete` (later). Needs the client's
/// `elicitation.url` capability (2025-11-25 on), a stateful server and a channel back,
/// otherwise the callback gets `FERRITE_RESULT_PEER_ERROR` with the reason. Returns an error
/// code (and runs the finalizer without calling the callback) only when the arguments are
/// unusable.
///
/// # Safety
/// `request` is a live request handle; the strings point to their lengths in readable bytes;
/// `user_data` must tolerate the callback and finalizer on a worker thread.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_elicit_url(
    request: *const ferrite_request,
    message: *const c_char,
    message_len: usize,
    url: *const c_char,
    url_len: usize,
    elicitation_id: *const c_char,
    elicitation_id_len: usize,
    callback: ferrite_reply_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            ask(request, callback, user_data, finalizer, |ctx| {
                let message = str_arg(message, message_len, "message")?.to_owned();
                let url = str_arg(url, url_len, "url")?.to_owned();
                let id = str_arg(elicitation_id, elicitation_id_len, "elicitation_id")?.to_owned();
                Ok(Box::pin(async move { to_json(&ctx.elicit_url(&message, &url, &id).await?) }))
            })
        }
    })
}

/// Tell the client that the URL elicitation `elicitation_id` has completed
/// (`notifications/elicitation/complete`, tied to this request), so it may retry what waited on
/// it. For an elicitation that completes after the request has ended, use
/// `ferrite_server_notify_elicitation_complete`.
///
/// # Safety
/// `request` is a live request handle; `elicitation_id` points to `elicitation_id_len`
/// readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_notify_elicitation_complete(
    request: *const ferrite_request,
    elicitation_id: *const c_char,
    elicitation_id_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        // SAFETY: forwarded from this function's contract.
        let id = unsafe { str_arg(elicitation_id, elicitation_id_len, "elicitation_id") }?;
        req.ctx.notify_elicitation_complete(id);
        Ok(())
    })
}

/// One URL elicitation as a host lists it for the -32042 error.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UrlElicitation {
    /// Accepted when present, and then only as "url" (the wire shape has it).
    mode: Option<String>,
    message: String,
    url: String,
    elicitation_id: String,
}

impl UrlElicitation {
    fn into_params(self) -> Result<serde_json::Value, Error> {
        if let Some(mode) = self.mode.filter(|m| m != "url") {
            return Err(Error::invalid(format!("elicitations_json: mode must be \"url\", not {mode:?}")));
        }
        Ok(ElicitRequestParams::Url { message: self.message, url: self.url, elicitation_id: Some(self.elicitation_id) }
            .to_params(true))
    }
}

/// Fail `request` with the JSON-RPC error -32042 (URL elicitation required, 2025-11-25 on):
/// the request cannot go on until the user has completed these URL elicitations.
/// `elicitations_json` is a JSON array of `{"message": ..., "url": ..., "elicitationId": ...}`
/// objects; the core makes the error (`ErrorObject::url_elicitation_required`: message "URL
/// elicitation required", `data.elicitations` each with `"mode": "url"`). Tell the client when
/// one completes with `ferrite_server_notify_elicitation_complete`.
///
/// Settles the request like `ferrite_request_complete`, whatever happens: `elicitations_json`
/// that does not parse is `FERRITE_RESULT_INVALID_JSON`, and one of another shape (not an
/// array, an entry without `message`, `url` or `elicitationId`, a `mode` other than `"url"`)
/// is `FERRITE_RESULT_INVALID_ARGUMENT`; the request then fails with -32603 naming why.
///
/// # Safety
/// `request` is a live request handle; `elicitations_json` points to `elicitations_json_len`
/// readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_fail_url_elicitation_required(
    request: *mut ferrite_request,
    elicitations_json: *const c_char,
    elicitations_json_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            finish(request, |_| {
                let list: Vec<UrlElicitation> =
                    json_arg(elicitations_json, elicitations_json_len, "elicitations_json")?;
                let params = list.into_iter().map(UrlElicitation::into_params).collect::<Result<Vec<_>, _>>()?;
                Ok(Err(HandlerError::Rpc(ErrorObject::url_elicitation_required(params))))
            })
        }
    })
}
