//! Composition and proxying from C: one server's registrations served by another under a
//! prefix, and a server in front of another MCP server. What a mount copies, how names and
//! URIs are rewritten and how it stays live, and everything a proxy forwards, are the core's
//! (`Server::mount`, `ferrite_core::proxy`); this converts arguments.

use std::ffi::c_char;

use crate::buffer::str_arg;
use crate::error::{ferrite_result, ffi_boundary, Error};
use crate::handler::config;
use crate::server::{ferrite_server, server_ref};

/// Serve `child`'s tools, prompts, resources, resource templates and completions from
/// `parent` under `prefix` (`prefix_len` bytes of UTF-8; tools and prompts become
/// `{prefix}_{name}`, URIs `scheme://{prefix}/rest`; an empty prefix keeps the names), and its
/// custom methods and extensions as they are. The mount is live: what `child` registers or
/// removes later shows in `parent`, and `child`'s notifications (list changes, resource
/// updates) reach `parent`'s clients. Handlers run as registered, with the child's own names
/// and URIs. `parent`'s own registrations win over mounted ones of the same name; `child`'s
/// middleware does not run for calls through `parent`. Closing or freeing `child` unmounts it.
///
/// `FERRITE_RESULT_INVALID_ARGUMENT` when the prefix holds characters other than ASCII
/// letters, digits, `-`, `_` and `.`, or when the mount would make a cycle (a server in
/// itself, or in a server mounted in it).
///
/// # Safety
/// `parent` and `child` are live servers; `prefix` points to `prefix_len` readable bytes (NULL
/// with 0 for no prefix).
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_mount(
    parent: *const ferrite_server,
    prefix: *const c_char,
    prefix_len: usize,
    child: *const ferrite_server,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let (p, c, prefix) = unsafe { args(parent, prefix, prefix_len, child) }?;
        p.core()?.mount(prefix, &c.core()?).map_err(config)
    })
}

/// Stop serving what `child` was mounted with under `prefix` in `parent`.
/// `FERRITE_RESULT_NOT_FOUND` if it was not mounted so.
///
/// # Safety
/// As for `ferrite_server_mount`.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_unmount(
    parent: *const ferrite_server,
    prefix: *const c_char,
    prefix_len: usize,
    child: *const ferrite_server,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let (p, c, prefix) = unsafe { args(parent, prefix, prefix_len, child) }?;
        if p.core()?.unmount(prefix, &c.core()?) {
            Ok(())
        } else {
            Err(Error::new(ferrite_result::NotFound, format!("no server is mounted under {prefix:?}")))
        }
    })
}

/// # Safety
/// As for `ferrite_server_mount`.
unsafe fn args<'a>(
    parent: *const ferrite_server,
    prefix: *const c_char,
    prefix_len: usize,
    child: *const ferrite_server,
) -> Result<(&'a ferrite_server, &'a ferrite_server, &'a str), Error> {
    // SAFETY: forwarded from the caller's contract.
    let p = unsafe { server_ref(parent) }?;
    // SAFETY: forwarded from the caller's contract.
    let c = unsafe { server_ref(child) }?;
    let prefix = if prefix.is_null() && prefix_len == 0 {
        ""
    } else {
        // SAFETY: forwarded from the caller's contract.
        unsafe { str_arg(prefix, prefix_len, "prefix") }?
    };
    Ok((p, c, prefix))
}

/// Serve what another MCP server serves (`ferrite_core::proxy`): `upstream_json` is
/// `{"command": "prog", "args": [...], "env": {...}}` (a child speaking MCP on stdio) or
/// `{"url": "http://host/mcp", "headers": {...}}` (Streamable HTTP), with `"era"`: `"auto"`
/// (the default: each client's request upstream in the client's era, when the upstream serves
/// both), `"handshake"` or `"modern"`, and `"timeout_ms"`: how long a request to the upstream
/// may go without an answer, a progress notification or a question open with the client (a
/// positive whole number; 60000 when absent), past which it is cancelled upstream and the
/// client gets `-32001`. Connects and initializes the upstream now (blocking),
/// then mirrors its tools, resources, templates and prompts into `server` as registrations
/// that forward each call (progress, logs, server-to-client requests and cancellation go
/// between the upstream and the client of the call), follows its list changes, and forwards
/// completions, subscriptions and custom methods. The upstream stops when the server closes.
///
/// `FERRITE_RESULT_INVALID_JSON` / `FERRITE_RESULT_INVALID_ARGUMENT` for a description that
/// does not parse or describes no upstream; `FERRITE_RESULT_UPSTREAM` when the upstream cannot
/// be started or reached, or refuses `initialize` (the detail in `ferrite_last_error`);
/// `FERRITE_RESULT_WRONG_THREAD` from a callback.
///
/// # Safety
/// `server` is a live server; `upstream_json` points to `upstream_json_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ferrite_server_proxy(
    server: *const ferrite_server,
    upstream_json: *const c_char,
    upstream_json_len: usize,
) -> ferrite_result {
    ffi_boundary!({
        // SAFETY: forwarded from this function's contract.
        let s = unsafe { server_ref(server) }?;
        // SAFETY: forwarded from this function's contract.
        let spec: serde_json::Value =
            unsafe { crate::buffer::json_arg(upstream_json, upstream_json_len, "upstream_json") }?;
        let core = s.core()?;
        s.run("ferrite_server_proxy", async move { core.proxy_upstream(&spec).await })?.map(drop).map_err(|e| match e {
            ferrite_core::proxy::ProxyError::Target(_) => Error::new(ferrite_result::InvalidArgument, e.to_string()),
            _ => Error::new(ferrite_result::Upstream, e.to_string()),
        })
    })
}
