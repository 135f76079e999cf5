//! The server's settings: what it declares and enforces (logging, subscriptions, list-changed
//! notifications, validation, the initialized handshake, pagination), and what it serves now
//! (its capabilities, its tools). Each converts the host's values and calls the core.

use std::ffi::c_char;

use ferrite_core::Server;

use super::{ferrite_server, server_ref};
use crate::buffer::give_string;
use crate::error::{ferrite_result, ffi_boundary, Error};

/// The capabilities the server declares now, as JSON (the MCP `ServerCapabilities` shape),
/// in a new buffer at `*out` (free it with `ferrite_string_free`).
///
/// # Safety
/// `server` is a live server; `out` is valid for a write; `out_len` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_capabilities(
    server: *const ferrite_server,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let caps = unsafe { server_ref(server) }?.core()?.capabilities();
        let text = serde_json::to_string(&caps).map_err(|e| Error::invalid(e.to_string()))?;
        // SAFETY: forwarded from this function's contract.
        unsafe { give_string(text.as_bytes(), out, out_len) }
    })
}

/// What the server counts now (the core's `Server::stats`), as JSON:
/// `{"sseStreams", "tasksRunning", "tasksCreated", "storeRoundTrips"}` (SSE streams open,
/// tasks running in this process, tasks created, Redis round trips), in a new buffer at `*out`
/// (free it with `ferrite_string_free`). The same figures telemetry exports as metrics.
///
/// # Safety
/// `server` is a live server; `out` is valid for a write; `out_len` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_stats(
    server: *const ferrite_server,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let stats = unsafe { server_ref(server) }?.core()?.stats();
        let text = serde_json::to_string(&stats).map_err(|e| Error::invalid(e.to_string()))?;
        // SAFETY: forwarded from this function's contract.
        unsafe { give_string(text.as_bytes(), out, out_len) }
    })
}

/// Apply a setting to the core server.
///
/// # Safety
/// `server` NULL or live.
unsafe fn configure(server: *const ferrite_server, f: impl FnOnce(&Server) -> Result<(), Error>) -> Result<(), Error> {
    // SAFETY: forwarded from the caller's contract.
    f(&unsafe { server_ref(server) }?.core()?)
}

/// Advertise the `logging` capability and accept `logging/setLevel` (on by default: a server
/// turned it off with `ferrite_server_disable_logging`); `ferrite_request_log` sends nothing
/// without it.
///
/// # Safety
/// `server` is a live server.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_enable_logging(server: *const ferrite_server) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            configure(server, |core| {
                core.enable_logging();
                Ok(())
            })
        }
    })
}

/// Stop advertising `logging` and refuse `logging/setLevel` (-32601); `ferrite_request_log`
/// then sends nothing. Logging is on by default.
///
/// # Safety
/// `server` is a live server.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_disable_logging(server: *const ferrite_server) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            configure(server, |core| {
                core.disable_logging();
                Ok(())
            })
        }
    })
}

/// Advertise `resources.subscribe`: `resources/subscribe` on handshake-era sessions of a
/// stateful server, and per-URI updates on 2026-07-28 `subscriptions/listen` streams (any
/// mode).
///
/// # Safety
/// `server` is a live server.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_enable_resource_subscriptions(server: *const ferrite_server) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            configure(server, |core| {
                core.enable_resource_subscriptions()
                    .map_err(|e| Error::new(ferrite_result::NeedsStateful, e.to_string()))
            })
        }
    })
}

/// Advertise `tools.listChanged`.
///
/// # Safety
/// `server` is a live server.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_enable_tools_list_changed(server: *const ferrite_server) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            configure(server, |core| {
                core.enable_tools_list_changed();
                Ok(())
            })
        }
    })
}

/// Advertise `resources.listChanged`.
///
/// # Safety
/// `server` is a live server.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_enable_resources_list_changed(server: *const ferrite_server) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            configure(server, |core| {
                core.enable_resources_list_changed();
                Ok(())
            })
        }
    })
}

/// Advertise `prompts.listChanged`.
///
/// # Safety
/// `server` is a live server.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_enable_prompts_list_changed(server: *const ferrite_server) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            configure(server, |core| {
                core.enable_prompts_list_changed();
                Ok(())
            })
        }
    })
}

/// Refuse requests other than `ping` with -32002 until the client sent
/// `notifications/initialized` (off by default).
///
/// # Safety
/// `server` is a live server.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_require_initialized(server: *const ferrite_server) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            configure(server, |core| {
                core.require_initialized();
                Ok(())
            })
        }
    })
}

/// Stop validating tool arguments against their input schemas (on by default).
///
/// # Safety
/// `server` is a live server.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_disable_input_validation(server: *const ferrite_server) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            configure(server, |core| {
                core.disable_input_validation();
                Ok(())
            })
        }
    })
}

/// Validate tool arguments against their input schemas again (the default; undoes
/// `ferrite_server_disable_input_validation`). A call whose arguments violate the schema is
/// answered with a tool result with `isError: true` naming the violation; the callback does
/// not run.
///
/// # Safety
/// `server` is a live server.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_enable_input_validation(server: *const ferrite_server) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            configure(server, |core| {
                core.enable_input_validation();
                Ok(())
            })
        }
    })
}

/// Require a tool with an output schema to return conforming `structuredContent`.
///
/// # Safety
/// `server` is a live server.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_enable_output_validation(server: *const ferrite_server) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe {
            configure(server, |core| {
                core.enable_output_validation();
                Ok(())
            })
        }
    })
}

/// Return at most `page_size` items per `*/list` page; 0 (the default) disables pagination.
///
/// # Safety
/// `server` is a live server.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_set_page_size(
    server: *const ferrite_server,
    page_size: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        unsafe { server_ref(server) }?.core()?.set_page_size(page_size);
        Ok(())
    })
}

/// The registered tools, in registration order, as a JSON array of MCP `Tool` descriptors
/// (what `tools/list` serves, unpaginated), in a new buffer at `*out` (free it with
/// `ferrite_string_free`); `*out_len` (if not NULL) is its length.
///
/// # Safety
/// `server` is a live server; `out` is valid for a write; `out_len` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_list_tools(
    server: *const ferrite_server,
    out: *mut *mut c_char,
    out_len: *mut usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let tools = unsafe { server_ref(server) }?.core()?.tools();
        let text = serde_json::to_string(&tools).map_err(|e| Error::invalid(e.to_string()))?;
        // SAFETY: forwarded from this function's contract.
        unsafe { give_string(text.as_bytes(), out, out_len) }
    })
}
