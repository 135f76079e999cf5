//! What the server sends on its own, outside any request: notifications to every connected
//! client (list changes, resource updates, any method), `ping` to one connection, and the
//! out-of-band end of a URL elicitation to one connection.

use std::ffi::{c_char, c_void};
use std::time::Duration;

use ferrite_core::Server;

use super::{ferrite_server, server_ref};
use crate::buffer::{ferrite_str, str_arg, write_opt, write_out};
use crate::error::{ferrite_result, ffi_boundary, Error};
use crate::handler::{ferrite_finalizer, UserData};
use crate::request::ferrite_reply_callback;

/// Send a notification (`method`, `params_json` or NULL) to every connected client;
/// `*reached` (if not NULL) is how many connections it went to.
///
/// # Safety
/// `server` is a live server; strings point to their lengths in readable bytes; `reached` is
/// NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_notify(
    server: *const ferrite_server,
    method: *const c_char,
    method_len: usize,
    params_json: *const c_char,
    params_json_len: usize,
    reached: *mut usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let core = unsafe { server_ref(server) }?.core()?;
        // SAFETY: forwarded from this function's contract.
        let method = unsafe { str_arg(method, method_len, "method") }?;
        // SAFETY: forwarded from this function's contract.
        let params = unsafe { crate::buffer::opt_json_arg(params_json, params_json_len, "params_json") }?;
        let n = core.notify(method, params);
        // SAFETY: forwarded from this function's contract.
        unsafe { write_opt(reached, n) };
        Ok(())
    })
}

/// Send `notifications/message` at `level` (a `ferrite_log_level`) with `data_json` (any JSON
/// value; a string for a plain message) and an optional `logger` name (NULL for none) to every
/// connected client whose `logging/setLevel` minimum the level reaches, or, with `session`
/// (not NULL), to that session only: the official SDKs' server-wide `sendLoggingMessage`.
/// Inside a handler, `ferrite_request_log` reaches the requesting client in either era. Nothing
/// is sent when the server has no logging capability; `*reached` (if not NULL) is how many
/// connections it went to.
///
/// # Safety
/// `server` is a live server; strings point to their lengths in readable bytes or are NULL
/// where allowed; `reached` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_send_log_message(
    server: *const ferrite_server,
    level: u32,
    data_json: *const c_char,
    data_json_len: usize,
    logger: *const c_char,
    logger_len: usize,
    session: *const c_char,
    session_len: usize,
    reached: *mut usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let core = unsafe { server_ref(server) }?.core()?;
        let level = crate::request::log_level(level)?;
        // SAFETY: forwarded from this function's contract.
        let data: serde_json::Value = unsafe { crate::buffer::json_arg(data_json, data_json_len, "data_json") }?;
        // SAFETY: forwarded from this function's contract.
        let logger = unsafe { crate::buffer::opt_str_arg(logger, logger_len, "logger") }?;
        // SAFETY: forwarded from this function's contract.
        let session = unsafe { crate::buffer::opt_str_arg(session, session_len, "session") }?;
        let n = core.send_log_message(level, data, logger, session);
        // SAFETY: forwarded from this function's contract.
        unsafe { write_opt(reached, n) };
        Ok(())
    })
}

/// Run a broadcast and report its reach.
///
/// # Safety
/// `server` NULL or live; `reached` NULL or valid for a write.
unsafe fn broadcast(server: *const ferrite_server, reached: *mut usize, f: fn(&Server) -> usize) -> Result<(), Error> {
    // SAFETY: forwarded from the caller's contract.
    let n = f(&unsafe { server_ref(server) }?.core()?);
    // SAFETY: forwarded from the caller's contract.
    unsafe { write_opt(reached, n) };
    Ok(())
}

/// Send `notifications/tools/list_changed` to every connected client; `*reached` (if not
/// NULL) is how many connections it went to.
///
/// # Safety
/// `server` is a live server; `reached` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_notify_tools_list_changed(
    server: *const ferrite_server,
    reached: *mut usize,
) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    ffi_boundary!({ unsafe { broadcast(server, reached, Server::notify_tools_list_changed) } })
}

/// Send `notifications/resources/list_changed` to every connected client; `*reached` (if not
/// NULL) is how many connections it went to.
///
/// # Safety
/// `server` is a live server; `reached` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_notify_resources_list_changed(
    server: *const ferrite_server,
    reached: *mut usize,
) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    ffi_boundary!({ unsafe { broadcast(server, reached, Server::notify_resources_list_changed) } })
}

/// Send `notifications/prompts/list_changed` to every connected client; `*reached` (if not
/// NULL) is how many connections it went to.
///
/// # Safety
/// `server` is a live server; `reached` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_notify_prompts_list_changed(
    server: *const ferrite_server,
    reached: *mut usize,
) -> ferrite_result {
    // SAFETY: forwarded from this function's contract.
    ffi_boundary!({ unsafe { broadcast(server, reached, Server::notify_prompts_list_changed) } })
}

/// Send `notifications/resources/updated` for `uri` to the clients subscribed to it;
/// `*reached` (if not NULL) is how many.
///
/// # Safety
/// `server` is a live server; `uri` points to `uri_len` readable bytes; `reached` is NULL or
/// valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_notify_resource_updated(
    server: *const ferrite_server,
    uri: *const c_char,
    uri_len: usize,
    reached: *mut usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let core = unsafe { server_ref(server) }?.core()?;
        // SAFETY: forwarded from this function's contract.
        let uri = unsafe { str_arg(uri, uri_len, "uri") }?;
        let n = core.notify_resource_updated(uri);
        // SAFETY: forwarded from this function's contract.
        unsafe { write_opt(reached, n) };
        Ok(())
    })
}

/// Tell the connection `connection_id` that the URL elicitation `elicitation_id` has completed
/// (`notifications/elicitation/complete`, 2025-11-25 on): the out-of-band end of a URL
/// elicitation, for the web page or callback that learns of it after the request that asked
/// (`ferrite_request_elicit_url`) or that failed with -32042
/// (`ferrite_request_fail_url_elicitation_required`) has ended. Inside that request,
/// `ferrite_request_notify_elicitation_complete` does the same. It goes out on the connection
/// only while it listens (the stdio connection, an HTTP session with its GET stream open, a
/// `ferrite_connection` made with a send callback) and negotiated 2025-11-25 or later: `*sent`
/// (if not NULL) says whether it went out; an unknown id is not an error (`*sent` false).
///
/// Any thread, including a callback.
///
/// # Safety
/// `server` is a live server; the strings point to their lengths in readable bytes; `sent` is
/// NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_notify_elicitation_complete(
    server: *const ferrite_server,
    connection_id: *const c_char,
    connection_id_len: usize,
    elicitation_id: *const c_char,
    elicitation_id_len: usize,
    sent: *mut bool,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let core = unsafe { server_ref(server) }?.core()?;
        // SAFETY: forwarded from this function's contract.
        let connection_id = unsafe { str_arg(connection_id, connection_id_len, "connection_id") }?;
        // SAFETY: forwarded from this function's contract.
        let elicitation_id = unsafe { str_arg(elicitation_id, elicitation_id_len, "elicitation_id") }?;
        let was_sent = core.notify_elicitation_complete(connection_id, elicitation_id);
        // SAFETY: forwarded from this function's contract.
        unsafe { write_opt(sent, was_sent) };
        Ok(())
    })
}

/// How many connections are listening for notifications now (stdio processes served, HTTP
/// sessions).
///
/// # Safety
/// `server` is a live server; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_connection_count(
    server: *const ferrite_server,
    out: *mut usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let n = unsafe { server_ref(server) }?.core()?.connected_sessions().len();
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, n, "out") }
    })
}

/// Send `ping` to the connection `connection_id` (an HTTP session id, the stdio connection, or
/// a `ferrite_connection` made with a send callback; see `ferrite_request_connection_id` and
/// `ferrite_connection_id`) without blocking, and wait up to `timeout_ms` for the client's
/// empty result. The answer arrives at `callback` as for `ferrite_request_sample`: OK with
/// `result_json` `{}`, or `FERRITE_RESULT_PEER_ERROR` with the reason (no such connection or no
/// channel back to it, the client answered with an error, the timeout passed, the connection
/// closed). Returns an error code (and runs the finalizer without calling the callback) only
/// when the arguments are unusable or the server is closed.
///
/// Any thread, including a callback.
///
/// # Safety
/// `server` is a live server; `connection_id` points to `connection_id_len` readable bytes;
/// `user_data` must tolerate the callback and finalizer on a worker thread.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_ping_client(
    server: *const ferrite_server,
    connection_id: *const c_char,
    connection_id_len: usize,
    timeout_ms: u64,
    callback: ferrite_reply_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
) -> ferrite_result {
    ffi_boundary!({
        // Own user_data first, so its finalizer runs exactly once whatever happens below.
        let data = UserData::new(user_data, finalizer);
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        let callback = callback.ok_or_else(|| Error::null("callback"))?;
        // SAFETY: forwarded from this function's contract.
        let id = unsafe { str_arg(connection_id, connection_id_len, "connection_id") }?.to_owned();
        let core = s.core()?;
        s.runtime_handle().spawn(async move {
            let answer = core.ping_client(&id, Duration::from_millis(timeout_ms)).await;
            let (code, json, message) = match &answer {
                Ok(()) => (ferrite_result::Ok, "{}", String::new()),
                Err(e) => (ferrite_result::PeerError, "", e.to_string()),
            };
            // SAFETY: the host registered this callback for this user_data; the strings live
            // until it returns.
            unsafe { callback(data.ptr(), code, ferrite_str::borrow(json), ferrite_str::borrow(&message)) };
        });
        Ok(())
    })
}
