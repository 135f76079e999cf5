//! Running as one instance of a fleet: the shared state goes to Redis (the core's
//! `Server::use_redis`), so that any instance behind one endpoint can answer any request.

use std::ffi::c_char;

use super::{ferrite_server, server_ref};
use crate::buffer::{opt_str_arg, str_arg};
use crate::error::{ferrite_result, ffi_boundary};
use crate::handler::config;

/// Keep the state the instances of a fleet share in Redis at `url` (`redis://host:port/db`),
/// under keys starting with `key_prefix` (NULL: `"ferrite:"`; every instance of one fleet uses
/// the same): the tasks of both generations, and the fleet-wide notifications (resource
/// updates, task status, `ferrite_server_notify`) through pub/sub. Every instance must also
/// seal `requestState` with the same keys (`ferrite_server_set_request_state_keys`).
///
/// Call it before serving: once the server has begun running tasks this returns
/// `FERRITE_RESULT_TASKS_STARTED`. A malformed URL is `FERRITE_RESULT_INVALID_ARGUMENT` with the
/// core's message. Redis is connected lazily: a Redis that is down is an error for the
/// requests that need it (a JSON-RPC error naming it), not for this call, and the server picks
/// it up again when it returns.
///
/// # Safety
/// `server` is a live server; `url` points to `url_len` readable bytes; `key_prefix` is NULL
/// or points to `key_prefix_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_use_redis(
    server: *const ferrite_server,
    url: *const c_char,
    url_len: usize,
    key_prefix: *const c_char,
    key_prefix_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let server = unsafe { server_ref(server) }?;
        let core = server.core()?;
        // SAFETY: forwarded from this function's contract.
        let url = unsafe { str_arg(url, url_len, "url") }?;
        // SAFETY: forwarded from this function's contract.
        let prefix = unsafe { opt_str_arg(key_prefix, key_prefix_len, "key_prefix") }?.unwrap_or("ferrite:");
        // The Redis client's reconnection and the fan-out run on the server's runtime.
        let _in_runtime = server.runtime_handle().enter();
        core.use_redis(url, prefix).map(|_| ()).map_err(config)
    })
}
