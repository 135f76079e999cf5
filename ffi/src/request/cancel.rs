//! Cancellation as a callback: a handler that returned PENDING (or runs long) learns that the
//! client gave up without polling `ferrite_request_is_cancelled`. The core cancels the
//! request's token on `notifications/cancelled` and when an HTTP session ends; a connection
//! that closes (stdio end of input, a freed `ferrite_connection`, the server closing while
//! serving) cancels the connection's closing token. A watcher task on the server's runtime
//! waits for either, or for the request to be settled, whichever comes first. A task's body
//! watches only its own token (`tasks/cancel`): the task outlives its connection.

use std::ffi::c_void;
use std::sync::atomic::Ordering;

use super::{ferrite_request, request_ref};
use crate::error::{ferrite_result, ffi_boundary};
use crate::handler::{ferrite_finalizer, own};

/// Called once when the request is cancelled: the client sent `notifications/cancelled` for
/// it, or its connection ended. Runs on a server worker thread (possibly while the handler
/// still runs on another); it must not block. The request handle is still valid inside the
/// callback as long as the host has not settled it: stop the work and settle it then (a late
/// result is discarded).
#[allow(non_camel_case_types)]
pub type ferrite_cancel_callback = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

/// Call `callback` once if `request` is cancelled before it is settled: when the client sends
/// `notifications/cancelled` for it, or its connection ends (stdio end of input, the HTTP
/// session ends, the `ferrite_connection` is freed, the server closes while serving). In a task
/// (`ferrite_request_is_task`) only `tasks/cancel` (or the task outliving its ttl) cancels it:
/// a task outlives the connection that created it. Already
/// cancelled: the callback runs at once, on a worker thread. Settled first (completed or
/// failed, not cancelled by then): the callback never runs. Either way `finalizer` runs exactly
/// once afterwards, on a worker thread (or, when the server closes first, on the closing thread); ownership of
/// `user_data` passes as for `ferrite_server_add_tool`. Several callbacks may be registered on
/// one request. A 2026-07-28 request has no cancellation notification, so only the end of the
/// connection applies there.
///
/// `ferrite_request_is_cancelled` is the same signal as a poll.
///
/// # Safety
/// `request` is a live request handle; `callback` and `finalizer` are safe to call with
/// `user_data` from a worker thread.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_on_cancel(
    request: *const ferrite_request,
    callback: ferrite_cancel_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
) -> ferrite_result {
    ffi_boundary!({
        let (f, data) = own(callback, user_data, finalizer)?;
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        let done = {
            let mut st = req.state();
            if st.settled {
                // Nothing left to cancel: the finalizer runs now, when `data` drops.
                return Ok(());
            }
            st.done.get_or_insert_with(Default::default).clone()
        };
        let cancel = req.ctx.cancellation_token().clone();
        // A task's token is the task's own; the connection that created it may come and go.
        let closing = if req.ctx.is_task() { None } else { Some(req.ctx.connection().closing_token().clone()) };
        req.runtime.spawn(async move {
            let connection_closed = async {
                match closing {
                    Some(c) => c.cancelled().await,
                    None => std::future::pending().await,
                }
            };
            let cancelled = tokio::select! {
                biased;
                // Settled: by then cancelled or not (another watcher may have settled it).
                _ = done.token.cancelled() => done.cancelled_first.load(Ordering::Acquire),
                _ = cancel.cancelled() => true,
                _ = connection_closed => true,
            };
            if cancelled {
                // SAFETY: the host registered `f` for `data`.
                unsafe { f(data.ptr()) }
            }
            drop(data);
        });
        Ok(())
    })
}
