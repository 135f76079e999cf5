//! The dispatch limits of a live server (the core's `Limits`): how long a batch may be and how
//! many requests may run at once, per connection and in the whole server. They cross as JSON,
//! the core's keys, so a bound the core adds later reaches C without a new function; the core
//! checks every value and words every refusal, here and on every other surface.

use std::ffi::c_char;

use serde_json::Value;

use super::{ferrite_server, server_ref};
use crate::buffer::{give_string, json_arg};
use crate::error::{ferrite_result, ffi_boundary, Error};

/// Change the dispatch limits named in `json`, a JSON object of the core's `Limits` keys
/// (snake_case; camelCase is read too), each a whole number at least 1; keys left out (or
/// `null`) keep their value. They take effect at once, for requests that arrive afterwards.
///
/// - `max_batch_len` (default 100): messages in one JSON-RPC batch (2025-03-26); a longer
///   batch is refused whole with -32600 and `data: {"limit": "max_batch_len", "value": N}`.
/// - `max_in_flight_per_connection` (default 256): requests running at once on one connection
///   (the stdio process, an HTTP session, a `ferrite_connection`, the in-process connection of
///   `ferrite_server_handle_raw`); one more is answered -32603 with
///   `data: {"limit": "max_in_flight_per_connection", "value": N}`.
/// - `max_in_flight` (default 10000): requests running at once in the whole server; one more is
///   answered -32603 with `data: {"limit": "max_in_flight", "value": N}`.
/// - `max_json_depth` (default and at most 127, serde_json's own limit): objects and arrays
///   nested inside one another in one inbound message; deeper text is answered -32700 (HTTP
///   400) with `data: {"limit": "max_json_depth", "value": N}`.
///
/// Text that is not JSON is `FERRITE_RESULT_INVALID_JSON`; an unknown key, a value of the
/// wrong type, 0, or a non-object is `FERRITE_RESULT_INVALID_ARGUMENT` with the core's message
/// (`invalid limit max_in_flight: must be at least 1`) in `ferrite_last_error`, and nothing
/// changes.
///
/// # Safety
/// `server` is a live server; `json` points to `json_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_set_limits(
    server: *const ferrite_server,
    json: *const c_char,
    json_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let core = unsafe { server_ref(server) }?.core()?;
        // SAFETY: forwarded from this function's contract.
        let limits: Value = unsafe { json_arg(json, json_len, "json") }?;
        core.set_limits_json(limits).map(|_| ()).map_err(|e| Error::invalid(e.to_string()))
    })
}

/// The dispatch limits in force, as a JSON object with every key (snake_case):
/// `{"max_batch_len": 100, "max_in_flight_per_connection": 256, "max_in_flight": 10000,
/// "max_json_depth": 127}` at first. In a new buffer at `*out` (free it with `ferrite_string_free`); `*out_len` (if not
/// NULL) is its length.
///
/// # Safety
/// `server` is a live server; `out` is valid for a write; `out_len` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_limits(
    server: *const ferrite_server,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let limits = unsafe { server_ref(server) }?.core()?.limits();
        let text = limits.to_json().to_string();
        // SAFETY: forwarded from this function's contract.
        unsafe { give_string(text.as_bytes(), out, out_len) }
    })
}
