//! The core's diagnostics for a C host: a callback for its log records
//! (`ferrite_set_diagnostic_callback`). Not MCP logging (`ferrite_request_log` sends
//! `notifications/message` to a client): these records are for the operator.
//!
//! The core emits its events (sessions, refused requests, handler panics, store errors) through
//! `ferrite_core::diagnostics`; this module installs the core's sink with a C function pointer.
//! Nothing is logged until a host asks, and nothing is ever written to stdout or stderr by the
//! library itself.

use std::ffi::c_void;
use std::sync::Arc;

use ferrite_core::diagnostics::{self, Level, Record};

use crate::buffer::ferrite_str;
use crate::error::{ferrite_result, ffi_boundary, Error};
use crate::handler::{ferrite_finalizer, UserData};

/// The levels of `ferrite_set_diagnostic_callback`, most severe first; `..._OFF` turns it off.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum ferrite_diagnostic_level {
    /// No records (the callback is dropped, its finalizer runs).
    Off = 0,
    /// Failures that should not happen: a handler panicked, a result was not valid.
    Error = 1,
    /// What an operator should know: a store unreachable, a request refused with 5xx.
    Warn = 2,
    /// Lifecycle: sessions created, evicted, expired, ended; requests refused with 4xx.
    Info = 3,
    /// Per request: tool failures.
    Debug = 4,
    /// Everything.
    Trace = 5,
}

/// Receives one log record: its level (a `ferrite_diagnostic_level`), its target (`ferrite::session`,
/// `ferrite::http`, `ferrite::handler`, `ferrite::store`) and its message (the text, then
/// ` key=value` per field), both borrowed for the call. Called on whichever thread emitted the
/// record, possibly on several at once; it must not call `ferrite_set_diagnostic_callback`.
/// Records never carry a bearer token, a session id, request state, arguments or results.
#[allow(non_camel_case_types)]
pub type ferrite_diagnostic_callback =
    Option<unsafe extern "C" fn(user_data: *mut c_void, level: u32, target: ferrite_str, message: ferrite_str)>;

/// `None` for `..._OFF`, else the core's level of that number.
fn level_of(level: u32) -> Result<Option<Level>, Error> {
    if level == ferrite_diagnostic_level::Off as u32 {
        return Ok(None);
    }
    u8::try_from(level)
        .ok()
        .and_then(Level::from_number)
        .map(Some)
        .ok_or_else(|| Error::invalid(format!("level: {level} is not a ferrite_diagnostic_level (0 to 5)")))
}

/// Send the core's log records at `level` or more severe to `callback` (process-wide; replaces
/// a previous callback, whose finalizer then runs). `FERRITE_DIAGNOSTIC_LEVEL_OFF` or a NULL `callback`
/// turns logging off. Off by default. `finalizer` (may be NULL) runs once on `user_data` when
/// the callback is replaced or turned off, or at once when this call installs nothing.
/// `FERRITE_RESULT_INVALID_ARGUMENT` for a level above `FERRITE_DIAGNOSTIC_LEVEL_TRACE`;
/// `FERRITE_RESULT_LOGGER_TAKEN` when the process's Rust code already installed a `tracing`
/// subscriber of its own (its records go there).
#[no_mangle]
pub extern "C" fn ferrite_set_diagnostic_callback(
    callback: ferrite_diagnostic_callback,
    user_data: *mut c_void,
    finalizer: ferrite_finalizer,
    level: u32,
) -> ferrite_result {
    // Owned from here on, so the finalizer runs on every path (refusals included).
    let data = UserData::new(user_data, finalizer);
    ffi_boundary!({
        let level = level_of(level)?;
        let (Some(f), Some(level)) = (callback, level) else {
            diagnostics::uninstall();
            return Ok(());
        };
        let sink = move |r: &Record<'_>| {
            // SAFETY: the host registered `f` for `data`; both strings outlive the call.
            unsafe { f(data.ptr(), r.level as u32, ferrite_str::borrow(r.target), ferrite_str::borrow(r.message)) }
        };
        diagnostics::install(level, Arc::new(sink)).map_err(|e| Error::new(ferrite_result::LoggerTaken, e.to_string()))
    })
}
