//! Composition from C: one server's registrations served by another under a prefix. What a
//! mount copies, how names and URIs are rewritten and how it stays live are the core's
//! (`Server::mount`); this converts arguments.

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
