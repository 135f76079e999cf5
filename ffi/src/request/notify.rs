//! What a request sends the client while it runs: log messages, progress, notifications
//! tied to the request, and closing the request's SSE stream (polling).

use std::ffi::c_char;

use ferrite_core::LoggingLevel;
use serde_json::Value;

use super::{ferrite_request, request_ref};
use crate::buffer::{json_arg, opt_json_arg, opt_str_arg, str_arg, write_opt};
use crate::error::{ferrite_result, ffi_boundary, Error};

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

pub(crate) fn log_level(v: u32) -> Result<LoggingLevel, Error> {
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
