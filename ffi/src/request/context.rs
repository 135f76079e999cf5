//! Reading the request: its id, arguments, revision, connection, cancellation, the client's
//! capabilities, info and extensions, an HTTP header, the progress token and `_meta` (the rest
//! of what the transport knows is in `info`). Every string output is borrowed from the request
//! (valid while the request is) and never needs freeing.

use std::ffi::c_char;

use serde_json::Value;

use super::{ferrite_request, request_ref};
use crate::buffer::{ferrite_str, str_arg, write_out};
use crate::error::{ferrite_result, ffi_boundary, Error};

/// The request's JSON-RPC id as JSON text (`7` or `"abc"`), borrowed: valid while the
/// request is.
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_id(request: *const ferrite_request, out: *mut ferrite_str) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        let id = req.id_json.get_or_init(|| req.ctx.request_id().to_value().to_string());
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, ferrite_str::borrow(id), "out") }
    })
}

/// The arguments of a tool call or prompt (or the params of a custom method, or of the request
/// a middleware sees) as JSON text (an object), borrowed: valid while the request is.
/// `FERRITE_RESULT_NOT_FOUND` for other requests (and a middleware's request without params).
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_arguments(
    request: *const ferrite_request,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        let text = req.arguments_text().ok_or_else(|| no_arguments(req))?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, ferrite_str::borrow(text), "out") }
    })
}

fn no_arguments(req: &ferrite_request) -> Error {
    Error::new(ferrite_result::NotFound, format!("a {} request has no arguments", req.kind.name()))
}

/// The argument at JSON Pointer `pointer` (`"/a"`, `"/address/city"`), read from the parsed
/// arguments: no JSON text is made or parsed.
///
/// # Safety
/// `request` NULL or live; `pointer` NULL or `pointer_len` readable bytes.
unsafe fn argument<'a>(
    request: *const ferrite_request,
    pointer: *const c_char,
    pointer_len: usize,
) -> Result<&'a Value, Error> {
    // SAFETY: forwarded from the caller's contract.
    let req: &'a ferrite_request = unsafe { request_ref(request) }?;
    // SAFETY: forwarded from the caller's contract.
    let pointer = unsafe { str_arg(pointer, pointer_len, "pointer") }?;
    let args = req.arguments.as_ref().ok_or_else(|| no_arguments(req))?;
    args.pointer(pointer)
        .ok_or_else(|| Error::new(ferrite_result::NotFound, format!("no argument at JSON Pointer {pointer:?}")))
}

/// The integer argument at JSON Pointer `pointer` (`"/a"`) of a tool call, prompt or custom
/// method, stored
/// at `*out`. `FERRITE_RESULT_NOT_FOUND` if absent, `FERRITE_RESULT_INVALID_ARGUMENT` if it
/// is not an integer that fits in `int64_t`.
///
/// # Safety
/// `request` is a live request handle; `pointer` points to `pointer_len` readable bytes;
/// `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_argument_i64(
    request: *const ferrite_request,
    pointer: *const c_char,
    pointer_len: usize,
    out: *mut i64,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let v = unsafe { argument(request, pointer, pointer_len) }?;
        let n = v.as_i64().ok_or_else(|| Error::invalid(format!("the argument is not a 64-bit integer: {v}")))?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, n, "out") }
    })
}

/// The string argument at JSON Pointer `pointer` (`"/text"`) of a tool call, prompt or custom
/// method, as
/// unescaped UTF-8 borrowed from the request (valid while the request is; not
/// NUL-terminated; may contain NUL bytes). `FERRITE_RESULT_NOT_FOUND` if absent,
/// `FERRITE_RESULT_INVALID_ARGUMENT` if it is not a string.
///
/// # Safety
/// `request` is a live request handle; `pointer` points to `pointer_len` readable bytes;
/// `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_argument_string(
    request: *const ferrite_request,
    pointer: *const c_char,
    pointer_len: usize,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let v = unsafe { argument(request, pointer, pointer_len) }?;
        let s = v.as_str().ok_or_else(|| Error::invalid(format!("the argument is not a string: {v}")))?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, ferrite_str::borrow(s), "out") }
    })
}

/// The protocol revision in effect for this request (`"2025-06-18"`), borrowed from static
/// storage.
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_protocol_version(
    request: *const ferrite_request,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, ferrite_str::borrow(req.ctx.protocol_version().as_str()), "out") }
    })
}

/// A stable, non-empty id of the request's connection (stdio process, session), borrowed:
/// valid while the request is.
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_connection_id(
    request: *const ferrite_request,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, ferrite_str::borrow(req.ctx.connection_id()), "out") }
    })
}

/// Whether the client cancelled this request (`notifications/cancelled`, or an HTTP session
/// that ended; in a task, `tasks/cancel`). Long handlers should poll it and stop (or register
/// `ferrite_request_on_cancel`); a late result is discarded either way.
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_is_cancelled(
    request: *const ferrite_request,
    out: *mut bool,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, req.ctx.is_cancelled(), "out") }
    })
}

/// Whether the handler runs as a task's body: a tool registered with a task support
/// (`ferrite_server_add_tool_with_task_support`) called by a client that asked for a task
/// (2025-11-25 `params.task`) or declared the tasks extension (2026-07-28). Its cancellation is
/// then the task's (`tasks/cancel`), its input requests (`ferrite_request_elicit`, `_sample`,
/// `_list_roots`, an input-required reply) wait in the task until the client answers, and its
/// logs, progress and notifications are dropped. False for an ordinary call of the same tool.
///
/// Any thread, while the request is live (from its callback until it is settled).
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_is_task(request: *const ferrite_request, out: *mut bool) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, req.ctx.is_task(), "out") }
    })
}

/// Whether the client declared a capability, by dotted path (`"sampling"`,
/// `"elicitation.url"`, `"roots.listChanged"`).
///
/// # Safety
/// `request` is a live request handle; `capability` points to `capability_len` readable
/// bytes; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_client_supports(
    request: *const ferrite_request,
    capability: *const c_char,
    capability_len: usize,
    out: *mut bool,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        // SAFETY: forwarded from this function's contract.
        let cap = unsafe { str_arg(capability, capability_len, "capability") }?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, req.ctx.client_supports(cap), "out") }
    })
}

/// Whether the request uses the 2026-07-28 revision (a per-request `_meta` envelope, no
/// session handshake). On such a request a handler asks the client for input by replying
/// "input required" (`ferrite_request_input_required`): `ferrite_request_sample`, `_elicit`,
/// `_list_roots` and `_send` fail there with `FERRITE_RESULT_PEER_ERROR`, except in a task
/// (`ferrite_request_is_task`), where the input requests wait in the task.
///
/// Any thread, while the request is live (from its callback until it is settled).
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_is_modern(request: *const ferrite_request, out: *mut bool) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, req.ctx.is_modern(), "out") }
    })
}

/// The settings the client declared for extension `id` (`"io.modelcontextprotocol/skills"`)
/// as JSON text (usually an object), borrowed: valid while the request is. `out->ptr` is NULL
/// (and the call succeeds) when the client did not declare the extension.
///
/// Any thread, while the request is live (from its callback until it is settled).
///
/// # Safety
/// `request` is a live request handle; `id` points to `id_len` readable bytes; `out` is
/// valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_client_extension(
    request: *const ferrite_request,
    id: *const c_char,
    id_len: usize,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        // SAFETY: forwarded from this function's contract.
        let id = unsafe { str_arg(id, id_len, "id") }?;
        if out.is_null() {
            return Err(Error::null("out"));
        }
        let text =
            req.cached_text(format!("extension:{id}"), || req.ctx.client_extension(id).map(|v: Value| v.to_string()));
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, text, "out") }
    })
}

/// The value of the HTTP request header `name` (case-insensitive, e.g. `"Mcp-Param-Region"`),
/// borrowed: valid while the request is. `out->ptr` is NULL (and the call succeeds) when the
/// header is absent, its value is not visible ASCII, or the request did not come over HTTP
/// (stdio, `ferrite_server_handle_raw`). A header sent several times gives its first value.
///
/// Any thread, while the request is live (from its callback until it is settled).
///
/// # Safety
/// `request` is a live request handle; `name` points to `name_len` readable bytes; `out` is
/// valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_header(
    request: *const ferrite_request,
    name: *const c_char,
    name_len: usize,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        // SAFETY: forwarded from this function's contract.
        let name = unsafe { str_arg(name, name_len, "name") }?;
        let value = req.ctx.header(name).map_or(ferrite_str::ABSENT, ferrite_str::borrow);
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, value, "out") }
    })
}

/// The capabilities the client declared (the MCP `ClientCapabilities` shape, `{}` when it
/// declared none; on a 2026-07-28 request, those of its envelope) as JSON text, borrowed: valid
/// while the request is.
///
/// Any thread, while the request is live (from its callback until it is settled).
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_client_capabilities(
    request: *const ferrite_request,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        if out.is_null() {
            return Err(Error::null("out"));
        }
        let text = req.cached_text("client_capabilities".to_owned(), || {
            serde_json::to_string(&req.ctx.client_capabilities()).ok()
        });
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, text, "out") }
    })
}

/// The client's `clientInfo` (the MCP `Implementation` shape: `{"name": ..., "version": ...}`)
/// as JSON text, borrowed: valid while the request is. `out->ptr` is NULL (and the call
/// succeeds) when the client sent none (no `initialize` on this connection yet, or a
/// 2026-07-28 envelope without it).
///
/// Any thread, while the request is live (from its callback until it is settled).
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_client_info(
    request: *const ferrite_request,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        if out.is_null() {
            return Err(Error::null("out"));
        }
        let text = req.cached_text("client_info".to_owned(), || {
            req.ctx.connection().client_info().and_then(|info| serde_json::to_string(&info).ok())
        });
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, text, "out") }
    })
}

/// The request's `_meta.progressToken` as JSON text (`"abc"` or `7`), borrowed: valid while
/// the request is. `out->ptr` is NULL (and the call succeeds) when the request carried none
/// (`ferrite_request_report_progress` then sends nothing).
///
/// Any thread, while the request is live (from its callback until it is settled).
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_progress_token(
    request: *const ferrite_request,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        if out.is_null() {
            return Err(Error::null("out"));
        }
        let text = req.cached_text("progress_token".to_owned(), || req.ctx.progress_token().map(Value::to_string));
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, text, "out") }
    })
}

/// The request's `_meta` object as JSON text (every key the client sent, the 2026-07-28
/// envelope's included), borrowed: valid while the request is. `out->ptr` is NULL (and the
/// call succeeds) when the request had no `_meta`.
///
/// Any thread, while the request is live (from its callback until it is settled).
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_meta(
    request: *const ferrite_request,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        if out.is_null() {
            return Err(Error::null("out"));
        }
        let text = req.cached_text("meta".to_owned(), || req.ctx.meta().and_then(|m| serde_json::to_string(m).ok()));
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, text, "out") }
    })
}
