//! How a server runs tasks: the core's `TaskOptions` set on a live server, because a C host
//! builds its server with `ferrite_server_new` and configures it afterwards (the Rust builder
//! takes them up front). The core decides when they can no longer change.

use std::time::Duration;

use super::{ferrite_server, server_ref};
use crate::error::{ferrite_result, ffi_boundary};
use crate::handler::config;

/// `ms` as a duration, or `current` when `ms` is 0 (the caller keeps that setting).
fn or_current(ms: u64, current: Duration) -> Duration {
    if ms == 0 {
        current
    } else {
        Duration::from_millis(ms)
    }
}

/// Set how the server runs tasks (the core's `TaskOptions`), in milliseconds; 0 keeps that
/// setting's current value (at first the core's defaults, the same on every Ferrite surface:
/// `default_ttl_ms` 300000, `max_ttl_ms` 3600000, `poll_interval_ms` 1000,
/// `promote_after_ms` 100). `default_ttl_ms`: how long a task is kept when the client asks for
/// nothing else (a 2025-11-25 `task` without `ttl`, every 2026-07-28 task); `max_ttl_ms`: the
/// longest ttl a 2025-11-25 client may ask for (a longer one is cut to it);
/// `poll_interval_ms`: the `pollInterval` suggested to clients; `promote_after_ms`: how long a
/// 2026-07-28 call runs inline before it becomes a task.
///
/// Call it before serving: once the server has begun running tasks (the first call of a tool
/// with a task support), the options are fixed and this returns
/// `FERRITE_RESULT_TASKS_STARTED` with the core's message, changing nothing.
///
/// # Safety
/// `server` is a live server.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_set_task_options(
    server: *const ferrite_server,
    default_ttl_ms: u64,
    max_ttl_ms: u64,
    poll_interval_ms: u64,
    promote_after_ms: u64,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let core = unsafe { server_ref(server) }?.core()?;
        let mut options = core.task_options();
        options.default_ttl = or_current(default_ttl_ms, options.default_ttl);
        options.max_ttl = or_current(max_ttl_ms, options.max_ttl);
        options.poll_interval = or_current(poll_interval_ms, options.poll_interval);
        options.promote_after = or_current(promote_after_ms, options.promote_after);
        core.set_task_options(options).map_err(config)
    })
}
