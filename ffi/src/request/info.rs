//! What the transport knows about the request, the core's `RequestInfo`: the caller's
//! verified identity (on a protected server), the HTTP method, path and remote address, the
//! values the host attached, all of it as one JSON object, and which headers carry credentials.
//! It sits apart from `context` (the MCP request itself: id, arguments, revision, client) so
//! each file holds one concept. The HTTP header getter, `ferrite_request_header`, stays in
//! `context`: cbindgen lists functions in source order, and the committed header keeps it there.
//! Every string output is borrowed from the request (valid while the request is) and never
//! needs freeing.

use std::ffi::c_char;

use serde_json::Value;

use super::{ferrite_request, request_ref};
use crate::buffer::{ferrite_str, str_arg, write_out};
use crate::error::{ferrite_result, ffi_boundary, Error};

/// The caller's verified identity on a protected server (`ferrite_server_new_with_auth`), as
/// JSON text, borrowed: valid while the request is. The core's shape, the same on every
/// surface: `{"subject", "clientId", "scopes", "expiresAt", "issuer", "claims"}` (absent
/// values `null`; `claims` holds every claim of the token). `out->ptr` is NULL (and the call
/// succeeds) when the request was not authenticated (an unprotected server, stdio,
/// `ferrite_server_handle_raw`). The token itself is never kept.
///
/// Any thread, while the request is live (from its callback until it is settled).
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_identity(
    request: *const ferrite_request,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        if out.is_null() {
            return Err(Error::null("out"));
        }
        let text = req.cached_text("identity".to_owned(), || req.ctx.identity().map(|id| id.to_json().to_string()));
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, text, "out") }
    })
}

/// The caller's verified subject (the identity's `subject`: the token's `sub`, or its client
/// id when it has none), borrowed: valid while the request is. `out->ptr` is NULL (and the
/// call succeeds) when the request was not authenticated.
///
/// Any thread, while the request is live (from its callback until it is settled).
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_subject(
    request: *const ferrite_request,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        let subject = req.ctx.subject().map_or(ferrite_str::ABSENT, ferrite_str::borrow);
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, subject, "out") }
    })
}

/// The HTTP method of the request (`"POST"` for every MCP request over HTTP), borrowed: valid
/// while the request is. `out->ptr` is NULL (and the call succeeds) when the request did not come over
/// HTTP (stdio, `ferrite_server_handle_raw`).
///
/// Any thread, while the request is live (from its callback until it is settled).
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_http_method(
    request: *const ferrite_request,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        let method = req.ctx.request_info().method().map_or(ferrite_str::ABSENT, ferrite_str::borrow);
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, method, "out") }
    })
}

/// The path of the HTTP request as the endpoint received it (`"/mcp"`; a host router that
/// strips a mount prefix hands over the rest), without the query, borrowed: valid while the
/// request is. `out->ptr` is NULL (and the call succeeds) when the request did not come over
/// HTTP.
///
/// Any thread, while the request is live (from its callback until it is settled).
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_http_path(
    request: *const ferrite_request,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        let path = req.ctx.request_info().path().map_or(ferrite_str::ABSENT, ferrite_str::borrow);
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, path, "out") }
    })
}

/// The HTTP client's address as `IP:port` (`"127.0.0.1:50312"`, `"[::1]:50312"`), borrowed:
/// valid while the request is. Ferrite's own listener always knows it; a host's server
/// (`ferrite_http_exchange_begin`) passes it. `out->ptr` is NULL (and the call succeeds) when
/// it is unknown or the request did not come over HTTP.
///
/// Any thread, while the request is live (from its callback until it is settled).
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_remote_addr(
    request: *const ferrite_request,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        if out.is_null() {
            return Err(Error::null("out"));
        }
        let text =
            req.cached_text("remote_addr".to_owned(), || req.ctx.request_info().remote_addr().map(|a| a.to_string()));
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, text, "out") }
    })
}

/// The value the host attached to the HTTP request under `name`
/// (`ferrite_http_exchange_begin`'s `host_values_json`; in Go, `WithHostValues` or
/// `ContextWithHostValue`) as JSON text (`"acme"`, `42`, `{...}`), borrowed: valid while the
/// request is. `out->ptr` is NULL (and the call succeeds) when there is no such value or the
/// request did not come over HTTP.
///
/// Any thread, while the request is live (from its callback until it is settled).
///
/// # Safety
/// `request` is a live request handle; `name` points to `name_len` readable bytes; `out` is
/// valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_host_value(
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
        if out.is_null() {
            return Err(Error::null("out"));
        }
        let text = req.cached_text(format!("host_value:{name}"), || req.ctx.host_value(name).map(Value::to_string));
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, text, "out") }
    })
}

/// What the transport knows about the request as one JSON object, the core's shape on every
/// surface: `{"method", "path", "headers": {name: value, ...}, "remoteAddr", "hostValues",
/// "identity"}` (header names lower-case, a repeated header's values joined with `", "`,
/// sensitive headers included: the handler is trusted, so never log this text as is; see
/// `ferrite_http_header_is_sensitive`; `remoteAddr` and `identity` may be `null`, `hostValues`
/// `{}`), borrowed: valid while the request is. `out->ptr` is NULL (and the call succeeds) when
/// the request did not come over HTTP (stdio, `ferrite_server_handle_raw`).
///
/// Any thread, while the request is live (from its callback until it is settled).
///
/// # Safety
/// `request` is a live request handle; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn ferrite_request_info(
    request: *const ferrite_request,
    out: *mut ferrite_str,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let req = unsafe { request_ref(request) }?;
        if out.is_null() {
            return Err(Error::null("out"));
        }
        let text = req.cached_text("request_info".to_owned(), || match req.ctx.request_info().to_json() {
            Value::Null => None,
            v => Some(v.to_string()),
        });
        // SAFETY: forwarded from this function's contract.
        unsafe { write_out(out, text, "out") }
    })
}

/// Whether an HTTP header carries credentials (`authorization`, `cookie`,
/// `proxy-authorization`, `set-cookie`, `x-api-key`; case-insensitive): the core's list, which
/// every Ferrite surface redacts when it shows request info. False for NULL or non-UTF-8.
///
/// # Safety
/// `name` is NULL or points to `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_http_header_is_sensitive(name: *const c_char, name_len: usize) -> bool {
    let mut sensitive = false;
    let _ = ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        if let Some(name) = unsafe { crate::buffer::opt_str_arg(name, name_len, "name") }? {
            sensitive = ferrite_core::server::SENSITIVE_HEADERS.iter().any(|h| h.eq_ignore_ascii_case(name));
        }
        Ok(())
    });
    sensitive
}
